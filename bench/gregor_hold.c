/* gregor_hold: share consumers that hold every record W ms before accepting it, to measure
 * a share group at its Little's-law ceiling (bench/littles_law.sh), with libgregor's public
 * API only, against any broker (gregord, Apache Kafka, a cluster).
 *
 *   gregor_hold BOOTSTRAP TOPIC GROUP HOLD_MS [options] [-C name=value]...
 *     --consumers K   share consumers in GROUP, one thread each (default 8);
 *     --warmup S      seconds after the first record before the window opens (default 5);
 *     --measure S     length of the measurement window, s (default 15); 0: no window, run
 *                     until --records or --idle-exit;
 *     --records N     stop once N records were accepted (default: no limit);
 *     --idle-exit S   stop S seconds after the last record (default 5), or 60 s after the
 *                     start without any record.
 *   Each consumer (explicit acknowledgement) polls, holds the whole batch it got for HOLD_MS
 *   (all its records together, so a consumer processes up to max.poll.records records
 *   concurrently), ACCEPTs every record and polls again: the next ShareFetch carries the
 *   acknowledgements. -C sets consumer properties (max.poll.records, share.acquire.mode...).
 *   The group must read from the earliest offset (share.auto.offset.reset=earliest, set by the
 *   caller). The window starts --warmup s after the first record, so a group's join time
 *   (seconds on Apache Kafka) is not in it.
 *   Prints one JSON line: accepted records/s in the window (rate), records accepted in it,
 *   the mean and peak number of records held by all consumers together (sampled every 2 ms:
 *   L, the client's view of the in-flight records), the mean hold per record (poll return to
 *   acknowledgement), L / rate (the W implied by Little's law), the batches received in the
 *   window, their mean size and the mean gap of a consumer between acknowledging a batch and
 *   receiving its next records (time it held nothing), totals over the whole run
 *   (received, accepted, redelivered = delivery count above 1, empty polls), and the
 *   process's CPU-seconds. Exit 0 unless a consumer failed (or --records was not reached).
 */
#include <gregor/gregor.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_conf.h"

#define MAX_CONSUMERS 256

static struct {
    const char *bootstrap, *topic, *group;
    int64_t hold_ns;
    int consumers;
    double warmup, measure, idle_exit;
    long records;
    char **cx;
    int ncx;
    atomic_bool stop;
    atomic_llong first_ns, last_ns; /* first / latest record received, 0 before */
    atomic_long received, accepted, redelivered, empty_polls, held;
    atomic_llong win_open_ns, win_close_ns; /* the window; 0 while not open / not closed */
    atomic_llong win_hold_ns;               /* Σ per record of its hold, for records accepted in the window */
    atomic_long win_accepted;
    atomic_long win_batches; /* non-empty polls in the window */
    atomic_llong win_gap_ns; /* Σ per such poll: acknowledgement -> its next records */
    int64_t start_ns;
} G;

typedef struct consumer_arg {
    long errors;
    char err[256];
} consumer_arg_t;

static bool in_window(int64_t t) {
    int64_t open = atomic_load(&G.win_open_ns), close = atomic_load(&G.win_close_ns);
    return open && t >= open && (!close || t < close);
}

/* Accept every record of batch b (n records, received at t_got), counting the window's share. */
static void accept_batch(gr_share_consumer_t *c, gr_share_batch_t *b, size_t n, int64_t t_got) {
    for (size_t i = 0; i < n; i++) gr_share_consumer_acknowledge(c, gr_share_batch_record(b, i), GR_ACK_ACCEPT);
    int64_t t = now_ns();
    atomic_fetch_sub(&G.held, (long)n);
    atomic_fetch_add(&G.accepted, (long)n);
    if (in_window(t)) {
        atomic_fetch_add(&G.win_accepted, (long)n);
        atomic_fetch_add(&G.win_hold_ns, (long long)n * (t - t_got));
    }
}

static void *consumer_main(void *p) {
    consumer_arg_t *a = p;
    const char *fixed[] = {"bootstrap.servers",          G.bootstrap, "group.id", G.group,
                           "share.acknowledgement.mode", "explicit",  NULL};
    gr_conf_t *conf = bench_conf_from(GR_CONF_CONSUMER, fixed, G.cx, G.ncx);
    gr_share_consumer_t *c = NULL;
    if (!conf || gr_share_consumer_new(conf, &c, a->err, sizeof(a->err))) {
        gr_conf_destroy(conf);
        a->errors++;
        return NULL;
    }
    gr_conf_destroy(conf);
    gr_share_consumer_subscribe(c, &G.topic, 1);
    int64_t acked_at = 0; /* when this consumer last acknowledged a batch (0: never) */
    while (!atomic_load(&G.stop)) {
        gr_share_batch_t *b;
        gr_err_t err = gr_share_consumer_poll(c, 100, &b); /* sends the previous batch's ACCEPTs */
        int64_t t = now_ns();
        if (err) {
            if (a->errors++ == 0) snprintf(a->err, sizeof(a->err), "poll: %s", gr_share_consumer_last_error(c));
            continue;
        }
        size_t n = gr_share_batch_count(b);
        if (n == 0) {
            atomic_fetch_add(&G.empty_polls, 1);
            continue;
        }
        atomic_fetch_add(&G.held, (long)n);
        atomic_fetch_add(&G.received, (long)n);
        if (acked_at && in_window(t)) {
            atomic_fetch_add(&G.win_batches, 1);
            atomic_fetch_add(&G.win_gap_ns, (long long)(t - acked_at));
        }
        long long zero = 0;
        atomic_compare_exchange_strong(&G.first_ns, &zero, t);
        atomic_store(&G.last_ns, t);
        for (size_t i = 0; i < n; i++)
            if (gr_share_record_delivery_count(gr_share_batch_record(b, i)) > 1) atomic_fetch_add(&G.redelivered, 1);
        sleep_until(t + G.hold_ns); /* the whole batch is processed together for W */
        accept_batch(c, b, n, t);
        acked_at = now_ns();
    }
    if (gr_share_consumer_commit_sync(c, 5000, NULL) && a->errors++ == 0)
        snprintf(a->err, sizeof(a->err), "commit: %s", gr_share_consumer_last_error(c));
    gr_share_consumer_close(c, 5000);
    gr_share_consumer_destroy(c);
    return NULL;
}

static int parse_args(int argc, char **argv) {
    if (argc < 5) return -1;
    G.bootstrap = argv[1], G.topic = argv[2], G.group = argv[3];
    G.hold_ns = (int64_t)(atof(argv[4]) * 1e6);
    G.consumers = 8, G.warmup = 5, G.measure = 15, G.idle_exit = 5;
    G.cx = calloc((size_t)argc, sizeof(char *));
    for (int i = 5; i < argc; i++) {
        const char *o = argv[i];
        if (i + 1 >= argc) return -1;
        const char *v = argv[++i];
        if (!strcmp(o, "--consumers"))
            G.consumers = atoi(v);
        else if (!strcmp(o, "--warmup"))
            G.warmup = atof(v);
        else if (!strcmp(o, "--measure"))
            G.measure = atof(v);
        else if (!strcmp(o, "--records"))
            G.records = atol(v);
        else if (!strcmp(o, "--idle-exit"))
            G.idle_exit = atof(v);
        else if (!strcmp(o, "-C"))
            G.cx[G.ncx++] = argv[i];
        else
            return -1;
    }
    if (G.hold_ns < 0 || G.consumers < 1 || G.consumers > MAX_CONSUMERS || G.warmup < 0 || G.measure < 0) return -1;
    return G.measure > 0 || G.records > 0 ? 0 : -1;
}

/* The main thread: opens and closes the window, samples L every 2 ms while it is open, and
 * decides when to stop. Returns the mean of the samples; *peak gets the largest. */
static double watch(long *peak, long *samples) {
    int64_t t0 = G.start_ns, step = 2000000;
    double sum = 0;
    for (;; sleep_until(now_ns() + step)) {
        int64_t t = now_ns(), first = atomic_load(&G.first_ns), last = atomic_load(&G.last_ns);
        if (G.records > 0 && atomic_load(&G.accepted) >= G.records) break;
        if (!first && t - t0 > 60 * 1000000000LL) break;
        if (first && t - last > (int64_t)(G.idle_exit * 1e9) + G.hold_ns) break;
        if (!first || G.measure <= 0) continue;
        int64_t open = first + (int64_t)(G.warmup * 1e9), close = open + (int64_t)(G.measure * 1e9);
        if (t < open) continue;
        if (t >= close) break;
        long long zero = 0;
        atomic_compare_exchange_strong(&G.win_open_ns, &zero, t);
        long h = atomic_load(&G.held);
        sum += (double)h, ++*samples;
        if (h > *peak) *peak = h;
    }
    if (atomic_load(&G.win_open_ns)) atomic_store(&G.win_close_ns, now_ns());
    return *samples ? sum / (double)*samples : 0;
}

int main(int argc, char **argv) {
    if (parse_args(argc, argv)) {
        fprintf(stderr,
                "usage: %s BOOTSTRAP TOPIC GROUP HOLD_MS [--consumers K] [--warmup S] [--measure S] "
                "[--records N] [--idle-exit S] [-C consumer.prop=v]...\n"
                "(--measure 0 needs --records)\n",
                argv[0]);
        return 2;
    }
    G.start_ns = now_ns();
    pthread_t th[MAX_CONSUMERS];
    static consumer_arg_t args[MAX_CONSUMERS];
    for (int i = 0; i < G.consumers; i++) pthread_create(&th[i], NULL, consumer_main, &args[i]);
    long peak = 0, samples = 0;
    double l_mean = watch(&peak, &samples);
    atomic_store(&G.stop, true);
    long errors = 0;
    for (int i = 0; i < G.consumers; i++) {
        pthread_join(th[i], NULL);
        if (args[i].errors) fprintf(stderr, "consumer %d: %ld errors, first: %s\n", i, args[i].errors, args[i].err);
        errors += args[i].errors;
    }
    int64_t open = atomic_load(&G.win_open_ns), close = atomic_load(&G.win_close_ns);
    double secs = open && close > open ? (double)(close - open) / 1e9 : 0;
    long win = atomic_load(&G.win_accepted);
    double rate = secs > 0 ? (double)win / secs : 0;
    double hold_ms = win ? (double)atomic_load(&G.win_hold_ns) / (double)win / 1e6 : 0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    long accepted = atomic_load(&G.accepted), nb = atomic_load(&G.win_batches);
    printf("{\"tool\":\"gregor_hold\",\"hold_ms\":%.1f,\"consumers\":%d,\"window_s\":%.3f,\"window_accepted\":%ld,"
           "\"rate\":%.1f,\"in_flight_mean\":%.1f,\"in_flight_peak\":%ld,\"samples\":%ld,\"hold_mean_ms\":%.2f,"
           "\"little_w_ms\":%.2f,\"batches\":%ld,\"batch_mean\":%.1f,\"gap_mean_ms\":%.2f,\"received\":%ld,"
           "\"accepted\":%ld,\"redelivered\":%ld,\"empty_polls\":%ld,"
           "\"first_record_s\":%.3f,\"consumer_errors\":%ld,\"cpu_s\":%.2f}\n",
           (double)G.hold_ns / 1e6, G.consumers, secs, win, rate, l_mean, peak, samples, hold_ms,
           rate > 0 ? l_mean / rate * 1e3 : 0.0, nb, nb ? (double)win / (double)nb : 0.0,
           nb ? (double)atomic_load(&G.win_gap_ns) / (double)nb / 1e6 : 0.0, (long)atomic_load(&G.received), accepted,
           (long)atomic_load(&G.redelivered), (long)atomic_load(&G.empty_polls),
           atomic_load(&G.first_ns) ? (double)(atomic_load(&G.first_ns) - G.start_ns) / 1e9 : -1.0, errors, cpu);
    free(G.cx);
    if (errors) return 1;
    return G.records > 0 && accepted < G.records ? 1 : 0;
}
