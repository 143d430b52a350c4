/* Client configuration: the property table of conf_int.h, parsing and checks.
 * Messages follow the Java ConfigDef wording ("Invalid value X for configuration Y: ...")
 * so users can search for them. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/props.h"
#include "client/conf_int.h"

typedef struct gr__cdef {
    const char *name;
    int scopes;
    gr__ctype_t type;
    const char *dflt;
    int64_t min, max;
    const char *choices;
} gr__cdef_t;

static const gr__cdef_t gr__cdefs[GR__CP_COUNT] = {
#define GR__CP_DEF(id, name, scopes, type, dflt, min, max, choices) {name, scopes, type, dflt, min, max, choices},
    GR__CONF_MAP(GR__CP_DEF)
#undef GR__CP_DEF
};

struct gr_conf {
    gr_conf_scope_t scope;
    char *val[GR__CP_COUNT]; /* NULL = default */
    int64_t num[GR__CP_COUNT];
};

static void fmt_err(char *errstr, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_err(char *errstr, size_t size, const char *fmt, ...) {
    if (!errstr || !size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errstr, size, fmt, ap);
    va_end(ap);
}

static const char *scope_name(int scope) {
    switch (scope) {
    case GR_CONF_PRODUCER: return "producer";
    case GR_CONF_CONSUMER: return "consumer";
    case GR_CONF_ADMIN: return "admin";
    }
    return "unknown";
}

static int find_def(const char *name) {
    for (int i = 0; i < GR__CP_COUNT; i++)
        if (!strcmp(gr__cdefs[i].name, name)) return i;
    return -1;
}

static char *trim_dup(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    char *r = malloc(n + 1);
    if (!r) abort();
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

static bool parse_i64(const char *s, int64_t *out) {
    if (!*s) return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

/* Index of v in the comma-separated choices, or -1. */
static int choice_index(const char *choices, const char *v) {
    size_t vl = strlen(v);
    int i = 0;
    for (const char *p = choices; *p; i++) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n == vl && !strncasecmp(p, v, n)) return i;
        if (!c) break;
        p = c + 1;
    }
    return -1;
}

static gr_err_t parse_value(const gr__cdef_t *d, const char *v, int64_t *num, char *errstr, size_t size) {
    int idx;
    switch (d->type) {
    case GR__CT_INT:
    case GR__CT_LONG:
        if (!parse_i64(v, num) || (d->type == GR__CT_INT && (*num < -GR__I32MAX - 1 || *num > GR__I32MAX))) {
            fmt_err(errstr, size, "Invalid value %s for configuration %s: Not a number of type %s", v, d->name,
                    d->type == GR__CT_INT ? "INT" : "LONG");
            return GR_ERR__INVALID_ARG;
        }
        if (*num < d->min || *num > d->max) {
            fmt_err(errstr, size, "Invalid value %s for configuration %s: Value must be %s %lld", v, d->name,
                    *num < d->min ? "at least" : "no more than", (long long)(*num < d->min ? d->min : d->max));
            return GR_ERR__INVALID_ARG;
        }
        return GR_ERR_NONE;
    case GR__CT_BOOL:
        idx = choice_index("false,true", v);
        if (idx < 0) {
            fmt_err(errstr, size, "Invalid value %s for configuration %s: Expected value to be either true or false", v,
                    d->name);
            return GR_ERR__INVALID_ARG;
        }
        *num = idx;
        return GR_ERR_NONE;
    case GR__CT_ENUM:
    case GR__CT_ACKS:
        idx = choice_index(d->choices, v);
        if (idx < 0) {
            fmt_err(errstr, size, "Invalid value %s for configuration %s: String must be one of: %s", v, d->name,
                    d->choices);
            return GR_ERR__INVALID_ARG;
        }
        *num = d->type == GR__CT_ACKS ? (idx <= 1 ? -1 : idx - 2) : idx;
        return GR_ERR_NONE;
    default: *num = 0; return GR_ERR_NONE;
    }
}

gr_conf_t *gr_conf_new(gr_conf_scope_t scope) {
    gr_conf_t *conf = calloc(1, sizeof(*conf));
    if (!conf) abort();
    conf->scope = scope;
    for (int i = 0; i < GR__CP_COUNT; i++)
        if (gr__cdefs[i].dflt) parse_value(&gr__cdefs[i], gr__cdefs[i].dflt, &conf->num[i], NULL, 0);
    return conf;
}

gr_conf_t *gr_conf_dup(const gr_conf_t *conf) {
    gr_conf_t *c = malloc(sizeof(*c));
    if (!c) abort();
    *c = *conf;
    for (int i = 0; i < GR__CP_COUNT; i++)
        if (conf->val[i]) c->val[i] = trim_dup(conf->val[i]);
    return c;
}

void gr_conf_destroy(gr_conf_t *conf) {
    if (!conf) return;
    for (int i = 0; i < GR__CP_COUNT; i++) free(conf->val[i]);
    free(conf);
}

gr_conf_scope_t gr_conf_scope(const gr_conf_t *conf) { return conf->scope; }

/* Resolve name to a settable property of conf's scope, following aliases. */
static int resolve(const gr_conf_t *conf, const char *name, char *errstr, size_t size) {
    int i = find_def(name);
    if (i >= 0 && gr__cdefs[i].type == GR__CT_ALIAS) i = find_def(gr__cdefs[i].choices);
    if (i < 0) {
        fmt_err(errstr, size, "Unknown configuration '%s' for a %s", name, scope_name(conf->scope));
        return -1;
    }
    if (gr__cdefs[i].type == GR__CT_REJECT) {
        fmt_err(errstr, size, "Configuration '%s' is not supported: %s", name, gr__cdefs[i].choices);
        return -1;
    }
    if (!(gr__cdefs[i].scopes & (int)conf->scope)) {
        fmt_err(errstr, size, "Configuration '%s' does not apply to a %s", name, scope_name(conf->scope));
        return -1;
    }
    return i;
}

gr_err_t gr_conf_set(gr_conf_t *conf, const char *name, const char *value, char *errstr, size_t errstr_size) {
    if (!conf || !name || !value) {
        fmt_err(errstr, errstr_size, "gr_conf_set: conf, name and value must not be NULL");
        return GR_ERR__INVALID_ARG;
    }
    int i = resolve(conf, name, errstr, errstr_size);
    if (i < 0) return GR_ERR__INVALID_ARG;
    char *v = trim_dup(value);
    int64_t num;
    gr_err_t err = parse_value(&gr__cdefs[i], v, &num, errstr, errstr_size);
    if (err) {
        free(v);
        return err;
    }
    free(conf->val[i]);
    conf->val[i] = v;
    conf->num[i] = num;
    return GR_ERR_NONE;
}

const char *gr_conf_get(const gr_conf_t *conf, const char *name) {
    int i = find_def(name);
    if (i >= 0 && gr__cdefs[i].type == GR__CT_ALIAS) i = find_def(gr__cdefs[i].choices);
    if (i < 0 || gr__cdefs[i].type == GR__CT_REJECT) return NULL;
    return gr__conf_str(conf, (gr__cprop_t)i);
}

gr_err_t gr_conf_load_file(gr_conf_t *conf, const char *path, char *errstr, size_t errstr_size) {
    gr_props_t props;
    gr_props_init(&props);
    gr_err_t err = gr_props_load_file(&props, path, errstr, errstr_size);
    for (size_t i = 0; !err && i < props.n; i++) {
        char why[256];
        err = gr_conf_set(conf, props.v[i].key, props.v[i].value, why, sizeof(why));
        if (err) fmt_err(errstr, errstr_size, "%s:%d: %s", path, props.v[i].line, why);
    }
    gr_props_free(&props);
    return err;
}

const char *gr_conf_property_name(gr_conf_scope_t scope, size_t i) {
    for (int k = 0; k < GR__CP_COUNT; k++) {
        if (!(gr__cdefs[k].scopes & (int)scope) || gr__cdefs[k].type == GR__CT_REJECT) continue;
        if (i-- == 0) return gr__cdefs[k].name;
    }
    return NULL;
}

int64_t gr__conf_int(const gr_conf_t *conf, gr__cprop_t id) { return conf->num[id]; }

const char *gr__conf_str(const gr_conf_t *conf, gr__cprop_t id) {
    if (conf->val[id]) return conf->val[id];
    return gr__cdefs[id].dflt ? gr__cdefs[id].dflt : "";
}

bool gr__conf_is_set(const gr_conf_t *conf, gr__cprop_t id) { return conf->val[id] != NULL; }

const char *gr_version_str(void) { return "0.1.0"; }
