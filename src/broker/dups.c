#include "broker/dups.h"

#include <stdlib.h>
#include <string.h>

static int keyed_cmp(const void *a, const void *b) {
    const gr_keyed_t *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->s.len != y->s.len) return x->s.len < y->s.len ? -1 : 1;
    int c = x->s.len > 0 ? memcmp(x->s.ptr, y->s.ptr, (size_t)x->s.len) : 0;
    if (c) return c;
    return x->i < y->i ? -1 : x->i > y->i;
}

static bool same_key(const gr_keyed_t *x, const gr_keyed_t *y) {
    return x->kind == y->kind && x->s.len == y->s.len &&
           (x->s.len <= 0 || !memcmp(x->s.ptr, y->s.ptr, (size_t)x->s.len));
}

void gr_find_dups(gr_keyed_t *keys, int32_t n, bool *dup, bool *later) {
    qsort(keys, (size_t)n, sizeof(*keys), keyed_cmp);
    for (int32_t k = 0; k < n; k++) {
        bool same_prev = k > 0 && same_key(&keys[k], &keys[k - 1]);
        bool same_next = k + 1 < n && same_key(&keys[k], &keys[k + 1]);
        if (dup) dup[keys[k].i] = same_prev || same_next;
        if (later) later[keys[k].i] = same_prev;
    }
}

gr_str_t gr_req_str_copy(gr_req_t *req, const char *s) {
    if (!s) return GR_STR_NULL;
    size_t n = strlen(s);
    return (gr_str_t){gr_arena_strndup(&req->arena, s, n), (int32_t)n};
}
