/* Internals of the consumer-group coordinator, shared by its files only:
 * cg_group.c (registry, members, protocol selection), cg_join.c (JoinGroup and
 * the join phase), cg_sync.c (SyncGroup, Heartbeat, LeaveGroup, timers) and
 * cg_offsets.c (committed offsets). */
#ifndef GR_CGROUP_CG_INT_H
#define GR_CGROUP_CG_INT_H

#include "base/htab.h"
#include "cgroup/cgroup.h"

#define CG_NO_DEADLINE INT64_MAX

typedef struct cg_proto {
    char *name;
    uint8_t *metadata;
    int32_t len;
} cg_proto_t;

typedef struct cg_member {
    char *member_id, *instance_id, *client_id, *client_host;
    int32_t session_ms, rebalance_ms;
    cg_proto_t *protos;
    int32_t n_protos;
    uint8_t *assignment;
    int32_t assignment_len;
    bool is_new;
    /* Awaiting a JoinGroup / SyncGroup answer; the waiter is NULL once its
     * connection is gone (the answer is then dropped). */
    bool awaiting_join, awaiting_sync;
    void *join_waiter, *sync_waiter;
    int16_t join_version;
    int64_t hb_deadline;
} cg_member_t;

typedef struct cg_pending {
    char *member_id;
    int64_t deadline;
} cg_pending_t;

typedef struct cg_offset_entry {
    gr_hnode_t node;
    char *topic;
    int32_t partition;
    gr_cg_offset_t o;
} cg_offset_entry_t;

enum { JOIN_TIMER_NONE, JOIN_TIMER_INITIAL, JOIN_TIMER_NORMAL };

typedef struct cg_group {
    gr_hnode_t node;
    char *id;
    gr_cg_type_t type;
    gr_cg_state_t state, prev_state;
    int64_t state_ms; /* when the current state began */
    int32_t generation;
    char *protocol_type, *protocol_name, *leader; /* NULL = none */
    cg_member_t **members;                        /* join order */
    int32_t n_members, cap_members;
    cg_pending_t *pending; /* MEMBER_ID_REQUIRED given, not joined yet */
    int32_t n_pending, cap_pending;
    char **pending_sync; /* members that have not synced this generation */
    int32_t n_pending_sync, cap_pending_sync;
    int32_t n_awaiting_join;
    bool new_member_added;
    int join_timer;
    int64_t join_deadline;
    int32_t init_delay_ms, init_remaining_ms;
    int64_t sync_deadline;
    int32_t sync_generation;
    uint64_t rebalances;    /* completed: leader's assignment applied (Kafka's CompletedRebalances) */
    gr_htab_t offsets;      /* (topic, partition) -> cg_offset_entry_t */
    struct cgc_group *cons; /* GR_CG_TYPE_CONSUMER: the consumer-protocol state (cgc_int.h) */
} cg_group_t;

/* A pending transactional offset (cg_txn.c). */
typedef struct cg_txn_offset {
    char *group_id, *topic;
    int32_t partition;
    int64_t pid;
    gr_cg_offset_t o;
} cg_txn_offset_t;

struct gr_cg_registry {
    gr_cg_config_t cfg;
    cg_txn_offset_t *txn; /* pending transactional offsets (few: one set per open transaction) */
    int32_t n_txn, cap_txn;
    gr_htab_t groups;   /* id -> cg_group_t */
    cg_group_t **order; /* creation order, for listing */
    int32_t n_order, cap_order;
    int64_t next_retention_ms;
    uint64_t id_seq; /* member id suffixes */
};

#define CG_ENTRY(hn) GR_HTAB_ENTRY(hn, cg_group_t, node)

/* cg_txn.c */
void cg_txn_free_all(gr_cg_registry_t *reg);

/* cg_group.c */
char *cg_strdup(const char *s);
void *cg_grow(void *v, int32_t *cap, int32_t need, size_t size);
cg_group_t *cg_find(const gr_cg_registry_t *reg, const char *id);
cg_group_t *cg_create(gr_cg_registry_t *reg, const char *id, int64_t now);
void cg_remove_group(gr_cg_registry_t *reg, cg_group_t *g, gr_cg_out_t *out);
void cg_transition(cg_group_t *g, gr_cg_state_t s, int64_t now);
cg_member_t *cg_member(const cg_group_t *g, const char *member_id);
cg_member_t *cg_static_member(const cg_group_t *g, const char *instance_id);
int32_t cg_pending_index(const cg_group_t *g, const char *member_id);
void cg_pending_remove(cg_group_t *g, const char *member_id);
void cg_pending_sync_remove(cg_group_t *g, const char *member_id);
void cg_member_free(cg_member_t *m);
void cg_member_set_protocols(cg_member_t *m, const gr_cg_protocol_t *p, int32_t n);
void cg_add_member(cg_group_t *g, cg_member_t *m);
void cg_remove_member(cg_group_t *g, const char *member_id);
bool cg_supports_protocols(const cg_group_t *g, const char *type, const gr_cg_protocol_t *p, int32_t n);
bool cg_member_matches(const cg_member_t *m, const gr_cg_protocol_t *p, int32_t n);
char *cg_select_protocol(const cg_group_t *g);
int32_t cg_rebalance_timeout(const cg_group_t *g);
bool cg_all_joined(const cg_group_t *g);
void cg_mark_changed(gr_cg_out_t *out, const char *id);
gr_cg_answer_t *cg_answer(gr_cg_out_t *out, void *waiter, gr_cg_answer_kind_t kind, int16_t error);
void cg_leader_members(const cg_group_t *g, gr_cg_answer_t *a);
/* Answer the member's parked JoinGroup (if any) with error / the current generation. */
void cg_complete_join(cg_group_t *g, cg_member_t *m, gr_cg_out_t *out, int16_t error, bool with_group);
void cg_complete_sync(cg_group_t *g, cg_member_t *m, gr_cg_out_t *out, int16_t error);
int16_t cg_validate_member(const cg_group_t *g, const char *member_id, const char *instance_id);

/* cg_join.c */
void cg_prepare_rebalance(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out);
void cg_maybe_prepare_or_complete(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out);
void cg_maybe_complete_join_phase(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out);
void cg_complete_join_phase(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out);
void cg_reset_sync_with_error(cg_group_t *g, gr_cg_out_t *out, int16_t error);
void cg_remove_member_and_update(gr_cg_registry_t *reg, cg_group_t *g, cg_member_t *m, int64_t now, gr_cg_out_t *out);

/* cgc_reconcile.c */
void cgc_group_free(struct cgc_group *c);
/* Does a member of this consumer-protocol group subscribe to topic? */
bool cgc_subscribed(const cg_group_t *g, const char *topic);
/* Members of a group of either type. */
int32_t cgc_n_members(const cg_group_t *g);

/* cg_offsets.c */
void cg_offsets_free(cg_group_t *g);
void cg_offsets_expire(gr_cg_registry_t *reg, int64_t now, gr_cg_out_t *out);

#endif
