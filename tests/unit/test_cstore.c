/* Consumer-group store (src/share/cgroup_store.c): batches applied whole, deletes,
 * reopen after a clean close and after a crash (abandon), compaction keeping the
 * last value of every key. */
#include "test_storage_util.h"

#include "cgroup/records.h"
#include "share/cgroup_store.h"

static char root[256], dir[512];

static void fresh_dir(void) {
    if (root[0]) tb_rmrf(root);
    snprintf(root, sizeof(root), "/tmp/gr_cstore_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    snprintf(dir, sizeof(dir), "%s/%s", root, GR_CSTORE_DIR_NAME);
}

static gr_cstore_t *open_cs(void) {
    gr_cstore_options_t o;
    gr_cstore_options_default(&o);
    o.segment_bytes = 8192;
    o.compact_min_bytes = 4096;
    gr_cstore_t *cs = NULL;
    char es[256] = "";
    gr_err_t err = gr_cstore_open(dir, &o, &cs, es, sizeof(es));
    if (err) GR__FAIL("open: %s (%s)", gr_err_name(err), es);
    return cs;
}

typedef struct seen {
    int n;
    char last[64]; /* value of key "k7" */
    int sum;       /* sum of the numeric values */
} seen_t;

static void visit(void *arg, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) {
    seen_t *s = arg;
    char kb[32] = "", vb[64] = "";
    memcpy(kb, k, kl < 31 ? kl : 31);
    memcpy(vb, v, vl < 63 ? vl : 63);
    s->n++;
    s->sum += atoi(vb);
    if (!strcmp(kb, "k7")) snprintf(s->last, sizeof(s->last), "%s", vb);
}

static void put(gr_cstore_t *cs, int key, int value) {
    char k[16], v[16];
    snprintf(k, sizeof(k), "k%d", key);
    snprintf(v, sizeof(v), "%d", value);
    gr_cstore_add(cs, k, strlen(k), v, strlen(v));
}

static seen_t scan(gr_cstore_t *cs) {
    seen_t s = {0};
    gr_cstore_foreach(cs, visit, &s);
    return s;
}

static void test_roundtrip(void) {
    fresh_dir();
    gr_cstore_t *cs = open_cs();
    for (int i = 0; i < 10; i++) put(cs, i, i);
    ASSERT_EQ(gr_cstore_commit(cs, NULL, NULL), 0);
    ASSERT_EQ(gr_cstore_count(cs), 10);
    gr_cstore_add(cs, "k3", 2, NULL, 0); /* delete */
    put(cs, 7, 70);
    ASSERT_EQ(gr_cstore_commit(cs, NULL, NULL), 0);
    seen_t s = scan(cs);
    ASSERT_EQ(s.n, 9);
    ASSERT_STREQ(s.last, "70");
    ASSERT_EQ(s.sum, 45 - 3 - 7 + 70);
    gr_cstore_close(cs);
    cs = open_cs();
    s = scan(cs);
    ASSERT_EQ(s.n, 9);
    ASSERT_STREQ(s.last, "70");
    ASSERT_EQ(s.sum, 105);
    gr_cstore_abandon(cs); /* a crash after the reopen changes nothing */
    cs = open_cs();
    ASSERT_EQ(scan(cs).sum, 105);
    gr_cstore_close(cs);
}

/* Many overwrites of a few keys: the log is compacted and reopening still gives the
 * last value of every key. */
static void test_compaction(void) {
    fresh_dir();
    gr_cstore_t *cs = open_cs();
    for (int round = 0; round < 400; round++) {
        for (int k = 0; k < 10; k++) put(cs, k, round);
        ASSERT_EQ(gr_cstore_commit(cs, NULL, NULL), 0);
    }
    seen_t s = scan(cs);
    ASSERT_EQ(s.n, 10);
    ASSERT_EQ(s.sum, 3990);
    gr_cstore_abandon(cs);
    cs = open_cs();
    s = scan(cs);
    ASSERT_EQ(s.n, 10);
    ASSERT_STREQ(s.last, "399");
    ASSERT_EQ(s.sum, 3990);
    gr_cstore_close(cs);
    tb_rmrf(root);
}

/* Record codec: round trip of both kinds with exact fields; malformed input refused. */
static void test_records(void) {
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_cg_offset_t o = {42, 7, "meta", 1700000000000, -1};
    gr_cg_rec_offset_key(&k, "grp", "orders", 3);
    gr_cg_rec_offset_value(&v, &o);
    gr_cg_rec_t r;
    const char *why = NULL;
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len, v.mem, v.len, &a, &r, &why), 0);
    ASSERT_EQ(r.type, GR_CG_REC_OFFSET);
    ASSERT_STREQ(r.group_id, "grp");
    ASSERT_STREQ(r.topic, "orders");
    ASSERT_EQ(r.partition, 3);
    ASSERT_EQ(r.offset.offset, 42);
    ASSERT_EQ(r.offset.leader_epoch, 7);
    ASSERT_STREQ(r.offset.metadata, "meta");
    ASSERT_EQ(r.offset.commit_ms, 1700000000000);
    ASSERT_EQ(r.offset.expire_ms, -1);
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len - 1, v.mem, v.len, &a, &r, &why), GR_ERR__MALFORMED);
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len, v.mem, 20, &a, &r, &why), GR_ERR__MALFORMED);
    gr_wbuf_reset(&k);
    gr_wbuf_reset(&v);
    gr_cg_rec_group_key(&k, "grp");
    gr_cg_rec_group_value(&v, "consumer", 9);
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len, v.mem, v.len, &a, &r, &why), 0);
    ASSERT_EQ(r.type, GR_CG_REC_GROUP);
    ASSERT_STREQ(r.group_id, "grp");
    ASSERT_STREQ(r.protocol_type, "consumer");
    ASSERT_EQ(r.generation, 9);
    ASSERT_EQ(gr_cg_rec_decode((const uint8_t *)"\x09x", 2, v.mem, v.len, &a, &r, &why), GR_ERR__MALFORMED);
    gr_arena_free(&a);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
}

int main(void) {
    RUN_TEST(test_records);
    RUN_TEST(test_roundtrip);
    RUN_TEST(test_compaction);
    return 0;
}
