/* libgregor internals: the pure parts of the group consumer, unit-tested alone
 * (tests/unit/test_consumer_assignor.c) and fuzzed (fuzz/targets/fuzz_consumer_protocol.c):
 *
 *   - topic-partition lists (sorted by topic, then partition; topics owned);
 *   - the ConsumerProtocol Subscription and Assignment encodings carried opaquely by
 *     JoinGroup / SyncGroup for protocol type "consumer" (big-endian, non-flexible:
 *     int16 version, then int32-counted arrays, int16-length strings, int32-length
 *     bytes), versions 0-3 decoded, version 3 / 3 written;
 *   - the classic protocol's client-side assignors: "range" and "roundrobin", with
 *     Kafka's assignments (members ordered by group.instance.id when they have one, else
 *     by member id), and "cooperative-sticky": members keep what they own up to a
 *     balanced share, the rest goes to the least loaded, and a partition that changes
 *     owner is held back until its owner has revoked it (the next rebalance);
 *   - reconciliation: what a new assignment revokes and adds relative to the owned one.
 * No I/O, no client state. */
#ifndef GR_CLIENT_CONSUMER_ASSIGNOR_H
#define GR_CLIENT_CONSUMER_ASSIGNOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct gr__tp {
    char *topic;
    int32_t partition;
} gr__tp_t;

/** A list of topic-partitions; topics are owned (strdup'd). */
typedef struct gr__tplist {
    gr__tp_t *v;
    size_t n, cap;
} gr__tplist_t;

void gr__tplist_add(gr__tplist_t *l, const char *topic, size_t topic_len, int32_t partition);
bool gr__tplist_has(const gr__tplist_t *l, const char *topic, int32_t partition);
/** Sort by topic then partition, dropping duplicates. */
void gr__tplist_sort(gr__tplist_t *l);
void gr__tplist_clear(gr__tplist_t *l);
void gr__tplist_free(gr__tplist_t *l);

/** A decoded ConsumerProtocol Subscription. */
typedef struct gr__cp_sub {
    int16_t version;
    char **topics;
    size_t n_topics;
    gr__tplist_t owned; /* v1+ */
    int32_t generation; /* v2+, else -1 */
} gr__cp_sub_t;

/** Encode a Subscription (version 3: topics, null user data, owned partitions, generation, null rack). */
void gr__cp_sub_encode(gr_wbuf_t *wb, const char *const *topics, size_t n_topics, const gr__tplist_t *owned,
                       int32_t generation);
/** Decode a Subscription of any version 0..; later versions' extra fields are ignored.
 *  GR_ERR__MALFORMED on truncated or negative-length input (out is then empty). */
gr_err_t gr__cp_sub_decode(const uint8_t *p, size_t len, gr__cp_sub_t *out);
void gr__cp_sub_free(gr__cp_sub_t *s);

/** Encode an Assignment (version 3, null user data) of the sorted list parts. */
void gr__cp_assignment_encode(gr_wbuf_t *wb, const gr__tplist_t *parts);
/** Decode an Assignment into out (appended, then sorted). An empty input is an empty
 *  assignment (Kafka sends 0 bytes to a member that got nothing). */
gr_err_t gr__cp_assignment_decode(const uint8_t *p, size_t len, gr__tplist_t *out);

/** One member as the leader's assignor sees it; the assignor fills out (sorted). */
typedef struct gr__cg_member {
    const char *member_id;
    const char *instance_id; /* NULL if none */
    char **topics;
    size_t n_topics;
    gr__tplist_t out;
    const gr__tplist_t *owned; /* cooperative-sticky: what it owns now (sorted), or NULL */
    int32_t generation;        /* the generation it owned them in (-1 unknown) */
} gr__cg_member_t;

typedef struct gr__cg_topic {
    const char *name;
    int32_t n_parts;
} gr__cg_topic_t;

/** True if name is an assignor this library implements ("range", "roundrobin",
 *  "cooperative-sticky"). */
bool gr__assignor_known(const char *name);
/** Run assignor name over members (each topic's partition count in topics; topics a
 *  member subscribes to that are not in topics are skipped). Returns false for an
 *  unknown assignor. */
bool gr__assign(const char *name, gr__cg_member_t *members, size_t n_members, const gr__cg_topic_t *topics,
                size_t n_topics);

/** Reconciliation: revoked = owned - target, added = target - owned (both sorted). */
void gr__tplist_diff(const gr__tplist_t *owned, const gr__tplist_t *target, gr__tplist_t *revoked, gr__tplist_t *added);

#endif
