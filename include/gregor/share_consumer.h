/* libgregor: the share consumer (KIP-932 share groups).
 *
 * Mirrors the Java KafkaShareConsumer: members of a share group cooperatively
 * consume the records of the subscribed topics; each record is acquired under a
 * time-limited lock and must be acknowledged (ACCEPT, RELEASE, REJECT, or RENEW to
 * extend the lock). Two modes (share.acknowledgement.mode):
 *   implicit (default)  the next poll / commit accepts every record of the previous batch;
 *   explicit            every record of a batch must be acknowledged before the next poll,
 *                       which otherwise fails with GR_ERR__STATE (nothing is lost: the
 *                       records can still be acknowledged, then poll again).
 *
 * Everything runs inside the calls on the caller's thread: coordinator discovery,
 * heartbeats, share sessions with each partition leader, fetches, acknowledgements,
 * reconnects. The library starts no threads; call gr_share_consumer_poll regularly
 * (at least every max.poll.interval.ms, and often enough to heartbeat).
 *
 * Thread-safety: a gr_share_consumer_t is not locked. Use it from one thread at a time;
 * the only exception is gr_share_consumer_wakeup, which any thread may call at any time.
 * Callbacks run on the thread that calls poll / commit_sync / commit_async / close.
 *
 * Ownership: batches, records and results returned by the consumer are described at
 * each accessor; strings returned are valid as long as the object they come from. */
#ifndef GREGOR_SHARE_CONSUMER_H
#define GREGOR_SHARE_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "gregor/conf.h"
#include "gregor/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque share consumer. */
typedef struct gr_share_consumer gr_share_consumer_t;
/** The records returned by one poll (owned by the consumer). */
typedef struct gr_share_batch gr_share_batch_t;
/** One record of a batch (owned by the consumer). */
typedef struct gr_share_record gr_share_record_t;
/** Per-partition outcome of acknowledgements (commit_sync result, commit callback). */
typedef struct gr_share_ack_result gr_share_ack_result_t;

/** Acknowledgement types; the values are Kafka's wire values. */
typedef enum gr_ack_type {
    GR_ACK_ACCEPT = 1,  /**< processed: the record is done */
    GR_ACK_RELEASE = 2, /**< give it back: it will be delivered again (delivery count + 1) */
    GR_ACK_REJECT = 3,  /**< unprocessable: never delivered again */
    GR_ACK_RENEW = 4,   /**< still working: restart the acquisition lock (explicit mode, broker
                             ShareFetch/ShareAcknowledge v2); the record is returned again by a
                             later poll and must then be acknowledged again */
} gr_ack_type_t;

/** Called with the outcome of acknowledgements once the broker answered (or they
 *  failed locally), on the application thread inside poll / commit_sync / commit_async /
 *  close. res is valid only during the call (one row per partition: the offsets and
 *  the error, GR_ERR_NONE on success, GR_ERR_INVALID_RECORD_STATE for records no
 *  longer held, GR_ERR_NETWORK_EXCEPTION when the share session was lost). The callback
 *  must not call poll / commit_sync / close on c. */
typedef void gr_share_commit_cb(gr_share_consumer_t *c, const gr_share_ack_result_t *res, void *opaque);

/** Create a share consumer from conf (GR_CONF_CONSUMER scope; copied, the caller keeps
 *  and destroys conf). group.id is required. Consumer properties the share consumer
 *  does not support (isolation.level, auto.offset.reset, enable.auto.commit,
 *  group.instance.id, partition.assignment.strategy, session.timeout.ms,
 *  heartbeat.interval.ms, interceptor.classes, group.protocol, group.remote.assignor)
 *  are refused with GR_ERR__INVALID_ARG and "Configuration 'X' is not supported by the
 *  share consumer ...". Does not connect yet. Free with gr_share_consumer_destroy. */
gr_err_t gr_share_consumer_new(const gr_conf_t *conf, gr_share_consumer_t **out, char *errstr, size_t errstr_size);

/** Replace the subscription with n topic names (copied; not incremental). n == 0 is
 *  unsubscribe. The group is joined (or the new subscription sent) by the next poll.
 *  GR_ERR__INVALID_ARG for a NULL or empty name, GR_ERR__STATE after close. */
gr_err_t gr_share_consumer_subscribe(gr_share_consumer_t *c, const char *const *topics, size_t n);
/** Leave the group (heartbeat with epoch -1 on the next poll or close) and drop the
 *  subscription. Records acquired and not acknowledged are released when their share
 *  sessions end. */
gr_err_t gr_share_consumer_unsubscribe(gr_share_consumer_t *c);
/** Number of subscribed topics. */
size_t gr_share_consumer_subscription_count(const gr_share_consumer_t *c);
/** The i-th subscribed topic (valid until the subscription changes), NULL past the end. */
const char *gr_share_consumer_subscription(const gr_share_consumer_t *c, size_t i);

/** Fetch records, waiting up to timeout_ms (0 = do not wait, -1 = no limit) for some.
 *  First sends the acknowledgements of the previous batch (implicit mode: ACCEPT for
 *  every record of it). On GR_ERR_NONE *batch (never NULL, possibly empty) is owned by
 *  the consumer and valid until the next successful poll, or close/destroy.
 *  Errors (message in gr_share_consumer_last_error):
 *   GR_ERR__STATE     explicit mode with records of the previous batch unacknowledged:
 *                     "All records must be acknowledged in explicit acknowledgement mode."
 *                     (the previous batch stays valid); or not subscribed; or closed;
 *   GR_ERR__WAKEUP    gr_share_consumer_wakeup was called (before or during the poll);
 *   GR_ERR__ALL_BROKERS_DOWN  no broker was ever reached (names the connect errors):
 *                     once every address refused unreachable.connect.attempts
 *                     connections in a row, else when timeout_ms has passed;
 *   a Kafka code      fatal group errors (GROUP_AUTHORIZATION_FAILED,
 *                     GROUP_MAX_SIZE_REACHED, GROUP_ID_NOT_FOUND for a group of another
 *                     type, UNSUPPORTED_VERSION when the broker has no share groups). */
gr_err_t gr_share_consumer_poll(gr_share_consumer_t *c, int timeout_ms, gr_share_batch_t **batch);

/** Acknowledge record rec of the current batch (explicit mode). The acknowledgement is
 *  sent by the next poll / commit. A record may be acknowledged again only after RENEW.
 *  GR_ERR__STATE in implicit mode ("Implicit acknowledgement of delivery is being used."),
 *  for a record not in the current batch, or already acknowledged;
 *  GR_ERR_UNSUPPORTED_VERSION for RENEW when the leader only offers ShareFetch v1. */
gr_err_t gr_share_consumer_acknowledge(gr_share_consumer_t *c, const gr_share_record_t *rec, gr_ack_type_t type);
/** Same as gr_share_consumer_acknowledge, naming the record by topic, partition and offset. */
gr_err_t gr_share_consumer_acknowledge_offset(gr_share_consumer_t *c, const char *topic, int32_t partition,
                                              int64_t offset, gr_ack_type_t type);

/** Send the acknowledgements recorded so far (implicit mode: ACCEPT the whole current
 *  batch) with ShareAcknowledge and wait up to timeout_ms (-1 = default.api.timeout.ms)
 *  for the answers. *res (may be NULL if not wanted; else the caller frees it with
 *  gr_share_ack_result_destroy) has one row per partition acknowledged. Returns
 *  GR_ERR_NONE, the first partition's error, GR_ERR__TIMED_OUT (unanswered partitions
 *  then carry _TIMED_OUT) or GR_ERR__WAKEUP. Also runs the commit callback. */
gr_err_t gr_share_consumer_commit_sync(gr_share_consumer_t *c, int timeout_ms, gr_share_ack_result_t **res);
/** Send the acknowledgements recorded so far without waiting; the outcome goes to the
 *  commit callback from a later poll / commit_sync / close. */
gr_err_t gr_share_consumer_commit_async(gr_share_consumer_t *c);
/** Set (or clear with NULL) the acknowledgement commit callback. */
void gr_share_consumer_set_commit_cb(gr_share_consumer_t *c, gr_share_commit_cb *cb, void *opaque);

/** The acquisition lock duration (ms) reported by the latest ShareFetch answer, or -1
 *  before the first one. */
int32_t gr_share_consumer_acquisition_lock_timeout_ms(const gr_share_consumer_t *c);

/** Make the current or next blocking poll / commit_sync return GR_ERR__WAKEUP. The only
 *  call that is safe from any thread (including signal handlers: it writes an eventfd). */
void gr_share_consumer_wakeup(gr_share_consumer_t *c);

/** Leave cleanly within timeout_ms (-1 = 30 s): send the acknowledgements already
 *  recorded (explicit mode; implicit mode does NOT accept the last batch), end each
 *  share session (epoch -1) so the records still held are released for other members,
 *  leave the group (heartbeat epoch -1), run the commit callback. Returns GR_ERR_NONE or
 *  GR_ERR__TIMED_OUT. The consumer can only be destroyed afterwards. */
gr_err_t gr_share_consumer_close(gr_share_consumer_t *c, int timeout_ms);
/** Close (if not done yet, default timeout) and free c. NULL is allowed. */
void gr_share_consumer_destroy(gr_share_consumer_t *c);

/** Explanation of the last error a call on c returned ("" if none). */
const char *gr_share_consumer_last_error(const gr_share_consumer_t *c);
/** The member id (22-character base64 UUID, generated at creation). */
const char *gr_share_consumer_member_id(const gr_share_consumer_t *c);

/* ---- batches and records ---- */

/** Number of records in the batch. */
size_t gr_share_batch_count(const gr_share_batch_t *b);
/** The i-th record (NULL past the end); records of a partition are in offset order. */
const gr_share_record_t *gr_share_batch_record(const gr_share_batch_t *b, size_t i);

const char *gr_share_record_topic(const gr_share_record_t *r);
int32_t gr_share_record_partition(const gr_share_record_t *r);
int64_t gr_share_record_offset(const gr_share_record_t *r);
/** Record timestamp in ms since the epoch (CreateTime, or LogAppendTime if the topic uses it). */
int64_t gr_share_record_timestamp(const gr_share_record_t *r);
/** How many times the record has been delivered (1 for the first delivery). */
int16_t gr_share_record_delivery_count(const gr_share_record_t *r);
/** Key bytes (NULL for a null key) and their length in *len (may be NULL). */
const void *gr_share_record_key(const gr_share_record_t *r, size_t *len);
/** Value bytes (NULL for a null value) and their length in *len (may be NULL). */
const void *gr_share_record_value(const gr_share_record_t *r, size_t *len);
/** Number of headers. */
size_t gr_share_record_header_count(const gr_share_record_t *r);
/** The i-th header: NUL-terminated key in *key, value (NULL = null) and its length.
 *  GR_ERR__NOENT past the end. */
gr_err_t gr_share_record_header(const gr_share_record_t *r, size_t i, const char **key, const void **value,
                                size_t *value_len);

/* ---- acknowledgement results ---- */

/** Number of rows (partitions). */
size_t gr_share_ack_result_count(const gr_share_ack_result_t *res);
const char *gr_share_ack_result_topic(const gr_share_ack_result_t *res, size_t i);
int32_t gr_share_ack_result_partition(const gr_share_ack_result_t *res, size_t i);
/** GR_ERR_NONE if every acknowledgement of the row was applied, else why not. */
gr_err_t gr_share_ack_result_error(const gr_share_ack_result_t *res, size_t i);
/** Readable message for the row's error ("" on success). */
const char *gr_share_ack_result_errstr(const gr_share_ack_result_t *res, size_t i);
/** The acknowledged offsets of the row (ascending) in *offsets; returns how many. */
size_t gr_share_ack_result_offsets(const gr_share_ack_result_t *res, size_t i, const int64_t **offsets);
/** Free a result returned by commit_sync. NULL is allowed. */
void gr_share_ack_result_destroy(gr_share_ack_result_t *res);

#ifdef __cplusplus
}
#endif

#endif
