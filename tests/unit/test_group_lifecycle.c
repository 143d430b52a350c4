/* Unit tests for share/group_lifecycle.c: member expiry at a given time (records
 * released, the group written again), forgetting a group that never held state or
 * configs, and topic deletion (groups forget the topic, its share state is deleted
 * from a real store in a temporary directory). The broker is a set of recording hooks. */
#include "test_storage_util.h"

#include "share/group_lifecycle.h"
#include "testutil.h"

typedef struct rec {
    char log[1024]; /* "release g/m;drop g;persist g;" in call order */
    const char *configured;
} rec_t;

static void put(rec_t *r, const char *what, const char *g, const char *m) {
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof(r->log) - n, "%s %s%s%s;", what, g, m ? "/" : "", m ? m : "");
}
static void h_release(void *ctx, const char *g, const char *m) { put(ctx, "release", g, m); }
static void h_drop(void *ctx, const char *g, const gr_uuid_t *t) { put(ctx, t ? "drop-topic" : "drop", g, NULL); }
static bool h_configs(void *ctx, const char *g) {
    const char *c = ((rec_t *)ctx)->configured;
    return c && !strcmp(c, g);
}
static void h_persist(void *ctx, const char *g) { put(ctx, "persist", g, NULL); }

static gr_uuid_t tid(int n) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)n;
    u.b[15] = 0x77;
    return u;
}

static gr_sg_broker_cfg_t bcfg(void) {
    gr_sg_broker_cfg_t b;
    memset(&b, 0, sizeof(b));
    b.session_timeout_ms = 45000, b.min_session_timeout_ms = 45000, b.max_session_timeout_ms = 60000;
    b.heartbeat_interval_ms = 5000, b.min_heartbeat_interval_ms = 5000, b.max_heartbeat_interval_ms = 15000;
    b.max_size = 200;
    return b;
}

/* A group with one member (session from now 0) and, if t, partition 0 of t initialized. */
static void add_group(gr_share_group_registry_t *reg, const char *gid, const char *member, gr_uuid_t *t) {
    int32_t p0[] = {0};
    gr_sg_topic_parts_t tp = {t ? *t : tid(0), p0, 1};
    gr_sg_member_t m = {0};
    m.member_id = (char *)member;
    m.member_epoch = 1;
    m.client_id = "c";
    m.client_host = "/127.0.0.1";
    gr_sg_group_t g = {(char *)gid, 1, 1, &m, 1, NULL, 0, {t ? &tp : NULL, t ? 1 : 0}};
    ASSERT_EQ(gr_share_group_import(reg, &g, 0, 45000), GR_ERR_NONE);
}

static void test_expire(void) {
    gr_sg_broker_cfg_t b = bcfg();
    gr_share_group_registry_t *reg = gr_share_group_registry_new(&b);
    gr_uuid_t t1 = tid(1);
    add_group(reg, "anon", "m1", NULL);
    add_group(reg, "conf", "m2", NULL);
    add_group(reg, "stateful", "m3", &t1);
    rec_t r = {.configured = "conf"};
    gr_sg_hooks_t h = {h_release, h_drop, h_configs, h_persist, &r};
    ASSERT_EQ(gr_share_group_next_deadline(reg), 45000);
    ASSERT_EQ(gr_share_groups_expire(reg, 44999, &h), 0); /* not yet */
    ASSERT_STREQ(r.log, "");
    ASSERT_EQ(gr_share_groups_expire(reg, 45000, &h), 3);
    /* each: released, then (anon only) forgotten with its share-partitions, then written */
    ASSERT(strstr(r.log, "release anon/m1;drop anon;persist anon;") != NULL);
    ASSERT(strstr(r.log, "release conf/m2;persist conf;") != NULL);
    ASSERT(strstr(r.log, "release stateful/m3;persist stateful;") != NULL);
    ASSERT(!gr_share_group_exists(reg, "anon"));
    ASSERT(gr_share_group_exists(reg, "conf"));     /* it has configs */
    ASSERT(gr_share_group_exists(reg, "stateful")); /* it held state: stays, as in Kafka */
    ASSERT_EQ(gr_share_group_next_deadline(reg), INT64_MAX);
    /* forgetting again is a no-op: gone, or not unused */
    ASSERT(!gr_share_group_forget_unused(reg, "anon", &h));
    ASSERT(!gr_share_group_forget_unused(reg, "stateful", &h));
    r.configured = NULL;
    ASSERT(gr_share_group_forget_unused(reg, "conf", &h)); /* its configs were removed */
    gr_share_group_registry_free(reg);
}

static void test_topic_deleted(void) {
    char root[64] = "/tmp/gr_sglife_XXXXXX", dir[128];
    ASSERT(mkdtemp(root) != NULL);
    snprintf(dir, sizeof(dir), "%s/%s", root, GR_SSTORE_DIR_NAME);
    gr_sstore_options_t o;
    gr_sstore_options_default(&o); /* no flusher: no callbacks are passed */
    gr_sstore_t *ss = NULL;
    char es[256] = "";
    ASSERT_EQ(gr_sstore_open(dir, &o, &ss, es, sizeof(es)), GR_ERR_NONE);
    gr_sg_broker_cfg_t b = bcfg();
    gr_share_group_registry_t *reg = gr_share_group_registry_new(&b);
    gr_uuid_t t1 = tid(1), t2 = tid(2);
    add_group(reg, "a", "m1", &t1);
    add_group(reg, "b", "m2", &t2);
    gr_sstore_key_t ka = gr_sstore_key("a", t1, 0), kb = gr_sstore_key("b", t2, 0);
    ASSERT_EQ(gr_sstore_initialize(ss, &ka, 1, 10, NULL, NULL), GR_ERR_NONE);
    ASSERT_EQ(gr_sstore_initialize(ss, &kb, 1, 20, NULL, NULL), GR_ERR_NONE);
    rec_t r = {0};
    gr_sg_hooks_t h = {h_release, h_drop, h_configs, h_persist, &r};
    size_t n = 99;
    ASSERT_EQ(gr_share_groups_topic_deleted(reg, ss, &t1, &h, &n), GR_ERR_NONE);
    ASSERT_EQ(n, 1);
    /* every group drops its share-partitions of the topic; only a changes and is written */
    ASSERT_STREQ(r.log, "drop-topic a;persist a;drop-topic b;");
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char e[64];
    ASSERT_EQ(gr_share_group_describe(reg, "a", false, &g, &st, e, sizeof(e)), GR_ERR_NONE);
    ASSERT_EQ(g->initialized.n_topics, 0);
    gr_sstore_state_t s;
    ASSERT_EQ(gr_sstore_read(ss, &ka, &s), GR_ERR__NOENT);
    ASSERT_EQ(gr_sstore_read(ss, &kb, &s), GR_ERR_NONE); /* other topics keep their state */
    ASSERT_EQ(s.start_offset, 20);
    gr_share_group_registry_free(reg);
    gr_sstore_close(ss);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_expire);
    RUN_TEST(test_topic_deleted);
    return 0;
}
