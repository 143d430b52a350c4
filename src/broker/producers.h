/* Producer state of one partition (Kafka's ProducerStateManager, in memory):
 * per producer id the current epoch, the last five appended batches (to answer
 * retried batches without appending them twice and to refuse gaps in the
 * sequence), the coordinator epoch of its last transaction marker and the first
 * offset of its ongoing transaction; per partition the ongoing transactions (the
 * first of them bounds the last stable offset) and the aborted-transactions index.
 * A snapshot form (producers_snap.c) lets a restart rebuild it without reading the
 * whole log (docs/storage.md, "Producer state and transactions").
 *
 * The entries live in a hash table keyed by a keyed hash of the producer id (clients
 * choose ids), so a lookup costs the same at any count, and their number is capped
 * (gregor.producer.state.max.producers): a new producer id beyond the cap evicts the
 * least recently used producer (by its last batch or marker) that has no ongoing
 * transaction, which is what producer.id.expiration.ms does to it later anyway. When
 * every tracked producer has an ongoing transaction, a new producer's batch is refused
 * (NOT_ENOUGH_REPLICAS, retriable) instead.
 * @locality loop thread. */
#ifndef GR_BROKER_PRODUCERS_H
#define GR_BROKER_PRODUCERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct gr_producer_state gr_producer_state_t;

/** An empty state without a cap (gr_producers_set_max sets one). */
gr_producer_state_t *gr_producers_new(void);
void gr_producers_free(gr_producer_state_t *ps);

/** Default of gregor.producer.state.max.producers. */
#define GR_PRODUCERS_DEFAULT_MAX 10000

/** Cap the number of producers kept (0 counts as 1); a lower cap evicts the least
 *  recently used idle producers at once. Returns how many were evicted. */
size_t gr_producers_set_max(gr_producer_state_t *ps, size_t max);
size_t gr_producers_max(const gr_producer_state_t *ps);
/** Since the state was created: producers evicted by the cap, and new producers'
 *  batches refused because every tracked producer had an ongoing transaction. */
void gr_producers_counters(const gr_producer_state_t *ps, uint64_t *evicted, uint64_t *refused);

/** Outcome of checking one batch before it is appended. */
typedef struct gr_producer_check {
    gr_err_t err;   /* NONE, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE,
                       NOT_ENOUGH_REPLICAS (a new producer and the cap is full of ongoing transactions) */
    bool duplicate; /* a retry of a batch already appended: answer with these offsets */
    int64_t dup_base_offset;
    int64_t dup_last_offset;
    char msg[200];
} gr_producer_check_t;

/** Check a data batch (producer id >= 0) with epoch and sequences [first_seq, first_seq+count-1],
 *  transactional or not (Kafka's ProducerAppendInfo: epoch, duplicate, sequence, then a
 *  non-transactional batch of a producer with an ongoing transaction is INVALID_TXN_STATE). */
void gr_producers_check(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                        bool transactional, gr_producer_check_t *out);
/** Record an appended data batch; a transactional one starts the producer's transaction
 *  at base_offset when none is ongoing. max_timestamp is the batch's (DescribeProducers);
 *  now_ms the broker's wall clock (see gr_producers_expire). */
void gr_producers_record(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                         int64_t base_offset, int64_t last_offset, int64_t max_timestamp, bool transactional,
                         int64_t now_ms);

/** Before a COMMIT/ABORT marker is appended: INVALID_PRODUCER_EPOCH when epoch is older
 *  than the producer's, TRANSACTION_COORDINATOR_FENCED when coordinator_epoch is older
 *  than the one of its last marker; else GR_ERR_NONE (also for an unknown producer). */
gr_err_t gr_producers_check_marker(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t coordinator_epoch);
/** A marker at marker_offset is in the log (and durable): the producer's ongoing
 *  transaction, if any, ends; an ABORT enters the aborted index as
 *  {pid, first offset, marker_offset}. A new epoch clears the batches kept. */
void gr_producers_complete(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t coordinator_epoch, bool commit,
                           int64_t marker_offset, int64_t timestamp, int64_t now_ms);

/** producer.id.expiration.ms: remove every producer without an ongoing transaction whose
 *  last batch or marker was appended expiration_ms or more before now_ms. now_ms in
 *  gr_producers_record / _complete is the broker's wall clock at the append (-1 when
 *  unknown: rebuilt from the log or a snapshot; such a producer counts from the first
 *  expiry pass that sees it). Kafka counts from the batch's own timestamp, which a client
 *  chooses; the broker's clock bounds the state by time whatever clients claim.
 *  Returns how many were removed. */
size_t gr_producers_expire(gr_producer_state_t *ps, int64_t now_ms, int64_t expiration_ms);

/** First offset of the earliest ongoing transaction, or -1 when none is ongoing.
 *  The last stable offset is that offset, else the high watermark. */
int64_t gr_producers_first_unstable(const gr_producer_state_t *ps);
/** Number of ongoing transactions. */
size_t gr_producers_ongoing(const gr_producer_state_t *ps);

/** One aborted transaction of the index. */
typedef struct gr_aborted_txn {
    int64_t pid;
    int64_t first_offset;
    int64_t last_offset; /* the ABORT marker's offset */
    int64_t lso;         /* the last stable offset once it ended (at least last_offset + 1) */
} gr_aborted_txn_t;

/** The aborted transactions whose range overlaps [from, upper): last_offset >= from
 *  and first_offset < upper (Kafka's collectAbortedTxns), in marker order. Returns how
 *  many there are; copies at most max of them into out (out may be NULL with max 0). */
size_t gr_producers_aborted(const gr_producer_state_t *ps, int64_t from, int64_t upper, gr_aborted_txn_t *out,
                            size_t max);
/** Forget aborted transactions that end before log_start (retention, DeleteRecords). */
void gr_producers_prune(gr_producer_state_t *ps, int64_t log_start);

/** What DescribeProducers reports for one producer. */
typedef struct gr_producer_info {
    int64_t pid;
    int16_t epoch;
    int32_t last_sequence;     /* -1: no batch kept */
    int64_t last_timestamp;    /* -1: unknown */
    int32_t coordinator_epoch; /* -1: no marker seen */
    int64_t txn_start_offset;  /* -1: no ongoing transaction */
} gr_producer_info_t;

typedef void gr_producer_info_cb(void *arg, const gr_producer_info_t *info);
/** Every producer: those with an ongoing transaction, then the others, each most recent first. */
void gr_producers_foreach(const gr_producer_state_t *ps, gr_producer_info_cb *cb, void *arg);
size_t gr_producers_count(const gr_producer_state_t *ps);

/* ---- snapshot (producers_snap.c) ---- */

/** Append the whole state, valid for the log up to (exclusive) valid_to, to out. The
 *  producers are written least recently used first (idle ones, then those with an
 *  ongoing transaction), so that decoding restores the eviction order. */
void gr_producers_snapshot_encode(const gr_producer_state_t *ps, int64_t valid_to, gr_wbuf_t *out);
/** Decode a snapshot into a new state capped at max producers: of more, the last ones
 *  written (the most recent) and all with an ongoing transaction are kept.
 *  GR_ERR_CORRUPT_MESSAGE (with *why) when it is truncated, inconsistent or its
 *  checksum does not match. */
gr_err_t gr_producers_snapshot_decode(const uint8_t *buf, size_t len, size_t max, gr_producer_state_t **out,
                                      int64_t *valid_to, const char **why);

#endif
