/* Share-state writes that wait for a DLQ fsync (docs/dlq.md §7, "Order on disk"): the
 * share-state record of a dead-lettering transition commits its DLQ batch, so it is
 * written only once the acks=all sync queue (sync_queue.c) has fsynced the DLQ
 * partition up to the batch's end; later writes of the same share-partition queue
 * behind it. The queue's rules (FIFO, failure takes the share groups offline) are
 * share/state_wq.h's; this binds it to the sync queue, the store and the broker.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_WQ_H
#define GR_BROKER_SHARE_WQ_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/partitions.h"
#include "share/state_store.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_share_wq gr_share_wq_t;

/** True if a write of key is waiting here (a later write of key must queue too). */
bool gr_share_wq_has(gr_broker_t *b, const gr_sstore_key_t *key);

/** Queue gr_sstore_write(key, up, cb, arg) (up is copied). It runs once every write queued
 *  before it has run and, if dlq_p is not NULL, once dlq_p is fsynced up to dlq_end.
 *  If it cannot run (DLQ fsync failed, store append failed, share groups offline),
 *  cb(arg, KAFKA_STORAGE_ERROR) runs instead. cb is never called from this call. */
void gr_share_wq_add(gr_broker_t *b, const gr_sstore_key_t *key, const gr_sstore_update_t *up, gr_partition_t *dlq_p,
                     int64_t dlq_end, gr_sstore_cb *cb, void *arg);

/** Free the queue (after the sync queue has run its waiters: normally empty). */
void gr_share_wq_close(gr_broker_t *b);

#endif
