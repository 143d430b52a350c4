/* Internals of src/net/loop*.c: the loop struct and the polling backend
 * interface. Not for use outside src/net.
 *
 * A backend (loop_epoll.c; a kqueue one would sit beside it, like Redis's
 * ae_epoll.c/ae_kqueue.c) only knows fds and masks. The loop maps fired fds
 * back to watchers through an fd-indexed table, so a watcher stopped during
 * dispatch simply has no entry and its stale events are dropped. */
#ifndef GR_NET_LOOP_INT_H
#define GR_NET_LOOP_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "net/loop.h"

typedef struct gr__backend gr__backend_t;

typedef struct gr__fired {
    int fd;
    uint32_t events; /* GR_IO_* */
} gr__fired_t;

/** Create the backend. Returns GR_ERR__IO with errstr filled on failure. */
gr_err_t gr__backend_new(gr__backend_t **out, char *errstr, size_t errstr_size);
void gr__backend_free(gr__backend_t *be);
/** Change fd's interest from old_mask to new_mask (0 = not registered). */
gr_err_t gr__backend_set(gr__backend_t *be, int fd, uint32_t old_mask, uint32_t new_mask);
/** Wait up to timeout_ms (-1 = forever) and fill at most max entries.
 *  Returns the number filled, 0 on timeout or EINTR, -1 on other errors. */
int gr__backend_poll(gr__backend_t *be, int timeout_ms, gr__fired_t *fired, int max);

typedef struct gr__post {
    struct gr__post *next;
    gr_post_cb fn;
    void *arg;
} gr__post_t;

#define GR__LOOP_MAX_FIRED 256

struct gr_loop {
    gr__backend_t *be;
    int64_t now;
    atomic_int stop;

    gr_io_t **ios; /* indexed by fd; NULL = not watched */
    int n_ios;
    gr__fired_t fired[GR__LOOP_MAX_FIRED];

    gr_heap_t timers;
    uint64_t timer_counter;

    gr_hook_t *hooks_head, *hooks_tail;
    gr_hook_t *hook_next; /* iteration cursor, fixed up by removals */

    int wake_fd; /* eventfd: posts and stop requests */
    gr_io_t wake_io;
    pthread_mutex_t post_mu;
    gr__post_t *post_head, *post_tail;
};

/** Run every timer due at loop->now (timer.c). */
void gr__loop_run_timers(gr_loop_t *loop);
/** Milliseconds until the next timer is due, 0 if overdue, -1 if none. */
int gr__loop_next_timeout(const gr_loop_t *loop);
void gr__loop_timers_init(gr_loop_t *loop);

#endif
