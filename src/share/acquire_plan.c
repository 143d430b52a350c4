/* ShareFetch acquisition arithmetic: see acquire_plan.h. */
#include "share/acquire_plan.h"

#include <stdlib.h>

#include "base/xalloc.h"

int64_t gr_share_read_until(int64_t next, int64_t spe, int64_t budget) {
    return (next > spe ? next : spe) + budget + 1;
}

void gr_share_hdrs_push(gr_share_hdrs_t *hs, int64_t base, int64_t last, int64_t pos, int64_t end) {
    if (hs->n == hs->cap) {
        hs->cap = hs->cap ? 2 * hs->cap : 32;
        hs->v = gr_xrealloc(hs->v, hs->cap * sizeof(*hs->v));
        hs->pos = gr_xrealloc(hs->pos, hs->cap * sizeof(*hs->pos));
        hs->end = gr_xrealloc(hs->end, hs->cap * sizeof(*hs->end));
    }
    hs->v[hs->n] = (gr_sp_log_batch_t){base, last};
    hs->pos[hs->n] = pos;
    hs->end[hs->n] = end;
    hs->n++;
}

void gr_share_hdrs_free(gr_share_hdrs_t *hs) {
    free(hs->v);
    free(hs->pos);
    free(hs->end);
    *hs = (gr_share_hdrs_t){0};
}

void gr_share_hdrs_cover(const gr_share_hdrs_t *hs, int64_t first, int64_t last, int64_t *pos, int64_t *len) {
    size_t i = 0, j;
    while (i + 1 < hs->n && hs->v[i].last_offset < first) i++;
    j = i;
    while (j + 1 < hs->n && hs->v[j].last_offset < last) j++;
    *pos = hs->pos[i];
    *len = hs->end[j] - hs->pos[i];
}

size_t gr_share_merge_ranges(const gr_sp_acquired_t *in, size_t n_in, gr_sp_acquired_t *out) {
    size_t n = 0;
    for (size_t i = 0; i < n_in; i++) {
        const gr_sp_acquired_t *r = &in[i];
        gr_sp_acquired_t *prev = n ? &out[n - 1] : NULL;
        if (prev && prev->last_offset + 1 == r->first_offset && prev->delivery_count == r->delivery_count)
            prev->last_offset = r->last_offset;
        else
            out[n++] = *r;
    }
    return n;
}

int64_t gr_share_read_bound(bool read_committed, int64_t hwm, int64_t lso) {
    return read_committed && lso < hwm ? lso : hwm;
}

static int by_first(const void *x, const void *y) {
    const gr_share_abort_t *a = x, *b = y;
    return a->first_offset < b->first_offset ? -1 : a->first_offset > b->first_offset;
}

static bool is_abort_marker(const gr_share_txn_batch_t *bt, const gr_share_abort_t *ab, size_t n_ab) {
    if (!bt->control) return false;
    for (size_t i = 0; i < n_ab; i++)
        if (ab[i].pid == bt->pid && ab[i].marker_offset == bt->base) return true;
    return false;
}

size_t gr_share_aborted_batches(const gr_share_txn_batch_t *b, size_t n, gr_share_abort_t *ab, size_t n_ab,
                                gr_sp_offsets_t *out) {
    if (!n || !n_ab) return 0;
    qsort(ab, n_ab, sizeof(*ab), by_first);
    int64_t *set = gr_xmalloc(n_ab * sizeof(*set)); /* producers with an aborted transaction open here */
    size_t n_set = 0, next = 0, n_out = 0;
    for (size_t i = 0; i < n; i++) {
        const gr_share_txn_batch_t *bt = &b[i];
        if (bt->pid < 0) continue;
        for (; next < n_ab && ab[next].first_offset <= bt->last; next++) {
            size_t k = 0;
            while (k < n_set && set[k] != ab[next].pid) k++;
            if (k == n_set) set[n_set++] = ab[next].pid;
        }
        size_t k = 0;
        while (k < n_set && set[k] != bt->pid) k++;
        if (is_abort_marker(bt, ab, n_ab)) {
            if (k < n_set) set[k] = set[--n_set];
            continue;
        }
        if (!bt->transactional || k == n_set) continue;
        if (n_out && out[n_out - 1].last + 1 == bt->base)
            out[n_out - 1].last = bt->last;
        else
            out[n_out++] = (gr_sp_offsets_t){bt->base, bt->last};
    }
    free(set);
    return n_out;
}
