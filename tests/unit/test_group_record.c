/* Unit tests for share/group_record.c: a share group and its configs -> a group store
 * record -> back, field by field; a configs-only record. */
#include "share/group_record.h"

#include "testutil.h"

static gr_uuid_t tid(int i) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)i;
    u.b[15] = 0x77;
    return u;
}

static void same_asg(const gr_sg_assignment_t *a, const gr_sg_assignment_t *b) {
    ASSERT_EQ(a->n_topics, b->n_topics);
    for (int32_t i = 0; i < a->n_topics; i++) {
        ASSERT(gr_uuid_eq(&a->topics[i].topic_id, &b->topics[i].topic_id));
        ASSERT_EQ(a->topics[i].n_partitions, b->topics[i].n_partitions);
        for (int32_t j = 0; j < a->topics[i].n_partitions; j++)
            ASSERT_EQ(a->topics[i].partitions[j], b->topics[i].partitions[j]);
    }
}

static void test_roundtrip(void) {
    int32_t p01[] = {0, 1}, p2[] = {2}, p012[] = {0, 1, 2};
    gr_sg_topic_parts_t a1[] = {{tid(1), p01, 2}}, t1[] = {{tid(1), p2, 1}}, init[] = {{tid(1), p012, 3}};
    char *subs[] = {"orders"};
    gr_sg_member_t m[2] = {
        {"m-1", 4, 3, "c1", "/10.0.0.1", "rack-a", subs, 1, {a1, 1}, {a1, 1}},
        {"m-2", 5, 4, "c2", "/10.0.0.2", NULL, subs, 1, {NULL, 0}, {t1, 1}},
    };
    gr_sg_topic_meta_t topics[] = {{"orders", tid(1), 3}};
    gr_sg_group_t g = {"grp", 9, 8, m, 2, topics, 1, {init, 1}};
    gr_props_t cf;
    gr_props_init(&cf);
    gr_props_set(&cf, "share.record.lock.duration.ms", "20000", 0);
    gr_props_set(&cf, "share.auto.offset.reset", "earliest", 0);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_gstore_group_t rec;
    gr_sg_record_build(&a, "grp", &g, &cf, &rec);
    ASSERT_EQ(rec.type, GR_GSTORE_TYPE_SHARE);
    ASSERT_STREQ(rec.group_id, "grp");
    ASSERT_EQ(rec.n_configs, 2);
    ASSERT_EQ(rec.n_members, 2);

    gr_props_t back_cf;
    gr_props_init(&back_cf);
    gr_sg_group_t back;
    ASSERT(gr_sg_record_load(&a, &rec, &back_cf, &back));
    ASSERT_STREQ(gr_props_get(&back_cf, "share.record.lock.duration.ms"), "20000");
    ASSERT_STREQ(gr_props_get(&back_cf, "share.auto.offset.reset"), "earliest");
    ASSERT_EQ(back_cf.n, 2);
    ASSERT_STREQ(back.group_id, "grp");
    ASSERT_EQ(back.group_epoch, 9);
    ASSERT_EQ(back.assignment_epoch, 8);
    ASSERT_EQ(back.n_members, 2);
    for (int i = 0; i < 2; i++) {
        ASSERT_STREQ(back.members[i].member_id, m[i].member_id);
        ASSERT_EQ(back.members[i].member_epoch, m[i].member_epoch);
        ASSERT_EQ(back.members[i].previous_epoch, m[i].previous_epoch);
        ASSERT_STREQ(back.members[i].client_id, m[i].client_id);
        ASSERT_STREQ(back.members[i].client_host, m[i].client_host);
        ASSERT(back.members[i].rack_id == m[i].rack_id ||
               (m[i].rack_id && !strcmp(back.members[i].rack_id, m[i].rack_id)));
        ASSERT_EQ(back.members[i].n_subscribed, 1);
        ASSERT_STREQ(back.members[i].subscribed[0], "orders");
        same_asg(&back.members[i].assignment, &m[i].assignment);
        same_asg(&back.members[i].target, &m[i].target);
    }
    ASSERT_EQ(back.n_topics, 1);
    ASSERT_STREQ(back.topics[0].name, "orders");
    ASSERT(gr_uuid_eq(&back.topics[0].topic_id, &topics[0].topic_id));
    ASSERT_EQ(back.topics[0].n_partitions, 3);
    same_asg(&back.initialized, &g.initialized);
    gr_props_free(&back_cf);
    gr_props_free(&cf);
    gr_arena_free(&a);
}

static void test_config_only(void) {
    gr_props_t cf;
    gr_props_init(&cf);
    gr_props_set(&cf, "errors.deadletterqueue.topic.name", "dlq.x", 0);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_gstore_group_t rec;
    gr_sg_record_build(&a, "only-configs", NULL, &cf, &rec);
    ASSERT_EQ(rec.type, GR_GSTORE_TYPE_CONFIG_ONLY);
    ASSERT_EQ(rec.n_members, 0);
    ASSERT_EQ(rec.n_configs, 1);
    gr_props_t back;
    gr_props_init(&back);
    gr_sg_group_t g;
    ASSERT(!gr_sg_record_load(&a, &rec, &back, &g)); /* not a group */
    ASSERT_STREQ(gr_props_get(&back, "errors.deadletterqueue.topic.name"), "dlq.x");
    /* a group without configs */
    gr_sg_group_t empty = {"e", 1, 0, NULL, 0, NULL, 0, {NULL, 0}};
    gr_sg_record_build(&a, "e", &empty, NULL, &rec);
    ASSERT_EQ(rec.type, GR_GSTORE_TYPE_SHARE);
    ASSERT_EQ(rec.n_configs, 0);
    gr_props_free(&back);
    gr_props_init(&back);
    ASSERT(gr_sg_record_load(&a, &rec, &back, &g));
    ASSERT_EQ(back.n, 0);
    ASSERT_EQ(g.group_epoch, 1);
    ASSERT_EQ(g.n_members, 0);
    gr_props_free(&back);
    gr_props_free(&cf);
    gr_arena_free(&a);
}

int main(void) {
    RUN_TEST(test_roundtrip);
    RUN_TEST(test_config_only);
    return 0;
}
