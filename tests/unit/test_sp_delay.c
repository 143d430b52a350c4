/* Delayed redelivery (gregor.share.redelivery.backoff.ms/.max.ms, issue 14 item 3):
 * due times after RELEASE and lock expiry, acquisition skipping a delayed range and
 * taking the records behind it, the timer that makes it due, exponential growth and
 * the cap, persistence through the delta, the export, gr_sp_init_persisted and the
 * state codec and combiner. Fake clock. */
#include <stdint.h>

#include "share/sp.h"
#include "share/state_store.h"
#include "testutil.h"

static const gr_sp_conf_t CONF = {5, 2000, 30000};

static void chk(const gr_sp_t *sp) {
    char why[256];
    if (gr_sp_check(sp, &CONF, why, sizeof(why))) GR__FAIL("invariant: %s", why);
}

static gr_sp_acquire_res_t g_res;

/* Acquire for `m` from one log batch per pair in lb. */
static gr_sp_acquire_res_t *acq(gr_sp_t *sp, const char *m, const gr_sp_log_batch_t *lb, size_t n, int64_t now) {
    gr_sp_acquire_req_t req = {m, 500, 0, GR_SP_MODE_BATCH_OPTIMIZED, lb, n};
    ASSERT_EQ(gr_sp_acquire(sp, &req, &CONF, now, &g_res, NULL), GR_ERR_NONE);
    chk(sp);
    return &g_res;
}

static gr_err_t ack(gr_sp_t *sp, const char *m, int64_t first, int64_t last, int type, int64_t now, gr_sp_delta_t *d) {
    int8_t t = (int8_t)type;
    gr_sp_ack_batch_t b = {first, last, &t, 1};
    gr_sp_ack_req_t req = {m, &b, 1, false, true};
    gr_err_t err = gr_sp_acknowledge(sp, &req, &CONF, now, d, NULL, 0);
    chk(sp);
    return err;
}

static int64_t due_of(const gr_sp_t *sp, int64_t off) {
    int s = -1;
    int64_t dl = -1;
    ASSERT(gr_sp_record(sp, off, &s, NULL, NULL, &dl));
    return s == GR_SP_AVAILABLE ? dl : -1;
}

static const gr_sp_log_batch_t LOG[] = {{0, 4}, {5, 9}};

static void test_backoff_growth(void) {
    gr_sp_t *sp = gr_sp_new();
    ASSERT_EQ(gr_sp_backoff_ms(sp, 1), 0); /* off by default */
    gr_sp_set_redelivery_backoff(sp, 1000, 5000);
    ASSERT_EQ(gr_sp_backoff_ms(sp, 1), 1000);
    ASSERT_EQ(gr_sp_backoff_ms(sp, 2), 2000);
    ASSERT_EQ(gr_sp_backoff_ms(sp, 3), 4000);
    ASSERT_EQ(gr_sp_backoff_ms(sp, 4), 5000);
    ASSERT_EQ(gr_sp_backoff_ms(sp, 32767), 5000);
    gr_sp_set_redelivery_backoff(sp, 86400000, 86400000);
    ASSERT_EQ(gr_sp_backoff_ms(sp, 32767), 86400000);
    gr_sp_init_offset(sp, 0, 0); /* configuration survives a re-initialisation */
    ASSERT_EQ(gr_sp_backoff_ms(sp, 1), 86400000);
    gr_sp_destroy(sp);
}

/* RELEASE holds the record back; the records behind it are delivered meanwhile;
 * SPSO stays on it; the timer makes it due; the second release doubles. */
static void test_release_delays(void) {
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    gr_sp_set_redelivery_backoff(sp, 1000, 60000);
    gr_sp_acquire_res_t *r = acq(sp, "m1", LOG, 1, 1000);
    ASSERT_EQ(r->n_records, 5);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    ASSERT_EQ(ack(sp, "m1", 0, 0, GR_SP_ACK_RELEASE, 2000, &d), GR_ERR_NONE);
    ASSERT_EQ(d.n, 1); /* persisted with its due time */
    ASSERT_EQ(d.batches[0].first_offset, 0);
    ASSERT_EQ(d.batches[0].state, GR_SP_AVAILABLE);
    ASSERT_EQ(d.batches[0].delivery_count, 1);
    ASSERT_EQ(d.batches[0].not_before_ms, 3000);
    ASSERT_EQ(ack(sp, "m1", 1, 4, GR_SP_ACK_ACCEPT, 2000, NULL), GR_ERR_NONE);
    ASSERT_EQ(due_of(sp, 0), 3000);
    ASSERT_EQ(gr_sp_start_offset(sp), 0); /* a delayed record is not terminal */
    int64_t next = 0;
    ASSERT_EQ(gr_sp_delayed_count(sp, &next), 1);
    ASSERT_EQ(next, 3000);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 5);
    ASSERT_EQ(gr_sp_next_deadline(sp), 3000);
    /* Not before its due time: a fetch from the start takes only the records behind. */
    r = acq(sp, "m2", LOG, 2, 2500);
    ASSERT_EQ(r->n, 1);
    ASSERT_EQ(r->ranges[0].first_offset, 5);
    ASSERT_EQ(r->ranges[0].last_offset, 9);
    ASSERT_EQ(gr_sp_expire(sp, &CONF, 2999, NULL), 3000);
    chk(sp);
    ASSERT_EQ(due_of(sp, 0), 3000);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 10);
    /* Due: the timer call makes it acquirable again, with nothing to persist. */
    gr_sp_delta_reset(&d);
    ASSERT_EQ(gr_sp_expire(sp, &CONF, 3000, &d), 2500 + 30000);
    chk(sp);
    ASSERT_EQ(d.n, 0);
    ASSERT_EQ(due_of(sp, 0), 0);
    ASSERT_EQ(gr_sp_delayed_count(sp, NULL), 0);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 0);
    r = acq(sp, "m2", LOG, 1, 3001);
    ASSERT_EQ(r->n, 1);
    ASSERT_EQ(r->ranges[0].first_offset, 0);
    ASSERT_EQ(r->ranges[0].last_offset, 0);
    ASSERT_EQ(r->ranges[0].delivery_count, 2);
    /* Second release: count 2 -> twice the base. */
    ASSERT_EQ(ack(sp, "m2", 0, 0, GR_SP_ACK_RELEASE, 4000, NULL), GR_ERR_NONE);
    ASSERT_EQ(due_of(sp, 0), 6000);
    ASSERT_EQ(gr_sp_next_deadline(sp), 6000);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

/* A lock expiry delays too (from the expiry); the cap applies; member leave and the
 * delivery limit do not delay. */
static void test_expiry_member_limit(void) {
    gr_sp_conf_t c = {10, 2000, 1000};
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    gr_sp_set_redelivery_backoff(sp, 500, 800);
    gr_sp_acquire_req_t req = {"m1", 500, 0, GR_SP_MODE_BATCH_OPTIMIZED, LOG, 1};
    ASSERT_EQ(gr_sp_acquire(sp, &req, &c, 0, &g_res, NULL), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_next_deadline(sp), 1000);
    ASSERT_EQ(gr_sp_expire(sp, &c, 1000, NULL), 1500);
    ASSERT_EQ(due_of(sp, 2), 1500);
    ASSERT_EQ(gr_sp_delayed_count(sp, NULL), 5);
    ASSERT_EQ(gr_sp_expire(sp, &c, 1500, NULL), INT64_MAX);
    ASSERT_EQ(gr_sp_acquire(sp, &req, &c, 1600, &g_res, NULL), GR_ERR_NONE);
    ASSERT_EQ(g_res.n_records, 5);
    ASSERT_EQ(g_res.ranges[0].delivery_count, 2);
    ASSERT_EQ(gr_sp_expire(sp, &c, 2600, NULL), 3400); /* 2 x 500 = 1000, capped at 800 */
    ASSERT_EQ(due_of(sp, 0), 3400);
    ASSERT_EQ(gr_sp_expire(sp, &c, 3400, NULL), INT64_MAX);
    /* Member leave: back to AVAILABLE at once (not a processing failure). */
    req.member_id = "m2";
    ASSERT_EQ(gr_sp_acquire(sp, &req, &c, 3500, &g_res, NULL), GR_ERR_NONE);
    ASSERT_EQ(g_res.ranges[0].delivery_count, 3);
    req.member_id = "m3";
    ASSERT_EQ(gr_sp_release_member(sp, &c, "m2", NULL), 5);
    ASSERT_EQ(due_of(sp, 0), 0);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 0);
    gr_sp_destroy(sp);
    /* At the delivery limit a RELEASE archives: no delay, SPSO moves. */
    gr_sp_conf_t c2 = {2, 2000, 1000};
    sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    gr_sp_set_redelivery_backoff(sp, 500, 800);
    ASSERT_EQ(gr_sp_acquire(sp, &req, &c2, 0, &g_res, NULL), GR_ERR_NONE);
    int8_t t = GR_SP_ACK_RELEASE;
    gr_sp_ack_batch_t b = {0, 4, &t, 1};
    gr_sp_ack_req_t ar = {"m3", &b, 1, false, true};
    ASSERT_EQ(gr_sp_acknowledge(sp, &ar, &c2, 100, NULL, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_delayed_count(sp, NULL), 5);
    ASSERT_EQ(gr_sp_expire(sp, &c2, 600, NULL), INT64_MAX);
    ASSERT_EQ(gr_sp_acquire(sp, &req, &c2, 700, &g_res, NULL), GR_ERR_NONE);
    ASSERT_EQ(g_res.ranges[0].delivery_count, 2);
    ASSERT_EQ(gr_sp_acknowledge(sp, &ar, &c2, 800, NULL, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    ASSERT_EQ(gr_sp_delayed_count(sp, NULL), 0);
    gr_sp_destroy(sp);
}

/* Export -> init_persisted keeps the due time; a rollback undoes a delay. */
static void test_persist_and_rollback(void) {
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    gr_sp_set_redelivery_backoff(sp, 1000, 60000);
    acq(sp, "m1", LOG, 2, 10000);
    gr_sp_begin(sp);
    ASSERT_EQ(ack(sp, "m1", 2, 3, GR_SP_ACK_RELEASE, 11000, NULL), GR_ERR_NONE);
    ASSERT_EQ(due_of(sp, 2), 12000);
    gr_sp_rollback(sp);
    chk(sp);
    ASSERT_EQ(due_of(sp, 2), -1); /* ACQUIRED again */
    ASSERT_EQ(gr_sp_next_deadline(sp), 40000);
    ASSERT_EQ(ack(sp, "m1", 2, 3, GR_SP_ACK_RELEASE, 11000, NULL), GR_ERR_NONE);
    ASSERT_EQ(ack(sp, "m1", 0, 1, GR_SP_ACK_ACCEPT, 11000, NULL), GR_ERR_NONE);
    gr_sp_snapshot_t snap;
    gr_sp_delta_init(&snap);
    gr_sp_export(sp, &snap);
    ASSERT_EQ(snap.start_offset, 2);
    ASSERT_EQ(snap.n, 1); /* [2,3] AVAILABLE delayed; [4,9] ACQUIRED -> AVAILABLE count 0: a hole */
    ASSERT_EQ(snap.batches[0].first_offset, 2);
    ASSERT_EQ(snap.batches[0].last_offset, 3);
    ASSERT_EQ(snap.batches[0].not_before_ms, 12000);
    gr_sp_t *sp2 = gr_sp_new();
    ASSERT_EQ(gr_sp_init_persisted(sp2, snap.start_offset, 0, snap.batches, snap.n, NULL, 0), GR_ERR_NONE);
    chk(sp2);
    ASSERT_EQ(due_of(sp2, 3), 12000);
    ASSERT_EQ(gr_sp_next_deadline(sp2), 12000);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp2), 4); /* the delayed range is skipped */
    gr_sp_acquire_req_t req = {"m9", 500, 0, GR_SP_MODE_BATCH_OPTIMIZED, LOG, 2};
    ASSERT_EQ(gr_sp_acquire(sp2, &req, &CONF, 11500, &g_res, NULL), GR_ERR_NONE);
    ASSERT_EQ(g_res.n_records, 6);
    ASSERT_EQ(g_res.ranges[0].first_offset, 4);
    ASSERT_EQ(gr_sp_expire(sp2, &CONF, 12000, NULL), 11500 + 30000);
    ASSERT_EQ(gr_sp_acquire(sp2, &req, &CONF, 12001, &g_res, NULL), GR_ERR_NONE);
    ASSERT_EQ(g_res.n_records, 2);
    ASSERT_EQ(g_res.ranges[0].first_offset, 2);
    ASSERT_EQ(g_res.ranges[0].delivery_count, 2);
    chk(sp2);
    gr_sp_delta_free(&snap);
    gr_sp_destroy(sp2);
    gr_sp_destroy(sp);
}

#define SB(f, l, s, c, due) \
    ((gr_sstore_batch_t){.first_offset = (f), .last_offset = (l), .state = (s), .count = (c), .due_ms = (due)})

static size_t enc(const gr_sstore_batch_t *b, size_t n, uint8_t *out, size_t cap) {
    gr_sstore_value_t v = {.kind = GR_SSTORE_REC_UPDATE,
                           .state_epoch = 1,
                           .leader_epoch = -1,
                           .start_offset = 5,
                           .delivery_complete_count = 0,
                           .batches = b,
                           .n_batches = n};
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_sstore_value_encode(&v, &wb);
    ASSERT(wb.len <= cap);
    memcpy(out, wb.mem, wb.len);
    size_t len = wb.len;
    gr_wbuf_free(&wb);
    return len;
}

/* Value version 1 only when a due time is present; old (v0) bytes still decode. */
static void test_codec(void) {
    uint8_t buf[128], buf2[128];
    gr_sstore_bvec_t bv = {0};
    gr_sstore_value_t v;
    const char *why = NULL;
    gr_sstore_batch_t plain[] = {SB(5, 9, GR_SSTORE_AVAILABLE, 1, 0)};
    size_t n = enc(plain, 1, buf, sizeof(buf));
    ASSERT_EQ(buf[0], 0);
    ASSERT_EQ(gr_sstore_value_decode(buf, n, &v, &bv, &why), GR_ERR_NONE);
    ASSERT_EQ(v.batches[0].due_ms, 0);
    gr_sstore_batch_t delayed[] = {SB(5, 6, GR_SSTORE_AVAILABLE, 2, 1764756000123LL),
                                   SB(7, 9, GR_SSTORE_ACKNOWLEDGED, 1, 0)};
    n = enc(delayed, 2, buf, sizeof(buf));
    ASSERT_EQ(buf[0], 1);
    ASSERT_EQ(gr_sstore_value_decode(buf, n, &v, &bv, &why), GR_ERR_NONE);
    ASSERT_EQ(v.n_batches, 2);
    ASSERT_EQ(v.batches[0].due_ms, 1764756000123LL);
    ASSERT_EQ(v.batches[0].count, 2);
    ASSERT_EQ(v.batches[1].due_ms, 0);
    ASSERT_EQ(v.batches[1].state, GR_SSTORE_ACKNOWLEDGED);
    gr_sstore_batch_t copy[2] = {v.batches[0], v.batches[1]};
    ASSERT_EQ(enc(copy, 2, buf2, sizeof(buf2)), n); /* re-encodes to the same bytes */
    ASSERT_MEMEQ(buf, buf2, n);
    /* A version-1 value without any due time is refused (it would re-encode as 0). */
    n = enc(plain, 1, buf, sizeof(buf));
    uint8_t v1[128];
    memcpy(v1, buf, n);
    v1[0] = 1;
    v1[n] = 0; /* due 0 after the only batch */
    ASSERT_EQ(gr_sstore_value_decode(v1, n + 1, &v, &bv, &why), GR_ERR__MALFORMED);
    /* A due time on a terminal state is invalid. */
    gr_sstore_batch_t bad = SB(1, 1, GR_SSTORE_ARCHIVED, 1, 5);
    ASSERT(!gr_sstore_batch_valid(&bad));
    gr_sstore_bvec_free(&bv);
}

/* The combiner: equal (state, count) -> the later due time wins; different due
 * times never coalesce. */
static void test_merge(void) {
    gr_sstore_bvec_t out = {0};
    gr_sstore_batch_t old[] = {SB(0, 9, GR_SSTORE_AVAILABLE, 1, 0)};
    gr_sstore_batch_t add[] = {SB(3, 4, GR_SSTORE_AVAILABLE, 1, 7000)};
    gr_sstore_merge(old, 1, add, 1, -1, &out);
    ASSERT_EQ(out.n, 3);
    ASSERT_EQ(out.v[1].first_offset, 3);
    ASSERT_EQ(out.v[1].last_offset, 4);
    ASSERT_EQ(out.v[1].due_ms, 7000);
    ASSERT_EQ(out.v[2].due_ms, 0);
    gr_sstore_batch_t acq2[] = {SB(3, 3, GR_SSTORE_ARCHIVED, 2, 0)};
    gr_sstore_bvec_t out2 = {0};
    gr_sstore_merge(out.v, out.n, acq2, 1, -1, &out2);
    ASSERT_EQ(out2.n, 4);
    ASSERT_EQ(out2.v[1].state, GR_SSTORE_ARCHIVED);
    ASSERT_EQ(out2.v[2].first_offset, 4);
    ASSERT_EQ(out2.v[2].due_ms, 7000);
    gr_sstore_bvec_free(&out);
    gr_sstore_bvec_free(&out2);
}

int main(void) {
    RUN_TEST(test_backoff_growth);
    RUN_TEST(test_release_delays);
    RUN_TEST(test_expiry_member_limit);
    RUN_TEST(test_persist_and_rollback);
    RUN_TEST(test_codec);
    RUN_TEST(test_merge);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
