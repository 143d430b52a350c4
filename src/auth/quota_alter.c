/* Kafka's validation of AlterClientQuotas (its controller's ClientQuotaControlManager):
 * same checks, same order, same messages. */
#include <arpa/inet.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "auth/quota.h"
#include "auth/quota_int.h"
#include "base/err.h"

enum { T_LONG, T_DOUBLE, T_INT };
static const int KEY_TYPE[GR_QK__N] = {T_LONG, T_LONG, T_DOUBLE, T_DOUBLE, T_INT};

/* The request's pairs as Kafka's HashMap holds them: a repeated type keeps its first
 * place and its last name. */
static size_t build_map(const gr_quota_alter_t *a, gr_quota_pair_t *map) {
    size_t n = 0;
    for (size_t i = 0; i < a->n_pairs; i++) {
        size_t k = 0;
        while (k < n && strcmp(map[k].type, a->pairs[i].type)) k++;
        if (k == n) map[n++].type = a->pairs[i].type;
        map[k].name = a->pairs[i].name;
    }
    gr__quota_java_order(map, n, gr__quota_java_cap(a->n_pairs, n));
    return n;
}

static bool maps_equal(const gr_quota_alter_t *x, const gr_quota_alter_t *y) {
    if (x->n_map != y->n_map) return false;
    for (size_t i = 0; i < x->n_map; i++) {
        bool found = false;
        for (size_t k = 0; k < y->n_map && !found; k++)
            found = !strcmp(x->map[i].type, y->map[k].type) &&
                    (x->map[i].name == y->map[k].name ||
                     (x->map[i].name && y->map[k].name && !strcmp(x->map[i].name, y->map[k].name)));
        if (!found) return false;
    }
    return true;
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
    gr_quota_pair_t ord[64];
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < a->n_ops; i++) {
        if (n == sizeof(ord) / sizeof(ord[0])) { /* a huge request: plain order */
            for (size_t k = i; k < a->n_ops && ok; k++)
                if (!a->ops[k].remove) ok = check_value(a, a->ops[k].key, a->ops[k].value);
            break;
        }
        ord[n].type = a->ops[i].key;
        ord[n++].name = (const char *)&a->ops[i];
    }
    gr__quota_java_order(ord, n, gr__quota_java_cap(a->n_ops, n));
    for (size_t i = 0; i < n && ok; i++) {
        const gr_quota_op_t *op = (const gr_quota_op_t *)ord[i].name;
        if (!op->remove) ok = check_value(a, op->key, op->value);
    }
    return ok;
}

static bool dup_keys(const gr_quota_alter_t *a) {
    for (size_t i = 0; i < a->n_ops; i++)
        for (size_t k = 0; k < i; k++)
            if (!strcmp(a->ops[i].key, a->ops[k].key)) return true;
    return false;
}

void gr_quota_alter_validate(const gr_quota_store_t *s, gr_quota_alter_t *a, size_t n) {
    (void)s;
    for (size_t i = 0; i < n; i++) {
        a[i].n_map = build_map(&a[i], a[i].map);
        a[i].error = 0;
        a[i].message[0] = '\0';
        a[i].first = true;
        a[i].applied = false;
        size_t j = 0;
        while (j < i && !(a[j].first && maps_equal(&a[j], &a[i]))) j++;
        char text[400];
        gr_quota_entity_text(a[i].map, a[i].n_map, text, sizeof(text));
        if (j < i || dup_keys(&a[i])) { /* Kafka answers the entity once, with this error */
            gr_quota_alter_t *r = j < i ? &a[j] : &a[i];
            a[i].first = j == i;
            fail(r, "Ignoring duplicate entity %s%s", text, "");
            continue;
        }
        if (check_entity(&a[i]) && check_ops(&a[i])) a[i].applied = true;
    }
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
