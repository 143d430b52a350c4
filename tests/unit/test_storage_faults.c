/* Partition log under injected I/O failures: disk full (ENOSPC, short writes),
 * failed segment rolls, a failed truncation, write EIO, failed fsyncs and failed
 * checkpoint writes. Built with -Wl,--wrap for the system calls the storage
 * module makes (see CMakeLists.txt), so faults reach the real code paths without
 * any hook in the production build.
 *
 * What must hold (docs/storage.md, "Write and fsync failures"): a failed append
 * changes nothing visible (no bytes, no offsets) and, for a full disk, leaves the
 * log usable once space returns; a failed fsync takes the log offline and is
 * never followed by a false success; acknowledged data survives a reopen. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "storage/flusher.h"
#include "test_storage_util.h"

/* ---------------------------------------------------------------- fault injection */

static int64_t g_space = -1; /* bytes pwrite/write may still add (-1: unlimited) */
static int g_write_err;      /* pwrite fails with this errno */
static int g_trunc_err;      /* ftruncate fails with this errno */
static int g_sync_err;       /* fsync and fdatasync fail with this errno */
static int g_create_err;     /* open(O_CREAT) fails with this errno */

ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_ftruncate(int fd, off_t len);
int __real_fsync(int fd);
int __real_fdatasync(int fd);
int __real_open(const char *path, int flags, ...);

/* Take up to n bytes of the space budget; 0 with errno ENOSPC when none is left. */
static size_t take_space(size_t n) {
    if (g_space < 0) return n;
    if (g_space == 0) {
        errno = ENOSPC;
        return 0;
    }
    if ((int64_t)n > g_space) n = (size_t)g_space;
    g_space -= (int64_t)n;
    return n;
}

/* Only growing a file takes space; overwriting its existing bytes always fits. */
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off) {
    if (g_write_err) {
        errno = g_write_err;
        return -1;
    }
    struct stat st;
    if (g_space < 0 || fstat(fd, &st) < 0) return __real_pwrite(fd, buf, n, off);
    int64_t fits = (int64_t)st.st_size - (int64_t)off + g_space;
    if (fits <= 0) {
        errno = ENOSPC;
        return -1;
    }
    ssize_t w = __real_pwrite(fd, buf, (int64_t)n > fits ? (size_t)fits : n, off);
    if (w > 0 && (int64_t)off + w > (int64_t)st.st_size) g_space -= (int64_t)off + w - (int64_t)st.st_size;
    return w;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n) {
    if (fd <= 2) return __real_write(fd, buf, n); /* the log lines */
    size_t k = take_space(n);
    return k ? __real_write(fd, buf, k) : -1;
}

int __wrap_ftruncate(int fd, off_t len) {
    if (g_trunc_err) {
        errno = g_trunc_err;
        return -1;
    }
    return __real_ftruncate(fd, len);
}

int __wrap_fsync(int fd) {
    if (g_sync_err) {
        errno = g_sync_err;
        return -1;
    }
    return __real_fsync(fd);
}

int __wrap_fdatasync(int fd) {
    if (g_sync_err) {
        errno = g_sync_err;
        return -1;
    }
    return __real_fdatasync(fd);
}

int __wrap_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
        if (g_create_err) {
            errno = g_create_err;
            return -1;
        }
    }
    return __real_open(path, flags, mode);
}

static void faults_off(void) {
    g_space = -1;
    g_write_err = g_trunc_err = g_sync_err = g_create_err = 0;
}

/* ---------------------------------------------------------------- helpers */

#define PAYLOAD 1000

/* Append one batch of 2 records; returns the error (0 on success). */
static gr_err_t try_append(gr_plog_t *plog, unsigned seed) {
    uint8_t b[61 + PAYLOAD];
    size_t len = tb_batch(b, 2, 1000 + seed, PAYLOAD, seed);
    gr_plog_append_opts_t o = {.now_ms = 1000};
    gr_plog_append_result_t res;
    char es[512] = "";
    return gr_plog_append(plog, b, len, &o, &res, es, sizeof(es));
}

/* Every offset in [0, end) readable, batch by batch, with valid CRCs and the payload
 * of the seed it was written with (seed = base offset / 2 in these tests). */
static void check_log(gr_plog_t *plog, int64_t end) {
    ASSERT_EQ(gr_plog_end_offset(plog), end);
    int64_t off = gr_plog_start_offset(plog);
    while (off < end) {
        gr_wbuf_t wb;
        gr_wbuf_init(&wb);
        gr_plog_slice_t sl;
        char es[256];
        ASSERT_EQ(gr_plog_read_copy(plog, off, 1, end, &wb, &sl, es, sizeof(es)), GR_ERR_NONE);
        ASSERT_EQ(sl.first_offset, off);
        tb_check_batch(wb.mem, wb.len, off);
        uint8_t want[61 + PAYLOAD];
        tb_batch(want, 2, 1000 + off / 2, PAYLOAD, (unsigned)(off / 2));
        ASSERT_MEMEQ(wb.mem + 61, want + 61, PAYLOAD);
        gr_wbuf_free(&wb);
        off = sl.next_offset;
    }
}

static int count_files(const char *dir, const char *suffix) {
    DIR *d = opendir(dir);
    ASSERT(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name), s = strlen(suffix);
        if (l > s && !strcmp(de->d_name + l - s, suffix)) n++;
    }
    closedir(d);
    return n;
}

static int64_t log_file_size(const char *dir, int64_t base) {
    char fn[512];
    snprintf(fn, sizeof(fn), "%s/%020lld.log", dir, (long long)base);
    return tb_file_size(fn);
}

#define BATCH (61 + PAYLOAD)

/* ---------------------------------------------------------------- tests */

/* Disk full in the middle of a batch: the partial write is cut, no offset is used,
 * the log stays online and the next append (space back) continues without a gap. */
static void test_enospc_partial_write(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    for (unsigned i = 0; i < 5; i++) ASSERT_EQ(try_append(plog, i), GR_ERR_NONE);
    g_space = BATCH / 2; /* half a batch fits */
    ASSERT_EQ(try_append(plog, 5), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(!gr_plog_offline(plog));
    ASSERT_EQ(log_file_size(dir, 0), 5 * BATCH);                /* the half batch was truncated away */
    ASSERT_EQ(try_append(plog, 5), GR_ERR_KAFKA_STORAGE_ERROR); /* still full: nothing written */
    ASSERT_EQ(log_file_size(dir, 0), 5 * BATCH);
    check_log(plog, 10); /* reads work while the disk is full */
    faults_off();
    for (unsigned i = 5; i < 8; i++) ASSERT_EQ(try_append(plog, i), GR_ERR_NONE);
    check_log(plog, 16);
    ASSERT_EQ(gr_plog_fsync(plog, NULL, NULL, 0), GR_ERR_NONE);
    gr_plog_close(plog);
    plog = tb_open(dir, &cfg, 1000);
    check_log(plog, 16);
    gr_plog_close(plog);
    tb_rmrf(root);
}

/* A roll on a full disk: the new segment (file or the old segment's index files)
 * cannot be written. The roll is undone, the old segment stays active and usable. */
static void test_roll_fails(int create_err) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 4 * BATCH;
    cfg.index_interval_bytes = 1;
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    for (unsigned i = 0; i < 4; i++) ASSERT_EQ(try_append(plog, i), GR_ERR_NONE);
    ASSERT_EQ(gr_plog_segment_count(plog), 1);
    if (create_err)
        g_create_err = ENOSPC; /* the new .log cannot be created */
    else
        g_space = 0; /* it can, but the index files cannot be written */
    ASSERT_EQ(try_append(plog, 4), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(!gr_plog_offline(plog));
    ASSERT_EQ(gr_plog_segment_count(plog), 1);
    ASSERT_EQ(count_files(dir, ".log"), 1); /* the new segment file was removed */
    ASSERT_EQ(log_file_size(dir, 0), 4 * BATCH);
    check_log(plog, 8);
    faults_off();
    ASSERT_EQ(try_append(plog, 4), GR_ERR_NONE);
    ASSERT_EQ(gr_plog_segment_count(plog), 2);
    ASSERT_EQ(try_append(plog, 5), GR_ERR_NONE);
    check_log(plog, 12);
    gr_plog_close(plog);
    plog = tb_open(dir, &cfg, 1000);
    check_log(plog, 12);
    ASSERT_EQ(gr_plog_segment_count(plog), 2);
    gr_plog_close(plog);
    tb_rmrf(root);
}
static void test_roll_fails_index(void) { test_roll_fails(0); }
static void test_roll_fails_create(void) { test_roll_fails(ENOSPC); }

/* Two batches in one append, the first written whole, the second cut short, and
 * the truncation fails: the log goes offline, and after a crash the first batch
 * of the failed append must not be recovered (its header was zeroed). */
static void test_rollback_fails(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    for (unsigned i = 0; i < 3; i++) ASSERT_EQ(try_append(plog, i), GR_ERR_NONE);
    ASSERT_EQ(gr_plog_fsync(plog, NULL, NULL, 0), GR_ERR_NONE);
    uint8_t b[2 * BATCH];
    tb_batch(b, 2, 1003, PAYLOAD, 3);
    tb_batch(b + BATCH, 2, 1004, PAYLOAD, 4);
    g_space = BATCH + 100;
    g_trunc_err = EIO;
    gr_plog_append_opts_t o = {.now_ms = 1000};
    gr_plog_append_result_t res;
    ASSERT_EQ(gr_plog_append(plog, b, sizeof(b), &o, &res, NULL, 0), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(gr_plog_offline(plog));
    faults_off();
    ASSERT_EQ(try_append(plog, 3), GR_ERR_KAFKA_STORAGE_ERROR); /* refused: offline */
    ASSERT_EQ(gr_plog_end_offset(plog), 6);
    gr_plog_abandon(plog); /* as a crash would leave it */
    plog = tb_open(dir, &cfg, 1000);
    check_log(plog, 6);
    ASSERT_EQ(log_file_size(dir, 0), 3 * BATCH);
    ASSERT_EQ(try_append(plog, 3), GR_ERR_NONE);
    check_log(plog, 8);
    gr_plog_close(plog);
    tb_rmrf(root);
}

/* A write error other than a full disk (EIO): nothing appended, log offline. */
static void test_write_eio(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    ASSERT_EQ(try_append(plog, 0), GR_ERR_NONE);
    g_write_err = EIO;
    ASSERT_EQ(try_append(plog, 1), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(gr_plog_offline(plog));
    faults_off();
    ASSERT_EQ(try_append(plog, 1), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(log_file_size(dir, 0), BATCH);
    gr_plog_close(plog);
    tb_rmrf(root);
}

typedef struct done {
    int n;
    gr_err_t err[4];
} done_t;
static done_t g_done;
static void on_flushed(void *arg, gr_err_t err) { g_done.err[g_done.n++] = err; }
static void no_wake(void *ctx) {}

/* fsync fails: the log goes offline, a second fsync does not "succeed" over the
 * lost pages, appends are refused, waiters beyond the durable offset get the
 * error and waiters it covers succeed. After a restart the log recovers. */
static void test_fsync_fails(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    for (unsigned i = 0; i < 2; i++) ASSERT_EQ(try_append(plog, i), GR_ERR_NONE);
    ASSERT_EQ(gr_plog_fsync(plog, NULL, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_plog_durable_offset(plog), 4);
    ASSERT_EQ(try_append(plog, 2), GR_ERR_NONE);
    g_sync_err = EIO;
    char es[256] = "";
    ASSERT_EQ(gr_plog_fsync(plog, NULL, es, sizeof(es)), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(strstr(es, "Input/output error"));
    ASSERT(gr_plog_offline(plog));
    faults_off();
    ASSERT_EQ(gr_plog_fsync(plog, NULL, NULL, 0), GR_ERR_KAFKA_STORAGE_ERROR); /* no false success */
    ASSERT_EQ(gr_plog_durable_offset(plog), 4);
    ASSERT_EQ(try_append(plog, 3), GR_ERR_KAFKA_STORAGE_ERROR);
    gr_flusher_t *fl;
    ASSERT_EQ(gr_flusher_start(&fl, no_wake, NULL), GR_ERR_NONE);
    g_done.n = 0;
    gr_flusher_request(fl, plog, 4, on_flushed, NULL); /* already durable */
    gr_flusher_request(fl, plog, 6, on_flushed, NULL); /* lost with the failed fsync */
    gr_flusher_destroy(fl);
    ASSERT_EQ(g_done.n, 2);
    ASSERT_EQ(g_done.err[0], GR_ERR_NONE);
    ASSERT_EQ(g_done.err[1], GR_ERR_KAFKA_STORAGE_ERROR);
    gr_plog_close(plog); /* its fsync fails: no clean-shutdown marker */
    char ck[512], buf[256];
    snprintf(ck, sizeof(ck), "%s/recovery-point.checkpoint", dir);
    FILE *f = fopen(ck, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        ASSERT(strstr(buf, "clean 1") == NULL);
    }
    plog = tb_open(dir, &cfg, 1000); /* recovery CRC-checks the tail */
    ASSERT(!gr_plog_offline(plog));
    check_log(plog, 6);
    ASSERT_EQ(try_append(plog, 3), GR_ERR_NONE);
    gr_plog_close(plog);
    tb_rmrf(root);
}

/* Checkpoint and index writes on a full disk: DeleteRecords fails and changes
 * nothing; a clean close whose index writes fail leaves no partial index. */
static void test_checkpoint_and_index_full(void) {
    char root[256], dir[300];
    tb_tmpdir(root, sizeof(root), dir, sizeof(dir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.index_interval_bytes = 1;
    gr_plog_t *plog = tb_open(dir, &cfg, 1000);
    for (unsigned i = 0; i < 6; i++) ASSERT_EQ(try_append(plog, i), GR_ERR_NONE);
    g_space = 0;
    ASSERT_EQ(gr_plog_delete_records(plog, 4, NULL, 0), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(gr_plog_start_offset(plog), 0);
    ASSERT(!gr_plog_offline(plog));
    ASSERT_EQ(count_files(dir, ".tmp"), 0);
    g_space = 8 + 12; /* one index entry and one time entry: the rest fails */
    gr_plog_close(plog);
    ASSERT_EQ(count_files(dir, ".index"), 0);
    ASSERT_EQ(count_files(dir, ".timeindex"), 0);
    faults_off();
    plog = tb_open(dir, &cfg, 1000);
    check_log(plog, 12);
    ASSERT_EQ(gr_plog_delete_records(plog, 4, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_plog_start_offset(plog), 4);
    check_log(plog, 12);
    gr_plog_close(plog);
    tb_rmrf(root);
}

/* With an argument, run only the test of that name (to see each one fail or pass). */
#define RUN(fn)                                              \
    do {                                                     \
        if (argc < 2 || !strcmp(argv[1], #fn)) RUN_TEST(fn); \
    } while (0)

int main(int argc, char **argv) {
    RUN(test_enospc_partial_write);
    RUN(test_roll_fails_index);
    RUN(test_roll_fails_create);
    RUN(test_rollback_fails);
    RUN(test_write_eio);
    RUN(test_fsync_fails);
    RUN(test_checkpoint_and_index_full);
    fprintf(stderr, "all storage fault tests passed\n");
    return 0;
}
