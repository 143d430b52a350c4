/* gregor_bench_client: a benchmark client built on the public libgregor API only
 * (include/gregor/), run by bench/clients.sh next to kcat, the Java clients and
 * confluent-kafka.
 *
 *   gregor_bench_client produce BOOTSTRAP TOPIC N SIZE [-X name=value]...
 *       Sends N records of SIZE bytes (null key, values taken in turn from 257 random
 *       alphanumeric buffers, the same shape as bench/run.sh's kcat input) to TOPIC with
 *       the partitioner choosing, calls gr_producer_poll(p, 0) after every 1024th send
 *       (GR_BENCH_POLL_EVERY=n: every n-th) and gr_producer_poll(p, 100) while the send
 *       answers GR_ERR__QUEUE_FULL, flushes, and counts the delivery reports. -X sets any producer property (acks, compression.type, linger.ms,
 *       batch.size, ...); nothing else is changed from libgregor's defaults.
 *       GR_BENCH_TXN_SIZE=k (with -X transactional.id=ID): transactions of k records
 *       (init_transactions once, then begin / k sends / commit; the last may be shorter);
 *       the JSON then has "transactions". The time includes every commit.
 *   gregor_bench_client share-drain BOOTSTRAP GROUP TOPIC N [-X name=value]...
 *       Joins share group GROUP (implicit acknowledgement, the default: every poll
 *       accepts the previous batch) and polls until N records were received, then
 *       accepts the last batch (commit_sync) and closes. The group must start at the
 *       earliest offset (group config share.auto.offset.reset=earliest, set by the caller).
 *       GR_BENCH_IDLE_EXIT_MS=m: also stop after m ms without records (once a record came,
 *       or 15 s after the subscribe: a share group may take seconds to assign), for several consumers draining one topic together
 *       (bench/share_drain.sh); the JSON then says when (wall clock) the first and the
 *       last record arrived: first_epoch, last_epoch.
 *   gregor_bench_client consume BOOTSTRAP TOPIC N [-X name=value]...
 *       Reads every partition of TOPIC from the beginning, without a group (assign), until
 *       N records came (e.g. -X isolation.level=read_committed over a transactional topic:
 *       N must then be exactly the committed records); seconds run from the first poll to
 *       the last record. Stops after 30 s without records.
 *       GR_BENCH_HOLD_MS=w: hold every batch w ms before the next poll acknowledges it (a
 *       consumer whose processing takes W; bench/capacity.sh).
 *       GR_BENCH_START_DIR=d: a start barrier for several consumers launched together: once
 *       its consumer exists, the process creates d/ready.PID and waits (at most 60 s) for
 *       d/go before it subscribes, so that process start-up (tens of ms each on a loaded
 *       machine, 64 of them in turn) is not measured as the broker's drain.
 *       GR_BENCH_REJECT_EVERY=k: explicit acknowledgement instead: REJECT every record whose
 *       offset is a multiple of k, ACCEPT the others (bench/share_dlq.sh: k = 20, 5 %); the
 *       JSON then has "rejected".
 *
 * Prints one JSON line on stdout: mode, messages, bytes, seconds (from the first
 * send / the subscribe to the last delivery report / record), msgs_per_s, mb_per_s
 * (10^6 bytes), first_s (the first delivery report / record), failed, and the
 * process's own CPU-seconds and peak RSS (getrusage). Exit status 0 only if all N
 * records were delivered / received.
 */
#define _POSIX_C_SOURCE 200809L
#include <gregor/gregor.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define POOL 257

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s produce BOOTSTRAP TOPIC N SIZE [-X name=value]...\n"
            "       %s share-drain BOOTSTRAP GROUP TOPIC N [-X name=value]...\n"
            "       %s consume BOOTSTRAP TOPIC N [-X name=value]...\n",
            argv0, argv0, argv0);
}

/* Applies the -X name=value arguments from argv[first] on; 0 on success. */
static int apply_props(gr_conf_t *conf, int argc, char **argv, int first) {
    char errstr[512];
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "-X") != 0 || i + 1 >= argc) {
            fprintf(stderr, "expected -X name=value, got: %s\n", argv[i]);
            return 2;
        }
        char *kv = argv[++i], *eq = strchr(kv, '=');
        if (!eq) {
            fprintf(stderr, "expected name=value: %s\n", kv);
            return 2;
        }
        *eq = 0;
        if (gr_conf_set(conf, kv, eq + 1, errstr, sizeof(errstr))) {
            fprintf(stderr, "configuration error: %s\n", errstr);
            return 1;
        }
    }
    return 0;
}

/* A configuration for scope: the name/value pairs of fixed (NULL-terminated), then the
 * -X arguments from argv[first] on. NULL with *rc set (1 bad fixed value, 2 bad -X) on error. */
static gr_conf_t *make_conf(gr_conf_scope_t scope, const char *const *fixed, int argc, char **argv, int first,
                            int *rc) {
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(scope);
    for (; *fixed; fixed += 2) {
        if (gr_conf_set(conf, fixed[0], fixed[1], errstr, sizeof(errstr))) {
            fprintf(stderr, "configuration error: %s\n", errstr);
            gr_conf_destroy(conf);
            *rc = 1;
            return NULL;
        }
    }
    if ((*rc = apply_props(conf, argc, argv, first))) {
        gr_conf_destroy(conf);
        return NULL;
    }
    return conf;
}

static char batch_size[32] = "";  /* the producer's effective batch.size (its default unless -X set it) */
static char extra_json[128] = ""; /* more fields for the JSON line, each starting with a comma */

/* The wall-clock time (s since the epoch) of a CLOCK_MONOTONIC instant t. */
static double epoch_of(double t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - (now_s() - t);
}

static void print_json(const char *mode, long n, long done, double bytes, double secs, double first_s, long failed) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    printf("{\"client\":\"libgregor\",\"mode\":\"%s\",\"messages\":%ld,\"done\":%ld,\"failed\":%ld,"
           "\"bytes\":%.0f,\"seconds\":%.3f,\"first_s\":%.3f,\"msgs_per_s\":%.1f,\"mb_per_s\":%.2f,"
           "\"cpu_s\":%.2f,\"max_rss_kb\":%ld%s%s%s}\n",
           mode, n, done, failed, bytes, secs, first_s, secs > 0 ? (double)done / secs : 0.0,
           secs > 0 ? bytes / 1e6 / secs : 0.0, cpu, (long)ru.ru_maxrss, batch_size[0] ? ",\"batch_size\":" : "",
           batch_size, extra_json);
    fflush(stdout);
}

/* ------------------------------------------------------------------ produce */

struct produce_state {
    long delivered, failed, queue_full;
    double t0, first, last;
};

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    (void)p;
    struct produce_state *st = opaque;
    if (gr_delivery_error(d)) {
        if (st->failed++ == 0) fprintf(stderr, "delivery failed: %s\n", gr_delivery_errstr(d));
        return;
    }
    if (st->delivered++ == 0) st->first = now_s();
}

/* Commit the open transaction (if commit), then begin the next (if begin). */
static gr_err_t txn_step(gr_producer_t *p, bool commit, bool begin, long *txns) {
    gr_err_t err = commit ? gr_producer_commit_transaction(p, 120000) : GR_ERR_NONE;
    if (!err && commit) (*txns)++;
    if (!err && begin) err = gr_producer_begin_transaction(p);
    if (err) fprintf(stderr, "transaction: %s\n", gr_producer_last_error(p));
    return err;
}

static int run_produce(int argc, char **argv) {
    if (argc < 6) return usage(argv[0]), 2;
    const char *bootstrap = argv[2], *topic = argv[3];
    long n = atol(argv[4]);
    size_t size = (size_t)atol(argv[5]);
    if (n <= 0 || size == 0) return usage(argv[0]), 2;

    char errstr[512];
    int rc;
    gr_conf_t *conf =
        make_conf(GR_CONF_PRODUCER, (const char *[]){"bootstrap.servers", bootstrap, NULL}, argc, argv, 6, &rc);
    if (!conf) return rc;
    const char *bs = gr_conf_get(conf, "batch.size");
    snprintf(batch_size, sizeof(batch_size), "%s", bs ? bs : "");
    gr_producer_t *p;
    if (gr_producer_new(conf, &p, errstr, sizeof(errstr))) {
        fprintf(stderr, "producer: %s\n", errstr);
        gr_conf_destroy(conf);
        return 1;
    }
    gr_conf_destroy(conf);

    /* 257 values of random alphanumerics (a fixed seed: the same bytes every run) */
    static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char *pool = malloc((size_t)POOL * size);
    if (!pool) return 1;
    uint64_t x = 42;
    for (size_t i = 0; i < (size_t)POOL * size; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pool[i] = alpha[x % (sizeof(alpha) - 1)];
    }

    const char *te = getenv("GR_BENCH_TXN_SIZE");
    long txn_size = te ? atol(te) : 0, txns = 0;
    if (txn_size > 0 && gr_producer_init_transactions(p, 60000)) {
        fprintf(stderr, "init_transactions: %s\n", gr_producer_last_error(p));
        gr_producer_destroy(p);
        free(pool);
        return 1;
    }
    const char *pe = getenv("GR_BENCH_POLL_EVERY");
    long poll_every = pe ? atol(pe) : 1024;
    if (poll_every < 1) poll_every = 1;
    struct produce_state st = {0};
    st.t0 = now_s();
    long sent = 0;
    gr_err_t err = GR_ERR_NONE;
    for (; sent < n; sent++) {
        if (txn_size > 0 && sent % txn_size == 0 && (err = txn_step(p, sent > 0, true, &txns))) break;
        const char *value = pool + (size_t)(sent % POOL) * size;
        while ((err = gr_producer_send(p, topic, GR_PARTITION_ANY, NULL, 0, value, size, NULL, GR_TIMESTAMP_NOW,
                                       on_delivery, &st)) == GR_ERR__QUEUE_FULL) {
            st.queue_full++;
            gr_producer_poll(p, 100); /* buffer.memory is full: wait for deliveries */
        }
        if (err) {
            fprintf(stderr, "send failed: %s: %s\n", gr_err_name(err), gr_producer_last_error(p));
            break;
        }
        if ((sent + 1) % poll_every == 0) gr_producer_poll(p, 0); /* I/O and reports as we go */
    }
    if (txn_size > 0 && !err && sent > 0) err = txn_step(p, true, false, &txns);
    if (gr_producer_flush(p, 120000)) fprintf(stderr, "flush: %s\n", gr_producer_last_error(p));
    st.last = now_s();
    if (txn_size > 0)
        snprintf(extra_json, sizeof(extra_json), ",\"transactions\":%ld,\"txn_size\":%ld", txns, txn_size);
    gr_producer_destroy(p);
    free(pool);
    fprintf(stderr, "queue_full waits: %ld\n", st.queue_full);
    print_json("produce", n, st.delivered, (double)st.delivered * (double)size, st.last - st.t0,
               st.delivered ? st.first - st.t0 : -1.0, st.failed + (n - sent));
    return st.delivered == n ? 0 : 1;
}

/* ------------------------------------------------------------------ share-drain */

/* Explicit mode (GR_BENCH_REJECT_EVERY=k): REJECT offsets that are multiples of k, ACCEPT the
 * rest; returns 1 for a REJECT. */
static int ack_explicit(gr_share_consumer_t *c, const gr_share_record_t *r, long k) {
    bool reject = gr_share_record_offset(r) % k == 0;
    gr_share_consumer_acknowledge(c, r, reject ? GR_ACK_REJECT : GR_ACK_ACCEPT);
    return reject;
}

/* GR_BENCH_START_DIR: say ready, then wait for the go file (bench/share_drain.sh). */
static void start_barrier(void) {
    const char *dir = getenv("GR_BENCH_START_DIR");
    if (!dir || !*dir) return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/ready.%ld", dir, (long)getpid());
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    snprintf(path, sizeof(path), "%s/go", dir);
    struct timespec tick = {0, 1000000};
    for (double t0 = now_s(); access(path, F_OK) != 0 && now_s() - t0 < 60;) nanosleep(&tick, NULL);
}

static int run_share_drain(int argc, char **argv) {
    if (argc < 6) return usage(argv[0]), 2;
    const char *bootstrap = argv[2], *group = argv[3], *topic = argv[4];
    long n = atol(argv[5]);
    if (n <= 0) return usage(argv[0]), 2;

    char errstr[512];
    int rc;
    const char *reject_env = getenv("GR_BENCH_REJECT_EVERY");
    long reject_every = reject_env ? atol(reject_env) : 0, rejected = 0;
    const char *fixed[] = {"bootstrap.servers",
                           bootstrap,
                           "group.id",
                           group,
                           "share.acknowledgement.mode",
                           reject_every > 0 ? "explicit" : "implicit",
                           NULL};
    gr_conf_t *conf = make_conf(GR_CONF_CONSUMER, fixed, argc, argv, 6, &rc);
    if (!conf) return rc;
    gr_share_consumer_t *c;
    gr_err_t err = gr_share_consumer_new(conf, &c, errstr, sizeof(errstr));
    gr_conf_destroy(conf);
    if (err) {
        fprintf(stderr, "share consumer: %s\n", errstr);
        return 1;
    }
    const char *hold_env = getenv("GR_BENCH_HOLD_MS");
    long hold_ms = hold_env ? atol(hold_env) : 0;
    const char *idle_env = getenv("GR_BENCH_IDLE_EXIT_MS");
    double idle_exit = idle_env ? atof(idle_env) / 1000.0 : 0;
    start_barrier();
    double t0 = now_s(), first = -1, last = t0, idle_since = t0;
    const char *topics[] = {topic};
    gr_share_consumer_subscribe(c, topics, 1);
    long count = 0, dup_or_bad = 0;
    double bytes = 0;
    while (count < n) {
        gr_share_batch_t *batch;
        err = gr_share_consumer_poll(c, 500, &batch); /* accepts the previous batch */
        if (err) {
            fprintf(stderr, "poll: %s: %s\n", gr_err_name(err), gr_share_consumer_last_error(c));
            break;
        }
        size_t m = gr_share_batch_count(batch);
        double t = now_s();
        if (m == 0) {
            if (idle_exit > 0 && t - idle_since > idle_exit && (first >= 0 || t - t0 > 15)) break;
            if (t - idle_since > 30) {
                fprintf(stderr, "no records for 30 s after %ld\n", count);
                break;
            }
            continue;
        }
        idle_since = t;
        if (first < 0) first = t;
        for (size_t i = 0; i < m; i++) {
            const gr_share_record_t *r = gr_share_batch_record(batch, i);
            size_t len = 0;
            if (!gr_share_record_value(r, &len) || gr_share_record_delivery_count(r) != 1) dup_or_bad++;
            bytes += (double)len;
            if (reject_every > 0) rejected += ack_explicit(c, r, reject_every);
        }
        count += (long)m;
        last = t;
        if (hold_ms > 0) {
            struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    gr_share_consumer_commit_sync(c, -1, NULL); /* accept the last batch */
    gr_share_consumer_close(c, -1);
    gr_share_consumer_destroy(c);
    if (dup_or_bad) fprintf(stderr, "%ld records with a null value or a delivery count above 1\n", dup_or_bad);
    if (idle_exit > 0)
        snprintf(extra_json, sizeof(extra_json), ",\"first_epoch\":%.3f,\"last_epoch\":%.3f,\"rejected\":%ld",
                 first >= 0 ? epoch_of(first) : -1.0, epoch_of(last), rejected);
    print_json("share-drain", n, count, bytes, last - t0, first >= 0 ? first - t0 : -1.0, dup_or_bad);
    if (idle_exit > 0) return dup_or_bad ? 1 : 0; /* one of several: the caller checks the sum */
    return count >= n && !dup_or_bad ? 0 : 1;
}

/* ------------------------------------------------------------------ consume */

static int run_consume(int argc, char **argv) {
    if (argc < 5) return usage(argv[0]), 2;
    const char *bootstrap = argv[2], *topic = argv[3];
    long n = atol(argv[4]);
    if (n <= 0) return usage(argv[0]), 2;
    int rc;
    const char *fixed[] = {"bootstrap.servers", bootstrap, NULL};
    gr_conf_t *conf = make_conf(GR_CONF_CONSUMER, fixed, argc, argv, 5, &rc);
    if (!conf) return rc;
    char errstr[512];
    gr_consumer_t *c;
    gr_err_t err = gr_consumer_new(conf, &c, errstr, sizeof(errstr));
    gr_conf_destroy(conf);
    if (err) {
        fprintf(stderr, "consumer: %s\n", errstr);
        return 1;
    }
    gr_consumer_assign(c, topic, GR_PARTITION_ALL, GR_OFFSET_BEGINNING);
    long count = 0, bad = 0;
    double bytes = 0, t0 = now_s(), first = -1, last = t0;
    while (count < n) {
        const gr_consumer_msg_t *m;
        err = gr_consumer_poll(c, 500, &m);
        if (err) {
            fprintf(stderr, "poll: %s: %s\n", gr_err_name(err), gr_consumer_last_error(c));
            break;
        }
        if (!m) {
            if (now_s() - last > 30) {
                fprintf(stderr, "no records for 30 s after %ld\n", count);
                break;
            }
            continue;
        }
        size_t len = 0;
        if (!gr_consumer_msg_value(m, &len)) bad++;
        bytes += (double)len;
        /* the clock read for the first and last record, and every 1024th (the idle limit) */
        count++;
        if (first < 0 || count == n || !(count & 1023)) last = now_s();
        if (first < 0) first = last;
    }
    gr_consumer_destroy(c);
    print_json("consume", n, count, bytes, last - t0, first >= 0 ? first - t0 : -1.0, bad);
    return count == n && !bad ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "produce") == 0) return run_produce(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "share-drain") == 0) return run_share_drain(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "consume") == 0) return run_consume(argc, argv);
    usage(argv[0]);
    return 2;
}
