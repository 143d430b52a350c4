/* Partition log: append/read, index lookups, segment roll, retention,
 * DeleteRecords, timestamp queries, flush policy, write errors. */
#include "test_storage_util.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>

#include "base/clock.h"

static char root[256], pdir[512];

static void setup(void) { tb_tmpdir(root, sizeof(root), pdir, sizeof(pdir)); }
static void teardown(void) { tb_rmrf(root); }

/* Read the whole slice and check every batch in it; returns the number of batches. */
static int check_slice(const gr_plog_slice_t *sl) {
    uint8_t *b = malloc(sl->len);
    ASSERT(b);
    ASSERT_EQ(pread(sl->fd, b, sl->len, sl->pos), (ssize_t)sl->len);
    size_t pos = 0;
    int64_t off = sl->first_offset;
    int n = 0;
    while (pos < sl->len) {
        size_t blen = 12 + gr_be32(b + pos + 8);
        tb_check_batch(b + pos, blen, off);
        off += (int64_t)gr_be32(b + pos + 23) + 1;
        pos += blen;
        n++;
    }
    ASSERT_EQ(pos, sl->len);
    ASSERT_EQ(off, sl->next_offset);
    ASSERT_EQ(off - 1, sl->last_offset);
    ASSERT_EQ(n, sl->n_batches);
    free(b);
    return n;
}

static void test_append_read(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(pdir, &cfg, 1000);
    ASSERT_EQ(gr_plog_end_offset(plog), 0);
    uint8_t buf[4096];
    size_t len = tb_batch(buf, 3, 100, 50, 1);
    len += tb_batch(buf + len, 2, 101, 70, 2); /* two batches in one append */
    gr_plog_append_opts_t o = {.now_ms = 1000};
    gr_plog_append_result_t res;
    char es[256];
    ASSERT_EQ(gr_plog_append(plog, buf, len, &o, &res, es, sizeof(es)), 0);
    ASSERT_EQ(res.base_offset, 0);
    ASSERT_EQ(res.last_offset, 4);
    ASSERT_EQ(res.log_append_time_ms, -1);
    ASSERT_EQ(tb_append1(plog, 1, 102, 500, 1000), 5);
    ASSERT_EQ(gr_plog_end_offset(plog), 6);

    gr_plog_slice_t sl;
    ASSERT_EQ(gr_plog_read(plog, 0, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(check_slice(&sl), 3);
    gr_plog_slice_release(sl.owner);
    /* Offset inside the second batch: the slice starts at that batch. */
    ASSERT_EQ(gr_plog_read(plog, 4, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.first_offset, 3);
    ASSERT_EQ(check_slice(&sl), 2);
    gr_plog_slice_release(sl.owner);
    /* max_bytes smaller than one batch: still one whole batch (KIP-74). */
    ASSERT_EQ(gr_plog_read(plog, 0, 10, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(check_slice(&sl), 1);
    ASSERT_EQ(sl.next_offset, 3);
    gr_plog_slice_release(sl.owner);
    /* High watermark 5: the last batch (offset 5) is not visible; 4 is mid-batch. */
    ASSERT_EQ(gr_plog_read(plog, 0, 1 << 20, 5, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(check_slice(&sl), 2);
    gr_plog_slice_release(sl.owner);
    ASSERT_EQ(gr_plog_read(plog, 0, 1 << 20, 4, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(check_slice(&sl), 1);
    gr_plog_slice_release(sl.owner);
    ASSERT_EQ(gr_plog_read(plog, 5, 1 << 20, 5, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.len, 0);
    ASSERT(sl.owner == NULL);
    /* At the end: empty; past it: out of range. */
    ASSERT_EQ(gr_plog_read(plog, 6, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.len, 0);
    ASSERT_EQ(sl.next_offset, 6);
    ASSERT_EQ(gr_plog_read(plog, 7, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), GR_ERR_OFFSET_OUT_OF_RANGE);
    /* Copying read. */
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    ASSERT_EQ(gr_plog_read_copy(plog, 5, 100, INT64_MAX, &wb, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(wb.len, 561);
    tb_check_batch(wb.mem, wb.len, 5);
    ASSERT(sl.owner == NULL);
    gr_wbuf_free(&wb);
    /* Not whole batches. */
    len = tb_batch(buf, 1, 1, 10, 1);
    ASSERT_EQ(gr_plog_append(plog, buf, len - 1, &o, &res, es, sizeof(es)), GR_ERR_CORRUPT_MESSAGE);
    ASSERT_EQ(gr_plog_append(plog, buf, 0, &o, &res, es, sizeof(es)), GR_ERR_CORRUPT_MESSAGE);
    ASSERT_EQ(gr_plog_end_offset(plog), 6);
    gr_plog_close(plog);
    /* Clean reopen. */
    plog = tb_open(pdir, &cfg, 2000);
    ASSERT_EQ(gr_plog_end_offset(plog), 6);
    ASSERT_EQ(gr_plog_read(plog, 2, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(check_slice(&sl), 3);
    gr_plog_slice_release(sl.owner);
    ASSERT_EQ(tb_append1(plog, 1, 103, 5, 2000), 6);
    gr_plog_close(plog);
    teardown();
}

/* Look up every offset of a log with many batches of varied sizes. */
static void check_all_offsets(gr_plog_t *plog, const int64_t *bases, int n) {
    char es[256];
    gr_plog_slice_t sl;
    for (int i = 0; i < n; i++) {
        int64_t last = (i + 1 < n ? bases[i + 1] : gr_plog_end_offset(plog)) - 1;
        for (int64_t off = bases[i]; off <= last; off += (last - bases[i]) / 2 + 1) {
            ASSERT_EQ(gr_plog_read(plog, off, 1, INT64_MAX, &sl, es, sizeof(es)), 0);
            ASSERT_EQ(sl.first_offset, bases[i]);
            ASSERT_EQ(sl.next_offset, last + 1);
            gr_plog_slice_release(sl.owner);
        }
    }
}

static void test_index_many(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 256 * 1024;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    enum { N = 4000 };
    static int64_t bases[N];
    for (int i = 0; i < N; i++) bases[i] = tb_append1(plog, 1 + i % 5, 1000 + i, (size_t)(20 + (i * 37) % 400), 0);
    ASSERT(gr_plog_segment_count(plog) > 3);
    check_all_offsets(plog, bases, N);
    gr_plog_close(plog);
    char fn[600];
    snprintf(fn, sizeof(fn), "%s/%020d.index", pdir, 0);
    ASSERT(tb_file_size(fn) > 8 * 40);
    plog = tb_open(pdir, &cfg, 0);
    check_all_offsets(plog, bases, N);
    gr_plog_close(plog);
    teardown();
}

static void test_roll_size(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 1000;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 30; i++) tb_append1(plog, 2, 10, 139, 0); /* 200 bytes each: 5 per segment */
    ASSERT_EQ(gr_plog_segment_count(plog), 6);
    char fn[600];
    for (int s = 0; s < 6; s++) {
        snprintf(fn, sizeof(fn), "%s/%020d.log", pdir, s * 10);
        ASSERT_EQ(tb_file_size(fn), 1000);
    }
    /* A batch bigger than segment.bytes still goes in, alone. */
    tb_append1(plog, 1, 10, 2000, 0);
    tb_append1(plog, 1, 10, 10, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 8);
    /* Reads stop at a segment end; the next read continues in the next segment. */
    gr_plog_slice_t sl;
    char es[256];
    ASSERT_EQ(gr_plog_read(plog, 4, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.first_offset, 4);
    ASSERT_EQ(sl.next_offset, 10);
    gr_plog_slice_release(sl.owner);
    ASSERT_EQ(gr_plog_read(plog, 10, 1 << 20, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.next_offset, 20);
    gr_plog_slice_release(sl.owner);
    gr_plog_close(plog);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 8);
    ASSERT_EQ(gr_plog_end_offset(plog), 62);
    gr_plog_close(plog);
    teardown();
}

static void test_roll_time(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_ms = 1000;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    tb_append1(plog, 1, 5000, 10, 0);
    tb_append1(plog, 1, 6000, 10, 0); /* waited exactly segment.ms: no roll */
    ASSERT_EQ(gr_plog_segment_count(plog), 1);
    tb_append1(plog, 1, 6001, 10, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 2);
    /* LogAppendTime: the broker's now_ms is the batch timestamp. */
    uint8_t buf[128];
    size_t len = tb_batch(buf, 1, 1, 10, 0);
    gr_plog_append_opts_t o = {.now_ms = 7002, .log_append_time = true, .set_leader_epoch = true, .leader_epoch = 7};
    gr_plog_append_result_t res;
    char es[256];
    ASSERT_EQ(gr_plog_append(plog, buf, len, &o, &res, es, sizeof(es)), 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 3);
    ASSERT_EQ(res.log_append_time_ms, 7002);
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_plog_slice_t sl;
    ASSERT_EQ(gr_plog_read_copy(plog, 3, 1 << 20, INT64_MAX, &wb, &sl, es, sizeof(es)), 0);
    tb_check_batch(wb.mem, wb.len, 3);
    ASSERT_EQ(gr_be32(wb.mem + 12), 7);
    ASSERT_EQ(gr_be16(wb.mem + 21) & 0x08, 0x08);
    ASSERT_EQ((int64_t)gr_be64(wb.mem + 35), 7002);
    gr_wbuf_free(&wb);
    gr_plog_close(plog);
    /* After reopening, the roll is still measured from the first batch's timestamp. */
    plog = tb_open(pdir, &cfg, 0);
    tb_append1(plog, 1, 7500, 10, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 3);
    tb_append1(plog, 1, 8003, 10, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 4);
    gr_plog_close(plog);
    teardown();
}

static void test_retention(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 1000;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 30; i++) tb_append1(plog, 2, 1000 * (i / 5), 139, 0); /* segment s: ts 1000*s */
    ASSERT_EQ(gr_plog_segment_count(plog), 6);
    int n = -1;
    ASSERT_EQ(gr_plog_retention(plog, 100000, &n), 0); /* unlimited */
    ASSERT_EQ(n, 0);
    cfg.retention_ms = 2500;
    gr_plog_set_config(plog, &cfg);
    ASSERT_EQ(gr_plog_retention(plog, 4500, &n), 0); /* segments with max ts 0, 1000 expire */
    ASSERT_EQ(n, 2);
    ASSERT_EQ(gr_plog_start_offset(plog), 20);
    char es[256];
    gr_plog_slice_t sl;
    ASSERT_EQ(gr_plog_read(plog, 19, 100, INT64_MAX, &sl, es, sizeof(es)), GR_ERR_OFFSET_OUT_OF_RANGE);
    ASSERT_EQ(gr_plog_retention(plog, 1000000, &n), 0); /* never the active segment */
    ASSERT_EQ(n, 3);
    ASSERT_EQ(gr_plog_segment_count(plog), 1);
    ASSERT_EQ(gr_plog_start_offset(plog), 50);
    cfg.retention_ms = -1;
    cfg.retention_bytes = 2500;
    gr_plog_set_config(plog, &cfg);
    for (int i = 0; i < 25; i++) tb_append1(plog, 2, 1, 139, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 6);
    ASSERT_EQ(gr_plog_retention(plog, 0, &n), 0); /* 6000 bytes: delete while >= 2500 remain */
    ASSERT_EQ(n, 3);
    ASSERT_EQ(gr_plog_size_bytes(plog), 3000);
    ASSERT_EQ(gr_plog_start_offset(plog), 80);
    gr_plog_close(plog);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_start_offset(plog), 80);
    ASSERT_EQ(gr_plog_end_offset(plog), 110);
    gr_plog_close(plog);
    teardown();
}

static void test_delete_records(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 1000;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 12; i++) tb_append1(plog, 2, 1, 139, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 3);
    char es[256];
    ASSERT_EQ(gr_plog_delete_records(plog, 25, es, sizeof(es)), GR_ERR_OFFSET_OUT_OF_RANGE);
    ASSERT_EQ(gr_plog_delete_records(plog, 13, es, sizeof(es)), 0);
    ASSERT_EQ(gr_plog_start_offset(plog), 13);
    ASSERT_EQ(gr_plog_segment_count(plog), 2);                     /* [0,10) deleted */
    ASSERT_EQ(gr_plog_delete_records(plog, 5, es, sizeof(es)), 0); /* lower: no-op */
    ASSERT_EQ(gr_plog_start_offset(plog), 13);
    gr_plog_slice_t sl;
    ASSERT_EQ(gr_plog_read(plog, 12, 100, INT64_MAX, &sl, es, sizeof(es)), GR_ERR_OFFSET_OUT_OF_RANGE);
    ASSERT_EQ(gr_plog_read(plog, 13, 1, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.first_offset, 12); /* the whole batch holding 13 */
    gr_plog_slice_release(sl.owner);
    int64_t off, ts;
    ASSERT_EQ(gr_plog_offset_for_timestamp(plog, 0, &off, &ts), 0);
    ASSERT_EQ(off, 13);
    gr_plog_close(plog);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_start_offset(plog), 13);
    gr_plog_abandon(plog); /* also after an unclean close */
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_start_offset(plog), 13);
    ASSERT_EQ(gr_plog_end_offset(plog), 24);
    ASSERT_EQ(gr_plog_delete_records(plog, 24, es, sizeof(es)), 0); /* up to the end */
    ASSERT_EQ(gr_plog_segment_count(plog), 1);
    ASSERT_EQ(gr_plog_read(plog, 24, 100, INT64_MAX, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.len, 0);
    ASSERT_EQ(tb_append1(plog, 1, 1, 10, 0), 24);
    gr_plog_close(plog);
    teardown();
}

static void test_timestamps(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 4000;
    cfg.index_interval_bytes = 300;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    int64_t off, ts;
    ASSERT_EQ(gr_plog_offset_for_timestamp(plog, 0, &off, &ts), GR_ERR__NOENT);
    ASSERT_EQ(gr_plog_max_timestamp(plog, &off, &ts), GR_ERR__NOENT);
    /* Batch i (2 records, offsets 2i, 2i+1) has timestamp 10*i, except a spike at i=57. */
    for (int i = 0; i < 100; i++) tb_append1(plog, 2, i == 57 ? 5000 : 10 * i, 90, 0);
    for (int round = 0; round < 2; round++) {
        ASSERT(gr_plog_segment_count(plog) > 3);
        ASSERT_EQ(gr_plog_offset_for_timestamp(plog, -5, &off, &ts), 0);
        ASSERT_EQ(off, 0);
        ASSERT_EQ(gr_plog_offset_for_timestamp(plog, 301, &off, &ts), 0);
        ASSERT_EQ(off, 62);
        ASSERT_EQ(ts, 310);
        ASSERT_EQ(gr_plog_offset_for_timestamp(plog, 700, &off, &ts), 0);
        ASSERT_EQ(off, 114); /* the spike at batch 57 */
        ASSERT_EQ(ts, 5000);
        ASSERT_EQ(gr_plog_offset_for_timestamp(plog, 5001, &off, &ts), GR_ERR__NOENT);
        ASSERT_EQ(gr_plog_max_timestamp(plog, &off, &ts), 0);
        ASSERT_EQ(off, 114);
        ASSERT_EQ(ts, 5000);
        gr_plog_close(plog);
        plog = tb_open(pdir, &cfg, 0);
    }
    gr_plog_close(plog);
    teardown();
}

/* A slice keeps its segment file readable after retention or topic deletion. */
static void test_slice_outlives_delete(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 1000;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 12; i++) tb_append1(plog, 2, 1, 139, 0);
    gr_plog_slice_t a, b;
    char es[256];
    ASSERT_EQ(gr_plog_read(plog, 0, 1 << 20, INT64_MAX, &a, es, sizeof(es)), 0);
    ASSERT_EQ(gr_plog_read(plog, 22, 1 << 20, INT64_MAX, &b, es, sizeof(es)), 0);
    ASSERT_EQ(gr_plog_delete_records(plog, 15, es, sizeof(es)), 0);
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_wbuf_put_ext(&wb, a.fd, a.pos, a.len, gr_plog_slice_release, a.owner);
    ASSERT_EQ(gr_plog_delete(plog, es, sizeof(es)), 0);
    ASSERT(access(pdir, F_OK) != 0);
    ASSERT_EQ(check_slice(&a), 5);
    ASSERT_EQ(check_slice(&b), 1);
    gr_plog_slice_release(b.owner);
    gr_wbuf_free(&wb); /* releases a */
    teardown();
}

static void test_flush_policy(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.flush_interval_messages = 10;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    int64_t now = gr_clock_mono_ms();
    ASSERT(!gr_plog_flush_due(plog, now));
    tb_append1(plog, 9, 1, 10, 0);
    ASSERT(!gr_plog_flush_due(plog, now));
    ASSERT_EQ(gr_plog_durable_offset(plog), 0);
    tb_append1(plog, 1, 1, 10, 0);
    ASSERT(gr_plog_flush_due(plog, now));
    gr_plog_flush_stats_t st;
    gr_plog_flush_stats(plog, &st);
    ASSERT_EQ(st.unflushed_messages, 10);
    ASSERT_EQ(st.unflushed_bytes, 142);
    int64_t durable;
    char es[256];
    ASSERT_EQ(gr_plog_fsync(plog, &durable, es, sizeof(es)), 0);
    ASSERT_EQ(durable, 10);
    gr_plog_flush_stats(plog, &st);
    ASSERT_EQ(st.unflushed_messages, 0);
    ASSERT_EQ(st.unflushed_bytes, 0);
    ASSERT(st.n_fsyncs >= 1);
    ASSERT(!gr_plog_flush_due(plog, now + 1000000));
    cfg.flush_interval_ms = 500;
    gr_plog_set_config(plog, &cfg);
    tb_append1(plog, 1, 1, 10, 0);
    ASSERT(!gr_plog_flush_due(plog, st.last_flush_mono_ms + 499));
    ASSERT(gr_plog_flush_due(plog, st.last_flush_mono_ms + 500));
    gr_plog_close(plog);
    teardown();
}

/* A write that fails half-way (file size limit: EFBIG, like ENOSPC) is rolled back. */
static void test_write_error(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 3; i++) tb_append1(plog, 1, 1, 100, 0);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 3 * 161 + 1000;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    uint8_t *big = malloc(5000);
    size_t len = tb_batch(big, 4, 1, 4000, 9);
    gr_plog_append_opts_t o = {.now_ms = 0};
    gr_plog_append_result_t res;
    char es[256] = "";
    ASSERT_EQ(gr_plog_append(plog, big, len, &o, &res, es, sizeof(es)), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(strstr(es, "File too large") != NULL);
    ASSERT_EQ(gr_plog_end_offset(plog), 3);
    char fn[600];
    snprintf(fn, sizeof(fn), "%s/%020d.log", pdir, 0);
    ASSERT_EQ(tb_file_size(fn), 3 * 161);
    tb_append1(plog, 1, 1, 100, 0); /* small appends still fit */
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    len = tb_batch(big, 4, 1, 4000, 9);
    ASSERT_EQ(gr_plog_append(plog, big, len, &o, &res, es, sizeof(es)), 0);
    ASSERT_EQ(res.base_offset, 4);
    free(big);
    gr_plog_abandon(plog);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 8);
    gr_plog_close(plog);
    teardown();
}

int main(void) {
    RUN_TEST(test_append_read);
    RUN_TEST(test_index_many);
    RUN_TEST(test_roll_size);
    RUN_TEST(test_roll_time);
    RUN_TEST(test_retention);
    RUN_TEST(test_delete_records);
    RUN_TEST(test_timestamps);
    RUN_TEST(test_slice_outlives_delete);
    RUN_TEST(test_flush_policy);
    RUN_TEST(test_write_error);
    return 0;
}
