/* The capacity view: see capacity.h; the rules are in docs/capacity.md. */
#include "share/capacity.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

void gr_cap_snap_take(gr_cap_snap_t *s, const gr_share_stats_t *st, int64_t log_end, int64_t now_ms) {
    s->t_ms = now_ms;
    s->log_end = log_end;
    s->acquired = st->acquired;
    s->completed = st->acks[GR_SHARE_ACK_ACCEPT] + st->acks[GR_SHARE_ACK_REJECT];
    s->acked = s->completed + st->acks[GR_SHARE_ACK_RELEASE];
    s->w = st->in_flight;
}

void gr_cap_ring_init(gr_cap_ring_t *r, const gr_cap_snap_t *s) { r->snap[0] = r->snap[1] = *s; }

void gr_cap_ring_rotate(gr_cap_ring_t *r, const gr_cap_snap_t *s) {
    r->snap[0] = r->snap[1];
    r->snap[1] = *s;
}

const char *gr_cap_verdict_str(gr_cap_verdict_t v) {
    switch (v) {
    case GR_CAP_IDLE: return "idle";
    case GR_CAP_KEEPING_UP: return "keeping up";
    case GR_CAP_RAISE_LOCKS: return "raise record locks or partitions";
    case GR_CAP_MORE_CONSUMERS: return "more consumers help";
    case GR_CAP_CONSUMERS_LIMIT: return "the consumers or the destination are the limit";
    }
    return "unknown";
}

/* Counters only grow while a share-partition lives; a difference that would be
 * negative (it cannot, but a reload starts again at zero) counts as none. */
static uint64_t delta(uint64_t later, uint64_t earlier) { return later > earlier ? later - earlier : 0; }

static double etd_of(int64_t lag, double drain, double produce) {
    if (lag < 0) return NAN;
    if (lag == 0) return 0;
    return drain > produce ? (double)lag / (drain - produce) : INFINITY;
}

/* W mean (s) and ack rate (records/s) between two snapshots; false when the
 * span is too short or has too few acknowledgements to compare. */
static bool half(const gr_cap_snap_t *a, const gr_cap_snap_t *b, double *w, double *x) {
    int64_t ms = b->t_ms - a->t_ms;
    uint64_t n = delta(b->w.count, a->w.count);
    if (ms < GR_CAP_TREND_MIN_MS || n < GR_CAP_TREND_MIN_ACKS) return false;
    *w = (double)delta(b->w.sum_us, a->w.sum_us) / 1e6 / (double)n;
    *x = (double)n * 1000.0 / (double)ms;
    return true;
}

/* The consumers (or what they write to) are the limit: over the two halves of
 * the window W grew by half or more while the ack rate did not follow, so more
 * records in flight would only wait longer. */
static bool consumers_limit(const gr_cap_in_t *in) {
    double wa, xa, wb, xb;
    if (!half(&in->ring->snap[0], &in->ring->snap[1], &wa, &xa) || !half(&in->ring->snap[1], in->now, &wb, &xb))
        return false;
    return wb >= GR_CAP_W_GROWTH * wa && xb < GR_CAP_RATE_GROWTH * xa;
}

static gr_cap_verdict_t verdict_of(const gr_cap_in_t *in, const gr_cap_out_t *o) {
    bool active = o->acked > 0 || o->produce_rate > 0 || in->in_flight > 0;
    if (in->lag <= 0 && !active) return GR_CAP_IDLE;
    /* Every record not yet done is with a consumer, or the backlog is gone within a window
     * (judged only on a window of some length: 50 acks in the 4 ms after a load are no
     * 12,500 records/s). */
    if (in->lag <= in->in_flight) return GR_CAP_KEEPING_UP;
    if (o->window_s >= GR_CAP_MIN_WINDOW_MS / 1000.0 && o->etd_s <= GR_CAP_WINDOW_MS / 1000.0) return GR_CAP_KEEPING_UP;
    double l = isnan(o->in_flight_avg) ? (double)in->in_flight : o->in_flight_avg;
    if (in->cap > 0 && l >= GR_CAP_AT_CAP * (double)in->cap) return GR_CAP_RAISE_LOCKS;
    if (in->ring && in->now && consumers_limit(in)) return GR_CAP_CONSUMERS_LIMIT;
    return GR_CAP_MORE_CONSUMERS;
}

static void out_init(gr_cap_out_t *out) {
    memset(out, 0, sizeof(*out));
    out->in_flight_avg = out->w_p50_s = out->w_p99_s = out->w_mean_s = NAN;
    out->ceiling = out->headroom = out->etd_s = NAN;
}

/* W mean and quantiles of out->w (seconds; NAN when it is empty). */
static void w_stats(gr_cap_out_t *out) {
    if (!out->w.count) return;
    out->w_mean_s = (double)out->w.sum_us / 1e6 / (double)out->w.count;
    out->w_p50_s = gr_hist_quantile(&out->w, 0.5);
    out->w_p99_s = gr_hist_quantile(&out->w, 0.99);
}

void gr_cap_compute(const gr_cap_in_t *in, gr_cap_out_t *out) {
    out_init(out);
    out->cap = in->cap;
    out->in_flight = in->in_flight;
    out->lag = in->lag;
    const gr_cap_snap_t *s0 = in->ring ? &in->ring->snap[0] : NULL, *now = in->now;
    int64_t ms = s0 && now ? now->t_ms - s0->t_ms : 0;
    if (ms > 0) {
        double s = (double)ms / 1000.0;
        out->window_s = s;
        gr_hist_sub(&out->w, &now->w, &s0->w);
        out->acked = delta(now->acked, s0->acked);
        out->ack_rate = (double)out->acked / s;
        out->drain_rate = (double)delta(now->completed, s0->completed) / s;
        if (now->log_end >= 0 && s0->log_end >= 0)
            out->produce_rate = (double)delta((uint64_t)now->log_end, (uint64_t)s0->log_end) / s;
        w_stats(out);
        if (out->w.count) out->in_flight_avg = (double)out->w.sum_us / 1e6 / s;
        if (out->w_mean_s > 0 && in->cap > 0) out->ceiling = (double)in->cap / out->w_mean_s;
    }
    if (out->ack_rate > 0 && !isnan(out->ceiling)) out->headroom = out->ceiling / out->ack_rate;
    out->etd_s = etd_of(in->lag, out->drain_rate, out->produce_rate);
    out->verdict = verdict_of(in, out);
}

static void hist_add(gr_hist_t *to, const gr_hist_t *h) {
    for (size_t i = 0; i <= GR_HIST_BOUNDS; i++) to->bucket[i] += h->bucket[i];
    to->count += h->count;
    to->sum_us += h->sum_us;
}

/* How strongly a verdict asks for action: the group shows the strongest. */
static int rank(gr_cap_verdict_t v) {
    switch (v) {
    case GR_CAP_CONSUMERS_LIMIT: return 4;
    case GR_CAP_MORE_CONSUMERS: return 3;
    case GR_CAP_RAISE_LOCKS: return 2;
    case GR_CAP_KEEPING_UP: return 1;
    case GR_CAP_IDLE: return 0;
    }
    return 0;
}

void gr_cap_group(const gr_cap_out_t *sps, size_t n, gr_cap_out_t *out) {
    out_init(out);
    out->lag = -1;
    out->verdict = GR_CAP_IDLE;
    double l_sum = 0;
    bool l_known = false;
    for (size_t i = 0; i < n; i++) {
        const gr_cap_out_t *o = &sps[i];
        out->cap += o->cap;
        out->in_flight += o->in_flight;
        if (o->lag >= 0) out->lag = (out->lag < 0 ? 0 : out->lag) + o->lag;
        out->acked += o->acked;
        out->ack_rate += o->ack_rate;
        out->drain_rate += o->drain_rate;
        out->produce_rate += o->produce_rate;
        if (o->window_s > out->window_s) out->window_s = o->window_s;
        if (!isnan(o->in_flight_avg)) l_sum += o->in_flight_avg, l_known = true;
        hist_add(&out->w, &o->w);
        if (rank(o->verdict) > rank(out->verdict)) out->verdict = o->verdict;
    }
    w_stats(out);
    if (l_known) out->in_flight_avg = l_sum;
    /* share-partitions x cap / W: each with its own W, or the group's when it has none. */
    for (size_t i = 0; i < n; i++) {
        double w = isnan(sps[i].w_mean_s) ? out->w_mean_s : sps[i].w_mean_s;
        if (!(w > 0) || sps[i].cap <= 0) continue;
        out->ceiling = (isnan(out->ceiling) ? 0 : out->ceiling) + (double)sps[i].cap / w;
    }
    if (out->ack_rate > 0 && !isnan(out->ceiling)) out->headroom = out->ceiling / out->ack_rate;
    out->etd_s = etd_of(out->lag, out->drain_rate, out->produce_rate);
}
