/* Unit tests for share/group_init.c (spec §4.5): a share group's partitions get their
 * state created in a real share-state store (in a temporary directory) unless they have
 * it, then are recorded as initialized; a refused write undoes the initialization. */
#include "test_storage_util.h"

#include <poll.h>
#include <sys/eventfd.h>

#include "share/group_init.h"
#include "testutil.h"

static int efd = -1;

static void wake(void *ctx) { /* flusher thread: completions are queued */
    (void)ctx;
    uint64_t one = 1;
    ASSERT_EQ(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
}

/* Run flusher completions on this thread until *n reaches want. */
static void drain(gr_flusher_t *fl, const int *n, int want) {
    while (*n < want) {
        struct pollfd p = {.fd = efd, .events = POLLIN};
        ASSERT(poll(&p, 1, 20000) == 1);
        uint64_t v;
        ASSERT_EQ(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
        gr_flusher_run_completions(fl);
    }
}

static gr_uuid_t tid(int n) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)n;
    u.b[15] = 0x5c;
    return u;
}

typedef struct waits {
    int added, refused, done;
    gr_err_t last_refusal;
} waits_t;

static void on_add(void *arg) { ((waits_t *)arg)->added++; }
static void on_refused(void *arg, gr_err_t err) {
    ((waits_t *)arg)->refused++;
    ((waits_t *)arg)->last_refusal = err;
}
static void on_done(void *arg, gr_err_t err) {
    ASSERT_EQ(err, GR_ERR_NONE);
    ((waits_t *)arg)->done++;
}

static gr_sg_broker_cfg_t bcfg(void) {
    gr_sg_broker_cfg_t b;
    memset(&b, 0, sizeof(b));
    b.session_timeout_ms = 45000, b.min_session_timeout_ms = 45000, b.max_session_timeout_ms = 60000;
    b.heartbeat_interval_ms = 5000, b.min_heartbeat_interval_ms = 5000, b.max_heartbeat_interval_ms = 15000;
    b.max_size = 200;
    return b;
}

static bool has_init(const gr_share_group_registry_t *reg, const char *gid, const gr_uuid_t *t, int32_t p) {
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char e[64];
    ASSERT_EQ(gr_share_group_describe(reg, gid, false, &g, &st, e, sizeof(e)), GR_ERR_NONE);
    return gr_sg_assignment_has(&g->initialized, t, p);
}

static void test_initialize(void) {
    char root[64] = "/tmp/gr_sginit_XXXXXX", dir[128];
    ASSERT(mkdtemp(root) != NULL);
    snprintf(dir, sizeof(dir), "%s/%s", root, GR_SSTORE_DIR_NAME);
    efd = eventfd(0, EFD_CLOEXEC);
    ASSERT(efd >= 0);
    gr_flusher_t *fl;
    ASSERT_EQ(gr_flusher_start(&fl, wake, NULL), 0);
    gr_sstore_options_t o;
    gr_sstore_options_default(&o);
    o.flusher = fl; /* durable callbacks need the flusher */
    gr_sstore_t *ss = NULL;
    char es[256] = "";
    ASSERT_EQ(gr_sstore_open(dir, &o, &ss, es, sizeof(es)), GR_ERR_NONE);
    gr_sg_broker_cfg_t b = bcfg();
    gr_share_group_registry_t *reg = gr_share_group_registry_new(&b);
    gr_sg_group_t g = {"grp", 7, 7, NULL, 0, NULL, 0, {NULL, 0}};
    ASSERT_EQ(gr_share_group_import(reg, &g, 0, 45000), GR_ERR_NONE);

    /* partition 1 of topic 1 already has state (epoch 3, SPSO 40): left alone */
    gr_uuid_t t1 = tid(1);
    gr_sstore_key_t k11 = gr_sstore_key("grp", t1, 1);
    ASSERT_EQ(gr_sstore_initialize(ss, &k11, 3, 40, NULL, NULL), GR_ERR_NONE);
    int32_t p012[] = {0, 1, 2};
    gr_sg_topic_parts_t tp[] = {{t1, p012, 3}};
    gr_sg_assignment_t parts = {tp, 1};
    waits_t w = {0};
    gr_sg_init_wait_t iw = {on_add, on_refused, on_done, &w};
    bool changed = false;
    ASSERT_EQ(gr_share_group_initialize(reg, ss, "grp", &parts, &iw, &changed), GR_ERR_NONE);
    ASSERT_EQ(w.added, 2); /* partitions 0 and 2 */
    ASSERT_EQ(w.refused, 0);
    drain(fl, &w.done, 2); /* both writes become durable */
    ASSERT(changed);
    for (int32_t p = 0; p < 3; p++) ASSERT(has_init(reg, "grp", &t1, p));
    gr_sstore_state_t st;
    gr_sstore_key_t k10 = gr_sstore_key("grp", t1, 0);
    ASSERT_EQ(gr_sstore_read(ss, &k10, &st), GR_ERR_NONE);
    ASSERT_EQ(st.start_offset, -1); /* resolved by the first fetch */
    ASSERT_EQ(st.state_epoch, 7);   /* the group's epoch */
    ASSERT_EQ(gr_sstore_read(ss, &k11, &st), GR_ERR_NONE);
    ASSERT_EQ(st.start_offset, 40);
    ASSERT_EQ(st.state_epoch, 3);

    /* again: everything has state, nothing is written */
    memset(&w, 0, sizeof(w));
    ASSERT_EQ(gr_share_group_initialize(reg, ss, "grp", &parts, &iw, &changed), GR_ERR_NONE);
    ASSERT_EQ(w.added, 0);

    /* a refused write (an invalid key): reported, and nothing is marked initialized */
    gr_uuid_t t2 = tid(2);
    int32_t bad[] = {5, -1};
    gr_sg_topic_parts_t tp2[] = {{t2, bad, 2}};
    gr_sg_assignment_t parts2 = {tp2, 1};
    memset(&w, 0, sizeof(w));
    ASSERT_EQ(gr_share_group_initialize(reg, ss, "grp", &parts2, &iw, &changed), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(w.refused, 1);
    ASSERT_EQ(w.last_refusal, GR_ERR_INVALID_REQUEST);
    ASSERT(!changed);
    ASSERT(!has_init(reg, "grp", &t2, 5));

    /* an unknown group: nothing to do; no wait hooks at all is fine too */
    ASSERT_EQ(gr_share_group_initialize(reg, ss, "nope", &parts, NULL, &changed), GR_ERR_NONE);
    ASSERT(!changed);
    gr_uuid_t t3 = tid(3);
    int32_t p0[] = {0};
    gr_sg_topic_parts_t tp3[] = {{t3, p0, 1}};
    gr_sg_assignment_t parts3 = {tp3, 1};
    ASSERT_EQ(gr_share_group_initialize(reg, ss, "grp", &parts3, NULL, &changed), GR_ERR_NONE);
    ASSERT(has_init(reg, "grp", &t3, 0));

    gr_share_group_registry_free(reg);
    gr_flusher_destroy(fl); /* first: its thread may still be syncing the store's log (state_store.h) */
    gr_sstore_close(ss);
    close(efd);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_initialize);
    return 0;
}
