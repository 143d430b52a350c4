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

int main(void) {
    RUN_TEST(test_until);
    RUN_TEST(test_cover);
    RUN_TEST(test_merge);
    return 0;
}
