/* A share-consumer test driver over libgregor's public API, used by
 * tests/integration/test_libgregor_share.sh.
 *
 *   client_share_consume BOOTSTRAP setup TOPIC PARTITIONS
 *       create TOPIC and wait until every partition has a leader (the group configs are
 *       set by the script)
 *   client_share_consume BOOTSTRAP produce TOPIC N [FIRST [BATCH_BYTES]]
 *       produce N records key "k<i>" value "v<i>" (i from FIRST) with acks=all; BATCH_BYTES
 *       sets the producer's batch.size (small log batches)
 *   client_share_consume BOOTSTRAP consume GROUP TOPIC [options] [-X name=value]...
 *       poll and print "REC <partition> <offset> <delivery count> <key> <value>" per record;
 *       options: --idle-ms MS (stop after MS without records once some came, default 5000),
 *                --max-ms MS (overall limit, default 60000), --want N (stop after N distinct
 *                offsets), --sleep-ms MS (after each batch from the --sleep-from K-th on,
 *                default 1), --commit sync|async|none,
 *                --ack accept|release|reject (explicit mode), --ready FILE (touch it once the
 *                K-th batch arrived), --until-commit-ok 1 (with --commit sync: stop after the
 *                first commit_sync that succeeds for every partition once an earlier one failed).
 *       acknowledgement results (callback) print as "ACK <partition> <error> <count>";
 *       poll errors print as "POLLERR <name> <message>".
 * Exit status 0 unless a call failed unexpectedly. */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int setup(const char *bs, int argc, char **argv) {
    if (argc < 2) return 2;
    char err[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_admin_t *a;
    if (gr_admin_new(conf, &a, err, sizeof(err))) {
        fprintf(stderr, "admin: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    const char *names[] = {argv[0]};
    gr_admin_result_t *r = NULL;
    gr_err_t e = gr_admin_create_topics(a, names, 1, atoi(argv[1]), 1, NULL, 0, 0, 30000, &r);
    gr_admin_result_destroy(r);
    if (e && e != GR_ERR_TOPIC_ALREADY_EXISTS) fprintf(stderr, "create: %s\n", gr_admin_last_error(a));
    /* wait until the topic has leaders (Kafka applies metadata asynchronously) */
    for (int i = 0; i < 100; i++) {
        gr_admin_result_t *d = NULL;
        gr_err_t de = gr_admin_describe_topics(a, names, 1, 10000, &d);
        int ok = !de && gr_admin_result_rows(d) == (size_t)atoi(argv[1]);
        for (size_t k = 0; ok && k < gr_admin_result_rows(d); k++) ok = gr_admin_result_int(d, k, "leader", -1) >= 0;
        gr_admin_result_destroy(d);
        if (ok) break;
        usleep(100000);
    }
    gr_admin_destroy(a);
    return e && e != GR_ERR_TOPIC_ALREADY_EXISTS ? 1 : 0;
}

static int produce(const char *bs, int argc, char **argv) {
    if (argc < 2) return 2;
    char err[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_PRODUCER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_conf_set(conf, "linger.ms", "0", err, sizeof(err));
    if (argc > 3 && gr_conf_set(conf, "batch.size", argv[3], err, sizeof(err))) {
        fprintf(stderr, "batch.size: %s\n", err);
        return 2;
    }
    gr_producer_t *p;
    if (gr_producer_new(conf, &p, err, sizeof(err))) {
        fprintf(stderr, "producer: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    long n = atol(argv[1]), first = argc > 2 ? atol(argv[2]) : 0;
    for (long i = first; i < first + n; i++) {
        char k[32], v[32];
        int kl = snprintf(k, sizeof(k), "k%ld", i), vl = snprintf(v, sizeof(v), "v%ld", i);
        gr_err_t e = gr_producer_send(p, argv[0], GR_PARTITION_ANY, k, (size_t)kl, v, (size_t)vl, NULL,
                                      GR_TIMESTAMP_NOW, NULL, NULL);
        if (e) {
            fprintf(stderr, "send: %s\n", gr_producer_last_error(p));
            return 1;
        }
    }
    gr_err_t e = gr_producer_flush(p, 60000);
    gr_producer_destroy(p);
    return e ? 1 : 0;
}

static void on_commit(gr_share_consumer_t *c, const gr_share_ack_result_t *res, void *opaque) {
    (void)c, (void)opaque;
    for (size_t i = 0; i < gr_share_ack_result_count(res); i++)
        printf("ACK %d %s %zu\n", (int)gr_share_ack_result_partition(res, i),
               gr_err_name(gr_share_ack_result_error(res, i)), gr_share_ack_result_offsets(res, i, NULL));
    fflush(stdout);
}

typedef struct opts {
    int64_t idle_ms, max_ms, sleep_ms;
    long want, sleep_from;
    const char *commit, *ack, *ready;
    int until_commit_ok;
} opts_t;

static gr_ack_type_t ack_type(const char *s) {
    return !strcmp(s, "release") ? GR_ACK_RELEASE : !strcmp(s, "reject") ? GR_ACK_REJECT : GR_ACK_ACCEPT;
}

static int consume_loop(gr_share_consumer_t *c, const opts_t *o) {
    int64_t t0 = now_ms(), last = 0;
    char *seen = calloc(1 << 20, 1);
    long distinct = 0, batches = 0;
    int failed_commit = 0;
    while (now_ms() - t0 < o->max_ms && (!last || now_ms() - last < o->idle_ms) && (!o->want || distinct < o->want)) {
        gr_share_batch_t *b;
        gr_err_t e = gr_share_consumer_poll(c, 200, &b);
        if (e) {
            printf("POLLERR %s %s\n", gr_err_name(e), gr_share_consumer_last_error(c));
            fflush(stdout);
            if (e == GR_ERR__WAKEUP || e == GR_ERR__STATE || e > 0) break;
            usleep(200000);
            continue;
        }
        for (size_t i = 0; i < gr_share_batch_count(b); i++) {
            const gr_share_record_t *r = gr_share_batch_record(b, i);
            size_t kl, vl;
            const char *k = gr_share_record_key(r, &kl), *v = gr_share_record_value(r, &vl);
            printf("REC %d %lld %d %.*s %.*s\n", (int)gr_share_record_partition(r),
                   (long long)gr_share_record_offset(r), (int)gr_share_record_delivery_count(r), (int)kl, k ? k : "",
                   (int)vl, v ? v : "");
            long off = (long)gr_share_record_offset(r) * 8 + gr_share_record_partition(r);
            if (off >= 0 && off < (1 << 20) && !seen[off]) seen[off] = 1, distinct++;
            if (o->ack) gr_share_consumer_acknowledge(c, r, ack_type(o->ack));
        }
        fflush(stdout);
        if (gr_share_batch_count(b)) {
            last = now_ms();
            if (++batches >= o->sleep_from) {
                if (o->ready) fclose(fopen(o->ready, "w"));
                if (o->sleep_ms) usleep((useconds_t)o->sleep_ms * 1000);
                last = now_ms(); /* idle counts from the end of the processing */
            }
            if (!strcmp(o->commit, "sync")) {
                gr_share_ack_result_t *res = NULL;
                gr_err_t ce = gr_share_consumer_commit_sync(c, 10000, &res);
                if (ce) printf("COMMITERR %s %s\n", gr_err_name(ce), gr_share_consumer_last_error(c));
                int all_ok = !ce && gr_share_ack_result_count(res) > 0;
                for (size_t i = 0; i < gr_share_ack_result_count(res); i++)
                    all_ok &= gr_share_ack_result_error(res, i) == GR_ERR_NONE;
                gr_share_ack_result_destroy(res);
                if (!all_ok)
                    failed_commit = 1;
                else if (o->until_commit_ok && failed_commit)
                    break;
            } else if (!strcmp(o->commit, "async")) {
                gr_share_consumer_commit_async(c);
            }
        }
    }
    free(seen);
    return 0;
}

static int consume(const char *bs, int argc, char **argv) {
    if (argc < 2) return 2;
    char err[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_conf_set(conf, "group.id", argv[0], err, sizeof(err));
    opts_t o = {5000, 60000, 0, 0, 1, "none", NULL, NULL, 0};
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--idle-ms"))
            o.idle_ms = atol(v);
        else if (!strcmp(k, "--max-ms"))
            o.max_ms = atol(v);
        else if (!strcmp(k, "--want"))
            o.want = atol(v);
        else if (!strcmp(k, "--sleep-ms"))
            o.sleep_ms = atol(v);
        else if (!strcmp(k, "--sleep-from"))
            o.sleep_from = atol(v);
        else if (!strcmp(k, "--commit"))
            o.commit = v;
        else if (!strcmp(k, "--ready"))
            o.ready = v;
        else if (!strcmp(k, "--until-commit-ok"))
            o.until_commit_ok = atoi(v);
        else if (!strcmp(k, "--ack")) {
            o.ack = v;
            gr_conf_set(conf, "share.acknowledgement.mode", "explicit", err, sizeof(err));
        } else if (!strcmp(k, "-X")) {
            char name[128];
            const char *eq = strchr(v, '=');
            if (!eq || (size_t)(eq - v) >= sizeof(name)) return 2;
            memcpy(name, v, (size_t)(eq - v));
            name[eq - v] = 0;
            if (gr_conf_set(conf, name, eq + 1, err, sizeof(err))) {
                printf("CONFERR %s\n", err);
                return 1;
            }
        }
    }
    gr_share_consumer_t *c;
    if (gr_share_consumer_new(conf, &c, err, sizeof(err))) {
        printf("NEWERR %s\n", err);
        gr_conf_destroy(conf);
        return 1;
    }
    gr_conf_destroy(conf);
    gr_share_consumer_set_commit_cb(c, on_commit, NULL);
    const char *topics[] = {argv[1]};
    gr_share_consumer_subscribe(c, topics, 1);
    int rc = consume_loop(c, &o);
    gr_err_t ce = gr_share_consumer_close(c, 30000);
    printf("CLOSE %s\n", gr_err_name(ce));
    gr_share_consumer_destroy(c);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s BOOTSTRAP setup|produce|consume ...\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(argv[2], "setup")) return setup(argv[1], argc - 3, argv + 3);
    if (!strcmp(argv[2], "produce")) return produce(argv[1], argc - 3, argv + 3);
    if (!strcmp(argv[2], "consume")) return consume(argv[1], argc - 3, argv + 3);
    fprintf(stderr, "unknown command %s\n", argv[2]);
    return 2;
}
