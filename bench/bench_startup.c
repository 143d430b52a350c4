/* Start-up cost of partition logs: create N logs with some data, close them
 * cleanly, and time opening them all; then the same after an unclean close
 * (recovery of the active segments), and with no recovery checkpoint at all
 * (every segment scanned and CRC-checked).
 *
 * usage: bench_startup [n_partitions=1000] [batches_per_partition=50] [dir]
 * The page cache is warm (same process wrote the files): this measures our
 * work and syscalls, not the disk. */
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/crc32c.h"
#include "storage/plog.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static size_t make_batch(uint8_t *p, int n_records, int64_t ts, size_t payload) {
    size_t total = 61 + payload;
    memset(p, 0, total);
    gr_put_be32(p + 8, (uint32_t)(total - 12));
    gr_put_be32(p + 12, (uint32_t)-1);
    p[16] = 2;
    gr_put_be32(p + 23, (uint32_t)(n_records - 1));
    gr_put_be64(p + 27, (uint64_t)ts);
    gr_put_be64(p + 35, (uint64_t)ts);
    gr_put_be64(p + 43, (uint64_t)-1);
    gr_put_be16(p + 51, (uint16_t)-1);
    gr_put_be32(p + 53, (uint32_t)-1);
    gr_put_be32(p + 57, (uint32_t)n_records);
    for (size_t i = 0; i < payload; i++) p[61 + i] = (uint8_t)(i * 13);
    gr_put_be32(p + 17, gr_crc32c(0, p + 21, total - 21));
    return total;
}

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void die(const char *what, const char *es) {
    fprintf(stderr, "bench_startup: %s: %s\n", what, es);
    exit(1);
}

static void append_one(gr_plog_t *plog, uint8_t *buf, int64_t ts) {
    char es[256];
    size_t len = make_batch(buf, 10, ts, 1000);
    gr_plog_append_opts_t o = {.now_ms = ts};
    gr_plog_append_result_t res;
    if (gr_plog_append(plog, buf, len, &o, &res, es, sizeof(es))) die("append", es);
}

static double open_all(gr_plog_t **logs, int n, const char *root, const gr_plog_config_t *cfg) {
    char es[256], dir[512];
    double t0 = now_ms();
    for (int i = 0; i < n; i++) {
        snprintf(dir, sizeof(dir), "%s/topic-%d", root, i);
        if (gr_plog_open(dir, cfg, 0, &logs[i], es, sizeof(es))) die("open", es);
    }
    return now_ms() - t0;
}

static double close_all(gr_plog_t **logs, int n, int clean) {
    double t0 = now_ms();
    for (int i = 0; i < n; i++) {
        if (clean)
            gr_plog_close(logs[i]);
        else
            gr_plog_abandon(logs[i]);
    }
    return now_ms() - t0;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int batches = argc > 2 ? atoi(argv[2]) : 50;
    char root[256];
    snprintf(root, sizeof(root), "%s", argc > 3 ? argv[3] : "/tmp/gr_bench_startup_XXXXXX");
    if (argc <= 3 && !mkdtemp(root)) die("mkdtemp", root);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl); /* one fd per segment stays open */
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    gr_plog_config_t cfg;
    gr_plog_config_default(&cfg);
    cfg.segment_bytes = 32 * 1024;
    cfg.retention_ms = -1;
    gr_plog_t **logs = calloc((size_t)n, sizeof(*logs));
    uint8_t *buf = malloc(2048);
    double t_create = open_all(logs, n, root, &cfg);
    double t0 = now_ms();
    for (int i = 0; i < n; i++)
        for (int b = 0; b < batches; b++) append_one(logs[i], buf, 1700000000000 + b);
    double t_fill = now_ms() - t0;
    double t_close = close_all(logs, n, 1);
    printf("partitions=%d batches/partition=%d (1061 B, 10 records each), segment.bytes=%lld, segments/partition=%d\n",
           n, batches, (long long)cfg.segment_bytes,
           (int)((batches * 1061 + cfg.segment_bytes - 1) / cfg.segment_bytes));
    printf("create (empty logs)           %9.1f ms\n", t_create);
    printf("append                        %9.1f ms\n", t_fill);
    printf("clean close (fsync, indexes)  %9.1f ms\n", t_close);

    double t_clean = open_all(logs, n, root, &cfg);
    printf("OPEN after clean shutdown     %9.1f ms  (%.1f us/partition)\n", t_clean, t_clean * 1e3 / n);
    int64_t want = (int64_t)batches * 10;
    for (int i = 0; i < n; i++)
        if (gr_plog_end_offset(logs[i]) != want) die("check", "wrong end offset after clean open");
    for (int i = 0; i < n; i++) append_one(logs[i], buf, 1800000000000);
    close_all(logs, n, 0); /* crash: no fsync, no shutdown marker */

    double t_unclean = open_all(logs, n, root, &cfg);
    printf("OPEN after unclean shutdown   %9.1f ms  (%.1f us/partition; active segments CRC-scanned)\n", t_unclean,
           t_unclean * 1e3 / n);
    for (int i = 0; i < n; i++)
        if (gr_plog_end_offset(logs[i]) != want + 10) die("check", "wrong end offset after unclean open");
    close_all(logs, n, 0);
    char fn[600];
    for (int i = 0; i < n; i++) {
        snprintf(fn, sizeof(fn), "%s/topic-%d/recovery-point.checkpoint", root, i);
        unlink(fn);
    }
    double t_full = open_all(logs, n, root, &cfg);
    printf("OPEN with no recovery point   %9.1f ms  (%.1f us/partition; every segment CRC-scanned)\n", t_full,
           t_full * 1e3 / n);
    close_all(logs, n, 1);
    free(buf);
    free(logs);
    if (argc <= 3) nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
