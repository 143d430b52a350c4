/* Unit tests of the KIP-848 consumer-protocol coordinator (src/cgroup/consumer.h): the
 * uniform and range assignors, the reconciliation state machine (revocation before
 * assignment, epochs), fencing, static members, timeouts, regexes, the size limit,
 * offset checks and the store records, with the epochs and errors Kafka 4.4.0 answers
 * (tests/integration/cgroup_consumer_differential.py checks the same against it). */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/consumer.h"
#include "cgroup/records.h"
#include "testutil.h"

static const char *TOPICS[3] = {"ta", "tb", "tc"};
static const int32_t NPART[3] = {4, 2, 3};

static gr_uuid_t tid(int i) {
    gr_uuid_t u;
    memset(&u, 0, sizeof(u));
    u.b[0] = (uint8_t)(i + 1);
    return u;
}

static bool by_name(void *ctx, const char *name, gr_uuid_t *id, int32_t *n) {
    (void)ctx;
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, TOPICS[i])) {
            *id = tid(i);
            *n = NPART[i];
            return true;
        }
    return false;
}

static void each(void *ctx, void (*fn)(void *arg, const char *name), void *arg) {
    (void)ctx;
    for (int i = 0; i < 3; i++) fn(arg, TOPICS[i]);
}

static gr_cgc_topics_t VIEW = {by_name, NULL, each, NULL};
static gr_cgc_cfg_t CFG = {45000, 5000, 3, 1000, {"uniform", "range"}, 2};

typedef struct hb {
    const char *member;
    int32_t epoch;
    const char *const *topics; /* NULL: unchanged */
    int32_t n_topics;
    const char *regex, *assignor, *instance;
    const int32_t *owned; /* partitions of ta (NULL: not given) */
    int32_t n_owned;
} hb_t;

static gr_cgc_hb_res_t R;

/* One heartbeat to group "g"; the answer in R; returns its error. */
static int16_t beat(gr_cg_registry_t *reg, hb_t h, int64_t now) {
    gr_cgc_tparts_t tp = {tid(0), h.owned, h.n_owned};
    gr_cgc_hb_req_t r = {.group_id = "g",
                         .member_id = h.member,
                         .member_epoch = h.epoch,
                         .instance_id = h.instance,
                         .rebalance_timeout_ms = h.epoch == 0 ? 20000 : -1,
                         .topics = h.topics,
                         .n_topics = h.topics ? h.n_topics : -1,
                         .regex = h.regex,
                         .server_assignor = h.assignor,
                         .owned = h.epoch == 0 ? &tp
                                  : h.owned    ? &tp
                                               : NULL,
                         .n_owned = h.epoch == 0 ? 0
                                    : h.owned    ? 1
                                                 : -1,
                         .client_id = "cli",
                         .client_host = "/127.0.0.1",
                         .version = 1};
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    gr_cgc_hb_res_free(&R);
    gr_cgc_heartbeat(reg, &r, &CFG, &VIEW, now, &R, &out);
    gr_cg_out_free(&out);
    return R.error;
}

/* Partitions of ta in the last answer's assignment, as a bit mask (-1: no assignment sent). */
static int32_t got(void) {
    if (!R.has_assignment) return -1;
    int32_t mask = 0;
    for (int32_t t = 0; t < R.assignment.n_topics; t++)
        for (int32_t i = 0; i < R.assignment.topics[t].n; i++)
            mask |= 1 << (R.assignment.topics[t].partitions[i] + 8 * (R.assignment.topics[t].topic_id.b[0] - 1));
    return mask;
}

static int32_t count_bits(int32_t m) { return m < 0 ? -1 : __builtin_popcount((unsigned)m); }

static gr_cg_registry_t *reg_new(void) {
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    return gr_cg_registry_new(&c);
}

static void describe(gr_cg_registry_t *reg, gr_cgc_group_view_t *v) {
    char msg[128];
    ASSERT_EQ(gr_cgc_describe(reg, "g", "uniform", v, msg, sizeof(msg)), 0);
}

static const char *const TA[] = {"ta"};
static const char *const TA_TB[] = {"ta", "tb"};

static void test_join_split_and_revoke(void) {
    gr_cg_registry_t *reg = reg_new();
    /* The first member of a new group: epoch 2 (subscription + topics hash), everything. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 0, .topics = TA, .n_topics = 1}, 0), 0);
    ASSERT_EQ(R.member_epoch, 2);
    ASSERT_EQ(got(), 0xf);
    ASSERT_EQ(R.heartbeat_interval_ms, 5000);
    /* A second member within the assignment interval: epoch 2, nothing, group Assigning. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = 0, .topics = TA, .n_topics = 1}, 500), 0);
    ASSERT_EQ(R.member_epoch, 2);
    ASSERT_EQ(got(), 0);
    gr_cgc_group_view_t v;
    describe(reg, &v);
    ASSERT_EQ(v.state, GR_CG_ASSIGNING);
    ASSERT_EQ(v.group_epoch, 3);
    ASSERT_EQ(v.assignment_epoch, 2);
    gr_cgc_view_free(&v);
    /* After the interval m1's heartbeat computes the target: m1 must first revoke two. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 2}, 1500), 0);
    ASSERT_EQ(R.member_epoch, 2);
    int32_t kept = got();
    ASSERT_EQ(count_bits(kept), 2);
    /* m2 is at epoch 3 but gets nothing while m1 still holds its partitions. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = 2}, 1600), 0);
    ASSERT_EQ(R.member_epoch, 3);
    ASSERT_EQ(got(), -1);
    /* m1 still owning all four: no progress. */
    int32_t all[] = {0, 1, 2, 3}, k[2], n = 0;
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 2, .owned = all, .n_owned = 4}, 1700), 0);
    ASSERT_EQ(R.member_epoch, 2);
    for (int i = 0; i < 4; i++)
        if (kept & (1 << i)) k[n++] = i;
    /* m1 reports only what it kept: epoch 3, no assignment sent (it did not change). */
    gr_cgc_tparts_t tp = {tid(0), k, 2};
    (void)tp;
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 2, .owned = k, .n_owned = 2}, 1800), 0);
    ASSERT_EQ(R.member_epoch, 3);
    ASSERT_EQ(got(), -1);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = 3}, 1900), 0);
    ASSERT_EQ(got(), 0xf & ~kept);
    describe(reg, &v);
    ASSERT_EQ(v.state, GR_CG_STABLE);
    gr_cgc_view_free(&v);
    /* What /metrics reports: the members, the group epoch, two target assignments. */
    gr_cg_group_stats_t st;
    gr_cg_stats_at(reg, 0, &st);
    ASSERT_EQ(st.n_members, 2);
    ASSERT_EQ(st.generation, 3);
    ASSERT_EQ(st.rebalances, 2);
    ASSERT_EQ(st.state, GR_CG_STABLE);
    /* Epoch checks: greater fenced, the previous one with owned partitions a subset accepted. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 4}, 2000), GR_ERR_FENCED_MEMBER_EPOCH);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 2, .owned = k, .n_owned = 1}, 2000), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 2, .owned = all, .n_owned = 4}, 2000),
              GR_ERR_FENCED_MEMBER_EPOCH);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m9", .epoch = 3}, 2000), GR_ERR_UNKNOWN_MEMBER_ID);
    /* Leaving: -1, then unknown. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = -1}, 2100), 0);
    ASSERT_EQ(R.member_epoch, -1);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = -1}, 2100), GR_ERR_UNKNOWN_MEMBER_ID);
    gr_cgc_hb_res_free(&R);
    gr_cg_registry_free(reg);
}

static void test_request_checks(void) {
    gr_cg_registry_t *reg = reg_new();
    ASSERT_EQ(beat(reg, (hb_t){.member = "", .epoch = 0, .topics = TA, .n_topics = 1}, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(R.errmsg, "MemberId can't be empty.");
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0}, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = -3}, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = -2}, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0, .topics = TA, .n_topics = 1, .assignor = "sticky"}, 0),
              GR_ERR_UNSUPPORTED_ASSIGNOR);
    ASSERT_STREQ(R.errmsg, "ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0, .regex = "(a"}, 0), GR_ERR_INVALID_REGULAR_EXPRESSION);
    ASSERT_STREQ(R.errmsg, "SubscribedTopicRegex `(a` is not a valid regular expression: missing closing ).");
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 3}, 0), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(R.errmsg, "Consumer group g not found.");
    ASSERT(!gr_cg_type(reg, "g")); /* refused requests create nothing */
    /* group.consumer.max.size (3 here). */
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(
            beat(reg, (hb_t){.member = (const char *[]){"a", "b", "c"}[i], .epoch = 0, .topics = TA, .n_topics = 1}, 0),
            0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "d", .epoch = 0, .topics = TA, .n_topics = 1}, 0),
              GR_ERR_GROUP_MAX_SIZE_REACHED);
    gr_cgc_hb_res_free(&R);
    gr_cg_registry_free(reg);
}

static void test_regex(void) {
    char why[128];
    ASSERT(gr_cgc_regex_valid("t[a-c]+", why, sizeof(why)));
    ASSERT(!gr_cgc_regex_valid("(a)\\1", why, sizeof(why)));
    ASSERT_STREQ(why, "invalid escape sequence");
    ASSERT(!gr_cgc_regex_valid("(?=a)", why, sizeof(why)));
    ASSERT(!gr_cgc_regex_valid("(?<!a)b", why, sizeof(why)));
    ASSERT_STREQ(why, "invalid named capture");
    ASSERT(!gr_cgc_regex_valid("a++", why, sizeof(why)));
    ASSERT_STREQ(why, "invalid nested repetition operator");
    ASSERT(gr_cgc_regex_valid("[+]+", why, sizeof(why)));
    gr_cg_registry_t *reg = reg_new();
    /* Resolved from the next heartbeat on (Kafka: in the background): epoch 1, nothing. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0, .regex = "t[ab]"}, 0), 0);
    ASSERT_EQ(R.member_epoch, 1);
    ASSERT_EQ(got(), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 1}, 2000), 0);
    ASSERT_EQ(R.member_epoch, 2);
    ASSERT_EQ(got(), 0x30f); /* ta 0-3, tb 0-1; not tc */
    gr_cgc_hb_res_free(&R);
    gr_cg_registry_free(reg);
}

static void test_range_and_uniform_balance(void) {
    gr_cg_registry_t *reg = reg_new();
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 0, .topics = TA_TB, .n_topics = 2, .assignor = "range"}, 0), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = 0, .topics = TA_TB, .n_topics = 2, .assignor = "range"}, 2000),
              0);
    gr_cgc_group_view_t v;
    describe(reg, &v);
    ASSERT_STREQ(v.assignor, "range");
    /* Per topic in member-id order: m1 ta 0-1 and tb 0, m2 ta 2-3 and tb 1. */
    ASSERT_EQ(v.members[0].target.n_topics, 2);
    ASSERT_EQ(v.members[0].target.topics[0].n, 2);
    ASSERT_EQ(v.members[0].target.topics[0].partitions[1], 1);
    ASSERT_EQ(v.members[1].target.topics[0].partitions[0], 2);
    ASSERT_EQ(v.members[1].target.topics[1].partitions[0], 1);
    gr_cgc_view_free(&v);
    gr_cg_registry_free(reg);
    /* Uniform with different subscriptions: ta only vs ta+tb (6 partitions) is 3/3. */
    reg = reg_new();
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 0, .topics = TA, .n_topics = 1}, 0), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = 0, .topics = TA_TB, .n_topics = 2}, 2000), 0);
    describe(reg, &v);
    ASSERT_STREQ(v.assignor, "uniform");
    int32_t n1 = 0, n2 = 0;
    for (int32_t t = 0; t < v.members[0].target.n_topics; t++) n1 += v.members[0].target.topics[t].n;
    for (int32_t t = 0; t < v.members[1].target.n_topics; t++) n2 += v.members[1].target.topics[t].n;
    ASSERT_EQ(n1, 3);
    ASSERT_EQ(n2, 3);
    gr_cgc_view_free(&v);
    gr_cgc_hb_res_free(&R);
    gr_cg_registry_free(reg);
}

static void test_static_and_timeouts(void) {
    gr_cg_registry_t *reg = reg_new();
    ASSERT_EQ(beat(reg, (hb_t){.member = "s1", .epoch = 0, .topics = TA, .n_topics = 1, .instance = "i"}, 0), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "s2", .epoch = 0, .topics = TA, .n_topics = 1, .instance = "i"}, 0),
              GR_ERR_UNRELEASED_INSTANCE_ID);
    ASSERT_EQ(beat(reg, (hb_t){.member = "s2", .epoch = -2, .instance = "i"}, 0), GR_ERR_FENCED_INSTANCE_ID);
    ASSERT_EQ(beat(reg, (hb_t){.member = "s1", .epoch = -2, .instance = "i"}, 0), 0);
    ASSERT_EQ(R.member_epoch, -2);
    /* Back under a new id: same epoch, same partitions, no rebalance. */
    ASSERT_EQ(beat(reg, (hb_t){.member = "s2", .epoch = 0, .topics = TA, .n_topics = 1, .instance = "i"}, 10), 0);
    ASSERT_EQ(R.member_epoch, 2);
    ASSERT_EQ(got(), 0xf);
    ASSERT_EQ(beat(reg, (hb_t){.member = "s1", .epoch = 2}, 10), GR_ERR_UNKNOWN_MEMBER_ID);
    /* A second member; s2 never revokes: fenced after its rebalance timeout (20 s). */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0, .topics = TA, .n_topics = 1}, 2000), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "s2", .epoch = 2}, 3000), 0);
    ASSERT_EQ(count_bits(got()), 2);
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    ASSERT(gr_cg_next_deadline(reg) <= 3000 + 20000);
    gr_cg_tick(reg, 23001, &out);
    ASSERT_EQ(out.n_gone, 1);
    ASSERT_STREQ(out.gone[0].member_id, "s2");
    gr_cg_out_free(&out);
    /* m's session (45 s from its join at 2 s) expires next: the group is Empty. */
    gr_cg_out_init(&out);
    gr_cg_tick(reg, 47001, &out);
    gr_cg_out_free(&out);
    gr_cgc_group_view_t v;
    describe(reg, &v);
    ASSERT_EQ(v.state, GR_CG_EMPTY);
    ASSERT_EQ(v.group_epoch, v.assignment_epoch);
    gr_cgc_view_free(&v);
    gr_cgc_hb_res_free(&R);
    gr_cg_registry_free(reg);
}

static void test_offsets_and_namespace(void) {
    gr_cg_registry_t *reg = reg_new();
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0, .topics = TA, .n_topics = 1}, 0), 0);
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "m", 2, 9), 0);
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "m", 1, 9), 0); /* older epochs: accepted as 4.4.0 */
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "m", 3, 9), GR_ERR_STALE_MEMBER_EPOCH);
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "m", 2, 8), GR_ERR_UNSUPPORTED_VERSION);
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "x", 2, 9), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "", -1, 9), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(gr_cgc_fetch_check(reg, "g", NULL, -1), 0);
    ASSERT_EQ(gr_cgc_fetch_check(reg, "g", "m", 1), GR_ERR_STALE_MEMBER_EPOCH);
    ASSERT_EQ(gr_cg_type(reg, "g"), GR_CG_TYPE_CONSUMER);
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    ASSERT(!gr_cgc_downgrade_if_empty(reg, "g", &out)); /* not empty */
    gr_cg_leave_member_t lm = {"m", NULL, 0};
    gr_cgc_classic_leave(reg, "g", &lm, 1, 0, &out);
    ASSERT_EQ(lm.error, 0);
    ASSERT_EQ(gr_cgc_commit_check(reg, "g", "", -1, 9), 0); /* admin commit into the empty group */
    ASSERT(gr_cgc_downgrade_if_empty(reg, "g", &out));
    ASSERT_EQ(gr_cg_type(reg, "g"), GR_CG_TYPE_CLASSIC);
    gr_cg_out_free(&out);
    /* The empty classic group becomes a consumer group again on a join (upgrade). */
    ASSERT_EQ(beat(reg, (hb_t){.member = "m", .epoch = 0, .topics = TA, .n_topics = 1}, 0), 0);
    ASSERT_EQ(gr_cg_type(reg, "g"), GR_CG_TYPE_CONSUMER);
    gr_cgc_hb_res_free(&R);
    gr_cg_registry_free(reg);
}

typedef struct store {
    gr_wbuf_t k[8], v[8];
    int n;
} store_t;

static void put_member(void *arg, const gr_cgc_member_rec_t *m) {
    store_t *s = arg;
    gr_wbuf_init(&s->k[s->n]);
    gr_wbuf_init(&s->v[s->n]);
    gr_cg_rec_cmember_key(&s->k[s->n], "g", m->member_id);
    gr_cg_rec_cmember_value(&s->v[s->n], m);
    s->n++;
}

/* Export into records, decode them, restore into a new registry: the same group. */
static void test_records_round_trip(void) {
    gr_cg_registry_t *reg = reg_new();
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 0, .topics = TA, .n_topics = 1, .instance = "i1"}, 0), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m2", .epoch = 0, .topics = TA_TB, .n_topics = 2, .regex = "tc"}, 2000), 0);
    ASSERT_EQ(beat(reg, (hb_t){.member = "m1", .epoch = 2}, 2100), 0); /* m1 now revoking */
    store_t s = {.n = 1};
    int32_t ge, ae;
    uint64_t h;
    ASSERT(gr_cgc_export(reg, "g", &ge, &ae, &h, put_member, &s));
    gr_wbuf_init(&s.k[0]);
    gr_wbuf_init(&s.v[0]);
    gr_cg_rec_cgroup_key(&s.k[0], "g");
    gr_cg_rec_cgroup_value(&s.v[0], ge, ae, h);
    gr_cg_registry_t *copy = reg_new();
    for (int i = 0; i < s.n; i++) {
        gr_arena_t a;
        gr_arena_init(&a);
        gr_cg_rec_t r;
        const char *why = NULL;
        ASSERT_EQ(gr_cg_rec_decode(s.k[i].mem, s.k[i].len, s.v[i].mem, s.v[i].len, &a, &r, &why), 0);
        if (r.type == GR_CG_REC_CGROUP)
            gr_cgc_restore_group(copy, r.group_id, r.generation, r.assignment_epoch, r.topics_hash, 3000);
        else
            gr_cgc_restore_member(copy, r.group_id, &r.member, 45000, 3000);
        gr_arena_free(&a);
        gr_wbuf_free(&s.k[i]);
        gr_wbuf_free(&s.v[i]);
    }
    gr_cgc_group_view_t v1, v2;
    describe(reg, &v1);
    describe(copy, &v2);
    ASSERT_EQ(v1.group_epoch, v2.group_epoch);
    ASSERT_EQ(v1.assignment_epoch, v2.assignment_epoch);
    ASSERT_EQ(v1.state, v2.state);
    ASSERT_EQ(v1.n_members, v2.n_members);
    for (int32_t i = 0; i < v1.n_members; i++) {
        const gr_cgc_member_view_t *a = &v1.members[i], *b = NULL;
        for (int32_t j = 0; j < v2.n_members; j++)
            if (!strcmp(v2.members[j].member_id, a->member_id)) b = &v2.members[j];
        ASSERT(b != NULL);
        ASSERT_EQ(a->member_epoch, b->member_epoch);
        ASSERT_EQ(a->assigned.n_topics, b->assigned.n_topics);
        ASSERT_EQ(a->target.n_topics, b->target.n_topics);
        ASSERT_EQ(a->n_topics, b->n_topics);
    }
    gr_cgc_view_free(&v1);
    gr_cgc_view_free(&v2);
    /* The restored copy goes on: m1 acknowledges its revocation. */
    gr_cg_registry_free(reg);
    gr_cg_registry_free(copy);
    gr_cgc_hb_res_free(&R);
    /* Bad records are refused with a reason. */
    gr_arena_t a;
    gr_arena_init(&a);
    gr_cg_rec_t r;
    const char *why = NULL;
    const uint8_t k[] = {5, 'g', 0, 'm'}, v[] = {0, 0, 0};
    ASSERT_EQ(gr_cg_rec_decode(k, sizeof(k), v, sizeof(v), &a, &r, &why), GR_ERR__MALFORMED);
    ASSERT(why != NULL);
    gr_arena_free(&a);
}

int main(void) {
    RUN_TEST(test_join_split_and_revoke);
    RUN_TEST(test_request_checks);
    RUN_TEST(test_regex);
    RUN_TEST(test_range_and_uniform_balance);
    RUN_TEST(test_static_and_timeouts);
    RUN_TEST(test_offsets_and_namespace);
    RUN_TEST(test_records_round_trip);
    return 0;
}
