/* Producer state with transactions (src/broker/producers*.c): the last stable offset,
 * the aborted-transactions index and its collectAbortedTxns query, epoch and
 * coordinator fencing, the transaction rules for data batches, the snapshot form,
 * and the rebuild from a snapshot plus the log after a simulated crash. */
#include <stdbool.h>
#include <stdint.h>

#include "broker/producers.h"
#include "broker/producers_int.h"
#include "broker/producers_load.h"
#include "proto/records.h"
#include "test_storage_util.h"
#include "testutil.h"

static int64_t first_unstable(gr_producer_state_t *ps) { return gr_producers_first_unstable(ps); }

static void check(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t seq, int32_t n, bool txn,
                  gr_err_t want) {
    gr_producer_check_t c;
    gr_producers_check(ps, pid, epoch, seq, n, txn, &c);
    ASSERT_EQ(c.err, want);
}

static void test_lso_and_aborted(void) {
    gr_producer_state_t *ps = gr_producers_new();
    ASSERT_EQ(first_unstable(ps), -1);
    /* pid 1: txn at 0..4; pid 2: txn at 5..9; pid 1 aborts at 10; pid 2 commits at 11 */
    gr_producers_record(ps, 1, 0, 0, 5, 0, 4, 100, true, -1);
    ASSERT_EQ(first_unstable(ps), 0);
    gr_producers_record(ps, 2, 0, 0, 5, 5, 9, 100, true, -1);
    ASSERT_EQ(gr_producers_ongoing(ps), 2);
    gr_producers_record(ps, 1, 0, 5, 1, 10, 10, 100, true, -1); /* same txn: first offset stays */
    ASSERT_EQ(first_unstable(ps), 0);
    gr_producers_complete(ps, 1, 0, 3, false, 11, 200, -1);
    ASSERT_EQ(first_unstable(ps), 5);
    gr_aborted_txn_t a[4];
    ASSERT_EQ(gr_producers_aborted(ps, 0, 100, a, 4), 1);
    ASSERT_EQ(a[0].pid, 1);
    ASSERT_EQ(a[0].first_offset, 0);
    ASSERT_EQ(a[0].last_offset, 11);
    ASSERT_EQ(a[0].lso, 5); /* pid 2 still open when pid 1 ended */
    gr_producers_complete(ps, 2, 0, 3, true, 12, 200, -1);
    ASSERT_EQ(first_unstable(ps), -1);
    ASSERT_EQ(gr_producers_aborted(ps, 0, 100, a, 4), 1); /* a commit enters nothing */
    /* collectAbortedTxns: overlap of [from, upper) */
    ASSERT_EQ(gr_producers_aborted(ps, 12, 100, a, 4), 0); /* ended before 12 */
    ASSERT_EQ(gr_producers_aborted(ps, 11, 100, a, 4), 1);
    ASSERT_EQ(gr_producers_aborted(ps, 0, 1, a, 4), 1);
    ASSERT_EQ(gr_producers_aborted(ps, 0, 0, a, 4), 0); /* starts at 0: not below upper 0 */
    /* a marker for a producer with nothing ongoing (the coordinator's retry) changes nothing */
    gr_producers_complete(ps, 1, 0, 3, false, 13, 300, -1);
    ASSERT_EQ(gr_producers_aborted(ps, 0, 100, a, 4), 1);
    /* prune: retention moved the log start past the abort marker */
    gr_producers_prune(ps, 12);
    ASSERT_EQ(gr_producers_aborted(ps, 0, 100, a, 4), 0);
    gr_producers_free(ps);
}

/* Two overlapping aborted transactions: the second is found although the first one
 * already reaches the upper bound (the stored last stable offset decides when to stop). */
static void test_aborted_overlap(void) {
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_record(ps, 1, 0, 0, 1, 10, 10, 1, true, -1);
    gr_producers_record(ps, 2, 0, 0, 1, 20, 20, 1, true, -1);
    gr_producers_complete(ps, 1, 0, 0, false, 100, 1, -1);
    gr_producers_complete(ps, 2, 0, 0, false, 110, 1, -1);
    gr_aborted_txn_t a[4];
    ASSERT_EQ(gr_producers_aborted(ps, 0, 50, a, 4), 2);
    ASSERT_EQ(a[1].pid, 2);
    ASSERT_EQ(gr_producers_aborted(ps, 0, 15, a, 4), 1); /* pid 2 starts at 20 */
    gr_producers_free(ps);
}

static void test_rules(void) {
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_record(ps, 7, 3, 0, 2, 0, 1, 1, true, -1);
    /* a non-transactional batch while a transaction is ongoing */
    check(ps, 7, 3, 2, 1, false, GR_ERR_INVALID_TXN_STATE);
    check(ps, 7, 3, 2, 1, true, GR_ERR_NONE);
    check(ps, 7, 2, 2, 1, true, GR_ERR_INVALID_PRODUCER_EPOCH); /* zombie */
    check(ps, 7, 3, 5, 1, true, GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    gr_producer_check_t c;
    gr_producers_check(ps, 7, 3, 0, 2, true, &c); /* retry of the first batch */
    ASSERT(c.duplicate);
    ASSERT_EQ(c.dup_base_offset, 0);
    /* markers: an older epoch is refused, an older coordinator epoch is fenced */
    ASSERT_EQ(gr_producers_check_marker(ps, 7, 2, 0), GR_ERR_INVALID_PRODUCER_EPOCH);
    ASSERT_EQ(gr_producers_check_marker(ps, 7, 3, 0), GR_ERR_NONE);
    gr_producers_complete(ps, 7, 4, 5, true, 2, 1, -1); /* transaction protocol 2: the marker bumps the epoch */
    ASSERT_EQ(gr_producers_check_marker(ps, 7, 4, 4), GR_ERR_TRANSACTION_COORDINATOR_FENCED);
    ASSERT_EQ(gr_producers_check_marker(ps, 99, 0, 0), GR_ERR_NONE); /* unknown producer */
    /* after the commit: non-transactional is fine again; the new epoch starts at sequence 0 */
    check(ps, 7, 4, 0, 1, false, GR_ERR_NONE);
    check(ps, 7, 4, 3, 1, false, GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    check(ps, 7, 3, 0, 1, true, GR_ERR_INVALID_PRODUCER_EPOCH);
    gr_producers_free(ps);
}

typedef struct seen {
    int n;
    gr_producer_info_t last;
} seen_t;
static void on_info(void *arg, const gr_producer_info_t *in) {
    seen_t *s = arg;
    s->n++;
    s->last = *in;
}

static void test_describe(void) {
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_record(ps, 5, 1, 0, 3, 40, 42, 777, true, -1);
    seen_t s = {0};
    gr_producers_foreach(ps, on_info, &s);
    ASSERT_EQ(s.n, 1);
    ASSERT_EQ(s.last.pid, 5);
    ASSERT_EQ(s.last.epoch, 1);
    ASSERT_EQ(s.last.last_sequence, 2);
    ASSERT_EQ(s.last.last_timestamp, 777);
    ASSERT_EQ(s.last.coordinator_epoch, -1);
    ASSERT_EQ(s.last.txn_start_offset, 40);
    gr_producers_free(ps);
}

static gr_producer_state_t *roundtrip(gr_producer_state_t *ps, int64_t valid_to, gr_wbuf_t *wb) {
    gr_wbuf_reset(wb);
    gr_producers_snapshot_encode(ps, valid_to, wb);
    gr_producer_state_t *out = NULL;
    int64_t vt = -1;
    const char *why = NULL;
    ASSERT_EQ(gr_producers_snapshot_decode(wb->mem, wb->len, SIZE_MAX, &out, &vt, &why), GR_ERR_NONE);
    ASSERT_EQ(vt, valid_to);
    return out;
}

static void test_snapshot(void) {
    gr_producer_state_t *ps = gr_producers_new();
    for (int64_t pid = 0; pid < 100; pid++)
        gr_producers_record(ps, pid, 1, 0, 1, pid * 2, pid * 2, pid, pid % 3 == 0, -1);
    for (int64_t pid = 0; pid < 30; pid += 3) gr_producers_complete(ps, pid, 1, 2, pid % 2 == 0, 200 + pid, 9, -1);
    gr_wbuf_t wb, wb2;
    gr_wbuf_init(&wb);
    gr_wbuf_init(&wb2);
    gr_producer_state_t *back = roundtrip(ps, 300, &wb);
    ASSERT_EQ(gr_producers_first_unstable(back), gr_producers_first_unstable(ps));
    ASSERT_EQ(gr_producers_ongoing(back), gr_producers_ongoing(ps));
    ASSERT_EQ(gr_producers_aborted(back, 0, 1000, NULL, 0), gr_producers_aborted(ps, 0, 1000, NULL, 0));
    ASSERT_EQ(gr_producers_count(back), 100);
    gr_producers_snapshot_encode(back, 300, &wb2);
    ASSERT_EQ(wb.len, wb2.len); /* same content (order may differ only by hash order, which is the same) */
    /* every corruption is caught */
    for (size_t i = 0; i < wb.len; i += 7) {
        wb.mem[i] ^= 0x40;
        gr_producer_state_t *bad = NULL;
        int64_t vt;
        const char *why;
        ASSERT_EQ(gr_producers_snapshot_decode(wb.mem, wb.len, SIZE_MAX, &bad, &vt, &why), GR_ERR_CORRUPT_MESSAGE);
        ASSERT(bad == NULL);
        wb.mem[i] ^= 0x40;
    }
    gr_wbuf_free(&wb);
    gr_wbuf_free(&wb2);
    gr_producers_free(back);
    gr_producers_free(ps);
}

/* ---- rebuild from the log ---- */

static int64_t append_wb(gr_plog_t *plog, gr_wbuf_t *wb) {
    gr_plog_append_opts_t o = {.now_ms = 1000};
    gr_plog_append_result_t res;
    char es[256];
    if (gr_plog_append(plog, wb->mem, wb->len, &o, &res, es, sizeof(es))) GR__FAIL("append: %s", es);
    gr_wbuf_reset(wb);
    return res.base_offset;
}

static int64_t append_data(gr_plog_t *plog, int64_t pid, int16_t epoch, int32_t seq, int n, bool txn, size_t pad) {
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    char *v = calloc(1, pad + 1);
    for (int i = 0; i < n; i++) gr_batch_builder_add(&bb, 1000, "k", 1, v, (int32_t)pad, NULL, 0);
    free(v);
    gr_batch_builder_opts_t o;
    gr_batch_builder_opts_init(&o);
    o.producer_id = pid;
    o.producer_epoch = epoch;
    o.base_sequence = pid >= 0 ? seq : -1;
    o.transactional = txn;
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    ASSERT_EQ(gr_batch_builder_finish(&bb, &o, &wb), GR_ERR_NONE);
    gr_batch_builder_free(&bb);
    int64_t off = append_wb(plog, &wb);
    gr_wbuf_free(&wb);
    return off;
}

static int64_t append_marker(gr_plog_t *plog, int64_t pid, int16_t epoch, bool commit) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_control_batch_build(pid, epoch, commit, 1, 1000, &wb);
    int64_t off = append_wb(plog, &wb);
    gr_wbuf_free(&wb);
    return off;
}

static void test_control_batch(void) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_control_batch_build(42, 3, false, 7, 1234, &wb);
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    gr_batch_iter_init(&it, wb.mem, wb.len);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, NULL, 0), GR_ERR_NONE);
    ASSERT(gr_batch_crc_ok(&bv));
    ASSERT_EQ(bv.attributes, GR_BATCH_ATTR_TRANSACTIONAL | GR_BATCH_ATTR_CONTROL);
    ASSERT_EQ(bv.producer_id, 42);
    ASSERT_EQ(bv.producer_epoch, 3);
    ASSERT_EQ(bv.base_sequence, -1);
    ASSERT_EQ(bv.record_count, 1);
    /* Kafka's bytes: key 00 00 00 00 (version 0, ABORT), value 00 00 00 00 00 07 */
    gr_record_iter_t ri;
    gr_record_t rec;
    gr_wbuf_t scratch;
    gr_wbuf_init(&scratch);
    ASSERT_EQ(gr_record_iter_init(&ri, &bv, &scratch, 0, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_record_iter_next(&ri, &rec, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(rec.key_len, 4);
    ASSERT_MEMEQ(rec.key, "\0\0\0\0", 4);
    ASSERT_EQ(rec.value_len, 6);
    ASSERT_MEMEQ(rec.value, "\0\0\0\0\0\7", 6);
    int16_t type;
    int32_t ce;
    ASSERT_EQ(gr_control_batch_marker(&bv, &type, &ce), GR_ERR_NONE);
    ASSERT_EQ(type, GR_CONTROL_ABORT);
    ASSERT_EQ(ce, 7);
    gr_wbuf_free(&scratch);
    gr_wbuf_free(&wb);
}

static void expect_state(gr_producer_state_t *ps, int64_t unstable, size_t n_aborted, int64_t abort_first) {
    ASSERT_EQ(gr_producers_first_unstable(ps), unstable);
    gr_aborted_txn_t a[8];
    ASSERT_EQ(gr_producers_aborted(ps, 0, INT64_MAX, a, 8), n_aborted);
    if (n_aborted) ASSERT_EQ(a[0].first_offset, abort_first);
}

/* A transaction that starts 3 MiB before the crash (beyond any tail scan), a snapshot
 * taken in its middle, an abort after it: the rebuild finds both. */
static void test_rebuild(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 1 << 20; /* several segments */
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    gr_producers_load_info_t li;
    gr_producer_state_t *ps = gr_producers_load(plog, dir, SIZE_MAX, &li); /* new log: no snapshot */
    ASSERT(!li.had_snapshot);
    ASSERT_EQ(gr_producers_save(ps, plog, dir, false), GR_ERR_NONE);
    gr_producers_free(ps);
    int64_t t1 = append_data(plog, 1, 0, 0, 1, true, 100); /* pid 1 txn starts */
    int32_t seq = 0;
    for (int i = 0; i < 30; i++) append_data(plog, 2, 0, seq++, 1, false, 100000); /* idempotent filler */
    int64_t t2 = append_data(plog, 3, 0, 0, 1, true, 10);                          /* pid 3 txn */
    append_marker(plog, 3, 0, false);                                              /* aborted */
    ps = gr_producers_load(plog, dir, SIZE_MAX, &li);                              /* from the empty snapshot */
    ASSERT(li.had_snapshot);
    ASSERT_EQ(li.scanned_from, 0);
    expect_state(ps, t1, 1, t2);
    ASSERT_EQ(gr_producers_save(ps, plog, dir, false), GR_ERR_NONE); /* snapshot mid-transaction */
    gr_producers_free(ps);
    int64_t snap_end = gr_plog_end_offset(plog);
    for (int i = 0; i < 30; i++) append_data(plog, 2, 0, seq++, 1, false, 100000);
    int64_t m1 = append_marker(plog, 1, 0, false);        /* pid 1 aborts after the snapshot */
    int64_t t4 = append_data(plog, 4, 0, 0, 1, true, 10); /* still open at the crash */
    gr_plog_abandon(plog);                                /* kill -9 */
    plog = tb_open(dir, &cfg, 2000);
    ps = gr_producers_load(plog, dir, SIZE_MAX, &li);
    ASSERT(li.had_snapshot);
    ASSERT_EQ(li.scanned_from, snap_end);
    ASSERT_EQ(gr_producers_first_unstable(ps), t4);
    gr_aborted_txn_t a[4];
    ASSERT_EQ(gr_producers_aborted(ps, 0, INT64_MAX, a, 4), 2);
    ASSERT_EQ(a[1].pid, 1);
    ASSERT_EQ(a[1].first_offset, t1);
    ASSERT_EQ(a[1].last_offset, m1);
    check(ps, 2, 0, seq, 1, false, GR_ERR_NONE); /* idempotence state too */
    check(ps, 2, 0, seq + 1, 1, false, GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    gr_producers_free(ps);
    /* a corrupt snapshot: the whole log is read, with the same result */
    char path[400];
    snprintf(path, sizeof(path), "%s/%s", dir, GR_PRODUCERS_SNAPSHOT_FILE);
    FILE *f = fopen(path, "r+b");
    ASSERT(f);
    fseek(f, 10, SEEK_SET);
    fputc(0x55, f);
    fclose(f);
    ps = gr_producers_load(plog, dir, SIZE_MAX, &li);
    ASSERT(li.full_scan);
    ASSERT_EQ(gr_producers_first_unstable(ps), t4);
    ASSERT_EQ(gr_producers_aborted(ps, 0, INT64_MAX, a, 4), 2);
    /* a snapshot ahead of the log (its tail lost): the whole log is read */
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_producers_snapshot_encode(ps, gr_plog_end_offset(plog) + 100, &wb);
    f = fopen(path, "wb");
    ASSERT(fwrite(wb.mem, 1, wb.len, f) == wb.len);
    fclose(f);
    gr_wbuf_free(&wb);
    gr_producers_free(ps);
    ps = gr_producers_load(plog, dir, SIZE_MAX, &li);
    ASSERT(li.full_scan && !li.had_snapshot);
    ASSERT_EQ(gr_producers_first_unstable(ps), t4);
    gr_producers_free(ps);
    /* no snapshot file at all: a log from before transactions, only its tail is read */
    unlink(path);
    ps = gr_producers_load(plog, dir, SIZE_MAX, &li);
    ASSERT(!li.full_scan && !li.had_snapshot);
    ASSERT(li.scanned_from > 0);
    gr_producers_free(ps);
    gr_plog_close(plog);
    tb_rmrf(root);
}

/* producer.id.expiration.ms: idle producers go, an ongoing transaction keeps its producer,
 * a producer rebuilt from the log (time unknown) counts from the first pass. */
static void test_expire(void) {
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_record(ps, 1, 0, 0, 1, 0, 0, 5, false, 1000);         /* idle since 1000 */
    gr_producers_record(ps, 2, 0, 0, 1, 1, 1, 5, true, 1000);          /* ongoing transaction */
    gr_producers_record(ps, 3, 0, 0, 1, 2, 2, 999999999, false, 1900); /* future batch timestamp */
    gr_producers_record(ps, 4, 0, 0, 1, 3, 3, 5, false, -1);           /* rebuilt at start-up */
    ASSERT_EQ(gr_producers_count(ps), 4);
    ASSERT_EQ(gr_producers_expire(ps, 1999, 1000), 0); /* 999 ms idle: not yet */
    ASSERT_EQ(gr_producers_expire(ps, 2000, 1000), 1); /* pid 1 */
    ASSERT(!gr_producers_entry(ps, 1, false));
    ASSERT_EQ(gr_producers_expire(ps, 2900, 1000), 1); /* pid 3: the broker's clock, not its timestamp */
    ASSERT(gr_producers_entry(ps, 2, false));
    ASSERT(gr_producers_entry(ps, 4, false)); /* stamped at 2000, expires at 3000 */
    ASSERT_EQ(gr_producers_expire(ps, 3000, 1000), 1);
    ASSERT(!gr_producers_entry(ps, 4, false));
    gr_producers_complete(ps, 2, 0, 0, true, 10, 5, 5000); /* the transaction ends */
    ASSERT_EQ(gr_producers_expire(ps, 5999, 1000), 0);
    ASSERT_EQ(gr_producers_expire(ps, 6000, 1000), 1);
    ASSERT_EQ(gr_producers_count(ps), 0);
    ASSERT_EQ(gr_producers_first_unstable(ps), -1);
    gr_producers_free(ps);
}

static void expect_capped(gr_producer_state_t *ps, int64_t t1) {
    ASSERT_EQ(gr_producers_count(ps), 5);
    ASSERT(gr_producers_entry(ps, 1, false)); /* ongoing: kept though the oldest */
    for (int64_t pid = 100; pid < 120; pid++) ASSERT_EQ(gr_producers_entry(ps, pid, false) != NULL, pid >= 116);
    ASSERT_EQ(gr_producers_first_unstable(ps), t1);
    gr_producer_check_t c;
    gr_producers_check(ps, 119, 0, 0, 1, false, &c); /* a retry: still deduplicated */
    ASSERT(c.err == GR_ERR_NONE && c.duplicate);
}

/* gregor.producer.state.max.producers on recovery: a log with one ongoing transaction
 * and 20 idempotent producers after it, rebuilt under a cap of 5 (from the log, then
 * from a snapshot written without a cap) keeps the transaction and the 4 most recent. */
static void test_rebuild_capped(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    int64_t t1 = append_data(plog, 1, 0, 0, 1, true, 10);
    for (int64_t pid = 100; pid < 120; pid++) append_data(plog, pid, 0, 0, 1, false, 10);
    gr_producers_load_info_t li;
    gr_producer_state_t *ps = gr_producers_load(plog, dir, 5, &li); /* no snapshot: the tail */
    ASSERT(!li.had_snapshot);
    expect_capped(ps, t1);
    gr_producers_free(ps);
    ps = gr_producers_load(plog, dir, SIZE_MAX, &li);
    ASSERT_EQ(gr_producers_count(ps), 21);
    ASSERT_EQ(gr_producers_save(ps, plog, dir, false), GR_ERR_NONE);
    gr_producers_free(ps);
    ps = gr_producers_load(plog, dir, 5, &li);
    ASSERT(li.had_snapshot);
    expect_capped(ps, t1);
    gr_producers_free(ps);
    gr_plog_close(plog);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_lso_and_aborted);
    RUN_TEST(test_aborted_overlap);
    RUN_TEST(test_rules);
    RUN_TEST(test_describe);
    RUN_TEST(test_snapshot);
    RUN_TEST(test_control_batch);
    RUN_TEST(test_rebuild);
    RUN_TEST(test_expire);
    RUN_TEST(test_rebuild_capped);
    fprintf(stderr, "ok\n");
    return 0;
}
