/* libgregor: the plain consumer (no group).
 *
 * A gr_consumer_t reads the partitions it is told to read (gr_consumer_assign), from
 * the start position given for each: the beginning, the end, an offset or a
 * timestamp. It keeps no group membership and commits nothing, like a Java
 * KafkaConsumer used with assign() and no group.id, or kcat -C. It is what
 * `gregor consume` uses; share-group consumption is the share consumer
 * (gregor/share_consumer.h).
 *
 * All network I/O runs on the caller's thread inside gr_consumer_poll and the
 * blocking offset queries: the library starts no threads.
 *
 * Configuration: a GR_CONF_CONSUMER configuration. The consumer reads
 * bootstrap.servers, client.id, request.timeout.ms, default.api.timeout.ms, the
 * backoffs, and, when the configuration table has them, fetch.max.wait.ms (500),
 * fetch.min.bytes (1), fetch.max.bytes (52428800) and max.partition.fetch.bytes
 * (1048576); the values in brackets are used otherwise.
 *
 * Thread-safety: a gr_consumer_t is not locked; call it from one thread at a time. */
#ifndef GREGOR_CONSUMER_H
#define GREGOR_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "gregor/conf.h"
#include "gregor/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque consumer handle. */
typedef struct gr_consumer gr_consumer_t;
/** An opaque record returned by gr_consumer_poll, owned by the consumer. */
typedef struct gr_consumer_msg gr_consumer_msg_t;

/** Start positions and offset specs (Kafka's ListOffsets sentinels). */
#define GR_OFFSET_BEGINNING (-2)
#define GR_OFFSET_END       (-1)
/** Use as partition in gr_consumer_assign: every partition of the topic. */
#define GR_PARTITION_ALL (-1)

/** Create a consumer from conf (GR_CONF_CONSUMER scope; copied, the caller keeps and
 *  destroys conf). Does not connect yet. GR_ERR__INVALID_ARG + errstr on a bad
 *  configuration. Free with gr_consumer_destroy. */
gr_err_t gr_consumer_new(const gr_conf_t *conf, gr_consumer_t **out, char *errstr, size_t errstr_size);

/** Add partition of topic (GR_PARTITION_ALL: every partition, resolved from metadata
 *  at the first poll) to the assignment, starting at start: an offset >= 0,
 *  GR_OFFSET_BEGINNING or GR_OFFSET_END. An offset past the end waits at the end;
 *  one before the log start starts at the log start. Returns GR_ERR__INVALID_ARG
 *  for a bad argument. Nothing is sent until gr_consumer_poll. */
gr_err_t gr_consumer_assign(gr_consumer_t *c, const char *topic, int32_t partition, int64_t start);

/** Like gr_consumer_assign, starting at the first record whose timestamp is at or
 *  after timestamp_ms (ms since the epoch); at the end if there is none. */
gr_err_t gr_consumer_assign_timestamp(gr_consumer_t *c, const char *topic, int32_t partition, int64_t timestamp_ms);

/** Wait up to timeout_ms (-1 = no limit) for the next record of the assignment.
 *  Returns GR_ERR_NONE with *msg set to the record (owned by the consumer, valid until
 *  the next call on c), or GR_ERR_NONE with *msg NULL when the time ran out.
 *  Errors (explained by gr_consumer_last_error): GR_ERR_UNKNOWN_TOPIC_OR_PARTITION
 *  (the topic or partition does not exist), GR_ERR__STATE (nothing assigned), other
 *  non-retriable broker errors. Retriable errors (leader changes, lost connections)
 *  are retried inside poll. Records of a partition come in offset order. */
gr_err_t gr_consumer_poll(gr_consumer_t *c, int timeout_ms, const gr_consumer_msg_t **msg);

/** Ask the partition leader for an offset of topic/partition (ListOffsets):
 *  spec GR_OFFSET_BEGINNING (log start), GR_OFFSET_END (the high watermark) or a
 *  timestamp >= 0 (the first offset whose timestamp is at or after it; -1 when there
 *  is none). Blocks up to timeout_ms (-1 = default.api.timeout.ms). */
gr_err_t gr_consumer_query_offset(gr_consumer_t *c, const char *topic, int32_t partition, int64_t spec, int timeout_ms,
                                  int64_t *offset);

/** Number of partitions of topic from metadata (blocks up to timeout_ms, -1 =
 *  default.api.timeout.ms). GR_ERR_UNKNOWN_TOPIC_OR_PARTITION if there is no such topic. */
gr_err_t gr_consumer_partition_count(gr_consumer_t *c, const char *topic, int timeout_ms, int32_t *count);

/** Explanation of the last error returned by a call on c ("" if none); valid until the next call. */
const char *gr_consumer_last_error(const gr_consumer_t *c);

/** Close connections and free c (and the last record). NULL is allowed. */
void gr_consumer_destroy(gr_consumer_t *c);

/* ---- records (valid until the next call on their consumer) ---- */

/** Topic name. */
const char *gr_consumer_msg_topic(const gr_consumer_msg_t *m);
/** Partition. */
int32_t gr_consumer_msg_partition(const gr_consumer_msg_t *m);
/** Offset. */
int64_t gr_consumer_msg_offset(const gr_consumer_msg_t *m);
/** Timestamp in ms since the epoch; *type (may be NULL) = 0 CreateTime, 1 LogAppendTime. */
int64_t gr_consumer_msg_timestamp(const gr_consumer_msg_t *m, int *type);
/** Key bytes and length; NULL (length 0) for a null key. */
const void *gr_consumer_msg_key(const gr_consumer_msg_t *m, size_t *len);
/** Value bytes and length; NULL (length 0) for a null value. */
const void *gr_consumer_msg_value(const gr_consumer_msg_t *m, size_t *len);
/** Number of headers. */
size_t gr_consumer_msg_header_count(const gr_consumer_msg_t *m);
/** Header i: key (not NUL-terminated, *key_len bytes) and value (NULL for null).
 *  Returns GR_ERR__NOENT past the end. */
gr_err_t gr_consumer_msg_header(const gr_consumer_msg_t *m, size_t i, const char **key, size_t *key_len,
                                const void **value, size_t *value_len);

#ifdef __cplusplus
}
#endif

#endif
