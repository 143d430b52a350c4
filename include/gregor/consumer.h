/* libgregor: the consumer, with assigned partitions or as a consumer-group member.
 *
 * Without a group, a gr_consumer_t reads the partitions it is told to read
 * (gr_consumer_assign), from the start position given for each: the beginning, the
 * end, an offset or a timestamp, and commits nothing, like a Java KafkaConsumer used
 * with assign() and no group.id, or kcat -C.
 *
 * With group.id set and gr_consumer_subscribe, it is a consumer-group member, like the
 * Java KafkaConsumer with subscribe(): group.protocol=consumer (the default) uses the
 * KIP-848 protocol (ConsumerGroupHeartbeat, server-side assignor group.remote.assignor),
 * group.protocol=classic the JoinGroup / SyncGroup / Heartbeat / LeaveGroup protocol
 * with a client-side assignor (partition.assignment.strategy: range, roundrobin, or
 * cooperative-sticky for incremental rebalancing).
 * Each newly assigned partition starts at the group's committed offset (OffsetFetch),
 * or by auto.offset.reset when there is none. Offsets are committed every
 * auto.commit.interval.ms (enable.auto.commit), before partitions are revoked and on
 * close, or by gr_consumer_commit / gr_consumer_commit_async. The rebalance callback
 * is told of partitions assigned, revoked and lost. gr_consumer_close leaves the group
 * (a static member, group.instance.id, does not leave: its partitions wait for it
 * for session.timeout.ms). `gregor consume --group` uses it.
 *
 * All network I/O runs on the caller's thread inside gr_consumer_poll, gr_consumer_close
 * and the blocking calls: the library starts no threads. Heartbeats are sent from
 * poll, so an application must call poll more often than the session timeout (and
 * max.poll.interval.ms): a member that does not is removed by the coordinator and
 * told "lost" on its next poll.
 *
 * Configuration: a GR_CONF_CONSUMER configuration (docs/libgregor.md lists the
 * consumer properties: group.id, group.protocol, group.instance.id, session.timeout.ms,
 * heartbeat.interval.ms, max.poll.interval.ms, auto.offset.reset, enable.auto.commit,
 * auto.commit.interval.ms, partition.assignment.strategy, group.remote.assignor,
 * fetch.*, ...).
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

/* ---- consumer groups (group.id) ---- */

/** A topic-partition with an offset (the next record to read), in callbacks and commits. */
typedef struct gr_topic_partition {
    const char *topic;
    int32_t partition;
    int64_t offset; /* -1 when not applicable */
} gr_topic_partition_t;

/** What a rebalance callback is told. */
typedef enum gr_rebalance_event {
    GR_REBALANCE_ASSIGNED = 1, /* partitions added to the assignment (offsets: -1) */
    GR_REBALANCE_REVOKED = 2,  /* partitions about to be given up; commit here if needed */
    GR_REBALANCE_LOST = 3,     /* partitions already owned by others (fenced, session lost) */
} gr_rebalance_event_t;

/** Rebalance callback, called from gr_consumer_poll / gr_consumer_close on the caller's
 *  thread. parts (n entries, offsets = the current positions for REVOKED / LOST) is
 *  valid during the call. The callback may call gr_consumer_commit (REVOKED),
 *  gr_consumer_seek, gr_consumer_pause / resume and the read-only calls; not poll. */
typedef void gr_rebalance_cb(gr_consumer_t *c, gr_rebalance_event_t event, const gr_topic_partition_t *parts, size_t n,
                             void *opaque);

/** Offset-commit callback of gr_consumer_commit_async (also for auto-commits when set
 *  with gr_consumer_set_commit_cb): err is the first error (GR_ERR_NONE if every
 *  partition was committed), parts the offsets sent. */
typedef void gr_commit_cb(gr_consumer_t *c, gr_err_t err, const gr_topic_partition_t *parts, size_t n, void *opaque);

/** Set the rebalance callback (NULL: none). Call before gr_consumer_subscribe. */
void gr_consumer_set_rebalance_cb(gr_consumer_t *c, gr_rebalance_cb *cb, void *opaque);
/** Set the callback for the results of auto-commits (NULL: none). */
void gr_consumer_set_commit_cb(gr_consumer_t *c, gr_commit_cb *cb, void *opaque);

/** Join the group of group.id, subscribed to n topics (replaces an earlier subscription;
 *  the group rebalances). The assignment comes from the group during gr_consumer_poll.
 *  GR_ERR__INVALID_ARG without group.id, with no topic, or after gr_consumer_assign. */
gr_err_t gr_consumer_subscribe(gr_consumer_t *c, const char *const *topics, size_t n);
/** Subscribe to every topic whose whole name matches regex. group.protocol=consumer sends
 *  it to the coordinator (SubscribedTopicRegex, RE2/J syntax, KIP-848); the classic
 *  protocol matches it against the cluster's topics (POSIX extended regex), re-checked
 *  every metadata.max.age.ms. */
gr_err_t gr_consumer_subscribe_regex(gr_consumer_t *c, const char *regex);

/** Commit offsets (n entries; NULL / 0: the current position of every assigned
 *  partition that moved since its last commit) and wait up to timeout_ms (-1 =
 *  default.api.timeout.ms) for the answer. Retriable errors (coordinator moves) are
 *  retried. GR_ERR_REBALANCE_IN_PROGRESS, GR_ERR_ILLEGAL_GENERATION,
 *  GR_ERR_UNKNOWN_MEMBER_ID, GR_ERR_STALE_MEMBER_EPOCH ... when the group refuses. */
gr_err_t gr_consumer_commit(gr_consumer_t *c, const gr_topic_partition_t *offsets, size_t n, int timeout_ms);
/** Like gr_consumer_commit without waiting: the result goes to cb (may be NULL) from a
 *  later gr_consumer_poll / commit / close. */
gr_err_t gr_consumer_commit_async(gr_consumer_t *c, const gr_topic_partition_t *offsets, size_t n, gr_commit_cb *cb,
                                  void *opaque);
/** The group's committed offset of topic/partition (OffsetFetch); -1 if none. */
gr_err_t gr_consumer_committed(gr_consumer_t *c, const char *topic, int32_t partition, int timeout_ms, int64_t *offset);

/** Move the position of an assigned partition: offset >= 0, GR_OFFSET_BEGINNING or
 *  GR_OFFSET_END. GR_ERR__STATE if the partition is not assigned. */
gr_err_t gr_consumer_seek(gr_consumer_t *c, const char *topic, int32_t partition, int64_t offset);
/** The position (next offset to read) of an assigned partition; -1 while unknown. */
gr_err_t gr_consumer_position(gr_consumer_t *c, const char *topic, int32_t partition, int64_t *offset);
/** Stop fetching an assigned partition (GR_PARTITION_ALL: every partition of topic; topic
 *  NULL: all) until gr_consumer_resume; its position is kept. */
gr_err_t gr_consumer_pause(gr_consumer_t *c, const char *topic, int32_t partition);
gr_err_t gr_consumer_resume(gr_consumer_t *c, const char *topic, int32_t partition);

/** The current assignment: up to max entries into out (offsets: positions); returns the
 *  number of assigned partitions (may exceed max). Strings valid until the next poll. */
size_t gr_consumer_assignment(gr_consumer_t *c, gr_topic_partition_t *out, size_t max);
/** The member id given by the coordinator ("" until joined). */
const char *gr_consumer_member_id(const gr_consumer_t *c);
/** Generation (classic) or member epoch (consumer protocol); -1 until joined. */
int32_t gr_consumer_generation(const gr_consumer_t *c);

/** Leave the group: revoke the assignment (callback), commit (enable.auto.commit), send
 *  LeaveGroup or a leaving heartbeat (not for a static member), waiting up to timeout_ms
 *  (-1 = default.api.timeout.ms). The consumer can then only be destroyed.
 *  gr_consumer_destroy without close leaves nothing and commits nothing. */
gr_err_t gr_consumer_close(gr_consumer_t *c, int timeout_ms);

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
