/* The producer-state cap (src/broker/producers.c, gregor.producer.state.max.producers):
 * the keyed hash table at 100k producers (chain length, lookup time, bytes per entry),
 * the eviction order, producers with an ongoing transaction never evicted, the refusal
 * when all of them have one, a lowered cap, and snapshots decoded under a cap (the
 * current order and a version-1 file listed by producer id). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/crc32c.h"
#include "broker/producers.h"
#include "broker/producers_int.h"
#include "testutil.h"

static void idem(gr_producer_state_t *ps, int64_t pid, int32_t seq, int64_t off) {
    gr_producers_record(ps, pid, 0, seq, 1, off, off, 1000, false, 5000);
}

static bool has(gr_producer_state_t *ps, int64_t pid) { return gr_producers_entry(ps, pid, false) != NULL; }

static gr_err_t check_new(gr_producer_state_t *ps, int64_t pid, gr_producer_check_t *c) {
    gr_producers_check(ps, pid, 0, 0, 1, false, c);
    return c->err;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static size_t longest_chain(const gr_producer_state_t *ps) {
    size_t longest = 0;
    for (size_t i = 0; i < ps->tab.n_buckets; i++) {
        size_t n = 0;
        for (const gr_hnode_t *h = ps->tab.buckets[i]; h; h = h->next) n++;
        if (n > longest) longest = n;
    }
    return longest;
}

/* n producers whose ids all fell into one of the 64 buckets of the former table
 * (multiples of 64): every lookup finds its own, chains stay short, and the time per
 * lookup does not grow with the count. Prints bytes per entry (5 batches kept each). */
static void lookups(int64_t n) {
    struct mallinfo2 m0 = mallinfo2();
    gr_producer_state_t *ps = gr_producers_new();
    for (int64_t i = 0; i < n; i++)
        for (int32_t s = 0; s < 5; s++) idem(ps, i * 64, s, i * 5 + s);
    struct mallinfo2 m1 = mallinfo2();
    ASSERT_EQ(gr_producers_count(ps), n);
    size_t chain = longest_chain(ps);
    ASSERT(chain <= 12);
    uint64_t x = 88172645463325252ull;
    double t0 = now_ns();
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t pid = (int64_t)(x % (uint64_t)n) * 64;
        gr_pentry_t *e = gr_producers_entry(ps, pid, false);
        ASSERT(e && e->pid == pid && e->n == 5);
    }
    double per = (now_ns() - t0) / 1e6;
    ASSERT(!has(ps, 63) && !has(ps, n * 64));
    fprintf(stderr, "   %lld producers: %.0f bytes each (malloc), longest chain %zu, %.0f ns per lookup\n",
            (long long)n, (double)(m1.uordblks - m0.uordblks) / (double)n, chain, per);
    gr_producers_free(ps);
}

static void test_lookup_100k(void) {
    lookups(1000);
    lookups(100000);
}

/* Cap 3: the least recently used by last batch or marker goes first. */
static void test_lru_order(void) {
    gr_producer_state_t *ps = gr_producers_new();
    ASSERT_EQ(gr_producers_set_max(ps, 3), 0);
    idem(ps, 1, 0, 0);
    idem(ps, 2, 0, 1);
    idem(ps, 3, 0, 2);
    idem(ps, 1, 1, 3); /* 1 is now the most recent: 2 is the oldest */
    idem(ps, 4, 0, 4);
    ASSERT(has(ps, 1) && !has(ps, 2) && has(ps, 3) && has(ps, 4));
    gr_producers_complete(ps, 3, 0, 0, true, 5, 1000, 5000); /* a marker counts as use too */
    idem(ps, 5, 0, 6);
    ASSERT(!has(ps, 1) && has(ps, 3) && has(ps, 4) && has(ps, 5));
    ASSERT_EQ(gr_producers_count(ps), 3);
    uint64_t ev, rf;
    gr_producers_counters(ps, &ev, &rf);
    ASSERT_EQ(ev, 2);
    ASSERT_EQ(rf, 0);
    /* An evicted producer is unknown, as after producer.id.expiration.ms: its next
     * batch is accepted whatever its sequence (Kafka's rule for an unknown producer). */
    gr_producer_check_t c;
    gr_producers_check(ps, 2, 0, 57, 1, false, &c);
    ASSERT_EQ(c.err, GR_ERR_NONE);
    ASSERT(!c.duplicate);
    /* A lower cap evicts at once, oldest first. */
    ASSERT_EQ(gr_producers_set_max(ps, 1), 2);
    ASSERT(has(ps, 5) && gr_producers_count(ps) == 1);
    gr_producers_free(ps);
}

/* Producers with an ongoing transaction are never evicted; idle ones go around them. */
static void test_ongoing_kept(void) {
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_set_max(ps, 3);
    gr_producers_record(ps, 1, 0, 0, 1, 0, 0, 1000, true, 5000); /* oldest, ongoing */
    gr_producers_record(ps, 2, 0, 0, 1, 1, 1, 1000, true, 5000); /* ongoing */
    idem(ps, 3, 0, 2);
    for (int64_t pid = 4; pid < 100; pid++) {
        idem(ps, pid, 0, pid);
        ASSERT(has(ps, 1) && has(ps, 2) && has(ps, pid) && !has(ps, pid - 1));
        ASSERT_EQ(gr_producers_count(ps), 3);
    }
    ASSERT_EQ(gr_producers_first_unstable(ps), 0);
    ASSERT_EQ(gr_producers_set_max(ps, 1), 1); /* the idle one only */
    ASSERT_EQ(gr_producers_count(ps), 2);
    ASSERT_EQ(gr_producers_ongoing(ps), 2);
    gr_producers_free(ps);
}

/* Every tracked producer has an ongoing transaction: a new producer is refused with a
 * retriable error and nothing grows; known producers go on; once a transaction ends,
 * the new producer gets in and the one that ended is evicted. */
static void test_refused_when_all_ongoing(void) {
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_set_max(ps, 2);
    gr_producers_record(ps, 1, 0, 0, 1, 0, 0, 1000, true, 5000);
    gr_producers_record(ps, 2, 0, 0, 1, 1, 1, 1000, true, 5000);
    gr_producer_check_t c;
    for (int i = 0; i < 1000; i++) ASSERT_EQ(check_new(ps, 1000 + i, &c), GR_ERR_NOT_ENOUGH_REPLICAS);
    ASSERT(strstr(c.msg, "gregor.producer.state.max.producers=2"));
    ASSERT_EQ(gr_producers_count(ps), 2);
    uint64_t ev, rf;
    gr_producers_counters(ps, &ev, &rf);
    ASSERT_EQ(rf, 1000);
    gr_producers_check(ps, 1, 0, 1, 1, true, &c); /* tracked producers are not affected */
    ASSERT_EQ(c.err, GR_ERR_NONE);
    gr_producers_complete(ps, 1, 0, 0, true, 2, 1000, 5000);
    ASSERT_EQ(check_new(ps, 7, &c), GR_ERR_NONE);
    idem(ps, 7, 0, 3);
    ASSERT(!has(ps, 1) && has(ps, 2) && has(ps, 7));
    gr_producers_counters(ps, &ev, &rf);
    ASSERT_EQ(ev, 1);
    gr_producers_free(ps);
}

static void pids_of(void *arg, const gr_producer_info_t *in) {
    int64_t **p = arg;
    *(*p)++ = in->pid;
}

/* Ten producers (two with an ongoing transaction) through a snapshot: unbounded, the
 * same bytes come back; under a cap of 5, both transactions and the 3 most recent idle
 * producers, which keep their idempotence state. */
static void test_snapshot_cap(void) {
    gr_producer_state_t *ps = gr_producers_new();
    for (int64_t pid = 10; pid > 0; pid--) idem(ps, pid, 0, 10 - pid); /* 1 is the most recent */
    gr_producers_record(ps, 9, 0, 1, 1, 10, 10, 1000, true, 5000);     /* 9 and 10: ongoing */
    gr_producers_record(ps, 10, 0, 1, 1, 11, 11, 1000, true, 5000);
    idem(ps, 5, 1, 12); /* 5 is now the most recent idle one */
    gr_wbuf_t a, b;
    gr_wbuf_init(&a);
    gr_wbuf_init(&b);
    gr_producers_snapshot_encode(ps, 13, &a);
    gr_producer_state_t *full = NULL, *capped = NULL;
    int64_t vt;
    const char *why;
    ASSERT_EQ(gr_producers_snapshot_decode(a.mem, a.len, SIZE_MAX, &full, &vt, &why), GR_ERR_NONE);
    gr_producers_snapshot_encode(full, 13, &b);
    ASSERT(a.len == b.len && !memcmp(a.mem, b.mem, a.len));
    ASSERT_EQ(gr_producers_snapshot_decode(a.mem, a.len, 5, &capped, &vt, &why), GR_ERR_NONE);
    int64_t got[8], *w = got;
    gr_producers_foreach(capped, pids_of, &w);
    ASSERT_EQ(w - got, 5);
    int64_t want[5] = {10, 9, 5, 1, 2}; /* ongoing (most recent first), then idle likewise */
    for (int i = 0; i < 5; i++) ASSERT_EQ(got[i], want[i]);
    ASSERT_EQ(gr_producers_first_unstable(capped), 10);
    gr_producer_check_t c;
    gr_producers_check(capped, 5, 0, 1, 1, false, &c); /* a retry of 5's last batch */
    ASSERT(c.duplicate && c.dup_base_offset == 12);
    idem(capped, 11, 0, 13); /* the cap holds on: 2 goes */
    ASSERT(!has(capped, 2) && has(capped, 1));
    gr_producers_free(full);
    gr_producers_free(capped);
    gr_producers_free(ps);
    gr_wbuf_free(&a);
    gr_wbuf_free(&b);
}

/* A version-1 snapshot as written before the cap (producers by id, here 1..8, no
 * transaction): readable, and under a cap of 3 the highest ids (the most recently
 * handed out) stay. */
static void test_snapshot_v1_by_pid(void) {
    gr_wbuf_t w;
    gr_wbuf_init(&w);
    gr_wbuf_u32(&w, 0x47525053u);
    gr_wbuf_i16(&w, 1);
    gr_wbuf_i64(&w, 100);
    gr_wbuf_u32(&w, 8);
    for (int64_t pid = 1; pid <= 8; pid++) {
        gr_wbuf_i64(&w, pid);
        gr_wbuf_i16(&w, 0);
        gr_wbuf_i32(&w, -1);
        gr_wbuf_i64(&w, 1000);
        gr_wbuf_i64(&w, -1);
        gr_wbuf_i8(&w, 1);
        gr_wbuf_i32(&w, 0);
        gr_wbuf_i32(&w, 0);
        gr_wbuf_i64(&w, pid);
        gr_wbuf_i64(&w, pid);
    }
    gr_wbuf_u32(&w, 0);
    gr_wbuf_u32(&w, gr_crc32c(0, w.mem, w.len));
    gr_producer_state_t *ps = NULL;
    int64_t vt;
    const char *why;
    ASSERT_EQ(gr_producers_snapshot_decode(w.mem, w.len, 3, &ps, &vt, &why), GR_ERR_NONE);
    ASSERT_EQ(gr_producers_count(ps), 3);
    ASSERT(has(ps, 6) && has(ps, 7) && has(ps, 8) && !has(ps, 5));
    gr_producers_free(ps);
    gr_wbuf_free(&w);
}

int main(void) {
    RUN_TEST(test_lookup_100k);
    RUN_TEST(test_lru_order);
    RUN_TEST(test_ongoing_kept);
    RUN_TEST(test_refused_when_all_ongoing);
    RUN_TEST(test_snapshot_cap);
    RUN_TEST(test_snapshot_v1_by_pid);
    fprintf(stderr, "ok\n");
    return 0;
}
