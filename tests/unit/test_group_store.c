/* Group store: round trip of every field, reopen (clean and after kill -9), deletes,
 * a torn last record cut at every byte, compaction + prune, durable callbacks,
 * codec robustness. */
#include "test_storage_util.h"

#include <poll.h>
#include <sys/eventfd.h>

#include "base/log.h"
#include "share/group_store.h"

static char root[256], dir[512];
static int efd = -1;

static void wake(void *ctx) {
    (void)ctx;
    uint64_t one = 1;
    ASSERT_EQ(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
}

static void fresh_dir(void) {
    if (root[0]) tb_rmrf(root);
    snprintf(root, sizeof(root), "/tmp/gr_gstore_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    snprintf(dir, sizeof(dir), "%s/%s", root, GR_GSTORE_DIR_NAME);
}

static gr_gstore_t *open_gs(gr_flusher_t *fl) {
    gr_gstore_options_t o;
    gr_gstore_options_default(&o);
    o.flusher = fl;
    o.segment_bytes = 8192;
    o.compact_min_bytes = 20000;
    gr_gstore_t *gs = NULL;
    char es[256] = "";
    gr_err_t err = gr_gstore_open(dir, &o, &gs, es, sizeof(es));
    if (err) GR__FAIL("open: %s (%s)", gr_err_name(err), es);
    return gs;
}

/* A group with every field set; `v` varies the contents. */
typedef struct fixture {
    int32_t parts[3];
    gr_gstore_tp_t tp[2];
    char *subs[2];
    gr_gstore_member_t members[2];
    gr_gstore_topic_t topics[1];
    gr_gstore_config_t configs[2];
    char id[32], mid[32];
    gr_gstore_group_t g;
} fixture_t;

static void make_group(fixture_t *f, const char *id, int v) {
    memset(f, 0, sizeof(*f));
    snprintf(f->id, sizeof(f->id), "%s", id);
    snprintf(f->mid, sizeof(f->mid), "member-%d", v);
    f->parts[0] = 0, f->parts[1] = 2, f->parts[2] = v;
    f->tp[0] = (gr_gstore_tp_t){.topic_id = {{1, 2, 3}}, .partitions = f->parts, .n_partitions = 3};
    f->tp[1] = (gr_gstore_tp_t){.topic_id = {{9}}, .partitions = NULL, .n_partitions = 0};
    f->subs[0] = "orders", f->subs[1] = "payments";
    f->members[0] = (gr_gstore_member_t){.member_id = f->mid,
                                         .member_epoch = v,
                                         .previous_epoch = v - 1,
                                         .client_id = "c1",
                                         .client_host = "/127.0.0.1",
                                         .rack_id = NULL,
                                         .subscribed = f->subs,
                                         .n_subscribed = 2,
                                         .assignment = {.topics = f->tp, .n_topics = 1},
                                         .target = {.topics = f->tp, .n_topics = 2}};
    f->members[1] = (gr_gstore_member_t){
        .member_id = "m2", .member_epoch = 3, .client_id = "", .client_host = "h", .rack_id = "rack-a"};
    f->topics[0] = (gr_gstore_topic_t){.name = "orders", .topic_id = {{1, 2, 3}}, .n_partitions = 3};
    f->configs[0] = (gr_gstore_config_t){.name = "share.auto.offset.reset", .value = "earliest"};
    f->configs[1] = (gr_gstore_config_t){.name = "share.record.lock.duration.ms", .value = "15000"};
    f->g = (gr_gstore_group_t){.group_id = f->id,
                               .type = GR_GSTORE_TYPE_SHARE,
                               .group_epoch = 10 + v,
                               .assignment_epoch = 9 + v,
                               .members = f->members,
                               .n_members = 2,
                               .topics = f->topics,
                               .n_topics = 1,
                               .initialized = {.topics = f->tp, .n_topics = 2},
                               .initializing = {.topics = &f->tp[1], .n_topics = 1},
                               .deleting = {0},
                               .configs = f->configs,
                               .n_configs = 2};
}

static void check_equal(const gr_gstore_group_t *a, const gr_gstore_group_t *b) {
    gr_wbuf_t wa, wb;
    gr_wbuf_init(&wa);
    gr_wbuf_init(&wb);
    gr_gstore_group_encode(a, &wa);
    gr_gstore_group_encode(b, &wb);
    ASSERT_EQ(wa.len, wb.len);
    ASSERT_MEMEQ(wa.mem, wb.mem, wa.len);
    gr_wbuf_free(&wa);
    gr_wbuf_free(&wb);
}

static void check_stored(gr_gstore_t *gs, const char *id, int v) {
    fixture_t f;
    make_group(&f, id, v);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_gstore_group_t g;
    ASSERT_EQ(gr_gstore_get(gs, id, &a, &g), 0);
    ASSERT_STREQ(g.group_id, id);
    ASSERT_EQ(g.group_epoch, 10 + v);
    ASSERT_EQ(g.n_members, 2);
    ASSERT_STREQ(g.members[0].member_id, f.mid);
    ASSERT(g.members[0].rack_id == NULL);
    ASSERT_STREQ(g.members[1].rack_id, "rack-a");
    ASSERT_EQ(g.members[0].target.n_topics, 2);
    ASSERT_EQ(g.members[0].target.topics[0].partitions[2], v);
    ASSERT_STREQ(g.configs[1].value, "15000");
    ASSERT_EQ(g.initializing.n_topics, 1);
    check_equal(&g, &f.g);
    gr_arena_free(&a);
}

static void test_round_trip(void) {
    fresh_dir();
    gr_gstore_t *gs = open_gs(NULL);
    fixture_t f;
    make_group(&f, "g1", 1);
    ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
    make_group(&f, "g2", 2);
    ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
    make_group(&f, "g1", 5); /* replaces */
    ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
    ASSERT_EQ(gr_gstore_count(gs), 2);
    check_stored(gs, "g1", 5);
    check_stored(gs, "g2", 2);
    gr_gstore_close(gs);
    gs = open_gs(NULL);
    check_stored(gs, "g1", 5);
    check_stored(gs, "g2", 2);
    ASSERT_EQ(gr_gstore_delete(gs, "g2", NULL, NULL), 0);
    ASSERT_EQ(gr_gstore_delete(gs, "nope", NULL, NULL), 0);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_gstore_group_t g;
    ASSERT_EQ(gr_gstore_get(gs, "g2", &a, &g), GR_ERR__NOENT);
    gr_gstore_abandon(gs); /* kill -9 */
    gs = open_gs(NULL);
    ASSERT_EQ(gr_gstore_count(gs), 1);
    check_stored(gs, "g1", 5);
    ASSERT_EQ(gr_gstore_get(gs, "g2", &a, &g), GR_ERR__NOENT);
    gr_arena_free(&a);
    /* invalid input */
    make_group(&f, "", 1);
    ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), GR_ERR_INVALID_REQUEST);
    make_group(&f, "x", 1);
    f.members[0].client_id = NULL;
    ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), GR_ERR_INVALID_REQUEST);
    gr_gstore_close(gs);
}

static void count_visit(void *arg, const gr_gstore_group_t *g) {
    (void)g;
    (*(int *)arg)++;
}

static void test_torn_tail(void) {
    char fn[600];
    fresh_dir();
    gr_gstore_t *gs = open_gs(NULL);
    fixture_t f;
    make_group(&f, "g1", 1);
    ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
    gr_gstore_close(gs);
    snprintf(fn, sizeof(fn), "%s/00000000000000000000.log", dir);
    int64_t size0 = tb_file_size(fn);
    for (int64_t cut = size0;; cut++) {
        fresh_dir();
        snprintf(fn, sizeof(fn), "%s/00000000000000000000.log", dir);
        gs = open_gs(NULL);
        make_group(&f, "g1", 1);
        ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
        make_group(&f, "g1", 7);
        ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
        gr_gstore_abandon(gs);
        int64_t size1 = tb_file_size(fn);
        if (cut > size1) break;
        ASSERT_EQ(truncate(fn, cut), 0);
        gs = open_gs(NULL);
        check_stored(gs, "g1", cut == size1 ? 7 : 1); /* never lost, never half-applied */
        gr_gstore_abandon(gs);
    }
}

static void test_compaction(void) {
    fresh_dir();
    gr_gstore_t *gs = open_gs(NULL);
    fixture_t f;
    for (int i = 0; i < 2000; i++) {
        char id[16];
        snprintf(id, sizeof(id), "g%d", i % 5);
        make_group(&f, id, i);
        ASSERT_EQ(gr_gstore_put(gs, &f.g, NULL, NULL), 0);
        if (i % 10 == 0) { /* the prune waits for durability: sync often so the bound below holds */
            ASSERT_EQ(gr_gstore_sync(gs), 0);
            gr_gstore_maintain(gs);
        }
    }
    gr_gstore_stats_t st;
    gr_gstore_stats(gs, &st);
    fprintf(stderr, "   compactions %llu, log %lld bytes, live %lld, start %lld end %lld\n",
            (unsigned long long)st.n_compactions, (long long)st.log_bytes, (long long)st.live_bytes,
            (long long)st.log_start_offset, (long long)st.log_end_offset);
    ASSERT(st.n_compactions > 0);
    ASSERT(st.log_start_offset > 0);
    ASSERT(st.log_bytes < 2 * st.live_bytes + 20000 + 3 * 8192);
    gr_gstore_abandon(gs);
    gs = open_gs(NULL);
    for (int k = 0; k < 5; k++) {
        char id[16];
        snprintf(id, sizeof(id), "g%d", k);
        check_stored(gs, id, 1995 + k);
    }
    int n = 0;
    ASSERT_EQ(gr_gstore_foreach(gs, count_visit, &n), 5);
    ASSERT_EQ(n, 5);
    /* explicit compaction, crash before and after the prune */
    ASSERT_EQ(gr_gstore_compact(gs), 0);
    gr_gstore_abandon(gs);
    gs = open_gs(NULL);
    check_stored(gs, "g3", 1998);
    ASSERT_EQ(gr_gstore_compact(gs), 0);
    ASSERT_EQ(gr_gstore_sync(gs), 0);
    ASSERT(gr_gstore_maintain(gs) > 0);
    gr_gstore_abandon(gs);
    gs = open_gs(NULL);
    gr_gstore_stats(gs, &st);
    ASSERT_EQ(st.n_replayed, 5);
    check_stored(gs, "g3", 1998);
    gr_gstore_close(gs);
}

static void on_done(void *arg, gr_err_t err) {
    ASSERT_EQ(err, 0);
    (*(int *)arg)++;
}

static void test_durable(void) {
    fresh_dir();
    gr_flusher_t *fl;
    ASSERT_EQ(gr_flusher_start(&fl, wake, NULL), 0);
    gr_gstore_t *gs = open_gs(fl);
    int done = 0;
    fixture_t f;
    make_group(&f, "g", 1);
    for (int i = 0; i < 50; i++) ASSERT_EQ(gr_gstore_put(gs, &f.g, on_done, &done), 0);
    ASSERT_EQ(gr_gstore_delete(gs, "g", on_done, &done), 0);
    while (done < 51) {
        struct pollfd p = {.fd = efd, .events = POLLIN};
        ASSERT(poll(&p, 1, 20000) == 1);
        uint64_t v;
        ASSERT_EQ(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
        gr_flusher_run_completions(fl);
    }
    gr_flusher_destroy(fl);
    gr_gstore_close(gs);
}

static void test_codec_robust(void) {
    fixture_t f;
    make_group(&f, "g", 3);
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_gstore_group_encode(&f.g, &wb);
    for (size_t cut = 0; cut < wb.len; cut++) {
        gr_arena_t a;
        gr_arena_init(&a);
        gr_gstore_group_t g;
        const char *why = NULL;
        ASSERT(gr_gstore_group_decode(wb.mem, cut, &a, &g, &why) != 0);
        ASSERT(why != NULL);
        gr_arena_free(&a);
    }
    gr_wbuf_free(&wb);
}

int main(void) {
    efd = eventfd(0, EFD_CLOEXEC);
    ASSERT(efd >= 0);
    gr_log_set_level(GR_LOG_WARN);
    RUN_TEST(test_round_trip);
    RUN_TEST(test_torn_tail);
    RUN_TEST(test_compaction);
    RUN_TEST(test_durable);
    RUN_TEST(test_codec_robust);
    tb_rmrf(root);
    close(efd);
    return 0;
}
