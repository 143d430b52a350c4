/* Unit tests for share/state_wq.c: share-state writes waiting for a DLQ fsync are
 * written in FIFO order only from a ready head; later writes of a key queue behind; a
 * failed fsync or a closed store fails the entry and everything behind it and sets the
 * offline flag; freeing fails what is left. A real store in a temporary directory. */
#include "test_storage_util.h"

#include "share/state_wq.h"
#include "testutil.h"

static gr_uuid_t tid(int n) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)n;
    u.b[15] = 0x3a;
    return u;
}

static gr_sstore_update_t upd(int64_t start) {
    return (gr_sstore_update_t){
        .state_epoch = 1, .leader_epoch = -1, .start_offset = start, .delivery_complete_count = -1};
}

static int64_t start_of(gr_sstore_t *ss, const gr_sstore_key_t *k) {
    gr_sstore_state_t st;
    return gr_sstore_read(ss, k, &st) ? -2 : st.start_offset;
}

typedef struct fails {
    int n;
    gr_err_t last;
} fails_t;

static void on_fail(void *arg, gr_err_t err) {
    ((fails_t *)arg)->n++;
    ((fails_t *)arg)->last = err;
}

static void test_queue(void) {
    char root[64] = "/tmp/gr_swq_XXXXXX", dir[128];
    ASSERT(mkdtemp(root) != NULL);
    snprintf(dir, sizeof(dir), "%s/%s", root, GR_SSTORE_DIR_NAME);
    gr_sstore_options_t o;
    gr_sstore_options_default(&o); /* no flusher: successful writes pass no callback */
    gr_sstore_t *ss = NULL;
    char es[256] = "";
    ASSERT_EQ(gr_sstore_open(dir, &o, &ss, es, sizeof(es)), GR_ERR_NONE);
    bool torn = false;
    gr_swq_sink_t sink = {ss, &torn};
    gr_swq_t *q = gr_swq_new();
    char gbuf[] = "grp";
    gr_sstore_key_t kt = gr_sstore_key(gbuf, tid(1), 0), k1 = gr_sstore_key("grp", tid(1), 0),
                    k2 = gr_sstore_key("grp", tid(2), 0), k3 = gr_sstore_key("grp", tid(3), 0);
    ASSERT(!gr_swq_holds(NULL, &k1));

    /* A waits for its fsync; B (same key, no DLQ batch) queues behind it */
    gr_sstore_update_t u = upd(10);
    gr_swq_entry_t *a = gr_swq_push(q, &kt, &u, true, NULL, NULL, &torn);
    memset(gbuf, 'x', 3); /* the key was copied */
    ASSERT(gr_swq_holds(q, &k1));
    ASSERT(!gr_swq_holds(q, &kt));
    ASSERT(gr_swq_owner(a) == &torn);
    u = upd(20);
    (void)gr_swq_push(q, &k1, &u, false, NULL, NULL, NULL);
    ASSERT(gr_swq_holds(q, &k1));
    ASSERT(!gr_swq_holds(q, &k2));
    ASSERT_EQ(start_of(ss, &k1), -2); /* nothing written yet */
    gr_swq_synced(q, a, GR_ERR_NONE, &sink);
    ASSERT_EQ(start_of(ss, &k1), 20); /* A then B, in order */
    ASSERT(!gr_swq_holds(q, &k1));

    /* C then D, D's fsync first: nothing before C's */
    u = upd(30);
    gr_swq_entry_t *c = gr_swq_push(q, &k2, &u, true, NULL, NULL, NULL);
    u = upd(40);
    gr_swq_entry_t *d = gr_swq_push(q, &k3, &u, true, NULL, NULL, NULL);
    gr_swq_synced(q, d, GR_ERR_NONE, &sink);
    ASSERT_EQ(start_of(ss, &k3), -2);
    gr_swq_synced(q, c, GR_ERR_NONE, &sink);
    ASSERT_EQ(start_of(ss, &k2), 30);
    ASSERT_EQ(start_of(ss, &k3), 40);
    ASSERT(!torn);

    /* E's fsync fails: E and F behind it fail, nothing is written, offline */
    fails_t fe = {0}, ff = {0};
    u = upd(50);
    gr_swq_entry_t *e = gr_swq_push(q, &k2, &u, true, on_fail, &fe, NULL);
    u = upd(60);
    (void)gr_swq_push(q, &k2, &u, false, on_fail, &ff, NULL);
    gr_swq_synced(q, e, GR_ERR_KAFKA_STORAGE_ERROR, &sink);
    ASSERT(torn);
    ASSERT_EQ(fe.n, 1);
    ASSERT_EQ(fe.last, GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(ff.n, 1);
    ASSERT_EQ(start_of(ss, &k2), 30);

    /* offline: a later entry fails even though its fsync succeeded */
    fails_t fg = {0};
    u = upd(70);
    gr_swq_entry_t *g = gr_swq_push(q, &k3, &u, true, on_fail, &fg, NULL);
    gr_swq_synced(q, g, GR_ERR_NONE, &sink);
    ASSERT_EQ(fg.n, 1);
    ASSERT_EQ(start_of(ss, &k3), 40);

    /* a closed store fails too; what is left at free fails */
    torn = false;
    gr_swq_sink_t closed = {NULL, &torn};
    fails_t fh = {0}, fi = {0};
    u = upd(80);
    gr_swq_entry_t *h = gr_swq_push(q, &k1, &u, true, on_fail, &fh, NULL);
    gr_swq_synced(q, h, GR_ERR_NONE, &closed);
    ASSERT_EQ(fh.n, 1);
    ASSERT(torn);
    (void)gr_swq_push(q, &k1, &u, true, on_fail, &fi, NULL);
    gr_swq_free(q);
    ASSERT_EQ(fi.n, 1);
    ASSERT_EQ(fi.last, GR_ERR_KAFKA_STORAGE_ERROR);
    gr_swq_free(NULL);
    gr_sstore_close(ss);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_queue);
    return 0;
}
