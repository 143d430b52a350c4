/* A listener's SASL setup from Kafka's configuration keys (see sasl.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/jaas.h"
#include "auth/sasl.h"

#define PLAIN_MODULE "org.apache.kafka.common.security.plain.PlainLoginModule"
#define SCRAM_MODULE "org.apache.kafka.common.security.scram.ScramLoginModule"

static const char *const MECH_NAMES[GR_SASL__N] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};

const char *gr_sasl_mech_name(gr_sasl_mech_t m) { return (unsigned)m < GR_SASL__N ? MECH_NAMES[m] : "?"; }

int gr_sasl_mech_from_name(const char *name) {
    for (int i = 0; i < GR_SASL__N; i++)
        if (!strcmp(name, MECH_NAMES[i])) return i;
    return -1;
}

/* java.lang.String.hashCode over ASCII, then HashMap's spreading. */
static uint32_t java_hash(const char *s) {
    uint32_t h = 0;
    for (; *s; s++) h = 31 * h + (unsigned char)*s;
    return h ^ (h >> 16);
}

size_t gr_sasl_java_set_order(const char **names, size_t n) {
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) { /* drop repeats; the first occurrence keeps its place */
        bool dup = false;
        for (size_t k = 0; k < kept; k++) dup |= !strcmp(names[k], names[i]);
        if (!dup) names[kept++] = names[i];
    }
    uint32_t cap = 16; /* HashSet(Collection): max(size / .75 + 1, 16), a power of two */
    while (cap < (uint32_t)(kept / 0.75f) + 1) cap <<= 1;
    /* Stable sort by bucket: within a bucket Java keeps insertion order. */
    for (size_t i = 1; i < kept; i++)
        for (size_t k = i; k > 0 && (java_hash(names[k - 1]) & (cap - 1)) > (java_hash(names[k]) & (cap - 1)); k--) {
            const char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    return kept;
}

static const char *get_prefixed(gr_sasl_get_fn get, void *ctx, const char *l, const char *m, const char *key) {
    char k[512];
    if (m) {
        snprintf(k, sizeof(k), "listener.name.%s.%s.%s", l, m, key);
        const char *v = get(ctx, k);
        if (v) return v;
    }
    snprintf(k, sizeof(k), "listener.name.%s.%s", l, key);
    const char *v = get(ctx, k);
    return v ? v : get(ctx, key);
}

static void lower(char *dst, size_t n, const char *src) {
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++) dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

static gr_err_t bad(char *errstr, size_t sz) {
    (void)errstr, (void)sz;
    return GR_ERR_INVALID_CONFIG;
}

static gr_err_t parse_mechs(gr_sasl_config_t *c, const char *list, const char *l, char *errstr, size_t sz) {
    const char *names[16];
    size_t n = 0;
    for (const char *p = list; *p;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        if (!*p) break;
        size_t len = strcspn(p, ","), t = len;
        while (t && isspace((unsigned char)p[t - 1])) t--;
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)t, p);
        int m = gr_sasl_mech_from_name(name);
        if (m < 0) {
            snprintf(errstr, sz,
                     "Invalid value %s for configuration sasl.enabled.mechanisms (listener %s): SASL mechanism %s is "
                     "not supported by gregor (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 are)",
                     list, l, name);
            return bad(errstr, sz);
        }
        if (n < 16) names[n++] = MECH_NAMES[m];
        c->enabled[m] = true;
        p += len;
    }
    if (n == 0) {
        snprintf(errstr, sz, "No SASL mechanisms are enabled on listener %s (sasl.enabled.mechanisms)", l);
        return bad(errstr, sz);
    }
    c->n_names = gr_sasl_java_set_order(names, n);
    memcpy(c->names, names, c->n_names * sizeof(names[0]));
    return GR_ERR_NONE;
}

static void add_plain_users(gr_sasl_config_t *c, const gr_jaas_entry_t *e) {
    for (size_t i = 0; i < e->n_opts; i++) {
        if (strncmp(e->opts[i].key, "user_", 5) != 0) continue;
        gr_sasl_user_t *u = realloc(c->plain_users, (c->n_plain_users + 1) * sizeof(*u));
        if (!u) abort();
        c->plain_users = u;
        u[c->n_plain_users].name = strdup(e->opts[i].key + 5);
        u[c->n_plain_users].password = strdup(e->opts[i].value);
        if (!u[c->n_plain_users].name || !u[c->n_plain_users].password) abort();
        c->n_plain_users++;
    }
}

static gr_err_t load_jaas(gr_sasl_config_t *c, gr_sasl_mech_t m, const char *l, gr_sasl_get_fn get, void *ctx,
                          char *errstr, size_t sz) {
    char lm[32], key[512];
    lower(lm, sizeof(lm), MECH_NAMES[m]);
    snprintf(key, sizeof(key), "listener.name.%s.%s.sasl.jaas.config", l, lm);
    const char *v = get(ctx, key);
    if (!v) v = get(ctx, "sasl.jaas.config");
    if (!v) {
        snprintf(errstr, sz, "SASL mechanism %s is enabled on listener %s but %s is not set", MECH_NAMES[m], l, key);
        return bad(errstr, sz);
    }
    gr_jaas_t j;
    char why[256];
    if (gr_jaas_parse(v, strlen(v), &j, why, sizeof(why))) {
        snprintf(errstr, sz, "Invalid value for configuration %s: %s", key, why);
        return bad(errstr, sz);
    }
    gr_err_t err = GR_ERR_NONE;
    if (j.n != 1) {
        snprintf(errstr, sz,
                 "Invalid value for configuration %s: JAAS config property contains %zu login modules, "
                 "should be 1 module",
                 key, j.n);
        err = GR_ERR_INVALID_CONFIG;
    } else if (strcmp(j.entries[0].login_module, PLAIN_MODULE) && strcmp(j.entries[0].login_module, SCRAM_MODULE)) {
        snprintf(errstr, sz,
                 "Invalid value for configuration %s: login module %s is not supported by gregor (%s and "
                 "%s are)",
                 key, j.entries[0].login_module, PLAIN_MODULE, SCRAM_MODULE);
        err = GR_ERR_INVALID_CONFIG;
    } else if (m == GR_SASL_PLAIN) {
        add_plain_users(c, &j.entries[0]);
    }
    gr_jaas_free(&j);
    return err;
}

static gr_err_t load_reauth(gr_sasl_config_t *c, gr_sasl_mech_t m, const char *l, gr_sasl_get_fn get, void *ctx,
                            char *errstr, size_t sz) {
    char lm[32];
    lower(lm, sizeof(lm), MECH_NAMES[m]);
    const char *v = get_prefixed(get, ctx, l, lm, "connections.max.reauth.ms");
    if (!v) return GR_ERR_NONE;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (errno || end == v || *end) {
        snprintf(errstr, sz, "Invalid value %s for configuration connections.max.reauth.ms: Not a number of type LONG",
                 v);
        return bad(errstr, sz);
    }
    c->reauth_ms[m] = x > 0 ? x : 0;
    return GR_ERR_NONE;
}

gr_err_t gr_sasl_config_build(gr_sasl_config_t *c, const char *listener, gr_sasl_get_fn get, void *ctx, char *errstr,
                              size_t errstr_size) {
    char l[128];
    memset(c, 0, sizeof(*c));
    lower(l, sizeof(l), listener);
    const char *mechs = get_prefixed(get, ctx, l, NULL, "sasl.enabled.mechanisms");
    gr_err_t err = parse_mechs(c, mechs ? mechs : "GSSAPI", l, errstr, errstr_size);
    for (int m = 0; !err && m < GR_SASL__N; m++) {
        if (!c->enabled[m]) continue;
        if (!(err = load_jaas(c, (gr_sasl_mech_t)m, l, get, ctx, errstr, errstr_size)))
            err = load_reauth(c, (gr_sasl_mech_t)m, l, get, ctx, errstr, errstr_size);
    }
    if (err) gr_sasl_config_free(c);
    return err;
}

void gr_sasl_config_free(gr_sasl_config_t *c) {
    for (size_t i = 0; i < c->n_plain_users; i++) {
        free(c->plain_users[i].name);
        free(c->plain_users[i].password);
    }
    free(c->plain_users);
    memset(c, 0, sizeof(*c));
}
