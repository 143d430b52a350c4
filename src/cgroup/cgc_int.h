/* Internals of the consumer-protocol groups (consumer.h), shared by cgc_*.c only:
 * cgc_set.c (partition sets), cgc_assign.c (uniform and range assignors),
 * cgc_heartbeat.c (request checks, joining, leaving, epochs), cgc_reconcile.c (target
 * assignment, reconciliation, timers, state) and cgc_view.c (describe, offsets checks,
 * regex, export/restore). */
#ifndef GR_CGROUP_CGC_INT_H
#define GR_CGROUP_CGC_INT_H

#include "cgroup/cg_int.h"
#include "cgroup/consumer.h"

/** One topic-partition. */
typedef struct cgc_tp {
    gr_uuid_t id;
    int32_t p;
} cgc_tp_t;

/** A set of topic-partitions, sorted by (id bytes, partition), unique. */
typedef struct cgc_set {
    cgc_tp_t *v;
    int32_t n, cap;
} cgc_set_t;

/* Kafka's MemberState. */
enum { CGC_STABLE = 0, CGC_UNREVOKED = 1, CGC_UNRELEASED = 2 };

typedef struct cgc_member {
    char *member_id, *instance_id, *rack_id, *client_id, *client_host, *regex, *server_assignor;
    char **topics; /* subscribed names, sorted, unique */
    int32_t n_topics;
    int32_t epoch, prev_epoch, rebalance_ms, state;
    cgc_set_t assigned, revoking, target;
    int64_t session_deadline, rebalance_deadline; /* CG_NO_DEADLINE: none */
    void *re_code;                                /* compiled regex (pcre2_code), NULL when none */
    bool re_pending; /* set by this heartbeat: resolved from the next one on (Kafka resolves
                        regexes in the background, after the heartbeat that brought them) */
} cgc_member_t;

typedef struct cgc_group {
    int32_t group_epoch, assignment_epoch;
    cgc_member_t **members; /* join order */
    int32_t n_members, cap_members;
    uint64_t sub_hash;      /* subscription metadata the target was computed on */
    char *assignor;         /* the assignor of the last target assignment (NULL: none yet) */
    int64_t last_assign_ms; /* when the target was last computed */
} cgc_group_t;

/* cgc_set.c */
void cgc_set_free(cgc_set_t *s);
void cgc_set_clear(cgc_set_t *s);
void cgc_set_add(cgc_set_t *s, const gr_uuid_t *id, int32_t p); /* keeps order; no duplicates */
bool cgc_set_has(const cgc_set_t *s, const gr_uuid_t *id, int32_t p);
void cgc_set_copy(cgc_set_t *dst, const cgc_set_t *src);
bool cgc_set_equal(const cgc_set_t *a, const cgc_set_t *b);
int cgc_tp_cmp(const cgc_tp_t *a, const cgc_tp_t *b);
/** dst = a minus b (dst != a, b) */
void cgc_set_minus(cgc_set_t *dst, const cgc_set_t *a, const cgc_set_t *b);
void cgc_set_intersect(cgc_set_t *dst, const cgc_set_t *a, const cgc_set_t *b);
void cgc_set_to_assignment(const cgc_set_t *s, gr_cgc_assignment_t *a);
void cgc_set_from_assignment(cgc_set_t *s, const gr_cgc_assignment_t *a);

/* cgc_assign.c. A subscriber list per topic; the target of every member is written. */
typedef struct cgc_topic {
    const char *name;
    gr_uuid_t id;
    int32_t n_partitions;
} cgc_topic_t;

/** Compute every member's target into members[i]->target, sticky towards the previous
 *  targets. subs[i][t] tells whether member i subscribes to topics[t]. */
void cgc_assign_uniform(cgc_member_t **members, int32_t n, const cgc_topic_t *topics, int32_t n_topics,
                        const bool *subs);
void cgc_assign_range(cgc_member_t **members, int32_t n, const cgc_topic_t *topics, int32_t n_topics, const bool *subs);

/* cgc_reconcile.c */
cgc_group_t *cgc_of(const cg_group_t *g);
cgc_member_t *cgc_member(const cgc_group_t *c, const char *member_id);
cgc_member_t *cgc_static_member(const cgc_group_t *c, const char *instance_id);
void cgc_member_free(cgc_member_t *m);
void cgc_remove_member(cgc_group_t *c, cgc_member_t *m);
void cgc_group_free(cgc_group_t *c);
cg_group_t *cgc_create(gr_cg_registry_t *reg, const char *group_id, int64_t now);
/** Recompute the target when the group epoch moved past the assignment epoch (or the
 *  subscribed topics changed, which bumps the group epoch first). */
void cgc_maybe_assign(cgc_group_t *c, const gr_cgc_cfg_t *cfg, const gr_cgc_topics_t *topics, int64_t now);
/** Move one member towards the target (CurrentAssignmentBuilder). owned NULL: not given. */
bool cgc_reconcile(cgc_group_t *c, cgc_member_t *m, const cgc_set_t *owned, int64_t now, bool *moved);
void cgc_update_state(cg_group_t *g, int64_t now);
/** Subscription metadata hash over every member's resolved topics. */
uint64_t cgc_sub_hash(const cgc_group_t *c, const gr_cgc_topics_t *topics);
/** The hash of no topics (a new group's). */
uint64_t cgc_empty_hash(void);
/** Does the member subscribe to topic name (names or regex)? */
bool cgc_subscribes(const cgc_member_t *m, const char *name);

/* cgc_view.c */
/** Compile re for matching whole topic names; NULL if RE2 would refuse it (why set). */
void *cgc_regex_compile(const char *re, char *why, size_t why_size);
bool cgc_regex_match(void *code, const char *name);
void cgc_regex_free(void *code);
/** Name a member whose record is to be deleted. */
void cgc_gone(gr_cg_out_t *out, const char *group_id, const char *member_id);
/** Fence (remove) a member: the group epoch moves on. */
void cgc_fence(cg_group_t *g, cgc_member_t *m, int64_t now, gr_cg_out_t *out);

#endif
