/* Client quota entities and values, Kafka's AlterClientQuotas validation, the describe
 * filter and the default quota callback's resolution (quota.h). */
#include "auth/quota.h"

#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/quota_int.h"
#include "base/hash.h"
#include "base/xalloc.h"

static const char *const KEY_NAMES[GR_QK__N] = {"producer_byte_rate", "consumer_byte_rate", "request_percentage",
                                                "controller_mutation_rate", "connection_creation_rate"};

const char *gr_quota_key_name(gr_quota_key_t k) { return (unsigned)k < GR_QK__N ? KEY_NAMES[k] : "?"; }

int gr_quota_key_find(const char *name) {
    for (int i = 0; i < GR_QK__N; i++)
        if (name && !strcmp(name, KEY_NAMES[i])) return i;
    return -1;
}

/* The store's index: open addressing over entry positions (0 empty, DEAD a removed one,
 * else position + 1), so finding an entity is O(1) however many there are. */
#define DEAD UINT32_MAX

void gr_quota_store_init(gr_quota_store_t *s) { memset(s, 0, sizeof(*s)); }

static void entry_free(gr_quota_entry_t *e) {
    free(e->user);
    free(e->client);
    free(e->ip);
}

void gr_quota_store_free(gr_quota_store_t *s) {
    for (size_t i = 0; i < s->n; i++) entry_free(&s->e[i]);
    free(s->e);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}

static char *dup_or_null(const char *s) { return s ? gr_xstrdup(s) : NULL; }

static void hash_name(gr_hasher_t *h, bool present, const char *name) {
    uint8_t tag = !present ? 0 : name ? 1 : 2;
    gr_hasher_update(h, &tag, 1);
    if (name && present) gr_hasher_update(h, name, strlen(name) + 1);
}

static uint64_t entity_hash(const gr_quota_entity_t *e) {
    gr_hasher_t h;
    gr_hasher_init(&h);
    gr_hasher_update(&h, &e->types, 1);
    hash_name(&h, e->types & GR_QE_USER, e->user);
    hash_name(&h, e->types & GR_QE_CLIENT, e->client);
    hash_name(&h, e->types & GR_QE_IP, e->ip);
    return gr_hasher_final(&h);
}

static gr_quota_entity_t entity_of(const gr_quota_entry_t *x) {
    return (gr_quota_entity_t){x->types, x->user, x->client, x->ip};
}

static void index_put(gr_quota_store_t *s, size_t pos) {
    gr_quota_entity_t e = entity_of(&s->e[pos]);
    size_t mask = s->n_slots - 1, i = entity_hash(&e) & mask;
    while (s->slots[i] && s->slots[i] != DEAD) i = (i + 1) & mask;
    s->slots[i] = (uint32_t)pos + 1;
}

static void index_rebuild(gr_quota_store_t *s) {
    size_t want = 16;
    while (want < 2 * (s->n + 1)) want <<= 1;
    free(s->slots);
    s->slots = gr_xcalloc(want, sizeof(*s->slots));
    s->n_slots = want;
    s->n_dead = 0;
    for (size_t i = 0; i < s->n; i++) index_put(s, i);
}

void gr_quota_store_copy(gr_quota_store_t *dst, const gr_quota_store_t *src) {
    gr_quota_store_init(dst);
    dst->cap = src->n;
    dst->e = src->n ? gr_xcalloc(src->n, sizeof(*dst->e)) : NULL;
    for (size_t i = 0; i < src->n; i++) {
        dst->e[i] = src->e[i];
        dst->e[i].user = dup_or_null(src->e[i].user);
        dst->e[i].client = dup_or_null(src->e[i].client);
        dst->e[i].ip = dup_or_null(src->e[i].ip);
    }
    dst->n = src->n;
    dst->version = src->version;
    index_rebuild(dst);
}

static bool name_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

bool gr__quota_entity_eq(const gr_quota_entity_t *a, const gr_quota_entity_t *b) {
    return a->types == b->types && (!(a->types & GR_QE_USER) || name_eq(a->user, b->user)) &&
           (!(a->types & GR_QE_CLIENT) || name_eq(a->client, b->client)) &&
           (!(a->types & GR_QE_IP) || name_eq(a->ip, b->ip));
}

/* The slot holding e, or the empty slot where the probe ended (-1 without an index). */
static long slot_of(const gr_quota_store_t *s, const gr_quota_entity_t *e) {
    if (!s->n_slots) return -1;
    size_t mask = s->n_slots - 1, i = entity_hash(e) & mask;
    for (; s->slots[i]; i = (i + 1) & mask) {
        if (s->slots[i] == DEAD) continue;
        gr_quota_entity_t x = entity_of(&s->e[s->slots[i] - 1]);
        if (gr__quota_entity_eq(&x, e)) return (long)i;
    }
    return -1;
}

static long find(const gr_quota_store_t *s, const gr_quota_entity_t *e) {
    long sl = slot_of(s, e);
    return sl < 0 ? -1 : (long)s->slots[sl] - 1;
}

const gr_quota_entry_t *gr_quota_store_find(const gr_quota_store_t *s, const gr_quota_entity_t *e) {
    long i = find(s, e);
    return i < 0 ? NULL : &s->e[i];
}

static long add(gr_quota_store_t *s, const gr_quota_entity_t *e) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->e = gr_xrealloc(s->e, s->cap * sizeof(*s->e));
    }
    gr_quota_entry_t *x = &s->e[s->n++];
    memset(x, 0, sizeof(*x));
    x->types = e->types;
    if (e->types & GR_QE_USER) x->user = dup_or_null(e->user);
    if (e->types & GR_QE_CLIENT) x->client = dup_or_null(e->client);
    if (e->types & GR_QE_IP) x->ip = dup_or_null(e->ip);
    if (2 * (s->n + s->n_dead) > s->n_slots)
        index_rebuild(s);
    else
        index_put(s, s->n - 1);
    return (long)s->n - 1;
}

/* Remove entry i: the last entry takes its place (the store's order is no order). */
static void drop(gr_quota_store_t *s, long i) {
    gr_quota_entity_t e = entity_of(&s->e[i]);
    s->slots[slot_of(s, &e)] = DEAD;
    s->n_dead++;
    entry_free(&s->e[i]);
    size_t last = s->n - 1;
    if ((size_t)i != last) {
        gr_quota_entity_t le = entity_of(&s->e[last]);
        s->slots[slot_of(s, &le)] = (uint32_t)i + 1;
        s->e[i] = s->e[last];
    }
    s->n--;
    if (4 * s->n_dead > s->n_slots) index_rebuild(s);
}

void gr_quota_store_set(gr_quota_store_t *s, const gr_quota_entity_t *e, gr_quota_key_t k, bool has_value, double v) {
    long i = find(s, e);
    s->version++;
    if (i < 0) {
        if (!has_value) return;
        i = add(s, e);
    }
    gr_quota_entry_t *x = &s->e[i];
    if (has_value) {
        x->set |= (uint8_t)(1u << k);
        x->v[k] = v;
        return;
    }
    x->set &= (uint8_t) ~(1u << k);
    if (!x->set) drop(s, i);
}

/* ---------------------------------------------------------------- Java's HashMap order */

uint32_t gr__quota_java_hash(const char *s) {
    uint32_t h = 0;
    for (; *s; s++) h = 31 * h + (unsigned char)*s;
    return h ^ (h >> 16);
}

/* Capacity of `new HashMap<>(init)` after `distinct` puts (Java 8+ resize rules). */
size_t gr__quota_java_cap(size_t init, size_t distinct) {
    size_t cap = 1;
    while (cap < init) cap <<= 1;
    size_t thr = (size_t)(cap * 0.75);
    for (size_t size = 1; size <= distinct; size++)
        if (size > thr) {
            cap <<= 1;
            thr = (size_t)(cap * 0.75);
        }
    return cap;
}

typedef struct ordered {
    uint32_t bucket;
    size_t idx;
    gr_quota_pair_t pair;
} ordered_t;

static int cmp_ordered(const void *x, const void *y) {
    const ordered_t *a = x, *b = y;
    if (a->bucket != b->bucket) return a->bucket < b->bucket ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Stable sort by bucket (O(n log n): requests may carry many pairs). */
void gr__quota_java_order(gr_quota_pair_t *p, size_t n, size_t cap) {
    if (n < 2) return;
    ordered_t *o = gr_xcalloc(n, sizeof(*o));
    for (size_t i = 0; i < n; i++) o[i] = (ordered_t){(uint32_t)(gr__quota_java_hash(p[i].type) & (cap - 1)), i, p[i]};
    qsort(o, n, sizeof(*o), cmp_ordered);
    for (size_t i = 0; i < n; i++) p[i] = o[i].pair;
    free(o);
}

size_t gr_quota_entry_pairs(const gr_quota_entry_t *e, gr_quota_pair_t *map) {
    size_t n = 0;
    if (e->types & GR_QE_USER) map[n++] = (gr_quota_pair_t){"user", e->user};
    if (e->types & GR_QE_CLIENT) map[n++] = (gr_quota_pair_t){"client-id", e->client};
    if (e->types & GR_QE_IP) map[n++] = (gr_quota_pair_t){"ip", e->ip};
    gr__quota_java_order(map, n, gr__quota_java_cap(n, n));
    return n;
}

void gr_quota_entity_text(const gr_quota_pair_t *map, size_t n, char *out, size_t out_size) {
    size_t off = (size_t)snprintf(out, out_size, "ClientQuotaEntity(entries={");
    for (size_t i = 0; i < n && off < out_size; i++)
        off += (size_t)snprintf(out + off, out_size - off, "%s%s=%s", i ? ", " : "", map[i].type,
                                map[i].name ? map[i].name : "null");
    if (off < out_size) snprintf(out + off, out_size - off, "})");
}
