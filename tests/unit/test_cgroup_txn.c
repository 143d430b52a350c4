/* Transactional offsets in consumer groups (src/cgroup/cg_txn.c, records.c): the
 * TxnOffsetCommit group checks, pending offsets per group and producer, completion
 * by commit (they become the committed offsets) or abort (dropped), and the store
 * record of a pending offset. */
#include "testutil.h"

#include "base/arena.h"
#include "base/err.h"
#include "cgroup/cgroup.h"
#include "cgroup/records.h"

static gr_cg_registry_t *reg_new(void) {
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    c.initial_rebalance_delay_ms = 0;
    return gr_cg_registry_new(&c);
}

static gr_cg_offset_t off(int64_t o) { return (gr_cg_offset_t){o, -1, "meta", 5, -1}; }

static void test_check(void) {
    gr_cg_registry_t *r = reg_new();
    bool created;
    ASSERT_EQ(gr_cg_txn_commit_check(r, "", "", NULL, -1, 1, &created), GR_ERR_INVALID_GROUP_ID);
    ASSERT_EQ(gr_cg_txn_commit_check(r, "g", "", NULL, 3, 1, &created), GR_ERR_ILLEGAL_GENERATION);
    ASSERT(!gr_cg_exists(r, "g"));
    ASSERT_EQ(gr_cg_txn_commit_check(r, "g", "", NULL, -1, 1, &created), 0);
    ASSERT(created && gr_cg_exists(r, "g"));
    ASSERT_EQ(gr_cg_txn_commit_check(r, "g", "", NULL, -1, 1, &created), 0);
    ASSERT(!created);
    /* A generation into the simple group: the member must exist. */
    ASSERT_EQ(gr_cg_txn_commit_check(r, "g", "", NULL, 0, 1, &created), GR_ERR_UNKNOWN_MEMBER_ID);
    /* Generation -1 into an Empty group is an admin commit, whatever the member id. */
    ASSERT_EQ(gr_cg_txn_commit_check(r, "g", "m-1", NULL, -1, 1, &created), 0);
    gr_cg_registry_free(r);
}

typedef struct seen {
    int n;
    int64_t sum;
} seen_t;

static void count(void *arg, const char *g, const char *t, int32_t p, const gr_cg_offset_t *o) {
    (void)g, (void)t, (void)p;
    seen_t *s = arg;
    s->n++;
    s->sum += o->offset;
}

static void test_pending(void) {
    gr_cg_registry_t *r = reg_new();
    gr_cg_offset_t a = off(10), b = off(20), c = off(30);
    gr_cg_txn_put(r, "g", 7, "t", 0, &a);
    gr_cg_txn_put(r, "g", 7, "t", 1, &b);
    gr_cg_txn_put(r, "h", 8, "t", 0, &c);
    gr_cg_txn_put(r, "g", 7, "t", 0, &b); /* a later commit of the same partition replaces */
    ASSERT_EQ(gr_cg_txn_count(r), 3);
    ASSERT(gr_cg_txn_pending(r, "g", "t", 0));
    ASSERT(!gr_cg_txn_pending(r, "g", "t", 2));
    ASSERT(gr_cg_offset_get(r, "g", "t", 0) == NULL); /* not committed yet */
    seen_t s = {0, 0};
    ASSERT_EQ(gr_cg_txn_complete(r, 7, count, &s), 2);
    ASSERT_EQ(s.n, 2);
    ASSERT_EQ(s.sum, 40);
    ASSERT(!gr_cg_txn_pending(r, "g", "t", 0));
    ASSERT(gr_cg_txn_pending(r, "h", "t", 0));
    ASSERT_EQ(gr_cg_txn_complete(r, 7, count, &s), 0); /* a repeated marker: nothing left */
    ASSERT_EQ(gr_cg_txn_complete(r, 8, NULL, NULL), 1);
    ASSERT_EQ(gr_cg_txn_count(r), 0);
    gr_cg_txn_put(r, "g", 9, "t", 0, &a); /* freed with the registry */
    gr_cg_registry_free(r);
}

static void test_record(void) {
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_cg_offset_t o = off(42);
    gr_cg_rec_txn_offset_key(&k, "grp", "top", 3, 123456789012LL);
    gr_cg_rec_offset_value(&v, &o);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_cg_rec_t rec;
    const char *why = NULL;
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len, v.mem, v.len, &a, &rec, &why), 0);
    ASSERT_EQ(rec.type, GR_CG_REC_TXN_OFFSET);
    ASSERT_STREQ(rec.group_id, "grp");
    ASSERT_STREQ(rec.topic, "top");
    ASSERT_EQ(rec.partition, 3);
    ASSERT_EQ(rec.pid, 123456789012LL);
    ASSERT_EQ(rec.offset.offset, 42);
    ASSERT_STREQ(rec.offset.metadata, "meta");
    /* A key without its producer id, or a plain offset key of the txn length, fail. */
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len - 8, v.mem, v.len, &a, &rec, &why), GR_ERR__MALFORMED);
    ((uint8_t *)k.mem)[0] = GR_CG_REC_OFFSET;
    ASSERT_EQ(gr_cg_rec_decode(k.mem, k.len, v.mem, v.len, &a, &rec, &why), GR_ERR__MALFORMED);
    gr_arena_free(&a);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
}

int main(void) {
    RUN_TEST(test_check);
    RUN_TEST(test_pending);
    RUN_TEST(test_record);
    return 0;
}
