/* Unit tests for the share-group coordinator (src/share/group.c, group_admin.c; spec §4, §6). */
#include "share/group.h"
#include "testutil.h"

/* ---- fixture: broker config, topics and a heartbeat helper ---- */

static gr_sg_broker_cfg_t bcfg(void) {
    gr_sg_broker_cfg_t b;
    memset(&b, 0, sizeof(b));
    b.delivery_count_limit = 5, b.min_delivery_count_limit = 2, b.max_delivery_count_limit = 10;
    b.record_lock_duration_ms = 30000, b.min_record_lock_duration_ms = 15000, b.max_record_lock_duration_ms = 60000;
    b.partition_max_record_locks = 2000, b.min_partition_max_record_locks = 100;
    b.max_partition_max_record_locks = 4000;
    b.session_timeout_ms = 45000, b.min_session_timeout_ms = 45000, b.max_session_timeout_ms = 60000;
    b.heartbeat_interval_ms = 5000, b.min_heartbeat_interval_ms = 5000, b.max_heartbeat_interval_ms = 15000;
    b.max_size = 200, b.initialize_retry_interval_ms = 30000;
    return b;
}

typedef struct fx {
    gr_share_group_registry_t *reg;
    gr_sgc_values_t cfg;
    const char *names[4];
    gr_uuid_t ids[4];
    int32_t nparts[4];
    gr_sg_topic_array_t arr;
    gr_sg_topic_view_t view;
    gr_sg_heartbeat_res_t res;
    int64_t now;
} fx_t;

static gr_uuid_t tid(int i) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)(0x10 + i);
    u.b[15] = 1;
    return u;
}

static void fx_init(fx_t *f, int32_t max_size) {
    memset(f, 0, sizeof(*f));
    gr_sg_broker_cfg_t b = bcfg();
    b.max_size = max_size;
    f->reg = gr_share_group_registry_new(&b);
    gr_sgc_resolve(NULL, &b, &f->cfg);
    f->names[0] = "t1", f->names[1] = "t2";
    f->ids[0] = tid(1), f->ids[1] = tid(2);
    f->nparts[0] = 3, f->nparts[1] = 2;
    f->arr = (gr_sg_topic_array_t){f->names, f->ids, f->nparts, 2};
    f->view = gr_sg_topic_array_view(&f->arr);
}

static void fx_free(fx_t *f) {
    gr_sg_heartbeat_res_free(&f->res);
    gr_share_group_registry_free(f->reg);
}

/* One heartbeat; subs NULL means SubscribedTopicNames = null. */
static gr_err_t hb(fx_t *f, const char *group, const char *member, int32_t epoch, const char *const *subs,
                   int32_t nsubs) {
    gr_sg_heartbeat_res_free(&f->res);
    gr_sg_heartbeat_req_t req = {.group_id = group,
                                 .member_id = member,
                                 .member_epoch = epoch,
                                 .subscribed = subs,
                                 .n_subscribed = subs ? nsubs : -1,
                                 .client_id = "cli",
                                 .client_host = "/127.0.0.1"};
    return gr_share_group_heartbeat(f->reg, &req, &f->cfg, &f->view, f->now, &f->res);
}

static gr_err_t hb_req(fx_t *f, gr_sg_heartbeat_req_t *req) {
    gr_sg_heartbeat_res_free(&f->res);
    return gr_share_group_heartbeat(f->reg, req, &f->cfg, &f->view, f->now, &f->res);
}

/* Initialize whatever the last heartbeat asked for (a synchronous single-node broker). */
static void init_requested(fx_t *f, const char *group) {
    bool changed;
    ASSERT_EQ(gr_share_group_mark_initialized(f->reg, group, &f->res.to_initialize, &changed), GR_ERR_NONE);
}

static const char *T1[] = {"t1"};
static const char *T2[] = {"t2"};
static const char *T12[] = {"t2", "t1", "t2"};

/* ---- tests ---- */

static void test_join_then_assignment(void) {
    fx_t f;
    fx_init(&f, 200);
    ASSERT_EQ(hb(&f, "g", "m1", 0, T1, 1), GR_ERR_NONE);
    ASSERT(f.res.group_created && f.res.group_changed);
    ASSERT_EQ(f.res.member_epoch, 1);
    ASSERT_EQ(f.res.heartbeat_interval_ms, 5000);
    ASSERT(f.res.assignment != NULL); /* join: present but empty, nothing initialized yet */
    ASSERT_EQ(f.res.assignment->n_topics, 0);
    ASSERT_EQ(gr_sg_assignment_count(&f.res.to_initialize), 3);
    ASSERT_EQ(f.res.member_deadline_ms, 45000);
    init_requested(&f, "g");

    f.now = 1000;
    ASSERT_EQ(hb(&f, "g", "m1", 1, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 2);
    ASSERT(f.res.assignment != NULL);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 3);
    ASSERT(!memcmp(&f.res.assignment->topics[0].topic_id, &f.ids[0], sizeof(gr_uuid_t)));
    ASSERT_EQ(f.res.to_initialize.n_topics, 0);

    /* Steady state: nothing changes, assignment null, nothing to persist. */
    ASSERT_EQ(hb(&f, "g", "m1", 2, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 2);
    ASSERT(f.res.assignment == NULL);
    ASSERT(!f.res.group_changed);
    /* A full request (subscription present, unchanged) gets the assignment again. */
    ASSERT_EQ(hb(&f, "g", "m1", 2, T1, 1), GR_ERR_NONE);
    ASSERT(f.res.assignment != NULL && !f.res.group_changed);
    fx_free(&f);
}

static void test_second_member_and_lost_response(void) {
    fx_t f;
    fx_init(&f, 200);
    hb(&f, "g", "m1", 0, T1, 1);
    init_requested(&f, "g");
    hb(&f, "g", "m1", 1, NULL, 0);
    ASSERT_EQ(f.res.member_epoch, 2);
    ASSERT_EQ(hb(&f, "g", "m2", 0, T1, 1), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    int32_t c2 = gr_sg_assignment_count(f.res.assignment);
    ASSERT(c2 >= 1);
    /* m1 learns the new epoch and its reduced assignment. */
    ASSERT_EQ(hb(&f, "g", "m1", 2, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    ASSERT(f.res.assignment != NULL);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment) + c2, 3);
    /* The response was lost: m1 retries with its previous epoch 2, accepted. */
    ASSERT_EQ(hb(&f, "g", "m1", 2, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    /* Epoch ahead: fenced. */
    ASSERT_EQ(hb(&f, "g", "m1", 4, NULL, 0), GR_ERR_FENCED_MEMBER_EPOCH);
    ASSERT_STREQ(f.res.errmsg, "The share group member has a greater member epoch (4) than the one known by the "
                               "group coordinator (3). The member must abandon all its partitions and rejoin.");
    ASSERT_EQ(f.res.member_epoch, 0);
    ASSERT(f.res.assignment == NULL);
    /* Epoch behind and not the previous one: fenced. */
    ASSERT_EQ(hb(&f, "g", "m1", 1, NULL, 0), GR_ERR_FENCED_MEMBER_EPOCH);
    ASSERT(strstr(f.res.errmsg, "does not match the previous member epoch (2)"));
    /* Rejoin with epoch 0 and the same id (client reaction to 110): accepted. */
    ASSERT_EQ(hb(&f, "g", "m1", 0, T1, 1), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    ASSERT(f.res.assignment != NULL);
    fx_free(&f);
}

static void test_leave_and_unknown_member(void) {
    fx_t f;
    fx_init(&f, 200);
    hb(&f, "g", "m1", 0, T1, 1);
    hb(&f, "g", "m2", 0, T1, 1);
    ASSERT_EQ(hb(&f, "g", "m3", 5, NULL, 0), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_STREQ(f.res.errmsg, "Member m3 is not a member of group g.");
    ASSERT_EQ(hb(&f, "g", "m2", -1, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, -1);
    ASSERT_STREQ(f.res.member_id, "m2");
    ASSERT(f.res.group_changed);
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char err[256];
    ASSERT_EQ(gr_share_group_describe(f.reg, "g", false, &g, &st, err, sizeof(err)), GR_ERR_NONE);
    ASSERT_EQ(g->group_epoch, 3); /* join, join, leave */
    ASSERT_EQ(g->n_members, 1);
    ASSERT_EQ(hb(&f, "g", "m2", -1, NULL, 0), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(hb(&f, "nope", "m2", -1, NULL, 0), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(f.res.errmsg, "Share group nope not found.");
    /* After 25 the client rejoins with epoch 0 and the same id. */
    ASSERT_EQ(hb(&f, "g", "m2", 0, T1, 1), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 4);
    fx_free(&f);
}

static void test_validation(void) {
    fx_t f;
    fx_init(&f, 200);
    const char *empty[] = {NULL};
    ASSERT_EQ(hb(&f, "g", "", 0, T1, 1), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(f.res.errmsg, "MemberId can't be empty.");
    ASSERT_EQ(hb(&f, "g", "  ", 0, T1, 1), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(hb(&f, " ", "m", 0, T1, 1), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(f.res.errmsg, "GroupId can't be empty.");
    ASSERT_EQ(hb(&f, "g", "m", 0, NULL, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(f.res.errmsg, "SubscribedTopicNames must be set in first request.");
    ASSERT_EQ(hb(&f, "g", "m", 0, empty, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(hb(&f, "g", "m", -2, NULL, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(f.res.errmsg, "MemberEpoch is invalid.");
    gr_sg_heartbeat_req_t req = {
        .group_id = "g", .member_id = "m", .member_epoch = 0, .rack_id = "", .subscribed = T1, .n_subscribed = 1};
    ASSERT_EQ(hb_req(&f, &req), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(f.res.errmsg, "RackId can't be empty.");
    ASSERT_EQ(gr_share_group_count(f.reg), 0); /* nothing was created */
    /* Epoch > 0 on an unknown group. */
    ASSERT_EQ(hb(&f, "g", "m", 3, NULL, 0), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(f.res.errmsg, "Share group g not found.");
    /* Another group type owns the id. */
    req = (gr_sg_heartbeat_req_t){.group_id = "cg",
                                  .member_id = "m",
                                  .member_epoch = 0,
                                  .subscribed = T1,
                                  .n_subscribed = 1,
                                  .id_used_by_other_type = true};
    ASSERT_EQ(hb_req(&f, &req), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(f.res.errmsg, "Group cg is not a share group.");
    req.member_epoch = -1;
    ASSERT_EQ(hb_req(&f, &req), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(f.res.errmsg, "Group cg is not a share group.");
    ASSERT_EQ(gr_share_group_count(f.reg), 0);
    fx_free(&f);
}

static void test_max_size(void) {
    fx_t f;
    fx_init(&f, 2);
    ASSERT_EQ(hb(&f, "g", "a", 0, T1, 1), GR_ERR_NONE);
    ASSERT_EQ(hb(&f, "g", "b", 0, T1, 1), GR_ERR_NONE);
    ASSERT_EQ(hb(&f, "g", "c", 0, T1, 1), GR_ERR_GROUP_MAX_SIZE_REACHED);
    ASSERT_STREQ(f.res.errmsg, "The share group has reached its maximum capacity of 2 members.");
    ASSERT_EQ(hb(&f, "g", "c", 1, NULL, 0), GR_ERR_GROUP_MAX_SIZE_REACHED);
    /* Existing members keep working, and rejoin is allowed. */
    ASSERT_EQ(hb(&f, "g", "a", 1, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(hb(&f, "g", "b", 0, T1, 1), GR_ERR_NONE);
    ASSERT_EQ(hb(&f, "g", "b", -1, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(hb(&f, "g", "c", 0, T1, 1), GR_ERR_NONE);
    fx_free(&f);
}

static void test_subscription_change(void) {
    fx_t f;
    fx_init(&f, 200);
    hb(&f, "g", "m", 0, T1, 1);
    init_requested(&f, "g");
    hb(&f, "g", "m", 1, NULL, 0);
    ASSERT_EQ(f.res.member_epoch, 2);
    /* Switch to t2: epoch bump, t2 needs initialization, t1 partitions leave at once. */
    ASSERT_EQ(hb(&f, "g", "m", 2, T2, 1), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    ASSERT(f.res.assignment && f.res.assignment->n_topics == 0);
    ASSERT_EQ(gr_sg_assignment_count(&f.res.to_initialize), 2);
    init_requested(&f, "g");
    ASSERT_EQ(hb(&f, "g", "m", 3, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 4);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 2);
    ASSERT(!memcmp(&f.res.assignment->topics[0].topic_id, &f.ids[1], sizeof(gr_uuid_t)));
    /* Both topics (duplicates ignored): t1 is still initialized, so it comes back at once. */
    ASSERT_EQ(hb(&f, "g", "m", 4, T12, 3), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 5);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 5);
    ASSERT_EQ(f.res.to_initialize.n_topics, 0);
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char err[64];
    gr_share_group_describe(f.reg, "g", false, &g, &st, err, sizeof(err));
    ASSERT_EQ(g->members[0].n_subscribed, 2);
    ASSERT_EQ(g->n_topics, 2);
    fx_free(&f);
}

static void test_topic_metadata_changes(void) {
    fx_t f;
    fx_init(&f, 200);
    hb(&f, "g", "m", 0, T1, 1);
    init_requested(&f, "g");
    hb(&f, "g", "m", 1, NULL, 0);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 3);
    /* A partition is added to t1: epoch bump, the new partition needs initialization. */
    f.nparts[0] = 4;
    ASSERT_EQ(hb(&f, "g", "m", 2, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    ASSERT(f.res.assignment == NULL); /* still the same 3 partitions */
    ASSERT_EQ(gr_sg_assignment_count(&f.res.to_initialize), 1);
    ASSERT_EQ(f.res.to_initialize.topics[0].partitions[0], 3);
    /* Not confirmed yet: not asked again before the retry interval, asked again after. */
    ASSERT_EQ(hb(&f, "g", "m", 3, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.to_initialize.n_topics, 0);
    f.now += 30000;
    ASSERT_EQ(hb(&f, "g", "m", 3, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sg_assignment_count(&f.res.to_initialize), 1);
    gr_share_group_init_failed(f.reg, "g", &f.res.to_initialize);
    ASSERT_EQ(hb(&f, "g", "m", 3, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sg_assignment_count(&f.res.to_initialize), 1);
    init_requested(&f, "g");
    ASSERT_EQ(hb(&f, "g", "m", 3, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 4);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 4);
    /* The topic is deleted: metadata and initialized state go, assignment empties. */
    f.arr.n = 0;
    ASSERT_EQ(hb(&f, "g", "m", 4, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 5);
    ASSERT(f.res.assignment && f.res.assignment->n_topics == 0);
    gr_sg_group_t g;
    ASSERT_EQ(gr_share_group_export(f.reg, "g", &g), GR_ERR_NONE);
    ASSERT_EQ(g.initialized.n_topics, 0);
    ASSERT_EQ(g.n_topics, 0);
    gr_sg_group_free(&g);
    fx_free(&f);
}

static void test_member_fields_and_describe(void) {
    fx_t f;
    fx_init(&f, 200);
    gr_sg_heartbeat_req_t req = {.group_id = "g",
                                 .member_id = "m",
                                 .member_epoch = 0,
                                 .rack_id = "r1",
                                 .subscribed = T1,
                                 .n_subscribed = 1,
                                 .client_id = "c1",
                                 .client_host = "/10.0.0.1"};
    ASSERT_EQ(hb_req(&f, &req), GR_ERR_NONE);
    init_requested(&f, "g");
    req.member_epoch = 1, req.rack_id = NULL, req.subscribed = NULL, req.n_subscribed = -1;
    ASSERT_EQ(hb_req(&f, &req), GR_ERR_NONE);
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char err[128];
    ASSERT_EQ(gr_share_group_describe(f.reg, "g", false, &g, &st, err, sizeof(err)), GR_ERR_NONE);
    ASSERT_EQ(st, GR_SG_STABLE);
    ASSERT_STREQ(gr_share_group_state_name(st), "Stable");
    ASSERT_EQ(g->group_epoch, 2);
    ASSERT_EQ(g->assignment_epoch, 2);
    ASSERT_EQ(g->n_members, 1);
    ASSERT_STREQ(g->members[0].rack_id, "r1"); /* null RackId = unchanged */
    ASSERT_STREQ(g->members[0].client_id, "c1");
    ASSERT_STREQ(g->members[0].client_host, "/10.0.0.1");
    ASSERT_EQ(g->members[0].member_epoch, 2);
    ASSERT_EQ(g->members[0].previous_epoch, 1);
    ASSERT_EQ(gr_sg_assignment_count(&g->members[0].assignment), 3);
    /* A changed client id is persisted but does not bump the epoch. */
    req.client_id = "c2";
    ASSERT_EQ(hb_req(&f, &req), GR_ERR_NONE);
    ASSERT(f.res.group_changed);
    ASSERT_EQ(f.res.member_epoch, 2);
    ASSERT_EQ(gr_share_group_describe(f.reg, "x", false, &g, &st, err, sizeof(err)), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(err, "Group x not found.");
    ASSERT_EQ(gr_share_group_describe(f.reg, "g", true, &g, &st, err, sizeof(err)), GR_ERR_GROUP_ID_NOT_FOUND);
    ASSERT_STREQ(err, "Group g is not a share group.");
    ASSERT_EQ(gr_share_group_describe(f.reg, "", false, &g, &st, err, sizeof(err)), GR_ERR_INVALID_GROUP_ID);
    fx_free(&f);
}

static void test_session_expiry(void) {
    fx_t f;
    fx_init(&f, 200);
    ASSERT_EQ(gr_share_group_next_deadline(f.reg), INT64_MAX);
    hb(&f, "g", "a", 0, T1, 1);
    f.now = 1000;
    hb(&f, "g", "b", 0, T1, 1);
    ASSERT_EQ(gr_share_group_next_deadline(f.reg), 45000);
    gr_sg_expired_t *ex;
    ASSERT_EQ(gr_share_group_expire(f.reg, 44999, &ex), 0);
    gr_sg_expired_free(ex, 0);
    /* a heartbeats at 10 s: its deadline moves to 55 s; b expires first at 46 s. */
    f.now = 10000;
    ASSERT_EQ(hb(&f, "g", "a", 1, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 2);
    ASSERT_EQ(gr_share_group_next_deadline(f.reg), 46000);
    ASSERT_EQ(gr_share_group_expire(f.reg, 46000, &ex), 1);
    ASSERT_STREQ(ex[0].group_id, "g");
    ASSERT_STREQ(ex[0].member_id, "b");
    gr_sg_expired_free(ex, 1);
    ASSERT_EQ(gr_share_group_next_deadline(f.reg), 55000);
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char err[64];
    gr_share_group_describe(f.reg, "g", false, &g, &st, err, sizeof(err));
    ASSERT_EQ(g->group_epoch, 3);
    /* b's heartbeat after expiry: unknown member, rejoin works. */
    f.now = 47000;
    ASSERT_EQ(hb(&f, "g", "b", 2, NULL, 0), GR_ERR_UNKNOWN_MEMBER_ID);
    ASSERT_EQ(gr_share_group_expire(f.reg, 100000, &ex), 1);
    gr_sg_expired_free(ex, 1);
    gr_share_group_describe(f.reg, "g", false, &g, &st, err, sizeof(err));
    ASSERT_EQ(st, GR_SG_EMPTY);
    ASSERT_EQ(g->n_topics, 0); /* nobody subscribes any more */
    fx_free(&f);
}

static void test_list_and_delete(void) {
    fx_t f;
    fx_init(&f, 200);
    hb(&f, "b-group", "m", 0, T1, 1);
    hb(&f, "a-group", "m", 0, T1, 1);
    init_requested(&f, "a-group");
    hb(&f, "a-group", "m", -1, NULL, 0);
    gr_sg_list_entry_t *l;
    ASSERT_EQ(gr_share_group_list(f.reg, NULL, 0, &l), 2);
    ASSERT_STREQ(l[0].group_id, "a-group");
    ASSERT_STREQ(l[0].state, "Empty");
    ASSERT_STREQ(l[1].state, "Stable");
    free(l);
    const char *stable[] = {"stable"}, *empty[] = {"EMPTY", "dead"};
    ASSERT_EQ(gr_share_group_list(f.reg, stable, 1, &l), 1);
    ASSERT_STREQ(l[0].group_id, "b-group");
    free(l);
    ASSERT_EQ(gr_share_group_list(f.reg, empty, 2, &l), 1);
    ASSERT_STREQ(l[0].group_id, "a-group");
    free(l);
    ASSERT_EQ(gr_share_group_delete_check(f.reg, "b-group"), GR_ERR_NON_EMPTY_GROUP);
    ASSERT_EQ(gr_share_group_delete(f.reg, "b-group", NULL), GR_ERR_NON_EMPTY_GROUP);
    ASSERT_EQ(gr_share_group_delete(f.reg, "zzz", NULL), GR_ERR_GROUP_ID_NOT_FOUND);
    gr_sg_group_t g;
    ASSERT_EQ(gr_share_group_delete(f.reg, "a-group", &g), GR_ERR_NONE);
    ASSERT_EQ(gr_sg_assignment_count(&g.initialized), 3); /* what the caller must delete */
    gr_sg_group_free(&g);
    ASSERT(!gr_share_group_exists(f.reg, "a-group"));
    ASSERT_EQ(gr_share_group_count(f.reg), 1);
    ASSERT_STREQ(gr_share_group_id_at(f.reg, 0), "b-group");
    ASSERT_STREQ(gr_share_group_state_name(GR_SG_DEAD), "Dead");
    /* A deleted group id starts afresh. */
    ASSERT_EQ(hb(&f, "a-group", "m", 0, T1, 1), GR_ERR_NONE);
    ASSERT(f.res.group_created);
    ASSERT_EQ(f.res.member_epoch, 1);
    fx_free(&f);
}

static void test_export_import(void) {
    fx_t f;
    fx_init(&f, 200);
    hb(&f, "g", "m1", 0, T12, 3);
    init_requested(&f, "g");
    hb(&f, "g", "m1", 1, NULL, 0);
    hb(&f, "g", "m2", 0, T1, 1);
    hb(&f, "g", "m1", 2, NULL, 0);
    ASSERT_EQ(f.res.member_epoch, 3);
    gr_sg_group_t g;
    ASSERT_EQ(gr_share_group_export(f.reg, "g", &g), GR_ERR_NONE);
    ASSERT_EQ(gr_share_group_export(f.reg, "nope", &g), GR_ERR__NOENT);
    gr_share_group_registry_free(f.reg);
    gr_sg_broker_cfg_t b = bcfg();
    f.reg = gr_share_group_registry_new(&b);
    f.now = 500000;
    ASSERT_EQ(gr_share_group_import(f.reg, &g, f.now, 45000), GR_ERR_NONE);
    gr_sg_group_free(&g);
    ASSERT_EQ(gr_share_group_next_deadline(f.reg), 545000);
    /* Members carry on where they were: nothing changes, nothing to send. */
    ASSERT_EQ(hb(&f, "g", "m1", 3, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(f.res.member_epoch, 3);
    ASSERT(f.res.assignment == NULL);
    ASSERT(!f.res.group_changed);
    ASSERT_EQ(f.res.to_initialize.n_topics, 0);
    ASSERT_EQ(hb(&f, "g", "m2", 3, NULL, 0), GR_ERR_NONE);
    ASSERT(!f.res.group_changed);
    /* Invalid imports are refused. */
    gr_sg_group_t bad = {.group_id = ""};
    ASSERT_EQ(gr_share_group_import(f.reg, &bad, 0, 45000), GR_ERR__INVALID_ARG);
    fx_free(&f);
}

static void test_forget_topic_and_ensure(void) {
    fx_t f;
    fx_init(&f, 200);
    bool created, changed;
    gr_share_group_ensure(f.reg, "g", &created);
    ASSERT(created);
    gr_share_group_ensure(f.reg, "g", &created);
    ASSERT(!created);
    hb(&f, "g", "m", 0, T1, 1);
    init_requested(&f, "g");
    hb(&f, "g", "m", 1, NULL, 0);
    ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 3);
    ASSERT_EQ(gr_share_group_forget_topic(f.reg, "g", &f.ids[0], &changed), GR_ERR_NONE);
    ASSERT(changed);
    /* Next heartbeat: assignment empties and re-initialization is requested. */
    ASSERT_EQ(hb(&f, "g", "m", 2, NULL, 0), GR_ERR_NONE);
    ASSERT(f.res.assignment && f.res.assignment->n_topics == 0);
    ASSERT_EQ(gr_sg_assignment_count(&f.res.to_initialize), 3);
    ASSERT_EQ(gr_share_group_mark_initialized(f.reg, "nope", &f.res.to_initialize, NULL), GR_ERR__NOENT);
    fx_free(&f);
}

/* Many members on one partition: everyone gets the partition (members > partitions). */
static void test_members_beyond_partitions(void) {
    fx_t f;
    fx_init(&f, 200);
    f.nparts[0] = 1;
    char id[16];
    for (int i = 0; i < 5; i++) {
        snprintf(id, sizeof(id), "m%d", i);
        hb(&f, "g", id, 0, T1, 1);
        if (i == 0) init_requested(&f, "g");
    }
    for (int i = 0; i < 5; i++) {
        snprintf(id, sizeof(id), "m%d", i);
        ASSERT_EQ(hb(&f, "g", id, 0, T1, 1), GR_ERR_NONE);
        ASSERT_EQ(gr_sg_assignment_count(f.res.assignment), 1);
    }
    fx_free(&f);
}

int main(void) {
    RUN_TEST(test_join_then_assignment);
    RUN_TEST(test_second_member_and_lost_response);
    RUN_TEST(test_leave_and_unknown_member);
    RUN_TEST(test_validation);
    RUN_TEST(test_max_size);
    RUN_TEST(test_subscription_change);
    RUN_TEST(test_topic_metadata_changes);
    RUN_TEST(test_member_fields_and_describe);
    RUN_TEST(test_session_expiry);
    RUN_TEST(test_list_and_delete);
    RUN_TEST(test_export_import);
    RUN_TEST(test_forget_topic_and_ensure);
    RUN_TEST(test_members_beyond_partitions);
    return 0;
}
