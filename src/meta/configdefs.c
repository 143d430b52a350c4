/* Config validation and value resolution over the table in configdefs_table.c. */
#include "meta/configdefs.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const gr_cfgdef_t gr__cfgdefs[];
extern const size_t gr__cfgdefs_n;

size_t gr_cfgdef_count(void) { return gr__cfgdefs_n; }

const gr_cfgdef_t *gr_cfgdef_at(size_t i) { return i < gr__cfgdefs_n ? &gr__cfgdefs[i] : NULL; }

const gr_cfgdef_t *gr_cfgdef_find(gr_cfg_scope_t scope, const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < gr__cfgdefs_n; i++)
        if (gr__cfgdefs[i].scope == scope && strcmp(gr__cfgdefs[i].name, name) == 0) return &gr__cfgdefs[i];
    return NULL;
}

const char *gr_cfg_type_name(gr_cfg_type_t type) {
    static const char *names[] = {"UNKNOWN", "BOOLEAN", "STRING", "INT",   "SHORT",
                                  "LONG",    "DOUBLE",  "LIST",   "CLASS", "PASSWORD"};
    return (unsigned)type < sizeof(names) / sizeof(names[0]) ? names[type] : "UNKNOWN";
}

/* ---- parsing ---- */

/* Trimmed copy of v into buf. False if the trimmed text does not fit: no number or
 * boolean is that long, and surrounding whitespace of any length is allowed (Kafka trims). */
static bool trim(const char *v, char *buf, size_t n) {
    while (isspace((unsigned char)*v)) v++;
    size_t len = strlen(v);
    while (len && isspace((unsigned char)v[len - 1])) len--;
    if (len >= n) return false;
    memcpy(buf, v, len);
    buf[len] = '\0';
    return true;
}

bool gr_cfg_parse_i64(gr_cfg_type_t type, const char *value, int64_t *out) {
    char s[64];
    if (!value || !trim(value, s, sizeof(s)) || !*s) return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return false;
    if (type == GR_CFG_INT && (v < INT32_MIN || v > INT32_MAX)) return false;
    if (type == GR_CFG_SHORT && (v < INT16_MIN || v > INT16_MAX)) return false;
    *out = v;
    return true;
}

bool gr_cfg_parse_bool(const char *value, bool *out) {
    char s[16];
    if (!value || !trim(value, s, sizeof(s))) return false;
    if (!strcasecmp(s, "true"))
        *out = true;
    else if (!strcasecmp(s, "false"))
        *out = false;
    else
        return false;
    return true;
}

bool gr_cfg_parse_double(const char *value, double *out) {
    char s[64];
    if (!value || !trim(value, s, sizeof(s)) || !*s) return false;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || *end || isnan(d)) return false;
    *out = d;
    return true;
}

/* ---- validation ---- */

/* Kafka's message. A long value is cut so that the name and the reason still fit. */
static gr_err_t invalid(char *errstr, size_t n, const gr_cfgdef_t *def, const char *value, const char *reason) {
    if (!value) value = "null";
    size_t vl = strlen(value);
    snprintf(errstr, n, "Invalid value %.*s%s for configuration %s: %s", vl > 200 ? 200 : (int)vl, value,
             vl > 200 ? "..." : "", def->name, reason);
    return GR_ERR_INVALID_CONFIG;
}

static bool in_list(const char *const *valid, const char *s, size_t len) {
    for (size_t i = 0; valid[i]; i++)
        if (strlen(valid[i]) == len && !strncmp(valid[i], s, len)) return true;
    return false;
}

static void valid_text(const char *const *valid, char *out, size_t n) {
    size_t o = (size_t)snprintf(out, n, "String must be one of: ");
    for (size_t i = 0; valid[i] && o < n; i++) o += (size_t)snprintf(out + o, n - o, "%s%s", i ? ", " : "", valid[i]);
}

static gr_err_t check_range(const gr_cfgdef_t *def, const char *value, double x, char *errstr, size_t n) {
    char reason[96];
    if ((def->flags & GR_CFG_F_MIN) && x < (double)def->min) {
        snprintf(reason, sizeof(reason), "Value must be at least %lld", (long long)def->min);
        return invalid(errstr, n, def, value, reason);
    }
    if ((def->flags & GR_CFG_F_MAX) && x > (double)def->max) {
        snprintf(reason, sizeof(reason), "Value must be no more than %lld", (long long)def->max);
        return invalid(errstr, n, def, value, reason);
    }
    return GR_ERR_NONE;
}

/* STRING and LIST values against the allowed set. */
static gr_err_t check_valid(const gr_cfgdef_t *def, const char *value, char *errstr, size_t n) {
    char reason[256];
    if (!def->valid) return GR_ERR_NONE;
    if (def->type == GR_CFG_STRING) {
        char s[256];
        if (trim(value, s, sizeof(s)) && in_list(def->valid, s, strlen(s))) return GR_ERR_NONE;
        if (!trim(value, s, 64)) snprintf(s, 64, "%.60s...", value); /* too long: its start, for the message */
        valid_text(def->valid, reason, sizeof(reason));
        return invalid(errstr, n, def, s, reason);
    }
    for (const char *p = value; *p;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        size_t len = strcspn(p, ",");
        size_t tl = len;
        while (tl && isspace((unsigned char)p[tl - 1])) tl--;
        if (tl && !in_list(def->valid, p, tl)) {
            char item[128];
            snprintf(item, sizeof(item), "%.*s", (int)tl, p);
            valid_text(def->valid, reason, sizeof(reason));
            return invalid(errstr, n, def, item, reason);
        }
        p += len;
    }
    return GR_ERR_NONE;
}

static gr_err_t validate_def(const gr_cfgdef_t *def, const char *value, char *errstr, size_t n) {
    char reason[256];
    int64_t i;
    double d;
    bool b;
    gr_err_t err = GR_ERR_NONE;
    if (!value) return def->dflt ? invalid(errstr, n, def, NULL, "Value must not be null") : GR_ERR_NONE;
    switch (def->type) {
    case GR_CFG_BOOLEAN:
        if (!gr_cfg_parse_bool(value, &b))
            return invalid(errstr, n, def, value, "Expected value to be either true or false");
        break;
    case GR_CFG_INT:
    case GR_CFG_SHORT:
    case GR_CFG_LONG:
        if (!gr_cfg_parse_i64(def->type, value, &i)) {
            snprintf(reason, sizeof(reason), "Not a number of type %s", gr_cfg_type_name(def->type));
            return invalid(errstr, n, def, value, reason);
        }
        err = check_range(def, value, (double)i, errstr, n);
        break;
    case GR_CFG_DOUBLE:
        if (!gr_cfg_parse_double(value, &d)) return invalid(errstr, n, def, value, "Not a number of type DOUBLE");
        err = check_range(def, value, d, errstr, n);
        break;
    default: err = check_valid(def, value, errstr, n); break;
    }
    if (err) return err;
    if (def->check && !def->check(value, reason, sizeof(reason))) return invalid(errstr, n, def, value, reason);
    return GR_ERR_NONE;
}

gr_err_t gr_cfg_validate(gr_cfg_scope_t scope, const char *name, const char *value, char *errstr, size_t errstr_size) {
    const gr_cfgdef_t *def = gr_cfgdef_find(scope, name);
    if (!def) {
        snprintf(errstr, errstr_size, "Unknown %s config name: %s", scope == GR_CFG_SCOPE_TOPIC ? "topic" : "broker",
                 name ? name : "null");
        return GR_ERR_INVALID_CONFIG;
    }
    return validate_def(def, value, errstr, errstr_size);
}

gr_err_t gr_cfg_validate_all(gr_cfg_scope_t scope, const gr_props_t *configs, char *errstr, size_t errstr_size) {
    for (size_t i = 0; configs && i < configs->n; i++) {
        gr_err_t err = gr_cfg_validate(scope, configs->v[i].key, configs->v[i].value, errstr, errstr_size);
        if (err) return err;
    }
    return GR_ERR_NONE;
}

/* ---- resolution ---- */

static const char *layer_lookup(const gr_cfg_layers_t *l, const char *name, gr_cfg_source_t *src) {
    const char *v;
    if (l && l->dynamic_broker && (v = gr_props_get(l->dynamic_broker, name))) {
        *src = GR_CFG_SRC_DYNAMIC_BROKER;
        return v;
    }
    if (l && l->dynamic_default && (v = gr_props_get(l->dynamic_default, name))) {
        *src = GR_CFG_SRC_DYNAMIC_DEFAULT_BROKER;
        return v;
    }
    if (l && l->static_broker && (v = gr_props_get(l->static_broker, name))) {
        *src = GR_CFG_SRC_STATIC_BROKER;
        return v;
    }
    return NULL;
}

/* value * mult as text in buf; negative values mean "no limit" and become -1; saturates. */
static const char *convert(const char *v, int64_t mult, char *buf, size_t n) {
    int64_t x;
    if (mult == 1 || !gr_cfg_parse_i64(GR_CFG_LONG, v, &x)) return v;
    if (x < 0)
        x = -1;
    else if (x > INT64_MAX / mult)
        x = INT64_MAX;
    else
        x *= mult;
    snprintf(buf, n, "%lld", (long long)x);
    return buf;
}

/* A broker config: its own layers, then its secondary names, each falling back to its default. */
static const char *broker_effective(const gr_cfgdef_t *def, const gr_cfg_layers_t *l, char *buf, size_t n,
                                    gr_cfg_source_t *src) {
    for (int k = -1; k < 3; k++) {
        const gr_cfgdef_t *c = k < 0 ? def : gr_cfgdef_find(GR_CFG_SCOPE_BROKER, def->syn[k].name);
        if (!c) continue;
        int64_t mult = k < 0 ? 1 : def->syn[k].mult;
        const char *v = layer_lookup(l, c->name, src);
        if (!v && c->dflt) {
            v = c->dflt;
            *src = GR_CFG_SRC_DEFAULT;
        }
        if (v) return convert(v, mult, buf, n);
    }
    return NULL;
}

const char *gr_cfg_effective(gr_cfg_scope_t scope, const char *name, const gr_cfg_layers_t *layers, char *buf,
                             size_t buf_size, gr_cfg_source_t *source) {
    gr_cfg_source_t dummy;
    if (!source) source = &dummy;
    *source = GR_CFG_SRC_UNKNOWN;
    const gr_cfgdef_t *def = gr_cfgdef_find(scope, name);
    if (!def) return NULL;
    if (scope == GR_CFG_SCOPE_BROKER) return broker_effective(def, layers, buf, buf_size, source);
    const char *v;
    if (layers && layers->topic && (v = gr_props_get(layers->topic, name))) {
        *source = GR_CFG_SRC_TOPIC;
        return v;
    }
    const gr_cfgdef_t *b = gr_cfgdef_find(GR_CFG_SCOPE_BROKER, def->syn[0].name);
    if (b && (v = broker_effective(b, layers, buf, buf_size, source)))
        return convert(v, def->syn[0].mult, buf, buf_size);
    *source = GR_CFG_SRC_DEFAULT;
    return def->dflt;
}

int64_t gr_cfg_effective_i64(gr_cfg_scope_t scope, const char *name, const gr_cfg_layers_t *layers, int64_t fallback) {
    char buf[32];
    const char *v = gr_cfg_effective(scope, name, layers, buf, sizeof(buf), NULL);
    int64_t x;
    return v && gr_cfg_parse_i64(GR_CFG_LONG, v, &x) ? x : fallback;
}

bool gr_cfg_effective_bool(gr_cfg_scope_t scope, const char *name, const gr_cfg_layers_t *layers, bool fallback) {
    char buf[32];
    const char *v = gr_cfg_effective(scope, name, layers, buf, sizeof(buf), NULL);
    bool b;
    return v && gr_cfg_parse_bool(v, &b) ? b : fallback;
}

/* ---- DescribeConfigs ---- */

static void add_syn(gr_cfg_entry_t *e, const char *name, const char *value, gr_cfg_source_t src) {
    if (e->n_synonyms >= GR_CFG_MAX_SYNONYMS) return;
    e->synonyms[e->n_synonyms].name = name;
    e->synonyms[e->n_synonyms].value = e->is_sensitive ? NULL : value;
    e->synonyms[e->n_synonyms].source = src;
    e->n_synonyms++;
}

/* Kafka's configSynonyms(): the broker config b and its secondary names, layer by layer,
 * then everything before the first entry named b is dropped. */
static void broker_synonyms(const gr_cfgdef_t *b, const gr_cfg_layers_t *l, gr_cfg_entry_t *e) {
    const gr_props_t *maps[3] = {l ? l->dynamic_broker : NULL, l ? l->dynamic_default : NULL,
                                 l ? l->static_broker : NULL};
    static const gr_cfg_source_t srcs[4] = {GR_CFG_SRC_DYNAMIC_BROKER, GR_CFG_SRC_DYNAMIC_DEFAULT_BROKER,
                                            GR_CFG_SRC_STATIC_BROKER, GR_CFG_SRC_DEFAULT};
    bool seen = false;
    for (int layer = 0; layer < 4; layer++) {
        for (int k = -1; k < 3; k++) {
            const gr_cfgdef_t *c = k < 0 ? b : gr_cfgdef_find(GR_CFG_SCOPE_BROKER, b->syn[k].name);
            if (!c) continue;
            const char *v = layer < 3 ? (maps[layer] ? gr_props_get(maps[layer], c->name) : NULL) : c->dflt;
            if (!v) continue;
            if (!seen && c != b) continue; /* dropWhile(name != b) */
            seen = true;
            add_syn(e, c->name, v, srcs[layer]);
        }
    }
}

void gr_cfg_describe(const gr_cfgdef_t *def, const gr_cfg_layers_t *layers, gr_arena_t *arena, gr_cfg_entry_t *out) {
    memset(out, 0, sizeof(*out));
    out->def = def;
    out->name = def->name;
    out->type = def->type;
    out->doc = def->doc;
    out->is_sensitive = def->type == GR_CFG_PASSWORD || (def->flags & GR_CFG_F_SENSITIVE);
    const char *v;
    if (def->scope == GR_CFG_SCOPE_TOPIC) {
        char buf[32];
        v = gr_cfg_effective(GR_CFG_SCOPE_TOPIC, def->name, layers, buf, sizeof(buf), &out->source);
        if (v == buf) v = gr_arena_strndup(arena, buf, strlen(buf));
        if (layers && layers->topic && gr_props_get(layers->topic, def->name))
            add_syn(out, def->name, v, GR_CFG_SRC_TOPIC);
        const gr_cfgdef_t *b = gr_cfgdef_find(GR_CFG_SCOPE_BROKER, def->syn[0].name);
        if (b) broker_synonyms(b, layers, out);
    } else {
        gr_cfg_source_t src;
        v = layer_lookup(layers, def->name, &src);
        if (!v) v = def->dflt;
        out->read_only = !(def->flags & GR_CFG_F_DYNAMIC);
        broker_synonyms(def, layers, out);
    }
    out->value = out->is_sensitive ? NULL : v;
    out->source = out->n_synonyms ? out->synonyms[0].source : GR_CFG_SRC_DEFAULT;
}

/* ---- dynamic SSL keys ---- */

static const char *const g_ssl_reconf[] = {
    "ssl.keystore.type",   "ssl.keystore.location",      "ssl.keystore.password",   "ssl.key.password",
    "ssl.truststore.type", "ssl.truststore.location",    "ssl.truststore.password", "ssl.keystore.certificate.chain",
    "ssl.keystore.key",    "ssl.truststore.certificates"};

bool gr_cfg_ssl_reconfigurable(const char *base) {
    for (size_t i = 0; base && i < sizeof(g_ssl_reconf) / sizeof(g_ssl_reconf[0]); i++)
        if (!strcmp(base, g_ssl_reconf[i])) return true;
    return false;
}

bool gr_cfg_listener_ssl_key(const char *key, const char **base, char *lname, size_t n) {
    if (!key || strncmp(key, "listener.name.", 14)) return false;
    const char *l = key + 14, *dot = strchr(l, '.');
    if (!dot || dot == l || (size_t)(dot - l) >= n || !gr_cfg_ssl_reconfigurable(dot + 1)) return false;
    memcpy(lname, l, (size_t)(dot - l));
    lname[dot - l] = '\0';
    *base = dot + 1;
    return true;
}

bool gr_cfg_ssl_sensitive(const char *base) {
    return gr_cfg_ssl_reconfigurable(base) &&
           (strstr(base, "password") || !strcmp(base, "ssl.keystore.key") ||
            !strcmp(base, "ssl.keystore.certificate.chain") || !strcmp(base, "ssl.truststore.certificates"));
}
