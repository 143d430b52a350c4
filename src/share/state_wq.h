/* Share-state writes that wait for a DLQ fsync (docs/dlq.md §7, "Order on disk"), the
 * queue's rules:
 *  - the record of a dead-lettering transition commits its DLQ batch, so it is written
 *    only once that batch is fsynced (gr_swq_synced);
 *  - a later record of the same share-partition queues behind it (gr_swq_holds), so the
 *    store sees one key's records in transition order;
 *  - one FIFO, written from its head while the head is ready;
 *  - a DLQ fsync or a store append that fails fails its record and everything behind
 *    it (cb gets KAFKA_STORAGE_ERROR, nothing written) and sets the offline flag: memory
 *    already holds the transition, so the share groups stay offline until a restart.
 * Explicit dependencies: the share-state store and the broker's offline flag (the sink);
 * the fsync itself is the caller's. One thread. */
#ifndef GR_SHARE_STATE_WQ_H
#define GR_SHARE_STATE_WQ_H

#include <stdbool.h>

#include "base/err.h"
#include "share/state_store.h"

typedef struct gr_share_wq gr_swq_t;
typedef struct gr_swq_entry gr_swq_entry_t;

/** Where the queue writes: the store (NULL: closed) and the offline flag it reads and sets. */
typedef struct gr_swq_sink {
    gr_sstore_t *ss;
    bool *torn;
} gr_swq_sink_t;

gr_swq_t *gr_swq_new(void);
/** True if a write of key is queued (q may be NULL: none). */
bool gr_swq_holds(const gr_swq_t *q, const gr_sstore_key_t *key);
/** Queue gr_sstore_write(key, up, cb, arg) (key and up are copied). after_sync: it waits
 *  for gr_swq_synced; otherwise it is ready but, like every entry, written only when it
 *  reaches the head (push never writes). owner is the caller's, for its fsync callback. */
gr_swq_entry_t *gr_swq_push(gr_swq_t *q, const gr_sstore_key_t *key, const gr_sstore_update_t *up, bool after_sync,
                            gr_sstore_cb *cb, void *arg, void *owner);
void *gr_swq_owner(const gr_swq_entry_t *e);
/** e's DLQ fsync completed with err: write the queue from its head while it is ready. */
void gr_swq_synced(gr_swq_t *q, gr_swq_entry_t *e, gr_err_t err, const gr_swq_sink_t *sink);
/** Free the queue; an entry still queued gets cb(arg, KAFKA_STORAGE_ERROR). NULL is a no-op. */
void gr_swq_free(gr_swq_t *q);

#endif
