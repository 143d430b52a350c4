/* Consumer groups on the KIP-848 consumer protocol (ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe) as Apache Kafka 4.4.0's GroupMetadataManager runs them:
 * member epochs, a group epoch bumped by every membership or subscription change,
 * a target assignment computed by a server-side assignor (uniform or range) at the
 * assignment epoch, and incremental reconciliation: a member first revokes what the
 * target takes away (UNREVOKED_PARTITIONS, epoch unchanged), then gets the target's
 * new partitions as their previous owners release them (UNRELEASED_PARTITIONS).
 *
 * These groups live in the same registry as classic ones (cgroup.h), with
 * GR_CG_TYPE_CONSUMER; offsets are shared code. Pure: time comes in as now, topics
 * through a caller-supplied view. docs/consumer-groups.md.
 * @locality loop thread (single owner). */
#ifndef GR_CGROUP_CONSUMER_H
#define GR_CGROUP_CONSUMER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/uuid.h"
#include "cgroup/cgroup.h"

#define GR_CGC_MAX_ASSIGNORS 4

/** Effective settings of one heartbeat (broker configs, later group configs). */
typedef struct gr_cgc_cfg {
    int32_t session_timeout_ms;                  /* group.consumer.session.timeout.ms (45000) */
    int32_t heartbeat_interval_ms;               /* group.consumer.heartbeat.interval.ms (5000) */
    int32_t max_size;                            /* group.consumer.max.size (INT32_MAX) */
    int32_t assignment_interval_ms;              /* group.consumer.assignment.interval.ms (1000) */
    const char *assignors[GR_CGC_MAX_ASSIGNORS]; /* group.consumer.assignors, first = default */
    int32_t n_assignors;
} gr_cgc_cfg_t;

/** The broker's topics as the coordinator sees them. */
typedef struct gr_cgc_topics {
    bool (*by_name)(void *ctx, const char *name, gr_uuid_t *id, int32_t *n_partitions);
    /* name points into the caller's metadata; valid during the call */
    bool (*by_id)(void *ctx, const gr_uuid_t *id, const char **name, int32_t *n_partitions);
    /* Visit every topic name (regex subscriptions). */
    void (*each)(void *ctx, void (*fn)(void *arg, const char *name), void *arg);
    void *ctx;
} gr_cgc_topics_t;

typedef struct gr_cgc_tparts {
    gr_uuid_t topic_id;
    const int32_t *partitions;
    int32_t n;
} gr_cgc_tparts_t;

typedef struct gr_cgc_hb_req {
    const char *group_id, *member_id;
    int32_t member_epoch;
    const char *instance_id, *rack_id; /* NULL: not given */
    int32_t rebalance_timeout_ms;      /* -1: unchanged */
    const char *const *topics;         /* NULL (n_topics -1): unchanged */
    int32_t n_topics;
    const char *regex;            /* NULL: unchanged */
    const char *server_assignor;  /* NULL: unchanged */
    const gr_cgc_tparts_t *owned; /* NULL (n_owned -1): not given */
    int32_t n_owned;
    const char *client_id, *client_host;
    int16_t version;
} gr_cgc_hb_req_t;

/** A member's partitions by topic: topics ordered by id bytes, partitions ascending. */
typedef struct gr_cgc_assignment {
    gr_cgc_tparts_t *topics; /* partitions point into parts */
    int32_t n_topics;
    int32_t *parts;
} gr_cgc_assignment_t;

void gr_cgc_assignment_free(gr_cgc_assignment_t *a);

typedef struct gr_cgc_hb_res {
    int16_t error;
    char errmsg[256];
    char member_id[128];
    int32_t member_epoch;
    int32_t heartbeat_interval_ms;
    bool has_assignment;
    gr_cgc_assignment_t assignment;
    bool changed; /* durable state changed: persist the group */
} gr_cgc_hb_res_t;

/** ConsumerGroupHeartbeat. res->error is the Kafka error code (0 = ok). */
void gr_cgc_heartbeat(gr_cg_registry_t *reg, const gr_cgc_hb_req_t *req, const gr_cgc_cfg_t *cfg,
                      const gr_cgc_topics_t *topics, int64_t now, gr_cgc_hb_res_t *res, gr_cg_out_t *out);
void gr_cgc_hb_res_free(gr_cgc_hb_res_t *res);

/** Validate a subscription regex as Kafka's RE2/J would (false: INVALID_REGULAR_EXPRESSION;
 *  why gets the reason). */
bool gr_cgc_regex_valid(const char *re, char *why, size_t why_size);

/** Session and rebalance timeouts of consumer-protocol members (called from gr_cg_tick). */
void gr_cgc_tick(gr_cg_registry_t *reg, int64_t now, gr_cg_out_t *out);
int64_t gr_cgc_next_deadline(const gr_cg_registry_t *reg);

/* ---- describe ---- */

typedef struct gr_cgc_member_view {
    const char *member_id, *instance_id, *rack_id, *client_id, *client_host, *regex;
    const char *const *topics;
    int32_t n_topics;
    int32_t member_epoch;
    gr_cgc_assignment_t assigned, target; /* owned by the view */
} gr_cgc_member_view_t;

typedef struct gr_cgc_group_view {
    const char *group_id;
    gr_cg_state_t state;
    int32_t group_epoch, assignment_epoch;
    const char *assignor;
    gr_cgc_member_view_t *members;
    int32_t n_members;
} gr_cgc_group_view_t;

/** 0, or GROUP_ID_NOT_FOUND with msg ("Group X not found." / "Group X is not a consumer group."). */
int16_t gr_cgc_describe(const gr_cg_registry_t *reg, const char *group_id, const char *default_assignor,
                        gr_cgc_group_view_t *v, char *msg, size_t msg_size);
void gr_cgc_view_free(gr_cgc_group_view_t *v);

/** The group's type (0 when there is no such group). */
gr_cg_type_t gr_cg_type(const gr_cg_registry_t *reg, const char *group_id);
/** An Empty consumer-protocol group is removed so that a classic JoinGroup can take the
 *  id (downgrade); true if it was removed (out->removed names it). */
bool gr_cgc_downgrade_if_empty(gr_cg_registry_t *reg, const char *group_id, gr_cg_out_t *out);

/** A classic LeaveGroup naming members of a consumer-protocol group: each named member
 *  (by instance id, else member id) is fenced; per-member errors into members[i].error. */
void gr_cgc_classic_leave(gr_cg_registry_t *reg, const char *group_id, gr_cg_leave_member_t *members, int32_t n,
                          int64_t now, gr_cg_out_t *out);

/** OffsetCommit / OffsetFetch checks of a consumer-protocol group (ConsumerGroup
 *  validateOffsetCommit / validateOffsetFetch). */
int16_t gr_cgc_commit_check(const gr_cg_registry_t *reg, const char *group_id, const char *member_id,
                            int32_t member_epoch, int16_t version);
int16_t gr_cgc_fetch_check(const gr_cg_registry_t *reg, const char *group_id, const char *member_id,
                           int32_t member_epoch);

/* ---- durability (records.h) ---- */

/** What restores a group after a restart: its epochs, and per member its epochs,
 *  subscription and partitions. */
typedef struct gr_cgc_member_rec {
    const char *member_id, *instance_id, *rack_id, *client_id, *client_host, *regex, *server_assignor;
    const char *const *topics;
    int32_t n_topics;
    int32_t member_epoch, previous_epoch, rebalance_timeout_ms, state;
    gr_cgc_assignment_t assigned, revoking, target;
} gr_cgc_member_rec_t;

void gr_cgc_restore_group(gr_cg_registry_t *reg, const char *group_id, int32_t group_epoch, int32_t assignment_epoch,
                          uint64_t topics_hash, int64_t now);
void gr_cgc_restore_member(gr_cg_registry_t *reg, const char *group_id, const gr_cgc_member_rec_t *m,
                           int32_t session_timeout_ms, int64_t now);
/** Visit the group's members as records (persisting). */
typedef void gr_cgc_member_fn(void *arg, const gr_cgc_member_rec_t *m);
bool gr_cgc_export(const gr_cg_registry_t *reg, const char *group_id, int32_t *group_epoch, int32_t *assignment_epoch,
                   uint64_t *topics_hash, gr_cgc_member_fn *fn, void *arg);

#endif
