/* Share-partition metrics (gr_sp_set_stats, share/share_stats.h): exact
 * counts for each transition, W measured from the acquisition (RENEW keeps
 * it), nothing counted for refused acknowledgements, and a rollback restores
 * the counters. A randomized run checks that every acquisition ends in
 * exactly one counted way. */
#include <stdint.h>

#include "share/share_stats.h"
#include "share/sp.h"
#include "share/sp_int.h"
#include "testutil.h"

static const gr_sp_conf_t CONF = {3, 2000, 30000}; /* delivery limit 3, lock 30 s */

static void chk(const gr_sp_t *sp) {
    char why[256];
    if (gr_sp_check(sp, &CONF, why, sizeof(why))) GR__FAIL("invariant: %s", why);
}

static gr_sp_acquire_res_t g_res;

static int64_t acquire(gr_sp_t *sp, const char *m, int64_t now, int64_t base, int64_t last) {
    gr_sp_log_batch_t b = {base, last};
    gr_sp_acquire_req_t req = {m, 100, 100, GR_SP_MODE_BATCH_OPTIMIZED, &b, 1};
    ASSERT_EQ(gr_sp_acquire(sp, &req, &CONF, now, &g_res, NULL), GR_ERR_NONE);
    chk(sp);
    return g_res.n_records;
}

static gr_err_t ack(gr_sp_t *sp, const char *m, int64_t first, int64_t last, int8_t type, int64_t now) {
    gr_sp_ack_batch_t b = {first, last, &type, 1};
    gr_sp_ack_req_t req = {m, &b, 1, true, true};
    gr_err_t err = gr_sp_acknowledge(sp, &req, &CONF, now, NULL, NULL, 0);
    chk(sp);
    return err;
}

#define ACKS(st, t) ((st)->acks[GR_SHARE_ACK_##t])
#define ARCH(st, r) ((st)->archived[GR_SHARE_ARCHIVE_##r])

static void expect(const gr_share_stats_t *st, uint64_t acquired, uint64_t redeliveries, uint64_t accept,
                   uint64_t release, uint64_t reject, uint64_t renew, uint64_t gap, uint64_t timeouts,
                   uint64_t a_reject, uint64_t a_limit, uint64_t a_log_start) {
    ASSERT_EQ(st->acquired, acquired);
    ASSERT_EQ(st->redeliveries, redeliveries);
    ASSERT_EQ(ACKS(st, ACCEPT), accept);
    ASSERT_EQ(ACKS(st, RELEASE), release);
    ASSERT_EQ(ACKS(st, REJECT), reject);
    ASSERT_EQ(ACKS(st, RENEW), renew);
    ASSERT_EQ(ACKS(st, GAP), gap);
    ASSERT_EQ(st->lock_timeouts, timeouts);
    ASSERT_EQ(ARCH(st, REJECT), a_reject);
    ASSERT_EQ(ARCH(st, DELIVERY_LIMIT), a_limit);
    ASSERT_EQ(ARCH(st, LOG_START), a_log_start);
    /* W is observed once per ACCEPT, REJECT or RELEASE record. */
    ASSERT_EQ(st->in_flight.count, accept + release + reject);
}

/* The whole life of records 0-19, every counter checked after each step. */
static void test_exact(void) {
    gr_share_stats_t st = {0}, before;
    gr_sp_t *sp = gr_sp_new();
    gr_sp_set_stats(sp, &st);
    gr_sp_init_offset(sp, 0, 0);
    ASSERT_EQ(acquire(sp, "m1", 1000, 0, 9), 10);
    expect(&st, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    ASSERT_EQ(ack(sp, "m1", 0, 1, GR_SP_ACK_ACCEPT, 1500), GR_ERR_NONE);  /* W 0.5 s */
    ASSERT_EQ(ack(sp, "m1", 2, 3, GR_SP_ACK_RELEASE, 2000), GR_ERR_NONE); /* W 1 s */
    ASSERT_EQ(ack(sp, "m1", 4, 4, GR_SP_ACK_REJECT, 2000), GR_ERR_NONE);  /* W 1 s */
    expect(&st, 10, 0, 2, 2, 1, 0, 0, 0, 1, 0, 0);
    ASSERT_EQ(ack(sp, "m1", 5, 6, GR_SP_ACK_RENEW, 3000), GR_ERR_NONE);
    ASSERT_EQ(ack(sp, "m1", 5, 5, GR_SP_ACK_ACCEPT, 4000), GR_ERR_NONE); /* W 3 s: from the acquisition */
    ASSERT_EQ(ack(sp, "m1", 7, 7, GR_SP_ACK_GAP, 4000), GR_ERR_NONE);
    expect(&st, 10, 0, 3, 2, 1, 2, 1, 0, 1, 0, 0);

    /* Refused acknowledgements change nothing. */
    before = st;
    ASSERT_EQ(ack(sp, "m1", 0, 0, GR_SP_ACK_ACCEPT, 4000), GR_ERR_NONE);                 /* below SPSO: ignored */
    ASSERT_EQ(ack(sp, "m1", 4, 4, GR_SP_ACK_ACCEPT, 4000), GR_ERR_INVALID_RECORD_STATE); /* rejected already */
    ASSERT_EQ(ack(sp, "m2", 6, 6, GR_SP_ACK_ACCEPT, 4000), GR_ERR_INVALID_RECORD_STATE); /* not the owner */
    ASSERT_EQ(ack(sp, "m1", 6, 9, GR_SP_ACK_REJECT, 4000), GR_ERR_INVALID_RECORD_STATE); /* 7 is not acquired */
    ASSERT_MEMEQ(&st, &before, sizeof(st));

    /* Lock timeouts: 8-9 at 31 s, 6 (renewed at 3 s) at 33 s. */
    gr_sp_expire(sp, &CONF, 31000, NULL);
    expect(&st, 10, 0, 3, 2, 1, 2, 1, 2, 1, 0, 0);
    gr_sp_expire(sp, &CONF, 33000, NULL);
    expect(&st, 10, 0, 3, 2, 1, 2, 1, 3, 1, 0, 0);

    /* Redeliveries: 2, 3, 6, 8, 9 (count 2), released by the session (not counted), then count 3. */
    ASSERT_EQ(acquire(sp, "m2", 34000, 0, 9), 5);
    expect(&st, 15, 5, 3, 2, 1, 2, 1, 3, 1, 0, 0);
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "m2", NULL), 5);
    expect(&st, 15, 5, 3, 2, 1, 2, 1, 3, 1, 0, 0);
    int64_t got = 0; /* §1.9: the last allowed delivery goes one record at a time */
    for (int i = 0; i < 10 && got < 5; i++) got += acquire(sp, "m3", 35000, 0, 9);
    ASSERT_EQ(got, 5);
    expect(&st, 20, 10, 3, 2, 1, 2, 1, 3, 1, 0, 0);
    /* At the delivery limit: a RELEASE and lock timeouts archive. */
    ASSERT_EQ(ack(sp, "m3", 2, 2, GR_SP_ACK_RELEASE, 36000), GR_ERR_NONE); /* W 1 s */
    expect(&st, 20, 10, 3, 3, 1, 2, 1, 3, 1, 1, 0);
    gr_sp_expire(sp, &CONF, 65000, NULL);
    expect(&st, 20, 10, 3, 3, 1, 2, 1, 7, 1, 5, 0);
    ASSERT_EQ(gr_sp_start_offset(sp), 10);

    /* The log start moves past AVAILABLE (10-14) and ACQUIRED (15-16) records. */
    ASSERT_EQ(acquire(sp, "m1", 70000, 10, 19), 10);
    ASSERT_EQ(ack(sp, "m1", 10, 14, GR_SP_ACK_RELEASE, 71000), GR_ERR_NONE); /* W 1 s */
    gr_sp_update_log_start(sp, 12, NULL);
    expect(&st, 30, 10, 3, 8, 1, 2, 1, 7, 1, 5, 2);
    gr_sp_update_log_start(sp, 17, NULL);
    expect(&st, 30, 10, 3, 8, 1, 2, 1, 7, 1, 5, 5);
    ASSERT_EQ(ack(sp, "m1", 15, 17, GR_SP_ACK_ACCEPT, 72000), GR_ERR_NONE); /* W 2 s; 15-16 archived */
    expect(&st, 30, 10, 6, 8, 1, 2, 1, 7, 1, 5, 7);

    /* W: 0.5 s x2, 1 s x9, 2 s x3, 3 s x1. */
    ASSERT_EQ(st.in_flight.sum_us, 19000000);
    ASSERT_EQ(st.in_flight.bucket[37], 2); /* le 0.5 */
    ASSERT_EQ(st.in_flight.bucket[40], 9); /* le 1 */
    ASSERT_EQ(st.in_flight.bucket[43], 3); /* le 2 */
    ASSERT_EQ(st.in_flight.bucket[45], 1); /* le 3 */
    gr_sp_destroy(sp);
}

/* A rolled-back transition leaves the counters as they were; a committed one counts. */
static void test_rollback(void) {
    gr_share_stats_t st = {0}, before;
    gr_sp_t *sp = gr_sp_new();
    gr_sp_set_stats(sp, &st);
    gr_sp_init_offset(sp, 0, 0);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);

    gr_sp_begin(sp);
    ASSERT_EQ(acquire(sp, "m1", 1000, 0, 9), 10);
    ASSERT_EQ(st.acquired, 10);
    gr_sp_rollback(sp);
    ASSERT_EQ(st.acquired, 0);
    ASSERT_EQ(acquire(sp, "m1", 1000, 0, 9), 10); /* outside a transaction: counts at once */

    int8_t types[] = {GR_SP_ACK_ACCEPT, GR_SP_ACK_RELEASE, GR_SP_ACK_REJECT, GR_SP_ACK_GAP, GR_SP_ACK_RENEW};
    before = st;
    for (size_t i = 0; i < sizeof(types); i++) {
        gr_sp_begin(sp);
        ASSERT_EQ(ack(sp, "m1", 0, 4, types[i], 2000), GR_ERR_NONE);
        gr_sp_rollback(sp);
        ASSERT_MEMEQ(&st, &before, sizeof(st));
    }
    gr_sp_begin(sp);
    gr_sp_expire(sp, &CONF, 99000, &d);
    ASSERT_EQ(st.lock_timeouts, 10);
    gr_sp_rollback(sp);
    ASSERT_MEMEQ(&st, &before, sizeof(st));
    gr_sp_begin(sp);
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "m1", &d), 10);
    gr_sp_rollback(sp);
    gr_sp_begin(sp);
    gr_sp_update_log_start(sp, 5, &d);
    gr_sp_rollback(sp);
    ASSERT_MEMEQ(&st, &before, sizeof(st));

    gr_sp_begin(sp);
    ASSERT_EQ(ack(sp, "m1", 0, 4, GR_SP_ACK_REJECT, 2000), GR_ERR_NONE);
    gr_sp_commit(sp);
    expect(&st, 10, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

/* Counting stops without a sink and survives re-initialisation. */
static void test_sink(void) {
    gr_share_stats_t st = {0};
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    ASSERT_EQ(acquire(sp, "m1", 1000, 0, 4), 5);
    gr_sp_set_stats(sp, &st);
    gr_sp_init_offset(sp, 0, 0);
    ASSERT_EQ(acquire(sp, "m1", 1000, 0, 4), 5);
    ASSERT_EQ(st.acquired, 5);
    gr_sp_set_stats(sp, NULL);
    ASSERT_EQ(ack(sp, "m1", 0, 4, GR_SP_ACK_ACCEPT, 1000), GR_ERR_NONE);
    ASSERT_EQ(ACKS(&st, ACCEPT), 0);
    gr_sp_destroy(sp);
}

/* ---- randomized: every acquisition ends in exactly one counted way ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void test_random(void) {
    static const char *MEM[] = {"m0", "m1", "m2"};
    for (int seq = 0; seq < 100; seq++) {
        gr_share_stats_t st = {0};
        gr_sp_t *sp = gr_sp_new();
        gr_sp_set_stats(sp, &st);
        gr_sp_init_offset(sp, 0, 0);
        int64_t now = 0, released = 0, log_start = 0;
        for (int step = 0; step < 400; step++) {
            now += rnd(4000);
            const char *m = MEM[rnd(3)];
            int op = (int)rnd(20);
            if (op < 8) {
                int64_t next = gr_sp_next_fetch_offset(sp);
                if (gr_sp_can_acquire(sp, &CONF) && next < 300) acquire(sp, m, now, next, next + (int64_t)rnd(8));
            } else if (op < 17) {
                int64_t f = gr_sp_start_offset(sp) + rnd(12);
                (void)ack(sp, m, f, f + rnd(4), (int8_t)rnd(4), now); /* GAP, ACCEPT, RELEASE, REJECT */
            } else if (op < 18) {
                gr_sp_expire(sp, &CONF, now, NULL);
            } else if (op < 19) {
                released += gr_sp_release_member(sp, &CONF, m, NULL);
            } else {
                log_start += rnd(3);
                gr_sp_update_log_start(sp, log_start, NULL);
            }
            chk(sp);
            uint64_t ended = ACKS(&st, ACCEPT) + ACKS(&st, RELEASE) + ACKS(&st, REJECT) + ACKS(&st, GAP) +
                             st.lock_timeouts + (uint64_t)released;
            ASSERT_EQ(st.acquired, ended + (uint64_t)gr_sp_acquired_count(sp));
            ASSERT_EQ(st.in_flight.count, ACKS(&st, ACCEPT) + ACKS(&st, RELEASE) + ACKS(&st, REJECT));
            ASSERT(ARCH(&st, REJECT) <= ACKS(&st, REJECT)); /* below SPSO a REJECT counts as log_start */
        }
        gr_sp_destroy(sp);
    }
}

int main(void) {
#ifdef GR_NO_METRICS
    fprintf(stderr, "built with GR_METRICS=OFF: nothing is counted, nothing to test\n");
    return 0;
#endif
    RUN_TEST(test_exact);
    RUN_TEST(test_rollback);
    RUN_TEST(test_sink);
    RUN_TEST(test_random);
    return 0;
}
