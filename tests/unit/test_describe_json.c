/* Unit tests for share/describe_json.c: JSON strings of client-chosen ids, the lag the
 * capacity view shows, the capacity document (rows sorted, unknown numbers null), and
 * the delayed-redelivery document (which ranges, due times from either clock, clamped
 * and truncated). */
#include "share/describe_json.h"

#include "testutil.h"

static const char *text(gr_wbuf_t *b) {
    gr_wbuf_put(b, "", 1);
    b->len--; /* NUL-terminated, not counted */
    return (const char *)b->mem;
}

static void test_str(void) {
    gr_wbuf_t b;
    gr_wbuf_init(&b);
    gr_share_json_str(&b, "a\"b\\c\n\x7f\xc3\xa9\xff\xe2\x82");
    ASSERT_STREQ(text(&b), "\"a\\\"b\\\\c\\u000a\\u007f\xc3\xa9\\ufffd\\ufffd\\ufffd\"");
    gr_wbuf_reset(&b);
    gr_share_json_error(&b, "no such group");
    ASSERT_STREQ(text(&b), "{\"error\":\"no such group\"}\n");
    gr_wbuf_free(&b);
}

static void test_view_lag(void) {
    ASSERT_EQ(gr_cap_view_lag(true, 42, true, 100, 0, 0), 42);   /* the persisted lag wins */
    ASSERT_EQ(gr_cap_view_lag(true, -5, false, -1, 0, 0), 0);    /* beyond the HWM: no backlog */
    ASSERT_EQ(gr_cap_view_lag(false, 0, false, 100, 10, 0), -1); /* not in memory: unknown */
    ASSERT_EQ(gr_cap_view_lag(false, 0, true, -1, 10, 0), -1);   /* log end unknown */
    ASSERT_EQ(gr_cap_view_lag(false, 0, true, 100, 10, 5), 85);  /* memory state, not written yet */
    ASSERT_EQ(gr_cap_view_lag(false, 0, true, 100, 120, 0), 0);
}

static void test_capacity_doc(void) {
    gr_cap_row_t rows[3] = {
        {.topic = "b", .partition = 0}, {.topic = "a", .partition = 10}, {.topic = "a", .partition = 2}};
    for (int i = 0; i < 3; i++) {
        gr_cap_in_t in = {NULL, NULL, 2000, 0, i == 0 ? 7 : -1};
        gr_cap_compute(&in, &rows[i].out);
    }
    gr_wbuf_t b;
    gr_wbuf_init(&b);
    gr_cap_json_doc(&b, "g\x01", rows, 3);
    const char *s = text(&b);
    ASSERT(strncmp(s, "{\"group\":\"g\\u0001\",\"window_period_seconds\":30,\"share_partitions\":[", 66) == 0);
    const char *a2 = strstr(s, "\"topic\":\"a\",\"partition\":2,"),
               *a10 = strstr(s, "\"topic\":\"a\",\"partition\":10,"),
               *b0 = strstr(s, "\"topic\":\"b\",\"partition\":0,");
    ASSERT(a2 && a10 && b0 && a2 < a10 && a10 < b0); /* by topic, then partition number */
    ASSERT(strstr(s, "\"in_memory\":false,\"window_seconds\":0,\"record_lock_limit\":2000") != NULL);
    ASSERT(strstr(s, "\"lag\":7,") != NULL);
    ASSERT(strstr(s, "\"lag\":null,") != NULL);
    ASSERT(strstr(s, "],\"group_total\":{\"share_partitions\":3,") != NULL);
    ASSERT(strstr(s, "\"record_lock_limit\":6000") != NULL); /* caps sum up */
    ASSERT_EQ(s[strlen(s) - 1], '\n');
    gr_wbuf_free(&b);
}

static void test_delayed_doc(void) {
    gr_wbuf_t b;
    gr_wbuf_init(&b);
    gr_delayed_json_head(&b, "g", 100, 60000);
    /* in memory, loop clock 1000, wall clock 5,000,000: one range due, one overdue */
    gr_sp_batch_t bt[] = {{0, 4, 0, 1, 0}, {5, 6, 0, 2, 1400}, {7, 7, 0, 3, 900}};
    gr_sp_snapshot_t snap;
    gr_sp_delta_init(&snap);
    snap.batches = bt;
    snap.n = 3;
    gr_delayed_row_t r;
    gr_delayed_json_part_begin(&b, 0, "t", 0, true, &r);
    gr_delayed_json_from_sp(&b, &r, &snap, 1000, 5000000);
    gr_delayed_json_part_end(&b, &r);
    ASSERT_EQ(r.n, 3);
    ASSERT_EQ(r.next_due_in, 0);
    /* from the store: a due time in the past is none */
    gr_sstore_batch_t sb[] = {{10, 19, 0, 1, 4999000}, {20, 29, 0, 2, 5002500}};
    gr_sstore_state_t st = {.start_offset = 10, .batches = sb, .n_batches = 2};
    gr_delayed_row_t r2;
    gr_delayed_json_part_begin(&b, 1, "t", 1, false, &r2);
    gr_delayed_json_from_store(&b, &r2, &st, 5000000);
    gr_delayed_json_part_end(&b, &r2);
    ASSERT_EQ(r2.n, 10);
    ASSERT_EQ(r2.next_due_in, 2500);
    gr_delayed_json_tail(&b, r.n + r2.n);
    ASSERT_STREQ(
        text(&b),
        "{\"group\":\"g\",\"redelivery_backoff_ms\":100,\"redelivery_backoff_max_ms\":60000,"
        "\"share_partitions\":[{\"topic\":\"t\",\"partition\":0,\"in_memory\":true,\"ranges\":["
        "{\"first_offset\":5,\"last_offset\":6,\"delivery_count\":2,\"due_in_ms\":400,\"due_unix_ms\":5000400},"
        "{\"first_offset\":7,\"last_offset\":7,\"delivery_count\":3,\"due_in_ms\":0,\"due_unix_ms\":5000000}],"
        "\"ranges_truncated\":false,\"delayed_records\":3,\"next_due_in_ms\":0},"
        "{\"topic\":\"t\",\"partition\":1,\"in_memory\":false,\"ranges\":["
        "{\"first_offset\":20,\"last_offset\":29,\"delivery_count\":2,\"due_in_ms\":2500,"
        "\"due_unix_ms\":5002500}],\"ranges_truncated\":false,\"delayed_records\":10,\"next_due_in_ms\":2500}"
        "],\"group_total\":{\"delayed_records\":13}}\n");
    gr_wbuf_free(&b);
}

static void test_delayed_truncated(void) {
    enum { N = GR_DELAYED_MAX_RANGES + 5 };
    gr_sp_batch_t bt[N];
    for (int i = 0; i < N; i++) bt[i] = (gr_sp_batch_t){2 * i, 2 * i, 0, 1, 2000 + (N - i)};
    gr_sp_snapshot_t snap;
    gr_sp_delta_init(&snap);
    snap.batches = bt;
    snap.n = N;
    gr_wbuf_t b;
    gr_wbuf_init(&b);
    gr_delayed_row_t r;
    gr_delayed_json_part_begin(&b, 0, "t", 0, true, &r);
    gr_delayed_json_from_sp(&b, &r, &snap, 1000, 0);
    gr_delayed_json_part_end(&b, &r);
    const char *s = text(&b);
    int shown = 0;
    for (const char *p = s; (p = strstr(p, "first_offset")); p++) shown++;
    ASSERT_EQ(shown, GR_DELAYED_MAX_RANGES);
    ASSERT_EQ(r.n, N);              /* every delayed record is counted */
    ASSERT_EQ(r.next_due_in, 1001); /* the last one, not shown, is due first */
    ASSERT(strstr(s, "\"ranges_truncated\":true,\"delayed_records\":105,\"next_due_in_ms\":1001}") != NULL);
    gr_wbuf_free(&b);
}

int main(void) {
    RUN_TEST(test_str);
    RUN_TEST(test_view_lag);
    RUN_TEST(test_capacity_doc);
    RUN_TEST(test_delayed_doc);
    RUN_TEST(test_delayed_truncated);
    return 0;
}
