/* The transaction coordinator inside the broker: the glue between the pure state
 * machine (txn/txn.h), its durable log (a key -> value store, share/cgroup_store.h,
 * under <log.dir>/__transaction_state-0), the log side (txn_bridge.h: markers and
 * produce verification), the consumer-group coordinator (pending transactional
 * offsets) and the handlers (h_txn.c, h_txn_offsets.c, h_init_producer_id.c).
 *
 * Every change is written and fsynced before the answer that depends on it. After
 * EndTxn the PREPARE_* state is durable, the client is answered, the markers are
 * written (gr_txn_write_markers; the group's offsets partition by the group
 * coordinator) and then COMPLETE_* is written. At start-up PREPARE_* transactions
 * get their markers again; ONGOING ones time out as in Kafka. docs/transactions.md.
 * @locality loop thread. */
#ifndef GR_BROKER_TXN_COORD_H
#define GR_BROKER_TXN_COORD_H

#include "broker/broker_int.h"
#include "broker/txn_bridge.h"
#include "share/cgroup_store.h"
#include "txn/txn.h"

/** Log directory of the transaction state: Kafka's topic name, partition 0. */
#define GR_TXN_DIR_NAME "__transaction_state-0"
/** The topic of the group coordinator's partitions in a transaction (AddOffsetsToTxn). */
#define GR_TXN_OFFSETS_TOPIC "__consumer_offsets"

struct gr_txn_ctx {
    gr_txn_reg_t reg;
    gr_cstore_t *store;
    gr_timer_t abort_timer;  /* transaction.abort.timed.out.transaction.cleanup.interval.ms */
    gr_timer_t expire_timer; /* transaction.remove.expired.transaction.cleanup.interval.ms */
    gr_timer_t retry_timer;  /* markers or completions to try again */
    int64_t retry_backoff_ms;
    int64_t add_retry_ms;       /* add.partitions.to.txn.retry.backoff.max.ms */
    int32_t offsets_partitions; /* offsets.topic.num.partitions (partitionFor of a group) */
    uint64_t n_committed, n_aborted, n_timed_out, n_expired; /* since start-up (txn_metrics.c) */
    uint64_t n_add_waits_done, n_add_waits_timed_out;        /* produce adds that waited (park) */
};

gr_err_t gr_txn_coord_open(gr_broker_t *b, char *errstr, size_t errstr_size);
/** After the flusher is gone (every store callback has run). */
void gr_txn_coord_close(gr_broker_t *b);

/** done(arg, err): err 0, or the error Kafka answers for a failed transaction-log write. */
typedef void gr_txn_done_fn(void *arg, gr_err_t err);

/** Write t's prepared transit (a tombstone for DEAD), apply it once durable (drop it
 *  if the write failed) and call done. done may run inside the call. */
void gr_txn_coord_persist(gr_broker_t *b, gr_txn_t *t, gr_txn_done_fn *done, void *arg);

/** t is durable in PREPARE_*: write its markers, then COMPLETE_* (retried until done). */
void gr_txn_coord_markers(gr_broker_t *b, gr_txn_t *t);

/** The coordinator's own abort of an ongoing transaction whose epoch fence is
 *  prepared (InitProducerId, timeout): write PREPARE_ABORT with the bumped epoch,
 *  then the markers. done(arg, err) once PREPARE_ABORT is durable (or failed). */
void gr_txn_coord_fence_abort(gr_broker_t *b, gr_txn_t *t, gr_txn_done_fn *done, void *arg);

/** Kafka's partitionFor: the __consumer_offsets partition of a group. */
int32_t gr_txn_coord_offsets_partition(const gr_broker_t *b, const char *group_id);

/** Partition check for a transactional write of (txn_id, pid, epoch) to (topic,
 *  partition): add (transaction version 2: the partition joins the transaction,
 *  durably) or verify only. cb gets the coordinator's own error (not mapped). */
void gr_txn_coord_check(gr_broker_t *b, gr_str_t txn_id, int64_t pid, int16_t epoch, const char *topic,
                        int32_t partition, bool add, gr_txn_verify_cb *cb, void *arg);

#endif
