/* The share-state batch combiner (spec §7.2): every rule by example, then a
 * randomized comparison with a per-offset reference model, and associativity
 * (which recovery relies on). */
#include <stdlib.h>

#include "share/state_store.h"
#include "testutil.h"

#define AV            GR_SSTORE_AVAILABLE
#define ACK           GR_SSTORE_ACKNOWLEDGED
#define ARC           GR_SSTORE_ARCHIVED
#define B(f, l, s, c) ((gr_sstore_batch_t){.first_offset = (f), .last_offset = (l), .state = (s), .count = (c)})
#define N(a)          (sizeof(a) / sizeof((a)[0]))

static void expect(const gr_sstore_bvec_t *got, const gr_sstore_batch_t *want, size_t n, int line) {
    int ok = got->n == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = got->v[i].first_offset == want[i].first_offset && got->v[i].last_offset == want[i].last_offset &&
             got->v[i].state == want[i].state && got->v[i].count == want[i].count;
    if (ok) return;
    fprintf(stderr, "line %d: got", line);
    for (size_t i = 0; i < got->n; i++)
        fprintf(stderr, " [%lld-%lld s%d c%d]", (long long)got->v[i].first_offset, (long long)got->v[i].last_offset,
                got->v[i].state, got->v[i].count);
    fprintf(stderr, "\n want");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " [%lld-%lld s%d c%d]", (long long)want[i].first_offset, (long long)want[i].last_offset,
                want[i].state, want[i].count);
    fprintf(stderr, "\n");
    abort();
}

#define CHECK(old, add, start, ...)                            \
    do {                                                       \
        gr_sstore_batch_t _w[] = {__VA_ARGS__};                \
        gr_sstore_bvec_t _o = {0};                             \
        gr_sstore_merge(old, N(old), add, N(add), start, &_o); \
        expect(&_o, _w, N(_w), __LINE__);                      \
        gr_sstore_bvec_free(&_o);                              \
    } while (0)

static void test_empty(void) {
    gr_sstore_bvec_t o = {0};
    gr_sstore_merge(NULL, 0, NULL, 0, -1, &o);
    ASSERT_EQ(o.n, 0);
    gr_sstore_batch_t old[] = {B(0, 9, AV, 1)};
    gr_sstore_merge(old, 1, NULL, 0, 10, &o); /* everything below the start offset goes */
    ASSERT_EQ(o.n, 0);
    gr_sstore_bvec_free(&o);
}

static void test_start_offset(void) {
    gr_sstore_batch_t old[] = {B(0, 4, ACK, 1), B(5, 9, AV, 1), B(10, 14, ARC, 2)};
    gr_sstore_batch_t none[] = {B(20, 20, AV, 1)};
    /* drop batches below start, trim the straddling one */
    CHECK(old, none, 7, B(7, 9, AV, 1), B(10, 14, ARC, 2), B(20, 20, AV, 1));
    /* start exactly at a boundary */
    CHECK(old, none, 10, B(10, 14, ARC, 2), B(20, 20, AV, 1));
    /* new batches below start are trimmed too */
    gr_sstore_batch_t add[] = {B(3, 12, ARC, 3)};
    CHECK(old, add, 8, B(8, 12, ARC, 3), B(13, 14, ARC, 2));
    /* -1 keeps everything */
    CHECK(old, none, -1, B(0, 4, ACK, 1), B(5, 9, AV, 1), B(10, 14, ARC, 2), B(20, 20, AV, 1));
}

static void test_disjoint_and_coalesce(void) {
    gr_sstore_batch_t old[] = {B(0, 4, AV, 1), B(10, 14, AV, 1)};
    gr_sstore_batch_t gap[] = {B(6, 7, ACK, 1)};
    CHECK(old, gap, -1, B(0, 4, AV, 1), B(6, 7, ACK, 1), B(10, 14, AV, 1));
    /* contiguous identical (state, count) coalesce */
    gr_sstore_batch_t fill[] = {B(5, 9, AV, 1)};
    CHECK(old, fill, -1, B(0, 14, AV, 1));
    /* overlapping identical coalesce */
    gr_sstore_batch_t over[] = {B(3, 11, AV, 1)};
    CHECK(old, over, -1, B(0, 14, AV, 1));
    /* contiguous but different: kept apart */
    gr_sstore_batch_t diff[] = {B(5, 9, AV, 2)};
    CHECK(old, diff, -1, B(0, 4, AV, 1), B(5, 9, AV, 2), B(10, 14, AV, 1));
    /* duplicate new batches */
    gr_sstore_batch_t dup[] = {B(20, 25, ARC, 1), B(20, 25, ARC, 1)};
    CHECK(old, dup, -1, B(0, 4, AV, 1), B(10, 14, AV, 1), B(20, 25, ARC, 1));
}

static void test_priority_count(void) {
    gr_sstore_batch_t old[] = {B(0, 9, AV, 1)};
    /* higher count wins, splits the old range into three */
    gr_sstore_batch_t hi[] = {B(3, 5, AV, 2)};
    CHECK(old, hi, -1, B(0, 2, AV, 1), B(3, 5, AV, 2), B(6, 9, AV, 1));
    /* a newer batch with a lower count loses, even ACKNOWLEDGED: priority, not recency */
    gr_sstore_batch_t old2[] = {B(0, 9, AV, 3)};
    gr_sstore_batch_t lo[] = {B(3, 5, ACK, 2)};
    CHECK(old2, lo, -1, B(0, 9, AV, 3));
    /* partial overlap on both ends */
    gr_sstore_batch_t left[] = {B(-0, 2, ARC, 0), B(8, 12, AV, 2)};
    CHECK(old, left, -1, B(0, 7, AV, 1), B(8, 12, AV, 2));
}

static void test_priority_state(void) {
    gr_sstore_batch_t old[] = {B(0, 9, ARC, 1)};
    /* equal count: the higher state id wins, whichever is newer */
    gr_sstore_batch_t av[] = {B(2, 4, AV, 1)};
    CHECK(old, av, -1, B(0, 9, ARC, 1));
    gr_sstore_batch_t ack[] = {B(2, 4, ACK, 1)};
    CHECK(old, ack, -1, B(0, 9, ARC, 1));
    gr_sstore_batch_t old2[] = {B(0, 9, AV, 1)};
    CHECK(old2, ack, -1, B(0, 1, AV, 1), B(2, 4, ACK, 1), B(5, 9, AV, 1));
    gr_sstore_batch_t arc[] = {B(4, 12, ARC, 1)};
    CHECK(old2, arc, -1, B(0, 3, AV, 1), B(4, 12, ARC, 1));
    /* ACKNOWLEDGED (2) < ARCHIVED (4) at equal count */
    gr_sstore_batch_t old3[] = {B(0, 9, ACK, 1)};
    CHECK(old3, arc, -1, B(0, 3, ACK, 1), B(4, 12, ARC, 1));
}

static void test_new_overlap_each_other(void) {
    /* new batches in any order, overlapping each other and the old state */
    gr_sstore_batch_t old[] = {B(0, 19, AV, 1)};
    gr_sstore_batch_t add[] = {B(15, 30, ARC, 1), B(5, 10, AV, 3), B(8, 16, ACK, 2)};
    CHECK(old, add, -1, B(0, 4, AV, 1), B(5, 10, AV, 3), B(11, 16, ACK, 2), B(17, 30, ARC, 1));
    gr_sstore_batch_t none[] = {B(0, 0, AV, 0)};
    /* count 0 batches lose to anything with a higher count */
    CHECK(old, none, -1, B(0, 19, AV, 1));
}

/* Reference model: a dense array of offsets [0, SPACE). */
enum { SPACE = 64 };
typedef struct cell {
    int set;
    int8_t state;
    int16_t count;
} cell_t;

static void model_paint(cell_t *m, const gr_sstore_batch_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        for (int64_t o = b[i].first_offset; o <= b[i].last_offset; o++) {
            cell_t *c = &m[o];
            if (!c->set || b[i].count > c->count || (b[i].count == c->count && b[i].state > c->state))
                *c = (cell_t){1, b[i].state, b[i].count};
        }
    }
}

static void model_to_vec(const cell_t *m, int64_t start, gr_sstore_bvec_t *out) {
    out->n = 0;
    for (int64_t o = start < 0 ? 0 : start; o < SPACE; o++) {
        if (!m[o].set) continue;
        gr_sstore_batch_t *p = out->n ? &out->v[out->n - 1] : NULL;
        if (p && p->last_offset + 1 == o && p->state == m[o].state && p->count == m[o].count)
            p->last_offset = o;
        else
            gr_sstore_bvec_push(out, &B(o, o, m[o].state, m[o].count));
    }
}

static void random_batches(gr_sstore_batch_t *b, size_t n) {
    static const int8_t states[] = {AV, ACK, ARC};
    for (size_t i = 0; i < n; i++) {
        int64_t f = rand() % SPACE, len = rand() % 12;
        int64_t l = f + len < SPACE ? f + len : SPACE - 1;
        b[i] = B(f, l, states[rand() % 3], (int16_t)(rand() % 4));
    }
}

static void test_random_vs_model(void) {
    srand(42);
    gr_sstore_bvec_t s = {0}, t = {0}, want = {0}, ab = {0}, s2 = {0};
    for (int iter = 0; iter < 20000; iter++) {
        gr_sstore_batch_t a[8], b[8];
        size_t na = (size_t)(rand() % 8), nb = (size_t)(rand() % 8);
        random_batches(a, na);
        random_batches(b, nb);
        int64_t start = rand() % 4 == 0 ? rand() % SPACE : -1;
        cell_t m[SPACE] = {{0}};
        model_paint(m, a, na);
        model_paint(m, b, nb);
        model_to_vec(m, start, &want);
        /* s = merge(merge(0, a), b) */
        gr_sstore_merge(NULL, 0, a, na, -1, &t);
        gr_sstore_merge(t.v, t.n, b, nb, start, &s);
        expect(&s, want.v, want.n, __LINE__);
        /* associativity: merge(0, a ++ b) gives the same */
        gr_sstore_batch_t all[16];
        for (size_t i = 0; i < na; i++) all[i] = a[i];
        for (size_t i = 0; i < nb; i++) all[na + i] = b[i];
        gr_sstore_merge(NULL, 0, all, na + nb, start, &ab);
        expect(&ab, want.v, want.n, __LINE__);
        /* and merge(a, normalised b), the replay path */
        gr_sstore_merge(NULL, 0, b, nb, start, &s2);
        gr_sstore_merge(t.v, t.n, s2.v, s2.n, start, &ab);
        expect(&ab, want.v, want.n, __LINE__);
        /* output invariants */
        for (size_t i = 0; i < s.n; i++) {
            ASSERT(gr_sstore_batch_valid(&s.v[i]));
            if (start >= 0) ASSERT(s.v[i].first_offset >= start);
            if (i) ASSERT(s.v[i].first_offset > s.v[i - 1].last_offset);
        }
    }
    gr_sstore_bvec_free(&s);
    gr_sstore_bvec_free(&t);
    gr_sstore_bvec_free(&want);
    gr_sstore_bvec_free(&ab);
    gr_sstore_bvec_free(&s2);
}

static void test_valid(void) {
    ASSERT(gr_sstore_batch_valid(&B(0, 0, AV, 0)));
    ASSERT(!gr_sstore_batch_valid(&B(0, 0, 1, 0))); /* ACQUIRED is never persisted */
    ASSERT(!gr_sstore_batch_valid(&B(0, 0, 3, 0)));
    ASSERT(!gr_sstore_batch_valid(&B(5, 4, AV, 0)));
    ASSERT(!gr_sstore_batch_valid(&B(-1, 4, AV, 0)));
    ASSERT(!gr_sstore_batch_valid(&B(0, 4, AV, -1)));
    ASSERT(!gr_sstore_batch_valid(&B(0, INT64_MAX, AV, 0)));
}

int main(void) {
    RUN_TEST(test_empty);
    RUN_TEST(test_start_offset);
    RUN_TEST(test_disjoint_and_coalesce);
    RUN_TEST(test_priority_count);
    RUN_TEST(test_priority_state);
    RUN_TEST(test_new_overlap_each_other);
    RUN_TEST(test_random_vs_model);
    RUN_TEST(test_valid);
    return 0;
}
