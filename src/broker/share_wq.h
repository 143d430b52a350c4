/* Share-state writes that wait for a DLQ fsync (docs/dlq.md §7, "Order on disk").
 *
 * The share-state record of a dead-lettering transition commits its DLQ batch, so it
 * must not reach the disk before that batch does: on a power loss only what was
 * fsynced survives, and a durable record saying "archived" whose DLQ batch was lost
 * could not be repaired. Such a record is therefore not written at once: it waits here
 * until the acks=all sync queue (sync_queue.c) has fsynced the DLQ partition up to the
 * batch's end, and only then is handed to the share-state store (whose fsync the
 * flusher does; the acknowledgement's callback runs after that one). Later writes of the
 * same share-partition queue behind it, so the store sees one key's records in
 * transition order. The queue is one FIFO and is written from its head; a DLQ fsync
 * that fails fails its record and everything behind it (KAFKA_STORAGE_ERROR, nothing
 * written) and takes the share groups offline until a restart, since memory already
 * holds the transition (share_parts.c).
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
