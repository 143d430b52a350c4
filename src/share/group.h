/* Share-group coordinator: membership, epochs, target assignment and group configs
 * (KIP-932; docs/share-groups.md).
 *
 * A pure module: no I/O, no clock, no logging of its own. Every call that depends on
 * time takes now_ms; every call that changes durable state says so (`group_changed`)
 * so the caller can persist the group (gr_share_group_export) before it answers the
 * client. Timers are the caller's: it arms one timer at gr_share_group_next_deadline()
 * and calls gr_share_group_expire() when it fires.
 *
 * Naming: gr_share_group_* for the registry and the heartbeat, gr_sg_* for the plain
 * data structs and the assignor, gr_sgc_* for group configs (group_config.c).
 *
 * @locality One owner thread (the broker's event loop). Not thread-safe.
 * Ownership: the registry owns every group, member and string inside it. Pointers that
 * a function hands out into the registry (views, assignments in a heartbeat result)
 * stay valid until the next mutating call on the registry. */
#ifndef GR_SHARE_GROUP_H
#define GR_SHARE_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/props.h"
#include "base/uuid.h"
#include "meta/configdefs.h"
#include "share/group_config.h"
#include "share/sg_broker_cfg.h"

/* ------------------------------------------------------------------------------------
 * Plain data (also the persistence/export format).
 * ---------------------------------------------------------------------------------- */

/** Partitions of one topic, ascending and unique. */
typedef struct gr_sg_topic_parts {
    gr_uuid_t topic_id;
    int32_t *partitions;
    int32_t n_partitions;
} gr_sg_topic_parts_t;

/** A set of topic-partitions: topics ordered by topic id bytes, no topic with 0 partitions.
 *  This canonical order makes two equal assignments compare equal with memcmp-style code. */
typedef struct gr_sg_assignment {
    gr_sg_topic_parts_t *topics;
    int32_t n_topics;
} gr_sg_assignment_t;

typedef struct gr_sg_member {
    char *member_id; /* client generated; never empty */
    int32_t member_epoch;
    int32_t previous_epoch;
    char *client_id;   /* never NULL */
    char *client_host; /* never NULL */
    char *rack_id;     /* NULL: none */
    char **subscribed; /* topic names, sorted, unique */
    int32_t n_subscribed;
    gr_sg_assignment_t assignment; /* what the member has been told (ShareGroupDescribe shows this) */
    gr_sg_assignment_t target;     /* target assignment at the group's assignment epoch */
} gr_sg_member_t;

/** One subscribed topic as the group last saw it (Kafka's subscription metadata). */
typedef struct gr_sg_topic_meta {
    char *name;
    gr_uuid_t topic_id;
    int32_t n_partitions;
} gr_sg_topic_meta_t;

typedef enum gr_sg_state { GR_SG_EMPTY = 0, GR_SG_STABLE = 1, GR_SG_DEAD = 2 } gr_sg_state_t;

/** The whole durable state of one share group. Inside the registry: members sorted by
 *  member_id and topics sorted by name. As an import argument any order is accepted. */
typedef struct gr_sg_group {
    char *group_id;
    int32_t group_epoch;
    int32_t assignment_epoch;
    gr_sg_member_t *members;
    int32_t n_members;
    gr_sg_topic_meta_t *topics; /* subscription metadata: subscribed topics that exist */
    int32_t n_topics;
    gr_sg_assignment_t initialized; /* share-partitions whose state is initialized (§4.5) */
} gr_sg_group_t;

/** Free everything a gr_sg_* struct owns (not the struct itself). NULL-safe. */
void gr_sg_assignment_free(gr_sg_assignment_t *a);
void gr_sg_member_free(gr_sg_member_t *m);
void gr_sg_group_free(gr_sg_group_t *g);
/** Deep copies (dst is overwritten, not freed first). Abort on OOM. */
void gr_sg_assignment_copy(gr_sg_assignment_t *dst, const gr_sg_assignment_t *src);
void gr_sg_group_copy(gr_sg_group_t *dst, const gr_sg_group_t *src);
/** True if a and b hold the same topic-partitions. Both must be canonical. */
bool gr_sg_assignment_equal(const gr_sg_assignment_t *a, const gr_sg_assignment_t *b);
/** Number of topic-partitions in a. */
int32_t gr_sg_assignment_count(const gr_sg_assignment_t *a);
/** True if a holds (topic_id, partition). */
bool gr_sg_assignment_has(const gr_sg_assignment_t *a, const gr_uuid_t *topic_id, int32_t partition);

/** "Empty", "Stable", "Dead" (ShareGroupDescribe / ListGroups GroupState). */
const char *gr_share_group_state_name(gr_sg_state_t state);

/* ------------------------------------------------------------------------------------
 * Topic metadata, supplied by the caller on every call that needs it.
 * ---------------------------------------------------------------------------------- */

/** How the coordinator sees the broker's topics. Callbacks return false if unknown. */
typedef struct gr_sg_topic_view {
    bool (*by_name)(void *ctx, const char *name, gr_uuid_t *topic_id, int32_t *n_partitions);
    bool (*by_id)(void *ctx, const gr_uuid_t *topic_id, int32_t *n_partitions);
    void *ctx;
} gr_sg_topic_view_t;

/** A ready-made view over an array (tests, small brokers): linear search. */
typedef struct gr_sg_topic_array {
    const char *const *names;
    const gr_uuid_t *ids;
    const int32_t *n_partitions;
    int32_t n;
} gr_sg_topic_array_t;
/** A view whose callbacks search arr (which must outlive the view). */
gr_sg_topic_view_t gr_sg_topic_array_view(const gr_sg_topic_array_t *arr);

/* ------------------------------------------------------------------------------------
 * Assignor (group_assign_simple.c: Kafka 4.4.0's SimpleAssignor).
 * ---------------------------------------------------------------------------------- */

/** One subscribed topic and its assignable (initialized) partitions, ascending. */
typedef struct gr_sg_assign_topic {
    gr_uuid_t topic_id;
    const int32_t *partitions;
    int32_t n_partitions;
} gr_sg_assign_topic_t;

typedef struct gr_sg_assign_member {
    const char *member_id;
    const int32_t *topics; /* indexes into the topic array the member subscribes to */
    int32_t n_topics;
    const gr_sg_assignment_t *current; /* previous target assignment; NULL = none */
} gr_sg_assign_member_t;

/** Java's String.hashCode of a UTF-8 string (computed over its UTF-16 code units). */
int32_t gr_sg_java_hash(const char *s);
/** Compute the target assignment: out[i] (caller-provided, n_members entries, overwritten)
 *  receives member i's partitions in canonical form; the caller frees each with
 *  gr_sg_assignment_free. Deterministic for a given input order. */
void gr_sg_assign(const gr_sg_assign_topic_t *topics, int32_t n_topics, const gr_sg_assign_member_t *members,
                  int32_t n_members, gr_sg_assignment_t *out);

/* ------------------------------------------------------------------------------------
 * Registry and heartbeat.
 * ---------------------------------------------------------------------------------- */

typedef struct gr_share_group_registry gr_share_group_registry_t;

/** New empty registry. bcfg is copied (group.share.max.size and
 *  group.share.initialize.retry.interval.ms are used). Free with gr_share_group_registry_free. */
gr_share_group_registry_t *gr_share_group_registry_new(const gr_sg_broker_cfg_t *bcfg);
void gr_share_group_registry_free(gr_share_group_registry_t *reg);

/** A decoded ShareGroupHeartbeat v1 request plus connection facts. Strings are
 *  NUL-terminated and only borrowed for the call. */
typedef struct gr_sg_heartbeat_req {
    const char *group_id;
    const char *member_id;
    int32_t member_epoch;          /* 0 join, -1 leave, > 0 heartbeat */
    const char *rack_id;           /* NULL = unchanged */
    const char *const *subscribed; /* SubscribedTopicNames */
    int32_t n_subscribed;          /* -1 = null (unchanged) */
    const char *client_id;         /* request header ClientId (NULL = "") */
    const char *client_host;       /* peer address, e.g. "/127.0.0.1" (NULL = "") */
    bool id_used_by_other_type;    /* the id names a classic/consumer/streams group */
} gr_sg_heartbeat_req_t;

/** The outcome of a heartbeat. Free with gr_sg_heartbeat_res_free. */
typedef struct gr_sg_heartbeat_res {
    gr_err_t err;          /* NONE or the wire error code */
    char errmsg[256];      /* ErrorMessage ("" = null) */
    const char *member_id; /* MemberId to answer (the request's) */
    int32_t member_epoch;
    int32_t heartbeat_interval_ms;
    /* Assignment to send; NULL = null on the wire ("unchanged"). An empty assignment
     * (n_topics 0) is sent as a present struct with no topics. Points into the registry. */
    const gr_sg_assignment_t *assignment;
    bool group_changed; /* durable state changed: persist the group before answering */
    bool group_created; /* the group did not exist before this call */
    /* Share-partitions that must be initialized (InitializeShareGroupState): call
     * gr_share_group_mark_initialized when done. Owned. */
    gr_sg_assignment_t to_initialize;
    int64_t member_deadline_ms; /* session deadline of this member (0 on error/leave) */
} gr_sg_heartbeat_res_t;

void gr_sg_heartbeat_res_free(gr_sg_heartbeat_res_t *res);

/** Run one ShareGroupHeartbeat (§4.1-4.4, §4.7) at now_ms with the group's effective
 *  configs cfg (gr_sgc_resolve) and the current topics (must not be NULL; it is only
 *  called during this function). Always fills res (res->err says what to answer); the
 *  return value is res->err. res->member_id is borrowed from req. */
gr_err_t gr_share_group_heartbeat(gr_share_group_registry_t *reg, const gr_sg_heartbeat_req_t *req,
                                  const gr_sgc_values_t *cfg, const gr_sg_topic_view_t *topics, int64_t now_ms,
                                  gr_sg_heartbeat_res_t *res);

/** Record that the share state of these partitions of group_id is now initialized
 *  (after InitializeShareGroupState, AlterShareGroupOffsets, or synchronously). Bumps the
 *  group epoch if anything is new, so the next heartbeat recomputes the assignment.
 *  Returns GR_ERR__NOENT if the group does not exist. *changed (may be NULL): persist. */
gr_err_t gr_share_group_mark_initialized(gr_share_group_registry_t *reg, const char *group_id,
                                         const gr_sg_assignment_t *parts, bool *changed);
/** Undo a pending initialization that failed, so a later heartbeat retries at once. */
void gr_share_group_init_failed(gr_share_group_registry_t *reg, const char *group_id, const gr_sg_assignment_t *parts);
/** Drop a topic from the initialized set (DeleteShareGroupOffsets, topic deletion). */
gr_err_t gr_share_group_forget_topic(gr_share_group_registry_t *reg, const char *group_id, const gr_uuid_t *topic_id,
                                     bool *changed);
/** Create an Empty share group if absent (AlterShareGroupOffsets, §6.4).
 *  *created (may be NULL) says whether it was new. */
void gr_share_group_ensure(gr_share_group_registry_t *reg, const char *group_id, bool *created);

/** One member removed by session expiry. */
typedef struct gr_sg_expired {
    char *group_id;
    char *member_id;
} gr_sg_expired_t;

/** Remove every member whose session deadline is <= now_ms (§4.6): each removal bumps
 *  the group epoch; the new target assignment is computed at the next heartbeat.
 *  *out (malloc'd, free with gr_sg_expired_free) lists them so the caller can release
 *  their acquired records and persist their groups. Returns the count. */
int32_t gr_share_group_expire(gr_share_group_registry_t *reg, int64_t now_ms, gr_sg_expired_t **out);
void gr_sg_expired_free(gr_sg_expired_t *v, int32_t n);
/** Earliest member session deadline in the registry, INT64_MAX if none. */
int64_t gr_share_group_next_deadline(const gr_share_group_registry_t *reg);

/* ------------------------------------------------------------------------------------
 * Admin: describe, list, delete, export/import.
 * ---------------------------------------------------------------------------------- */

/** The group's state as a read-only view (valid until the next mutating call) for
 *  ShareGroupDescribe (AssignorName is "simple"). Errors: GROUP_ID_NOT_FOUND with
 *  "Group X is not a share group." if other_type, else "Group X not found." if absent;
 *  INVALID_GROUP_ID for an empty id. */
gr_err_t gr_share_group_describe(const gr_share_group_registry_t *reg, const char *group_id, bool other_type,
                                 const gr_sg_group_t **out, gr_sg_state_t *state, char *errstr, size_t errstr_size);

/** One ListGroups entry (GroupType and ProtocolType are both "share"). */
typedef struct gr_sg_list_entry {
    const char *group_id; /* points into the registry */
    const char *state;    /* "Empty" / "Stable" */
} gr_sg_list_entry_t;
/** Share groups matching the StatesFilter (case-insensitive; n_states 0 = all), in
 *  group id order. *out is malloc'd (free()); returns the count. */
int32_t gr_share_group_list(const gr_share_group_registry_t *reg, const char *const *states, int32_t n_states,
                            gr_sg_list_entry_t **out);

/** DeleteGroups check for a share group: NONE if deletable, NON_EMPTY_GROUP (68) while it
 *  has members, GROUP_ID_NOT_FOUND (69) if unknown. Does not delete. */
gr_err_t gr_share_group_delete_check(const gr_share_group_registry_t *reg, const char *group_id);
/** Delete the group (state Dead; it leaves the registry) after the caller removed its
 *  share state. Same errors as gr_share_group_delete_check. If exported is not NULL
 *  it receives the group's last state (free with gr_sg_group_free), e.g. to know which
 *  share-partitions to delete. */
gr_err_t gr_share_group_delete(gr_share_group_registry_t *reg, const char *group_id, gr_sg_group_t *exported);

/** Deep copy of a group's durable state for persistence. GR_ERR__NOENT if absent. */
gr_err_t gr_share_group_export(const gr_share_group_registry_t *reg, const char *group_id, gr_sg_group_t *out);
/** Load a group (start-up): replaces any group with the same id. Members get a fresh
 *  session deadline now_ms + session_timeout_ms (timers do not survive restarts).
 *  Returns GR_ERR__INVALID_ARG for an empty group id or member id. */
gr_err_t gr_share_group_import(gr_share_group_registry_t *reg, const gr_sg_group_t *g, int64_t now_ms,
                               int32_t session_timeout_ms);
/** Number of share groups and the id of group i (0 <= i < count) in id order. */
int32_t gr_share_group_count(const gr_share_group_registry_t *reg);
const char *gr_share_group_id_at(const gr_share_group_registry_t *reg, int32_t i);
/** True if group_id is a share group here (so the caller can refuse it to other group types). */
bool gr_share_group_exists(const gr_share_group_registry_t *reg, const char *group_id);

#endif
