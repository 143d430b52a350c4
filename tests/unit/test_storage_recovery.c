/* Partition log recovery: torn tails cut at every byte, CRC corruption, garbage
 * and missing index files, the clean-shutdown fast path, the recovery point. */
#include "test_storage_util.h"

#include <errno.h>

static char root[256], pdir[512];

static void setup(void) { tb_tmpdir(root, sizeof(root), pdir, sizeof(pdir)); }
static void teardown(void) { tb_rmrf(root); }

static void seg_file(char *fn, size_t n, int64_t base, const char *ext) {
    snprintf(fn, n, "%s/%020lld.%s", pdir, (long long)base, ext);
}

static void truncate_to(const char *fn, int64_t len) { ASSERT_EQ(truncate(fn, len), 0); }

static void flip_byte(const char *fn, int64_t pos) {
    int fd = open(fn, O_RDWR);
    ASSERT(fd >= 0);
    uint8_t b;
    ASSERT_EQ(pread(fd, &b, 1, pos), 1);
    b ^= 0x5a;
    ASSERT_EQ(pwrite(fd, &b, 1, pos), 1);
    close(fd);
}

static void write_garbage(const char *fn, size_t len) {
    int fd = open(fn, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT(fd >= 0);
    for (size_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)(i * 131 + 7);
        ASSERT_EQ(write(fd, &b, 1), 1);
    }
    close(fd);
}

/* Read everything from the start and check offsets are contiguous up to the end. */
static void check_readable(gr_plog_t *plog) {
    int64_t off = gr_plog_start_offset(plog);
    char es[256];
    while (off < gr_plog_end_offset(plog)) {
        gr_plog_slice_t sl;
        gr_wbuf_t wb;
        gr_wbuf_init(&wb);
        ASSERT_EQ(gr_plog_read_copy(plog, off, 1 << 20, INT64_MAX, &wb, &sl, es, sizeof(es)), 0);
        ASSERT(sl.len > 0);
        ASSERT(sl.first_offset <= off);
        for (size_t pos = 0; pos < wb.len;) {
            size_t blen = 12 + gr_be32(wb.mem + pos + 8);
            tb_check_batch(wb.mem + pos, blen, (int64_t)gr_be64(wb.mem + pos));
            pos += blen;
        }
        off = sl.next_offset;
        gr_wbuf_free(&wb);
    }
    ASSERT_EQ(off, gr_plog_end_offset(plog));
}

/* Three batches (offsets 0-2, 3-4, 5), cut at every length of the file. */
static void cut_every_byte(bool clean_close) {
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.index_interval_bytes = 64;
    const int64_t ends[] = {0, 3, 5, 6};
    const int64_t sizes[] = {0, 61 + 40, 61 + 40 + 61 + 25, 61 + 40 + 61 + 25 + 61 + 33};
    for (int64_t len = 0; len <= sizes[3]; len++) {
        setup();
        gr_plog_t *plog = tb_open(pdir, &cfg, 0);
        tb_append1(plog, 3, 10, 40, 0);
        tb_append1(plog, 2, 11, 25, 0);
        tb_append1(plog, 1, 12, 33, 0);
        if (clean_close)
            gr_plog_close(plog);
        else
            gr_plog_abandon(plog);
        char fn[600];
        seg_file(fn, sizeof(fn), 0, "log");
        truncate_to(fn, len);
        plog = tb_open(pdir, &cfg, 0);
        int whole = 0;
        while (whole < 3 && sizes[whole + 1] <= len) whole++;
        ASSERT_EQ(gr_plog_end_offset(plog), ends[whole]);
        ASSERT_EQ(tb_file_size(fn), sizes[whole]);
        check_readable(plog);
        ASSERT_EQ(tb_append1(plog, 2, 13, 50, 0), ends[whole]);
        check_readable(plog);
        gr_plog_close(plog);
        plog = tb_open(pdir, &cfg, 0);
        ASSERT_EQ(gr_plog_end_offset(plog), ends[whole] + 2);
        check_readable(plog);
        gr_plog_close(plog);
        teardown();
    }
}

static void test_cut_every_byte_unclean(void) { cut_every_byte(false); }
static void test_cut_every_byte_clean(void) { cut_every_byte(true); }

static void test_corrupt_crc(void) {
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    for (int victim = 0; victim < 4; victim++) {
        setup();
        gr_plog_t *plog = tb_open(pdir, &cfg, 0);
        for (int i = 0; i < 4; i++) tb_append1(plog, 2, 10 + i, 100, 0); /* 161 bytes each */
        gr_plog_abandon(plog);
        char fn[600];
        seg_file(fn, sizeof(fn), 0, "log");
        flip_byte(fn, victim * 161 + 61 + 50); /* a payload byte: only the CRC can tell */
        plog = tb_open(pdir, &cfg, 0);
        ASSERT_EQ(gr_plog_end_offset(plog), victim * 2);
        ASSERT_EQ(tb_file_size(fn), victim * 161);
        check_readable(plog);
        ASSERT_EQ(tb_append1(plog, 1, 1, 10, 0), victim * 2);
        gr_plog_close(plog);
        teardown();
    }
    /* Trailing zeros (a preallocated or half-extended file) are cut too. */
    setup();
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    tb_append1(plog, 2, 10, 100, 0);
    gr_plog_abandon(plog);
    char fn[600];
    seg_file(fn, sizeof(fn), 0, "log");
    truncate_to(fn, 161 + 4096);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 2);
    ASSERT_EQ(tb_file_size(fn), 161);
    gr_plog_close(plog);
    teardown();
}

/* Corruption in a middle segment removes the later segments. */
static void test_corrupt_middle_segment(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 161 * 4;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 12; i++) tb_append1(plog, 2, 10 + i, 100, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 3);
    gr_plog_abandon(plog); /* recovery point is 0: every segment is scanned */
    char fn[600];
    seg_file(fn, sizeof(fn), 8, "log");
    flip_byte(fn, 2 * 161 + 70);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 12);
    ASSERT_EQ(gr_plog_segment_count(plog), 2);
    seg_file(fn, sizeof(fn), 16, "log");
    ASSERT(access(fn, F_OK) != 0);
    check_readable(plog);
    ASSERT_EQ(tb_append1(plog, 1, 1, 10, 0), 12);
    gr_plog_close(plog);
    teardown();
}

static void check_lookups(gr_plog_t *plog, int n_batches) {
    char es[256];
    for (int64_t off = 0; off < n_batches * 3; off++) {
        gr_plog_slice_t sl;
        ASSERT_EQ(gr_plog_read(plog, off, 1, INT64_MAX, &sl, es, sizeof(es)), 0);
        ASSERT_EQ(sl.first_offset, off - off % 3);
        ASSERT_EQ(sl.n_batches, 1);
        gr_plog_slice_release(sl.owner);
        int64_t o, ts;
        ASSERT_EQ(gr_plog_offset_for_timestamp(plog, 1000 + off / 3, &o, &ts), 0);
        ASSERT_EQ(o, off - off % 3);
    }
}

static void test_index_rebuild(void) {
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 20000;
    cfg.index_interval_bytes = 500;
    enum { N = 600 };
    for (int mode = 0; mode < 4; mode++) {
        setup();
        gr_plog_t *plog = tb_open(pdir, &cfg, 0);
        for (int i = 0; i < N; i++) tb_append1(plog, 3, 1000 + i, 40 + (size_t)(i % 7) * 20, 0);
        size_t nseg = gr_plog_segment_count(plog);
        ASSERT(nseg >= 4);
        gr_plog_close(plog);
        char fn[600];
        /* Segment bases are multiples of 3 (3 records per batch): find them by name. */
        for (int64_t b = 0; b < N * 3; b += 3) {
            seg_file(fn, sizeof(fn), b, "log");
            if (access(fn, F_OK) != 0) continue;
            seg_file(fn, sizeof(fn), b, mode & 1 ? "timeindex" : "index");
            if (mode < 2)
                ASSERT_EQ(unlink(fn), 0);
            else
                write_garbage(fn, mode == 2 ? 800 : 13);
        }
        plog = tb_open(pdir, &cfg, 0);
        ASSERT_EQ(gr_plog_end_offset(plog), N * 3);
        ASSERT_EQ(gr_plog_segment_count(plog), nseg);
        check_lookups(plog, N);
        gr_plog_close(plog);
        plog = tb_open(pdir, &cfg, 0); /* the rebuilt files were written back */
        check_lookups(plog, N);
        gr_plog_close(plog);
        teardown();
    }
}

/* A clean open trusts the data (no CRC scan); without the marker it is scanned. */
static void test_clean_open_skips_scan(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.index_interval_bytes = 400;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 10; i++) tb_append1(plog, 2, 10 + i, 100, 0);
    gr_plog_close(plog);
    char fn[600];
    seg_file(fn, sizeof(fn), 0, "log");
    flip_byte(fn, 161 + 80); /* payload of batch 1, before the last index entry */
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 20);
    gr_plog_close(plog);
    snprintf(fn, sizeof(fn), "%s/recovery-point.checkpoint", pdir);
    ASSERT_EQ(unlink(fn), 0);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 2);
    gr_plog_close(plog);
    teardown();
}

/* Segments wholly below the recovery point are not scanned; the rest are. */
static void test_recovery_point(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 161 * 4;
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 8; i++) tb_append1(plog, 2, 10 + i, 100, 0);
    int64_t durable;
    char es[256];
    ASSERT_EQ(gr_plog_fsync(plog, &durable, es, sizeof(es)), 0); /* checkpoint interval 0: rp = 16 */
    ASSERT_EQ(durable, 16);
    for (int i = 0; i < 6; i++) tb_append1(plog, 2, 20 + i, 100, 0);
    ASSERT_EQ(gr_plog_segment_count(plog), 4);
    gr_plog_abandon(plog);
    char fn[600];
    seg_file(fn, sizeof(fn), 0, "log");
    flip_byte(fn, 100); /* below the recovery point: not scanned, not truncated */
    seg_file(fn, sizeof(fn), 24, "log");
    truncate_to(fn, 161 + 100); /* torn tail above it */
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 26);
    ASSERT_EQ(gr_plog_durable_offset(plog), 16); /* recovered data is synced by the next fsync pass */
    ASSERT_EQ(gr_plog_fsync(plog, &durable, es, sizeof(es)), 0);
    ASSERT_EQ(durable, 26);
    ASSERT_EQ(gr_plog_segment_count(plog), 4);
    seg_file(fn, sizeof(fn), 0, "log");
    ASSERT_EQ(tb_file_size(fn), 161 * 4);
    gr_plog_close(plog);
    teardown();
}

/* A log start offset past the data that survived: the log restarts empty there. */
static void test_start_past_end(void) {
    setup();
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(pdir, &cfg, 0);
    for (int i = 0; i < 4; i++) tb_append1(plog, 2, 10 + i, 100, 0);
    char es[256];
    ASSERT_EQ(gr_plog_delete_records(plog, 7, es, sizeof(es)), 0);
    gr_plog_abandon(plog);
    char fn[600];
    seg_file(fn, sizeof(fn), 0, "log");
    truncate_to(fn, 161 * 2);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_start_offset(plog), 7);
    ASSERT_EQ(gr_plog_end_offset(plog), 7);
    ASSERT_EQ(tb_append1(plog, 1, 1, 10, 0), 7);
    gr_plog_close(plog);
    plog = tb_open(pdir, &cfg, 0);
    ASSERT_EQ(gr_plog_end_offset(plog), 8);
    check_readable(plog);
    gr_plog_close(plog);
    teardown();
}

int main(void) {
    RUN_TEST(test_cut_every_byte_unclean);
    RUN_TEST(test_cut_every_byte_clean);
    RUN_TEST(test_corrupt_crc);
    RUN_TEST(test_corrupt_middle_segment);
    RUN_TEST(test_index_rebuild);
    RUN_TEST(test_clean_open_skips_scan);
    RUN_TEST(test_recovery_point);
    RUN_TEST(test_start_past_end);
    return 0;
}
