/* Share-state store: write throughput (durable, group commit) and recovery time.
 *
 * 1,000 share-partitions receive 10^6 state updates (default snapshot interval
 * 500) shaped like real acknowledgements: each write ACCEPTs a range, RELEASEs a
 * couple of records and moves the SPSO forward behind them. Then the store is
 * reopened twice, after a clean close and after a simulated kill -9 (the log is
 * abandoned without fsync or checkpoints, so the log engine rescans it), and the
 * recovery time, records replayed and store size are printed.
 *
 *   bench_state_recovery [n_partitions] [n_updates] [dir] [compact_min_mib]
 *
 * compact_min_mib (default: the store's 4 MiB) sets the compaction slack; a huge
 * value shows Kafka's behaviour (pruning by snapshot-every-500 alone).
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "share/state_store.h"

static int efd;
static int64_t compact_min_bytes = -1;

static void wake(void *ctx) {
    (void)ctx;
    uint64_t one = 1;
    if (write(efd, &one, sizeof(one)) < 0) abort();
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void on_durable(void *arg, gr_err_t err) {
    if (err) abort();
    (*(uint64_t *)arg)++;
}

static void wait_done(gr_flusher_t *fl, const uint64_t *done, uint64_t want) {
    while (*done < want) {
        struct pollfd p = {.fd = efd, .events = POLLIN};
        if (poll(&p, 1, 10000) > 0) {
            uint64_t v;
            if (read(efd, &v, sizeof(v)) < 0) abort();
        }
        gr_flusher_run_completions(fl);
    }
}

static gr_sstore_t *open_store(const char *dir, gr_flusher_t *fl, double *ms) {
    gr_sstore_options_t o;
    gr_sstore_options_default(&o);
    o.flusher = fl;
    if (compact_min_bytes >= 0) o.compact_min_bytes = compact_min_bytes;
    gr_sstore_t *ss;
    char es[256];
    double t0 = now_ms();
    if (gr_sstore_open(dir, &o, &ss, es, sizeof(es))) {
        fprintf(stderr, "open: %s\n", es);
        exit(1);
    }
    if (ms) *ms = now_ms() - t0;
    return ss;
}

static void one_update(gr_sstore_t *ss, int sp, int64_t *cursor, gr_sstore_cb *cb, void *arg) {
    gr_uuid_t tid = {{0}};
    tid.b[0] = (uint8_t)(sp % 10);
    char group[16];
    snprintf(group, sizeof(group), "group-%d", sp / 100);
    gr_sstore_key_t k = gr_sstore_key(group, tid, sp % 10 + (sp / 10) % 10 * 10);
    int64_t off = cursor[sp];
    gr_sstore_batch_t b[2] = {
        {.first_offset = off, .last_offset = off + 7, .state = GR_SSTORE_ACKNOWLEDGED, .count = 1},
        {.first_offset = off + 8, .last_offset = off + 9, .state = GR_SSTORE_AVAILABLE, .count = 2},
    };
    gr_sstore_update_t up = {.state_epoch = 1,
                             .leader_epoch = 0,
                             .start_offset = off > 30 ? off - 30 : 0,
                             .delivery_complete_count = 24,
                             .batches = b,
                             .n_batches = 2};
    if (gr_sstore_write(ss, &k, &up, cb, arg)) abort();
    cursor[sp] = off + 10;
}

static void report(const char *what, gr_sstore_t *ss, double ms) {
    gr_sstore_stats_t st;
    gr_sstore_stats(ss, &st);
    printf("%-28s %8.1f ms  keys %zu  replayed %" PRIu64 " records  log %.2f MiB in %zu segments"
           "  (offsets %" PRId64 "-%" PRId64 ", live snapshots %.1f KiB)\n",
           what, ms, st.n_keys, st.n_replayed, st.log_bytes / 1048576.0, st.n_segments, st.log_start_offset,
           st.log_end_offset, st.live_bytes / 1024.0);
}

int main(int argc, char **argv) {
    int n_sp = argc > 1 ? atoi(argv[1]) : 1000;
    long n_up = argc > 2 ? atol(argv[2]) : 1000000;
    if (argc > 4) compact_min_bytes = atoll(argv[4]) << 20;
    char dir[256];
    snprintf(dir, sizeof(dir), "%s/%s", argc > 3 ? argv[3] : "/tmp", "bench_sstore-" GR_SSTORE_DIR_NAME);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0) return 1;
    gr_log_set_level(GR_LOG_WARN);
    efd = eventfd(0, EFD_CLOEXEC);
    gr_flusher_t *fl;
    if (gr_flusher_start(&fl, wake, NULL)) return 1;
    gr_sstore_t *ss = open_store(dir, fl, NULL);
    int64_t *cursor = calloc((size_t)n_sp, sizeof(int64_t));
    uint64_t done = 0;
    srand(1);
    double t0 = now_ms();
    for (long i = 0; i < n_up; i++) {
        one_update(ss, rand() % n_sp, cursor, on_durable, &done);
        if (i % 256 == 255) gr_flusher_run_completions(fl);
    }
    wait_done(fl, &done, (uint64_t)n_up);
    double wms = now_ms() - t0;
    uint64_t nreq, nfs;
    gr_flusher_stats(fl, &nreq, &nfs);
    gr_sstore_stats_t st;
    gr_sstore_stats(ss, &st);
    printf("wrote %ld durable updates on %d share-partitions in %.0f ms (%.0f writes/s, %" PRIu64
           " fsync passes, %" PRIu64 " snapshots, %" PRIu64 " updates, %" PRIu64 " compactions)\n",
           n_up, n_sp, wms, n_up / (wms / 1e3), nfs, st.n_snapshots, st.n_updates, st.n_compactions);
    gr_flusher_destroy(fl);
    gr_sstore_close(ss);
    double ms;
    ss = open_store(dir, NULL, &ms);
    report("reopen after clean close:", ss, ms);
    /* Simulate kill -9: a few more updates, then abandon (no fsync, no checkpoint). */
    for (int i = 0; i < 1000; i++) one_update(ss, i % n_sp, cursor, NULL, NULL);
    gr_sstore_abandon(ss);
    ss = open_store(dir, NULL, &ms);
    report("recovery after kill -9:", ss, ms);
    gr_sstore_close(ss);
    free(cursor);
    if (system(cmd) != 0) return 1;
    return 0;
}
