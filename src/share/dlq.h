/* Share-group dead-letter queue (KIP-1191, Apache Kafka 4.4.0; docs/dlq.md): the pure
 * parts. What a DLQ record looks like (headers, key/value), the write-time checks of a
 * group's DLQ topic in Kafka's order with Kafka's texts, reading a DLQ record's
 * provenance back, and the recovery decision of gregord's atomic DLQ write (§7).
 *
 * No I/O, no clock, no globals: the broker (its share_dlq.c) supplies the
 * topic's existence and configs, the time and the source record. Any thread. */
#ifndef GR_SHARE_DLQ_H
#define GR_SHARE_DLQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/records.h"
#include "share/state_store.h"

/** Why a record is dead-lettered. Only these two: archives for other reasons (log
 *  start, records gone from the log, GAP) are never dead-lettered, as in Kafka. */
typedef enum gr_dlq_reason {
    GR_DLQ_REJECT = 0,         /**< acknowledged REJECT */
    GR_DLQ_DELIVERY_LIMIT = 1, /**< RELEASE, lock timeout or member release at share.delivery.count.limit */
} gr_dlq_reason_t;

/** The __dlq.errors.message text of a reason (Kafka 4.4.0's). */
const char *gr_dlq_reason_text(gr_dlq_reason_t reason);

/** Whether a transition that archived n_dead ranges dead-letters them: only with the
 *  finalized share.version >= 2 (Kafka's SV_2; without it nothing is dead-lettered)
 *  and a DLQ topic configured for the group (dlq_topic non-empty). */
bool gr_dlq_wanted(size_t n_dead, int share_version, const char *dlq_topic);

/** What the write-time checks decide. */
typedef enum gr_dlq_action {
    GR_DLQ_WRITE,  /**< the topic exists and may be written */
    GR_DLQ_CREATE, /**< auto-create it (errors.deadletterqueue.auto.create.topics.enable), then write */
    GR_DLQ_REFUSE, /**< nothing is written; the record is archived anyway (why: Kafka's text) */
} gr_dlq_action_t;

typedef struct gr_dlq_target {
    const char *group;  /**< share group id */
    const char *topic;  /**< errors.deadletterqueue.topic.name, non-empty */
    const char *prefix; /**< errors.deadletterqueue.topic.name.prefix ("" = any name) */
    bool exists;        /**< the topic exists */
    bool flag;          /**< its errors.deadletterqueue.group.enable (when it exists) */
    bool auto_create;   /**< errors.deadletterqueue.auto.create.topics.enable */
} gr_dlq_target_t;

/** Kafka 4.4.0's checks (ShareGroupDLQStateManager validateDlqTopic), in its order:
 *  empty name, "__" start, then existence (flag / auto-create), then the prefix. */
gr_dlq_action_t gr_dlq_check(const gr_dlq_target_t *t, char *why, size_t why_size);

/** One dead-lettered source record. key/value NULL with len -1 = null (copy off, or
 *  the source value was null). */
typedef struct gr_dlq_rec {
    const char *topic; /**< source topic name */
    int32_t partition;
    int64_t offset;
    const char *group;
    int16_t delivery_count;
    gr_dlq_reason_t reason;
    const void *key;
    int32_t key_len;
    const void *value;
    int32_t value_len;
} gr_dlq_rec_t;

/** Add the DLQ record of r to bb: timestamp now_ms (the write time, as Kafka), the six
 *  __dlq.errors.* headers in Kafka's order, key/value as given; source headers are not
 *  copied (Kafka does not). */
void gr_dlq_add(gr_batch_builder_t *bb, int64_t now_ms, const gr_dlq_rec_t *r);

/** The provenance of a DLQ record, read back from its headers (pointers into the record). */
typedef struct gr_dlq_src {
    const char *topic, *group;
    int32_t topic_len, group_len;
    int32_t partition;
    int64_t offset;
    int16_t delivery_count;
} gr_dlq_src_t;

/** Parse the __dlq.errors.* headers; false when one is missing or malformed. */
bool gr_dlq_parse(const gr_record_t *rec, gr_dlq_src_t *out);

/** Recovery (docs/dlq.md §7): is a DLQ record of source offset `offset` covered by
 *  the durable share state (start offset, merged batches)? True when the offset lies
 *  below the start offset or in an ARCHIVED batch: the transition that wrote it
 *  committed. False: its share-state write never became durable (a crash between the
 *  two appends), so the broker rolls the archive forward. */
bool gr_dlq_committed(int64_t start_offset, const gr_sstore_batch_t *batches, size_t n, int64_t offset);

/** The share-state update that rolls a lost archive forward: offset ARCHIVED with the
 *  delivery count its DLQ record names (*bt, which *up points to). The write that was
 *  lost would also have moved the start offset when offset was the start: then the start
 *  moves past it and past the terminal batches that follow, and the delivery-complete
 *  count drops what the start passed (unknown, -1, stays unknown). Without that the
 *  state would keep a start offset whose record is done, and its lag would never reach 0. */
void gr_dlq_rollforward(const gr_sstore_state_t *st, int64_t offset, int16_t delivery_count, gr_sstore_batch_t *bt,
                        gr_sstore_update_t *up);

#endif
