/* Intrusive chained hash table; see htab.h. */
#include <stdlib.h>

#include "base/htab.h"

uint64_t gr_hash_fnv1a(uint64_t h, const void *p, size_t n) {
    const uint8_t *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

void gr_htab_init(gr_htab_t *t, size_t n_buckets) {
    t->buckets = calloc(n_buckets, sizeof(*t->buckets));
    if (!t->buckets) abort();
    t->n_buckets = n_buckets;
    t->n = 0;
}

void gr_htab_free(gr_htab_t *t) {
    free(t->buckets);
    t->buckets = NULL;
    t->n_buckets = t->n = 0;
}

gr_hnode_t **gr_htab_slot(const gr_htab_t *t, uint64_t h, gr_htab_eq_fn *eq, const void *key) {
    gr_hnode_t **pp = &t->buckets[h & (t->n_buckets - 1)];
    while (*pp && !((*pp)->hash == h && eq(*pp, key))) pp = &(*pp)->next;
    return pp;
}

static void grow(gr_htab_t *t) {
    size_t nb = t->n_buckets * 2;
    gr_hnode_t **b = calloc(nb, sizeof(*b));
    if (!b) abort();
    for (size_t i = 0; i < t->n_buckets; i++) {
        for (gr_hnode_t *e = t->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->n_buckets = nb;
}

void gr_htab_insert(gr_htab_t *t, gr_hnode_t *node, uint64_t h) {
    if (t->n >= t->n_buckets) grow(t);
    gr_hnode_t **slot = &t->buckets[h & (t->n_buckets - 1)];
    node->hash = h;
    node->next = *slot;
    *slot = node;
    t->n++;
}

gr_hnode_t *gr_htab_unlink(gr_htab_t *t, gr_hnode_t **slot) {
    gr_hnode_t *e = *slot;
    *slot = e->next;
    e->next = NULL;
    t->n--;
    return e;
}

static gr_hnode_t *first_from(const gr_htab_t *t, size_t i) {
    for (; i < t->n_buckets; i++)
        if (t->buckets[i]) return t->buckets[i];
    return NULL;
}

gr_hnode_t *gr_htab_first(const gr_htab_t *t) { return first_from(t, 0); }

gr_hnode_t *gr_htab_next(const gr_htab_t *t, const gr_hnode_t *node) {
    if (node->next) return node->next;
    return first_from(t, (size_t)(node->hash & (t->n_buckets - 1)) + 1);
}
