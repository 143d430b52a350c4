/* libgregor: the producer.
 *
 * gr_producer_send() copies a record into a per-partition batch and returns at
 * once; batches leave when they are full (batch.size), when linger.ms has passed,
 * or on flush. All network I/O and every delivery callback run inside
 * gr_producer_poll() / gr_producer_flush() on the caller's thread: the library
 * starts no threads.
 *
 * Semantics follow the Java KafkaProducer: murmur2 partitioning of keys (the same
 * partition as the Java client and librdkafka's murmur2_random for the same key
 * and partition count), sticky partitioning for records without a key, idempotence
 * on by default (acks=all, per-partition sequence numbers, up to 5 requests in flight
 * per connection with ordered retries), batches that fail with a retriable error
 * are retried until delivery.timeout.ms.
 *
 * Thread-safety: a gr_producer_t is not locked. Call every function for one
 * producer from one thread at a time (several producers may run on several
 * threads). Callbacks run on the thread that calls poll/flush/destroy. */
#ifndef GREGOR_PRODUCER_H
#define GREGOR_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "gregor/conf.h"
#include "gregor/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque producer handle. */
typedef struct gr_producer gr_producer_t;
/** An opaque delivery report, valid only during the callback that receives it. */
typedef struct gr_delivery gr_delivery_t;
/** An opaque list of record headers (key + nullable value pairs). */
typedef struct gr_headers gr_headers_t;

/** Called once per record sent, from gr_producer_poll/flush/destroy on the calling
 *  thread, in send order per partition. d and everything it points to are valid only
 *  during the call. The callback may call gr_producer_send but must not destroy p. */
typedef void gr_delivery_cb(gr_producer_t *p, const gr_delivery_t *d, void *opaque);

/** Use as partition in gr_producer_send to let the partitioner choose. */
#define GR_PARTITION_ANY (-1)
/** Use as timestamp in gr_producer_send for "now" (wall clock at send time). */
#define GR_TIMESTAMP_NOW (-1)

/** Create a producer from conf (a GR_CONF_PRODUCER configuration; copied, the caller
 *  keeps and destroys conf). Does not connect yet: connections open on first use.
 *  Returns GR_ERR_NONE and *out, or GR_ERR__INVALID_ARG with errstr for an invalid
 *  configuration (missing bootstrap.servers, enable.idempotence=true with acks
 *  other than all, a conf of another scope, ...). Free with gr_producer_destroy. */
gr_err_t gr_producer_new(const gr_conf_t *conf, gr_producer_t **out, char *errstr, size_t errstr_size);

/** Queue one record for topic. partition -1 (GR_PARTITION_ANY) lets the partitioner
 *  choose. key / value may be NULL (null key, null value = tombstone); their bytes and
 *  headers (may be NULL) are copied before the call returns. timestamp in ms since
 *  the epoch, or GR_TIMESTAMP_NOW. cb (may be NULL) gets the delivery report, with opaque.
 *  The first send to a topic waits (running I/O) up to max.block.ms for its metadata.
 *  Errors (message in gr_producer_last_error):
 *   GR_ERR__QUEUE_FULL       buffer.memory is used up by queued and in-flight records;
 *                            call gr_producer_poll to let deliveries complete and retry;
 *   GR_ERR_MESSAGE_TOO_LARGE the record alone exceeds max.request.size or buffer.memory;
 *   GR_ERR_UNKNOWN_TOPIC_OR_PARTITION  no such partition;
 *   GR_ERR__ALL_BROKERS_DOWN no metadata for the topic and every broker address refused
 *                            its last unreachable.connect.attempts connections: returned
 *                            at once, without waiting max.block.ms;
 *   GR_ERR__TIMED_OUT        no metadata for the topic within max.block.ms (brokers that
 *                            do not answer, topic missing without auto-creation);
 *   GR_ERR__STATE            the producer failed fatally (e.g. fenced). */
gr_err_t gr_producer_send(gr_producer_t *p, const char *topic, int32_t partition, const void *key, size_t key_len,
                          const void *value, size_t value_len, const gr_headers_t *headers, int64_t timestamp,
                          gr_delivery_cb *cb, void *opaque);

/* ---- transactions (transactional.id set; docs/libgregor.md "Transactions") ----
 * The Java producer's model: init_transactions once, then begin / send... /
 * [send_offsets_to_transaction] / commit or abort. These calls block (up to timeout_ms,
 * -1 = max.block.ms) and must not be called from a delivery callback. Errors:
 *   GR_ERR__STATE   the call is not valid now (message names the state), or the producer
 *                   failed fatally (fenced by a newer instance with the same
 *                   transactional.id: PRODUCER_FENCED; not authorized): destroy it;
 *   a Kafka code    the coordinator's answer; after a failed record or call inside a
 *                   transaction, commit is refused: abort, then begin again. */
/** Register the transactional.id with its coordinator (fencing older producers of it
 *  and completing their open transaction) and get the producer id and epoch. */
gr_err_t gr_producer_init_transactions(gr_producer_t *p, int timeout_ms);
/** Start a transaction: sends are allowed until commit or abort. */
gr_err_t gr_producer_begin_transaction(gr_producer_t *p);
/** Commit the n consumed offsets (topics[i], partitions[i]: offsets[i] = the next offset
 *  to read) for consumer group group_id as part of the transaction
 *  (consume-transform-produce exactly once). */
gr_err_t gr_producer_send_offsets_to_transaction(gr_producer_t *p, const char *group_id, const char *const *topics,
                                                 const int32_t *partitions, const int64_t *offsets, size_t n,
                                                 int timeout_ms);
/** Flush, then commit. Refused after a failure in the transaction (abort instead). */
gr_err_t gr_producer_commit_transaction(gr_producer_t *p, int timeout_ms);
/** Abort: records not sent yet fail with "Failing batch since transaction was aborted",
 *  those in flight are waited for, then the transaction is aborted. */
gr_err_t gr_producer_abort_transaction(gr_producer_t *p, int timeout_ms);

/** Run network I/O and deliver reports for completed records, waiting up to
 *  timeout_ms (0 = do not wait, -1 = until at least one report is served).
 *  Returns the number of delivery reports served (>= 0). */
int gr_producer_poll(gr_producer_t *p, int timeout_ms);

/** Send everything queued now (ignoring linger.ms) and poll until every record has
 *  its delivery report, or timeout_ms passes (-1 = no limit). Returns GR_ERR_NONE or
 *  GR_ERR__TIMED_OUT with the number of outstanding records in the last error. */
gr_err_t gr_producer_flush(gr_producer_t *p, int timeout_ms);

/** Records queued or in flight (not yet reported). */
size_t gr_producer_outstanding(const gr_producer_t *p);

/** Explanation of the last error returned by a call on p ("" if none). Valid until
 *  the next call on p. */
const char *gr_producer_last_error(const gr_producer_t *p);

/** Flush for up to request.timeout.ms, then fail what is left with GR_ERR__TIMED_OUT
 *  (reporting it to its callbacks), close connections and free p. NULL is allowed. */
void gr_producer_destroy(gr_producer_t *p);

/* ---- delivery reports ---- */

/** GR_ERR_NONE if the record was written, else why not. */
gr_err_t gr_delivery_error(const gr_delivery_t *d);
/** A readable message for the error ("" on success). */
const char *gr_delivery_errstr(const gr_delivery_t *d);
/** Topic of the record (valid during the callback). */
const char *gr_delivery_topic(const gr_delivery_t *d);
/** Partition the record went to (-1 if it failed before one was chosen). */
int32_t gr_delivery_partition(const gr_delivery_t *d);
/** Offset of the record in its partition, or -1 (failure, or acks=0). */
int64_t gr_delivery_offset(const gr_delivery_t *d);
/** The record's timestamp (CreateTime given or chosen at send; LogAppendTime if the topic uses it). */
int64_t gr_delivery_timestamp(const gr_delivery_t *d);

/* ---- headers ---- */

/** A new, empty header list; the caller frees it with gr_headers_destroy. */
gr_headers_t *gr_headers_new(void);
/** Append a header: key (NUL-terminated, copied), value of value_len bytes (copied;
 *  NULL = null value). Returns GR_ERR__INVALID_ARG if key is NULL. */
gr_err_t gr_headers_add(gr_headers_t *h, const char *key, const void *value, size_t value_len);
/** Number of headers. */
size_t gr_headers_count(const gr_headers_t *h);
/** Free h. NULL is allowed. */
void gr_headers_destroy(gr_headers_t *h);

/* ---- partitioner ---- */

/** Kafka's Utils.murmur2 (the Java client's key hash) of len bytes at key. */
int32_t gr_murmur2(const void *key, size_t len);
/** The partition the default partitioner picks for a non-null key:
 *  (murmur2(key) & 0x7fffffff) % partition_count. partition_count must be > 0. */
int32_t gr_partition_for_key(const void *key, size_t len, int32_t partition_count);

#ifdef __cplusplus
}
#endif

#endif
