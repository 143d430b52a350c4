/* The share-state batch combiner (Kafka's PersisterStateBatchCombiner, spec §7.2).
 *
 * The merged state is a function offset -> (state, count) where each offset takes
 * the highest-priority batch that covers it: higher delivery count first, then
 * higher state id (ARCHIVED 4 > ACKNOWLEDGED 2 > AVAILABLE 0), then the later
 * redelivery due time (gregord's delayed redelivery; 0 = none). Priority, not
 * recency, decides: an old ARCHIVED(1) beats a new AVAILABLE(1). Because that is a
 * pointwise maximum, merging is associative: merge(merge(s, a), b) equals
 * merge(s, merge(a, b)). Recovery relies on this (an update record stores the
 * normalised batches of one write; replaying it gives the state the live merge
 * gave). Output runs are maximal (contiguous equal runs coalesce), so the
 * representation of a state is unique and tests can compare arrays. */
#include <stdlib.h>
#include <string.h>

#include "share/state_store.h"

void gr_sstore_bvec_free(gr_sstore_bvec_t *bv) {
    free(bv->v);
    bv->v = NULL;
    bv->n = bv->cap = 0;
}

static void bvec_reserve(gr_sstore_bvec_t *bv, size_t n) {
    if (n <= bv->cap) return;
    size_t cap = bv->cap ? bv->cap : 8;
    while (cap < n) cap *= 2;
    gr_sstore_batch_t *v = realloc(bv->v, cap * sizeof(*v));
    if (!v) abort(); /* small internal allocation: abort on OOM (STYLE §4) */
    bv->v = v;
    bv->cap = cap;
}

void gr_sstore_bvec_push(gr_sstore_bvec_t *bv, const gr_sstore_batch_t *b) {
    bvec_reserve(bv, bv->n + 1);
    bv->v[bv->n++] = *b;
}

bool gr_sstore_batch_valid(const gr_sstore_batch_t *b) {
    if (b->state != GR_SSTORE_AVAILABLE && b->state != GR_SSTORE_ACKNOWLEDGED && b->state != GR_SSTORE_ARCHIVED)
        return false;
    if (b->due_ms < 0 || (b->due_ms && b->state != GR_SSTORE_AVAILABLE)) return false;
    return b->count >= 0 && b->first_offset >= 0 && b->first_offset <= b->last_offset && b->last_offset < INT64_MAX;
}

/* Priority order of §7.2: count, then state id. */
static int prio_cmp(const gr_sstore_batch_t *a, const gr_sstore_batch_t *b) {
    if (a->count != b->count) return a->count < b->count ? -1 : 1;
    if (a->state != b->state) return a->state < b->state ? -1 : 1;
    if (a->due_ms != b->due_ms) return a->due_ms < b->due_ms ? -1 : 1; /* still a pointwise maximum */
    return 0;
}

static int first_cmp(const void *pa, const void *pb) {
    const gr_sstore_batch_t *a = pa, *b = pb;
    if (a->first_offset != b->first_offset) return a->first_offset < b->first_offset ? -1 : 1;
    return 0;
}

/* Append [first,last] with b's (state,count), coalescing with the previous run. */
static void emit(gr_sstore_bvec_t *out, int64_t first, int64_t last, const gr_sstore_batch_t *b) {
    if (out->n > 0) {
        gr_sstore_batch_t *p = &out->v[out->n - 1];
        if (p->last_offset + 1 == first && p->state == b->state && p->count == b->count && p->due_ms == b->due_ms) {
            p->last_offset = last;
            return;
        }
    }
    gr_sstore_batch_t nb = {
        .first_offset = first, .last_offset = last, .state = b->state, .count = b->count, .due_ms = b->due_ms};
    gr_sstore_bvec_push(out, &nb);
}

/* A binary max-heap of the batches covering the sweep position, by priority.
 * Entries whose range ended are removed lazily when they reach the top. */
typedef struct heap {
    const gr_sstore_batch_t **v;
    size_t n, cap;
} heap_t;

static void heap_push(heap_t *h, const gr_sstore_batch_t *b) {
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 16;
        h->v = realloc(h->v, h->cap * sizeof(*h->v));
        if (!h->v) abort();
    }
    size_t i = h->n++;
    while (i > 0 && prio_cmp(h->v[(i - 1) / 2], b) < 0) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = b;
}

static void heap_pop(heap_t *h) {
    const gr_sstore_batch_t *last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && prio_cmp(h->v[c + 1], h->v[c]) > 0) c++;
        if (prio_cmp(h->v[c], last) <= 0) break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n > 0) h->v[i] = last;
}

/* Sweep over in[] (sorted by first offset, all >= 0): emit the pointwise maximum. */
static void sweep(const gr_sstore_batch_t *in, size_t n, gr_sstore_bvec_t *out) {
    heap_t h = {0};
    size_t i = 0;
    int64_t pos = 0;
    while (i < n || h.n > 0) {
        while (h.n > 0 && h.v[0]->last_offset < pos) heap_pop(&h);
        if (h.n == 0) {
            if (i >= n) break;
            pos = in[i].first_offset; /* a hole: jump to the next batch */
        }
        while (i < n && in[i].first_offset <= pos) heap_push(&h, &in[i++]);
        while (h.v[0]->last_offset < pos) heap_pop(&h);
        const gr_sstore_batch_t *top = h.v[0];
        /* The winner holds until it ends or another batch starts (which may outrank it). */
        int64_t end = top->last_offset;
        if (i < n && in[i].first_offset - 1 < end) end = in[i].first_offset - 1;
        emit(out, pos, end, top);
        pos = end + 1;
    }
    free(h.v);
}

/* Copy src into dst, clipped to >= start (-1: no clip), skipping empty results. */
static size_t clip_into(gr_sstore_batch_t *dst, const gr_sstore_batch_t *src, size_t n, int64_t start) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        gr_sstore_batch_t b = src[i];
        if (start >= 0) {
            if (b.last_offset < start) continue;
            if (b.first_offset < start) b.first_offset = start; /* trim the straddling batch */
        }
        dst[k++] = b;
    }
    return k;
}

void gr_sstore_merge(const gr_sstore_batch_t *old, size_t n_old, const gr_sstore_batch_t *add, size_t n_add,
                     int64_t start_offset, gr_sstore_bvec_t *out) {
    out->n = 0;
    size_t total = n_old + n_add;
    if (total == 0) return;
    gr_sstore_batch_t *tmp = malloc(total * sizeof(*tmp));
    if (!tmp) abort();
    /* old is sorted; sort only the (usually few) new batches, then merge the two runs. */
    size_t na = clip_into(tmp + n_old, add, n_add, start_offset);
    qsort(tmp + n_old, na, sizeof(*tmp), first_cmp);
    gr_sstore_batch_t *sorted = malloc(total * sizeof(*sorted));
    if (!sorted) abort();
    size_t no = clip_into(tmp, old, n_old, start_offset);
    size_t i = 0, j = 0, k = 0;
    while (i < no || j < na) {
        if (j >= na || (i < no && tmp[i].first_offset <= tmp[n_old + j].first_offset))
            sorted[k++] = tmp[i++];
        else
            sorted[k++] = tmp[n_old + j++];
    }
    sweep(sorted, k, out);
    free(sorted);
    free(tmp);
}
