/* The two halves of transactions on one node and the calls between them.
 *
 * Log side (txn_markers.c and the Produce/Fetch/ListOffsets handlers): transactional
 * batches in partition logs, COMMIT/ABORT control batches, the last stable offset
 * and the aborted-transactions index of each partition.
 *
 * Coordinator side (txn_coord.c, src/txn): transactional ids, producer epochs,
 * the transaction state log under log.dirs, and the APIs FindCoordinator key type 1,
 * InitProducerId with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn,
 * TxnOffsetCommit, EndTxn, DescribeTransactions, ListTransactions.
 *
 * As in Kafka, the coordinator answers EndTxn once PREPARE_COMMIT/PREPARE_ABORT is
 * durable in its log, then writes the markers (gr_txn_write_markers) and, once every
 * marker is durable, the COMPLETE_* state. After a crash it finds PREPARE_* in its
 * log and writes the markers again; the log side accepts a repeated marker.
 *
 * @locality loop thread: every call and callback here runs on the loop thread. */
#ifndef GR_BROKER_TXN_BRIDGE_H
#define GR_BROKER_TXN_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "proto/codec.h"

typedef struct gr_broker gr_broker_t;

/* ---- provided by the log side, used by the coordinator ---- */

/** One partition of a transaction. */
typedef struct gr_txn_tp {
    const char *topic;
    int32_t partition;
} gr_txn_tp_t;

/** Outcome per partition (index into the tps array given), then done once with the
 *  number of partitions that failed. Never called inside gr_txn_write_markers. */
typedef void gr_txn_marker_part_cb(void *arg, size_t tp_index, gr_err_t err);
typedef void gr_txn_markers_done_cb(void *arg, size_t n_failed);

/** Kafka's WriteTxnMarkers for one producer: append a control batch (COMMIT if commit,
 *  else ABORT; producer pid/epoch; coordinator_epoch in the value) to each partition,
 *  fsync it, and only then complete the transaction in the partition's producer state
 *  (the last stable offset moves; an abort enters the aborted-transactions index).
 *  Per-partition errors as Kafka's: UNKNOWN_TOPIC_OR_PARTITION (topic deleted: the
 *  coordinator forgets the partition), KAFKA_STORAGE_ERROR (retry later),
 *  INVALID_PRODUCER_EPOCH (epoch older than the partition's). A marker for a producer
 *  with no ongoing transaction on the partition is written anyway (Kafka does too:
 *  the retry after a crash). The arrays are copied; part_cb may be NULL. */
void gr_txn_write_markers(gr_broker_t *b, int64_t pid, int16_t epoch, int32_t coordinator_epoch, bool commit,
                          const gr_txn_tp_t *tps, size_t n, gr_txn_marker_part_cb *part_cb,
                          gr_txn_markers_done_cb *done, void *arg);

/* ---- provided by the coordinator, used by the log side (Produce) ---- */

typedef void gr_txn_verify_cb(void *arg, gr_err_t err);

/** Before a transactional batch of (txn_id, pid, epoch) is appended to (topic,
 *  partition): Kafka's partition verification. produce_version >= 12 is transaction
 *  version 2 (KIP-890): the partition is added to the ongoing transaction (durably)
 *  if it is not in it yet; older versions only check it was added by
 *  AddPartitionsToTxn. cb(arg, 0) lets the append go on; errors are the codes Kafka's
 *  Produce answers for a failed verification (INVALID_TXN_STATE, PRODUCER_FENCED,
 *  INVALID_PRODUCER_EPOCH, CONCURRENT_TRANSACTIONS, TRANSACTIONAL_ID_NOT_FOUND / ...).
 *  cb may run inside the call (already verified) or later. */
void gr_txn_coord_verify(gr_broker_t *b, gr_str_t txn_id, int64_t pid, int16_t epoch, const char *topic,
                         int32_t partition, int16_t produce_version, gr_txn_verify_cb *cb, void *arg);

#endif
