/* Share-group metrics (docs/metrics.md): per share-partition, per group,
 * broker-wide sessions and groups, and the share-state store.
 *
 * Which share-partitions: those DescribeShareGroupOffsets reports for each
 * group (its initialized partitions of topics that exist), plus any other
 * share-partition loaded in memory. Lag and start offset come from the very
 * function Describe uses (gr_share_partition_lag), so they match it exactly.
 * The counters live in the in-memory share-partition (gr_share_stats_t): they
 * are written while it is loaded and start again at zero when it is reloaded.
 *
 * Cardinality: at most metrics.partition.series.max share-partitions and as
 * many groups get series, in (group, topic, partition) order; the rest are
 * counted in gregor_metrics_series_dropped{kind="share_partition"|"group"}.
 * A deleted group leaves the registry and its share-partitions are dropped,
 * so its series go with it.
 * @locality loop thread. */
#include <stdlib.h>
#include <string.h>

#include "base/props.h"
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/share_coord.h"
#include "broker/share_dlq.h"
#include "broker/share_parts.h"
#include "broker/share_sessions.h"
#include "meta/meta.h"
#include "server/config.h"

/* One share-partition row of the scrape. */
typedef struct sp_row {
    const char *group, *topic;
    int32_t partition;
    gr_share_part_t *part; /* NULL: not in memory */
    int64_t start, lag;    /* as DescribeShareGroupOffsets (start -1: none; lag GR_SHARE_LAG_UNKNOWN) */
    int32_t lock_limit;
} sp_row_t;

typedef struct rows {
    sp_row_t *v;
    size_t n, cap;
} rows_t;

/* One group of the registry. */
typedef struct grp {
    const char *id;
    const gr_sg_group_t *g;
    int64_t sessions;
    int32_t lock_limit;
} grp_t;

typedef struct scrape {
    gr_broker_t *b;
    rows_t rows;
    grp_t *groups;
    int32_t n_groups;
} scrape_t;

static void row_add(scrape_t *s, const char *group, const gr_uuid_t *topic_id, int32_t partition, gr_share_part_t *part,
                    int32_t lock_limit) {
    const gr_meta_topic_t *t = gr_meta_topic_find_id(s->b->meta, topic_id);
    if (!t) return; /* Describe skips deleted topics too */
    rows_t *r = &s->rows;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof(*r->v));
        if (!r->v) abort();
    }
    sp_row_t *row = &r->v[r->n++];
    *row = (sp_row_t){group, t->name, partition, part, -1, -1, lock_limit};
    int32_t epoch;
    (void)gr_share_partition_lag(s->b, group, topic_id, partition, &row->start, &epoch, &row->lag);
}

static int grp_cmp(const void *key, const void *elem) { return strcmp(key, ((const grp_t *)elem)->id); }

static grp_t *grp_find(const scrape_t *s, const char *id) {
    return bsearch(id, s->groups, (size_t)s->n_groups, sizeof(*s->groups), grp_cmp);
}

/* A loaded SP that Describe would not list (its group or partition is not
 * initialized in the registry) still gets its row. */
static void add_loaded(void *arg, gr_share_part_t *part) {
    scrape_t *s = arg;
    const grp_t *g = grp_find(s, part->key.group);
    if (g && gr_sg_assignment_has(&g->g->initialized, &part->key.topic_id, part->key.partition))
        return; /* collect_groups has its row */
    gr_sgc_values_t vals;
    gr_share_group_values(s->b, part->key.group, &vals);
    row_add(s, part->key.group, &part->key.topic_id, part->key.partition, part, vals.partition_max_record_locks);
}

static void count_session(void *arg, const gr_share_session_t *sess) {
    grp_t *g = grp_find(arg, sess->group);
    if (g) g->sessions++;
}

/* Every group of the registry (id order) with its initialized share-partitions. */
static void collect_groups(scrape_t *s) {
    gr_share_group_registry_t *reg = s->b->share.groups;
    s->n_groups = reg ? gr_share_group_count(reg) : 0;
    s->groups = calloc(s->n_groups ? (size_t)s->n_groups : 1, sizeof(*s->groups));
    if (!s->groups) abort();
    int32_t n = 0;
    for (int32_t i = 0; i < s->n_groups; i++) {
        grp_t *g = &s->groups[n];
        gr_sg_state_t st;
        g->id = gr_share_group_id_at(reg, i);
        if (gr_share_group_describe(reg, g->id, false, &g->g, &st, NULL, 0)) continue;
        gr_sgc_values_t vals;
        gr_share_group_values(s->b, g->id, &vals);
        g->lock_limit = vals.partition_max_record_locks;
        n++;
    }
    s->n_groups = n;
    for (int32_t i = 0; i < n; i++) {
        const grp_t *g = &s->groups[i];
        const gr_sg_assignment_t *a = &g->g->initialized;
        for (int32_t t = 0; t < a->n_topics; t++)
            for (int32_t k = 0; k < a->topics[t].n_partitions; k++) {
                const gr_uuid_t *tid = &a->topics[t].topic_id;
                int32_t part = a->topics[t].partitions[k];
                row_add(s, g->id, tid, part, gr_share_part_find(s->b, g->id, tid, part), g->lock_limit);
            }
    }
    gr_share_sessions_foreach(s->b, count_session, s);
}

static int row_cmp(const void *a, const void *b) {
    const sp_row_t *x = a, *y = b;
    int c = strcmp(x->group, y->group);
    if (!c) c = strcmp(x->topic, y->topic);
    if (!c) c = (x->partition > y->partition) - (x->partition < y->partition);
    return c;
}

/* ------------------------------------------------------------------ writing */

static void row_labels(const sp_row_t *r, gr_prom_labels_t *l) {
    gr_prom_labels_init(l);
    gr_prom_label(l, "group", r->group);
    gr_prom_label(l, "topic", r->topic);
    gr_prom_label_i64(l, "partition", r->partition);
}

typedef enum { V_LAG, V_START, V_IN_FLIGHT, V_LOCKS, V_ACQUIRED, V_REDELIVERIES, V_TIMEOUTS, V_DELAYED } row_val_t;

/* A per-share-partition family with one value per row (n rows); gauges of
 * unknown value and counters of SPs not in memory are left out. */
static void write_rows(gr_prom_t *p, const sp_row_t *rows, size_t n, const char *name, gr_prom_type_t type,
                       const char *help, row_val_t what) {
    gr_prom_family(p, name, type, help);
    for (size_t i = 0; i < n; i++) {
        const sp_row_t *r = &rows[i];
        const gr_share_stats_t *st = r->part ? &r->part->stats : NULL;
        int64_t v;
        bool known;
        switch (what) {
        case V_LAG: /* may be negative: unclamped, as Kafka 4.4.0 */
            v = r->lag;
            known = v != GR_SHARE_LAG_UNKNOWN;
            break;
        case V_START: v = r->start; break;
        case V_IN_FLIGHT: v = r->part ? gr_sp_acquired_count(r->part->sp) : 0; break;
        case V_LOCKS: v = r->lock_limit; break;
        case V_ACQUIRED: v = st ? (int64_t)st->acquired : -1; break;
        case V_REDELIVERIES: v = st ? (int64_t)st->redeliveries : -1; break;
        case V_DELAYED: v = r->part ? gr_sp_delayed_count(r->part->sp, NULL) : -1; break;
        default: v = st ? (int64_t)st->lock_timeouts : -1; break;
        }
        if (what != V_LAG) known = v >= 0;
        if (!known) continue;
        gr_prom_labels_t l;
        row_labels(r, &l);
        gr_prom_i64(p, name, &l, v);
    }
}

static const char *const ACK_NAMES[GR_SHARE_ACK_TYPES] = {"accept", "release", "reject", "renew", "gap"};
static const char *const ARCHIVE_NAMES[GR_SHARE_ARCHIVE_REASONS] = {"reject", "delivery_limit", "log_start"};

/* Counters with one extra label (type / reason): one family, k samples per SP in memory. */
static void write_split(gr_prom_t *p, const sp_row_t *rows, size_t n, const char *name, const char *help,
                        const char *key, const char *const *names, size_t k, bool archived) {
    gr_prom_family(p, name, GR_PROM_COUNTER, help);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].part) continue;
        const gr_share_stats_t *st = &rows[i].part->stats;
        for (size_t j = 0; j < k; j++) {
            gr_prom_labels_t l;
            row_labels(&rows[i], &l);
            gr_prom_label(&l, key, names[j]);
            gr_prom_u64(p, name, &l, archived ? st->archived[j] : st->acks[j]);
        }
    }
}

static void write_sp(gr_prom_t *p, const sp_row_t *rows, size_t n) {
    write_rows(p, rows, n, "gregor_share_partition_lag", GR_PROM_GAUGE,
               "Share-partition lag (KIP-1226), as DescribeShareGroupOffsets reports it", V_LAG);
    write_rows(p, rows, n, "gregor_share_partition_start_offset", GR_PROM_GAUGE,
               "Share-partition start offset (SPSO), as DescribeShareGroupOffsets reports it", V_START);
    write_rows(p, rows, n, "gregor_share_in_flight_records", GR_PROM_GAUGE, "Records ACQUIRED now", V_IN_FLIGHT);
    write_rows(p, rows, n, "gregor_share_delayed_records", GR_PROM_GAUGE,
               "Records held back by the delayed redelivery (gregor.share.redelivery.backoff.ms)", V_DELAYED);
    write_rows(p, rows, n, "gregor_share_record_lock_limit", GR_PROM_GAUGE,
               "Effective share.partition.max.record.locks of the group", V_LOCKS);
    write_rows(p, rows, n, "gregor_share_records_acquired_total", GR_PROM_COUNTER,
               "Records acquired (every delivery) while the share-partition is loaded", V_ACQUIRED);
    write_rows(p, rows, n, "gregor_share_redeliveries_total", GR_PROM_COUNTER, "Acquisitions with delivery count >= 2",
               V_REDELIVERIES);
    write_rows(p, rows, n, "gregor_share_acquisition_lock_timeouts_total", GR_PROM_COUNTER,
               "Records whose acquisition lock expired", V_TIMEOUTS);
    write_split(p, rows, n, "gregor_share_acknowledgements_total",
                "Records acknowledged, by type (acknowledgements answered with an error are not counted)", "type",
                ACK_NAMES, GR_SHARE_ACK_TYPES, false);
    write_split(p, rows, n, "gregor_share_records_archived_total", "Records archived, by reason", "reason",
                ARCHIVE_NAMES, GR_SHARE_ARCHIVE_REASONS, true);
    gr_prom_family(p, "gregor_share_in_flight_seconds", GR_PROM_HISTOGRAM,
                   "W: time from acquisition to the ACCEPT, REJECT or RELEASE acknowledgement, per record");
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].part) continue;
        gr_prom_labels_t l;
        row_labels(&rows[i], &l);
        gr_prom_hist(p, "gregor_share_in_flight_seconds", &l, &rows[i].part->stats.in_flight);
    }
}

static void write_groups(gr_prom_t *p, const grp_t *g, size_t n) {
    static const char *const NAMES[3] = {"gregor_share_group_members", "gregor_share_group_sessions",
                                         "gregor_share_group_epoch"};
    static const char *const HELP[3] = {"Members of the share group", "Share sessions of the group on this broker",
                                        "Group epoch"};
    for (int f = 0; f < 3; f++) {
        gr_prom_family(p, NAMES[f], GR_PROM_GAUGE, HELP[f]);
        for (size_t i = 0; i < n; i++) {
            gr_prom_labels_t l;
            gr_prom_labels_init(&l);
            gr_prom_label(&l, "group", g[i].id);
            int64_t v = f == 0 ? g[i].g->n_members : f == 1 ? g[i].sessions : g[i].g->group_epoch;
            gr_prom_i64(p, NAMES[f], &l, v);
        }
    }
}

/* The dead-letter queue, per group (Kafka's DeadLetterQueue* meters of ShareGroupMetrics). */
typedef struct dlq_put {
    gr_prom_t *p;
    int k;
} dlq_put_t;

static void dlq_sample(void *arg, const char *group, const gr_share_dlq_stats_t *st) {
    static const char *const NAMES[3] = {"gregor_share_dlq_records_total", "gregor_share_dlq_produce_requests_total",
                                         "gregor_share_dlq_failed_total"};
    dlq_put_t *dp = arg;
    gr_prom_labels_t l;
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "group", group);
    gr_prom_u64(dp->p, NAMES[dp->k], &l, dp->k == 0 ? st->records : dp->k == 1 ? st->produces : st->failed);
}

static void write_dlq(gr_broker_t *b, gr_prom_t *p) {
    static const char *const NAMES[3] = {"gregor_share_dlq_records_total", "gregor_share_dlq_produce_requests_total",
                                         "gregor_share_dlq_failed_total"};
    static const char *const HELP[3] = {
        "Records written to the group's dead-letter queue topic",
        "Dead-letter writes (one per dead-lettered range of a share-partition transition)",
        "Dead-letter writes that failed (topic creation, offline partition, append error)"};
    for (int k = 0; k < 3; k++) {
        gr_prom_family(p, NAMES[k], GR_PROM_COUNTER, HELP[k]);
        dlq_put_t dp = {p, k};
        gr_share_dlq_foreach(b, dlq_sample, &dp);
    }
}

static void write_store(gr_broker_t *b, gr_prom_t *p) {
    gr_sstore_stats_t st;
    memset(&st, 0, sizeof(st));
    if (b->share.sstore) gr_sstore_stats(b->share.sstore, &st);
    gr_prom_family(p, "gregor_share_state_writes_total", GR_PROM_COUNTER,
                   "Batches appended to the share-state log (writes, initialisations, deletions, compaction)");
    gr_prom_u64(p, "gregor_share_state_writes_total", NULL, st.n_writes);
    gr_prom_family(p, "gregor_share_state_fsyncs_total", GR_PROM_COUNTER, "fsyncs of the share-state log");
    gr_prom_u64(p, "gregor_share_state_fsyncs_total", NULL, st.n_fsyncs);
    gr_prom_family(p, "gregor_share_state_bytes_written_total", GR_PROM_COUNTER,
                   "Bytes appended to the share-state log");
    gr_prom_u64(p, "gregor_share_state_bytes_written_total", NULL, st.bytes_written);
    gr_prom_family(p, "gregor_share_state_write_latency_seconds", GR_PROM_HISTOGRAM,
                   "Share-state write latency: durable write requested -> on disk");
    gr_prom_hist(p, "gregor_share_state_write_latency_seconds", NULL, &st.write_latency);
}

static void write_broker(gr_broker_t *b, gr_prom_t *p, int32_t n_groups) {
    gr_prom_family(p, "gregor_share_sessions", GR_PROM_GAUGE, "Share sessions open on this broker");
    gr_prom_u64(p, "gregor_share_sessions", NULL, gr_share_sessions_count(b));
    int32_t max = b->cfg && b->cfg->share.max_share_sessions > 0 ? b->cfg->share.max_share_sessions : 2000;
    gr_prom_family(p, "gregor_share_sessions_limit", GR_PROM_GAUGE, "group.share.max.share.sessions");
    gr_prom_i64(p, "gregor_share_sessions_limit", NULL, max);
    gr_prom_family(p, "gregor_share_groups", GR_PROM_GAUGE, "Share groups");
    gr_prom_i64(p, "gregor_share_groups", NULL, n_groups);
}

void gr_broker_collect_share(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped) {
    scrape_t s = {.b = b};
    collect_groups(&s);
    gr_share_parts_foreach(b, add_loaded, &s);
    if (s.rows.n) qsort(s.rows.v, s.rows.n, sizeof(*s.rows.v), row_cmp);
    int64_t cap = b->cfg->metrics_partition_series_max;
    size_t n_rows = s.rows.n > (uint64_t)cap ? (size_t)cap : s.rows.n;
    size_t n_groups = (uint64_t)s.n_groups > (uint64_t)cap ? (size_t)cap : (size_t)s.n_groups;
    dropped->group = (uint64_t)s.n_groups - n_groups;
    dropped->share_partition = s.rows.n - n_rows;
    write_sp(p, s.rows.v, n_rows);
    write_groups(p, s.groups, n_groups);
    write_dlq(b, p);
    write_broker(b, p, s.n_groups);
    write_store(b, p);
    free(s.rows.v);
    free(s.groups);
}
