/* Share-partition core: the range array, the one place where a range changes
 * state (gr__sp_set, which keeps every counter in step), SPSO advancement,
 * the member table, the lock-timer heap and delta building.
 *
 * @locality the thread that owns the SP. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "share/sp_int.h"

void *gr__sp_xrealloc(void *p, size_t nmemb, size_t size) {
    if (nmemb && size > SIZE_MAX / nmemb) abort();
    size_t bytes = nmemb * size;
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) abort();
    return q;
}

/* ---- range array ------------------------------------------------------- */

size_t gr__sp_lower_bound(const gr_sp_t *sp, int64_t off) {
    size_t lo = 0, hi = sp->n;
    if (!hi) return 0;
    const gr__sp_rng_t *r = sp->r + sp->head;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].last < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Open `cnt` zeroed slots at idx, moving whichever side of the deque is
 * shorter: acks and pruning mostly happen near the front of the window. */
gr__sp_rng_t *gr__sp_insert(gr_sp_t *sp, size_t idx, size_t cnt) {
    assert(idx <= sp->n);
    if (idx < sp->n / 2 && sp->head >= cnt) {
        memmove(sp->r + sp->head - cnt, sp->r + sp->head, idx * sizeof(*sp->r));
        sp->head -= cnt;
    } else if (sp->head + sp->n + cnt <= sp->cap) {
        memmove(sp->r + sp->head + idx + cnt, sp->r + sp->head + idx, (sp->n - idx) * sizeof(*sp->r));
    } else {
        size_t ncap = 2 * (sp->n + cnt) + 16;
        gr__sp_rng_t *nr = gr__sp_xrealloc(NULL, ncap, sizeof(*nr));
        size_t nhead = (ncap - sp->n - cnt) / 2;
        if (sp->n) {
            memcpy(nr + nhead, sp->r + sp->head, idx * sizeof(*nr));
            memcpy(nr + nhead + idx + cnt, sp->r + sp->head + idx, (sp->n - idx) * sizeof(*nr));
        }
        free(sp->r);
        sp->r = nr;
        sp->cap = ncap;
        sp->head = nhead;
    }
    sp->n += cnt;
    gr__sp_rng_t *slot = GR__SP_AT(sp, idx);
    memset(slot, 0, cnt * sizeof(*slot));
    return slot;
}

void gr__sp_remove(gr_sp_t *sp, size_t idx, size_t cnt) {
    assert(idx + cnt <= sp->n);
    if (!cnt) return;
    if (idx < sp->n - idx - cnt) {
        memmove(sp->r + sp->head + cnt, sp->r + sp->head, idx * sizeof(*sp->r));
        sp->head += cnt;
    } else {
        memmove(sp->r + sp->head + idx, sp->r + sp->head + idx + cnt, (sp->n - idx - cnt) * sizeof(*sp->r));
    }
    sp->n -= cnt;
    if (sp->n == 0) sp->head = sp->cap / 2;
}

/* Make `x` the first offset of a range. Splitting a cached batch turns both
 * halves into per-offset tracked state (§1.6: partial ack, per-offset types,
 * record_limit stopping mid-batch, SPSO landing inside). The lock deadline is
 * copied to both halves (§1.4: split copies the remaining lock time). */
static int split_at(gr_sp_t *sp, int64_t x) {
    size_t i = gr__sp_lower_bound(sp, x);
    if (i >= sp->n || GR__SP_AT(sp, i)->first >= x) return 0;
    gr__sp_rng_t *nr = gr__sp_insert(sp, i + 1, 1);
    gr__sp_rng_t *e = GR__SP_AT(sp, i);
    *nr = *e;
    e->last = x - 1;
    nr->first = x;
    e->tracked = nr->tracked = 1;
    return 1;
}

static int mergeable(const gr_sp_t *sp, const gr__sp_rng_t *x, const gr__sp_rng_t *y);

/* x absorbs its right neighbour y. Terminal batches merged whole keep their batch
 * identity for the acknowledgement error texts (Kafka keeps each such in-flight batch
 * untracked and answers "The batch cannot be acknowledged..." for it). */
static void merge_into(gr__sp_rng_t *x, const gr__sp_rng_t *y) {
    x->tracked = x->tracked | y->tracked; /* non-terminal ranges merge only when both are tracked */
    x->last = y->last;
}

/* Merge range idx+1 into idx when they are equal (one-sided). */
static void merge_next(gr_sp_t *sp, size_t idx) {
    if (idx + 1 < sp->n && mergeable(sp, GR__SP_AT(sp, idx), GR__SP_AT(sp, idx + 1))) {
        merge_into(GR__SP_AT(sp, idx), GR__SP_AT(sp, idx + 1));
        gr__sp_remove(sp, idx + 1, 1);
    }
}

/* Split so that [a, b] is made of whole ranges [*i0, *i1). The outer pieces
 * of a split batch become tracked and may now equal their outer neighbours:
 * merge them there (the inner pieces are the caller's to change and merge). */
void gr__sp_isolate(gr_sp_t *sp, int64_t a, int64_t b, size_t *i0, size_t *i1) {
    int s1 = split_at(sp, a), s2 = split_at(sp, b + 1);
    if (s2) merge_next(sp, gr__sp_lower_bound(sp, b + 1));
    if (s1) {
        size_t i = gr__sp_lower_bound(sp, a);
        if (i >= 2) merge_next(sp, i - 2);
    }
    *i0 = gr__sp_lower_bound(sp, a);
    *i1 = gr__sp_lower_bound(sp, b + 1);
}

static int mergeable(const gr_sp_t *sp, const gr__sp_rng_t *x, const gr__sp_rng_t *y) {
    if (x->last + 1 != y->first || x->state != y->state || x->count != y->count) return 0;
    if (x->last < sp->spso && y->first >= sp->spso) return 0; /* never straddle SPSO */
    if (gr__sp_terminal(x->state)) return 1;                  /* batch identity no longer matters */
    /* Equal acquisition times too: W is measured per range. */
    return x->tracked && y->tracked && x->member == y->member && x->dl == y->dl && x->acq_at == y->acq_at;
}

size_t gr__sp_coalesce_at(gr_sp_t *sp, size_t idx) {
    if (idx + 1 < sp->n && mergeable(sp, GR__SP_AT(sp, idx), GR__SP_AT(sp, idx + 1))) {
        merge_into(GR__SP_AT(sp, idx), GR__SP_AT(sp, idx + 1));
        gr__sp_remove(sp, idx + 1, 1);
    }
    if (idx > 0 && mergeable(sp, GR__SP_AT(sp, idx - 1), GR__SP_AT(sp, idx))) {
        merge_into(GR__SP_AT(sp, idx - 1), GR__SP_AT(sp, idx));
        gr__sp_remove(sp, idx, 1);
        idx--;
    }
    return idx;
}

/* The single point where a range changes state. Keeps n_acquired, the
 * deliveryCompleteCount (§1.7), the first-available hint and the delta in
 * step. ACQUIRED is never written to the delta (§7.2). */
void gr__sp_set(gr_sp_t *sp, size_t idx, int state, int16_t count, uint32_t member, int64_t deadline,
                gr_sp_delta_t *delta) {
    gr__sp_rng_t *e = GR__SP_AT(sp, idx);
    int64_t len = e->last - e->first + 1;
    assert(!gr__sp_terminal(e->state)); /* §1.2: terminal states never change */
    if (e->state == GR_SP_ACQUIRED) sp->n_acquired -= len;
    if (state == GR_SP_ACQUIRED) {
        sp->n_acquired += len;
        GR_METRIC(gr__sp_stat_acquired(sp, len, count)); /* every acquisition passes here */
        e->acq_at = (uint32_t)sp->clock;
    } else {
        e->acq_at = 0;
    }
    if (e->first >= sp->spso && gr__sp_terminal(state)) sp->dcc += len;
    if (state == GR_SP_AVAILABLE && e->first < sp->avail_hint)
        sp->avail_hint = e->first < sp->spso ? sp->spso : e->first;
    int64_t due = state == GR_SP_AVAILABLE ? gr__sp_due(deadline) : 0;
    e->state = (uint8_t)state;
    e->count = count;
    e->member = state == GR_SP_ACQUIRED ? member : 0;
    e->dl = state == GR_SP_ACQUIRED ? (uint32_t)deadline : (uint32_t)due;
    if (due) gr__sp_timer_push(sp, due, e->first, e->last); /* gr_sp_expire makes it acquirable */
    if (delta && state != GR_SP_ACQUIRED && e->first >= sp->spso)
        gr__sp_delta_put(delta, e->first, e->last, state, count, due);
}

/* §1.7: walk forward from SPSO while records are terminal (a gap-window hole
 * stops the walk); the new SPSO is the last such offset + 1. Every range
 * wholly below it is dropped (terminal ranges only ever sit there). */
void gr__sp_advance(gr_sp_t *sp) {
    size_t i0 = gr__sp_lower_bound(sp, sp->spso), i = i0;
    int64_t p = sp->spso;
    while (i < sp->n) {
        gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (e->first != p || !gr__sp_terminal(e->state)) break;
        sp->dcc -= e->last - e->first + 1;
        p = e->last + 1;
        i++;
    }
    if (p == sp->spso) return;
    sp->spso = p;
    gr__sp_remove(sp, i0, i - i0);
    if (sp->avail_hint < p) sp->avail_hint = p;
    assert(sp->end >= p);
}

/* ---- members ----------------------------------------------------------- */

static uint32_t hash_str(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

uint32_t gr__sp_member_find(const gr_sp_t *sp, const char *id) {
    uint32_t h = hash_str(id);
    for (size_t m = 1; m < sp->n_members; m++) {
        const gr__sp_member_t *mb = &sp->members[m];
        if (mb->id && mb->hash == h && !strcmp(mb->id, id)) return (uint32_t)m;
    }
    return 0;
}

void gr__sp_member_drop(gr_sp_t *sp, uint32_t m) {
    /* Inside a transaction a rollback may need the id again: the unused
     * entry stays and the next collection frees it. */
    if (!m || !sp->members[m].id || sp->in_txn) return;
    free(sp->members[m].id);
    sp->members[m].id = NULL;
    sp->members_live--;
}

/* Members that hold nothing any more (their locks expired or were acked)
 * are forgotten once the table has doubled, so it stays O(active members). */
void gr__sp_member_gc(gr_sp_t *sp) {
    unsigned char *used = calloc(sp->n_members ? sp->n_members : 1, 1);
    if (!used) abort();
    for (size_t i = 0; i < sp->n; i++) used[GR__SP_AT(sp, i)->member] = 1;
    for (size_t m = 1; m < sp->n_members; m++)
        if (!used[m]) gr__sp_member_drop(sp, (uint32_t)m);
    free(used);
    sp->members_gc_at = 2 * sp->members_live + 64;
}

uint32_t gr__sp_member_intern(gr_sp_t *sp, const char *id) {
    uint32_t m = gr__sp_member_find(sp, id);
    if (m) return m;
    if (sp->members_live >= sp->members_gc_at && !sp->in_txn) gr__sp_member_gc(sp);
    size_t slot = 0;
    for (size_t i = 1; i < sp->n_members; i++)
        if (!sp->members[i].id) {
            slot = i;
            break;
        }
    if (!slot) {
        if (sp->n_members == 0) sp->n_members = 1; /* slot 0 = no owner */
        if (sp->n_members >= sp->members_cap) {
            sp->members_cap = sp->members_cap ? 2 * sp->members_cap : 8;
            sp->members = gr__sp_xrealloc(sp->members, sp->members_cap, sizeof(*sp->members));
        }
        slot = sp->n_members++;
    }
    sp->members[slot].id = strdup(id);
    if (!sp->members[slot].id) abort();
    sp->members[slot].hash = hash_str(id);
    sp->members_live++;
    return (uint32_t)slot;
}

/* ---- lock timers: binary min-heap on deadline --------------------------- */

static void heap_up(gr__sp_timer_t *h, size_t i) {
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p].deadline <= h[i].deadline) break;
        gr__sp_timer_t t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static void heap_down(gr__sp_timer_t *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && h[l].deadline < h[m].deadline) m = l;
        if (l + 1 < n && h[l + 1].deadline < h[m].deadline) m = l + 1;
        if (m == i) return;
        gr__sp_timer_t t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
}

static void heap_add(gr_sp_t *sp, int64_t deadline, int64_t first, int64_t last) {
    if (sp->heap_n == sp->heap_cap) {
        sp->heap_cap = sp->heap_cap ? 2 * sp->heap_cap : 16;
        sp->heap = gr__sp_xrealloc(sp->heap, sp->heap_cap, sizeof(*sp->heap));
    }
    sp->heap[sp->heap_n] = (gr__sp_timer_t){deadline, first, last};
    heap_up(sp->heap, sp->heap_n++);
}

/* Timers are invalidated lazily (acks and renews leave stale ones behind);
 * when stale ones dominate, rebuild the heap from the locked ranges so its
 * size stays proportional to the window. */
static void heap_rebuild(gr_sp_t *sp) {
    sp->heap_n = 0;
    for (size_t i = 0; i < sp->n; i++) {
        const gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (e->state != GR_SP_ACQUIRED && !gr__sp_delayed(e)) continue;
        int64_t dl = gr__sp_deadline(sp, e);
        if (sp->heap_n && sp->heap[sp->heap_n - 1].deadline == dl && sp->heap[sp->heap_n - 1].last + 1 == e->first) {
            sp->heap[sp->heap_n - 1].last = e->last;
            continue;
        }
        heap_add(sp, dl, e->first, e->last);
    }
}

void gr__sp_timer_push(gr_sp_t *sp, int64_t deadline, int64_t first, int64_t last) {
    if (sp->heap_n > 2 * sp->n + 64) heap_rebuild(sp);
    heap_add(sp, deadline, first, last);
}

void gr__sp_timer_pop(gr_sp_t *sp) {
    assert(sp->heap_n > 0);
    sp->heap[0] = sp->heap[--sp->heap_n];
    heap_down(sp->heap, sp->heap_n, 0);
}

/* ---- redelivery backoff ------------------------------------------------ */

void gr_sp_set_redelivery_backoff(gr_sp_t *sp, int64_t base_ms, int64_t max_ms) {
    sp->backoff_ms = base_ms > 0 ? base_ms : 0;
    sp->backoff_max_ms = max_ms > 0 ? max_ms : 0;
}

int64_t gr_sp_backoff_ms(const gr_sp_t *sp, int16_t count) {
    int64_t base = sp->backoff_ms, max = sp->backoff_max_ms;
    if (base <= 0) return 0;
    int64_t d = base;
    for (int16_t n = 1; n < count && d < max; n++) d *= 2; /* stops at max (bounded by validation) */
    return d < max ? d : max;
}

/* ---- deltas ------------------------------------------------------------ */

static void delta_push(gr_sp_delta_t *d, gr_sp_batch_t b) {
    if (d->n && d->batches[d->n - 1].last_offset + 1 == b.first_offset && d->batches[d->n - 1].state == b.state &&
        d->batches[d->n - 1].delivery_count == b.delivery_count &&
        d->batches[d->n - 1].not_before_ms == b.not_before_ms) {
        d->batches[d->n - 1].last_offset = b.last_offset;
        return;
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 8;
        d->batches = gr__sp_xrealloc(d->batches, d->cap, sizeof(*d->batches));
    }
    d->batches[d->n++] = b;
}

/* Record that [first, last] is now (state, count). Later writes win over
 * earlier ones for the same offsets (the store applies them in order). */
void gr__sp_dead_put(gr_sp_delta_t *d, int64_t first, int64_t last, int16_t count, int reason) {
    if (!d) return;
    gr_sp_dead_t *p = d->n_dead ? &d->dead[d->n_dead - 1] : NULL;
    if (p && p->last_offset + 1 == first && p->delivery_count == count && p->reason == reason) {
        p->last_offset = last; /* one range archived in pieces */
        return;
    }
    if (d->n_dead == d->cap_dead) {
        d->cap_dead = d->cap_dead ? 2 * d->cap_dead : 8;
        d->dead = gr__sp_xrealloc(d->dead, d->cap_dead, sizeof(*d->dead));
    }
    d->dead[d->n_dead++] = (gr_sp_dead_t){first, last, count, (uint8_t)reason};
}

void gr__sp_delta_put(gr_sp_delta_t *d, int64_t first, int64_t last, int state, int16_t count, int64_t not_before) {
    gr_sp_batch_t nb = {first, last, (int8_t)state, count, not_before};
    if (d->n == 0 || first > d->batches[d->n - 1].last_offset) {
        delta_push(d, nb);
        return;
    }
    /* Out of order or overlapping (expiry fires in deadline order): rebuild. */
    gr_sp_batch_t *old = d->batches;
    size_t n = d->n, i = 0;
    d->batches = NULL;
    d->n = d->cap = 0;
    for (; i < n && old[i].first_offset < first; i++) {
        gr_sp_batch_t b = old[i];
        if (b.last_offset >= first) b.last_offset = first - 1;
        delta_push(d, b);
    }
    delta_push(d, nb);
    for (i = 0; i < n; i++) {
        gr_sp_batch_t b = old[i];
        if (b.last_offset <= last) continue;
        if (b.first_offset <= last) b.first_offset = last + 1;
        delta_push(d, b);
    }
    free(old);
}

void gr__sp_delta_finish(const gr_sp_t *sp, gr_sp_delta_t *d, int64_t spso_before) {
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++) {
        gr_sp_batch_t b = d->batches[i];
        if (b.last_offset < sp->spso) continue; /* the store drops these anyway (§7.2) */
        if (b.first_offset < sp->spso) b.first_offset = sp->spso;
        d->batches[k++] = b;
    }
    d->n = k;
    d->start_offset = sp->spso;
    d->delivery_complete_count = sp->dcc;
    d->state_epoch = sp->state_epoch;
    if (k || sp->spso != spso_before) d->changed = true;
}

void gr_sp_delta_init(gr_sp_delta_t *d) {
    memset(d, 0, sizeof(*d));
    d->start_offset = -1;
    d->delivery_complete_count = -1;
}

/* A delta that grew past this many batches gives its buffers back when reset: a scattered
 * acknowledgement would otherwise keep them at their largest for good. */
#define DELTA_KEEP 64

void gr_sp_delta_reset(gr_sp_delta_t *d) {
    d->n = 0;
    d->n_dead = 0;
    d->changed = false;
    if (d->cap > DELTA_KEEP) {
        free(d->batches);
        d->batches = NULL, d->cap = 0;
    }
    if (d->cap_dead > DELTA_KEEP) {
        free(d->dead);
        d->dead = NULL, d->cap_dead = 0;
    }
}

void gr_sp_delta_free(gr_sp_delta_t *d) {
    free(d->batches);
    free(d->dead);
    gr_sp_delta_init(d);
}
