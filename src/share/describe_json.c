/* The JSON of the share-group views: see describe_json.h. */
#include "share/describe_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* ---------------------------------------------------------------- strings, numbers */

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

void gr_share_json_str(gr_wbuf_t *out, const char *s) {
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

void gr_share_json_error(gr_wbuf_t *out, const char *errstr) {
    gr_wbuf_printf(out, "{\"error\":");
    gr_share_json_str(out, errstr);
    gr_wbuf_printf(out, "}\n");
}

/* A number, or null for unknown (NAN) and never (INFINITY). */
static void put_num(gr_wbuf_t *out, const char *key, double v) {
    if (isfinite(v))
        gr_wbuf_printf(out, ",\"%s\":%.6g", key, v);
    else
        gr_wbuf_printf(out, ",\"%s\":null", key);
}

/* ---------------------------------------------------------------- capacity */

int64_t gr_cap_view_lag(bool have_lag, int64_t lag, bool in_memory, int64_t log_end, int64_t spso, int64_t dcc) {
    if (have_lag) return lag < 0 ? 0 : lag;
    if (!in_memory || log_end < 0) return -1;
    int64_t mem = log_end - spso - dcc;
    return mem < 0 ? 0 : mem;
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
    gr_share_json_str(out, gr_cap_verdict_str(o->verdict));
}

static int row_cmp(const void *a, const void *b) {
    const gr_cap_row_t *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

void gr_cap_json_doc(gr_wbuf_t *out, const char *group, gr_cap_row_t *rows, size_t n) {
    qsort(rows, n, sizeof(*rows), row_cmp);
    gr_cap_out_t *outs = gr_xcalloc(n, sizeof(*outs));
    gr_wbuf_printf(out, "{\"group\":");
    gr_share_json_str(out, group);
    gr_wbuf_printf(out, ",\"window_period_seconds\":%d,\"share_partitions\":[", GR_CAP_WINDOW_MS / 1000);
    for (size_t i = 0; i < n; i++) {
        outs[i] = rows[i].out;
        gr_wbuf_printf(out, "%s{\"topic\":", i ? "," : "");
        gr_share_json_str(out, rows[i].topic);
        gr_wbuf_printf(out, ",\"partition\":%d,\"in_memory\":%s", (int)rows[i].partition,
                       rows[i].in_memory ? "true" : "false");
        put_values(out, &rows[i].out);
        gr_wbuf_printf(out, "}");
    }
    gr_cap_out_t total;
    gr_cap_group(outs, n, &total);
    gr_wbuf_printf(out, "],\"group_total\":{\"share_partitions\":%d", (int)n);
    put_values(out, &total);
    gr_wbuf_printf(out, "}}\n");
    free(outs);
}

/* ---------------------------------------------------------------- delayed redelivery */

void gr_delayed_json_head(gr_wbuf_t *out, const char *group, int64_t backoff_ms, int64_t backoff_max_ms) {
    gr_wbuf_printf(out, "{\"group\":");
    gr_share_json_str(out, group);
    gr_wbuf_printf(out, ",\"redelivery_backoff_ms\":%d,\"redelivery_backoff_max_ms\":%d,\"share_partitions\":[",
                   (int)backoff_ms, (int)backoff_max_ms);
}

void gr_delayed_json_part_begin(gr_wbuf_t *out, int k, const char *topic, int32_t partition, bool in_memory,
                                gr_delayed_row_t *r) {
    *r = (gr_delayed_row_t){0, INT64_MAX, 0};
    gr_wbuf_printf(out, "%s{\"topic\":", k ? "," : "");
    gr_share_json_str(out, topic);
    gr_wbuf_printf(out, ",\"partition\":%d,\"in_memory\":%s,\"ranges\":[", (int)partition,
                   in_memory ? "true" : "false");
}

static void put_range(gr_wbuf_t *out, gr_delayed_row_t *r, int64_t first, int64_t last, int count, int64_t due_in,
                      int64_t wall) {
    if (due_in < 0) due_in = 0; /* due, the timer is about to run */
    r->n += last - first + 1;
    if (due_in < r->next_due_in) r->next_due_in = due_in;
    if (r->n_ranges++ >= GR_DELAYED_MAX_RANGES) return;
    gr_wbuf_printf(out,
                   "%s{\"first_offset\":%lld,\"last_offset\":%lld,\"delivery_count\":%d,\"due_in_ms\":%lld,"
                   "\"due_unix_ms\":%lld}",
                   r->n_ranges > 1 ? "," : "", (long long)first, (long long)last, count, (long long)due_in,
                   (long long)(wall + due_in));
}

void gr_delayed_json_from_sp(gr_wbuf_t *out, gr_delayed_row_t *r, const gr_sp_snapshot_t *snap, int64_t now_ms,
                             int64_t wall_ms) {
    for (size_t i = 0; i < snap->n; i++) {
        const gr_sp_batch_t *b = &snap->batches[i];
        if (b->not_before_ms > 0)
            put_range(out, r, b->first_offset, b->last_offset, b->delivery_count, b->not_before_ms - now_ms, wall_ms);
    }
}

void gr_delayed_json_from_store(gr_wbuf_t *out, gr_delayed_row_t *r, const gr_sstore_state_t *st, int64_t wall_ms) {
    for (size_t i = 0; i < st->n_batches; i++) {
        const gr_sstore_batch_t *b = &st->batches[i];
        if (b->due_ms > wall_ms)
            put_range(out, r, b->first_offset, b->last_offset, b->count, b->due_ms - wall_ms, wall_ms);
    }
}

void gr_delayed_json_part_end(gr_wbuf_t *out, const gr_delayed_row_t *r) {
    gr_wbuf_printf(out, "],\"ranges_truncated\":%s,\"delayed_records\":%lld,\"next_due_in_ms\":",
                   r->n_ranges > GR_DELAYED_MAX_RANGES ? "true" : "false", (long long)r->n);
    if (r->n)
        gr_wbuf_printf(out, "%lld}", (long long)r->next_due_in);
    else
        gr_wbuf_printf(out, "null}");
}

void gr_delayed_json_tail(gr_wbuf_t *out, int64_t total) {
    gr_wbuf_printf(out, "],\"group_total\":{\"delayed_records\":%lld}}\n", (long long)total);
}
