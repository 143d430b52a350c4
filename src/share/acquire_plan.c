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
