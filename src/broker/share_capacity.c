/* The capacity view of a share group (docs/capacity.md): the window
 * snapshots of each in-memory share-partition and the JSON document of
 * GET /v1/share-groups/<group>/capacity, computed by share/capacity.c from the
 * same counters /metrics exports.
 *
 * A share-partition not in memory on this broker (no share session of the group
 * fetches it) has no window: it shows its cap and lag only.
 * @locality loop thread. */
#include "broker/share_capacity.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/share_coord.h"

/* ---------------------------------------------------------------- window */

static int64_t log_end(gr_broker_t *b, const gr_uuid_t *topic_id, int32_t partition) {
    gr_partition_t *p = gr_parts_find_id(b->parts, topic_id, partition);
    return p && p->plog && !p->offline ? gr_plog_end_offset(p->plog) : -1;
}

static void take(gr_share_part_t *part, gr_cap_snap_t *s) {
    gr_broker_t *b = part->b;
    gr_cap_snap_take(s, &part->stats, log_end(b, &part->key.topic_id, part->key.partition), gr_loop_now(b->loop));
}

static void on_window(gr_timer_t *t, int64_t now) {
    (void)now;
    gr_share_part_t *part = t->data;
    gr_cap_snap_t s;
    take(part, &s);
    gr_cap_ring_rotate(&part->cap_ring, &s);
}

void gr_share_capacity_init(gr_share_part_t *part, const gr_partition_t *p) {
    gr_cap_snap_t s;
    int64_t leo = p->plog && !p->offline ? gr_plog_end_offset(p->plog) : -1;
    gr_cap_snap_take(&s, &part->stats, leo, gr_loop_now(part->b->loop));
    gr_cap_ring_init(&part->cap_ring, &s);
    gr_timer_init(part->b->loop, &part->cap_timer, on_window, part);
    gr_timer_start(&part->cap_timer, GR_CAP_WINDOW_MS, GR_CAP_WINDOW_MS);
}

void gr_share_capacity_stop(gr_share_part_t *part) { gr_timer_stop(&part->cap_timer); }

/* ---------------------------------------------------------------- JSON */

/* Length of the valid UTF-8 sequence at p (1-4), 0 if none starts there. */
static size_t utf8_len(const unsigned char *p) {
    unsigned char c = p[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80, hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (!n || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return n;
}

/* A JSON string; group ids are the clients' choice, so anything that is not
 * valid UTF-8 becomes U+FFFD and control characters are escaped. */
static void put_str(gr_wbuf_t *out, const char *s) {
    gr_wbuf_put(out, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (!n)
            gr_wbuf_printf(out, "\\ufffd"), n = 1;
        else if (*p == '"' || *p == '\\')
            gr_wbuf_printf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            gr_wbuf_printf(out, "\\u%04x", *p);
        else
            gr_wbuf_put(out, p, n);
        p += n;
    }
    gr_wbuf_put(out, "\"", 1);
}

void gr_share_json_str(gr_wbuf_t *out, const char *s) { put_str(out, s); }

/* A number, or null for unknown (NAN) and never (INFINITY). */
static void put_num(gr_wbuf_t *out, const char *key, double v) {
    if (isfinite(v))
        gr_wbuf_printf(out, ",\"%s\":%.6g", key, v);
    else
        gr_wbuf_printf(out, ",\"%s\":null", key);
}

static void put_values(gr_wbuf_t *out, const gr_cap_out_t *o) {
    put_num(out, "window_seconds", o->window_s);
    gr_wbuf_printf(out, ",\"record_lock_limit\":%lld,\"in_flight_records\":%lld", (long long)o->cap,
                   (long long)o->in_flight);
    put_num(out, "in_flight_avg", o->in_flight_avg);
    put_num(out, "w_p50_seconds", o->w_p50_s);
    put_num(out, "w_p99_seconds", o->w_p99_s);
    put_num(out, "w_mean_seconds", o->w_mean_s);
    gr_wbuf_printf(out, ",\"acknowledged\":%llu", (unsigned long long)o->acked);
    put_num(out, "ack_rate", o->ack_rate);
    put_num(out, "drain_rate", o->drain_rate);
    put_num(out, "produce_rate", o->produce_rate);
    put_num(out, "ceiling", o->ceiling);
    put_num(out, "headroom", o->headroom);
    if (o->lag >= 0)
        gr_wbuf_printf(out, ",\"lag\":%lld", (long long)o->lag);
    else
        gr_wbuf_printf(out, ",\"lag\":null");
    put_num(out, "etd_seconds", o->etd_s);
    gr_wbuf_printf(out, ",\"verdict\":");
    put_str(out, gr_cap_verdict_str(o->verdict));
}

/* ---------------------------------------------------------------- one group */

typedef struct sp_row {
    const char *topic;
    int32_t partition;
    bool in_memory;
    gr_cap_out_t out;
} sp_row_t;

static int row_cmp(const void *a, const void *b) {
    const sp_row_t *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

/* KIP-1226 lag as DescribeShareGroupOffsets reports it (gr_share_partition_lag); -1 when
 * unknown. A negative lag (offsets altered beyond the high watermark) is no backlog: 0. */
static int64_t sp_lag(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition) {
    int64_t start, lag;
    int32_t epoch;
    if (gr_share_partition_lag(b, group, topic_id, partition, &start, &epoch, &lag) || lag == GR_SHARE_LAG_UNKNOWN)
        return -1;
    return lag < 0 ? 0 : lag;
}

static void sp_compute(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t index, int64_t cap,
                       sp_row_t *row) {
    gr_share_part_t *part = gr_share_part_find(b, group, topic_id, index);
    gr_cap_snap_t now;
    gr_cap_in_t in = {NULL, NULL, cap, 0, sp_lag(b, group, topic_id, index)};
    if (part) {
        gr_sp_conf_t conf;
        gr_share_part_conf(part, &conf, NULL);
        take(part, &now);
        in.ring = &part->cap_ring;
        in.now = &now;
        in.cap = conf.max_record_locks;
        in.in_flight = gr_sp_acquired_count(part->sp);
        /* Nothing persisted yet (a share-partition initialised by a fetch is
         * written with its first change): the same formula on the memory state. */
        int64_t lag = now.log_end - gr_sp_start_offset(part->sp) - gr_sp_delivery_complete_count(part->sp);
        if (in.lag < 0 && now.log_end >= 0) in.lag = lag < 0 ? 0 : lag;
    }
    row->partition = index;
    row->in_memory = part != NULL;
    gr_cap_compute(&in, &row->out);
}

gr_err_t gr_share_json_group(gr_broker_t *b, const char *group, gr_wbuf_t *out, const gr_sg_group_t **g) {
    gr_sg_state_t state;
    char errstr[512] = "The share groups are not available.";
    *g = NULL;
    gr_err_t err = b->share.groups
                       ? gr_share_group_describe(b->share.groups, group, gr_share_id_used_by_other_type(b, group), g,
                                                 &state, errstr, sizeof(errstr))
                       : GR_ERR_COORDINATOR_NOT_AVAILABLE;
    if (err) {
        gr_wbuf_printf(out, "{\"error\":");
        put_str(out, errstr);
        gr_wbuf_printf(out, "}\n");
    }
    return err;
}

gr_err_t gr_broker_share_capacity_json(gr_broker_t *b, const char *group, gr_wbuf_t *out) {
    const gr_sg_group_t *g;
    gr_err_t err = gr_share_json_group(b, group, out, &g);
    if (err) return err;
    gr_sgc_values_t vals;
    gr_share_group_values(b, group, &vals);
    int32_t n = gr_sg_assignment_count(&g->initialized), k = 0;
    sp_row_t *rows = calloc(n ? (size_t)n : 1, sizeof(*rows));
    gr_cap_out_t *outs = calloc(n ? (size_t)n : 1, sizeof(*outs));
    if (!rows || !outs) abort();
    for (int32_t t = 0; t < g->initialized.n_topics; t++) {
        const gr_sg_topic_parts_t *tp = &g->initialized.topics[t];
        const gr_meta_topic_t *mt = gr_meta_topic_find_id(b->meta, &tp->topic_id);
        if (!mt) continue; /* deleted */
        for (int32_t i = 0; i < tp->n_partitions; i++) {
            rows[k].topic = mt->name;
            sp_compute(b, group, &tp->topic_id, tp->partitions[i], vals.partition_max_record_locks, &rows[k]);
            k++;
        }
    }
    qsort(rows, (size_t)k, sizeof(*rows), row_cmp);
    gr_wbuf_printf(out, "{\"group\":");
    put_str(out, group);
    gr_wbuf_printf(out, ",\"window_period_seconds\":%d,\"share_partitions\":[", GR_CAP_WINDOW_MS / 1000);
    for (int32_t i = 0; i < k; i++) {
        outs[i] = rows[i].out;
        gr_wbuf_printf(out, "%s{\"topic\":", i ? "," : "");
        put_str(out, rows[i].topic);
        gr_wbuf_printf(out, ",\"partition\":%d,\"in_memory\":%s", (int)rows[i].partition,
                       rows[i].in_memory ? "true" : "false");
        put_values(out, &rows[i].out);
        gr_wbuf_printf(out, "}");
    }
    gr_cap_out_t total;
    gr_cap_group(outs, (size_t)k, &total);
    gr_wbuf_printf(out, "],\"group_total\":{\"share_partitions\":%d", (int)k);
    put_values(out, &total);
    gr_wbuf_printf(out, "}}\n");
    free(rows);
    free(outs);
    return GR_ERR_NONE;
}
