/* The libgregor driver of tests/interop/test_share_crossclient.sh: the share-consumer
 * scenarios that the Java (ShareXClient.java) and @kafkats/client (share_xclient.mjs)
 * drivers run too. Every driver prints the same normalized lines (offsets, delivery
 * counts, error names; never times), which the test compares with one expected transcript.
 *
 *   client_share_xclient BOOTSTRAP PREFIX [SCENARIO...]
 * Scenario S uses topic PREFIX-S (1 partition) and group PREFIX-S-g, created and configured
 * by the test (share.auto.offset.reset=earliest, lock durations, delivery limit). The driver
 * produces the records itself, after its consumers exist, with libgregor's producer.
 * Scenarios (default: all, in this order):
 *   drain    implicit mode, 10 records: each delivered once (count 1), nothing afterwards;
 *   acks     explicit ACCEPT 0 / RELEASE 1 / REJECT 2 + commit: only 1 comes back, count 2;
 *   refusal  explicit mode: poll with unacknowledged records is refused, acks still work;
 *   close    two members, the one holding the records closes without acknowledging: the
 *            other gets them;
 *   expiry   two members, the holder's lock (1 s) expires: the other gets the records
 *            (count 2), the holder's late ACCEPT fails for the partition;
 *   limit    delivery limit 2: a record RELEASEd twice is archived, not delivered again;
 *   renew    two members, lock 1 s: the holder RENEWs its record 10 times about 0.3 s apart
 *            (3 s and more, several lock durations; each time the record comes back through
 *            poll with its delivery count unchanged) while the other member polls and gets
 *            nothing, then ACCEPTs it; nothing is delivered afterwards. */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *bs, *prefix;
static gr_producer_t *producer;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void names(const char *scen, char *topic, char *group, size_t size) {
    snprintf(topic, size, "%s-%s", prefix, scen);
    snprintf(group, size, "%s-%s-g", prefix, scen);
}

static gr_share_consumer_t *make(const char *scen, const char *mode) {
    char err[512], topic[256], group[256];
    names(scen, topic, group, sizeof(topic));
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_conf_set(conf, "group.id", group, err, sizeof(err));
    gr_conf_set(conf, "share.acknowledgement.mode", mode, err, sizeof(err));
    gr_share_consumer_t *c = NULL;
    if (gr_share_consumer_new(conf, &c, err, sizeof(err))) {
        fprintf(stderr, "share consumer: %s\n", err);
        exit(1);
    }
    gr_conf_destroy(conf);
    const char *t[] = {topic};
    gr_share_consumer_subscribe(c, t, 1);
    return c;
}

/* n records key k<i> value v<i> to partition 0, flushed together (one batch). */
static void produce(const char *scen, int n) {
    char err[512], topic[256], group[256];
    names(scen, topic, group, sizeof(topic));
    if (!producer) {
        gr_conf_t *conf = gr_conf_new(GR_CONF_PRODUCER);
        gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
        if (gr_producer_new(conf, &producer, err, sizeof(err))) {
            fprintf(stderr, "producer: %s\n", err);
            exit(1);
        }
        gr_conf_destroy(conf);
    }
    for (int i = 0; i < n; i++) {
        char k[32], v[32];
        int kl = snprintf(k, sizeof(k), "k%d", i), vl = snprintf(v, sizeof(v), "v%d", i);
        if (gr_producer_send(producer, topic, 0, k, (size_t)kl, v, (size_t)vl, NULL, GR_TIMESTAMP_NOW, NULL, NULL)) {
            fprintf(stderr, "send: %s\n", gr_producer_last_error(producer));
            exit(1);
        }
    }
    if (gr_producer_flush(producer, 30000)) {
        fprintf(stderr, "flush: %s\n", gr_producer_last_error(producer));
        exit(1);
    }
}

/* "offset:count" of every record of b, appended to line. */
static void append_batch(char *line, size_t size, gr_share_batch_t *b) {
    for (size_t i = 0; b && i < gr_share_batch_count(b); i++) {
        const gr_share_record_t *r = gr_share_batch_record(b, i);
        size_t l = strlen(line);
        snprintf(line + l, size - l, " %lld:%d", (long long)gr_share_record_offset(r),
                 gr_share_record_delivery_count(r));
    }
}

static void print_line(const char *scen, const char *what, const char *line) {
    printf("%s %s:%s\n", scen, what, *line ? line : " none");
}

/* Polls until a poll returns records (or max_ms); returns that batch (NULL if none). */
static gr_share_batch_t *poll_some(gr_share_consumer_t *c, int max_ms) {
    int64_t t0 = now_ms();
    gr_share_batch_t *b = NULL;
    while (now_ms() - t0 < max_ms) {
        gr_err_t e = gr_share_consumer_poll(c, 200, &b);
        if (e) {
            fprintf(stderr, "poll: %s %s\n", gr_err_name(e), gr_share_consumer_last_error(c));
            return NULL;
        }
        if (gr_share_batch_count(b)) return b;
    }
    return NULL;
}

/* Explicit mode: polls for ms, ACCEPTing and committing whatever comes; the deliveries
 * are appended to line. */
static void poll_accept_for(gr_share_consumer_t *c, int ms, char *line, size_t size) {
    int64_t t0 = now_ms();
    while (now_ms() - t0 < ms) {
        gr_share_batch_t *b = NULL;
        if (gr_share_consumer_poll(c, 200, &b)) return;
        append_batch(line, size, b);
        for (size_t i = 0; i < gr_share_batch_count(b); i++)
            gr_share_consumer_acknowledge(c, gr_share_batch_record(b, i), GR_ACK_ACCEPT);
        if (gr_share_batch_count(b)) gr_share_consumer_commit_sync(c, 10000, NULL);
    }
}

/* commit_sync outcome: NONE when every partition row is NONE, else the first error. */
static const char *commit(gr_share_consumer_t *c) {
    gr_share_ack_result_t *res = NULL;
    gr_err_t e = gr_share_consumer_commit_sync(c, 10000, &res);
    for (size_t i = 0; !e && i < gr_share_ack_result_count(res); i++) e = gr_share_ack_result_error(res, i);
    gr_share_ack_result_destroy(res);
    return gr_err_name(e);
}

static void ack_all(gr_share_consumer_t *c, gr_share_batch_t *b, gr_ack_type_t type) {
    for (size_t i = 0; b && i < gr_share_batch_count(b); i++)
        gr_share_consumer_acknowledge(c, gr_share_batch_record(b, i), type);
}

static void drain(void) {
    const char *s = "drain";
    gr_share_consumer_t *c = make(s, "implicit");
    produce(s, 10);
    char line[2048] = "", more[2048] = "";
    int n = 0;
    for (int64_t t0 = now_ms(); n < 10 && now_ms() - t0 < 20000;) {
        gr_share_batch_t *b = NULL;
        if (gr_share_consumer_poll(c, 200, &b)) break;
        append_batch(line, sizeof(line), b);
        n += (int)gr_share_batch_count(b);
    }
    /* The next polls accept the last batch; nothing may come back (lock 1 s). */
    for (int64_t t0 = now_ms(); now_ms() - t0 < 2500;) {
        gr_share_batch_t *b = NULL;
        if (gr_share_consumer_poll(c, 200, &b)) break;
        append_batch(more, sizeof(more), b);
    }
    print_line(s, "got", line);
    print_line(s, "more", more);
    gr_share_consumer_destroy(c);
}

static void acks(void) {
    const char *s = "acks";
    gr_share_consumer_t *c = make(s, "explicit");
    produce(s, 3);
    char line[512] = "", more[512] = "";
    gr_share_batch_t *b = poll_some(c, 20000);
    append_batch(line, sizeof(line), b);
    print_line(s, "got", line);
    for (size_t i = 0; b && i < gr_share_batch_count(b); i++) {
        const gr_share_record_t *r = gr_share_batch_record(b, i);
        int64_t o = gr_share_record_offset(r);
        gr_share_consumer_acknowledge(c, r, o == 0 ? GR_ACK_ACCEPT : o == 1 ? GR_ACK_RELEASE : GR_ACK_REJECT);
    }
    printf("%s commit: %s\n", s, commit(c));
    line[0] = 0;
    b = poll_some(c, 10000);
    append_batch(line, sizeof(line), b);
    print_line(s, "got", line);
    ack_all(c, b, GR_ACK_ACCEPT);
    printf("%s commit: %s\n", s, commit(c));
    poll_accept_for(c, 2500, more, sizeof(more));
    print_line(s, "more", more);
    gr_share_consumer_destroy(c);
}

static void refusal(void) {
    const char *s = "refusal";
    gr_share_consumer_t *c = make(s, "explicit");
    produce(s, 3);
    char line[512] = "", more[512] = "";
    gr_share_batch_t *b = poll_some(c, 20000), *b2 = NULL;
    append_batch(line, sizeof(line), b);
    print_line(s, "got", line);
    gr_err_t e = gr_share_consumer_poll(c, 100, &b2);
    printf("%s poll with unacknowledged records: %s\n", s,
           e == GR_ERR__STATE ? "refused"
           : e                ? gr_err_name(e)
                              : "not refused");
    ack_all(c, b, GR_ACK_ACCEPT);
    printf("%s commit: %s\n", s, commit(c));
    poll_accept_for(c, 2500, more, sizeof(more));
    print_line(s, "more", more);
    gr_share_consumer_destroy(c);
}

/* Two members of one group poll in turn until one of them gets records: the holder. */
static gr_share_batch_t *first_holder(gr_share_consumer_t *m[2], int *holder) {
    for (int64_t t0 = now_ms(); now_ms() - t0 < 20000;) {
        for (int i = 0; i < 2; i++) {
            gr_share_batch_t *b = NULL;
            if (gr_share_consumer_poll(m[i], 100, &b)) continue;
            if (gr_share_batch_count(b)) {
                *holder = i;
                return b;
            }
        }
    }
    return NULL;
}

static void close_release(void) {
    const char *s = "close";
    gr_share_consumer_t *m[2] = {make(s, "explicit"), make(s, "explicit")};
    produce(s, 3);
    int h = 0;
    char line[512] = "";
    gr_share_batch_t *b = first_holder(m, &h);
    append_batch(line, sizeof(line), b);
    print_line(s, "holder got", line);
    printf("%s holder close: %s\n", s, gr_err_name(gr_share_consumer_close(m[h], 10000)));
    /* The lock is 30 s: records that arrive within 15 s were released by the close. */
    line[0] = 0;
    b = poll_some(m[1 - h], 15000);
    append_batch(line, sizeof(line), b);
    print_line(s, "other got", line);
    ack_all(m[1 - h], b, GR_ACK_ACCEPT);
    printf("%s other commit: %s\n", s, commit(m[1 - h]));
    gr_share_consumer_destroy(m[0]);
    gr_share_consumer_destroy(m[1]);
}

static void expiry(void) {
    const char *s = "expiry";
    gr_share_consumer_t *m[2] = {make(s, "explicit"), make(s, "explicit")};
    produce(s, 3);
    int h = 0;
    char line[512] = "";
    gr_share_batch_t *hb = first_holder(m, &h);
    append_batch(line, sizeof(line), hb);
    print_line(s, "holder got", line);
    line[0] = 0;
    gr_share_batch_t *ob = poll_some(m[1 - h], 15000); /* after the holder's 1 s lock expired */
    append_batch(line, sizeof(line), ob);
    print_line(s, "other got", line);
    ack_all(m[h], hb, GR_ACK_ACCEPT);
    printf("%s holder late commit: %s\n", s, commit(m[h]));
    ack_all(m[1 - h], ob, GR_ACK_ACCEPT);
    printf("%s other commit: %s\n", s, commit(m[1 - h]));
    gr_share_consumer_destroy(m[0]);
    gr_share_consumer_destroy(m[1]);
}

static void limit(void) {
    const char *s = "limit";
    gr_share_consumer_t *c = make(s, "explicit");
    produce(s, 1);
    for (int round = 0; round < 2; round++) {
        char line[256] = "";
        gr_share_batch_t *b = poll_some(c, round ? 10000 : 20000);
        append_batch(line, sizeof(line), b);
        print_line(s, "got", line);
        ack_all(c, b, GR_ACK_RELEASE);
        printf("%s commit: %s\n", s, commit(c));
    }
    char more[256] = "";
    poll_accept_for(c, 2500, more, sizeof(more));
    print_line(s, "more", more);
    gr_share_consumer_destroy(c);
}

static void renew(void) {
    const char *s = "renew";
    gr_share_consumer_t *m[2] = {make(s, "explicit"), make(s, "explicit")};
    produce(s, 1);
    int h = 0;
    char line[512] = "", other[512] = "", more[512] = "";
    gr_share_batch_t *b = first_holder(m, &h);
    append_batch(line, sizeof(line), b);
    print_line(s, "holder got", line);
    const char *renewals = b ? "NONE" : "no record";
    const gr_share_record_t *r = b ? gr_share_batch_record(b, 0) : NULL;
    for (int round = 0; r && round < 10; round++) {
        gr_err_t e = gr_share_consumer_acknowledge(m[h], r, GR_ACK_RENEW);
        const char *res = e ? gr_err_name(e) : commit(m[h]);
        if (strcmp(res, "NONE") && !strcmp(renewals, "NONE")) renewals = res;
        poll_accept_for(m[1 - h], 300, other, sizeof(other)); /* "processing" meanwhile */
        b = poll_some(m[h], 2000);                            /* the renewed record comes back */
        r = b ? gr_share_batch_record(b, 0) : NULL;
        if (!r && !strcmp(renewals, "NONE")) renewals = "record not returned by poll";
    }
    printf("%s renewals: %s\n", s, renewals);
    line[0] = 0;
    append_batch(line, sizeof(line), b);
    print_line(s, "holder has after renewals", line);
    print_line(s, "other got", other);
    ack_all(m[h], b, GR_ACK_ACCEPT);
    printf("%s holder accept: %s\n", s, commit(m[h]));
    poll_accept_for(m[1 - h], 2500, more, sizeof(more));
    print_line(s, "other more", more);
    gr_share_consumer_destroy(m[0]);
    gr_share_consumer_destroy(m[1]);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s BOOTSTRAP PREFIX [drain|acks|refusal|close|expiry|limit|renew ...]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    bs = argv[1], prefix = argv[2];
    static const char *all[] = {"drain", "acks", "refusal", "close", "expiry", "limit", "renew"};
    const char *const *list = argc > 3 ? (const char *const *)argv + 3 : all;
    int n = argc > 3 ? argc - 3 : 7;
    for (int i = 0; i < n; i++) {
        const char *s = list[i];
        int64_t t0 = now_ms();
        if (!strcmp(s, "drain"))
            drain();
        else if (!strcmp(s, "acks"))
            acks();
        else if (!strcmp(s, "refusal"))
            refusal();
        else if (!strcmp(s, "close"))
            close_release();
        else if (!strcmp(s, "expiry"))
            expiry();
        else if (!strcmp(s, "limit"))
            limit();
        else if (!strcmp(s, "renew"))
            renew();
        else {
            fprintf(stderr, "unknown scenario %s\n", s);
            return 2;
        }
        fprintf(stderr, "[libgregor] scenario %s took %lld ms\n", s, (long long)(now_ms() - t0));
    }
    gr_producer_destroy(producer);
    return 0;
}
