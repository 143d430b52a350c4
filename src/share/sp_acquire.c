/* Share-partition acquisition: next fetch offset (§1.5) and acquiring records
 * for a ShareFetch (§1.3, §1.6, §1.8, §1.9, §2.5).
 *
 * The caller reads log batches starting at gr_sp_next_fetch_offset() and
 * hands their headers in; the walk goes over [fetch offset, last fetched
 * offset] once, in offset order: cached AVAILABLE ranges are re-acquired,
 * gap-window holes and offsets past SPEO are acquired as new records.
 *
 * @locality the thread that owns the SP. */
#include <string.h>

#include "share/sp_int.h"

int64_t gr_sp_next_fetch_offset(gr_sp_t *sp) {
    int64_t p = sp->avail_hint < sp->spso ? sp->spso : sp->avail_hint;
    if (p < sp->end) {
        for (size_t i = gr__sp_lower_bound(sp, p); i < sp->n; i++) {
            const gr__sp_rng_t *e = GR__SP_AT(sp, i);
            if (e->first > p || (e->state == GR_SP_AVAILABLE && !e->dl)) break; /* hole or redeliverable */
            p = e->last + 1;
            if (p >= sp->end) break;
        }
    }
    if (p > sp->end) p = sp->end;
    sp->avail_hint = p; /* nothing acquirable below p: later calls start here */
    return p;
}

/* §1.5, as Kafka 4.4.0's canAcquireRecords: something redeliverable inside
 * the window, or the window (SPEO−SPSO+1, whatever the states) below
 * share.partition.max.record.locks. */
bool gr_sp_can_acquire(gr_sp_t *sp, const gr_sp_conf_t *conf) {
    return gr_sp_next_fetch_offset(sp) < sp->end || sp->end - sp->spso < conf->max_record_locks;
}

void gr_sp_acquire_res_init(gr_sp_acquire_res_t *res) {
    memset(res, 0, sizeof(*res));
    res->read_first = res->read_last = -1;
}

void gr_sp_acquire_res_free(gr_sp_acquire_res_t *res) {
    free(res->ranges);
    gr_sp_acquire_res_init(res);
}

typedef struct acq {
    gr_sp_t *sp;
    const gr_sp_acquire_req_t *req;
    const gr_sp_conf_t *conf;
    gr_sp_acquire_res_t *res;
    uint32_t member;
    int64_t deadline;
    int64_t budget; /* MaxRecords, limited by the in-flight cap (soft_cap) */
    int64_t hi;     /* last fetched offset */
    int64_t tl;     /* §1.9 throttle limit */
    int stop;
} acq_t;

static void emit(acq_t *q, int64_t first, int64_t last, int16_t count) {
    gr_sp_acquire_res_t *res = q->res;
    if (res->n == res->cap) {
        res->cap = res->cap ? 2 * res->cap : 16;
        res->ranges = gr__sp_xrealloc(res->ranges, res->cap, sizeof(*res->ranges));
    }
    res->ranges[res->n++] = (gr_sp_acquired_t){first, last, count};
    if (res->read_first < 0) res->read_first = first;
    res->read_last = last;
    res->n_records += last - first + 1;
}

/* Last offset of the fetched log batch holding `off`; `off` itself when no
 * fetched batch holds it (a compaction gap, or past the last batch), as
 * Kafka's lastOffsetFromBatchWithRequestOffset. */
static int64_t batch_last(const acq_t *q, int64_t off) {
    const gr_sp_log_batch_t *b = q->req->batches;
    size_t lo = 0, hi = q->req->n_batches;
    while (lo < hi) { /* first batch with base > off */
        size_t mid = lo + (hi - lo) / 2;
        if (b[mid].base_offset <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && off <= b[lo - 1].last_offset ? b[lo - 1].last_offset : off;
}

static void add_rng(gr_sp_t *sp, size_t idx, int64_t first, int64_t last, int state, int16_t count, int tracked,
                    uint32_t member, int64_t deadline) {
    gr__sp_rng_t *e = gr__sp_insert(sp, idx, 1);
    *e = (gr__sp_rng_t){.first = first, .last = last, .state = GR_SP_AVAILABLE, .tracked = (uint8_t)tracked};
    if (state == GR_SP_AVAILABLE)
        e->count = count;
    else
        gr__sp_set(sp, idx, state, count, member, deadline, NULL);
    if (last + 1 > sp->end) sp->end = last + 1;
}

/* New records [a, b] (a = SPEO+1, or a gap-window hole when `gap`): each
 * AVAILABLE→ACQUIRED with count 1 (§1.3 rule 1; a hole is a record whose
 * acquisition was never persisted, §7.3). The budget already holds the
 * in-flight cap, so the acquisition ends where MaxRecords does. */
static void acquire_new(acq_t *q, int64_t a, int64_t b, int gap) {
    gr_sp_t *sp = q->sp;
    int64_t left = q->budget - q->res->n_records, bb = b;
    if (left <= 0) return;
    if (bb - a + 1 > left) /* §2.5: record_limit is hard, batch_optimized ends on a log batch */
        bb = q->req->mode == GR_SP_MODE_RECORD_LIMIT ? a + left - 1 : batch_last(q, a + left - 1);
    if (bb > b) bb = b;
    if (bb < b) q->stop = 1;
    size_t idx = gr__sp_lower_bound(sp, a);
    if (q->req->mode == GR_SP_MODE_RECORD_LIMIT) {
        /* §2.5: the log batch is cached whole, only its first N offsets
         * acquired (in a gap-window hole the rest simply stays a hole). */
        int64_t rem = gap ? bb : batch_last(q, bb);
        if (rem > b) rem = b;
        add_rng(sp, idx, a, bb, GR_SP_ACQUIRED, 1, rem > bb, q->member, q->deadline);
        if (rem > bb) {
            add_rng(sp, idx + 1, bb + 1, rem, GR_SP_AVAILABLE, 0, 1, 0, 0);
            gr__sp_coalesce_at(sp, idx + 1);
        }
        gr__sp_coalesce_at(sp, idx);
        emit(q, a, bb, 1);
        return;
    }
    /* §2.5 batch_optimized: ranges break at log-batch base offsets once they
     * hold ≥ BatchSize records; each range is one cached batch with one lock. */
    int64_t bs = q->req->batch_size > 0 ? q->req->batch_size : q->budget, cur = a;
    for (size_t j = 0; j < q->req->n_batches; j++) {
        int64_t base = q->req->batches[j].base_offset;
        if (base <= a) continue;
        if (base > bb) break;
        if (base - cur >= bs) {
            add_rng(sp, idx++, cur, base - 1, GR_SP_ACQUIRED, 1, 0, q->member, q->deadline);
            emit(q, cur, base - 1, 1);
            cur = base;
        }
    }
    add_rng(sp, idx, cur, bb, GR_SP_ACQUIRED, 1, 0, q->member, q->deadline);
    emit(q, cur, bb, 1);
}

/* Acquire [a, b] of one cached AVAILABLE range per offset (§1.6: the batch
 * is exploded); one AcquiredRecords entry per offset (§2.5). */
static void acquire_offsets(acq_t *q, int64_t a, int64_t b) {
    gr_sp_t *sp = q->sp;
    size_t i0, i1;
    gr__sp_isolate(sp, a, b, &i0, &i1);
    gr__sp_rng_t *e = GR__SP_AT(sp, i0);
    int16_t count = (int16_t)(e->count + 1);
    e->tracked = 1;
    /* §1.3 rule 1: AVAILABLE → ACQUIRED increments the delivery count. */
    gr__sp_set(sp, i0, GR_SP_ACQUIRED, count, q->member, q->deadline, NULL);
    gr__sp_coalesce_at(sp, i0);
    for (int64_t o = a; o <= b; o++) emit(q, o, o, count);
}

/* Cached AVAILABLE range at idx, fetched part [a, b]. */
static void acquire_cached(acq_t *q, size_t idx, int64_t a, int64_t b) {
    gr__sp_rng_t *e = GR__SP_AT(q->sp, idx);
    int64_t len = e->last - e->first + 1, left = q->budget - q->res->n_records, k;
    int limit = q->conf->delivery_count_limit, rl = q->req->mode == GR_SP_MODE_RECORD_LIMIT;
    if (e->count >= q->tl) {
        /* §1.9 poison isolation: stop before it if others were acquired; else
         * deliver a shrinking subset, alone on its last allowed attempt. */
        if (q->res->n_records > 0) {
            q->stop = 1;
            return;
        }
        int sh = e->count - (int)q->tl + 1;
        k = (limit > 2 && e->count == limit - 1) ? 1 : (sh >= 62 ? 0 : len >> sh);
        if (k < 1) k = 1;
        if (rl && k > left) k = left;
        if (k > b - a + 1) k = b - a + 1;
        acquire_offsets(q, a, a + k - 1);
        q->stop = 1;
        return;
    }
    if (!e->tracked && a == e->first && b == e->last && !(rl && len > left)) {
        /* §1.3 rule 1, whole cached batch: one lock, one AcquiredRecords entry. */
        int16_t count = (int16_t)(e->count + 1);
        gr__sp_set(q->sp, idx, GR_SP_ACQUIRED, count, q->member, q->deadline, NULL);
        emit(q, a, b, count);
        return;
    }
    k = b - a + 1; /* §1.6 subset: partial match, tracked range or record limit */
    if (k > left) k = rl ? left : batch_last(q, a + left - 1) - a + 1;
    if (k > b - a + 1) k = b - a + 1;
    acquire_offsets(q, a, a + k - 1);
}

/* §1.8: the log read started past the fetch offset, so the records in
 * between were compacted away or deleted: archive what was acquirable there. */
static void archive_gone(gr_sp_t *sp, int64_t from, int64_t to, gr_sp_delta_t *delta) {
    int64_t p = from;
    while (p <= to) {
        size_t i = gr__sp_lower_bound(sp, p);
        gr__sp_rng_t *e = i < sp->n ? GR__SP_AT(sp, i) : NULL;
        if (!e || e->first > p) { /* hole */
            int64_t hend = (e && e->first <= to) ? e->first - 1 : to;
            add_rng(sp, i, p, hend, GR_SP_AVAILABLE, 0, 1, 0, 0);
            gr__sp_set(sp, i, GR_SP_ARCHIVED, 0, 0, 0, delta);
            GR_METRIC(gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_LOG_START, hend - p + 1));
            gr__sp_coalesce_at(sp, i);
            p = hend + 1;
            continue;
        }
        int64_t l = e->last < to ? e->last : to;
        if (e->state == GR_SP_AVAILABLE) {
            size_t i0, i1;
            gr__sp_isolate(sp, p, l, &i0, &i1);
            gr__sp_set(sp, i0, GR_SP_ARCHIVED, GR__SP_AT(sp, i0)->count, 0, 0, delta);
            GR_METRIC(gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_LOG_START, l - p + 1));
            gr__sp_coalesce_at(sp, i0);
        }
        p = l + 1;
    }
}

/* §1.5, Kafka 4.4.0's lastOffsetAndMaxRecordsToAcquire: the budget is
 * min(MaxRecords, cap − in-flight), in-flight being the whole window
 * SPEO−SPSO+1; new records then run to the end of the log batch that reaches
 * it (batch_optimized), so the window may pass the cap by less than one log
 * batch. At or over the cap only records inside the window are acquirable,
 * at most SPEO − fetch offset + 1 of them. Computed before §1.8 archives
 * anything, as Kafka does. Returns 0 when nothing may be acquired. */
static int soft_cap(acq_t *q, int64_t f) {
    gr_sp_t *sp = q->sp;
    int64_t room = q->conf->max_record_locks - (sp->end - sp->spso);
    if (room > 0) {
        if (room < q->budget) q->budget = room;
        return 1;
    }
    if (f >= sp->end) return 0;
    if (sp->end - f < q->budget) q->budget = sp->end - f;
    if (q->hi > sp->end - 1) q->hi = sp->end - 1;
    return 1;
}

static int batches_ok(const gr_sp_acquire_req_t *req) {
    for (size_t i = 0; i < req->n_batches; i++) {
        if (req->batches[i].base_offset > req->batches[i].last_offset) return 0;
        if (i && req->batches[i].base_offset <= req->batches[i - 1].last_offset) return 0;
    }
    return 1;
}

gr_err_t gr_sp_acquire(gr_sp_t *sp, const gr_sp_acquire_req_t *req, const gr_sp_conf_t *conf, int64_t now_ms,
                       gr_sp_acquire_res_t *res, gr_sp_delta_t *delta) {
    int64_t spso_before = sp->spso;
    sp->clock = now_ms;
    res->n = 0;
    res->n_records = 0;
    res->read_first = res->read_last = -1;
    if (req->mode != GR_SP_MODE_BATCH_OPTIMIZED && req->mode != GR_SP_MODE_RECORD_LIMIT)
        return GR_ERR_INVALID_REQUEST; /* §2.5 */
    if (!batches_ok(req)) return GR_ERR__INVALID_ARG;
    if (req->max_records <= 0 || req->n_batches == 0) return GR_ERR_NONE;
    int64_t f = gr_sp_next_fetch_offset(sp), base0 = req->batches[0].base_offset;
    acq_t q = {sp,
               req,
               conf,
               res,
               0,
               now_ms + conf->lock_duration_ms,
               req->max_records,
               req->batches[req->n_batches - 1].last_offset,
               0,
               0};
    int64_t lim = conf->delivery_count_limit;
    q.tl = (lim + 1) / 2 > 2 ? (lim + 1) / 2 : 2; /* max(2, ceil(limit/2)) */
    if (q.hi < f || !soft_cap(&q, f)) return GR_ERR_NONE;
    if (base0 > f) {
        if (sp->end == sp->spso)
            sp->spso = sp->end = sp->avail_hint = base0; /* nothing cached */
        else
            archive_gone(sp, f, (base0 < sp->end ? base0 : sp->end) - 1, delta);
        gr__sp_advance(sp);
        f = gr_sp_next_fetch_offset(sp);
    }
    q.member = gr__sp_member_intern(sp, req->member_id);
    int64_t p = f > base0 ? f : base0;
    while (!q.stop && p <= q.hi && res->n_records < q.budget) {
        if (p >= sp->end) {
            acquire_new(&q, sp->end, q.hi, 0);
            break;
        }
        size_t i = gr__sp_lower_bound(sp, p);
        gr__sp_rng_t *e = i < sp->n ? GR__SP_AT(sp, i) : NULL;
        if (!e || e->first > p) { /* §1.10 gap window: acquire the hole */
            int64_t hend = (e ? e->first : sp->end) - 1;
            if (hend > q.hi) hend = q.hi;
            acquire_new(&q, p, hend, 1);
            p = hend + 1;
            continue;
        }
        int64_t b = e->last < q.hi ? e->last : q.hi;
        if (e->state == GR_SP_AVAILABLE && !e->dl) acquire_cached(&q, i, p, b); /* delayed: skipped */
        p = b + 1;
    }
    if (res->n) gr__sp_timer_push(sp, q.deadline, res->read_first, res->read_last);
    if (delta) gr__sp_delta_finish(sp, delta, spso_before);
    return GR_ERR_NONE;
}
