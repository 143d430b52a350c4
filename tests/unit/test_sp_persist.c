/* Unit tests for share/sp_persist.c: SP delta <-> share-state store conversions across
 * the loop and wall clocks, share.auto.offset.reset against a log view, and the
 * persister error mapping. */
#include "share/sp_persist.h"

#include "testutil.h"

static void test_update(void) {
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    gr_sp_batch_t b[] = {{10, 19, 0, 2, 5000}, {20, 29, 2, 1, 0}, {30, 30, 0, 3, 4000}};
    d.batches = b;
    d.n = 3;
    d.start_offset = 10;
    d.state_epoch = 7;
    d.delivery_complete_count = (int64_t)INT32_MAX + 5; /* saturates */
    gr_sstore_batch_t bv[3];
    gr_sstore_update_t up;
    /* loop clock 1000, wall clock 1,700,000,000,000 */
    gr_sp_persist_update(&d, 1000, 1700000000000, bv, &up);
    ASSERT(up.batches == bv);
    ASSERT_EQ(up.n_batches, 3);
    ASSERT_EQ(up.state_epoch, 7);
    ASSERT_EQ(up.leader_epoch, -1);
    ASSERT_EQ(up.start_offset, 10);
    ASSERT_EQ(up.delivery_complete_count, INT32_MAX);
    ASSERT_EQ(bv[0].first_offset, 10);
    ASSERT_EQ(bv[0].last_offset, 19);
    ASSERT_EQ(bv[0].count, 2);
    ASSERT_EQ(bv[0].due_ms, 1700000004000); /* due 4 s after now, on the wall clock */
    ASSERT_EQ(bv[1].state, 2);
    ASSERT_EQ(bv[1].due_ms, 0); /* no delay */
    ASSERT_EQ(bv[2].due_ms, 1700000003000);
    d.delivery_complete_count = 12;
    d.n = 0;
    gr_sp_persist_update(&d, 1000, 2000, bv, &up);
    ASSERT_EQ(up.delivery_complete_count, 12);
    ASSERT_EQ(up.n_batches, 0);
}

static void test_batches_roundtrip(void) {
    gr_sstore_batch_t sb[] = {{0, 4, 0, 1, 9000}, {5, 9, 0, 2, 7000}, {10, 10, 0, 1, 6999}, {11, 12, 3, 4, 0}};
    gr_sstore_state_t st = {.start_offset = 0, .batches = sb, .n_batches = 4};
    gr_sp_batch_t out[4];
    /* restart: wall clock 7000, the new loop clock 50 */
    gr_sp_persist_batches(&st, 50, 7000, out);
    ASSERT_EQ(out[0].not_before_ms, 2050); /* still 2 s to go, on the new loop clock */
    ASSERT_EQ(out[1].not_before_ms, 0);    /* due exactly now: none */
    ASSERT_EQ(out[2].not_before_ms, 0);    /* past: none */
    ASSERT_EQ(out[3].not_before_ms, 0);
    ASSERT_EQ(out[3].state, 3);
    ASSERT_EQ(out[3].delivery_count, 4);
    ASSERT_EQ(out[1].first_offset, 5);
    /* and back: the wall-clock due time survives */
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    d.batches = out;
    d.n = 1;
    gr_sstore_batch_t bv[1];
    gr_sstore_update_t up;
    gr_sp_persist_update(&d, 50, 7000, bv, &up);
    ASSERT_EQ(bv[0].due_ms, 9000);
}

static int64_t want_ts, found_at;
static bool find(void *ctx, int64_t ts, int64_t *off) {
    ASSERT(ctx == &want_ts);
    want_ts = ts;
    if (found_at < 0) return false;
    *off = found_at;
    return true;
}

static void test_reset(void) {
    gr_share_log_view_t log = {100, 250, find, &want_ts};
    gr_sgc_values_t v;
    memset(&v, 0, sizeof(v));
    v.auto_offset_reset = GR_SGC_RESET_LATEST;
    ASSERT_EQ(gr_sp_reset_offset(&v, &log, 10000), 250);
    v.auto_offset_reset = GR_SGC_RESET_EARLIEST;
    ASSERT_EQ(gr_sp_reset_offset(&v, &log, 10000), 100);
    v.auto_offset_reset = GR_SGC_RESET_BY_DURATION;
    v.reset_duration_ms = 600000;
    found_at = 180;
    ASSERT_EQ(gr_sp_reset_offset(&v, &log, 1000000), 180);
    ASSERT_EQ(want_ts, 400000); /* now - duration */
    found_at = -1;              /* no record that recent: latest */
    ASSERT_EQ(gr_sp_reset_offset(&v, &log, 1000000), 250);
    log.offset_for_time = NULL;
    ASSERT_EQ(gr_sp_reset_offset(&v, &log, 1000000), 250);
}

static void test_persister_errors(void) {
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_FENCED_STATE_EPOCH), GR_ERR_NOT_LEADER_OR_FOLLOWER);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_FENCED_LEADER_EPOCH), GR_ERR_NOT_LEADER_OR_FOLLOWER);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_KAFKA_STORAGE_ERROR), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_COORDINATOR_NOT_AVAILABLE), GR_ERR_COORDINATOR_NOT_AVAILABLE);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_UNKNOWN_TOPIC_OR_PARTITION), GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_INVALID_REQUEST), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR__NOENT), GR_ERR_UNKNOWN_SERVER_ERROR);
    ASSERT_EQ(gr_sp_persister_error(GR_ERR_INVALID_RECORD_STATE), GR_ERR_UNKNOWN_SERVER_ERROR);
}

static bool no_time(void *ctx, int64_t ts_ms, int64_t *offset) {
    (void)ctx, (void)ts_ms, (void)offset;
    return false;
}

static void test_load(void) {
    gr_sgc_values_t v = {0};
    v.auto_offset_reset = GR_SGC_RESET_EARLIEST;
    gr_share_log_view_t log = {40, 90, no_time, NULL};
    char why[256];
    gr_sstore_state_t st = {0};
    /* no state at all: share.auto.offset.reset, state epoch 0 */
    gr_sp_t *sp = gr_sp_new();
    ASSERT_EQ(gr_sp_load(sp, GR_ERR__NOENT, &st, &v, &log, 1000, 5000000, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 40);
    ASSERT_EQ(gr_sp_state_epoch(sp), 0);
    gr_sp_destroy(sp);
    /* initialized by the coordinator (start -1) at epoch 3: reset, epoch kept */
    v.auto_offset_reset = GR_SGC_RESET_LATEST;
    st = (gr_sstore_state_t){.state_epoch = 3, .leader_epoch = -1, .start_offset = -1};
    sp = gr_sp_new();
    ASSERT_EQ(gr_sp_load(sp, GR_ERR_NONE, &st, &v, &log, 1000, 5000000, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 90);
    ASSERT_EQ(gr_sp_state_epoch(sp), 3);
    gr_sp_destroy(sp);
    /* persisted: batches, a future wall-clock due time moves to the loop clock */
    gr_sstore_batch_t b[] = {{50, 54, GR_SP_AVAILABLE, 2, 5002000}, {55, 59, GR_SP_ARCHIVED, 5, 0}};
    st = (gr_sstore_state_t){.state_epoch = 2, .start_offset = 50, .batches = b, .n_batches = 2};
    sp = gr_sp_new();
    ASSERT_EQ(gr_sp_load(sp, GR_ERR_NONE, &st, &v, &log, 1000, 5000000, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 50);
    ASSERT_EQ(gr_sp_state_epoch(sp), 2);
    int s = -1;
    int16_t c = -1;
    ASSERT(gr_sp_record(sp, 52, &s, &c, NULL, NULL));
    ASSERT_EQ(s, GR_SP_AVAILABLE);
    ASSERT_EQ(c, 2);
    ASSERT_EQ(gr_sp_next_deadline(sp), 3000); /* due 2 s after the load */
    gr_sp_destroy(sp);
    /* corrupt (overlapping batches): refused with a reason */
    gr_sstore_batch_t bad[] = {{50, 54, GR_SP_AVAILABLE, 1, 0}, {53, 59, GR_SP_ARCHIVED, 1, 0}};
    st.batches = bad;
    sp = gr_sp_new();
    ASSERT_EQ(gr_sp_load(sp, GR_ERR_NONE, &st, &v, &log, 1000, 5000000, why, sizeof(why)), GR_ERR_UNKNOWN_SERVER_ERROR);
    ASSERT(why[0] != 0);
    gr_sp_destroy(sp);
    /* the store could not read: refused without a reason (nothing is corrupt) */
    sp = gr_sp_new();
    ASSERT_EQ(gr_sp_load(sp, GR_ERR_KAFKA_STORAGE_ERROR, &st, &v, &log, 1000, 5000000, why, sizeof(why)),
              GR_ERR_UNKNOWN_SERVER_ERROR);
    ASSERT_EQ(why[0], 0);
    gr_sp_destroy(sp);
}

static void test_start_needed(void) {
    gr_sstore_update_t up = {0};
    gr_sstore_state_t st = {.state_epoch = 1, .start_offset = 7};
    ASSERT(!gr_sp_persist_start_needed(GR_ERR_NONE, &st, 4, 12, &up)); /* already durable */
    st.start_offset = -1;
    ASSERT(gr_sp_persist_start_needed(GR_ERR_NONE, &st, 4, 12, &up));
    ASSERT_EQ(up.start_offset, 12);
    ASSERT_EQ(up.state_epoch, 4);
    ASSERT_EQ(up.leader_epoch, -1);
    ASSERT_EQ(up.delivery_complete_count, -1);
    ASSERT_EQ(up.n_batches, 0);
    ASSERT(gr_sp_persist_start_needed(GR_ERR__NOENT, &st, 0, 3, &up)); /* no state at all */
    ASSERT_EQ(up.start_offset, 3);
}

int main(void) {
    RUN_TEST(test_load);
    RUN_TEST(test_start_needed);
    RUN_TEST(test_update);
    RUN_TEST(test_batches_roundtrip);
    RUN_TEST(test_reset);
    RUN_TEST(test_persister_errors);
    return 0;
}
