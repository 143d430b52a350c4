/* A thread that removes directories nobody uses any more (the partition directories of
 * deleted topics), so that a slow unlink or rmdir (a busy journal can hold one for tens of
 * milliseconds) never stalls the event loop. The loop closes a partition's log first and
 * hands over only its path: the thread touches no partition state, only files that no one
 * references by name. Finished items come back to the loop through a done list that it
 * polls. @locality gr_dir_reaper_* are loop-thread calls; the thread is internal. */
#ifndef GR_BROKER_DIR_REAPER_H
#define GR_BROKER_DIR_REAPER_H

#include <stdbool.h>

typedef struct gr_dir_reaper gr_dir_reaper_t;

/** One directory to remove; embed it (first member) in the caller's own record. */
typedef struct gr_reap_item {
    struct gr_reap_item *next;
    char *dir;
    int result; /* set by the thread: 0 or -errno */
} gr_reap_item_t;

/** Start the thread. NULL if it cannot be started. */
gr_dir_reaper_t *gr_dir_reaper_new(void);
/** Queue it (FIFO); it comes back from gr_dir_reaper_take_done once removed. */
void gr_dir_reaper_push(gr_dir_reaper_t *r, gr_reap_item_t *it);
/** The items removed since the last call (any order), NULL if none. Never blocks long. */
gr_reap_item_t *gr_dir_reaper_take_done(gr_dir_reaper_t *r);
/** Block until every queued item is removed (synchronous paths: start-up, auto-creation). */
void gr_dir_reaper_wait_idle(gr_dir_reaper_t *r);
/** Stop after the item in progress and join; *queued gets the items not removed,
 *  *done those removed but not taken. NULL r is ignored. */
void gr_dir_reaper_free(gr_dir_reaper_t *r, gr_reap_item_t **queued, gr_reap_item_t **done);

#endif
