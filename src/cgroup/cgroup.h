/* Consumer groups: the classic group protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup) and committed offsets, as Apache Kafka 4.4.0's group coordinator
 * runs them (GroupMetadataManager / ClassicGroup / OffsetMetadataManager).
 *
 * Pure: no I/O, no clock reads, no globals. Time comes in as now_ms. Requests that
 * Kafka answers later (JoinGroup until the join phase completes, SyncGroup until the
 * leader's assignment arrives) carry an opaque waiter; every JoinGroup and SyncGroup
 * answer, immediate or late, comes out as a gr_cg_answer_t in a gr_cg_out_t for the
 * caller to send. The caller also persists what the out says changed.
 *
 * The registry is keyed by group id and each group has a type so that the KIP-848
 * consumer protocol can add GR_CG_TYPE_CONSUMER groups beside classic ones.
 * docs/consumer-groups.md.
 * @locality loop thread (single owner). */
#ifndef GR_CGROUP_CGROUP_H
#define GR_CGROUP_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gr_cg_state {
    GR_CG_EMPTY,
    GR_CG_PREPARING_REBALANCE,
    GR_CG_COMPLETING_REBALANCE,
    GR_CG_STABLE,
    GR_CG_DEAD,
    GR_CG_ASSIGNING,   /* consumer protocol: group epoch > assignment epoch */
    GR_CG_RECONCILING, /* consumer protocol: a member is not at the assignment epoch */
} gr_cg_state_t;

#define GR_CG_N_STATES 7

typedef enum gr_cg_type { GR_CG_TYPE_CLASSIC = 1, GR_CG_TYPE_CONSUMER = 2 } gr_cg_type_t;

/** Broker configs that drive the coordinator (docs/configuration.md). */
typedef struct gr_cg_config {
    int32_t min_session_timeout_ms;     /* group.min.session.timeout.ms (6000) */
    int32_t max_session_timeout_ms;     /* group.max.session.timeout.ms (1800000) */
    int32_t max_size;                   /* group.max.size (INT32_MAX) */
    int32_t initial_rebalance_delay_ms; /* group.initial.rebalance.delay.ms (3000) */
    int32_t new_member_join_timeout_ms; /* Kafka's fixed 5 minutes for new members */
    int32_t offset_metadata_max_bytes;  /* offset.metadata.max.bytes (4096) */
    int64_t offsets_retention_ms;       /* offsets.retention.minutes (7 days) */
    int64_t retention_check_ms;         /* offsets.retention.check.interval.ms (600000) */
} gr_cg_config_t;

void gr_cg_config_default(gr_cg_config_t *c);

typedef struct gr_cg_registry gr_cg_registry_t;

/** A new registry; cfg is copied. gr_cg_registry_free answers nothing: the
 *  caller cancels its waiters itself. */
gr_cg_registry_t *gr_cg_registry_new(const gr_cg_config_t *cfg);
void gr_cg_registry_free(gr_cg_registry_t *reg);

/* ---- answers and changes ---- */

typedef enum gr_cg_answer_kind { GR_CG_ANSWER_JOIN = 1, GR_CG_ANSWER_SYNC = 2 } gr_cg_answer_kind_t;

typedef struct gr_cg_jmember {
    char *member_id;
    char *instance_id; /* NULL: none */
    uint8_t *metadata;
    int32_t metadata_len;
} gr_cg_jmember_t;

/** One JoinGroup or SyncGroup answer. Strings NULL = null on the wire. */
typedef struct gr_cg_answer {
    void *waiter;
    gr_cg_answer_kind_t kind;
    int16_t error;
    int32_t generation;       /* JOIN */
    char *protocol_type;      /* JOIN, SYNC */
    char *protocol_name;      /* JOIN, SYNC */
    char *leader;             /* JOIN ("" when none) */
    char *member_id;          /* JOIN */
    bool skip_assignment;     /* JOIN v9+ */
    gr_cg_jmember_t *members; /* JOIN: for the leader only */
    int32_t n_members;
    uint8_t *assignment; /* SYNC */
    int32_t assignment_len;
} gr_cg_answer_t;

typedef struct gr_cg_tp_ref {
    char *group_id, *topic;
    int32_t partition;
} gr_cg_tp_ref_t;

typedef struct gr_cg_member_ref {
    char *group_id, *member_id;
} gr_cg_member_ref_t;

/** What a call produced: answers to send, group ids whose metadata changed (to
 *  persist), groups removed (their offsets are gone too), offsets expired and
 *  consumer-protocol members gone (their records to delete). */
typedef struct gr_cg_out {
    gr_cg_answer_t *answers;
    int32_t n_answers, cap_answers;
    char **changed;
    int32_t n_changed, cap_changed;
    char **removed;
    int32_t n_removed, cap_removed;
    gr_cg_tp_ref_t *expired;
    int32_t n_expired, cap_expired;
    gr_cg_member_ref_t *gone;
    int32_t n_gone, cap_gone;
} gr_cg_out_t;

void gr_cg_out_init(gr_cg_out_t *o);
void gr_cg_out_free(gr_cg_out_t *o);

/* ---- classic protocol ---- */

typedef struct gr_cg_protocol {
    const char *name;
    const uint8_t *metadata;
    int32_t metadata_len;
} gr_cg_protocol_t;

typedef struct gr_cg_join_req {
    const char *group_id;
    const char *member_id;   /* "" = unknown */
    const char *instance_id; /* NULL = none */
    const char *protocol_type;
    const char *client_id, *client_host;
    int32_t session_timeout_ms, rebalance_timeout_ms; /* v0: pass the session timeout */
    const gr_cg_protocol_t *protocols;
    int32_t n_protocols;
    int16_t version;
    void *waiter;
} gr_cg_join_req_t;

/** JoinGroup: the answer for req->waiter appears in out, now or from a later call. */
void gr_cg_join(gr_cg_registry_t *reg, const gr_cg_join_req_t *req, int64_t now, gr_cg_out_t *out);

typedef struct gr_cg_assignment {
    const char *member_id;
    const uint8_t *assignment;
    int32_t len;
} gr_cg_assignment_t;

typedef struct gr_cg_sync_req {
    const char *group_id, *member_id, *instance_id; /* instance NULL = none */
    const char *protocol_type, *protocol_name;      /* NULL = not given */
    int32_t generation;
    const gr_cg_assignment_t *assignments;
    int32_t n_assignments;
    void *waiter;
} gr_cg_sync_req_t;

/** SyncGroup: the answer for req->waiter appears in out, now or later. */
void gr_cg_sync(gr_cg_registry_t *reg, const gr_cg_sync_req_t *req, int64_t now, gr_cg_out_t *out);

/** Heartbeat: returns the error code (0 = ok). */
int16_t gr_cg_heartbeat(gr_cg_registry_t *reg, const char *group_id, const char *member_id, const char *instance_id,
                        int32_t generation, int64_t now, gr_cg_out_t *out);

typedef struct gr_cg_leave_member {
    const char *member_id;
    const char *instance_id; /* NULL = none */
    int16_t error;           /* out */
} gr_cg_leave_member_t;

/** LeaveGroup: returns the top-level error; per-member errors into members[i].error. */
int16_t gr_cg_leave(gr_cg_registry_t *reg, const char *group_id, gr_cg_leave_member_t *members, int32_t n, int64_t now,
                    gr_cg_out_t *out);

/** The waiter will never be answered through (its connection is gone): forget it.
 *  The member keeps its place, as in Kafka (a later answer goes nowhere). */
void gr_cg_forget_waiter(gr_cg_registry_t *reg, const char *group_id, void *waiter);

/** Timers: session expiry, join/sync deadlines, offset retention. */
int64_t gr_cg_next_deadline(const gr_cg_registry_t *reg);
void gr_cg_tick(gr_cg_registry_t *reg, int64_t now, gr_cg_out_t *out);

/* ---- the namespace ---- */

bool gr_cg_exists(const gr_cg_registry_t *reg, const char *group_id);

typedef struct gr_cg_member_view {
    const char *member_id, *instance_id, *client_id, *client_host;
    const uint8_t *metadata; /* of the selected protocol (empty when none) */
    int32_t metadata_len;
    const uint8_t *assignment;
    int32_t assignment_len;
} gr_cg_member_view_t;

typedef struct gr_cg_group_view {
    const char *group_id;
    gr_cg_state_t state;
    const char *protocol_type; /* "" when none */
    const char *protocol_name; /* "" when none */
    int32_t generation;
    gr_cg_member_view_t *members; /* malloc'd; free with gr_cg_view_free */
    int32_t n_members;
} gr_cg_group_view_t;

/** Fill a view (pointers into the registry, valid until the next change). 0 or GROUP_ID_NOT_FOUND. */
int16_t gr_cg_describe(const gr_cg_registry_t *reg, const char *group_id, gr_cg_group_view_t *v);
void gr_cg_view_free(gr_cg_group_view_t *v);
const char *gr_cg_state_name(gr_cg_state_t s);
/** Number of groups. */
int32_t gr_cg_count(const gr_cg_registry_t *reg);
/** What /metrics reports of one group (broker/cgroup_metrics.c). */
typedef struct gr_cg_group_stats {
    const char *group_id; /* into the registry, valid until the next change */
    gr_cg_state_t state;
    int32_t generation;
    int32_t n_members;   /* joined members (not those only handed an id) */
    uint64_t rebalances; /* completed rebalances (CompletingRebalance -> Stable) since loaded */
    int32_t n_offsets;   /* committed offsets */
} gr_cg_group_stats_t;

/** The i-th group in registry order, 0 <= i < gr_cg_count(reg). */
void gr_cg_stats_at(const gr_cg_registry_t *reg, int32_t i, gr_cg_group_stats_t *st);
/** Groups in registry order: ids and states. Returns the count; *ids malloc'd array of
 *  pointers into the registry. */
int32_t gr_cg_list(const gr_cg_registry_t *reg, const char ***ids, gr_cg_state_t **states);
/** DeleteGroups: NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND or 0 (then the group and its
 *  offsets are removed; out->removed names it). */
int16_t gr_cg_delete_check(const gr_cg_registry_t *reg, const char *group_id);
void gr_cg_delete(gr_cg_registry_t *reg, const char *group_id, gr_cg_out_t *out);

/* ---- offsets ---- */

typedef struct gr_cg_offset {
    int64_t offset;
    int32_t leader_epoch;
    char *metadata; /* never NULL ("" for null) */
    int64_t commit_ms;
    int64_t expire_ms; /* -1: by retention */
} gr_cg_offset_t;

/** OffsetCommit group/member checks (OffsetMetadataManager.validateOffsetCommit). May
 *  create a simple (Empty) group; *created tells. Refreshes the member's session. */
int16_t gr_cg_commit_check(gr_cg_registry_t *reg, const char *group_id, const char *member_id, const char *instance_id,
                           int32_t generation, int16_t version, int64_t now, bool *created);
/** Store an offset in memory (after it is durable). Creates the group if needed. */
void gr_cg_offset_put(gr_cg_registry_t *reg, const char *group_id, const char *topic, int32_t partition,
                      const gr_cg_offset_t *o);
const gr_cg_offset_t *gr_cg_offset_get(const gr_cg_registry_t *reg, const char *group_id, const char *topic,
                                       int32_t partition);
/** Remove one offset; true if there was one. */
bool gr_cg_offset_delete(gr_cg_registry_t *reg, const char *group_id, const char *topic, int32_t partition);
/** Every offset of a group, sorted by topic then partition. */
typedef void gr_cg_offset_fn(void *arg, const char *topic, int32_t partition, const gr_cg_offset_t *o);
void gr_cg_offsets_foreach(const gr_cg_registry_t *reg, const char *group_id, gr_cg_offset_fn *fn, void *arg);
/** OffsetFetch: false if the group's offsets are not visible (not a classic group,
 *  Dead): every partition then answers -1. */
bool gr_cg_fetch_visible(const gr_cg_registry_t *reg, const char *group_id);
/** OffsetDelete group check: 0, GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP. */
int16_t gr_cg_offset_delete_check(const gr_cg_registry_t *reg, const char *group_id);
/** True if the group's members subscribe to topic (consumer protocol metadata). */
bool gr_cg_subscribed_to(const gr_cg_registry_t *reg, const char *group_id, const char *topic);
/* ---- transactional offsets (cg_txn.c) ---- */

/** TxnOffsetCommit group/member checks (validateTransactionalOffsetCommit); may create a
 *  simple group (*created). */
int16_t gr_cg_txn_commit_check(gr_cg_registry_t *reg, const char *group_id, const char *member_id,
                               const char *instance_id, int32_t generation, int64_t now, bool *created);
/** Keep an offset pending for producer pid (after it is durable); a later one of the same
 *  partition and producer replaces it. */
void gr_cg_txn_put(gr_cg_registry_t *reg, const char *group_id, int64_t pid, const char *topic, int32_t partition,
                   const gr_cg_offset_t *o);
typedef void gr_cg_txn_fn(void *arg, const char *group_id, const char *topic, int32_t partition,
                          const gr_cg_offset_t *o);
/** The transaction of pid ended: fn sees each of its pending offsets (in every group),
 *  then they are removed. Returns how many there were. */
int32_t gr_cg_txn_complete(gr_cg_registry_t *reg, int64_t pid, gr_cg_txn_fn *fn, void *arg);
/** Is an offset of this partition pending in some transaction (OffsetFetch require_stable)? */
bool gr_cg_txn_pending(const gr_cg_registry_t *reg, const char *group_id, const char *topic, int32_t partition);
int32_t gr_cg_txn_count(const gr_cg_registry_t *reg);

/** A loaded group (restart): Empty with protocol type and generation. */
void gr_cg_restore_group(gr_cg_registry_t *reg, const char *group_id, const char *protocol_type, int32_t generation,
                         int64_t now);

#endif
