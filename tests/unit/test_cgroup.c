/* Unit tests of the classic group coordinator (src/cgroup): join, sync, heartbeat,
 * leave, expiry, static membership and offsets, with exact states, generations and
 * errors as Kafka 4.4.0's GroupMetadataManager produces them. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/cgroup.h"
#include "testutil.h"

/* ConsumerProtocol subscription v0 for topic "t". */
static const uint8_t SUB_T[] = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0};

static gr_cg_registry_t *reg_new(int32_t delay) {
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    c.initial_rebalance_delay_ms = delay;
    c.max_size = 3;
    return gr_cg_registry_new(&c);
}

typedef struct join_args {
    const char *member, *instance, *ptype, *proto;
    int16_t version;
    int32_t session, rebalance;
} join_args_t;

static void join(gr_cg_registry_t *r, const char *gid, join_args_t a, void *waiter, int64_t now, gr_cg_out_t *out) {
    gr_cg_protocol_t p = {a.proto ? a.proto : "range", SUB_T, sizeof(SUB_T)};
    gr_cg_join_req_t req = {.group_id = gid,
                            .member_id = a.member ? a.member : "",
                            .instance_id = a.instance,
                            .protocol_type = a.ptype ? a.ptype : "consumer",
                            .client_id = "cli",
                            .client_host = "/127.0.0.1",
                            .session_timeout_ms = a.session ? a.session : 10000,
                            .rebalance_timeout_ms = a.rebalance ? a.rebalance : 20000,
                            .protocols = &p,
                            .n_protocols = 1,
                            .version = a.version ? a.version : 7,
                            .waiter = waiter};
    gr_cg_join(r, &req, now, out);
}

static const gr_cg_answer_t *answer_for(const gr_cg_out_t *o, void *waiter) {
    for (int32_t i = 0; i < o->n_answers; i++)
        if (o->answers[i].waiter == waiter) return &o->answers[i];
    return NULL;
}

static gr_cg_state_t state_of(gr_cg_registry_t *r, const char *gid) {
    gr_cg_group_view_t v;
    if (gr_cg_describe(r, gid, &v)) return GR_CG_DEAD;
    gr_cg_state_t s = v.state;
    gr_cg_view_free(&v);
    return s;
}

static int32_t gen_of(gr_cg_registry_t *r, const char *gid) {
    gr_cg_group_view_t v;
    ASSERT_EQ(gr_cg_describe(r, gid, &v), 0);
    int32_t g = v.generation;
    gr_cg_view_free(&v);
    return g;
}

static void sync_req(gr_cg_registry_t *r, const char *gid, const char *member, int32_t gen,
                     const gr_cg_assignment_t *as, int32_t n, void *waiter, int64_t now, gr_cg_out_t *out) {
    gr_cg_sync_req_t s = {.group_id = gid,
                          .member_id = member,
                          .protocol_type = "consumer",
                          .protocol_name = "range",
                          .generation = gen,
                          .assignments = as,
                          .n_assignments = n,
                          .waiter = waiter};
    gr_cg_sync(r, &s, now, out);
}

/* Two dynamic members: MEMBER_ID_REQUIRED, initial delay, leader election, sync. */
static char m1[128], m2[128];
static void two_members_stable(gr_cg_registry_t *r, int64_t *now) {
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    int w1 = 0, w2 = 0, w3 = 0, w4 = 0;
    join(r, "g", (join_args_t){0}, &w1, *now, &o);
    const gr_cg_answer_t *a = answer_for(&o, &w1);
    ASSERT(a);
    ASSERT_EQ(a->error, GR_ERR_MEMBER_ID_REQUIRED);
    ASSERT(!strncmp(a->member_id, "cli-", 4));
    ASSERT_EQ(a->generation, -1);
    strcpy(m1, a->member_id);
    gr_cg_out_free(&o);
    join(r, "g", (join_args_t){.member = m1}, &w1, *now, &o);
    ASSERT_EQ(o.n_answers, 0); /* parked during the initial delay */
    ASSERT_EQ(state_of(r, "g"), GR_CG_PREPARING_REBALANCE);
    join(r, "g", (join_args_t){0}, &w2, *now + 10, &o);
    strcpy(m2, answer_for(&o, &w2)->member_id);
    ASSERT(strcmp(m1, m2));
    gr_cg_out_free(&o);
    join(r, "g", (join_args_t){.member = m2}, &w2, *now + 20, &o);
    ASSERT_EQ(o.n_answers, 0);
    /* The delay (100 ms) is extended once because a member was added during it. */
    ASSERT_EQ(gr_cg_next_deadline(r), *now + 100);
    gr_cg_tick(r, *now + 100, &o);
    ASSERT_EQ(o.n_answers, 0);
    ASSERT_EQ(gr_cg_next_deadline(r), *now + 200);
    gr_cg_tick(r, *now + 200, &o);
    ASSERT_EQ(o.n_answers, 2);
    const gr_cg_answer_t *j1 = answer_for(&o, &w1), *j2 = answer_for(&o, &w2);
    ASSERT_EQ(j1->error, 0);
    ASSERT_EQ(j1->generation, 1);
    ASSERT_STREQ(j1->leader, m1);
    ASSERT_STREQ(j1->protocol_name, "range");
    ASSERT_STREQ(j1->protocol_type, "consumer");
    ASSERT_EQ(j1->n_members, 2);
    ASSERT_EQ(j2->n_members, 0);
    ASSERT_STREQ(j2->leader, m1);
    ASSERT_EQ(state_of(r, "g"), GR_CG_COMPLETING_REBALANCE);
    gr_cg_out_free(&o);
    /* Follower syncs first: parked; heartbeats work; commit refused while completing. */
    sync_req(r, "g", m2, 1, NULL, 0, &w3, *now + 210, &o);
    ASSERT_EQ(o.n_answers, 0);
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m2, NULL, 1, *now + 210, &o), 0);
    bool created;
    ASSERT_EQ(gr_cg_commit_check(r, "g", m2, NULL, 1, 8, *now + 210, &created), GR_ERR_REBALANCE_IN_PROGRESS);
    gr_cg_assignment_t as[2] = {{m1, (const uint8_t *)"A1", 2}, {m2, (const uint8_t *)"A2", 2}};
    sync_req(r, "g", m1, 1, as, 2, &w4, *now + 220, &o);
    ASSERT_EQ(o.n_answers, 2);
    ASSERT_EQ(answer_for(&o, &w3)->assignment_len, 2);
    ASSERT_MEMEQ(answer_for(&o, &w3)->assignment, "A2", 2);
    ASSERT_MEMEQ(answer_for(&o, &w4)->assignment, "A1", 2);
    ASSERT_EQ(state_of(r, "g"), GR_CG_STABLE);
    ASSERT_EQ(gr_cg_commit_check(r, "g", m2, NULL, 1, 8, *now + 220, &created), 0);
    gr_cg_out_free(&o);
    *now += 220;
}

static void test_join_sync_leave(void) {
    gr_cg_registry_t *r = reg_new(100);
    int64_t now = 1000;
    two_members_stable(r, &now);
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    /* Errors of misuse. */
    ASSERT_EQ(gr_cg_heartbeat(r, "g", "nobody", NULL, 1, now, &o), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m1, NULL, 0, now, &o), GR_ERR_ILLEGAL_GENERATION);
    ASSERT_EQ(gr_cg_heartbeat(r, "nogroup", m1, NULL, 1, now, &o), GR_ERR_UNKNOWN_MEMBER_ID);
    bool created;
    ASSERT_EQ(gr_cg_commit_check(r, "g", "nobody", NULL, 1, 8, now, &created), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(gr_cg_commit_check(r, "g", m1, NULL, 5, 8, now, &created), GR_ERR_ILLEGAL_GENERATION);
    ASSERT_EQ(gr_cg_commit_check(r, "g", "", NULL, -1, 8, now, &created), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(gr_cg_commit_check(r, "nog", "m", NULL, 3, 8, now, &created), GR_ERR_ILLEGAL_GENERATION);
    ASSERT_EQ(gr_cg_commit_check(r, "nog", "m", NULL, 3, 9, now, &created), GR_ERR_GROUP_ID_NOT_FOUND);
    int ws = 0;
    sync_req(r, "g", m1, 7, NULL, 0, &ws, now, &o);
    ASSERT_EQ(answer_for(&o, &ws)->error, GR_ERR_ILLEGAL_GENERATION);
    gr_cg_out_free(&o);
    gr_cg_sync_req_t bad = {
        .group_id = "g", .member_id = m1, .protocol_type = "connect", .generation = 1, .waiter = &ws};
    gr_cg_sync(r, &bad, now, &o);
    ASSERT_EQ(answer_for(&o, &ws)->error, GR_ERR_INCONSISTENT_GROUP_PROTOCOL);
    gr_cg_out_free(&o);
    /* Wrong protocol type on join; session timeout out of range. */
    int wj = 0;
    join(r, "g", (join_args_t){.ptype = "connect"}, &wj, now, &o);
    ASSERT_EQ(answer_for(&o, &wj)->error, GR_ERR_INCONSISTENT_GROUP_PROTOCOL);
    gr_cg_out_free(&o);
    join(r, "g", (join_args_t){.session = 1000}, &wj, now, &o);
    ASSERT_EQ(answer_for(&o, &wj)->error, GR_ERR_INVALID_SESSION_TIMEOUT);
    gr_cg_out_free(&o);
    /* m2 leaves: rebalance; m1's heartbeat says REBALANCE_IN_PROGRESS; m1 rejoins alone. */
    gr_cg_leave_member_t lm[2] = {{m2, NULL, -1}, {"ghost", NULL, -1}};
    ASSERT_EQ(gr_cg_leave(r, "g", lm, 2, now, &o), 0);
    ASSERT_EQ(lm[0].error, 0);
    ASSERT_EQ(lm[1].error, GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(state_of(r, "g"), GR_CG_PREPARING_REBALANCE);
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m1, NULL, 1, now, &o), GR_ERR_REBALANCE_IN_PROGRESS);
    int w1 = 0;
    join(r, "g", (join_args_t){.member = m1}, &w1, now + 5, &o);
    const gr_cg_answer_t *a = answer_for(&o, &w1);
    ASSERT(a);
    ASSERT_EQ(a->generation, 2);
    ASSERT_EQ(a->n_members, 1);
    ASSERT_EQ(state_of(r, "g"), GR_CG_COMPLETING_REBALANCE);
    gr_cg_out_free(&o);
    /* m1 never syncs nor heartbeats: its session (10 s) expires, it is removed and
     * the rebalance completes at once with nobody: Empty, next generation. */
    gr_cg_tick(r, now + 5 + 9999, &o);
    ASSERT_EQ(state_of(r, "g"), GR_CG_COMPLETING_REBALANCE);
    gr_cg_tick(r, now + 5 + 10000, &o);
    ASSERT_EQ(state_of(r, "g"), GR_CG_EMPTY);
    ASSERT_EQ(gen_of(r, "g"), 3);
    ASSERT_EQ(gr_cg_delete_check(r, "g"), 0);
    ASSERT_EQ(gr_cg_commit_check(r, "g", "", NULL, -1, 8, now, &created), 0);
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

static void test_session_expiry(void) {
    gr_cg_registry_t *r = reg_new(100);
    int64_t now = 1000;
    two_members_stable(r, &now);
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    /* m1 heartbeats, m2 does not: m2 expires after its session (10 s). */
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m1, NULL, 1, now + 9000, &o), 0);
    gr_cg_tick(r, now + 10000, &o);
    ASSERT_EQ(state_of(r, "g"), GR_CG_PREPARING_REBALANCE);
    ASSERT_EQ(gr_cg_delete_check(r, "g"), GR_ERR_NON_EMPTY_GROUP);
    int w1 = 0;
    join(r, "g", (join_args_t){.member = m1}, &w1, now + 10001, &o);
    ASSERT_EQ(answer_for(&o, &w1)->generation, 2);
    ASSERT_STREQ(answer_for(&o, &w1)->leader, m1);
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

/* A member that does not rejoin within the rebalance timeout is dropped; the others
 * get the next generation. */
static void test_rebalance_timeout(void) {
    gr_cg_registry_t *r = reg_new(100);
    int64_t now = 1000;
    two_members_stable(r, &now);
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    int w2 = 0;
    gr_cg_protocol_t p = {"range", (const uint8_t *)"x", 1}; /* changed metadata */
    gr_cg_join_req_t req = {.group_id = "g",
                            .member_id = m2,
                            .protocol_type = "consumer",
                            .client_id = "cli",
                            .client_host = "h",
                            .session_timeout_ms = 10000,
                            .rebalance_timeout_ms = 20000,
                            .protocols = &p,
                            .n_protocols = 1,
                            .version = 7,
                            .waiter = &w2};
    gr_cg_join(r, &req, now, &o);
    ASSERT_EQ(o.n_answers, 0);
    ASSERT_EQ(state_of(r, "g"), GR_CG_PREPARING_REBALANCE);
    ASSERT_EQ(gr_cg_next_deadline(r), now + 10000); /* m1's session comes first */
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m1, NULL, 1, now + 9000, &o), GR_ERR_REBALANCE_IN_PROGRESS);
    gr_cg_tick(r, now + 18000, &o);
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m1, NULL, 1, now + 18000, &o), GR_ERR_REBALANCE_IN_PROGRESS);
    gr_cg_tick(r, now + 20000, &o);
    const gr_cg_answer_t *a = answer_for(&o, &w2);
    ASSERT(a);
    ASSERT_EQ(a->error, 0);
    ASSERT_EQ(a->generation, 2);
    ASSERT_STREQ(a->leader, m2); /* the old leader did not rejoin */
    ASSERT_EQ(a->n_members, 1);
    ASSERT_EQ(gr_cg_heartbeat(r, "g", m1, NULL, 2, now + 20001, &o), GR_ERR_UNKNOWN_MEMBER_ID);
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

static void test_static_membership(void) {
    gr_cg_registry_t *r = reg_new(0);
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    int w1 = 0, w2 = 0, ws = 0;
    /* A static member joins without MEMBER_ID_REQUIRED; no delay (0 ms). */
    join(r, "s", (join_args_t){.instance = "i1", .version = 7}, &w1, 1000, &o);
    ASSERT_EQ(o.n_answers, 0);
    gr_cg_tick(r, 1000, &o);
    const gr_cg_answer_t *a = answer_for(&o, &w1);
    ASSERT(a);
    ASSERT_EQ(a->error, 0);
    ASSERT_EQ(a->generation, 1);
    ASSERT(!strncmp(a->member_id, "i1-", 3));
    char old[128];
    strcpy(old, a->member_id);
    gr_cg_out_free(&o);
    gr_cg_assignment_t as = {old, (const uint8_t *)"AS", 2};
    sync_req(r, "s", old, 1, &as, 1, &ws, 1001, &o);
    ASSERT_EQ(answer_for(&o, &ws)->error, 0);
    gr_cg_out_free(&o);
    /* The same instance rejoins with an unknown member id: replaced, no rebalance. */
    join(r, "s", (join_args_t){.instance = "i1", .version = 7}, &w2, 1002, &o);
    a = answer_for(&o, &w2);
    ASSERT(a);
    ASSERT_EQ(a->error, 0);
    ASSERT_EQ(a->generation, 1);
    ASSERT(strcmp(a->member_id, old));
    ASSERT_STREQ(a->leader, old); /* below v9 the old leader id is reported */
    ASSERT_EQ(a->n_members, 0);
    char nid[128];
    strcpy(nid, a->member_id);
    ASSERT_EQ(state_of(r, "s"), GR_CG_STABLE);
    gr_cg_out_free(&o);
    /* The old member id is fenced. */
    ASSERT_EQ(gr_cg_heartbeat(r, "s", old, "i1", 1, 1003, &o), GR_ERR_FENCED_INSTANCE_ID);
    ASSERT_EQ(gr_cg_heartbeat(r, "s", nid, "i1", 1, 1003, &o), 0);
    bool created;
    ASSERT_EQ(gr_cg_commit_check(r, "s", old, "i1", 1, 8, 1003, &created), GR_ERR_FENCED_INSTANCE_ID);
    /* It keeps its assignment. */
    sync_req(r, "s", nid, 1, NULL, 0, &ws, 1004, &o);
    ASSERT_MEMEQ(answer_for(&o, &ws)->assignment, "AS", 2);
    gr_cg_out_free(&o);
    /* v9: the leader is told to skip the assignment. */
    join(r, "s", (join_args_t){.instance = "i1", .version = 9}, &w2, 1005, &o);
    a = answer_for(&o, &w2);
    ASSERT(a->skip_assignment);
    ASSERT_STREQ(a->leader, a->member_id);
    ASSERT_EQ(a->n_members, 1);
    gr_cg_out_free(&o);
    /* Admin removal by instance id. */
    gr_cg_leave_member_t lm = {"", "i1", -1};
    ASSERT_EQ(gr_cg_leave(r, "s", &lm, 1, 1006, &o), 0);
    ASSERT_EQ(lm.error, 0);
    /* The last member left: the rebalance completes at once, Empty at generation 2. */
    ASSERT_EQ(state_of(r, "s"), GR_CG_EMPTY);
    ASSERT_EQ(gen_of(r, "s"), 2);
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

static void test_max_size_and_v3(void) {
    gr_cg_registry_t *r = reg_new(0);
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    int w[5] = {0};
    /* v3: no MEMBER_ID_REQUIRED; the fourth member exceeds group.max.size=3. */
    for (int i = 0; i < 3; i++) join(r, "m", (join_args_t){.version = 3}, &w[i], 1000, &o);
    gr_cg_tick(r, 1000, &o); /* members were added during the (zero) delay: extended once */
    ASSERT_EQ(o.n_answers, 0);
    gr_cg_tick(r, 1000, &o);
    ASSERT_EQ(o.n_answers, 3);
    ASSERT_EQ(answer_for(&o, &w[0])->generation, 1);
    gr_cg_out_free(&o);
    join(r, "m", (join_args_t){.version = 3}, &w[3], 1001, &o);
    ASSERT_EQ(answer_for(&o, &w[3])->error, GR_ERR_GROUP_MAX_SIZE_REACHED);
    ASSERT_STREQ(answer_for(&o, &w[3])->member_id, "");
    gr_cg_out_free(&o);
    /* Unknown group with a member id. */
    join(r, "other", (join_args_t){.member = "x"}, &w[4], 1001, &o);
    ASSERT_EQ(answer_for(&o, &w[4])->error, GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT(!gr_cg_exists(r, "other"));
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

static void test_offsets(void) {
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    c.offsets_retention_ms = 5000;
    c.retention_check_ms = 1000;
    gr_cg_registry_t *r = gr_cg_registry_new(&c);
    bool created;
    ASSERT_EQ(gr_cg_commit_check(r, "", "", NULL, -1, 8, 0, &created), GR_ERR_INVALID_GROUP_ID);
    ASSERT_EQ(gr_cg_commit_check(r, "simple", "", NULL, -1, 8, 0, &created), 0);
    ASSERT(created);
    gr_cg_offset_t off = {.offset = 42, .leader_epoch = 3, .metadata = "md", .commit_ms = 100, .expire_ms = -1};
    gr_cg_offset_put(r, "simple", "b", 1, &off);
    off.offset = 7;
    gr_cg_offset_put(r, "simple", "a", 0, &off);
    const gr_cg_offset_t *g = gr_cg_offset_get(r, "simple", "b", 1);
    ASSERT_EQ(g->offset, 42);
    ASSERT_EQ(g->leader_epoch, 3);
    ASSERT_STREQ(g->metadata, "md");
    ASSERT(!gr_cg_offset_get(r, "simple", "b", 0));
    ASSERT_EQ(gr_cg_offset_delete_check(r, "simple"), 0);
    ASSERT_EQ(gr_cg_offset_delete_check(r, "nope"), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT(!gr_cg_subscribed_to(r, "simple", "a"));
    ASSERT(gr_cg_fetch_visible(r, "simple"));
    /* Retention: simple group offsets expire 5 s after their commit; then the group goes. */
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    gr_cg_tick(r, 1000, &o);
    ASSERT_EQ(o.n_expired, 0);
    gr_cg_tick(r, 5100, &o);
    ASSERT_EQ(o.n_expired, 2);
    ASSERT_EQ(o.n_removed, 1);
    ASSERT_STREQ(o.removed[0], "simple");
    ASSERT(!gr_cg_exists(r, "simple"));
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

/* OffsetDelete on a Stable consumer group refuses subscribed topics only. */
static void test_subscribed(void) {
    gr_cg_registry_t *r = reg_new(100);
    int64_t now = 1000;
    two_members_stable(r, &now);
    ASSERT(gr_cg_subscribed_to(r, "g", "t"));
    ASSERT(!gr_cg_subscribed_to(r, "g", "u"));
    ASSERT_EQ(gr_cg_offset_delete_check(r, "g"), 0);
    gr_cg_registry_free(r);
}

/* A consumer group's offsets expire a retention period after the group became Empty,
 * however old the commits are; the group goes with its last offset. */
static void test_empty_group_retention(void) {
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    c.initial_rebalance_delay_ms = 100;
    c.offsets_retention_ms = 50000;
    c.retention_check_ms = 1000;
    gr_cg_registry_t *r = gr_cg_registry_new(&c);
    int64_t now = 1000;
    two_members_stable(r, &now);
    gr_cg_offset_put(r, "g", "t", 0, &(gr_cg_offset_t){5, -1, "", 10, -1});
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    gr_cg_tick(r, now + 40000, &o); /* Stable, subscribed to t: kept although the commit is old */
    ASSERT_EQ(o.n_expired, 0);
    gr_cg_leave_member_t lm[2] = {{m1, NULL, -1}, {m2, NULL, -1}};
    ASSERT_EQ(gr_cg_leave(r, "g", lm, 2, now + 40000, &o), 0);
    ASSERT_EQ(state_of(r, "g"), GR_CG_EMPTY);
    gr_cg_tick(r, now + 40000 + 49999, &o);
    ASSERT_EQ(o.n_expired, 0);
    ASSERT(gr_cg_offset_get(r, "g", "t", 0));
    gr_cg_tick(r, now + 40000 + 50000, &o); /* the next check is due 1 s after the last one */
    ASSERT_EQ(o.n_expired, 0);
    gr_cg_tick(r, now + 40000 + 50999, &o);
    ASSERT_EQ(o.n_expired, 1);
    ASSERT_STREQ(o.expired[0].topic, "t");
    ASSERT_EQ(o.n_removed, 1);
    ASSERT(!gr_cg_exists(r, "g"));
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

static gr_cg_group_stats_t stats_of(gr_cg_registry_t *r, const char *gid) {
    gr_cg_group_stats_t st = {0};
    for (int32_t i = 0; i < gr_cg_count(r); i++) {
        gr_cg_stats_at(r, i, &st);
        if (!strcmp(st.group_id, gid)) return st;
    }
    GR__FAIL("no group %s", gid);
    return st;
}

/* The /metrics accessor: members, state, generation, committed offsets and the
 * completed rebalances, which count a leader's SyncGroup that makes the group Stable
 * (Kafka's CompletedRebalances), not a join phase that ends Empty. */
static void test_stats(void) {
    gr_cg_registry_t *r = reg_new(100);
    int64_t now = 1000;
    two_members_stable(r, &now);
    gr_cg_offset_put(r, "g", "t", 1, &(gr_cg_offset_t){5, -1, "", now, -1});
    gr_cg_offset_put(r, "g", "t", 0, &(gr_cg_offset_t){7, -1, "", now, -1});
    gr_cg_offset_put(r, "simple", "t", 0, &(gr_cg_offset_t){3, -1, "", now, -1});
    ASSERT_EQ(gr_cg_count(r), 2);
    gr_cg_group_stats_t st = stats_of(r, "g");
    ASSERT_EQ(st.state, GR_CG_STABLE);
    ASSERT_EQ(st.generation, 1);
    ASSERT_EQ(st.n_members, 2);
    ASSERT_EQ(st.rebalances, 1);
    ASSERT_EQ(st.n_offsets, 2);
    st = stats_of(r, "simple");
    ASSERT_EQ(st.state, GR_CG_EMPTY);
    ASSERT_EQ(st.generation, 0);
    ASSERT_EQ(st.n_members, 0);
    ASSERT_EQ(st.rebalances, 0);
    ASSERT_EQ(st.n_offsets, 1);
    /* m2 leaves: PreparingRebalance, not counted until m1's SyncGroup makes it Stable. */
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    gr_cg_leave_member_t lm[1] = {{m2, NULL, -1}};
    ASSERT_EQ(gr_cg_leave(r, "g", lm, 1, now, &o), 0);
    st = stats_of(r, "g");
    ASSERT_EQ(st.state, GR_CG_PREPARING_REBALANCE);
    ASSERT_EQ(st.n_members, 1);
    ASSERT_EQ(st.rebalances, 1);
    int w1 = 0, w2 = 0;
    join(r, "g", (join_args_t){.member = m1}, &w1, now + 5, &o);
    st = stats_of(r, "g");
    ASSERT_EQ(st.state, GR_CG_COMPLETING_REBALANCE);
    ASSERT_EQ(st.generation, 2);
    ASSERT_EQ(st.rebalances, 1);
    gr_cg_assignment_t as[1] = {{m1, (const uint8_t *)"A", 1}};
    sync_req(r, "g", m1, 2, as, 1, &w2, now + 6, &o);
    ASSERT_EQ(answer_for(&o, &w2)->error, 0);
    st = stats_of(r, "g");
    ASSERT_EQ(st.state, GR_CG_STABLE);
    ASSERT_EQ(st.rebalances, 2);
    /* A follower's SyncGroup in a Stable group changes nothing. */
    sync_req(r, "g", m1, 2, NULL, 0, &w2, now + 7, &o);
    ASSERT_EQ(stats_of(r, "g").rebalances, 2);
    /* The last member leaves: the join phase ends Empty (generation 3), no completed rebalance. */
    lm[0] = (gr_cg_leave_member_t){m1, NULL, -1};
    ASSERT_EQ(gr_cg_leave(r, "g", lm, 1, now + 8, &o), 0);
    st = stats_of(r, "g");
    ASSERT_EQ(st.state, GR_CG_EMPTY);
    ASSERT_EQ(st.generation, 3);
    ASSERT_EQ(st.n_members, 0);
    ASSERT_EQ(st.rebalances, 2);
    gr_cg_delete(r, "simple", &o);
    ASSERT_EQ(gr_cg_count(r), 1);
    gr_cg_stats_at(r, 0, &st);
    ASSERT_STREQ(st.group_id, "g");
    gr_cg_out_free(&o);
    gr_cg_registry_free(r);
}

int main(void) {
    RUN_TEST(test_join_sync_leave);
    RUN_TEST(test_session_expiry);
    RUN_TEST(test_rebalance_timeout);
    RUN_TEST(test_static_membership);
    RUN_TEST(test_max_size_and_v3);
    RUN_TEST(test_offsets);
    RUN_TEST(test_subscribed);
    RUN_TEST(test_empty_group_retention);
    RUN_TEST(test_stats);
    return 0;
}
