/* Randomized model test of the share-partition state machine.
 *
 * Thousands of seeded random sequences of acquire / accept / release / reject
 * / renew / gap / lock expiry (fake clock) / member release / restart (from
 * the exported snapshot or from the accumulated deltas, as after a crash) /
 * log-start movement run against a plain per-offset reference model. After
 * every step the whole per-offset state, SPSO, SPEO, deliveryCompleteCount,
 * the next fetch offset and gr_sp_check() must agree, and the persisted view
 * (deltas applied in order) must never let a terminal state change or a
 * delivery count go down.
 *
 * Acquisition follows Apache Kafka 4.4.0's rules, encoded here independently
 * of the implementation: the budget is min(MaxRecords, cap − (SPEO−SPSO+1));
 * at or over the cap only the window is acquirable, at most SPEO − fetch
 * offset + 1 records; the new records start at SPEO+1 with what the
 * redeliveries left of the budget and end exactly where Kafka's would (log-batch
 * end in batch_optimized, the budget in record_limit, whose batch rest is
 * cached), and SPEO must land there. Every acquired offset must have been
 * acquirable with the reported count, and something must be acquired when
 * anything is. The shape of redeliveries (cached batch boundaries, throttling)
 * is covered by test_sp.c.
 *
 * Usage: test_sp_model [sequences [steps [first_seed]]]. A failure prints the
 * seed; rerun with that seed as first_seed and sequences=1. */
#include <stdint.h>

#include "share/sp.h"
#include "testutil.h"
#ifdef SP_MODEL_DEBUG
#include "share/sp_int.h"
static void dump(const gr_sp_t *sp) {
    fprintf(stderr, "  spso %lld end %lld:", (long long)sp->spso, (long long)sp->end);
    for (size_t i = 0; i < sp->n; i++) {
        const gr__sp_rng_t *e = &sp->r[sp->head + i];
        fprintf(stderr, " [%lld-%lld s%d c%d m%u d%lld%s]", (long long)e->first, (long long)e->last, e->state, e->count,
                e->member, (long long)e->deadline, e->tracked ? " t" : "");
    }
    fprintf(stderr, "\n");
}
#define TRACE(...) (fprintf(stderr, __VA_ARGS__))
#else
#define dump(sp)   ((void)0)
#define TRACE(...) ((void)0)
#endif

#define MAXOFF 512
#define NMEM   3

typedef struct mrec {
    int cached, state, count, owner;
    int64_t deadline;
} mrec_t;

typedef struct model {
    mrec_t r[MAXOFF];
    int64_t spso, end;
    int pst[MAXOFF], pcount[MAXOFF]; /* persisted store view; pst -1 = nothing */
    int64_t pspso;
} model_t;

typedef struct world {
    uint64_t rng;
    uint64_t seed;
    int step;
    gr_sp_conf_t conf;
    gr_sp_t *sp;
    model_t m;
    int64_t now, lso, hwm;
    gr_sp_log_batch_t log[MAXOFF];
    size_t nlog;
    gr_sp_delta_t d;
    gr_sp_acquire_res_t res;
} world_t;

static const char *MEM[NMEM] = {"member-0", "member-1", "member-2"};

static uint32_t rnd(world_t *w, uint32_t n) {
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return n ? (uint32_t)(w->rng % n) : 0;
}

#define FAILM(w, ...)                                                                     \
    do {                                                                                  \
        fprintf(stderr, "seed %llu step %d: ", (unsigned long long)(w)->seed, (w)->step); \
        GR__FAIL(__VA_ARGS__);                                                            \
    } while (0)

static int term(int s) { return s == GR_SP_ACKNOWLEDGED || s == GR_SP_ARCHIVED; }

/* ---- reference model ----------------------------------------------------- */

static void m_advance(model_t *m) {
    while (m->spso < m->end && m->r[m->spso].cached && term(m->r[m->spso].state)) {
        m->r[m->spso].cached = 0;
        m->spso++;
    }
}

static int64_t m_next_fetch(const model_t *m) {
    for (int64_t o = m->spso; o < m->end; o++)
        if (!m->r[o].cached || m->r[o].state == GR_SP_AVAILABLE) return o;
    return m->end;
}

static int64_t m_dcc(const model_t *m) {
    int64_t n = 0;
    for (int64_t o = m->spso; o < m->end; o++) n += m->r[o].cached && term(m->r[o].state);
    return n;
}

static void m_set(model_t *m, int64_t o, int state, int count, int owner, int64_t dl) {
    m->r[o] = (mrec_t){1, state, count, owner, dl};
}

/* ---- comparison ------------------------------------------------------------ */

static void compare(world_t *w) {
    model_t *m = &w->m;
    char why[256];
    if (gr_sp_check(w->sp, &w->conf, why, sizeof(why))) FAILM(w, "invariant: %s", why);
    if (gr_sp_start_offset(w->sp) != m->spso)
        FAILM(w, "SPSO %lld vs model %lld", (long long)gr_sp_start_offset(w->sp), (long long)m->spso);
    if (gr_sp_span(w->sp) != m->end - m->spso)
        FAILM(w, "span %lld vs model %lld", (long long)gr_sp_span(w->sp), (long long)(m->end - m->spso));
    if (gr_sp_delivery_complete_count(w->sp) != m_dcc(m)) FAILM(w, "dcc");
    int64_t acq = 0;
    for (int64_t o = 0; o < MAXOFF; o++) {
        int st;
        int16_t c;
        const char *mem;
        int64_t dl;
        bool has = gr_sp_record(w->sp, o, &st, &c, &mem, &dl);
        const mrec_t *x = &m->r[o];
        if (has != !!x->cached) FAILM(w, "offset %lld cached %d vs model %d", (long long)o, has, x->cached);
        if (!has) continue;
        if (st != x->state || c != x->count)
            FAILM(w, "offset %lld state %d/%d vs model %d/%d", (long long)o, st, c, x->state, x->count);
        if (st == GR_SP_ACQUIRED) {
            acq++;
            if (strcmp(mem, MEM[x->owner]) || dl != x->deadline)
                FAILM(w, "offset %lld owner %s/%lld vs model %s/%lld", (long long)o, mem, (long long)dl, MEM[x->owner],
                      (long long)x->deadline);
        }
    }
    if (acq != gr_sp_acquired_count(w->sp)) FAILM(w, "acquired count");
    if (gr_sp_next_fetch_offset(w->sp) != m_next_fetch(m))
        FAILM(w, "next fetch %lld vs model %lld", (long long)gr_sp_next_fetch_offset(w->sp),
              (long long)m_next_fetch(m));
}

/* Apply the delta to the persisted view: terminal never changes, counts never
 * go down, SPSO never moves back. */
static void apply_delta(world_t *w) {
    model_t *m = &w->m;
    gr_sp_delta_t *d = &w->d;
    if (!d->changed) {
        if (d->n) FAILM(w, "unchanged delta with batches");
        return;
    }
    if (d->start_offset < m->pspso) FAILM(w, "persisted SPSO moved back");
    if (d->delivery_complete_count != gr_sp_delivery_complete_count(w->sp)) FAILM(w, "delta dcc");
    for (size_t i = 0; i < d->n; i++) {
        const gr_sp_batch_t *b = &d->batches[i];
        if (b->state == GR_SP_ACQUIRED) FAILM(w, "ACQUIRED persisted");
        if (i && b->first_offset <= d->batches[i - 1].last_offset) FAILM(w, "delta overlaps");
        if (b->first_offset < d->start_offset) FAILM(w, "delta below SPSO");
        for (int64_t o = b->first_offset; o <= b->last_offset; o++) {
            if (o >= MAXOFF) FAILM(w, "delta offset out of range");
            if (m->pst[o] >= 0 && term(m->pst[o]) && m->pst[o] != b->state)
                FAILM(w, "persisted terminal %lld changed", (long long)o);
            if (m->pst[o] >= 0 && b->delivery_count < m->pcount[o])
                FAILM(w, "persisted count of %lld went down", (long long)o);
            m->pst[o] = b->state;
            m->pcount[o] = b->delivery_count;
        }
    }
    for (int64_t o = m->pspso; o < d->start_offset && o < MAXOFF; o++) m->pst[o] = -1;
    m->pspso = d->start_offset;
    gr_sp_delta_reset(d);
}

/* ---- operations ------------------------------------------------------------ */

static void build_log(world_t *w) {
    int64_t o = 0;
    w->nlog = 0;
    while (o < MAXOFF - 40) {
        if (rnd(w, 8) == 0) o += 1 + rnd(w, 3); /* compacted away */
        int64_t len = 1 + rnd(w, 6);
        w->log[w->nlog++] = (gr_sp_log_batch_t){o, o + len - 1};
        o += len;
    }
}

static void op_produce(world_t *w) {
    for (size_t i = 0; i < w->nlog; i++)
        if (w->log[i].last_offset >= w->hwm) {
            w->hwm = w->log[i].last_offset + 1;
            return;
        }
}

/* Model side of §1.8 "log read starts past the fetch offset". */
static void m_archive_gone(model_t *m, int64_t f, int64_t base0) {
    if (base0 <= f) return;
    if (m->end == m->spso) {
        m->spso = m->end = base0;
        return;
    }
    int64_t lim = base0 < m->end ? base0 : m->end;
    for (int64_t o = f; o < lim; o++) {
        if (!m->r[o].cached)
            m_set(m, o, GR_SP_ARCHIVED, 0, -1, 0);
        else if (m->r[o].state == GR_SP_AVAILABLE)
            m->r[o].state = GR_SP_ARCHIVED;
    }
    m_advance(m);
}

static int m_acquirable(const model_t *m, int64_t o) {
    if (o < m->spso) return 0;
    if (o < m->end) return !m->r[o].cached || m->r[o].state == GR_SP_AVAILABLE;
    return 1;
}

/* Kafka's lastOffsetFromBatchWithRequestOffset over the fetched batches. */
static int64_t k_batch_end(const gr_sp_log_batch_t *b, size_t n, int64_t off) {
    int64_t e = off;
    for (size_t i = 0; i < n && b[i].base_offset <= off; i++) e = off <= b[i].last_offset ? b[i].last_offset : off;
    return e;
}

/* What Apache Kafka 4.4.0 lets one acquisition take (lastOffsetAndMaxRecordsToAcquire):
 * budget min(MaxRecords, cap − in-flight), in-flight = SPEO−SPSO+1 whatever the states;
 * at or over the cap only the window, at most SPEO − fetch offset + 1 records. */
typedef struct kbudget {
    int64_t max; /* records; 0: nothing may be acquired */
    int64_t hi;  /* last offset that may be acquired */
} kbudget_t;

static kbudget_t k_budget(const world_t *w, int64_t f, int64_t hi, int32_t max_records) {
    const model_t *m = &w->m;
    int64_t room = w->conf.max_record_locks - (m->end - m->spso);
    if (room > 0) return (kbudget_t){room < max_records ? room : max_records, hi};
    if (f >= m->end) return (kbudget_t){0, hi};
    int64_t n = m->end - f < max_records ? m->end - f : max_records;
    return (kbudget_t){n, hi < m->end - 1 ? hi : m->end - 1};
}

typedef struct acq_case {
    int64_t lo, old_end;
    kbudget_t k;
    int mode, mem;
    const gr_sp_log_batch_t *b;
    size_t n;
} acq_case_t;

/* The new records (offsets ≥ old SPEO+1) Kafka acquires: from SPEO+1 for the
 * budget left after the redeliveries, to the end of the log batch reaching it
 * (batch_optimized) or exactly (record_limit; the rest of that batch is cached).
 * None after a throttled (§1.9) record was met. */
static void check_new_records(world_t *w, const acq_case_t *k, int64_t before, int throttled) {
    model_t *m = &w->m;
    const gr_sp_acquire_res_t *r = &w->res;
    int64_t left = k->k.max - before, a0 = k->old_end, want_last = a0 - 1, want_end = a0 - 1;
    if (!throttled && left > 0 && k->k.hi >= a0) {
        want_last = want_end = k->k.hi;
        if (k->k.hi - a0 + 1 > left) {
            int64_t be = k_batch_end(k->b, k->n, a0 + left - 1);
            if (be > k->k.hi) be = k->k.hi;
            want_end = be;
            want_last = k->mode == GR_SP_MODE_RECORD_LIMIT ? a0 + left - 1 : be;
        }
    }
    int64_t got_first = -1, got_last = a0 - 1;
    for (size_t i = 0; i < r->n; i++) {
        const gr_sp_acquired_t *x = &r->ranges[i];
        if (x->last_offset < a0) continue;
        if (got_first < 0) got_first = x->first_offset;
        if (x->first_offset != got_last + 1) FAILM(w, "new records not contiguous at %lld", (long long)x->first_offset);
        got_last = x->last_offset;
    }
    if (got_first >= 0 && got_first != a0)
        FAILM(w, "new records start at %lld, not SPEO+1 %lld", (long long)got_first, (long long)a0);
    if (got_last != want_last)
        FAILM(w, "new records end at %lld, Kafka's rule %lld (budget %lld, %lld redelivered)", (long long)got_last,
              (long long)want_last, (long long)k->k.max, (long long)before);
    int64_t new_end = gr_sp_span(w->sp) + gr_sp_start_offset(w->sp);
    if (new_end - 1 != (want_end > m->end - 1 ? want_end : m->end - 1))
        FAILM(w, "SPEO %lld, Kafka's rule %lld", (long long)new_end - 1, (long long)want_end);
}

static void check_acquired(world_t *w, const acq_case_t *k) {
    model_t *m = &w->m;
    gr_sp_acquire_res_t *r = &w->res;
    int64_t prev = -1, total = 0, before = 0, tl = (w->conf.delivery_count_limit + 1) / 2;
    int throttled = 0;
    if (tl < 2) tl = 2;
    for (size_t i = 0; i < r->n; i++) {
        const gr_sp_acquired_t *a = &r->ranges[i];
        if (a->first_offset > a->last_offset || a->first_offset <= prev) FAILM(w, "ranges unsorted");
        if (a->first_offset < k->lo || a->last_offset > k->k.hi) FAILM(w, "range outside what Kafka may acquire");
        prev = a->last_offset;
        for (int64_t o = a->first_offset; o <= a->last_offset; o++) {
            if (!m_acquirable(m, o)) FAILM(w, "offset %lld not acquirable", (long long)o);
            int c = (o < k->old_end && m->r[o].cached) ? m->r[o].count + 1 : 1;
            if (a->delivery_count != c)
                FAILM(w, "offset %lld count %d vs model %d", (long long)o, a->delivery_count, c);
            total++;
            before += o < k->old_end;
        }
    }
    if (total != r->n_records) FAILM(w, "n_records");
    if (k->k.max == 0 && total) FAILM(w, "acquired at the cap past SPEO");
    if (k->mode == GR_SP_MODE_RECORD_LIMIT && total > k->k.max) FAILM(w, "record_limit budget exceeded");
    for (int64_t o = k->lo; o <= k->k.hi && o < k->old_end; o++) /* §1.9: met a throttled record */
        throttled |= m->r[o].cached && m->r[o].state == GR_SP_AVAILABLE && m->r[o].count >= tl;
    if (total == 0 && k->k.max > 0) { /* liveness: nothing acquirable in what Kafka may take */
        for (int64_t o = k->lo; o <= k->k.hi; o++)
            if (m_acquirable(m, o)) FAILM(w, "offset %lld acquirable but nothing acquired", (long long)o);
    }
    check_new_records(w, k, before, throttled);
    for (size_t i = 0; i < r->n; i++)
        for (int64_t o = r->ranges[i].first_offset; o <= r->ranges[i].last_offset; o++)
            m_set(m, o, GR_SP_ACQUIRED, r->ranges[i].delivery_count, k->mem, w->now + w->conf.lock_duration_ms);
    int64_t new_end = gr_sp_span(w->sp) + gr_sp_start_offset(w->sp);
    for (int64_t o = k->old_end; o < new_end; o++)
        if (!m->r[o].cached) m_set(m, o, GR_SP_AVAILABLE, 0, -1, 0); /* record_limit remainder */
    if (new_end > m->end) m->end = new_end;
}

static void op_acquire(world_t *w) {
    model_t *m = &w->m;
    int64_t f = gr_sp_next_fetch_offset(w->sp);
    size_t i = 0, k = 1 + rnd(w, 4), n = 0;
    while (i < w->nlog && w->log[i].last_offset < f) i++;
    gr_sp_log_batch_t *b = &w->log[i];
    while (i + n < w->nlog && n < k && b[n].last_offset < w->hwm && b[n].last_offset >= w->lso) n++;
    int mem = (int)rnd(w, NMEM), mode = (int)rnd(w, 2);
    int32_t max = 1 + (int32_t)rnd(w, rnd(w, 4) ? 12 : 60), bs = 1 + (int32_t)rnd(w, 8);
    gr_sp_acquire_req_t req = {MEM[mem], max, bs, (int8_t)mode, b, n};
    /* Kafka computes the budget before archiving what the log lost (§1.8). */
    kbudget_t kb = k_budget(w, m_next_fetch(m), n ? b[n - 1].last_offset : -1, max);
    if (gr_sp_acquire(w->sp, &req, &w->conf, w->now, &w->res, &w->d)) FAILM(w, "acquire failed");
    if (n == 0 || b[n - 1].last_offset < f) {
        if (w->res.n) FAILM(w, "acquired from nothing");
        return;
    }
    m_archive_gone(m, f, b[0].base_offset);
    int64_t lo = m_next_fetch(m) > b[0].base_offset ? m_next_fetch(m) : b[0].base_offset;
    if (lo > m->end) lo = m->end; /* compaction gap past SPEO is acquired (GAP) */
    acq_case_t c = {lo, m->end, kb, mode, mem, b, n};
    check_acquired(w, &c);
}

/* Model prediction of gr_sp_acknowledge (§3.3–3.5). */
static gr_err_t m_ack_check(world_t *w, const gr_sp_ack_req_t *req, int mem) {
    model_t *m = &w->m;
    int renew = 0;
    for (size_t i = 0; i < req->n_batches; i++) {
        const gr_sp_ack_batch_t *b = &req->batches[i];
        if (b->first_offset > b->last_offset || (i && b->first_offset < req->batches[i - 1].last_offset) ||
            b->n_types == 0 || (b->n_types > 1 && (int64_t)b->n_types != b->last_offset - b->first_offset + 1))
            return GR_ERR_INVALID_REQUEST;
        for (size_t t = 0; t < b->n_types; t++) {
            if (b->types[t] < 0 || b->types[t] > (req->is_renew_ack ? 4 : 3)) return GR_ERR_INVALID_REQUEST;
            renew |= b->types[t] == 4;
        }
    }
    if (renew && !req->renew_enabled) return GR_ERR_INVALID_RECORD_STATE;
    for (size_t i = 0; i < req->n_batches; i++) {
        const gr_sp_ack_batch_t *b = &req->batches[i];
        if (b->last_offset < m->spso) continue;
        if (m->end == m->spso) return GR_ERR_INVALID_RECORD_STATE;
        if (b->first_offset >= m->end || b->last_offset >= m->end) return GR_ERR_INVALID_REQUEST;
        if (i && b->first_offset == req->batches[i - 1].last_offset && b->first_offset >= m->spso) {
            const gr_sp_ack_batch_t *pb = &req->batches[i - 1];
            int pt = pb->n_types == 1 ? pb->types[0] : pb->types[pb->n_types - 1];
            if (pt != 4) return GR_ERR_INVALID_RECORD_STATE;
        }
        for (int64_t o = b->first_offset < m->spso ? m->spso : b->first_offset; o <= b->last_offset; o++)
            if (!m->r[o].cached || m->r[o].state != GR_SP_ACQUIRED || m->r[o].owner != mem)
                return GR_ERR_INVALID_RECORD_STATE;
    }
    return GR_ERR_NONE;
}

static void m_ack_apply(world_t *w, const gr_sp_ack_req_t *req, int mem) {
    model_t *m = &w->m;
    for (size_t i = 0; i < req->n_batches; i++) {
        const gr_sp_ack_batch_t *b = &req->batches[i];
        if (b->last_offset < m->spso) continue;
        for (int64_t o = b->first_offset; o <= b->last_offset; o++) {
            mrec_t *x = &m->r[o];
            int t = b->n_types == 1 ? b->types[0] : b->types[o - b->first_offset];
            if (o < m->spso) { /* §1.8 leftovers archived on ack */
                if (x->cached && x->state == GR_SP_ACQUIRED && x->owner == mem) x->cached = 0;
                continue;
            }
            if (t == 4)
                x->deadline = w->now + w->conf.lock_duration_ms;
            else if (t == 1)
                m_set(m, o, GR_SP_ACKNOWLEDGED, x->count, -1, 0);
            else if (t == 2)
                m_set(m, o, x->count >= w->conf.delivery_count_limit ? GR_SP_ARCHIVED : GR_SP_AVAILABLE, x->count, -1,
                      0);
            else
                m_set(m, o, GR_SP_ARCHIVED, x->count, -1, 0);
        }
    }
    m_advance(m);
}

static void op_ack(world_t *w) {
    model_t *m = &w->m;
    int8_t types[3][64];
    gr_sp_ack_batch_t b[3];
    size_t nb = 1 + rnd(w, 3);
    int64_t p = m->spso - 3 + (int64_t)rnd(w, (uint32_t)(m->end - m->spso + 6));
    int bad = rnd(w, 25) == 0, renew_req = rnd(w, 3) != 0;
    int mem = (int)rnd(w, NMEM);
    /* Prefer a member that holds p, so that most acks succeed. */
    if (p >= 0 && p < MAXOFF && m->r[p].cached && m->r[p].state == GR_SP_ACQUIRED && rnd(w, 5)) mem = m->r[p].owner;
    if (p < 0) p = 0;
    for (size_t i = 0; i < nb; i++) {
        int64_t len = 1 + rnd(w, 6);
        b[i].first_offset = p;
        b[i].last_offset = p + len - 1;
        if (b[i].last_offset >= MAXOFF - 1) b[i].last_offset = b[i].first_offset;
        int per = rnd(w, 3) == 0;
        b[i].n_types = per ? (size_t)(b[i].last_offset - b[i].first_offset + 1) : 1;
        for (size_t t = 0; t < b[i].n_types; t++) {
            int ty = (int)rnd(w, renew_req ? 5 : 4);
            types[i][t] = (int8_t)ty;
        }
        if (bad) types[i][0] = (int8_t)(rnd(w, 2) ? 9 : -1);
        b[i].types = types[i];
        p = b[i].last_offset + 1 + rnd(w, 3);
    }
    gr_sp_ack_req_t req = {MEM[mem], b, nb, renew_req, rnd(w, 10) != 0};
    gr_err_t want = m_ack_check(w, &req, mem);
    gr_err_t got = gr_sp_acknowledge(w->sp, &req, &w->conf, w->now, &w->d, NULL, 0);
    if (got != want) FAILM(w, "ack error %d vs model %d", got, want);
    if (!got) m_ack_apply(w, &req, mem);
}

static void op_expire(world_t *w) {
    model_t *m = &w->m;
    w->now += rnd(w, (uint32_t)(w->conf.lock_duration_ms * 3 / 2));
    int64_t next = gr_sp_expire(w->sp, &w->conf, w->now, &w->d);
    int64_t want = INT64_MAX;
    for (int64_t o = 0; o < MAXOFF; o++) {
        mrec_t *x = &m->r[o];
        if (!x->cached || x->state != GR_SP_ACQUIRED) continue;
        if (x->deadline > w->now) {
            if (x->deadline < want) want = x->deadline;
            continue;
        }
        if (o < m->spso)
            x->cached = 0;
        else
            m_set(m, o, x->count >= w->conf.delivery_count_limit ? GR_SP_ARCHIVED : GR_SP_AVAILABLE, x->count, -1, 0);
    }
    m_advance(m);
    if (next > want || next <= w->now) FAILM(w, "next deadline %lld, model %lld", (long long)next, (long long)want);
}

static void op_release(world_t *w) {
    model_t *m = &w->m;
    int mem = (int)rnd(w, NMEM);
    int64_t n = gr_sp_release_member(w->sp, &w->conf, MEM[mem], &w->d), want = 0;
    for (int64_t o = 0; o < MAXOFF; o++) {
        mrec_t *x = &m->r[o];
        if (!x->cached || x->state != GR_SP_ACQUIRED || x->owner != mem) continue;
        want++;
        if (o < m->spso)
            x->cached = 0;
        else
            m_set(m, o, x->count >= w->conf.delivery_count_limit ? GR_SP_ARCHIVED : GR_SP_AVAILABLE, x->count, -1, 0);
    }
    m_advance(m);
    if (n != want) FAILM(w, "released %lld vs model %lld", (long long)n, (long long)want);
}

static void op_log_start(world_t *w) {
    model_t *m = &w->m;
    int64_t lso = w->lso + 1 + rnd(w, 8);
    if (lso > w->hwm) lso = w->hwm;
    if (lso <= w->lso) return;
    w->lso = lso;
    gr_sp_update_log_start(w->sp, lso, &w->d);
    if (lso <= m->spso) return;
    for (int64_t o = m->spso; o < lso; o++)
        if (m->r[o].cached && m->r[o].state != GR_SP_ACQUIRED) m->r[o].cached = 0;
    m->spso = lso;
    if (m->end < lso) m->end = lso;
    m_advance(m);
}

/* Crash and restart: from the export or from the persisted deltas. */
static void op_restart(world_t *w) {
    model_t *m = &w->m;
    gr_sp_snapshot_t s;
    gr_sp_delta_init(&s);
    gr_sp_export(w->sp, &s);
    if (s.start_offset != m->pspso) FAILM(w, "export SPSO != persisted SPSO");
    int view[MAXOFF];
    for (int64_t o = 0; o < MAXOFF; o++) view[o] = -1;
    for (size_t i = 0; i < s.n; i++)
        for (int64_t o = s.batches[i].first_offset; o <= s.batches[i].last_offset; o++)
            view[o] = s.batches[i].state * 1000 + s.batches[i].delivery_count;
    gr_sp_batch_t pb[MAXOFF];
    size_t npb = 0;
    for (int64_t o = m->pspso; o < MAXOFF; o++) {
        int pv = m->pst[o] < 0 || (m->pst[o] == 0 && m->pcount[o] == 0) ? -1 : m->pst[o] * 1000 + m->pcount[o];
        if (pv != view[o]) FAILM(w, "offset %lld: export %d vs persisted %d", (long long)o, view[o], pv);
        if (pv < 0) continue;
        if (npb && pb[npb - 1].last_offset + 1 == o && pb[npb - 1].state == m->pst[o] &&
            pb[npb - 1].delivery_count == m->pcount[o])
            pb[npb - 1].last_offset = o;
        else
            pb[npb++] = (gr_sp_batch_t){.first_offset = o,
                                        .last_offset = o,
                                        .state = (int8_t)m->pst[o],
                                        .delivery_count = (int16_t)m->pcount[o]};
    }
    gr_sp_destroy(w->sp);
    w->sp = gr_sp_new();
    gr_err_t err = rnd(w, 2) ? gr_sp_init_persisted(w->sp, s.start_offset, 0, s.batches, s.n, NULL, 0)
                             : gr_sp_init_persisted(w->sp, m->pspso, 0, pb, npb, NULL, 0);
    if (err) FAILM(w, "init failed");
    gr_sp_delta_free(&s);
    /* §7.3: ACQUIRED → last persisted state; never-delivered → hole. */
    int64_t end = m->spso;
    for (int64_t o = 0; o < MAXOFF; o++) {
        mrec_t *x = &m->r[o];
        if (!x->cached) continue;
        if (o < m->spso) {
            x->cached = 0;
            continue;
        }
        if (x->state == GR_SP_ACQUIRED) m_set(m, o, GR_SP_AVAILABLE, x->count - 1, -1, 0);
        if (x->state == GR_SP_AVAILABLE && x->count == 0)
            x->cached = 0;
        else
            end = o + 1;
    }
    m->end = end;
    m_advance(m);
}

static void run_sequence(uint64_t seed, int steps) {
    world_t *w = calloc(1, sizeof(*w));
    w->seed = seed;
    w->rng = seed * 0x9E3779B97F4A7C15ull + 1;
    w->conf.delivery_count_limit = 2 + (int32_t)rnd(w, 5);
    w->conf.max_record_locks = 5 + (int32_t)rnd(w, 40);
    w->conf.lock_duration_ms = 50 + rnd(w, 500);
    build_log(w);
    w->sp = gr_sp_new();
    int64_t start = rnd(w, 4) ? 0 : w->log[rnd(w, 5)].base_offset;
    gr_sp_init_offset(w->sp, start, 0);
    w->m.spso = w->m.end = start;
    for (int o = 0; o < MAXOFF; o++) w->m.pst[o] = -1;
    w->m.pspso = start;
    w->lso = 0;
    w->now = 1000;
    gr_sp_delta_init(&w->d);
    gr_sp_acquire_res_init(&w->res);
    for (w->step = 0; w->step < steps; w->step++) {
        uint32_t op = rnd(w, 100);
        if (w->m.end > MAXOFF - 60) break; /* the log is used up */
        if (op < 12)
            op_produce(w);
        else if (op < 40)
            op_acquire(w);
        else if (op < 75)
            op_ack(w);
        else if (op < 87)
            op_expire(w);
        else if (op < 91)
            op_release(w);
        else if (op < 94)
            op_log_start(w);
        else
            op_restart(w);
        TRACE("step %d op %u\n", w->step, op);
        dump(w->sp);
        apply_delta(w);
        compare(w);
    }
    gr_sp_delta_free(&w->d);
    gr_sp_acquire_res_free(&w->res);
    gr_sp_destroy(w->sp);
    free(w);
}

int main(int argc, char **argv) {
    int seqs = argc > 1 ? atoi(argv[1]) : 3000;
    int steps = argc > 2 ? atoi(argv[2]) : 300;
    uint64_t first = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    for (int i = 0; i < seqs; i++) run_sequence(first + (uint64_t)i, steps);
    fprintf(stderr, "%d sequences x %d steps OK\n", seqs, steps);
    return 0;
}
