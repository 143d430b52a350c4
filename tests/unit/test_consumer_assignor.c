/* The group consumer's pure parts (src/client/consumer_assignor.c): topic-partition lists,
 * the ConsumerProtocol Subscription / Assignment encodings (bytes checked against the
 * layout Kafka's clients write), the range and roundrobin assignors, reconciliation. */
#include "client/consumer_assignor.h"

#include "testutil.h"

static gr__tplist_t tpl(const char *spec) { /* "a:0 a:1 b:2" */
    gr__tplist_t l = {0};
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *save, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(tok, ':');
        gr__tplist_add(&l, tok, (size_t)(colon - tok), atoi(colon + 1));
    }
    gr__tplist_sort(&l);
    return l;
}

static char *str(const gr__tplist_t *l) {
    static char out[512];
    out[0] = 0;
    for (size_t i = 0; i < l->n; i++)
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s:%d", i ? " " : "", l->v[i].topic,
                 (int)l->v[i].partition);
    return out;
}

static void test_list_sort_dedup(void) {
    gr__tplist_t l = tpl("b:1 a:2 a:0 b:1 a:10");
    ASSERT_STREQ(str(&l), "a:0 a:2 a:10 b:1");
    ASSERT(gr__tplist_has(&l, "a", 10));
    ASSERT(!gr__tplist_has(&l, "b", 0));
    gr__tplist_free(&l);
}

static void test_subscription_bytes(void) {
    gr__tplist_t owned = tpl("t:1");
    const char *topics[] = {"t"};
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr__cp_sub_encode(&wb, topics, 1, &owned, 5);
    static const uint8_t want[] = {0,    3,                                                   /* version */
                                   0,    0,    0,    1,    0, 1, 't',                         /* topics */
                                   0xff, 0xff, 0xff, 0xff,                                    /* user data: null */
                                   0,    0,    0,    1,    0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 1, /* owned t:[1] */
                                   0,    0,    0,    5,                                       /* generation */
                                   0xff, 0xff};                                               /* rack: null */
    ASSERT_EQ(wb.len, sizeof(want));
    ASSERT_MEMEQ(wb.mem, want, sizeof(want));
    gr__cp_sub_t s;
    ASSERT_EQ(gr__cp_sub_decode(wb.mem, wb.len, &s), GR_ERR_NONE);
    ASSERT_EQ(s.version, 3);
    ASSERT_EQ(s.n_topics, 1);
    ASSERT_STREQ(s.topics[0], "t");
    ASSERT_STREQ(str(&s.owned), "t:1");
    ASSERT_EQ(s.generation, 5);
    gr__cp_sub_free(&s);
    /* Every truncation is refused, never read past the end. */
    for (size_t n = 0; n < wb.len - 6; n++) {
        ASSERT_EQ(gr__cp_sub_decode(wb.mem, n, &s), GR_ERR__MALFORMED);
        ASSERT_EQ(s.n_topics, 0);
    }
    gr_wbuf_free(&wb);
    gr__tplist_free(&owned);
}

static void test_subscription_v0_and_garbage(void) {
    /* version 0 (librdkafka's older clients): topics and user data only */
    static const uint8_t v0[] = {0, 0, 0, 0, 0, 2, 0, 1, 'a', 0, 2, 'b', 'c', 0, 0, 0, 2, 'x', 'y'};
    gr__cp_sub_t s;
    ASSERT_EQ(gr__cp_sub_decode(v0, sizeof(v0), &s), GR_ERR_NONE);
    ASSERT_EQ(s.n_topics, 2);
    ASSERT_STREQ(s.topics[1], "bc");
    ASSERT_EQ(s.owned.n, 0);
    ASSERT_EQ(s.generation, -1);
    gr__cp_sub_free(&s);
    static const uint8_t huge[] = {0, 1, 0x7f, 0xff, 0xff, 0xff, 0, 1, 'a'}; /* count larger than the bytes */
    ASSERT_EQ(gr__cp_sub_decode(huge, sizeof(huge), &s), GR_ERR__MALFORMED);
    static const uint8_t nul[] = {0, 0, 0, 0, 0, 1, 0, 2, 'a', 0, 0xff, 0xff, 0xff, 0xff}; /* NUL in a topic */
    ASSERT_EQ(gr__cp_sub_decode(nul, sizeof(nul), &s), GR_ERR__MALFORMED);
    static const uint8_t neg[] = {0xff, 0xff, 0, 0, 0, 0}; /* negative version */
    ASSERT_EQ(gr__cp_sub_decode(neg, sizeof(neg), &s), GR_ERR__MALFORMED);
}

static void test_assignment_roundtrip(void) {
    gr__tplist_t l = tpl("a:0 a:3 b:1");
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr__cp_assignment_encode(&wb, &l);
    gr__tplist_t back = {0};
    ASSERT_EQ(gr__cp_assignment_decode(wb.mem, wb.len, &back), GR_ERR_NONE);
    ASSERT_STREQ(str(&back), "a:0 a:3 b:1");
    gr__tplist_free(&back);
    ASSERT_EQ(gr__cp_assignment_decode(NULL, 0, &back), GR_ERR_NONE); /* nothing assigned */
    ASSERT_EQ(back.n, 0);
    ASSERT_EQ(gr__cp_assignment_decode(wb.mem, wb.len - 5, &back), GR_ERR__MALFORMED);
    ASSERT_EQ(back.n, 0);
    gr__tplist_free(&back); /* the list stays the caller's, entries or not */
    gr_wbuf_free(&wb);
    gr__tplist_free(&l);
}

static char *t_all[] = {"t1", "t2"}, *t_one[] = {"t1"};

static void run(const char *assignor, gr__cg_member_t *m, size_t n, const gr__cg_topic_t *t, size_t nt) {
    ASSERT(gr__assign(assignor, m, n, t, nt));
}

static void test_range(void) {
    /* Kafka's RangeAssignor: per topic, members in id order take contiguous runs, the first
     * (partitions % members) one more. */
    gr__cg_member_t m[] = {{"m-b", NULL, t_all, 2, {0}, NULL, -1},
                           {"m-a", NULL, t_all, 2, {0}, NULL, -1},
                           {"m-c", NULL, t_one, 1, {0}, NULL, -1}};
    gr__cg_topic_t t[] = {{"t1", 5}, {"t2", 3}};
    run("range", m, 3, t, 2);
    ASSERT_STREQ(str(&m[1].out), "t1:0 t1:1 t2:0 t2:1"); /* m-a */
    ASSERT_STREQ(str(&m[0].out), "t1:2 t1:3 t2:2");      /* m-b */
    ASSERT_STREQ(str(&m[2].out), "t1:4");                /* m-c: t1 only */
    for (int i = 0; i < 3; i++) gr__tplist_free(&m[i].out);
}

static void test_range_static_members_first_by_instance(void) {
    gr__cg_member_t m[] = {{"m-1", "zz", t_one, 1, {0}, NULL, -1}, {"m-2", "aa", t_one, 1, {0}, NULL, -1}};
    gr__cg_topic_t t[] = {{"t1", 4}};
    run("range", m, 2, t, 1);
    ASSERT_STREQ(str(&m[1].out), "t1:0 t1:1"); /* instance "aa" sorts first */
    ASSERT_STREQ(str(&m[0].out), "t1:2 t1:3");
    for (int i = 0; i < 2; i++) gr__tplist_free(&m[i].out);
}

static void test_roundrobin(void) {
    gr__cg_member_t m[] = {{"m-a", NULL, t_all, 2, {0}, NULL, -1}, {"m-b", NULL, t_one, 1, {0}, NULL, -1}};
    gr__cg_topic_t t[] = {{"t2", 2}, {"t1", 3}};
    run("roundrobin", m, 2, t, 2);
    /* t1:0 a, t1:1 b, t1:2 a, t2:0 (b skips: not subscribed) a... */
    ASSERT_STREQ(str(&m[0].out), "t1:0 t1:2 t2:0 t2:1");
    ASSERT_STREQ(str(&m[1].out), "t1:1");
    for (int i = 0; i < 2; i++) gr__tplist_free(&m[i].out);
    ASSERT(!gr__assign("sticky", m, 2, t, 2));
    ASSERT(gr__assignor_known("range") && gr__assignor_known("roundrobin") && !gr__assignor_known("x"));
}

static void test_unknown_topic_and_no_members(void) {
    gr__cg_member_t m[] = {{"m-a", NULL, t_all, 2, {0}, NULL, -1}};
    gr__cg_topic_t t[] = {{"t1", 0}, {"t2", 2}}; /* t1 does not exist (0 partitions) */
    run("range", m, 1, t, 2);
    ASSERT_STREQ(str(&m[0].out), "t2:0 t2:1");
    gr__tplist_free(&m[0].out);
    run("roundrobin", NULL, 0, t, 2);
}

static void test_duplicate_topics(void) { /* found by fuzz_consumer_protocol */
    gr__cg_member_t m[] = {{"m-a", NULL, t_one, 1, {0}, NULL, -1}, {"m-b", NULL, t_one, 1, {0}, NULL, -1}};
    gr__cg_topic_t t[] = {{"t1", 2}, {"t1", 2}};
    for (int k = 0; k < 2; k++) {
        run(k ? "range" : "roundrobin", m, 2, t, 2);
        ASSERT_STREQ(str(&m[0].out), "t1:0");
        ASSERT_STREQ(str(&m[1].out), "t1:1");
        gr__tplist_free(&m[0].out);
        gr__tplist_free(&m[1].out);
    }
}

static void test_cooperative_sticky(void) {
    gr__cg_topic_t t[] = {{"t1", 4}};
    /* no owners: dealt to the least loaded */
    gr__cg_member_t m[] = {{"m-a", NULL, t_one, 1, {0}, NULL, -1}, {"m-b", NULL, t_one, 1, {0}, NULL, -1}};
    run("cooperative-sticky", m, 2, t, 1);
    ASSERT_STREQ(str(&m[0].out), "t1:0 t1:2");
    ASSERT_STREQ(str(&m[1].out), "t1:1 t1:3");
    gr__tplist_free(&m[0].out);
    gr__tplist_free(&m[1].out);
    /* a owns everything, b joins: a keeps its share, the rest is held back this round */
    gr__tplist_t all = tpl("t1:0 t1:1 t1:2 t1:3"), kept = tpl("t1:0 t1:1"), none = {0};
    m[0].owned = &all, m[0].generation = 1, m[1].owned = &none;
    run("cooperative-sticky", m, 2, t, 1);
    ASSERT_STREQ(str(&m[0].out), "t1:0 t1:1");
    ASSERT_EQ(m[1].out.n, 0);
    gr__tplist_free(&m[0].out);
    /* the next round, after a revoked 2 and 3: b gets them, a keeps its own */
    m[0].owned = &kept, m[0].generation = 2;
    run("cooperative-sticky", m, 2, t, 1);
    ASSERT_STREQ(str(&m[0].out), "t1:0 t1:1");
    ASSERT_STREQ(str(&m[1].out), "t1:2 t1:3");
    gr__tplist_free(&m[0].out);
    gr__tplist_free(&m[1].out);
    /* two claims of t1:0: the higher generation keeps it */
    gr__tplist_t b_own = tpl("t1:0");
    m[0].owned = &all, m[0].generation = 1, m[1].owned = &b_own, m[1].generation = 3;
    run("cooperative-sticky", m, 2, t, 1);
    ASSERT_STREQ(str(&m[1].out), "t1:0");
    ASSERT_STREQ(str(&m[0].out), "t1:1 t1:2");
    gr__tplist_free(&m[0].out);
    gr__tplist_free(&m[1].out);
    gr__tplist_free(&all);
    gr__tplist_free(&kept);
    gr__tplist_free(&b_own);
}

static void test_diff(void) {
    gr__tplist_t owned = tpl("a:0 a:1 b:0"), target = tpl("a:1 b:0 b:1 c:2");
    gr__tplist_t revoked = {0}, added = {0};
    gr__tplist_diff(&owned, &target, &revoked, &added);
    ASSERT_STREQ(str(&revoked), "a:0");
    ASSERT_STREQ(str(&added), "b:1 c:2");
    gr__tplist_free(&revoked);
    gr__tplist_free(&added);
    gr__tplist_t none = {0};
    gr__tplist_diff(&owned, &none, &revoked, &added);
    ASSERT_STREQ(str(&revoked), "a:0 a:1 b:0");
    ASSERT_EQ(added.n, 0);
    gr__tplist_free(&revoked);
    gr__tplist_free(&owned);
    gr__tplist_free(&target);
}

int main(void) {
    RUN_TEST(test_list_sort_dedup);
    RUN_TEST(test_subscription_bytes);
    RUN_TEST(test_subscription_v0_and_garbage);
    RUN_TEST(test_assignment_roundtrip);
    RUN_TEST(test_range);
    RUN_TEST(test_range_static_members_first_by_instance);
    RUN_TEST(test_roundrobin);
    RUN_TEST(test_unknown_topic_and_no_members);
    RUN_TEST(test_duplicate_topics);
    RUN_TEST(test_cooperative_sticky);
    RUN_TEST(test_diff);
    return 0;
}
