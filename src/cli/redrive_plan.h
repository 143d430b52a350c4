/* The pure part of `gregor share-groups --redrive` (share_redrive.c): reading the headers
 * Apache Kafka 4.4.0 writes on a share group's dead-letter records (docs/dlq.md §3) and the
 * provenance headers the redrive writes on each record it re-produces, the set of DLQ
 * records already redriven, and the choice of the target partition. No I/O, no libgregor
 * calls: built alone into tests/unit/test_redrive_plan.c and fuzz/targets/fuzz_redrive_plan.c.
 *
 * Strings in the parsed structs are malloc'd copies (header values are outside input: any
 * bytes; a NUL byte inside a name or group makes the record malformed). */
#ifndef GR_CLI_REDRIVE_PLAN_H
#define GR_CLI_REDRIVE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kafka 4.4.0's dead-letter headers (ShareGroupDLQ...; docs/dlq.md §3). */
#define RD_DLQ_TOPIC     "__dlq.errors.topic"
#define RD_DLQ_PARTITION "__dlq.errors.partition"
#define RD_DLQ_OFFSET    "__dlq.errors.offset"
#define RD_DLQ_GROUP     "__dlq.errors.group"
#define RD_DLQ_COUNT     "__dlq.errors.delivery.count"
#define RD_DLQ_MESSAGE   "__dlq.errors.message"

/* gregor's provenance headers on a redriven record (a namespace Kafka does not use). */
#define RD_PROV_PREFIX        "gregor.redrive."
#define RD_PROV_DLQ_TOPIC     "gregor.redrive.dlq.topic"
#define RD_PROV_DLQ_TOPIC_ID  "gregor.redrive.dlq.topic.id"
#define RD_PROV_DLQ_PARTITION "gregor.redrive.dlq.partition"
#define RD_PROV_DLQ_OFFSET    "gregor.redrive.dlq.offset"
#define RD_PROV_GROUP         "gregor.redrive.group"
#define RD_PROV_SRC_TOPIC     "gregor.redrive.source.topic"
#define RD_PROV_SRC_PARTITION "gregor.redrive.source.partition"
#define RD_PROV_SRC_OFFSET    "gregor.redrive.source.offset"
#define RD_PROV_COUNT         "gregor.redrive.delivery.count"
#define RD_PROV_PAYLOAD       "gregor.redrive.payload"
#define RD_PROV_N             10

/** One record header as the consumer gives it (key not NUL-terminated; val NULL = null). */
typedef struct rd_hdr {
    const char *key;
    size_t key_len;
    const void *val;
    size_t val_len;
} rd_hdr_t;

/** The dead-letter headers of one DLQ record. */
typedef struct rd_dlq {
    char *topic, *group, *message; /* message NULL if absent */
    int32_t partition;
    int64_t offset;
    int64_t delivery_count; /* -1 if absent */
} rd_dlq_t;

typedef enum rd_parse {
    RD_NOT_DLQ = 0, /* no __dlq.errors.group header: not a share-group dead letter */
    RD_OK = 1,
    RD_BAD = 2, /* a group header, but a header missing, repeated, null or not a valid value */
} rd_parse_t;

/** Parse the DLQ headers of a record. RD_OK fills *out (free with rd_dlq_free); RD_BAD
 *  still sets out->group when the group header itself was readable (else NULL), so that
 *  the caller can tell whether the malformed record belongs to its group. */
rd_parse_t rd_parse_dlq(const rd_hdr_t *h, size_t n, rd_dlq_t *out);
void rd_dlq_free(rd_dlq_t *d);

/** The provenance of a redriven record (the last occurrence of each header counts: a
 *  record redriven twice through two DLQs carries the older set before the newer one). */
typedef struct rd_prov {
    char *dlq_topic, *dlq_topic_id; /* topic id NULL if absent */
    int32_t dlq_partition;
    int64_t dlq_offset;
    char *group, *src_topic; /* NULL if absent */
    int32_t src_partition;   /* -1 if absent */
    int64_t src_offset;      /* -1 if absent */
} rd_prov_t;

/** True (and *out filled, free with rd_prov_free) if the record carries a complete
 *  provenance (dlq topic, partition, offset); false otherwise (nothing to free). */
bool rd_parse_prov(const rd_hdr_t *h, size_t n, rd_prov_t *out);
void rd_prov_free(rd_prov_t *p);

/** The provenance headers for one redriven record, in a fixed order: names[i] / vals[i]
 *  (vals point into bufs or into the given strings); returns their number (<= RD_PROV_N).
 *  delivery_count < 0 and dlq_topic_id NULL are left out; payload says where key and value
 *  came from ("dlq" or "source"). */
size_t rd_prov_headers(const rd_prov_t *p, int64_t delivery_count, const char *payload, const char **names,
                       const char **vals, char bufs[][24]);

/** Strict decimal: optional '-', digits only, within [min, max]. */
bool rd_parse_i64(const void *p, size_t len, int64_t min, int64_t max, int64_t *out);

/* ---- the set of keys already seen (DLQ records redriven, source records redriven) ---- */

typedef struct rd_set {
    char **slots;
    size_t *lens;
    size_t cap, n;
} rd_set_t;

void rd_set_init(rd_set_t *s);
void rd_set_free(rd_set_t *s);
/** Add key (copied); returns true if it was not there yet. */
bool rd_set_add(rd_set_t *s, const char *key, size_t len);
bool rd_set_has(const rd_set_t *s, const char *key, size_t len);

/** The key of a DLQ record in the set: an unambiguous encoding (length-prefixed strings)
 *  of (dlq topic, partition, offset). Returns its length; buf is malloc'd (*buf). */
size_t rd_key_dlq(char **buf, const char *dlq_topic, int32_t partition, int64_t offset);
/** The key of a source record as dead-lettered by group: (group, topic, partition, offset). */
size_t rd_key_src(char **buf, const char *group, const char *topic, int32_t partition, int64_t offset);

/** Add the keys one provenance proves redriven (its DLQ record, and its source record
 *  when the provenance names it). dlq_topic_id: the current DLQ topic's id; a provenance
 *  naming another id (the DLQ topic was deleted and re-created) proves nothing. */
void rd_prov_mark(rd_set_t *done, const rd_prov_t *p, const char *dlq_topic, const char *dlq_topic_id);

/** What the redrive does with one dead letter of its group. */
typedef enum rd_action {
    RD_REDRIVE = 0, /* re-produce it */
    RD_DONE = 1,    /* its DLQ record was redriven before (provenance found in the target) */
    RD_DUP_SRC = 2, /* the same source record was redriven before, or is redriven from an
                        earlier DLQ record now (Kafka dead-letters at least once) */
} rd_action_t;

/** Decide for DLQ record (dlq_topic, dlq_partition, dlq_offset) with headers d; marks the
 *  source record as taken in done when the answer is RD_REDRIVE, so that a later copy of
 *  the same source record is RD_DUP_SRC. Call in DLQ order (partition, offset). */
rd_action_t rd_decide(rd_set_t *done, const char *dlq_topic, int32_t dlq_partition, int64_t dlq_offset,
                      const rd_dlq_t *d);

/** Target partition: the source partition when the target topic has it, else by key
 *  (Kafka's default partitioner: (murmur2 & 0x7fffffff) % count, key_hash = murmur2 of the
 *  key), else (null key) source partition mod count, so that every run picks the same one. */
int32_t rd_target_partition(int32_t src_partition, int32_t count, bool has_key, int32_t key_hash);

#endif
