/* Share-partition life cycle: creation, initialisation from persisted state
 * or from share.auto.offset.reset (§1.10), snapshot export (§7.2),
 * accessors and the invariant checker.
 *
 * @locality the thread that owns the SP. */
#include <inttypes.h>
#include <string.h>

#include "share/sp_int.h"

gr_sp_t *gr_sp_new(void) {
    gr_sp_t *sp = calloc(1, sizeof(*sp));
    if (!sp) abort();
    sp->members_gc_at = 64;
    return sp;
}

static void sp_clear(gr_sp_t *sp) {
    for (size_t m = 1; m < sp->n_members; m++) free(sp->members[m].id);
    free(sp->members);
    free(sp->r);
    free(sp->heap);
    gr__sp_saved_free(sp);
    gr_share_stats_t *stats = sp->stats; /* the sink and the configuration outlive a re-initialisation */
    int64_t bo = sp->backoff_ms, bo_max = sp->backoff_max_ms;
    memset(sp, 0, sizeof(*sp));
    sp->members_gc_at = 64;
    sp->stats = stats;
    sp->backoff_ms = bo;
    sp->backoff_max_ms = bo_max;
}

void gr_sp_destroy(gr_sp_t *sp) {
    if (!sp) return;
    sp_clear(sp);
    free(sp);
}

/* §1.10 step 2: the SPSO computed from share.auto.offset.reset; empty cache. */
void gr_sp_init_offset(gr_sp_t *sp, int64_t start_offset, int32_t state_epoch) {
    sp_clear(sp);
    sp->spso = sp->end = sp->avail_hint = start_offset < 0 ? 0 : start_offset;
    sp->state_epoch = state_epoch;
}

/* §1.10 step 3: persisted batches become cached ranges with their state and
 * count and no owner; holes up to the last batch are the gap window. */
gr_err_t gr_sp_init_persisted(gr_sp_t *sp, int64_t start_offset, int32_t state_epoch, const gr_sp_batch_t *b, size_t n,
                              char *errstr, size_t errstr_size) {
    if (start_offset < 0)
        return gr_err_fmt(GR_ERR__MALFORMED, errstr, errstr_size, "start offset %" PRId64, start_offset);
    for (size_t i = 0; i < n; i++) {
        if (b[i].first_offset < start_offset)
            return gr_err_fmt(GR_ERR__MALFORMED, errstr, errstr_size, "batch %" PRId64 " below start offset %" PRId64,
                              b[i].first_offset, start_offset);
        if (b[i].first_offset > b[i].last_offset || b[i].delivery_count < 0 ||
            (b[i].state != GR_SP_AVAILABLE && !gr__sp_terminal(b[i].state)))
            return gr_err_fmt(GR_ERR__MALFORMED, errstr, errstr_size, "bad batch %" PRId64 "-%" PRId64,
                              b[i].first_offset, b[i].last_offset);
        if (i && b[i].first_offset <= b[i - 1].last_offset)
            return gr_err_fmt(GR_ERR__MALFORMED, errstr, errstr_size, "batches overlap at %" PRId64, b[i].first_offset);
    }
    gr_sp_init_offset(sp, start_offset, state_epoch);
    for (size_t i = 0; i < n; i++) {
        gr__sp_rng_t *e = gr__sp_insert(sp, sp->n, 1);
        e->first = b[i].first_offset;
        e->last = b[i].last_offset;
        e->state = (uint8_t)b[i].state;
        e->count = b[i].delivery_count;
        e->tracked = 0; /* one cached batch per persisted range, as Kafka rebuilds it */
        if (gr__sp_terminal(e->state)) sp->dcc += e->last - e->first + 1;
        if (e->state == GR_SP_AVAILABLE && b[i].not_before_ms > 0) { /* still in its redelivery backoff */
            int64_t due = gr__sp_due(b[i].not_before_ms);
            if (!sp->clock) sp->clock = due; /* reference for the 32-bit range times until the next call */
            e->dl = (uint32_t)due;
            gr__sp_timer_push(sp, due, e->first, e->last);
        }
        gr__sp_coalesce_at(sp, sp->n - 1);
    }
    if (n) sp->end = b[n - 1].last_offset + 1;
    gr__sp_advance(sp);
    return GR_ERR_NONE;
}

/* ---- export ------------------------------------------------------------ */

void gr_sp_export(const gr_sp_t *sp, gr_sp_snapshot_t *out) {
    gr_sp_delta_reset(out);
    for (size_t i = gr__sp_lower_bound(sp, sp->spso); i < sp->n; i++) {
        const gr__sp_rng_t *e = sp->r + sp->head + i;
        int state = e->state;
        int16_t count = e->count;
        if (state == GR_SP_ACQUIRED) { /* §7.3: the last persisted state */
            state = GR_SP_AVAILABLE;
            count--;
        }
        if (state == GR_SP_AVAILABLE && count == 0) continue; /* never delivered: a hole */
        gr__sp_delta_put(out, e->first, e->last, state, count, gr__sp_delayed(e) ? gr__sp_deadline(sp, e) : 0);
    }
    out->start_offset = sp->spso;
    out->delivery_complete_count = sp->dcc;
    out->state_epoch = sp->state_epoch;
    out->changed = true;
}

/* ---- accessors --------------------------------------------------------- */

int64_t gr_sp_start_offset(const gr_sp_t *sp) { return sp->spso; }
int64_t gr_sp_end_offset(const gr_sp_t *sp) { return sp->end > sp->spso ? sp->end - 1 : sp->spso; }
int64_t gr_sp_span(const gr_sp_t *sp) { return sp->end - sp->spso; }
int64_t gr_sp_delivery_complete_count(const gr_sp_t *sp) { return sp->dcc; }
int64_t gr_sp_acquired_count(const gr_sp_t *sp) { return sp->n_acquired; }
size_t gr_sp_range_count(const gr_sp_t *sp) { return sp->n; }
int32_t gr_sp_state_epoch(const gr_sp_t *sp) { return sp->state_epoch; }

bool gr_sp_record(const gr_sp_t *sp, int64_t offset, int *state, int16_t *count, const char **member,
                  int64_t *deadline) {
    size_t i = gr__sp_lower_bound(sp, offset);
    if (i >= sp->n) return false;
    const gr__sp_rng_t *e = sp->r + sp->head + i;
    if (e->first > offset) return false;
    if (state) *state = e->state;
    if (count) *count = e->count;
    if (member) *member = e->member ? sp->members[e->member].id : NULL;
    if (deadline) *deadline = e->state == GR_SP_ACQUIRED || gr__sp_delayed(e) ? gr__sp_deadline(sp, e) : 0;
    return true;
}

int64_t gr_sp_delayed_count(const gr_sp_t *sp, int64_t *next_due) {
    int64_t n = 0, due = INT64_MAX;
    for (size_t i = gr__sp_lower_bound(sp, sp->spso); i < sp->n; i++) {
        const gr__sp_rng_t *e = sp->r + sp->head + i;
        if (!gr__sp_delayed(e)) continue;
        n += e->last - e->first + 1;
        if (gr__sp_deadline(sp, e) < due) due = gr__sp_deadline(sp, e);
    }
    if (next_due) *next_due = due;
    return n;
}

/* ---- invariants -------------------------------------------------------- */

#define BAD(...) return gr_err_fmt(GR_ERR__STATE, errstr, errstr_size, __VA_ARGS__)

static gr_err_t check_range(const gr_sp_t *sp, const gr__sp_rng_t *e, const gr_sp_conf_t *conf, char *errstr,
                            size_t errstr_size) {
    if (e->first > e->last) BAD("range %" PRId64 "-%" PRId64 " inverted", e->first, e->last);
    if (e->state != GR_SP_AVAILABLE && e->state != GR_SP_ACQUIRED && !gr__sp_terminal(e->state))
        BAD("range %" PRId64 " bad state %d", e->first, e->state);
    if (e->count < 0) BAD("range %" PRId64 " negative count", e->first);
    if (conf && e->count > conf->delivery_count_limit) BAD("range %" PRId64 " count %d > limit", e->first, e->count);
    if (e->first < sp->spso && (e->state != GR_SP_ACQUIRED || e->last >= sp->spso))
        BAD("range %" PRId64 "-%" PRId64 " state %d below SPSO %" PRId64, e->first, e->last, e->state, sp->spso);
    if (e->first >= sp->spso && e->last >= sp->end) BAD("range %" PRId64 " past end", e->first);
    if (e->state == GR_SP_ACQUIRED) {
        if (!e->member || e->member >= sp->n_members || !sp->members[e->member].id)
            BAD("range %" PRId64 " acquired without a valid owner", e->first);
        if (e->count < 1) BAD("range %" PRId64 " acquired with count 0", e->first);
        int covered = sp->heap_n * sp->n > 200000; /* too costly: skip */
        for (size_t h = 0; h < sp->heap_n && !covered; h++)
            covered = sp->heap[h].deadline <= gr__sp_deadline(sp, e) && sp->heap[h].first <= e->first &&
                      sp->heap[h].last >= e->first;
        if (!covered) BAD("range %" PRId64 " locked without a timer", e->first);
    } else if (gr__sp_delayed(e)) {
        if (e->member || e->acq_at) BAD("range %" PRId64 " owner on a delayed record", e->first);
        int covered = sp->heap_n * sp->n > 200000; /* too costly: skip */
        for (size_t h = 0; h < sp->heap_n && !covered; h++)
            covered = (uint32_t)sp->heap[h].deadline == e->dl && sp->heap[h].first <= e->first &&
                      sp->heap[h].last >= e->first;
        if (!covered) BAD("range %" PRId64 " delayed without a timer", e->first);
    } else if (e->member || e->dl || e->acq_at) {
        BAD("range %" PRId64 " owner on unacquired state", e->first);
    }
    return GR_ERR_NONE;
}

gr_err_t gr_sp_check(const gr_sp_t *sp, const gr_sp_conf_t *conf, char *errstr, size_t errstr_size) {
    int64_t dcc = 0, acq = 0, first_avail = -1;
    if (sp->end < sp->spso) BAD("end %" PRId64 " < SPSO %" PRId64, sp->end, sp->spso);
    int64_t p = sp->spso; /* next offset ≥ SPSO not yet seen */
    for (size_t i = 0; i < sp->n; i++) {
        const gr__sp_rng_t *e = sp->r + sp->head + i;
        gr_err_t err = check_range(sp, e, conf, errstr, errstr_size);
        if (err) return err;
        if (i) {
            const gr__sp_rng_t *pr = e - 1;
            if (pr->last >= e->first) BAD("ranges overlap at %" PRId64, e->first);
            if (pr->last + 1 == e->first && pr->state == e->state && pr->count == e->count &&
                !(pr->last < sp->spso && e->first >= sp->spso) &&
                (gr__sp_terminal(e->state) ||
                 (pr->tracked && e->tracked && pr->member == e->member && pr->dl == e->dl && pr->acq_at == e->acq_at)))
                BAD("ranges %" PRId64 " and %" PRId64 " not coalesced", pr->first, e->first);
        }
        if (e->state == GR_SP_ACQUIRED) acq += e->last - e->first + 1;
        if (e->first < sp->spso) continue;
        if (gr__sp_terminal(e->state)) dcc += e->last - e->first + 1;
        if (first_avail < 0 && (e->first > p || (e->state == GR_SP_AVAILABLE && !e->dl)))
            first_avail = e->first > p ? p : e->first;
        p = e->last + 1;
    }
    if (first_avail < 0 && p < sp->end) first_avail = p;
    if (sp->end > sp->spso && p != sp->end) BAD("last range ends at %" PRId64 ", SPEO+1 is %" PRId64, p - 1, sp->end);
    if (dcc != sp->dcc) BAD("deliveryCompleteCount %" PRId64 " != %" PRId64, sp->dcc, dcc);
    if (acq != sp->n_acquired) BAD("acquired count %" PRId64 " != %" PRId64, sp->n_acquired, acq);
    if (first_avail >= 0 && sp->avail_hint > first_avail)
        BAD("available hint %" PRId64 " past %" PRId64, sp->avail_hint, first_avail);
    return GR_ERR_NONE;
}
