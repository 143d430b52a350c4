/* Client quota entities and values, Kafka's AlterClientQuotas validation, the describe
 * filter and the default quota callback's resolution (quota.h). */
#include "auth/quota.h"

#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/quota_int.h"
#include "base/xalloc.h"

static const char *const KEY_NAMES[GR_QK__N] = {"producer_byte_rate", "consumer_byte_rate", "request_percentage",
                                                "controller_mutation_rate", "connection_creation_rate"};

const char *gr_quota_key_name(gr_quota_key_t k) { return (unsigned)k < GR_QK__N ? KEY_NAMES[k] : "?"; }

int gr_quota_key_find(const char *name) {
    for (int i = 0; i < GR_QK__N; i++)
        if (name && !strcmp(name, KEY_NAMES[i])) return i;
    return -1;
}

void gr_quota_store_init(gr_quota_store_t *s) { memset(s, 0, sizeof(*s)); }

static void entry_free(gr_quota_entry_t *e) {
    free(e->user);
    free(e->client);
    free(e->ip);
}

void gr_quota_store_free(gr_quota_store_t *s) {
    for (size_t i = 0; i < s->n; i++) entry_free(&s->e[i]);
    free(s->e);
    memset(s, 0, sizeof(*s));
}

static char *dup_or_null(const char *s) { return s ? gr_xstrdup(s) : NULL; }

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
}

static bool name_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

bool gr__quota_entity_eq(const gr_quota_entity_t *a, const gr_quota_entity_t *b) {
    return a->types == b->types && (!(a->types & GR_QE_USER) || name_eq(a->user, b->user)) &&
           (!(a->types & GR_QE_CLIENT) || name_eq(a->client, b->client)) &&
           (!(a->types & GR_QE_IP) || name_eq(a->ip, b->ip));
}

static long find(const gr_quota_store_t *s, const gr_quota_entity_t *e) {
    for (size_t i = 0; i < s->n; i++) {
        const gr_quota_entry_t *x = &s->e[i];
        gr_quota_entity_t xe = {x->types, x->user, x->client, x->ip};
        if (gr__quota_entity_eq(&xe, e)) return (long)i;
    }
    return -1;
}

const gr_quota_entry_t *gr_quota_store_find(const gr_quota_store_t *s, const gr_quota_entity_t *e) {
    long i = find(s, e);
    return i < 0 ? NULL : &s->e[i];
}

void gr_quota_store_set(gr_quota_store_t *s, const gr_quota_entity_t *e, gr_quota_key_t k, bool has_value, double v) {
    long i = find(s, e);
    s->version++;
    if (i < 0) {
        if (!has_value) return;
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
        i = (long)s->n - 1;
    }
    gr_quota_entry_t *x = &s->e[i];
    if (has_value) {
        x->set |= (uint8_t)(1u << k);
        x->v[k] = v;
        return;
    }
    x->set &= (uint8_t) ~(1u << k);
    if (!x->set) {
        entry_free(x);
        memmove(x, x + 1, (s->n - (size_t)i - 1) * sizeof(*x));
        s->n--;
    }
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

void gr__quota_java_order(gr_quota_pair_t *p, size_t n, size_t cap) {
    for (size_t i = 1; i < n; i++)
        for (size_t k = i;
             k > 0 && (gr__quota_java_hash(p[k - 1].type) & (cap - 1)) > (gr__quota_java_hash(p[k].type) & (cap - 1));
             k--) {
            gr_quota_pair_t t = p[k];
            p[k] = p[k - 1];
            p[k - 1] = t;
        }
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
