/* Deterministic unit tests of the share-partition state machine
 * (src/share/sp.h): every transition and error of spec §1, §2.5, §3.3–3.5,
 * driven with a fake clock. */
#include <stdint.h>

#include "sp_test_util.h"

/* §1.12, step by step. */
static void test_worked_example(void) {
    gr_sp_t *sp = mk(100);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 100);
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, 0, &CONF, 0, LB(100, 109));
    ASSERT_EQ(r->n, 1);
    expect_range(r, 0, 100, 109, 1);
    ASSERT_EQ(gr_sp_range_count(sp), 1);
    ASSERT_EQ(gr_sp_next_deadline(sp), 30000);
    /* Step 2: three batches in one request. */
    int8_t acc = GR_SP_ACK_ACCEPT, rel = GR_SP_ACK_RELEASE;
    gr_sp_ack_batch_t b[3] = {{100, 103, &acc, 1}, {104, 104, &rel, 1}, {105, 109, &acc, 1}};
    gr_sp_ack_req_t req = {"A", b, 3, false, true};
    ASSERT_EQ(gr_sp_acknowledge(sp, &req, &CONF, 1000, &d, NULL, 0), GR_ERR_NONE);
    chk(sp, &CONF);
    ASSERT_EQ(gr_sp_start_offset(sp), 104);
    ASSERT_EQ(st(sp, 104), GR_SP_AVAILABLE);
    ASSERT_EQ(cnt(sp, 104), 1);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 5);
    ASSERT(d.changed);
    ASSERT_EQ(d.start_offset, 104);
    ASSERT_EQ(d.delivery_complete_count, 5);
    ASSERT_EQ(d.n, 2); /* 104 AVAILABLE(1), 105-109 ACKNOWLEDGED(1) */
    ASSERT_EQ(d.batches[0].first_offset, 104);
    ASSERT_EQ(d.batches[0].state, GR_SP_AVAILABLE);
    ASSERT_EQ(d.batches[1].first_offset, 105);
    ASSERT_EQ(d.batches[1].last_offset, 109);
    ASSERT_EQ(d.batches[1].state, GR_SP_ACKNOWLEDGED);
    /* Step 3: B gets 104 with count 2; its lock expires. */
    int64_t now = 2000;
    for (int c = 2; c <= 5; c++) {
        ASSERT_EQ(gr_sp_next_fetch_offset(sp), 104);
        r = acq(sp, "B", 500, 500, 0, &CONF, now, LB(100, 109));
        ASSERT_EQ(r->n, 1);
        expect_range(r, 0, 104, 104, c);
        gr_sp_delta_reset(&d);
        ASSERT_EQ(gr_sp_expire(sp, &CONF, now + 29999, &d), now + 30000);
        ASSERT_EQ(st(sp, 104), GR_SP_ACQUIRED);
        int64_t next = gr_sp_expire(sp, &CONF, now + 30000, &d);
        chk(sp, &CONF);
        ASSERT_EQ(next, INT64_MAX);
        now += 30000;
        if (c < 5) {
            ASSERT_EQ(st(sp, 104), GR_SP_AVAILABLE);
            ASSERT_EQ(cnt(sp, 104), c);
            ASSERT_EQ(d.n, 1);
            ASSERT_EQ(d.batches[0].delivery_count, c);
        }
    }
    /* Step 4: the 5th expiry archives it; the cache empties. */
    ASSERT_EQ(gr_sp_start_offset(sp), 110);
    ASSERT_EQ(gr_sp_end_offset(sp), 110);
    ASSERT_EQ(gr_sp_range_count(sp), 0);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 0);
    ASSERT_EQ(d.start_offset, 110);
    ASSERT_EQ(d.n, 0); /* the archived 104 is below the new SPSO */
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

/* §1.12 step 5: the session closes while B holds 104 with count 2. */
static void test_member_release(void) {
    gr_sp_t *sp = mk(100);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(100, 109));
    ASSERT_EQ(ack1(sp, "A", 104, 104, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    gr_sp_acquire_res_t *r = acq(sp, "B", 500, 500, 0, &CONF, 0, LB(100, 109));
    expect_range(r, 0, 104, 104, 2);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "B", &d), 1);
    chk(sp, &CONF);
    ASSERT_EQ(st(sp, 104), GR_SP_AVAILABLE);
    ASSERT_EQ(cnt(sp, 104), 2); /* Kafka 4.4.0 keeps the count */
    ASSERT_EQ(d.n, 1);
    ASSERT_EQ(d.batches[0].delivery_count, 2);
    /* At the limit a session-end release archives, like a lock expiry: count 5 → ARCHIVED. */
    for (int i = 0; i < 2; i++) {
        acq(sp, "C", 500, 500, 0, &CONF, 0, LB(100, 109));
        ASSERT_EQ(ack1(sp, "C", 104, 104, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    }
    ASSERT_EQ(cnt(sp, 104), 4);
    r = acq(sp, "C", 500, 500, 0, &CONF, 0, LB(100, 109));
    expect_range(r, 0, 104, 104, 5);
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "C", NULL), 1);
    ASSERT_EQ(st(sp, 104), GR_SP_ARCHIVED);
    ASSERT_EQ(cnt(sp, 104), 5);
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "nobody", NULL), 0);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

static void test_partial_ack_split(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    ASSERT_EQ(gr_sp_range_count(sp), 1);
    ASSERT_EQ(ack1(sp, "A", 3, 5, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_range_count(sp), 3);
    ASSERT_EQ(st(sp, 2), GR_SP_ACQUIRED);
    ASSERT_EQ(st(sp, 3), GR_SP_ACKNOWLEDGED);
    ASSERT_EQ(st(sp, 6), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_start_offset(sp), 0);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 3);
    ASSERT_EQ(ack1(sp, "A", 0, 2, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 6); /* §1.7 */
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 0);
    ASSERT_EQ(gr_sp_range_count(sp), 1); /* pruned */
    /* The split halves are per-offset tracked: a release redelivers per offset. */
    ASSERT_EQ(ack1(sp, "A", 6, 9, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    gr_sp_acquire_res_t *r = acq(sp, "B", 500, 500, 0, &CONF, 0, LB(0, 9));
    ASSERT_EQ(r->n, 4);
    expect_range(r, 0, 6, 6, 2);
    expect_range(r, 3, 9, 9, 2);
    ASSERT_EQ(r->read_first, 6);
    ASSERT_EQ(r->read_last, 9);
    gr_sp_destroy(sp);
}

static void test_per_offset_types(void) {
    gr_sp_t *sp = mk(0);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 4));
    int8_t t[5] = {GR_SP_ACK_RENEW, GR_SP_ACK_ACCEPT, GR_SP_ACK_RELEASE, GR_SP_ACK_REJECT, GR_SP_ACK_GAP};
    ASSERT_EQ(ackv(sp, "A", 0, 4, t, 5, 1000, &d), GR_ERR_NONE);
    ASSERT_EQ(st(sp, 0), GR_SP_ACQUIRED);
    int64_t dl;
    ASSERT(gr_sp_record(sp, 0, NULL, NULL, NULL, &dl));
    ASSERT_EQ(dl, 31000);
    ASSERT_EQ(st(sp, 1), GR_SP_ACKNOWLEDGED);
    ASSERT_EQ(st(sp, 2), GR_SP_AVAILABLE);
    ASSERT_EQ(st(sp, 3), GR_SP_ARCHIVED);
    ASSERT_EQ(st(sp, 4), GR_SP_ARCHIVED);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 3);
    /* Delta: 1 ACK, 2 AVAILABLE, 3-4 ARCHIVED; the renewed 0 is not persisted. */
    ASSERT_EQ(d.n, 3);
    ASSERT_EQ(d.batches[0].first_offset, 1);
    ASSERT_EQ(d.batches[2].first_offset, 3);
    ASSERT_EQ(d.batches[2].last_offset, 4);
    ASSERT_EQ(d.batches[2].state, GR_SP_ARCHIVED);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

static void test_release_redelivery_and_reject(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 4, 5, 9));
    ASSERT_EQ(ack1(sp, "A", 0, 9, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_range_count(sp), 1);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 0);
    /* The whole cached batch comes back as one range with count 2. */
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 4, 5, 9));
    ASSERT_EQ(r->n, 1);
    expect_range(r, 0, 0, 9, 2);
    ASSERT_EQ(ack1(sp, "A", 0, 9, GR_SP_ACK_REJECT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 10);
    ASSERT_EQ(gr_sp_range_count(sp), 0);
    /* RELEASE at the limit archives (§1.3 rule 2). */
    gr_sp_conf_t c2 = {2, 2000, 30000};
    acq(sp, "A", 500, 500, 0, &c2, 0, LB(10, 14));
    ASSERT_EQ(ack1(sp, "A", 10, 14, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    acq(sp, "A", 500, 500, 0, &c2, 0, LB(10, 14));
    gr_sp_ack_batch_t b = {10, 14, (const int8_t[]){GR_SP_ACK_RELEASE}, 1};
    gr_sp_ack_req_t req = {"A", &b, 1, false, true};
    ASSERT_EQ(gr_sp_acknowledge(sp, &req, &c2, 0, NULL, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 15);
    gr_sp_destroy(sp);
}

static void test_gap_acks(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 3, 6, 9)); /* 4-5 compacted away */
    ASSERT_EQ(ack1(sp, "A", 0, 3, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "A", 4, 5, GR_SP_ACK_GAP, 0), GR_ERR_NONE);
    ASSERT_EQ(st(sp, 4), -1); /* pruned: SPSO moved past */
    ASSERT_EQ(gr_sp_start_offset(sp), 6);
    ASSERT_EQ(ack1(sp, "A", 6, 9, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 10);
    gr_sp_destroy(sp);
}

static void test_lock_expiry_and_limit(void) {
    gr_sp_t *sp = mk(0);
    int64_t now = 1000;
    ASSERT_EQ(gr_sp_next_deadline(sp), INT64_MAX);
    for (int c = 1; c <= 5; c++) {
        gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, 0, &CONF, now, LB(0, 0));
        expect_range(r, 0, 0, 0, c);
        ASSERT_EQ(gr_sp_next_deadline(sp), now + 30000);
        ASSERT_EQ(gr_sp_expire(sp, &CONF, now + 100, NULL), now + 30000);
        now += 30000;
        gr_sp_expire(sp, &CONF, now, NULL);
        chk(sp, &CONF);
    }
    /* The 5th expiry archives (count 5 = limit). */
    ASSERT_EQ(gr_sp_start_offset(sp), 1);
    ASSERT_EQ(gr_sp_acquired_count(sp), 0);
    gr_sp_destroy(sp);
}

/* §1.5 as Apache Kafka 4.4.0: the budget is min(MaxRecords, cap − span) and a
 * new acquisition runs to the end of the log batch that reaches it. */
static void test_record_lock_cap(void) {
    gr_sp_conf_t c = {5, 10, 30000};
    gr_sp_t *sp = mk(0);
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, 0, &c, 0, LB(0, 7, 8, 15, 16, 23));
    ASSERT_EQ(r->n_records, 16); /* budget 10 reaches 9: the batch 8-15 is acquired whole */
    expect_range(r, 0, 0, 15, 1);
    ASSERT_EQ(gr_sp_span(sp), 16);
    ASSERT(!gr_sp_can_acquire(sp, &c));
    r = acq(sp, "B", 500, 500, 0, &c, 0, LB(16, 23));
    ASSERT_EQ(r->n, 0); /* a fetch past the cap acquires nothing */
    /* Re-acquisition inside the window is still allowed. */
    ASSERT_EQ(ack1(sp, "A", 5, 5, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    ASSERT(gr_sp_can_acquire(sp, &c));
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 5);
    r = acq(sp, "B", 500, 500, 0, &c, 0, LB(0, 7, 8, 15, 16, 23));
    ASSERT_EQ(r->n, 1); /* at the cap: nothing past SPEO */
    expect_range(r, 0, 5, 5, 2);
    /* SPSO moving frees room: cap − span = 10 − 8 = 2 records, extended to the batch end. */
    int8_t acc = GR_SP_ACK_ACCEPT;
    ASSERT_EQ(ackv(sp, "A", 0, 4, &acc, 1, 0, NULL), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "B", 5, 5, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 6);
    ASSERT(!gr_sp_can_acquire(sp, &c)); /* span 10 */
    ASSERT_EQ(ackv(sp, "A", 6, 7, &acc, 1, 0, NULL), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_span(sp), 8);
    r = acq(sp, "B", 500, 500, 0, &c, 0, LB(16, 23, 24, 31));
    ASSERT_EQ(r->n_records, 8);
    expect_range(r, 0, 16, 23, 1);
    ASSERT_EQ(gr_sp_span(sp), 16);
    gr_sp_destroy(sp);

    /* record_limit: exactly the budget, the rest of its log batch cached
     * AVAILABLE; the next fetch takes that rest although the span is over the cap. */
    sp = mk(0);
    r = acq(sp, "A", 500, 500, GR_SP_MODE_RECORD_LIMIT, &c, 0, LB(0, 7, 8, 15, 16, 23));
    ASSERT_EQ(r->n_records, 10);
    expect_range(r, 0, 0, 9, 1);
    ASSERT_EQ(gr_sp_end_offset(sp), 15);
    ASSERT_EQ(st(sp, 10), GR_SP_AVAILABLE);
    ASSERT(gr_sp_can_acquire(sp, &c));
    r = acq(sp, "B", 500, 500, GR_SP_MODE_RECORD_LIMIT, &c, 0, LB(8, 15, 16, 23));
    ASSERT_EQ(r->n_records, 6); /* SPEO − fetch offset + 1 */
    expect_range(r, 0, 10, 10, 1);
    expect_range(r, 5, 15, 15, 1);
    ASSERT_EQ(gr_sp_end_offset(sp), 15);
    ASSERT(!gr_sp_can_acquire(sp, &c));
    gr_sp_destroy(sp);

    /* Below the cap the same budget limits redelivery: cap 20, span 10, two
     * released batches of 5 fill it, so no new record follows them. */
    c.max_record_locks = 20;
    sp = mk(0);
    r = acq(sp, "A", 500, 5, 0, &c, 0, LB(0, 4, 5, 9, 10, 14));
    ASSERT_EQ(r->n, 3);
    ASSERT_EQ(ackv(sp, "A", 0, 4, &acc, 1, 0, NULL), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "A", 5, 14, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    r = acq(sp, "B", 500, 5, 0, &c, 0, LB(5, 9, 10, 14, 15, 19, 20, 24, 25, 29));
    ASSERT_EQ(r->n_records, 10);
    ASSERT_EQ(r->n, 2);
    expect_range(r, 0, 5, 9, 2);
    expect_range(r, 1, 10, 14, 2);
    ASSERT_EQ(gr_sp_end_offset(sp), 14);
    /* With room 10 and MaxRecords 3 the budget is 3: one batch of 5. */
    ASSERT_EQ(ack1(sp, "B", 5, 9, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "B", 10, 14, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    r = acq(sp, "B", 3, 3, 0, &c, 0, LB(15, 19, 20, 24, 25, 29));
    ASSERT_EQ(r->n_records, 5);
    expect_range(r, 0, 15, 19, 1);
    gr_sp_destroy(sp);
}

static void test_acquire_modes(void) {
    /* Log batches of 5 records. */
    gr_sp_t *sp = mk(0);
    gr_sp_acquire_res_t *r = acq(sp, "A", 7, 7, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 0, LB(0, 4, 5, 9, 10, 14, 15, 19));
    ASSERT_EQ(r->n, 1); /* MaxRecords soft: whole batches up to 9 */
    expect_range(r, 0, 0, 9, 1);
    r = acq(sp, "A", 12, 5, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 0, LB(10, 14, 15, 19, 20, 24));
    ASSERT_EQ(r->n, 3); /* BatchSize 5: break at each base offset */
    expect_range(r, 0, 10, 14, 1);
    expect_range(r, 2, 20, 24, 1);
    ASSERT_EQ(gr_sp_range_count(sp), 4);
    gr_sp_destroy(sp);

    sp = mk(0);
    r = acq(sp, "A", 7, 7, GR_SP_MODE_RECORD_LIMIT, &CONF, 0, LB(0, 4, 5, 9, 10, 14));
    ASSERT_EQ(r->n, 1);
    expect_range(r, 0, 0, 6, 1);        /* never more than MaxRecords */
    ASSERT_EQ(gr_sp_end_offset(sp), 9); /* the batch 5-9 is cached whole */
    ASSERT_EQ(st(sp, 7), GR_SP_AVAILABLE);
    ASSERT_EQ(cnt(sp, 7), 0);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 7);
    r = acq(sp, "B", 2, 2, GR_SP_MODE_RECORD_LIMIT, &CONF, 0, LB(5, 9, 10, 14));
    ASSERT_EQ(r->n, 2); /* per-offset from the split batch */
    expect_range(r, 0, 7, 7, 1);
    expect_range(r, 1, 8, 8, 1);
    r = acq(sp, "B", 3, 3, GR_SP_MODE_RECORD_LIMIT, &CONF, 0, LB(5, 9, 10, 14));
    ASSERT_EQ(r->n_records, 3);
    expect_range(r, 0, 9, 9, 1);
    expect_range(r, 1, 10, 11, 1);
    gr_sp_destroy(sp);

    /* batch_optimized on a split AVAILABLE run stops at a log-batch end. */
    sp = mk(0);
    acq(sp, "A", 100, 100, 0, &CONF, 0, LB(0, 4, 5, 9, 10, 14));
    int8_t t[15];
    for (int i = 0; i < 15; i++) t[i] = GR_SP_ACK_RELEASE;
    ASSERT_EQ(ackv(sp, "A", 0, 14, t, 15, 0, NULL), GR_ERR_NONE);
    r = acq(sp, "A", 3, 3, 0, &CONF, 0, LB(0, 4, 5, 9, 10, 14));
    ASSERT_EQ(r->n_records, 5);
    ASSERT_EQ(r->n, 5);
    gr_sp_destroy(sp);
    /* MaxRecords 0 acquires nothing. */
    sp = mk(0);
    r = acq(sp, "A", 0, 0, 0, &CONF, 0, LB(0, 4));
    ASSERT_EQ(r->n, 0);
    gr_sp_destroy(sp);
}

static void test_spso_pruning_dcc(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 10, 0, &CONF, 0, LB(0, 9, 10, 19, 20, 29, 30, 39));
    ASSERT_EQ(gr_sp_range_count(sp), 4);
    ASSERT_EQ(ack1(sp, "A", 10, 29, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 20);
    ASSERT_EQ(gr_sp_range_count(sp), 3); /* terminal ranges coalesce */
    ASSERT_EQ(ack1(sp, "A", 0, 4, GR_SP_ACK_REJECT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 20);
    ASSERT_EQ(ack1(sp, "A", 5, 9, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 30);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 0);
    ASSERT_EQ(gr_sp_range_count(sp), 1);
    ASSERT_EQ(gr_sp_span(sp), 10);
    ASSERT_EQ(ack1(sp, "A", 30, 39, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 40);
    ASSERT_EQ(gr_sp_span(sp), 0);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 40);
    gr_sp_destroy(sp);
}

static void test_log_start_moves(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    acq(sp, "B", 500, 500, 0, &CONF, 0, LB(10, 19));
    ASSERT_EQ(ack1(sp, "A", 0, 4, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "A", 5, 6, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    gr_sp_update_log_start(sp, 15, &d);
    chk(sp, &CONF);
    ASSERT_EQ(gr_sp_start_offset(sp), 15);
    ASSERT(d.changed);
    ASSERT_EQ(d.start_offset, 15);
    ASSERT_EQ(st(sp, 0), -1);             /* AVAILABLE below: archived and dropped */
    ASSERT_EQ(st(sp, 7), GR_SP_ACQUIRED); /* ACQUIRED below: kept until expiry/ack */
    ASSERT_EQ(st(sp, 12), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 0);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 20);
    /* A batch entirely below SPSO is ignored; a straddling one archives A's part. */
    ASSERT_EQ(ack1(sp, "A", 7, 9, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(st(sp, 7), GR_SP_ACQUIRED);
    ASSERT_EQ(ack1(sp, "B", 10, 16, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    ASSERT_EQ(st(sp, 12), -1);
    ASSERT_EQ(st(sp, 15), GR_SP_AVAILABLE);
    /* Expiry archives the rest below SPSO. */
    gr_sp_expire(sp, &CONF, 30000, NULL);
    chk(sp, &CONF);
    ASSERT_EQ(st(sp, 7), -1);
    ASSERT_EQ(gr_sp_acquired_count(sp), 0);
    /* Log start past the whole window empties it. */
    gr_sp_update_log_start(sp, 100, &d);
    chk(sp, &CONF);
    ASSERT_EQ(gr_sp_start_offset(sp), 100);
    ASSERT_EQ(gr_sp_range_count(sp), 0);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 100);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

static void test_init_persisted_gap_window(void) {
    gr_sp_t *sp = gr_sp_new();
    gr_sp_batch_t pb[] = {
        {105, 109, GR_SP_ACKNOWLEDGED, 1, 0}, {112, 114, GR_SP_AVAILABLE, 2, 0}, {115, 119, GR_SP_ARCHIVED, 3, 0}};
    char why[128];
    ASSERT_EQ(gr_sp_init_persisted(sp, 100, 7, pb, 3, why, sizeof(why)), GR_ERR_NONE);
    chk(sp, &CONF);
    ASSERT_EQ(gr_sp_state_epoch(sp), 7);
    ASSERT_EQ(gr_sp_start_offset(sp), 100);
    ASSERT_EQ(gr_sp_end_offset(sp), 119);
    ASSERT_EQ(gr_sp_delivery_complete_count(sp), 10);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 100); /* the gap window first */
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, 0, &CONF, 0, LB(100, 104, 105, 111, 112, 119));
    ASSERT_EQ(r->n, 3);
    expect_range(r, 0, 100, 104, 1); /* hole */
    expect_range(r, 1, 110, 111, 1); /* hole */
    expect_range(r, 2, 112, 114, 3); /* persisted AVAILABLE(2) */
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 120);
    /* Export shows ACQUIRED as the last persisted state; holes stay holes. */
    gr_sp_snapshot_t s;
    gr_sp_delta_init(&s);
    gr_sp_export(sp, &s);
    ASSERT_EQ(s.start_offset, 100);
    ASSERT_EQ(s.n, 3);
    ASSERT_EQ(s.batches[1].first_offset, 112);
    ASSERT_EQ(s.batches[1].state, GR_SP_AVAILABLE);
    ASSERT_EQ(s.batches[1].delivery_count, 2);
    /* Restart from the export: the same persisted view. */
    gr_sp_t *sp2 = gr_sp_new();
    ASSERT_EQ(gr_sp_init_persisted(sp2, s.start_offset, s.state_epoch, s.batches, s.n, NULL, 0), GR_ERR_NONE);
    chk(sp2, &CONF);
    ASSERT_EQ(cnt(sp2, 112), 2);
    ASSERT_EQ(st(sp2, 100), -1);
    /* Corrupt persisted state. */
    gr_sp_batch_t bad[] = {{90, 99, GR_SP_ARCHIVED, 1, 0}};
    ASSERT_EQ(gr_sp_init_persisted(sp2, 100, 0, bad, 1, why, sizeof(why)), GR_ERR__MALFORMED);
    gr_sp_batch_t bad2[] = {{100, 109, GR_SP_ACQUIRED, 1, 0}};
    ASSERT_EQ(gr_sp_init_persisted(sp2, 100, 0, bad2, 1, why, sizeof(why)), GR_ERR__MALFORMED);
    gr_sp_batch_t ov[] = {{100, 109, 2, 1, 0}, {105, 110, 2, 1, 0}};
    ASSERT_EQ(gr_sp_init_persisted(sp2, 100, 0, ov, 2, why, sizeof(why)), GR_ERR__MALFORMED);
    /* Persisted terminal records at SPSO advance it at once. */
    gr_sp_batch_t done[] = {{100, 109, GR_SP_ACKNOWLEDGED, 1, 0}};
    ASSERT_EQ(gr_sp_init_persisted(sp2, 100, 0, done, 1, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp2), 110);
    gr_sp_delta_free(&s);
    gr_sp_destroy(sp2);
    gr_sp_destroy(sp);
}

static void test_poison_isolation(void) {
    /* limit 5 → throttle limit 3. */
    gr_sp_t *sp = mk(0);
    for (int i = 0; i < 3; i++) {
        acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
        ASSERT_EQ(ack1(sp, "A", 0, 9, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    }
    ASSERT_EQ(cnt(sp, 0), 3);
    /* count 3: at most 10 >> 1 = 5 records, per offset. */
    gr_sp_acquire_res_t *r = acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    ASSERT_EQ(r->n_records, 5);
    ASSERT_EQ(r->n, 5);
    expect_range(r, 0, 0, 0, 4);
    /* count 4 = limit − 1: delivered alone. */
    ASSERT_EQ(ack1(sp, "A", 0, 4, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    r = acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    ASSERT_EQ(r->n_records, 1);
    expect_range(r, 0, 0, 0, 5);
    /* Stop before a throttled record once others were acquired. */
    ASSERT_EQ(ack1(sp, "A", 0, 0, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    gr_sp_destroy(sp);

    sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 4, 5, 9));
    for (int i = 0; i < 2; i++) {
        ASSERT_EQ(ack1(sp, "A", 5, 9, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
        acq(sp, "A", 500, 500, 0, &CONF, 0, LB(5, 9));
    }
    ASSERT_EQ(ack1(sp, "A", 0, 9, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    ASSERT_EQ(cnt(sp, 0), 1);
    ASSERT_EQ(cnt(sp, 5), 3);
    r = acq(sp, "B", 500, 500, 0, &CONF, 0, LB(0, 4, 5, 9));
    ASSERT_EQ(r->n_records, 5);  /* stops before the throttled 5-9 */
    expect_range(r, 0, 0, 0, 2); /* the batch was exploded by the partial release */
    expect_range(r, 4, 4, 4, 2);
    gr_sp_destroy(sp);
}

static void test_compacted_away(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    ASSERT_EQ(ack1(sp, "A", 0, 9, GR_SP_ACK_RELEASE, 0), GR_ERR_NONE);
    /* The log now starts at 12 (0-11 compacted): the cached entries between
     * the fetch offset and the returned base offset are archived. */
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    gr_sp_acquire_res_t res;
    gr_sp_acquire_res_init(&res);
    gr_sp_log_batch_t lb = {12, 15};
    gr_sp_acquire_req_t req = {"A", 100, 100, 0, &lb, 1};
    ASSERT_EQ(gr_sp_acquire(sp, &req, &CONF, 0, &res, &d), GR_ERR_NONE);
    chk(sp, &CONF);
    ASSERT_EQ(res.n, 1);
    ASSERT_EQ(res.ranges[0].first_offset, 10); /* 10-11 never existed: client GAPs them */
    ASSERT_EQ(res.ranges[0].last_offset, 15);
    ASSERT_EQ(gr_sp_start_offset(sp), 10);
    ASSERT(d.changed);
    ASSERT_EQ(d.start_offset, 10);
    /* Empty window and a later log: SPSO jumps. */
    ASSERT_EQ(ack1(sp, "A", 10, 15, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    lb = (gr_sp_log_batch_t){20, 25};
    ASSERT_EQ(gr_sp_acquire(sp, &req, &CONF, 0, &res, NULL), GR_ERR_NONE);
    ASSERT_EQ(res.ranges[0].first_offset, 20);
    ASSERT_EQ(gr_sp_start_offset(sp), 20);
    chk(sp, &CONF);
    gr_sp_acquire_res_free(&res);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

static void test_many_locks(void) {
    /* Thousands of single-record locks with distinct deadlines. */
    gr_sp_conf_t c = {5, 10000, 1000};
    gr_sp_t *sp = mk(0);
    for (int i = 0; i < 5000; i++) {
        int64_t lb[2] = {i, i};
        acq(sp, i % 2 ? "A" : "B", 1, 1, 0, &c, i, lb, 1);
    }
    ASSERT_EQ(gr_sp_acquired_count(sp), 5000);
    ASSERT_EQ(gr_sp_next_deadline(sp), 1000);
    int64_t next = gr_sp_expire(sp, &c, 3499, NULL);
    ASSERT_EQ(next, 3500);
    ASSERT_EQ(gr_sp_acquired_count(sp), 2500);
    ASSERT_EQ(gr_sp_next_fetch_offset(sp), 0);
    ASSERT_EQ(gr_sp_range_count(sp), 5000); /* cached batches keep their identity */
    ASSERT_EQ(gr_sp_release_member(sp, &c, "A", NULL), 1250);
    chk(sp, &c);
    ASSERT_EQ(gr_sp_expire(sp, &c, 10000, NULL), INT64_MAX);
    ASSERT_EQ(gr_sp_acquired_count(sp), 0);
    gr_sp_destroy(sp);
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_worked_example);
    RUN_TEST(test_member_release);
    RUN_TEST(test_partial_ack_split);
    RUN_TEST(test_per_offset_types);
    RUN_TEST(test_release_redelivery_and_reject);
    RUN_TEST(test_gap_acks);
    RUN_TEST(test_lock_expiry_and_limit);
    RUN_TEST(test_record_lock_cap);
    RUN_TEST(test_acquire_modes);
    RUN_TEST(test_spso_pruning_dcc);
    RUN_TEST(test_log_start_moves);
    RUN_TEST(test_init_persisted_gap_window);
    RUN_TEST(test_poison_isolation);
    RUN_TEST(test_compacted_away);
    RUN_TEST(test_many_locks);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
