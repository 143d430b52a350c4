/* gregor_latency: end-to-end latency of a share group, measured with libgregor's public
 * API only, against any broker (gregord, Apache Kafka, a cluster): bench/latency.sh.
 *
 *   gregor_latency BOOTSTRAP TOPIC GROUP RATE SECONDS [options] [-X name=value]...
 *     Runs the schedule for --warmup (default 5) + SECONDS seconds; SECONDS are measured.
 *     One producer thread sends RATE records/s of --size bytes (default 1024) to TOPIC on a
 *     fixed schedule (open loop: record i is due at start + i/RATE; if the producer falls
 *     behind it sends at once, and latency still counts from the due time, so a stall
 *     shows up instead of being hidden: coordinated omission). --consumers C (default 4)
 *     share consumers in GROUP, one thread each, acknowledge every record explicitly
 *     (ACCEPT) and commit each batch with commit_sync.
 *     Latency of a record = the moment its consumer got it from poll - its due time
 *     (CLOCK_MONOTONIC of this one process). Acknowledgement latency = the time one
 *     commit_sync takes (one per non-empty batch). Records due in the first --warmup
 *     seconds (default 5) are delivered but not counted.
 *     RATE 0: closed loop, as fast as the producer goes (acks as -X sets them): the
 *     broker's own maximum for this workload; latency then is not meaningful.
 *     The producer gets acks=all unless -X acks=... is given; -X applies to the producer,
 *     -C name=value to the consumers. The group must read from the earliest offset
 *     (share.auto.offset.reset=earliest, set by the caller) or the consumers must be in
 *     the group before the first record: they join first, then the producer starts
 *     after --join-wait seconds (default 5).
 *   Records carry a run id: those of other runs in the topic are counted as "foreign" only.
 *   Prints one JSON line: rate, seconds, sent, received (distinct), duplicates, the
 *   percentiles p50/p99/p999/max of latency and of acknowledgement latency in µs,
 *   achieved_rate, and the process's CPU-seconds and peak RSS. Exit 0 only if every
 *   record sent was received (within --drain seconds, default 20, after the last send).
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
#include <unistd.h>

#include "bench_clock.h"
#include "bench_conf.h"

#define MAX_CONSUMERS 64
#define HDR           24 /* value prefix: uint64 run id, uint64 sequence, int64 due time (ns, monotonic) */

/* A growable array of samples (µs). */
typedef struct samples {
    int64_t *v;
    size_t n, cap;
} samples_t;

static void add_sample(samples_t *s, int64_t us) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 65536;
        s->v = realloc(s->v, s->cap * sizeof(int64_t));
        if (!s->v) abort();
    }
    s->v[s->n++] = us;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Shared state. */
static struct {
    const char *bootstrap, *topic, *group;
    double rate, seconds, warmup, join_wait, drain;
    size_t size;
    int consumers;
    char **px, **cx; /* -X / -C name=value */
    int npx, ncx;
    int64_t t0;            /* start of the schedule */
    atomic_long sent;      /* records delivered to the broker (delivery report without error) */
    atomic_long send_fail; /* failed delivery reports */
    atomic_bool producing_done;
    atomic_long received, dups;
    atomic_uchar *seen; /* per sequence number: received once */
    long max_seq;
    atomic_bool stop;
    uint64_t run_id; /* records of other runs in the topic are not counted */
    atomic_long foreign;
} G;

typedef struct consumer_arg {
    int id;
    samples_t lat, ack;
    long errors;
    char err[256];
} consumer_arg_t;

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
    int64_t warm_end = G.t0 + (int64_t)(G.warmup * 1e9);
    while (!atomic_load(&G.stop)) {
        gr_share_batch_t *b;
        gr_err_t err = gr_share_consumer_poll(c, 100, &b);
        int64_t t = now_ns();
        if (err) {
            if (a->errors++ == 0) snprintf(a->err, sizeof(a->err), "poll: %s", gr_share_consumer_last_error(c));
            continue;
        }
        size_t n = gr_share_batch_count(b);
        for (size_t i = 0; i < n; i++) {
            const gr_share_record_t *r = gr_share_batch_record(b, i);
            size_t len;
            const uint8_t *v = gr_share_record_value(r, &len);
            uint64_t run = 0;
            if (v && len >= HDR) memcpy(&run, v, 8);
            if (run != G.run_id) {
                atomic_fetch_add(&G.foreign, 1);
            } else {
                uint64_t seq;
                int64_t due;
                memcpy(&seq, v + 8, 8);
                memcpy(&due, v + 16, 8);
                if (seq >= (uint64_t)G.max_seq || atomic_exchange(&G.seen[seq], 1)) {
                    atomic_fetch_add(&G.dups, 1);
                } else {
                    atomic_fetch_add(&G.received, 1);
                    if (due >= warm_end) add_sample(&a->lat, (t - due) / 1000);
                }
            }
            gr_share_consumer_acknowledge(c, r, GR_ACK_ACCEPT);
        }
        if (n) {
            int64_t c0 = now_ns();
            gr_share_ack_result_t *res = NULL;
            gr_err_t ce = gr_share_consumer_commit_sync(c, 10000, &res);
            if (c0 >= warm_end) add_sample(&a->ack, (now_ns() - c0) / 1000);
            if (ce && a->errors++ == 0) snprintf(a->err, sizeof(a->err), "commit: %s", gr_share_consumer_last_error(c));
            gr_share_ack_result_destroy(res);
        }
    }
    gr_share_consumer_close(c, 5000);
    gr_share_consumer_destroy(c);
    return NULL;
}

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    (void)p, (void)opaque;
    if (gr_delivery_error(d)) {
        if (atomic_fetch_add(&G.send_fail, 1) == 0) fprintf(stderr, "delivery failed: %s\n", gr_delivery_errstr(d));
    } else {
        atomic_fetch_add(&G.sent, 1);
    }
}

/* The producer: the schedule, or as fast as it goes (rate 0). Returns records handed over. */
static long produce(gr_producer_t *p, uint8_t *val) {
    long i = 0;
    int64_t end = G.t0 + (int64_t)((G.warmup + G.seconds) * 1e9);
    for (;; i++) {
        int64_t due = G.rate > 0 ? G.t0 + (int64_t)((double)i * 1e9 / G.rate) : now_ns();
        if (due >= end || i >= G.max_seq) break;
        /* Sleep only when more than 50 us early: one sleep per record costs more than the
         * gap between records at high rates (a record sent up to 50 us early looks that much
         * faster). */
        if (G.rate > 0 && due > now_ns() + 50000) {
            gr_producer_poll(p, 0);
            sleep_until(due);
        }
        uint64_t seq = (uint64_t)i;
        memcpy(val, &G.run_id, 8);
        memcpy(val + 8, &seq, 8);
        memcpy(val + 16, &due, 8);
        gr_err_t e;
        while ((e = gr_producer_send(p, G.topic, GR_PARTITION_ANY, NULL, 0, val, G.size, NULL, GR_TIMESTAMP_NOW,
                                     on_delivery, NULL)) == GR_ERR__QUEUE_FULL)
            gr_producer_poll(p, 10);
        if (e) {
            fprintf(stderr, "send: %s\n", gr_producer_last_error(p));
            break;
        }
        if ((i & 255) == 0) gr_producer_poll(p, 0);
    }
    gr_producer_flush(p, 30000);
    return i;
}

static void print_pcts(const char *name, samples_t *s) {
    qsort(s->v, s->n, sizeof(int64_t), cmp_i64);
#define PCT(q) (s->n ? s->v[(size_t)((double)(s->n - 1) * (q))] : -1)
    printf(",\"%s\":{\"n\":%zu,\"p50\":%lld,\"p99\":%lld,\"p999\":%lld,\"max\":%lld}", name, s->n, (long long)PCT(0.5),
           (long long)PCT(0.99), (long long)PCT(0.999), (long long)(s->n ? s->v[s->n - 1] : -1));
#undef PCT
}

static int parse_args(int argc, char **argv) {
    if (argc < 6) return -1;
    G.bootstrap = argv[1], G.topic = argv[2], G.group = argv[3];
    G.rate = atof(argv[4]), G.seconds = atof(argv[5]);
    G.size = 1024, G.consumers = 4, G.warmup = 5, G.join_wait = 5, G.drain = 20;
    G.px = calloc((size_t)argc, sizeof(char *)), G.cx = calloc((size_t)argc, sizeof(char *));
    for (int i = 6; i < argc; i++) {
        const char *o = argv[i];
        if (i + 1 >= argc) return -1;
        const char *v = argv[++i];
        if (!strcmp(o, "--size"))
            G.size = (size_t)atol(v);
        else if (!strcmp(o, "--consumers"))
            G.consumers = atoi(v);
        else if (!strcmp(o, "--warmup"))
            G.warmup = atof(v);
        else if (!strcmp(o, "--join-wait"))
            G.join_wait = atof(v);
        else if (!strcmp(o, "--drain"))
            G.drain = atof(v);
        else if (!strcmp(o, "-X"))
            G.px[G.npx++] = argv[i];
        else if (!strcmp(o, "-C"))
            G.cx[G.ncx++] = argv[i];
        else
            return -1;
    }
    if (G.size < HDR || G.consumers < 1 || G.consumers > MAX_CONSUMERS || G.rate < 0 || G.seconds <= 0) return -1;
    return 0;
}

int main(int argc, char **argv) {
    if (parse_args(argc, argv)) {
        fprintf(stderr,
                "usage: %s BOOTSTRAP TOPIC GROUP RATE SECONDS [--size B] [--consumers C] [--warmup S] "
                "[--join-wait S] [--drain S] [-X producer.prop=v]... [-C consumer.prop=v]...\n",
                argv[0]);
        return 2;
    }
    G.max_seq = G.rate > 0 ? (long)(G.rate * (G.warmup + G.seconds)) + 1 : 50000000L;
    G.seen = calloc((size_t)G.max_seq, 1);
    G.run_id = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 40);
    const char *pfixed[] = {"bootstrap.servers", G.bootstrap, "acks", "all", NULL};
    gr_conf_t *pc = bench_conf_from(GR_CONF_PRODUCER, pfixed, G.px, G.npx);
    if (!pc) return 1;
    gr_producer_t *p;
    char errstr[512];
    if (gr_producer_new(pc, &p, errstr, sizeof(errstr))) {
        fprintf(stderr, "producer: %s\n", errstr);
        return 1;
    }
    gr_conf_destroy(pc);
    /* Consumers join first; the schedule starts after join_wait. */
    G.t0 = now_ns() + (int64_t)(G.join_wait * 1e9);
    pthread_t th[MAX_CONSUMERS];
    consumer_arg_t args[MAX_CONSUMERS];
    memset(args, 0, sizeof(args));
    for (int i = 0; i < G.consumers; i++) {
        args[i].id = i;
        pthread_create(&th[i], NULL, consumer_main, &args[i]);
    }
    sleep_until(G.t0);
    uint8_t *val = calloc(1, G.size);
    for (size_t i = HDR; i < G.size; i++) val[i] = (uint8_t)('a' + i % 26);
    long handed = produce(p, val);
    int64_t t_end = now_ns();
    int64_t drain_end = t_end + (int64_t)(G.drain * 1e9);
    while (atomic_load(&G.received) < atomic_load(&G.sent) && now_ns() < drain_end) sleep_until(now_ns() + 10000000);
    atomic_store(&G.stop, true);
    samples_t lat = {0}, ack = {0};
    long errors = 0;
    for (int i = 0; i < G.consumers; i++) {
        pthread_join(th[i], NULL);
        for (size_t k = 0; k < args[i].lat.n; k++) add_sample(&lat, args[i].lat.v[k]);
        for (size_t k = 0; k < args[i].ack.n; k++) add_sample(&ack, args[i].ack.v[k]);
        if (args[i].errors) fprintf(stderr, "consumer %d: %ld errors, first: %s\n", i, args[i].errors, args[i].err);
        errors += args[i].errors;
        free(args[i].lat.v), free(args[i].ack.v);
    }
    gr_producer_destroy(p);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    double secs = (double)(t_end - G.t0) / 1e9; /* warm-up included: the rate of the whole schedule */
    long sent = atomic_load(&G.sent), rec = atomic_load(&G.received);
    printf("{\"tool\":\"gregor_latency\",\"rate\":%.0f,\"seconds\":%.3f,\"size\":%zu,\"consumers\":%d,\"handed\":%ld,"
           "\"sent\":%ld,\"send_failed\":%ld,\"received\":%ld,\"duplicates\":%ld,\"foreign\":%ld,"
           "\"consumer_errors\":%ld,"
           "\"achieved_rate\":%.1f",
           G.rate, secs, G.size, G.consumers, handed, sent, (long)atomic_load(&G.send_fail), rec,
           (long)atomic_load(&G.dups), (long)atomic_load(&G.foreign), errors, secs > 0 ? (double)sent / secs : 0.0);
    print_pcts("latency_us", &lat);
    print_pcts("ack_us", &ack);
    printf(",\"cpu_s\":%.2f,\"max_rss_kb\":%ld}\n", cpu, (long)ru.ru_maxrss);
    free(lat.v), free(ack.v), free(val), free(G.seen), free(G.px), free(G.cx);
    return sent > 0 && rec >= sent && !atomic_load(&G.send_fail) ? 0 : 1;
}
