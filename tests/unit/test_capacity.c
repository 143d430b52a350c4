/* The capacity view's computation (src/share/capacity.c): every value and every
 * verdict rule of docs/capacity.md. */
#include "share/capacity.h"

#include <math.h>
#include <string.h>

#include "testutil.h"

#define ASSERT_NEAR(a, b, eps)                                                             \
    do {                                                                                   \
        double _a = (a), _b = (b);                                                         \
        if (!(fabs(_a - _b) <= (eps))) GR__FAIL("%s ~ %s (%.9g vs %.9g)", #a, #b, _a, _b); \
    } while (0)

/* n acknowledgements of one type, each after holding the record w_us. */
static void acks(gr_share_stats_t *st, gr_share_ack_type_t type, uint64_t n, int64_t w_us) {
    for (uint64_t i = 0; i < n; i++) {
        st->acquired++;
        st->acks[type]++;
        if (type != GR_SHARE_ACK_RENEW && type != GR_SHARE_ACK_GAP) gr_hist_observe(&st->in_flight, w_us);
    }
}

static gr_cap_snap_t snap(const gr_share_stats_t *st, int64_t leo, int64_t t_ms) {
    gr_cap_snap_t s;
    gr_cap_snap_take(&s, st, leo, t_ms);
    return s;
}

static void test_snap_and_ring(void) {
    gr_share_stats_t st;
    memset(&st, 0, sizeof(st));
    acks(&st, GR_SHARE_ACK_ACCEPT, 5, 1000);
    acks(&st, GR_SHARE_ACK_REJECT, 2, 1000);
    acks(&st, GR_SHARE_ACK_RELEASE, 3, 1000);
    acks(&st, GR_SHARE_ACK_RENEW, 4, 0);
    acks(&st, GR_SHARE_ACK_GAP, 1, 0);
    gr_cap_snap_t s = snap(&st, 77, 1234);
    ASSERT_EQ(s.t_ms, 1234);
    ASSERT_EQ(s.log_end, 77);
    ASSERT_EQ(s.acquired, 15);
    ASSERT_EQ(s.acked, 10);
    ASSERT_EQ(s.completed, 7);
    ASSERT_EQ(s.w.count, 10);
    ASSERT_EQ(s.w.sum_us, 10000);

    gr_cap_ring_t r;
    gr_cap_ring_init(&r, &s);
    ASSERT_EQ(r.snap[0].t_ms, 1234);
    ASSERT_EQ(r.snap[1].t_ms, 1234);
    gr_cap_snap_t s2 = snap(&st, 80, 31234);
    gr_cap_ring_rotate(&r, &s2);
    ASSERT_EQ(r.snap[0].t_ms, 1234);
    ASSERT_EQ(r.snap[1].t_ms, 31234);
    ASSERT_EQ(r.snap[1].log_end, 80);
    gr_cap_snap_t s3 = snap(&st, 90, 61234);
    gr_cap_ring_rotate(&r, &s3);
    ASSERT_EQ(r.snap[0].t_ms, 31234);
    ASSERT_EQ(r.snap[1].t_ms, 61234);
}

static void test_verdict_strings(void) {
    ASSERT_STREQ(gr_cap_verdict_str(GR_CAP_IDLE), "idle");
    ASSERT_STREQ(gr_cap_verdict_str(GR_CAP_KEEPING_UP), "keeping up");
    ASSERT_STREQ(gr_cap_verdict_str(GR_CAP_RAISE_LOCKS), "raise record locks or partitions");
    ASSERT_STREQ(gr_cap_verdict_str(GR_CAP_MORE_CONSUMERS), "more consumers help");
    ASSERT_STREQ(gr_cap_verdict_str(GR_CAP_CONSUMERS_LIMIT), "the consumers or the destination are the limit");
    ASSERT_STREQ(gr_cap_verdict_str((gr_cap_verdict_t)99), "unknown");
}

/* A window of 40 s from t=0 (the ring's both snapshots) to now. */
typedef struct sim {
    gr_share_stats_t st;
    gr_cap_ring_t ring;
    gr_cap_snap_t now;
} sim_t;

static void sim_start(sim_t *s, int64_t leo) {
    memset(s, 0, sizeof(*s));
    gr_cap_snap_t s0 = snap(&s->st, leo, 0);
    gr_cap_ring_init(&s->ring, &s0);
}

static void sim_rotate(sim_t *s, int64_t leo, int64_t t_ms) {
    gr_cap_snap_t x = snap(&s->st, leo, t_ms);
    gr_cap_ring_rotate(&s->ring, &x);
}

static void sim_run(sim_t *s, int64_t leo, int64_t t_ms, int64_t cap, int64_t in_flight, int64_t lag,
                    gr_cap_out_t *out) {
    s->now = snap(&s->st, leo, t_ms);
    gr_cap_in_t in = {&s->ring, &s->now, cap, in_flight, lag};
    gr_cap_compute(&in, out);
}

/* A share-partition loaded a moment ago, its consumer gone: 50 acknowledgements in 4 ms
 * are no rate to call the backlog of 150 drained by. */
static void test_young_window(void) {
    sim_t s;
    sim_start(&s, 200);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 50, 100);
    gr_cap_out_t o;
    sim_run(&s, 200, 4, 2000, 0, 150, &o);
    ASSERT_NEAR(o.ack_rate, 12500.0, 1e-6); /* reported as measured ... */
    ASSERT(o.etd_s < 1);
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);              /* ... but not trusted to drain the backlog */
    sim_run(&s, 200, GR_CAP_MIN_WINDOW_MS, 2000, 0, 150, &o); /* 10/s over 5 s: ETD 15 s */
    ASSERT_EQ(o.verdict, GR_CAP_KEEPING_UP);
}

/* The cap binds: 100 locks held 0.5 s each, all the time: 200 records/s. */
static void test_cap_binds(void) {
    sim_t s;
    sim_start(&s, 1000);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 8000, 500000);
    gr_cap_out_t o;
    sim_run(&s, 1000, 40000, 100, 100, 50000, &o);
    ASSERT_NEAR(o.window_s, 40.0, 1e-9);
    ASSERT_EQ(o.cap, 100);
    ASSERT_EQ(o.in_flight, 100);
    ASSERT_EQ(o.lag, 50000);
    ASSERT_EQ(o.acked, 8000);
    ASSERT_EQ(o.w.count, 8000);
    ASSERT_NEAR(o.w_mean_s, 0.5, 1e-9);
    ASSERT_NEAR(o.w_p50_s, 0.45, 1e-9);  /* inside the (0.4, 0.5] bucket */
    ASSERT_NEAR(o.w_p99_s, 0.499, 1e-9); /* ditto */
    ASSERT_NEAR(o.in_flight_avg, 100.0, 1e-9);
    ASSERT_NEAR(o.ack_rate, 200.0, 1e-9);
    ASSERT_NEAR(o.drain_rate, 200.0, 1e-9);
    ASSERT_NEAR(o.produce_rate, 0.0, 1e-9);
    ASSERT_NEAR(o.ceiling, 200.0, 1e-9);
    ASSERT_NEAR(o.headroom, 1.0, 1e-9);
    ASSERT_NEAR(o.etd_s, 250.0, 1e-9);
    ASSERT_EQ(o.verdict, GR_CAP_RAISE_LOCKS);

    /* 90 % of the cap on average still binds; just below does not. */
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 7200, 500000); /* L = 3600 s / 40 s = 90 */
    sim_run(&s, 0, 40000, 100, 50, 50000, &o);
    ASSERT_NEAR(o.in_flight_avg, 90.0, 1e-9);
    ASSERT_EQ(o.verdict, GR_CAP_RAISE_LOCKS);
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 7199, 500000);
    sim_run(&s, 0, 40000, 100, 100, 50000, &o);
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
}

/* Locks free, a backlog that waits: more consumers help. */
static void test_more_consumers(void) {
    sim_t s;
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 1600, 500000); /* L = 800 s / 40 s = 20 */
    gr_cap_out_t o;
    sim_run(&s, 0, 40000, 100, 20, 10000, &o);
    ASSERT_NEAR(o.in_flight_avg, 20.0, 1e-9);
    ASSERT_NEAR(o.ack_rate, 40.0, 1e-9);
    ASSERT_NEAR(o.ceiling, 200.0, 1e-9);
    ASSERT_NEAR(o.headroom, 5.0, 1e-9);
    ASSERT_NEAR(o.etd_s, 250.0, 1e-9);
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
}

/* Two halves: 0..30 s and 30..40 s. */
static gr_cap_verdict_t trend(uint64_t n_a, int64_t w_a, uint64_t n_b, int64_t w_b, int64_t mid_ms) {
    sim_t s;
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, n_a, w_a);
    sim_rotate(&s, 0, mid_ms);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, n_b, w_b);
    gr_cap_out_t o;
    sim_run(&s, 0, 40000, 100, 3, 10000, &o);
    return o.verdict;
}

static void test_consumers_limit(void) {
    /* 20/s at W 0.1 s, then 20/s at W 0.2 s: W doubled, throughput flat. */
    ASSERT_EQ(trend(600, 100000, 200, 200000, 30000), GR_CAP_CONSUMERS_LIMIT);
    /* W grew exactly 1.5x (0.25 -> 0.375 s), rate 21.9/s < 1.1 x 20/s. */
    ASSERT_EQ(trend(600, 250000, 219, 375000, 30000), GR_CAP_CONSUMERS_LIMIT);
    /* Rate grew by more than 10 % (22.1/s): consumers added throughput, more help. */
    ASSERT_EQ(trend(600, 100000, 221, 200000, 30000), GR_CAP_MORE_CONSUMERS);
    /* W grew by less than half. */
    ASSERT_EQ(trend(600, 100000, 200, 149000, 30000), GR_CAP_MORE_CONSUMERS);
    /* Too few acknowledgements in either half to tell. */
    ASSERT_EQ(trend(600, 100000, 19, 200000, 30000), GR_CAP_MORE_CONSUMERS);
    ASSERT_EQ(trend(19, 100000, 200, 200000, 30000), GR_CAP_MORE_CONSUMERS);
    /* A half shorter than 5 s: 36..40 s, and 0..4 s. */
    ASSERT_EQ(trend(600, 100000, 200, 200000, 36000), GR_CAP_MORE_CONSUMERS);
    ASSERT_EQ(trend(600, 100000, 200, 200000, 4000), GR_CAP_MORE_CONSUMERS);
    /* Exactly 5 s is enough (20/s in both halves). */
    ASSERT_EQ(trend(700, 100000, 100, 200000, 35000), GR_CAP_CONSUMERS_LIMIT);
    /* A young share-partition: both snapshots at load, no halves. */
    sim_t s;
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 200, 200000);
    gr_cap_out_t o;
    sim_run(&s, 0, 10000, 100, 3, 10000, &o);
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
}

static void test_keeping_up_and_idle(void) {
    sim_t s;
    gr_cap_out_t o;
    /* Every unfinished record is with a consumer. */
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 400, 100000);
    sim_run(&s, 400, 40000, 100, 20, 20, &o);
    ASSERT_NEAR(o.produce_rate, 10.0, 1e-9);
    ASSERT_EQ(o.verdict, GR_CAP_KEEPING_UP);
    /* A backlog that drains within one window (30 s): 1000 / (200 - 100) = 10 s. */
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 8000, 10000);
    sim_run(&s, 4000, 40000, 100, 2, 1000, &o);
    ASSERT_NEAR(o.etd_s, 10.0, 1e-9);
    ASSERT_EQ(o.verdict, GR_CAP_KEEPING_UP);
    /* ... and one that does not (ETD 30.01 s). */
    sim_run(&s, 4000, 40000, 100, 2, 3001, &o);
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
    /* ETD exactly one window is still keeping up. */
    sim_run(&s, 4000, 40000, 100, 2, 3000, &o);
    ASSERT_NEAR(o.etd_s, 30.0, 1e-9);
    ASSERT_EQ(o.verdict, GR_CAP_KEEPING_UP);
    /* Nothing to do and nothing done. */
    sim_start(&s, 50);
    sim_run(&s, 50, 40000, 100, 0, 0, &o);
    ASSERT_EQ(o.verdict, GR_CAP_IDLE);
    ASSERT_NEAR(o.etd_s, 0.0, 0);
    ASSERT(isnan(o.ceiling) && isnan(o.headroom) && isnan(o.w_mean_s) && isnan(o.w_p50_s) && isnan(o.w_p99_s));
    ASSERT(isnan(o.in_flight_avg));
    /* Lag 0 with records produced (and consumed at once) is keeping up, not idle. */
    sim_run(&s, 60, 40000, 100, 0, 0, &o);
    ASSERT_EQ(o.verdict, GR_CAP_KEEPING_UP);
    /* Lag 0 with a record in flight: keeping up. */
    sim_run(&s, 50, 40000, 100, 1, 0, &o);
    ASSERT_EQ(o.verdict, GR_CAP_KEEPING_UP);
    /* Unknown lag (no persisted state) with nothing happening: idle. */
    sim_run(&s, 50, 40000, 100, 0, -1, &o);
    ASSERT_EQ(o.verdict, GR_CAP_IDLE);
    ASSERT(isnan(o.etd_s));
}

/* RELEASE counts in the ack rate (W observations) but does not drain the lag. */
static void test_release_and_never(void) {
    sim_t s;
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 100, 1000000);
    acks(&s.st, GR_SHARE_ACK_RELEASE, 100, 1000000);
    acks(&s.st, GR_SHARE_ACK_RENEW, 50, 0); /* neither */
    gr_cap_out_t o;
    sim_run(&s, 300, 10000, 100, 10, 5000, &o);
    ASSERT_NEAR(o.ack_rate, 20.0, 1e-9);
    ASSERT_NEAR(o.drain_rate, 10.0, 1e-9);
    ASSERT_NEAR(o.produce_rate, 30.0, 1e-9);
    ASSERT_NEAR(o.in_flight_avg, 20.0, 1e-9);
    ASSERT_NEAR(o.ceiling, 100.0, 1e-9);
    ASSERT_NEAR(o.headroom, 5.0, 1e-9);
    ASSERT(isinf(o.etd_s)); /* producing faster than draining: never */
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
    /* drain == produce: never too. */
    sim_run(&s, 100, 10000, 100, 10, 5000, &o);
    ASSERT(isinf(o.etd_s));
    /* An unknown log end offset gives no produce rate. */
    sim_run(&s, -1, 10000, 100, 10, 5000, &o);
    ASSERT_NEAR(o.produce_rate, 0.0, 0);
    ASSERT_NEAR(o.etd_s, 500.0, 1e-9);
}

static void test_no_window(void) {
    /* Not in memory on this broker: no consumer fetches it. */
    gr_cap_in_t in = {NULL, NULL, 100, 0, 500};
    gr_cap_out_t o;
    gr_cap_compute(&in, &o);
    ASSERT_NEAR(o.window_s, 0.0, 0);
    ASSERT_EQ(o.acked, 0);
    ASSERT_NEAR(o.ack_rate, 0.0, 0);
    ASSERT(isnan(o.ceiling) && isnan(o.headroom) && isnan(o.in_flight_avg));
    ASSERT(isinf(o.etd_s));
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
    in.lag = 0;
    gr_cap_compute(&in, &o);
    ASSERT_EQ(o.verdict, GR_CAP_IDLE);
    /* Just loaded: the window has no length yet; what is held now decides. */
    sim_t s;
    sim_start(&s, 0);
    sim_run(&s, 0, 0, 100, 95, 5000, &o);
    ASSERT_NEAR(o.window_s, 0.0, 0);
    ASSERT(isnan(o.in_flight_avg));
    ASSERT_EQ(o.verdict, GR_CAP_RAISE_LOCKS);
    sim_run(&s, 0, 0, 100, 89, 5000, &o);
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
}

static void test_odd_counters(void) {
    /* Counters behind the window start (a reload) count as nothing. */
    sim_t s;
    sim_start(&s, 100);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 10, 1000);
    s.ring.snap[0].acked = s.ring.snap[0].completed = 1000;
    gr_cap_out_t o;
    sim_run(&s, 50, 10000, 100, 0, 7, &o);
    ASSERT_EQ(o.acked, 0);
    ASSERT_NEAR(o.ack_rate, 0.0, 0);
    ASSERT_NEAR(o.produce_rate, 0.0, 0);
    ASSERT(isnan(o.headroom));
    /* W of 0 µs: no ceiling (no division by zero). */
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 10, 0);
    sim_run(&s, 0, 10000, 100, 0, 0, &o);
    ASSERT_NEAR(o.w_mean_s, 0.0, 0);
    ASSERT(isnan(o.ceiling));
    /* A cap of 0 (unknown): no ceiling and no binding. */
    sim_start(&s, 0);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 10, 1000000);
    sim_run(&s, 0, 10000, 0, 0, 1000, &o);
    ASSERT(isnan(o.ceiling));
    ASSERT_EQ(o.verdict, GR_CAP_MORE_CONSUMERS);
}

static void test_group(void) {
    gr_cap_out_t sp[3], g;
    /* A: the cap binds at W 0.5 s (200/s). */
    sim_t a;
    sim_start(&a, 0);
    acks(&a.st, GR_SHARE_ACK_ACCEPT, 8000, 500000);
    sim_run(&a, 2000, 40000, 100, 100, 50000, &sp[0]);
    ASSERT_EQ(sp[0].verdict, GR_CAP_RAISE_LOCKS);
    /* B: W 1 s, 20 in flight, 30 s window. */
    sim_t b;
    sim_start(&b, 0);
    acks(&b.st, GR_SHARE_ACK_ACCEPT, 600, 1000000);
    acks(&b.st, GR_SHARE_ACK_RELEASE, 0, 0);
    sim_run(&b, 0, 30000, 200, 20, 1000, &sp[1]);
    ASSERT_EQ(sp[1].verdict, GR_CAP_MORE_CONSUMERS);
    /* C: not in memory, lag unknown. */
    gr_cap_in_t in = {NULL, NULL, 100, 0, -1};
    gr_cap_compute(&in, &sp[2]);
    ASSERT_EQ(sp[2].verdict, GR_CAP_IDLE);

    gr_cap_group(sp, 3, &g);
    ASSERT_EQ(g.cap, 400);
    ASSERT_EQ(g.in_flight, 120);
    ASSERT_EQ(g.lag, 51000);
    ASSERT_EQ(g.acked, 8600);
    ASSERT_NEAR(g.window_s, 40.0, 1e-9);
    ASSERT_NEAR(g.ack_rate, 220.0, 1e-9);
    ASSERT_NEAR(g.drain_rate, 220.0, 1e-9);
    ASSERT_NEAR(g.produce_rate, 50.0, 1e-9);
    ASSERT_NEAR(g.in_flight_avg, 120.0, 1e-9);
    ASSERT_EQ(g.w.count, 8600);
    double wmean = (8000 * 0.5 + 600 * 1.0) / 8600.0;
    ASSERT_NEAR(g.w_mean_s, wmean, 1e-9);
    /* rank 4300 of 8600 lies in the (0.4, 0.5] bucket that holds 8000. */
    ASSERT_NEAR(g.w_p50_s, 0.4 + 0.1 * (4300.0 / 8000.0), 1e-9);
    /* rank 8514 lies in (0.8, 1] (600 records after 8000). */
    ASSERT_NEAR(g.w_p99_s, 0.8 + 0.2 * ((0.99 * 8600 - 8000) / 600.0), 1e-9);
    /* 100/0.5 + 200/1 + 100/(group W mean). */
    ASSERT_NEAR(g.ceiling, 200.0 + 200.0 + 100.0 / wmean, 1e-9);
    ASSERT_NEAR(g.headroom, g.ceiling / 220.0, 1e-9);
    ASSERT_NEAR(g.etd_s, 51000.0 / 170.0, 1e-9);
    ASSERT_EQ(g.verdict, GR_CAP_MORE_CONSUMERS);

    /* Precedence: consumers limit > more consumers > raise > keeping up > idle. */
    gr_cap_out_t v[2];
    memset(v, 0, sizeof(v));
    struct {
        gr_cap_verdict_t a, b, want;
    } cases[] = {
        {GR_CAP_IDLE, GR_CAP_IDLE, GR_CAP_IDLE},
        {GR_CAP_IDLE, GR_CAP_KEEPING_UP, GR_CAP_KEEPING_UP},
        {GR_CAP_RAISE_LOCKS, GR_CAP_KEEPING_UP, GR_CAP_RAISE_LOCKS},
        {GR_CAP_RAISE_LOCKS, GR_CAP_MORE_CONSUMERS, GR_CAP_MORE_CONSUMERS},
        {GR_CAP_CONSUMERS_LIMIT, GR_CAP_MORE_CONSUMERS, GR_CAP_CONSUMERS_LIMIT},
        {GR_CAP_KEEPING_UP, GR_CAP_CONSUMERS_LIMIT, GR_CAP_CONSUMERS_LIMIT},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        v[0].verdict = cases[i].a;
        v[1].verdict = cases[i].b;
        v[0].lag = v[1].lag = -1;
        v[0].in_flight_avg = v[1].in_flight_avg = v[0].w_mean_s = v[1].w_mean_s = NAN;
        gr_cap_group(v, 2, &g);
        ASSERT_EQ(g.verdict, cases[i].want);
        ASSERT_EQ(g.lag, -1);
        ASSERT(isnan(g.etd_s) && isnan(g.ceiling) && isnan(g.w_mean_s) && isnan(g.in_flight_avg));
    }
    /* No share-partitions at all. */
    gr_cap_group(NULL, 0, &g);
    ASSERT_EQ(g.cap, 0);
    ASSERT_EQ(g.lag, -1);
    ASSERT_EQ(g.verdict, GR_CAP_IDLE);
    ASSERT(isnan(g.headroom));
}

/* The remaining corners: an unknown log end at the window start, a share-partition
 * with acknowledgements but no cap in a group, a group with a rate but no ceiling,
 * a verdict out of range. */
static void test_edges(void) {
    sim_t s;
    gr_cap_out_t o[2], g;
    sim_start(&s, -1);
    acks(&s.st, GR_SHARE_ACK_ACCEPT, 10, 1000000);
    sim_run(&s, 500, 10000, 0, 0, 100, &o[0]);
    ASSERT_NEAR(o[0].produce_rate, 0.0, 0);
    ASSERT(isnan(o[0].ceiling));
    ASSERT_NEAR(o[0].ack_rate, 1.0, 1e-9);
    gr_cap_group(o, 1, &g);
    ASSERT(isnan(g.ceiling) && isnan(g.headroom)); /* cap 0: no ceiling though W is known */
    ASSERT_NEAR(g.ack_rate, 1.0, 1e-9);
    o[1] = o[0];
    o[1].verdict = (gr_cap_verdict_t)99;
    o[0].verdict = GR_CAP_IDLE;
    gr_cap_group(o, 2, &g);
    ASSERT_EQ(g.verdict, GR_CAP_IDLE);
}

int main(void) {
    RUN_TEST(test_snap_and_ring);
    RUN_TEST(test_verdict_strings);
    RUN_TEST(test_young_window);
    RUN_TEST(test_cap_binds);
    RUN_TEST(test_more_consumers);
    RUN_TEST(test_consumers_limit);
    RUN_TEST(test_keeping_up_and_idle);
    RUN_TEST(test_release_and_never);
    RUN_TEST(test_no_window);
    RUN_TEST(test_odd_counters);
    RUN_TEST(test_group);
    RUN_TEST(test_edges);
    return 0;
}
