/* Unit tests for share/acquire_plan.c: the read bound, the batch headers and the byte
 * range covering the acquired offsets, and Kafka 4.4.0's AcquiredRecords merging. */
#include "share/acquire_plan.h"

#include "testutil.h"

static void test_until(void) {
    ASSERT_EQ(gr_share_read_until(100, 90, 500), 601);  /* window behind next: from next */
    ASSERT_EQ(gr_share_read_until(100, 150, 500), 651); /* in-flight window ahead: from its end */
    ASSERT_EQ(gr_share_read_until(0, 0, 1), 2);
}

static void test_cover(void) {
    gr_share_hdrs_t hs = {0};
    /* 40 batches of 10 offsets each, 1000 bytes each, starting at file position 4096 */
    for (int i = 0; i < 40; i++) gr_share_hdrs_push(&hs, i * 10, i * 10 + 9, 4096 + i * 1000, 4096 + (i + 1) * 1000);
    ASSERT_EQ(hs.n, 40);
    ASSERT_EQ(hs.v[39].base_offset, 390);
    int64_t pos, len;
    gr_share_hdrs_cover(&hs, 0, 9, &pos, &len); /* one whole batch */
    ASSERT_EQ(pos, 4096);
    ASSERT_EQ(len, 1000);
    gr_share_hdrs_cover(&hs, 15, 15, &pos, &len); /* one offset inside a batch: its batch */
    ASSERT_EQ(pos, 5096);
    ASSERT_EQ(len, 1000);
    gr_share_hdrs_cover(&hs, 19, 20, &pos, &len); /* across a boundary: two batches */
    ASSERT_EQ(pos, 5096);
    ASSERT_EQ(len, 2000);
    gr_share_hdrs_cover(&hs, 105, 399, &pos, &len);
    ASSERT_EQ(pos, 4096 + 10 * 1000);
    ASSERT_EQ(len, 30 * 1000);
    gr_share_hdrs_cover(&hs, 395, 10000, &pos, &len); /* past the read: up to the last batch */
    ASSERT_EQ(pos, 4096 + 39 * 1000);
    ASSERT_EQ(len, 1000);
    gr_share_hdrs_free(&hs);
    ASSERT_EQ(hs.n, 0);
    ASSERT(!hs.v);
}

static void test_merge(void) {
    const gr_sp_acquired_t in[] = {
        {0, 9, 1},                             /* a batch */
        {10, 10, 2},                           /* redelivered offsets, one range each */
        {11, 11, 2}, {12, 12, 2}, {13, 13, 3}, /* another count: not merged */
        {14, 14, 3}, {16, 16, 3},              /* a gap: not merged */
        {17, 20, 3},
    };
    gr_sp_acquired_t out[8];
    size_t n = gr_share_merge_ranges(in, 8, out);
    ASSERT_EQ(n, 4);
    const gr_sp_acquired_t want[] = {{0, 9, 1}, {10, 12, 2}, {13, 14, 3}, {16, 20, 3}};
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ(out[i].first_offset, want[i].first_offset);
        ASSERT_EQ(out[i].last_offset, want[i].last_offset);
        ASSERT_EQ(out[i].delivery_count, want[i].delivery_count);
    }
    ASSERT_EQ(gr_share_merge_ranges(in, 0, out), 0);
    ASSERT_EQ(gr_share_merge_ranges(in, 1, out), 1);
}

static void test_read_bound(void) {
    ASSERT_EQ(gr_share_read_bound(false, 100, 40), 100); /* read_uncommitted: the high watermark */
    ASSERT_EQ(gr_share_read_bound(true, 100, 40), 40);   /* read_committed: the last stable offset */
    ASSERT_EQ(gr_share_read_bound(true, 100, 100), 100);
}

/* Kafka 4.4.0's walk: a producer is in the aborted set from its aborted transaction's first
 * offset to its ABORT marker; only its transactional data batches in between are aborted. */
static void test_aborted_batches(void) {
    const gr_share_txn_batch_t b[] = {
        {0, 2, 7, true, false},    /* txn of 7, aborted (first 0, marker 5) */
        {3, 3, 8, true, false},    /* txn of 8, interleaved, committed */
        {4, 4, -1, false, false},  /* plain, no producer id */
        {5, 5, 7, true, true},     /* ABORT marker of 7 */
        {6, 6, 8, true, true},     /* COMMIT marker of 8 */
        {7, 8, 7, true, false},    /* a later transaction of 7: not aborted */
        {9, 10, 9, true, false},   /* txn of 9, aborted (first 9, marker 12) */
        {11, 11, 9, true, false},  /* still 9's aborted transaction: merged with the batch before */
        {12, 12, 9, true, true},   /* ABORT marker of 9 */
        {13, 13, 10, false, false} /* idempotent, not transactional */
    };
    gr_share_abort_t ab[] = {{9, 9, 12}, {7, 0, 5}}; /* marker order, not first-offset order */
    gr_sp_offsets_t out[10];
    size_t n = gr_share_aborted_batches(b, 10, ab, 2, out);
    ASSERT_EQ(n, 2);
    ASSERT_EQ(out[0].first, 0);
    ASSERT_EQ(out[0].last, 2);
    ASSERT_EQ(out[1].first, 9);
    ASSERT_EQ(out[1].last, 11);
    /* The read starts inside an aborted transaction that began before it. */
    const gr_share_txn_batch_t c[] = {{20, 21, 5, true, false}, {22, 22, 5, true, true}, {23, 23, 5, false, false}};
    gr_share_abort_t ac[] = {{5, 15, 22}};
    n = gr_share_aborted_batches(c, 3, ac, 1, out);
    ASSERT_EQ(n, 1);
    ASSERT_EQ(out[0].first, 20);
    ASSERT_EQ(out[0].last, 21);
    /* No aborted transactions, or no batches: nothing. */
    ASSERT_EQ(gr_share_aborted_batches(c, 3, ac, 0, out), 0);
    ASSERT_EQ(gr_share_aborted_batches(c, 0, ac, 1, out), 0);
    /* An aborted transaction that starts after this batch does not abort it. */
    const gr_share_txn_batch_t d[] = {{30, 31, 6, true, false}, {32, 33, 6, true, false}};
    gr_share_abort_t ad[] = {{6, 32, 40}};
    n = gr_share_aborted_batches(d, 2, ad, 1, out);
    ASSERT_EQ(n, 1);
    ASSERT_EQ(out[0].first, 32);
    ASSERT_EQ(out[0].last, 33);
}

int main(void) {
    RUN_TEST(test_read_bound);
    RUN_TEST(test_aborted_batches);
    RUN_TEST(test_until);
    RUN_TEST(test_cover);
    RUN_TEST(test_merge);
    return 0;
}
