/* gregor share-groups --redrive --group G --from-dlq [--dlq-topic T] [--to-topic T2]
 *   [--dry-run] [--max-records N] [--skip-missing] [--output json]
 * Re-produces the dead letters of share group G (the records of the DLQ topic whose
 * __dlq.errors.group header is G, as Apache Kafka 4.4.0 writes them: docs/dlq.md §3) to
 * their source topic and partition, with provenance headers (gregor.redrive.*), acks=all
 * and the idempotent producer. Idempotent without server-side state (docs/dlq.md,
 * "Redrive"): before producing, the target topics are scanned from the first offset at or
 * after the earliest dead letter's timestamp for provenance headers, and DLQ records found
 * there are not produced again. Steps: read the DLQ (redrive_read.c), scan the targets,
 * decide (redrive_plan.c), fetch the payloads Kafka did not copy from the source, produce. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "redrive_read.h"
#include "share_groups.h"

enum { ST_PLAN = 0, ST_MISSING, ST_NO_TARGET, ST_LIMIT, ST_SENT, ST_FAILED };

typedef struct rd_ent {
    int32_t dlq_part;
    int64_t dlq_off, ts;
    rd_dlq_t d;
    char *key, *val; /* NULL = null */
    size_t klen, vlen;
    bool payload; /* key or value present (from the DLQ record or fetched from the source) */
    bool from_source;
    rd_hdr_t *src_h; /* the source record's headers when fetched (copies) */
    size_t n_src_h;
    rd_action_t act;
    int state;
    const char *target;
    int32_t target_part;
    int64_t new_off;
} rd_ent_t;

typedef struct rd_run {
    const cli_vals_t *v;
    const char *group, *dlq, *dlq_id;
    rd_ent_t *e;
    size_t n, cap;
    uint64_t other_groups, malformed, not_dlq;
    rd_set_t done;
} rd_run_t;

static char *memdup0(const void *p, size_t len) {
    char *s = malloc(len + 1);
    if (!s) abort();
    if (len) memcpy(s, p, len);
    s[len] = 0;
    return s;
}

static void ent_free(rd_ent_t *e) {
    rd_dlq_free(&e->d);
    free(e->key), free(e->val);
    for (size_t i = 0; i < e->n_src_h; i++) free((char *)e->src_h[i].key), free((void *)e->src_h[i].val);
    free(e->src_h);
}

/* Copy key and value of m into e (NULL stays NULL). */
static void take_payload(rd_ent_t *e, const gr_consumer_msg_t *m) {
    const void *k = gr_consumer_msg_key(m, &e->klen), *val = gr_consumer_msg_value(m, &e->vlen);
    e->key = k ? memdup0(k, e->klen) : NULL;
    e->val = val ? memdup0(val, e->vlen) : NULL;
    e->payload = k || val;
}

/* ---- 1. the DLQ topic ---- */

static bool on_dlq(void *opaque, const gr_consumer_msg_t *m, const rd_hdr_t *h, size_t nh) {
    rd_run_t *r = opaque;
    rd_dlq_t d;
    rd_parse_t pr = rd_parse_dlq(h, nh, &d);
    if (pr == RD_NOT_DLQ) return r->not_dlq++, true;
    if (!d.group || strcmp(d.group, r->group)) {
        r->other_groups++;
        rd_dlq_free(&d);
        return true;
    }
    if (pr == RD_BAD) {
        fprintf(stderr, "Malformed dead letter at %s partition %d offset %" PRId64 " (its __dlq.errors.* headers)\n",
                r->dlq, (int)gr_consumer_msg_partition(m), gr_consumer_msg_offset(m));
        r->malformed++;
        rd_dlq_free(&d);
        return true;
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->e = realloc(r->e, r->cap * sizeof(*r->e));
        if (!r->e) abort();
    }
    rd_ent_t *e = &r->e[r->n++];
    memset(e, 0, sizeof(*e));
    e->dlq_part = gr_consumer_msg_partition(m);
    e->dlq_off = gr_consumer_msg_offset(m);
    e->ts = gr_consumer_msg_timestamp(m, NULL);
    e->d = d;
    e->new_off = -1;
    take_payload(e, m);
    return true;
}

static int by_dlq_pos(const void *a, const void *b) {
    const rd_ent_t *x = a, *y = b;
    if (x->dlq_part != y->dlq_part) return x->dlq_part < y->dlq_part ? -1 : 1;
    return x->dlq_off < y->dlq_off ? -1 : x->dlq_off > y->dlq_off;
}

/* Ranges [log start, end) of every partition of topic, or from the first offset at or after
 * ts when ts >= 0 (partitions without such an offset are left out). NULL after printing why. */
static rd_range_t *topic_ranges(const cli_vals_t *v, const char *topic, int64_t ts, size_t *n) {
    gr_consumer_t *c = rd_consumer(v);
    if (!c) return NULL;
    int32_t parts = 0;
    rd_range_t *r = NULL;
    if (gr_consumer_partition_count(c, topic, cli_timeout(v), &parts) != GR_ERR_NONE) goto err;
    r = calloc((size_t)parts + 1, sizeof(*r));
    if (!r) abort();
    for (int32_t p = 0; p < parts; p++) {
        r[p].topic = topic, r[p].partition = p;
        if (gr_consumer_query_offset(c, topic, p, GR_OFFSET_END, cli_timeout(v), &r[p].end) != GR_ERR_NONE ||
            gr_consumer_query_offset(c, topic, p, ts >= 0 ? ts : GR_OFFSET_BEGINNING, cli_timeout(v), &r[p].start) !=
                GR_ERR_NONE)
            goto err;
        if (r[p].start < 0) r[p].start = r[p].end; /* nothing at or after ts */
    }
    *n = (size_t)parts;
    gr_consumer_destroy(c);
    return r;
err:
    cli_fail("%s: %s", topic, gr_consumer_last_error(c));
    free(r);
    gr_consumer_destroy(c);
    return NULL;
}

static int read_dlq(rd_run_t *r) {
    size_t n;
    rd_range_t *rg = topic_ranges(r->v, r->dlq, -1, &n);
    if (!rg) return CLI_FAIL;
    int rc = rd_read(r->v, rg, n, on_dlq, r);
    free(rg);
    if (r->n) qsort(r->e, r->n, sizeof(*r->e), by_dlq_pos);
    return rc;
}

/* ---- 2. the targets: provenance already there ---- */

static bool on_target(void *opaque, const gr_consumer_msg_t *m, const rd_hdr_t *h, size_t nh) {
    rd_run_t *r = opaque;
    rd_prov_t p;
    (void)m;
    if (rd_parse_prov(h, nh, &p)) {
        rd_prov_mark(&r->done, &p, r->dlq, r->dlq_id);
        rd_prov_free(&p);
    }
    return true;
}

/* The target topic of e and its partition count (cached over the run's distinct topics). */
typedef struct rd_topic {
    const char *name;
    int32_t parts; /* -1: does not exist */
} rd_topic_t;

static int scan_targets(rd_run_t *r, rd_topic_t *t, size_t nt) {
    int64_t ts = INT64_MAX;
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].ts >= 0 && r->e[i].ts < ts) ts = r->e[i].ts;
    if (ts == INT64_MAX) ts = 0; /* no timestamps: scan whole topics */
    for (size_t k = 0; k < nt; k++) {
        if (t[k].parts < 0) continue;
        size_t n;
        rd_range_t *rg = topic_ranges(r->v, t[k].name, ts, &n);
        if (!rg) return CLI_FAIL;
        int rc = rd_read(r->v, rg, n, on_target, r);
        free(rg);
        if (rc) return rc;
    }
    return CLI_OK;
}

static size_t target_topics(rd_run_t *r, rd_topic_t **out) {
    const char *to = cli_str(r->v, "to-topic");
    rd_topic_t *t = calloc(r->n + 1, sizeof(*t));
    if (!t) abort();
    size_t nt = 0;
    gr_consumer_t *c = rd_consumer(r->v);
    for (size_t i = 0; i < r->n; i++) {
        const char *name = to ? to : r->e[i].d.topic;
        size_t k = 0;
        while (k < nt && strcmp(t[k].name, name)) k++;
        if (k == nt) {
            t[nt].name = name;
            if (!c || gr_consumer_partition_count(c, name, cli_timeout(r->v), &t[nt].parts) != GR_ERR_NONE)
                t[nt].parts = -1;
            nt++;
        }
        r->e[i].target = t[k].name;
    }
    gr_consumer_destroy(c);
    *out = t;
    return nt;
}

/* ---- 3. payloads Kafka did not copy: the source record, if still in the log ---- */

typedef struct rd_fetch {
    rd_ent_t **e; /* the partition's payload-less dead letters, by source offset */
    size_t n;
} rd_fetch_t;

/* The source record m (headers h[0..nh)) gives e its payload and headers, copied. */
static void take_source(rd_ent_t *e, const gr_consumer_msg_t *m, const rd_hdr_t *h, size_t nh) {
    free(e->key), free(e->val);
    take_payload(e, m);
    e->payload = e->from_source = true;
    e->src_h = calloc(nh ? nh : 1, sizeof(*e->src_h));
    if (!e->src_h) abort();
    e->n_src_h = nh;
    for (size_t k = 0; k < nh; k++) {
        e->src_h[k] = h[k];
        e->src_h[k].key = memdup0(h[k].key, h[k].key_len);
        if (h[k].val) e->src_h[k].val = memdup0(h[k].val, h[k].val_len);
    }
}

static bool on_source(void *opaque, const gr_consumer_msg_t *m, const rd_hdr_t *h, size_t nh) {
    rd_fetch_t *f = opaque;
    int64_t off = gr_consumer_msg_offset(m);
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->e[mid]->d.offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < f->n && f->e[lo]->d.offset == off; lo++)
        if (!f->e[lo]->from_source) take_source(f->e[lo], m, h, nh);
    return true;
}

static int by_src_offset(const void *a, const void *b) {
    const rd_ent_t *x = *(rd_ent_t *const *)a, *y = *(rd_ent_t *const *)b;
    return x->d.offset < y->d.offset ? -1 : x->d.offset > y->d.offset;
}

static bool needs_source(const rd_ent_t *e) { return e->act == RD_REDRIVE && !e->payload && e->state == ST_PLAN; }

/* The source partition's log start, if the partition exists. */
static bool source_start(const rd_run_t *r, const char *topic, int32_t partition, int64_t *log_start) {
    gr_consumer_t *c = rd_consumer(r->v);
    int32_t parts = 0;
    bool exists =
        c && gr_consumer_partition_count(c, topic, cli_timeout(r->v), &parts) == GR_ERR_NONE && partition < parts &&
        gr_consumer_query_offset(c, topic, partition, GR_OFFSET_BEGINNING, cli_timeout(r->v), log_start) == GR_ERR_NONE;
    gr_consumer_destroy(c);
    return exists;
}

/* For each source partition with payload-less dead letters to redrive: read from the
 * smallest to the largest of their offsets. A record read there is the original (offsets are
 * never reused in a partition); one not read is gone. */
static int fetch_sources(rd_run_t *r) {
    rd_fetch_t f = {calloc(r->n + 1, sizeof(*f.e)), 0};
    if (!f.e) abort();
    int rc = CLI_OK;
    for (size_t i = 0; i < r->n && rc == CLI_OK; i++) {
        if (!needs_source(&r->e[i])) continue;
        const char *topic = r->e[i].d.topic;
        int32_t part = r->e[i].d.partition;
        f.n = 0;
        for (size_t k = i; k < r->n; k++)
            if (needs_source(&r->e[k]) && r->e[k].d.partition == part && !strcmp(r->e[k].d.topic, topic))
                f.e[f.n++] = &r->e[k];
        qsort(f.e, f.n, sizeof(*f.e), by_src_offset);
        rd_range_t rg = {topic, part, f.e[0]->d.offset, f.e[f.n - 1]->d.offset + 1};
        int64_t log_start = -1;
        /* Start at the log start, not below it: libgregor's consumer, assigned below the log
         * start, waits at the end instead (it moves to the log start only when the Fetch
         * error carries it). */
        if (source_start(r, topic, part, &log_start)) {
            if (rg.start < log_start) rg.start = log_start;
            rc = rd_read(r->v, &rg, 1, on_source, &f);
        }
        for (size_t k = 0; k < f.n; k++) /* whatever the range did not give is missing */
            if (!f.e[k]->from_source) f.e[k]->state = ST_MISSING;
    }
    free(f.e);
    return rc;
}

/* ---- 4. produce ---- */

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    (void)p;
    rd_ent_t *e = opaque;
    if (gr_delivery_error(d) == GR_ERR_NONE) {
        e->state = ST_SENT, e->new_off = gr_delivery_offset(d);
        return;
    }
    e->state = ST_FAILED;
    fprintf(stderr, "Error: redrive of DLQ partition %d offset %" PRId64 " to %s failed: %s\n", (int)e->dlq_part,
            e->dlq_off, gr_delivery_topic(d),
            gr_delivery_errstr(d)[0] ? gr_delivery_errstr(d) : gr_err_str(gr_delivery_error(d)));
}

static gr_headers_t *headers_for(const rd_run_t *r, const rd_ent_t *e) {
    gr_headers_t *h = gr_headers_new();
    for (size_t i = 0; i < e->n_src_h; i++) gr_headers_add(h, e->src_h[i].key, e->src_h[i].val, e->src_h[i].val_len);
    rd_prov_t p = {.dlq_topic = (char *)r->dlq,
                   .dlq_topic_id = (char *)r->dlq_id,
                   .dlq_partition = e->dlq_part,
                   .dlq_offset = e->dlq_off,
                   .group = e->d.group,
                   .src_topic = e->d.topic,
                   .src_partition = e->d.partition,
                   .src_offset = e->d.offset};
    const char *names[RD_PROV_N], *vals[RD_PROV_N];
    char bufs[5][24];
    size_t n = rd_prov_headers(&p, e->d.delivery_count, e->from_source ? "source" : "dlq", names, vals, bufs);
    for (size_t i = 0; i < n; i++) gr_headers_add(h, names[i], vals[i], strlen(vals[i]));
    return h;
}

static gr_producer_t *make_producer(const cli_vals_t *v) {
    const char *props[] = {"acks=all", "enable.idempotence=true"};
    gr_conf_t *conf = cli_conf(v, GR_CONF_PRODUCER, props, 2);
    if (!conf) return NULL;
    gr_producer_t *p = NULL;
    char err[512];
    if (gr_producer_new(conf, &p, err, sizeof(err)) != GR_ERR_NONE) cli_fail("%s", err);
    gr_conf_destroy(conf);
    return p;
}

/* Test seams (tests/integration/test_dlq_redrive.sh), read once per record sent:
 * GR_REDRIVE_TEST_PAUSE_AFTER=n: after the first n records are acknowledged, stop and wait to
 * be killed (a kill -9 at a known point, nothing in flight);
 * GR_REDRIVE_TEST_KILL_AFTER=n: right after the n-th send, SIGKILL itself while batches are
 * queued or in flight (some may be written, some not). */
static bool test_seam(gr_producer_t *p, uint64_t sent) {
    const char *pause = getenv("GR_REDRIVE_TEST_PAUSE_AFTER"), *kill = getenv("GR_REDRIVE_TEST_KILL_AFTER");
    if (kill && sent >= strtoull(kill, NULL, 10)) {
        gr_producer_poll(p, 5);
        raise(SIGKILL);
    }
    if (!pause) return false;
    gr_producer_flush(p, -1);
    if (sent < strtoull(pause, NULL, 10)) return true;
    fprintf(stderr, "GR_REDRIVE_TEST_PAUSE_AFTER: paused after %" PRIu64 " records\n", sent);
    for (;;) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

static int produce(rd_run_t *r) {
    gr_producer_t *p = make_producer(r->v);
    if (!p) return CLI_FAIL;
    int rc = CLI_OK;
    uint64_t sent = 0;
    for (size_t i = 0; i < r->n && rc == CLI_OK; i++) {
        rd_ent_t *e = &r->e[i];
        if (e->act != RD_REDRIVE || e->state != ST_PLAN) continue;
        gr_headers_t *h = headers_for(r, e);
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t ts = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
        if (ts < e->ts) ts = e->ts; /* never before the dead letter: the next scan starts there */
        gr_err_t err;
        while ((err = gr_producer_send(p, e->target, e->target_part, e->key, e->klen, e->val, e->vlen, h, ts,
                                       on_delivery, e)) == GR_ERR__QUEUE_FULL)
            gr_producer_poll(p, 100);
        gr_headers_destroy(h);
        if (err) rc = cli_fail("%s", gr_producer_last_error(p));
        if (!test_seam(p, ++sent)) gr_producer_poll(p, 0);
    }
    if (gr_producer_flush(p, -1) != GR_ERR_NONE) rc = cli_fail("%s", gr_producer_last_error(p));
    gr_producer_destroy(p);
    return rc;
}

/* ---- the plan, the output ---- */

/* Each dead letter's target partition (after the payloads are known: a key may place it),
 * up to --max-records of them. */
static void place_all(rd_run_t *r, const rd_topic_t *t, size_t nt) {
    int64_t max = cli_int(r->v, "max-records", -1), planned = 0;
    for (size_t i = 0; i < r->n; i++) {
        rd_ent_t *e = &r->e[i];
        if (e->act != RD_REDRIVE || e->state != ST_PLAN) continue;
        int32_t parts = -1;
        for (size_t k = 0; k < nt; k++)
            if (t[k].name == e->target) parts = t[k].parts;
        if (parts <= 0) {
            e->state = ST_NO_TARGET;
            continue;
        }
        if (max >= 0 && planned >= max) {
            e->state = ST_LIMIT;
            continue;
        }
        planned++;
        e->target_part =
            rd_target_partition(e->d.partition, parts, e->key != NULL, e->key ? gr_murmur2(e->key, e->klen) : 0);
    }
}

static const cli_col_t cols[] = {
    {"DLQ-PARTITION", "dlq_partition", 14, CLI_INT},
    {"DLQ-OFFSET", "dlq_offset", 11, CLI_INT},
    {"TOPIC", "topic", 15, CLI_TEXT},
    {"PARTITION", "partition", 10, CLI_INT},
    {"SOURCE-OFFSET", "source_offset", 14, CLI_INT},
    {"PAYLOAD", "payload", 8, CLI_TEXT},
    {"NEW-OFFSET", "new_offset", 0, CLI_INT},
};

typedef struct rd_counts {
    uint64_t letters, redriven, done, dup, missing, no_target, failed, remaining;
} rd_counts_t;

static rd_counts_t count_all(const rd_run_t *r, bool dry) {
    rd_counts_t c = {.letters = r->n};
    for (size_t i = 0; i < r->n; i++) {
        const rd_ent_t *e = &r->e[i];
        c.done += e->act == RD_DONE;
        c.dup += e->act == RD_DUP_SRC;
        if (e->act != RD_REDRIVE) continue;
        c.missing += e->state == ST_MISSING;
        c.no_target += e->state == ST_NO_TARGET;
        c.failed += e->state == ST_FAILED;
        c.remaining += e->state == ST_LIMIT;
        c.redriven += dry ? e->state == ST_PLAN : e->state == ST_SENT;
    }
    return c;
}

static void print_missing(const rd_run_t *r, bool json) {
    bool first = true;
    for (size_t i = 0; i < r->n; i++) {
        const rd_ent_t *e = &r->e[i];
        if (e->act != RD_REDRIVE || e->state != ST_MISSING) continue;
        if (json) {
            printf("%s{\"dlq_partition\":%d,\"dlq_offset\":%" PRId64 ",\"topic\":", first ? "" : ",", (int)e->dlq_part,
                   e->dlq_off);
            cli_json_str(e->d.topic);
            printf(",\"partition\":%d,\"source_offset\":%" PRId64 "}", (int)e->d.partition, e->d.offset);
        } else {
            fprintf(stderr,
                    "Missing payload: DLQ partition %d offset %" PRId64 " has no key or value and its source record %s "
                    "partition %d offset %" PRId64 " is no longer in the log\n",
                    (int)e->dlq_part, e->dlq_off, e->d.topic, (int)e->d.partition, e->d.offset);
        }
        first = false;
    }
}

static void print_result(const rd_run_t *r, bool dry, const rd_counts_t *c) {
    bool json = cli_json(r->v);
    cli_table_t t;
    cli_table_init(&t, cols, dry ? 6 : 7);
    for (size_t i = 0; i < r->n; i++) {
        const rd_ent_t *e = &r->e[i];
        if (e->act != RD_REDRIVE || (e->state != (dry ? ST_PLAN : ST_SENT))) continue;
        char dp[16], doff[24], tp[16], so[24], no[24];
        snprintf(dp, sizeof(dp), "%d", (int)e->dlq_part);
        snprintf(doff, sizeof(doff), "%" PRId64, e->dlq_off);
        snprintf(tp, sizeof(tp), "%d", (int)e->target_part);
        snprintf(so, sizeof(so), "%" PRId64, e->d.offset);
        snprintf(no, sizeof(no), "%" PRId64, e->new_off);
        const char *cells[7] = {dp, doff, e->target, tp, so, e->from_source ? "source" : "dlq", no};
        cli_table_add(&t, cells);
    }
    if (json) {
        printf("{\"group\":");
        cli_json_str(r->group);
        printf(",\"dlq_topic\":");
        cli_json_str(r->dlq);
        printf(",\"dry_run\":%s,\"records\":", dry ? "true" : "false");
        fflush(stdout);
        cli_table_print(&t, true, false);
        printf(",\"missing\":[");
        print_missing(r, true);
        printf("],\"dead_letters\":%" PRIu64 ",\"%s\":%" PRIu64 ",\"already_redriven\":%" PRIu64
               ",\"duplicates\":%" PRIu64 ",\"missing_payload\":%" PRIu64 ",\"no_target\":%" PRIu64
               ",\"failed\":%" PRIu64 ",\"remaining\":%" PRIu64 ",\"malformed\":%" PRIu64 ",\"other_groups\":%" PRIu64
               "}\n",
               c->letters, dry ? "would_redrive" : "redriven", c->redriven, c->done, c->dup, c->missing, c->no_target,
               c->failed, c->remaining, r->malformed, r->other_groups);
    } else {
        if (t.rows) cli_table_print(&t, false, false);
        print_missing(r, false);
        printf("%s %" PRIu64 " of %" PRIu64 " dead letters of group '%s' in '%s'; already redriven %" PRIu64
               ", duplicates %" PRIu64 ", missing payload %" PRIu64 ", no target %" PRIu64 ", failed %" PRIu64
               ", left for a later run %" PRIu64 ", malformed %" PRIu64 ", other groups' records %" PRIu64 "\n",
               dry ? "Would redrive" : "Redrove", c->redriven, c->letters, r->group, r->dlq, c->done, c->dup,
               c->missing, c->no_target, c->failed, c->remaining, r->malformed, r->other_groups);
    }
    cli_table_free(&t);
}

/* The DLQ topic: --dlq-topic, else the group's errors.deadletterqueue.topic.name. */
static char *dlq_topic(const cli_vals_t *v, gr_admin_t *a, const char *group) {
    if (cli_str(v, "dlq-topic")) return strdup(cli_str(v, "dlq-topic"));
    const char *key = "errors.deadletterqueue.topic.name";
    gr_admin_result_t *res = NULL;
    gr_admin_describe_configs(a, GR_RESOURCE_GROUP, group, &key, 1, cli_timeout(v), &res);
    const char *val = NULL;
    for (size_t i = 0; res && i < gr_admin_result_rows(res); i++) {
        const char *name = gr_admin_result_str(res, i, "name");
        if (name && !strcmp(name, key) && gr_admin_result_error(res, i) == GR_ERR_NONE)
            val = gr_admin_result_str(res, i, "value");
    }
    char *out = val && *val ? strdup(val) : NULL;
    if (!out)
        cli_fail("Share group '%s' has no dead-letter queue: errors.deadletterqueue.topic.name is not set%s%s%s "
                 "(name the DLQ topic with --dlq-topic)",
                 group, res ? "" : " or could not be read (", res ? "" : gr_admin_last_error(a), res ? "" : ")");
    gr_admin_result_destroy(res);
    return out;
}

/* The DLQ topic's id (NULL if unknown); *exists false if the topic does not exist. */
static char *topic_id(const cli_vals_t *v, gr_admin_t *a, const char *topic, bool *exists) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_describe_topics(a, &topic, 1, cli_timeout(v), &res);
    *exists = res && !err;
    const char *id = *exists ? gr_admin_result_str(res, 0, "topic_id") : NULL;
    char *out = id && strcmp(id, "AAAAAAAAAAAAAAAAAAAAAA") ? strdup(id) : NULL;
    if (!*exists)
        cli_fail("DLQ topic '%s': %s", topic,
                 err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION ? "does not exist" : gr_admin_last_error(a));
    gr_admin_result_destroy(res);
    return out;
}

/* Steps 1-4 on an admin connection; the exit status. */
static int redrive(rd_run_t *r, gr_admin_t *a, bool dry) {
    int rc = read_dlq(r);
    if (rc) return rc;
    if (!r->n) {
        bool err;
        char *state = sg_state(r->v, a, r->group, &err);
        free(state);
        if (err) return CLI_FAIL;
        if (!state)
            return cli_fail("Share group '%s' does not exist and has no dead letters in '%s'", r->group, r->dlq);
        fprintf(stderr, "No dead letters of share group '%s' in '%s' (%" PRIu64 " records of other groups)\n", r->group,
                r->dlq, r->other_groups);
        rd_counts_t c = {0};
        print_result(r, dry, &c);
        return r->malformed && !cli_has(r->v, "skip-missing") ? CLI_FAIL : CLI_OK;
    }
    rd_topic_t *t;
    size_t nt = target_topics(r, &t);
    for (size_t k = 0; k < nt; k++)
        if (t[k].parts < 0) fprintf(stderr, "Error: target topic '%s' does not exist\n", t[k].name);
    rc = scan_targets(r, t, nt);
    for (size_t i = 0; !rc && i < r->n; i++)
        r->e[i].act = rd_decide(&r->done, r->dlq, r->e[i].dlq_part, r->e[i].dlq_off, &r->e[i].d);
    if (!rc) rc = fetch_sources(r);
    if (!rc) place_all(r, t, nt);
    if (!rc && !dry) rc = produce(r);
    if (rc) {
        free(t);
        return rc;
    }
    rd_counts_t c = count_all(r, dry);
    print_result(r, dry, &c);
    free(t);
    if (c.failed || c.no_target) return CLI_FAIL;
    if ((c.missing || r->malformed) && !cli_has(r->v, "skip-missing")) return CLI_FAIL;
    return CLI_OK;
}

int sg_redrive(const cli_vals_t *v, gr_admin_t *a) {
    size_t ng;
    const char **groups = cli_all(v, "group", &ng);
    if (ng != 1) return cli_usage_error(v, "Option [redrive] takes exactly one [group]");
    if (!cli_has(v, "from-dlq")) return cli_usage_error(v, "Option [redrive] needs the source: [from-dlq]");
    if (cli_int(v, "max-records", 0) < 0) return cli_usage_error(v, "--max-records must be 0 or more");
    rd_run_t r = {.v = v, .group = groups[0]};
    char *dlq = dlq_topic(v, a, r.group);
    if (!dlq) return CLI_FAIL;
    bool exists;
    char *id = topic_id(v, a, dlq, &exists);
    int rc = CLI_FAIL;
    if (exists) {
        r.dlq = dlq, r.dlq_id = id;
        rd_set_init(&r.done);
        rc = redrive(&r, a, cli_has(v, "dry-run"));
        for (size_t i = 0; i < r.n; i++) ent_free(&r.e[i]);
        free(r.e);
        rd_set_free(&r.done);
    }
    free(id);
    free(dlq);
    return rc;
}
