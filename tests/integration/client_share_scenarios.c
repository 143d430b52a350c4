/* Share-consumer scenarios over libgregor's public API, for
 * tests/integration/test_libgregor_share.sh. Each prints lines that must be identical
 * against gregord and Apache Kafka (error names, offsets, delivery counts).
 *
 *   client_share_scenarios BOOTSTRAP SCENARIO TOPIC GROUP
 * The topic (1 partition) holds records k0.. (see client_share_consume produce) and the
 * group has share.auto.offset.reset=earliest; lock-related scenarios expect
 * share.record.lock.duration.ms=1000. Scenarios: explicit, refusal, async, expiry, renew,
 * wakeup, close_explicit, close_implicit, unknown, unreachable, config. */
#include <gregor/gregor.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *bs, *topic, *group;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static gr_share_consumer_t *make(const char *mode, const char *extra_k, const char *extra_v) {
    char err[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_conf_set(conf, "group.id", group, err, sizeof(err));
    gr_conf_set(conf, "share.acknowledgement.mode", mode, err, sizeof(err));
    if (extra_k) gr_conf_set(conf, extra_k, extra_v, err, sizeof(err));
    gr_share_consumer_t *c = NULL;
    if (gr_share_consumer_new(conf, &c, err, sizeof(err))) {
        printf("new: %s\n", err);
        exit(1);
    }
    gr_conf_destroy(conf);
    const char *t[] = {topic};
    gr_share_consumer_subscribe(c, t, 1);
    return c;
}

/* Poll until at least want records arrived (or max_ms); returns the batch of the last poll. */
static gr_share_batch_t *poll_for(gr_share_consumer_t *c, size_t want, int max_ms, gr_err_t *errp) {
    int64_t t0 = now_ms();
    gr_share_batch_t *b = NULL;
    *errp = GR_ERR_NONE;
    while (now_ms() - t0 < max_ms) {
        *errp = gr_share_consumer_poll(c, 200, &b);
        if (*errp) return NULL;
        if (gr_share_batch_count(b) >= want) return b;
    }
    return b;
}

static void print_batch(const char *label, gr_share_batch_t *b) {
    printf("%s:", label);
    for (size_t i = 0; i < gr_share_batch_count(b); i++) {
        const gr_share_record_t *r = gr_share_batch_record(b, i);
        printf(" %lld:%d", (long long)gr_share_record_offset(r), gr_share_record_delivery_count(r));
    }
    printf("%s\n", gr_share_batch_count(b) ? "" : " none");
}

static void print_commit(const char *label, gr_err_t err, gr_share_ack_result_t *res) {
    printf("%s: %s rows=%zu", label, gr_err_name(err), gr_share_ack_result_count(res));
    for (size_t i = 0; i < gr_share_ack_result_count(res); i++)
        printf(" [p%d %s offsets=%zu]", (int)gr_share_ack_result_partition(res, i),
               gr_err_name(gr_share_ack_result_error(res, i)), gr_share_ack_result_offsets(res, i, NULL));
    printf("\n");
    gr_share_ack_result_destroy(res);
}

static gr_err_t commit(gr_share_consumer_t *c, const char *label) {
    gr_share_ack_result_t *res = NULL;
    gr_err_t e = gr_share_consumer_commit_sync(c, 10000, &res);
    print_commit(label, e, res);
    return e;
}

/* ACCEPT offset 0, RELEASE 1 (comes back with delivery count 2), REJECT 2 (never again). */
static int explicit_acks(void) {
    gr_share_consumer_t *c = make("explicit", NULL, NULL);
    gr_err_t e;
    gr_share_batch_t *b = poll_for(c, 3, 20000, &e);
    print_batch("first", b);
    for (size_t i = 0; i < gr_share_batch_count(b); i++) {
        const gr_share_record_t *r = gr_share_batch_record(b, i);
        int64_t o = gr_share_record_offset(r);
        gr_share_consumer_acknowledge(c, r, o == 0 ? GR_ACK_ACCEPT : o == 1 ? GR_ACK_RELEASE : GR_ACK_REJECT);
    }
    commit(c, "commit");
    b = poll_for(c, 1, 10000, &e);
    print_batch("redelivered", b);
    for (size_t i = 0; i < gr_share_batch_count(b); i++)
        gr_share_consumer_acknowledge(c, gr_share_batch_record(b, i), GR_ACK_ACCEPT);
    commit(c, "commit again");
    b = poll_for(c, 1, 3000, &e);
    print_batch("afterwards", b);
    printf("close: %s\n", gr_err_name(gr_share_consumer_close(c, 10000)));
    gr_share_consumer_destroy(c);
    return 0;
}

/* poll refused while records are unacknowledged; ack them; poll works again. */
static int refusal(void) {
    gr_share_consumer_t *c = make("explicit", NULL, NULL);
    gr_err_t e;
    gr_share_batch_t *b = poll_for(c, 2, 20000, &e);
    print_batch("got", b);
    gr_share_batch_t *b2 = NULL;
    e = gr_share_consumer_poll(c, 100, &b2);
    printf("poll again: %s \"%s\"\n", gr_err_name(e), gr_share_consumer_last_error(c));
    printf("batch still valid: %zu\n", gr_share_batch_count(b));
    e = gr_share_consumer_acknowledge(c, gr_share_batch_record(b, 0), GR_ACK_ACCEPT);
    printf("ack first: %s\n", gr_err_name(e));
    e = gr_share_consumer_poll(c, 100, &b2);
    printf("poll with one left: %s\n", gr_err_name(e));
    gr_err_t all = GR_ERR_NONE;
    for (size_t i = 1; i < gr_share_batch_count(b); i++)
        if ((e = gr_share_consumer_acknowledge_offset(c, topic, 0, gr_share_record_offset(gr_share_batch_record(b, i)),
                                                      GR_ACK_ACCEPT)))
            all = e;
    printf("ack the rest by offset: %s\n", gr_err_name(all));
    e = gr_share_consumer_acknowledge_offset(c, topic, 0, 999999, GR_ACK_ACCEPT);
    printf("ack unknown offset: %s\n", gr_err_name(e));
    e = gr_share_consumer_poll(c, 1000, &b2);
    printf("poll after acks: %s\n", gr_err_name(e));
    commit(c, "commit");
    gr_share_consumer_destroy(c);
    gr_share_consumer_t *ic = make("implicit", NULL, NULL);
    b = poll_for(ic, 1, 10000, &e);
    e = gr_share_consumer_acknowledge(ic, gr_share_batch_record(b, 0), GR_ACK_ACCEPT);
    printf("implicit acknowledge: %s \"%s\"\n", gr_err_name(e), gr_share_consumer_last_error(ic));
    gr_share_consumer_destroy(ic);
    return 0;
}

static int cb_calls;
static size_t cb_offsets;
static void on_commit(gr_share_consumer_t *c, const gr_share_ack_result_t *res, void *opaque) {
    (void)c, (void)opaque;
    cb_calls++;
    for (size_t i = 0; i < gr_share_ack_result_count(res); i++) {
        cb_offsets += gr_share_ack_result_offsets(res, i, NULL);
        if (gr_share_ack_result_error(res, i))
            printf("callback error: %s\n", gr_err_name(gr_share_ack_result_error(res, i)));
    }
}

/* commit_async: the callback reports the acknowledged offsets from a later poll. */
static int async_commit(void) {
    gr_share_consumer_t *c = make("implicit", NULL, NULL);
    gr_share_consumer_set_commit_cb(c, on_commit, NULL);
    gr_err_t e;
    gr_share_batch_t *b = poll_for(c, 3, 20000, &e);
    size_t n = gr_share_batch_count(b);
    printf("commit_async: %s\n", gr_err_name(gr_share_consumer_commit_async(c)));
    for (int i = 0; i < 50 && !cb_calls; i++) gr_share_consumer_poll(c, 100, &b);
    printf("callback called: %s, offsets acknowledged = records polled: %s\n", cb_calls ? "yes" : "no",
           cb_offsets == n ? "yes" : "no");
    gr_share_consumer_destroy(c);
    return 0;
}

/* The lock (1 s) expires while processing: another member gets the record (count 2);
 * the late ACCEPT fails with INVALID_RECORD_STATE for the partition. */
static int expiry(void) {
    gr_share_consumer_t *a = make("explicit", NULL, NULL);
    gr_err_t e;
    gr_share_batch_t *b = poll_for(a, 1, 20000, &e);
    print_batch("A got", b);
    printf("A lock timeout: %d\n", gr_share_consumer_acquisition_lock_timeout_ms(a));
    gr_share_consumer_t *o = make("explicit", NULL, NULL);
    gr_share_batch_t *ob = poll_for(o, 1, 20000, &e);
    print_batch("B got", ob);
    for (size_t i = 0; i < gr_share_batch_count(b); i++) /* B holds them now */
        gr_share_consumer_acknowledge(a, gr_share_batch_record(b, i), GR_ACK_ACCEPT);
    commit(a, "A late commit");
    for (size_t i = 0; i < gr_share_batch_count(ob); i++)
        gr_share_consumer_acknowledge(o, gr_share_batch_record(ob, i), GR_ACK_ACCEPT);
    commit(o, "B commit");
    gr_share_consumer_destroy(o);
    gr_share_consumer_destroy(a);
    return 0;
}

/* RENEW keeps a record past several 1 s lock durations (the KIP-1222 pattern of the
 * seeds): the other member never gets it; the record is returned again by a later poll. */
static int renew(void) {
    gr_share_consumer_t *a = make("explicit", NULL, NULL), *o = make("explicit", NULL, NULL);
    gr_err_t e;
    gr_share_batch_t *b = poll_for(a, 1, 20000, &e), *ob;
    print_batch("A got", b);
    const gr_share_record_t *r = gr_share_batch_record(b, 0);
    int64_t off = r ? gr_share_record_offset(r) : -1, t0 = now_ms();
    int renew_errors = 0, other_got = 0, replayed = 0, rounds = 0;
    while (r && now_ms() - t0 < 4500) {
        e = gr_share_consumer_acknowledge(a, r, GR_ACK_RENEW);
        gr_share_ack_result_t *res = NULL;
        e = e ? e : gr_share_consumer_commit_sync(a, 5000, &res);
        renew_errors += e != GR_ERR_NONE;
        if (e) printf("renew: %s %s\n", gr_err_name(e), gr_share_consumer_last_error(a));
        gr_share_ack_result_destroy(res);
        rounds++;
        int64_t t1 = now_ms(); /* "long processing": the other member polls meanwhile */
        while (now_ms() - t1 < 400)
            if (!gr_share_consumer_poll(o, 100, &ob)) other_got += (int)gr_share_batch_count(ob);
        if (rounds % 3 == 0) { /* a poll returns the renewed record again */
            b = poll_for(a, 1, 2000, &e);
            r = gr_share_batch_record(b, 0);
            replayed += r && gr_share_record_offset(r) == off;
        }
    }
    printf("renewed past %d lock durations: %s\n", 4, rounds >= 8 && !renew_errors ? "yes" : "no");
    printf("other member got it: %s\n", other_got ? "yes" : "no");
    printf("returned again by poll: %s\n", replayed >= 2 ? "yes" : "no");
    if (r) gr_share_consumer_acknowledge(a, r, GR_ACK_ACCEPT);
    commit(a, "final accept");
    gr_share_consumer_destroy(o);
    gr_share_consumer_destroy(a);
    return 0;
}

static void *waker(void *arg) {
    usleep(500000);
    gr_share_consumer_wakeup(arg);
    return NULL;
}

/* wakeup from another thread ends a long poll with _WAKEUP. */
static int wakeup(void) {
    gr_share_consumer_t *c = make("implicit", NULL, NULL);
    gr_share_batch_t *b;
    gr_share_consumer_poll(c, 3000, &b); /* join; the topic is empty */
    pthread_t th;
    pthread_create(&th, NULL, waker, c);
    int64_t t0 = now_ms();
    gr_err_t e = gr_share_consumer_poll(c, 20000, &b);
    int64_t el = now_ms() - t0;
    pthread_join(th, NULL);
    printf("poll: %s after the wakeup: %s\n", gr_err_name(e), el < 2000 ? "yes" : "no");
    e = gr_share_consumer_poll(c, 100, &b);
    printf("next poll: %s\n", gr_err_name(e));
    gr_share_consumer_wakeup(c);
    gr_share_ack_result_t *res = NULL;
    printf("commit_sync after wakeup: %s\n", gr_err_name(gr_share_consumer_commit_sync(c, 1000, &res)));
    gr_share_ack_result_destroy(res);
    printf("close: %s\n", gr_err_name(gr_share_consumer_close(c, 10000)));
    gr_share_consumer_destroy(c);
    return 0;
}

/* close releases what is not acknowledged: another member gets exactly those records. */
static int close_release(const char *mode) {
    gr_share_consumer_t *a = make(mode, NULL, NULL);
    gr_err_t e;
    gr_share_batch_t *b = poll_for(a, 3, 20000, &e);
    print_batch("A got", b);
    if (!strcmp(mode, "explicit") && gr_share_batch_count(b))
        gr_share_consumer_acknowledge(a, gr_share_batch_record(b, 0), GR_ACK_ACCEPT);
    int64_t t0 = now_ms();
    printf("A close: %s\n", gr_err_name(gr_share_consumer_close(a, 10000)));
    printf("close quick: %s\n", now_ms() - t0 < 5000 ? "yes" : "no");
    gr_share_consumer_destroy(a);
    gr_share_consumer_t *o = make("implicit", NULL, NULL);
    gr_share_batch_t *ob;
    printf("B got:");
    for (int64_t t1 = now_ms(), last = 0; now_ms() - t1 < 20000 && (!last || now_ms() - last < 2000);) {
        if (gr_share_consumer_poll(o, 200, &ob)) break;
        for (size_t i = 0; i < gr_share_batch_count(ob); i++) {
            const gr_share_record_t *r = gr_share_batch_record(ob, i);
            /* Both brokers keep the delivery count on a session-close release (spec 1.3
             * rule 3 says decrement; Kafka 4.4.0 does not); the count goes to stderr only. */
            printf(" %lld", (long long)gr_share_record_offset(r));
            fprintf(stderr, "B got %lld with delivery count %d\n", (long long)gr_share_record_offset(r),
                    gr_share_record_delivery_count(r));
            last = now_ms();
        }
    }
    printf("\n");
    gr_share_consumer_destroy(o);
    return 0;
}

static int unknown(void) {
    gr_share_consumer_t *c = make("implicit", NULL, NULL);
    gr_share_batch_t *b;
    size_t n = 0;
    gr_err_t e = GR_ERR_NONE;
    int64_t t0 = now_ms();
    while (!e && now_ms() - t0 < 3000) {
        e = gr_share_consumer_poll(c, 500, &b);
        n += gr_share_batch_count(b);
    }
    printf("unknown topic: %s records=%zu subscription=%s\n", gr_err_name(e), n, gr_share_consumer_subscription(c, 0));
    gr_share_consumer_destroy(c);
    return 0;
}

static int unreachable(void) {
    gr_share_consumer_t *c = make("implicit", "reconnect.backoff.max.ms", "200");
    gr_share_batch_t *b;
    int64_t t0 = now_ms();
    gr_err_t e = gr_share_consumer_poll(c, 2000, &b);
    printf("poll: %s within 5 s: %s\n", gr_err_name(e), now_ms() - t0 < 5000 ? "yes" : "no");
    printf("names the connect error: %s\n",
           strstr(gr_share_consumer_last_error(c), "Connection refused") ? "yes" : "no");
    fprintf(stderr, "%s\n", gr_share_consumer_last_error(c));
    printf("close: %s\n", gr_err_name(gr_share_consumer_close(c, 1000)));
    gr_share_consumer_destroy(c);
    return 0;
}

static int config(void) {
    static const char *bad[][2] = {{"isolation.level", "read_committed"},
                                   {"auto.offset.reset", "earliest"},
                                   {"enable.auto.commit", "false"},
                                   {"group.instance.id", "x"},
                                   {"session.timeout.ms", "10000"},
                                   {"heartbeat.interval.ms", "1000"},
                                   {"group.protocol", "consumer"},
                                   {"gregor.consumer.fetch.ahead", "false"},
                                   {NULL, NULL}};
    char err[512];
    for (int i = 0; bad[i][0]; i++) {
        gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
        gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
        gr_conf_set(conf, "group.id", "g", err, sizeof(err));
        gr_conf_set(conf, bad[i][0], bad[i][1], err, sizeof(err));
        gr_share_consumer_t *c = NULL;
        gr_err_t e = gr_share_consumer_new(conf, &c, err, sizeof(err));
        printf("%s: %s %s\n", bad[i][0], gr_err_name(e), e ? err : "");
        gr_share_consumer_destroy(c);
        gr_conf_destroy(conf);
    }
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_share_consumer_t *c = NULL;
    gr_err_t e = gr_share_consumer_new(conf, &c, err, sizeof(err));
    printf("no group.id: %s %s\n", gr_err_name(e), e ? err : "");
    e = gr_conf_set(conf, "share.acknowledgement.mode", "sometimes", err, sizeof(err));
    printf("bad mode: %s %s\n", gr_err_name(e), err);
    gr_conf_destroy(conf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s BOOTSTRAP SCENARIO TOPIC GROUP\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    bs = argv[1], topic = argv[3], group = argv[4];
    const char *s = argv[2];
    if (!strcmp(s, "explicit")) return explicit_acks();
    if (!strcmp(s, "refusal")) return refusal();
    if (!strcmp(s, "async")) return async_commit();
    if (!strcmp(s, "expiry")) return expiry();
    if (!strcmp(s, "renew")) return renew();
    if (!strcmp(s, "wakeup")) return wakeup();
    if (!strcmp(s, "close_explicit")) return close_release("explicit");
    if (!strcmp(s, "close_implicit")) return close_release("implicit");
    if (!strcmp(s, "unknown")) return unknown();
    if (!strcmp(s, "unreachable")) return unreachable();
    if (!strcmp(s, "config")) return config();
    fprintf(stderr, "unknown scenario %s\n", s);
    return 2;
}
