/* A consumer-group test driver over libgregor's public API, used by
 * tests/integration/test_libgregor_group.sh (setup and produce: client_share_consume).
 *
 *   client_group_consume BOOTSTRAP consume GROUP TOPIC [options] [-X name=value]...
 *       subscribe and poll; print "REC <partition> <offset> <key>" per record and the
 *       rebalance callback's events as "ASSIGNED|REVOKED|LOST <p>,<p>,..." (partitions of
 *       TOPIC, sorted); options: --idle-ms MS (stop after MS without records once some
 *       came, default 5000; 0 = never), --max-ms MS (overall limit, default 60000), --max N
 *       (stop after N records), --commit auto|sync (sync: gr_consumer_commit after each
 *       record), --ready FILE (touch it once partitions are assigned), --stop-file FILE
 *       (stop when it exists), --pause-file FILE (no poll while it exists: a stalled
 *       application, for max.poll.interval.ms), --no-close (destroy without close: no
 *       leave, no commit).
 *       At the end: "CLOSE <error name>".
 *   client_group_consume BOOTSTRAP ahead GROUP TOPIC N --go FILE [-X name=value]...
 *       gregor.consumer.fetch.ahead: records in order across answers, and seeks (ahead()).
 *   client_group_consume BOOTSTRAP api GROUP TOPIC [-X name=value]...
 *       the API checks (seek, position, pause/resume, commit sync/async, committed, misuse),
 *       one line each, for the script to compare.
 * Exit status 0 unless a call failed unexpectedly. */
#include <gregor/gregor.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig, stop = 1; }

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmp_tp(const void *a, const void *b) {
    const gr_topic_partition_t *x = a, *y = b;
    return (x->partition > y->partition) - (x->partition < y->partition);
}

static size_t n_assigned;

static void on_rebalance(gr_consumer_t *c, gr_rebalance_event_t ev, const gr_topic_partition_t *parts, size_t n,
                         void *opaque) {
    (void)c, (void)opaque;
    gr_topic_partition_t *s = malloc((n ? n : 1) * sizeof(*s));
    if (!s) abort();
    memcpy(s, parts, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_tp);
    printf("%s ", ev == GR_REBALANCE_ASSIGNED ? "ASSIGNED" : ev == GR_REBALANCE_REVOKED ? "REVOKED" : "LOST");
    for (size_t i = 0; i < n; i++) printf("%s%d", i ? "," : "", (int)s[i].partition);
    printf("\n");
    fflush(stdout);
    free(s);
    n_assigned = (size_t)gr_consumer_assignment(c, NULL, 0);
}

static gr_consumer_t *make(const char *bs, const char *group, int argc, char **argv) {
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    char err[512];
    gr_conf_set(conf, "bootstrap.servers", bs, NULL, 0);
    gr_conf_set(conf, "group.id", group, NULL, 0);
    gr_conf_set(conf, "auto.offset.reset", "earliest", NULL, 0);
    for (int i = 0; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-X")) continue;
        char *kv = strdup(argv[++i]), *eq = strchr(kv, '=');
        if (!eq || gr_conf_set(conf, (*eq = 0, kv), eq + 1, err, sizeof(err))) {
            fprintf(stderr, "bad -X %s: %s\n", argv[i], eq ? err : "no =");
            exit(2);
        }
        free(kv);
    }
    gr_consumer_t *c = NULL;
    if (gr_consumer_new(conf, &c, err, sizeof(err))) {
        fprintf(stderr, "consumer: %s\n", err);
        exit(1);
    }
    gr_conf_destroy(conf);
    gr_consumer_set_rebalance_cb(c, on_rebalance, NULL);
    return c;
}

static const char *opt(int argc, char **argv, const char *name, const char *dflt) {
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return argv[i + 1];
    return dflt;
}
static bool flag(int argc, char **argv, const char *name) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], name)) return true;
    return false;
}

static int consume(const char *bs, int argc, char **argv) {
    const char *group = argv[0], *topic = argv[1];
    int64_t idle = atoll(opt(argc, argv, "--idle-ms", "5000")), max_ms = atoll(opt(argc, argv, "--max-ms", "60000"));
    long max = atol(opt(argc, argv, "--max", "-1"));
    bool sync = !strcmp(opt(argc, argv, "--commit", "auto"), "sync");
    const char *ready = opt(argc, argv, "--ready", NULL), *stop_file = opt(argc, argv, "--stop-file", NULL);
    const char *pause_file = opt(argc, argv, "--pause-file", NULL);
    gr_consumer_t *c = make(bs, group, argc, argv);
    if (gr_consumer_subscribe(c, &topic, 1)) {
        fprintf(stderr, "subscribe: %s\n", gr_consumer_last_error(c));
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    int64_t start = now_ms(), last = 0;
    long count = 0;
    int rc = 0;
    while (!stop && now_ms() - start < max_ms && (max < 0 || count < max)) {
        if (stop_file && access(stop_file, F_OK) == 0) break;
        if (pause_file && access(pause_file, F_OK) == 0) {
            usleep(20 * 1000);
            continue;
        }
        const gr_consumer_msg_t *m;
        gr_err_t err = gr_consumer_poll(c, 100, &m);
        if (ready && n_assigned) {
            FILE *f = fopen(ready, "w");
            if (f) fclose(f);
            ready = NULL;
        }
        if (err) {
            printf("POLLERR %s %s\n", gr_err_name(err), gr_consumer_last_error(c));
            rc = 1;
            break;
        }
        if (!m) {
            if (idle > 0 && last && now_ms() - last > idle) break;
            continue;
        }
        size_t kl;
        const char *k = gr_consumer_msg_key(m, &kl);
        printf("REC %d %lld %.*s\n", (int)gr_consumer_msg_partition(m), (long long)gr_consumer_msg_offset(m), (int)kl,
               k ? k : "");
        fflush(stdout);
        count++;
        last = now_ms();
        if (sync && gr_consumer_commit(c, NULL, 0, -1)) printf("COMMITERR %s\n", gr_consumer_last_error(c));
    }
    if (!flag(argc, argv, "--no-close")) printf("CLOSE %s\n", gr_err_name(gr_consumer_close(c, -1)));
    fflush(stdout);
    gr_consumer_destroy(c);
    return rc;
}

/* ---- api checks ---- */

/* Poll until a record of partition p comes (up to 20 s); its offset, or -1. */
static int64_t next_of(gr_consumer_t *c, int32_t p) {
    for (int64_t end = now_ms() + 20000; now_ms() < end;) {
        const gr_consumer_msg_t *m;
        if (gr_consumer_poll(c, 100, &m)) return -2;
        if (m && gr_consumer_msg_partition(m) == p) return gr_consumer_msg_offset(m);
    }
    return -1;
}

static int async_calls;
static gr_err_t async_err = GR_ERR__STATE;
static void on_commit(gr_consumer_t *c, gr_err_t err, const gr_topic_partition_t *parts, size_t n, void *opaque) {
    (void)c, (void)parts, (void)opaque;
    async_calls++;
    async_err = err;
    printf("async callback: %s n=%zu\n", gr_err_name(err), n);
}

static int api(const char *bs, int argc, char **argv) {
    const char *group = argv[0], *topic = argv[1];
    gr_consumer_t *c = make(bs, group, argc, argv);
    printf("assign after subscribe: %s\n",
           gr_err_name((gr_consumer_subscribe(c, &topic, 1), gr_consumer_assign(c, topic, 0, 0))));
    int64_t end = now_ms() + 30000;
    while (now_ms() < end && gr_consumer_assignment(c, NULL, 0) < 4) {
        const gr_consumer_msg_t *m;
        gr_consumer_poll(c, 100, &m);
    }
    printf("assigned: %zu\n", gr_consumer_assignment(c, NULL, 0));
    printf("first of p1 after seek 3: %lld\n", (long long)(gr_consumer_seek(c, topic, 1, 3) ? -3 : next_of(c, 1)));
    int64_t pos = -1;
    gr_consumer_position(c, topic, 1, &pos);
    printf("position p1: %lld\n", (long long)pos);
    printf("seek unassigned: %s\n", gr_err_name(gr_consumer_seek(c, topic, 99, 0)));
    gr_consumer_pause(c, topic, GR_PARTITION_ALL);
    int got = 0;
    for (int64_t e = now_ms() + 1500; now_ms() < e;) {
        const gr_consumer_msg_t *m;
        gr_consumer_poll(c, 100, &m);
        if (m) got++;
    }
    printf("records while paused: %d\n", got);
    gr_consumer_resume(c, topic, GR_PARTITION_ALL);
    gr_consumer_seek(c, topic, 2, 0);
    printf("first of p2 after resume and seek 0: %lld\n", (long long)next_of(c, 2));
    gr_topic_partition_t tp = {topic, 0, 7};
    printf("commit p0=7: %s\n", gr_err_name(gr_consumer_commit(c, &tp, 1, -1)));
    int64_t off = -1;
    gr_err_t e = gr_consumer_committed(c, topic, 0, -1, &off);
    printf("committed p0: %s %lld\n", gr_err_name(e), (long long)off);
    tp.offset = 9;
    printf("commit_async p0=9: %s\n", gr_err_name(gr_consumer_commit_async(c, &tp, 1, on_commit, NULL)));
    for (int64_t e = now_ms() + 10000; now_ms() < e && !async_calls;) {
        const gr_consumer_msg_t *m;
        gr_consumer_poll(c, 100, &m);
    }
    gr_consumer_committed(c, topic, 0, -1, &off);
    printf("committed p0 after async: %lld\n", (long long)off);
    printf("generation > 0: %s, member id set: %s\n", gr_consumer_generation(c) > 0 ? "yes" : "no",
           *gr_consumer_member_id(c) ? "yes" : "no");
    printf("close: %s\n", gr_err_name(gr_consumer_close(c, -1)));
    const gr_consumer_msg_t *m;
    printf("poll after close: %s\n", gr_err_name(gr_consumer_poll(c, 0, &m)));
    gr_consumer_destroy(c);
    return 0;
}

/* ---- fetch ahead ---- */

/* Read partition 0 until offset `last`, checking that the offsets run on from `from`
 * without a gap or a repeat; prints the outcome. */
static void read_in_order(gr_consumer_t *c, const char *what, int64_t from, int64_t last) {
    int64_t want = from;
    for (int64_t end = now_ms() + 30000; want <= last && now_ms() < end;) {
        const gr_consumer_msg_t *m;
        if (gr_consumer_poll(c, 100, &m)) break;
        if (!m) continue;
        if (gr_consumer_msg_offset(m) != want) {
            printf("%s: offset %lld where %lld was due\n", what, (long long)gr_consumer_msg_offset(m), (long long)want);
            return;
        }
        want++;
    }
    printf("%s: %lld..%lld in order%s\n", what, (long long)from, (long long)want - 1,
           want > last ? "" : " (stopped early)");
}

/* ahead GROUP TOPIC N --go FILE: partition 0 of TOPIC (N records, one batch each) with
 * max.partition.fetch.bytes=1, so each answer is one batch. The first record; then
 * "first" is printed and the driver waits (no poll) until FILE exists, for the script to
 * count the Fetches the broker received (2 with fetch ahead, 1 without). Then every record
 * in order, a seek back into the records already read, and a seek to the last record. */
static int ahead(const char *bs, int argc, char **argv) {
    const char *topic = argv[1], *go = opt(argc, argv, "--go", NULL);
    int64_t n = atoll(argv[2]);
    gr_consumer_t *c = make(bs, argv[0], argc, argv);
    if (!go || n < 20 || gr_consumer_assign(c, topic, 0, GR_OFFSET_BEGINNING)) return 2;
    int64_t first = -1;
    for (int64_t end = now_ms() + 20000; first < 0 && now_ms() < end;) {
        const gr_consumer_msg_t *m;
        if (gr_consumer_poll(c, 100, &m)) break;
        if (m) first = gr_consumer_msg_offset(m);
    }
    printf("first: %lld\n", (long long)first);
    for (int64_t end = now_ms() + 30000; access(go, F_OK) != 0 && now_ms() < end;) usleep(20 * 1000);
    read_in_order(c, "the rest", 1, n - 1);
    printf("seek %lld: %s\n", (long long)n / 2, gr_err_name(gr_consumer_seek(c, topic, 0, n / 2)));
    read_in_order(c, "after the seek back", n / 2, n / 2 + 5);
    printf("seek %lld: %s\n", (long long)n - 1, gr_err_name(gr_consumer_seek(c, topic, 0, n - 1)));
    read_in_order(c, "after the seek ahead", n - 1, n - 1);
    gr_consumer_destroy(c);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 5) {
        fprintf(stderr, "usage: %s BOOTSTRAP consume|api|ahead GROUP TOPIC [options]\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[2], "consume")) return consume(argv[1], argc - 3, argv + 3);
    if (!strcmp(argv[2], "api")) return api(argv[1], argc - 3, argv + 3);
    if (!strcmp(argv[2], "ahead")) return ahead(argv[1], argc - 3, argv + 3);
    fprintf(stderr, "unknown mode %s\n", argv[2]);
    return 2;
}
