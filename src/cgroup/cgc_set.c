/* Sets of topic-partitions for the consumer protocol (cgc_int.h): sorted arrays. */
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgc_int.h"

int cgc_tp_cmp(const cgc_tp_t *a, const cgc_tp_t *b) {
    int c = memcmp(a->id.b, b->id.b, 16);
    if (c) return c;
    return a->p < b->p ? -1 : a->p > b->p;
}

void cgc_set_free(cgc_set_t *s) {
    free(s->v);
    memset(s, 0, sizeof(*s));
}

void cgc_set_clear(cgc_set_t *s) { s->n = 0; }

static int32_t lower_bound(const cgc_set_t *s, const cgc_tp_t *k) {
    int32_t lo = 0, hi = s->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (cgc_tp_cmp(&s->v[mid], k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool cgc_set_has(const cgc_set_t *s, const gr_uuid_t *id, int32_t p) {
    cgc_tp_t k = {*id, p};
    int32_t i = lower_bound(s, &k);
    return i < s->n && !cgc_tp_cmp(&s->v[i], &k);
}

void cgc_set_add(cgc_set_t *s, const gr_uuid_t *id, int32_t p) {
    cgc_tp_t k = {*id, p};
    int32_t i = lower_bound(s, &k);
    if (i < s->n && !cgc_tp_cmp(&s->v[i], &k)) return;
    s->v = cg_grow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
    memmove(&s->v[i + 1], &s->v[i], (size_t)(s->n - i) * sizeof(*s->v));
    s->v[i] = k;
    s->n++;
}

void cgc_set_copy(cgc_set_t *dst, const cgc_set_t *src) {
    dst->n = 0;
    dst->v = cg_grow(dst->v, &dst->cap, src->n, sizeof(*dst->v));
    if (src->n) memcpy(dst->v, src->v, (size_t)src->n * sizeof(*src->v));
    dst->n = src->n;
}

bool cgc_set_equal(const cgc_set_t *a, const cgc_set_t *b) {
    return a->n == b->n && (!a->n || !memcmp(a->v, b->v, (size_t)a->n * sizeof(*a->v)));
}

void cgc_set_minus(cgc_set_t *dst, const cgc_set_t *a, const cgc_set_t *b) {
    dst->n = 0;
    for (int32_t i = 0; i < a->n; i++)
        if (!cgc_set_has(b, &a->v[i].id, a->v[i].p)) {
            dst->v = cg_grow(dst->v, &dst->cap, dst->n + 1, sizeof(*dst->v));
            dst->v[dst->n++] = a->v[i];
        }
}

void cgc_set_intersect(cgc_set_t *dst, const cgc_set_t *a, const cgc_set_t *b) {
    dst->n = 0;
    for (int32_t i = 0; i < a->n; i++)
        if (cgc_set_has(b, &a->v[i].id, a->v[i].p)) {
            dst->v = cg_grow(dst->v, &dst->cap, dst->n + 1, sizeof(*dst->v));
            dst->v[dst->n++] = a->v[i];
        }
}

void gr_cgc_assignment_free(gr_cgc_assignment_t *a) {
    free(a->topics);
    free(a->parts);
    memset(a, 0, sizeof(*a));
}

void cgc_set_to_assignment(const cgc_set_t *s, gr_cgc_assignment_t *a) {
    memset(a, 0, sizeof(*a));
    a->parts = malloc((size_t)s->n * sizeof(int32_t) + 1);
    a->topics = calloc((size_t)s->n + 1, sizeof(*a->topics));
    if (!a->parts || !a->topics) abort();
    for (int32_t i = 0; i < s->n; i++) {
        a->parts[i] = s->v[i].p;
        if (!a->n_topics || !gr_uuid_eq(&a->topics[a->n_topics - 1].topic_id, &s->v[i].id))
            a->topics[a->n_topics++] = (gr_cgc_tparts_t){s->v[i].id, &a->parts[i], 0};
        a->topics[a->n_topics - 1].n++;
    }
}

void cgc_set_from_assignment(cgc_set_t *s, const gr_cgc_assignment_t *a) {
    s->n = 0;
    for (int32_t t = 0; t < a->n_topics; t++)
        for (int32_t i = 0; i < a->topics[t].n; i++) cgc_set_add(s, &a->topics[t].topic_id, a->topics[t].partitions[i]);
}
