/* Kafka's validation of AlterClientQuotas (its controller's ClientQuotaControlManager):
 * same checks, same order, same messages. */
#include <arpa/inet.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/quota.h"
#include "auth/quota_int.h"
#include "base/err.h"
#include "base/xalloc.h"

enum { T_LONG, T_DOUBLE, T_INT };
static const int KEY_TYPE[GR_QK__N] = {T_LONG, T_LONG, T_DOUBLE, T_DOUBLE, T_INT};

typedef struct idx_str {
    const char *s;
    size_t len, idx;
} idx_str_t;

static int cmp_str(const idx_str_t *a, const idx_str_t *b) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int cmp_idx_str(const void *x, const void *y) {
    const idx_str_t *a = x, *b = y;
    int c = cmp_str(a, b);
    if (c) return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* v[0..n) sorted by (string, index): each run of equal strings is one group. */
static idx_str_t *sorted_strs(size_t n, const char *(*get)(const void *, size_t, size_t *), const void *ctx) {
    idx_str_t *v = gr_xcalloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        v[i].s = get(ctx, i, &v[i].len);
        v[i].idx = i;
    }
    qsort(v, n, sizeof(*v), cmp_idx_str);
    return v;
}

static const char *pair_type(const void *ctx, size_t i, size_t *len) {
    const char *t = ((const gr_quota_pair_t *)ctx)[i].type;
    *len = strlen(t);
    return t;
}

typedef struct group {
    size_t first, last;
} group_t;

static int cmp_group(const void *x, const void *y) {
    const group_t *a = x, *b = y;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The request's pairs as Kafka's HashMap holds them: a repeated type keeps its first
 * place and its last name; then Java's iteration order. O(n log n): requests may be big. */
static size_t build_map(const gr_quota_alter_t *a, gr_quota_pair_t *map) {
    idx_str_t *v = sorted_strs(a->n_pairs, pair_type, a->pairs);
    group_t *g = gr_xcalloc(a->n_pairs ? a->n_pairs : 1, sizeof(*g));
    size_t n = 0;
    for (size_t i = 0; i < a->n_pairs;) {
        size_t k = i;
        while (k + 1 < a->n_pairs && !cmp_str(&v[k], &v[k + 1])) k++;
        g[n++] = (group_t){v[i].idx, v[k].idx};
        i = k + 1;
    }
    qsort(g, n, sizeof(*g), cmp_group);
    for (size_t i = 0; i < n; i++) map[i] = (gr_quota_pair_t){a->pairs[g[i].first].type, a->pairs[g[i].last].name};
    free(g);
    free(v);
    gr__quota_java_order(map, n, gr__quota_java_cap(a->n_pairs, n));
    return n;
}

/* The entity as one string, independent of the pairs' order (for finding duplicates). */
static char *canonical(const gr_quota_alter_t *a, size_t *len) {
    idx_str_t *v = sorted_strs(a->n_map, pair_type, a->map);
    size_t cap = 1;
    for (size_t i = 0; i < a->n_map; i++)
        cap += strlen(a->map[i].type) + (a->map[i].name ? strlen(a->map[i].name) : 0) + 3;
    char *out = gr_xmalloc(cap), *p = out;
    for (size_t i = 0; i < a->n_map; i++) {
        const gr_quota_pair_t *q = &a->map[v[i].idx];
        size_t tl = strlen(q->type) + 1;
        memcpy(p, q->type, tl);
        p += tl;
        *p++ = q->name ? '\1' : '\2';
        if (q->name) {
            size_t nl = strlen(q->name) + 1;
            memcpy(p, q->name, nl);
            p += nl;
        }
    }
    *len = (size_t)(p - out);
    free(v);
    return out;
}

static void fail(gr_quota_alter_t *a, const char *fmt, const char *s1, const char *s2) {
    a->error = GR_ERR_INVALID_REQUEST;
    snprintf(a->message, sizeof(a->message), fmt, s1, s2);
}

static bool resolves(const char *name) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(name, NULL, &hints, &res) != 0) return false;
    freeaddrinfo(res);
    return true;
}

bool (*gr_quota_host_resolves)(const char *name) = resolves;

/* InetAddress.getByName: a literal address or a name that resolves (a blocking lookup
 * on this admin path only). */
static bool valid_ip(const char *ip) {
    uint8_t buf[16];
    if (!ip || inet_pton(AF_INET, ip, buf) == 1 || inet_pton(AF_INET6, ip, buf) == 1) return true;
    return gr_quota_host_resolves(ip);
}

/* validateEntity and configKeysForEntityType. */
static bool check_entity(gr_quota_alter_t *a) {
    gr_quota_entity_t *e = &a->entity;
    memset(e, 0, sizeof(*e));
    if (a->n_map == 0) return fail(a, "Invalid empty client quota entity%s%s", "", ""), false;
    for (size_t i = 0; i < a->n_map; i++) {
        const char *t = a->map[i].type, *name = a->map[i].name;
        if (!strcmp(t, "user"))
            e->types |= GR_QE_USER, e->user = name;
        else if (!strcmp(t, "client-id"))
            e->types |= GR_QE_CLIENT, e->client = name;
        else if (!strcmp(t, "ip"))
            e->types |= GR_QE_IP, e->ip = name;
        else
            return fail(a, "Unhandled client quota entity type: %s%s", t, ""), false;
        if (name && !*name) return fail(a, "Empty %s not supported%s", t, ""), false;
    }
    if ((e->types & GR_QE_IP) && (e->types & (GR_QE_USER | GR_QE_CLIENT)))
        return fail(a, "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId%s%s",
                    "", ""),
               false;
    if ((e->types & GR_QE_IP) && !valid_ip(e->ip))
        return fail(a, "%s is not a valid IP or resolvable host.%s", e->ip, ""), false;
    return true;
}

/* validateQuotaKeyValue. */
static bool check_value(gr_quota_alter_t *a, const char *key, double v) {
    int k = gr_quota_key_find(key);
    bool ip = a->entity.types & GR_QE_IP;
    if (k < 0 || ip != (k == GR_QK_CONNECTION_CREATION_RATE))
        return fail(a, "Invalid configuration key %s%s", key, ""), false;
    if (!isfinite(v)) return fail(a, "Quota %s must be a finite number%s", key, ""), false;
    if (v <= 0.0) return fail(a, "Quota %s must be greater than 0%s", key, ""), false;
    if (KEY_TYPE[k] == T_DOUBLE) return true;
    if (KEY_TYPE[k] == T_INT && v > 2147483647.0)
        return fail(a, "Proposed value for %s is too large for an INT.%s", key, ""), false;
    if (KEY_TYPE[k] == T_LONG && v > 9223372036854775807.0)
        return fail(a, "Proposed value for %s is too large for a LONG.%s", key, ""), false;
    if (fabs(fmod(v, 1.0)) > 1e-6) return fail(a, "%s cannot be a fractional value.%s", key, ""), false;
    return true;
}

/* Kafka checks the values in its HashMap's order of the keys. */
static bool check_ops(gr_quota_alter_t *a) {
    gr_quota_pair_t *ord = gr_xcalloc(a->n_ops ? a->n_ops : 1, sizeof(*ord));
    for (size_t i = 0; i < a->n_ops; i++) ord[i] = (gr_quota_pair_t){a->ops[i].key, (const char *)&a->ops[i]};
    gr__quota_java_order(ord, a->n_ops, gr__quota_java_cap(a->n_ops, a->n_ops));
    bool ok = true;
    for (size_t i = 0; i < a->n_ops && ok; i++) {
        const gr_quota_op_t *op = (const gr_quota_op_t *)ord[i].name;
        if (!op->remove) ok = check_value(a, op->key, op->value);
    }
    free(ord);
    return ok;
}

static const char *op_key(const void *ctx, size_t i, size_t *len) {
    const char *k = ((const gr_quota_op_t *)ctx)[i].key;
    *len = strlen(k);
    return k;
}

static bool dup_keys(const gr_quota_alter_t *a) {
    idx_str_t *v = sorted_strs(a->n_ops, op_key, a->ops);
    bool dup = false;
    for (size_t i = 1; i < a->n_ops && !dup; i++) dup = !cmp_str(&v[i], &v[i - 1]);
    free(v);
    return dup;
}

static const char *canon_of(const void *ctx, size_t i, size_t *len) {
    const idx_str_t *c = (const idx_str_t *)ctx + i;
    *len = c->len;
    return c->s;
}

/* first[i]: the first entry naming the same entity as entry i (i itself if none). */
static size_t *first_of(gr_quota_alter_t *a, size_t n) {
    idx_str_t *c = gr_xcalloc(n ? n : 1, sizeof(*c));
    for (size_t i = 0; i < n; i++) c[i].s = canonical(&a[i], &c[i].len);
    idx_str_t *v = sorted_strs(n, canon_of, c);
    size_t *first = gr_xcalloc(n ? n : 1, sizeof(*first));
    for (size_t i = 0; i < n; i++)
        first[v[i].idx] = i > 0 && !cmp_str(&v[i], &v[i - 1]) ? first[v[i - 1].idx] : v[i].idx;
    for (size_t i = 0; i < n; i++) free((char *)c[i].s);
    free(c);
    free(v);
    return first;
}

void gr_quota_alter_validate(const gr_quota_store_t *s, gr_quota_alter_t *a, size_t n) {
    (void)s;
    for (size_t i = 0; i < n; i++) a[i].n_map = build_map(&a[i], a[i].map);
    size_t *first = first_of(a, n);
    for (size_t i = 0; i < n; i++) {
        a[i].error = 0;
        a[i].message[0] = '\0';
        a[i].first = first[i] == i;
        a[i].applied = false;
        char text[400];
        gr_quota_entity_text(a[i].map, a[i].n_map, text, sizeof(text));
        if (!a[i].first || dup_keys(&a[i])) { /* Kafka answers the entity once, with this error */
            fail(&a[first[i]], "Ignoring duplicate entity %s%s", text, "");
            continue;
        }
        if (check_entity(&a[i]) && check_ops(&a[i])) a[i].applied = true;
    }
    free(first);
}

void gr_quota_alter_apply(gr_quota_store_t *s, const gr_quota_alter_t *a, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!a[i].applied) continue;
        for (size_t k = 0; k < a[i].n_ops; k++) {
            int key = gr_quota_key_find(a[i].ops[k].key);
            if (key < 0) continue; /* removing an unknown key: nothing to remove */
            gr_quota_store_set(s, &a[i].entity, (gr_quota_key_t)key, !a[i].ops[k].remove, a[i].ops[k].value);
        }
    }
}
