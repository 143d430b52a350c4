/* Share-partition initialization of a share group (spec §4.5, Kafka's
 * InitializeShareGroupState): the partitions a heartbeat lists in to_initialize get
 * their state created in the share-state store (start offset -1: resolved from
 * share.auto.offset.reset by the first fetch, §1.10) unless they already have state,
 * and are then recorded as initialized in the registry, at the group's epoch; if any
 * write is refused the pending initialization is undone, so the next heartbeat retries.
 *
 * Explicit dependencies: the registry, the share-state store, and the caller's
 * durable-wait hooks. Pure otherwise; one thread. */
#ifndef GR_SHARE_GROUP_INIT_H
#define GR_SHARE_GROUP_INIT_H

#include <stdbool.h>

#include "base/err.h"
#include "share/group.h"
#include "share/state_store.h"

/** How the caller waits for the initialization writes (all may be NULL: no waiting). */
typedef struct gr_sg_init_wait {
    void (*add)(void *arg);                   /* one more write is about to be issued */
    void (*refused)(void *arg, gr_err_t err); /* that write was refused synchronously (cb not called) */
    gr_sstore_cb *cb;                         /* that write is durable (or failed) */
    void *arg;
} gr_sg_init_wait_t;

/** Initialize parts of group_id (see above). Returns the first refusal (GR_ERR_NONE when
 *  every write was queued, or the group does not exist: nothing done). *changed: the
 *  group must be persisted. */
gr_err_t gr_share_group_initialize(gr_share_group_registry_t *reg, gr_sstore_t *ss, const char *group_id,
                                   const gr_sg_assignment_t *parts, const gr_sg_init_wait_t *w, bool *changed);

#endif
