/* Unit tests for share/sp_aborted.c: under read_committed, what an acquisition took of
 * aborted transactions' data batches is ARCHIVED with its delivery count and left out of
 * the AcquiredRecords (Kafka 4.4.0's filterAbortedTransactionalAcquiredRecords). */
#include "sp_test_util.h"

static void drop(gr_sp_t *sp, gr_sp_acquire_res_t *res, const gr_sp_offsets_t *ab, size_t n, gr_sp_delta_t *d) {
    gr_sp_drop_aborted(sp, ab, n, res, d);
    chk(sp, &CONF);
}

/* An aborted transaction at the start of the window: archived, SPSO moves past it. */
static void test_at_start(void) {
    gr_sp_t *sp = mk(0);
    /* 0-2 aborted data, 3 its ABORT marker, 4-5 plain, 6-8 committed data, 9 COMMIT marker */
    gr_sp_acquire_res_t *r =
        acq(sp, "A", 500, 500, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 2, 3, 3, 4, 5, 6, 8, 9, 9));
    ASSERT_EQ(r->n_records, 10);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    const gr_sp_offsets_t ab[] = {{0, 2}};
    drop(sp, r, ab, 1, &d);
    ASSERT_EQ(r->n, 1);
    expect_range(r, 0, 3, 9, 1); /* the marker stays in: the client skips it (GAP) */
    ASSERT_EQ(r->n_records, 7);
    ASSERT_EQ(r->read_first, 3);
    ASSERT_EQ(r->read_last, 9);
    ASSERT_EQ(gr_sp_start_offset(sp), 3);
    ASSERT_EQ(d.start_offset, 3);
    ASSERT(d.changed);
    ASSERT_EQ(gr_sp_acquired_count(sp), 7);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

/* In the middle: the entry is split around it; archived records keep count 1. */
static void test_middle(void) {
    gr_sp_t *sp = mk(0);
    gr_sp_acquire_res_t *r =
        acq(sp, "A", 500, 500, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 1, 2, 4, 5, 5, 6, 7, 8, 10, 11, 11));
    const gr_sp_offsets_t ab[] = {{2, 4}, {8, 10}};
    drop(sp, r, ab, 2, NULL);
    ASSERT_EQ(r->n, 3);
    expect_range(r, 0, 0, 1, 1);
    expect_range(r, 1, 5, 7, 1);
    expect_range(r, 2, 11, 11, 1);
    ASSERT_EQ(r->n_records, 6);
    for (int64_t o = 2; o <= 4; o++) {
        ASSERT_EQ(st(sp, o), GR_SP_ARCHIVED);
        ASSERT_EQ(cnt(sp, o), 1);
    }
    ASSERT_EQ(st(sp, 9), GR_SP_ARCHIVED);
    ASSERT_EQ(st(sp, 5), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_start_offset(sp), 0);
    /* Accepting the records before it moves the SPSO past the archived ones. */
    ASSERT_EQ(ack1(sp, "A", 0, 1, GR_SP_ACK_ACCEPT, 1100), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    /* Releasing everything leaves the archived records archived. */
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "A", NULL), 4);
    chk(sp, &CONF);
    ASSERT_EQ(st(sp, 9), GR_SP_ARCHIVED);
    ASSERT_EQ(st(sp, 5), GR_SP_AVAILABLE);
    gr_sp_destroy(sp);
}

/* Everything acquired was aborted: nothing is delivered, the window moves past it. */
static void test_all(void) {
    gr_sp_t *sp = mk(0);
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 4));
    const gr_sp_offsets_t ab[] = {{0, 4}};
    drop(sp, r, ab, 1, NULL);
    ASSERT_EQ(r->n, 0);
    ASSERT_EQ(r->n_records, 0);
    ASSERT_EQ(r->read_first, -1);
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    ASSERT_EQ(gr_sp_acquired_count(sp), 0);
    /* Aborted ranges outside what was acquired change nothing. */
    r = acq(sp, "A", 500, 500, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(5, 6));
    const gr_sp_offsets_t far[] = {{0, 4}, {20, 30}};
    drop(sp, r, far, 2, NULL);
    ASSERT_EQ(r->n, 1);
    expect_range(r, 0, 5, 6, 1);
    gr_sp_destroy(sp);
}

/* A redelivery (count 2) of records found aborted archives them with count 2. */
static void test_redelivery(void) {
    gr_sp_t *sp = mk(0);
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 3, 4, 6));
    ASSERT_EQ(ack1(sp, "A", 0, 6, GR_SP_ACK_RELEASE, 1100), GR_ERR_NONE);
    r = acq(sp, "B", 500, 500, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1200, LB(0, 3, 4, 6));
    ASSERT_EQ(r->n_records, 7);
    const gr_sp_offsets_t ab[] = {{4, 6}};
    drop(sp, r, ab, 1, NULL);
    ASSERT_EQ(r->n_records, 4);
    ASSERT_EQ(st(sp, 4), GR_SP_ARCHIVED);
    ASSERT_EQ(cnt(sp, 4), 2);
    ASSERT_EQ(st(sp, 3), GR_SP_ACQUIRED);
    gr_sp_destroy(sp);
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_at_start);
    RUN_TEST(test_middle);
    RUN_TEST(test_all);
    RUN_TEST(test_redelivery);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
