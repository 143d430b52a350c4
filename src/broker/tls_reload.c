/* Keystores and truststores renewed without a restart, as Kafka 4.4.0 does it: a dynamic
 * per-broker config listener.name.<l>.ssl.{keystore,truststore}.* (IncrementalAlterConfigs or
 * AlterConfigs on BROKER "<node id>"). A changed setting builds a new context, which must load
 * and (unless ssl.allow.dn.changes / ssl.allow.san.changes) keep the certificate's subject and
 * alternative names; a refusal leaves the listener as it was. Any per-broker alter also reloads
 * a keystore or truststore file that changed on disk under an unchanged path (Kafka's
 * reloadUpdatedFilesWithoutConfigChange). New contexts serve new connections only. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "meta/configdefs.h"

struct gr_tls_reload {
    size_t n;
    gr_tls_ctx_t **fresh; /* per listener: the new context, or NULL */
    gr_file_stamp_t *ks, *ts;
};

static bool is_tls(const gr_listener_config_t *lc) {
    return lc->sec_proto == GR_SEC_SSL || lc->sec_proto == GR_SEC_SASL_SSL;
}

static bool set(const char *s) { return s && *s; }

void gr__broker_file_stamp(const char *path, gr_file_stamp_t *out) {
    struct stat st;
    memset(out, 0, sizeof(*out));
    if (!set(path) || stat(path, &st)) return;
    out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    out->size = (int64_t)st.st_size;
    out->ino = (uint64_t)st.st_ino;
}

static bool same_stamp(const gr_file_stamp_t *a, const gr_file_stamp_t *b) {
    return a->mtime_ns == b->mtime_ns && a->size == b->size && a->ino == b->ino;
}

static void lower(const char *s, char *out, size_t n) {
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++) out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = '\0';
}

void gr__broker_tls_opts(const gr_broker_t *b, size_t i, const gr_props_t *dyn, gr_tls_opts_t *o) {
    const gr_listener_config_t *lc = &b->cfg->listeners[i];
    *o = lc->tls;
    char want[128], ln[128];
    lower(lc->name, want, sizeof(want));
    bool loc = false, key = false;
    for (size_t k = 0; dyn && k < dyn->n; k++) {
        const char *base, *v = dyn->v[k].value;
        if (!gr_cfg_listener_ssl_key(dyn->v[k].key, &base, ln, sizeof(ln)) || strcmp(ln, want)) continue;
        if (!strcmp(base, "ssl.keystore.type")) o->keystore_type = v;
        if (!strcmp(base, "ssl.keystore.location")) o->keystore_location = v, loc = true;
        if (!strcmp(base, "ssl.keystore.certificate.chain")) o->keystore_chain = v;
        if (!strcmp(base, "ssl.keystore.key")) o->keystore_key = v, key = true;
        if (!strcmp(base, "ssl.key.password")) o->key_password = v;
        if (!strcmp(base, "ssl.truststore.type")) o->truststore_type = v;
        if (!strcmp(base, "ssl.truststore.location")) o->truststore_location = v;
        if (!strcmp(base, "ssl.truststore.certificates")) o->truststore_certs = v;
    }
    /* As in server.properties: a keystore of one form replaces one of the other form. */
    if (loc && !key) o->keystore_chain = o->keystore_key = NULL;
    if (key && !loc) o->keystore_location = NULL;
}

static bool streq(const char *a, const char *b) { return set(a) == set(b) && (!set(a) || !strcmp(a, b)); }

static bool same_opts(const gr_tls_opts_t *a, const gr_tls_opts_t *b) {
    return streq(a->keystore_type, b->keystore_type) && streq(a->keystore_location, b->keystore_location) &&
           streq(a->keystore_chain, b->keystore_chain) && streq(a->keystore_key, b->keystore_key) &&
           streq(a->key_password, b->key_password) && streq(a->truststore_type, b->truststore_type) &&
           streq(a->truststore_location, b->truststore_location) && streq(a->truststore_certs, b->truststore_certs);
}

/* A Kafka ConfigException list: "[a, b]", in request order. */
static gr_err_t refuse_keys(const gr_props_t *map, bool prefixed, const char *msg, char *errstr, size_t sz) {
    size_t o = 0;
    char ln[128];
    const char *base;
    for (size_t i = 0; i < map->n && o < sz; i++) {
        const char *k = map->v[i].key;
        bool hit = prefixed ? gr_cfg_listener_ssl_key(k, &base, ln, sizeof(ln)) : gr_cfg_ssl_reconfigurable(k);
        if (hit) o += (size_t)snprintf(errstr + o, sz - o, "%s%s", o ? ", " : msg, k);
    }
    if (!o) return GR_ERR_NONE;
    if (o < sz) snprintf(errstr + o, sz - o, "]");
    return GR_ERR_INVALID_REQUEST;
}

gr_err_t gr__broker_tls_check_keys(const gr_props_t *map, bool cluster_default, char *errstr, size_t sz) {
    gr_err_t err = refuse_keys(
        map, false, "These security configs can be dynamically updated only per-listener using the listener prefix: [",
        errstr, sz);
    if (!err && cluster_default)
        err = refuse_keys(map, true,
                          "Cannot update these configs at default cluster level, broker id must be specified: [",
                          errstr, sz);
    return err;
}

static bool static_flag(const gr_broker_t *b, const char *lname, const char *key) {
    char k[256], low[128];
    lower(lname, low, sizeof(low));
    snprintf(k, sizeof(k), "listener.name.%s.%s", low, key);
    const char *v = gr_props_get(&b->cfg->raw, k);
    if (!v) v = gr_props_get(&b->cfg->raw, key);
    bool on = false;
    return v && gr_cfg_parse_bool(v, &on) && on;
}

/* Build listener i's context from o and apply SslFactory's rules against the current one.
 * On failure, errstr holds the inner reason as Kafka words it. */
static gr_err_t build(gr_broker_t *b, size_t i, const gr_tls_opts_t *cur, gr_tls_opts_t o, gr_tls_ctx_t **out,
                      char *errstr, size_t sz) {
    const gr_listener_config_t *lc = &b->cfg->listeners[i];
    char why[700];
    if (!set(cur->truststore_location) && !set(cur->truststore_certs) &&
        (set(o.truststore_location) || set(o.truststore_certs))) {
        snprintf(errstr, sz,
                 "org.apache.kafka.common.config.ConfigException: Cannot add SSL truststore to an existing listener "
                 "for which no truststore was configured.");
        return GR_ERR_INVALID_REQUEST;
    }
    if (gr_tls_ctx_new(&o, lc->name, out, why, sizeof(why))) {
        snprintf(errstr, sz, "org.apache.kafka.common.errors.InvalidConfigurationException: %.500s", why);
        return GR_ERR_INVALID_REQUEST;
    }
    if (!gr_tls_ctx_same_identity(b->lst[i].tls, *out, static_flag(b, lc->name, "ssl.allow.dn.changes"),
                                  static_flag(b, lc->name, "ssl.allow.san.changes"), why, sizeof(why))) {
        snprintf(errstr, sz, "org.apache.kafka.common.config.ConfigException: %.500s", why);
        gr_tls_ctx_free(*out);
        *out = NULL;
        return GR_ERR_INVALID_REQUEST;
    }
    return GR_ERR_NONE;
}

void gr__broker_tls_discard(gr_tls_reload_t *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) gr_tls_ctx_free(r->fresh[i]);
    free(r->fresh);
    free(r->ks);
    free(r->ts);
    free(r);
}

static gr_tls_reload_t *reload_new(size_t n) {
    gr_tls_reload_t *r = calloc(1, sizeof(*r));
    if (!r || !(r->fresh = calloc(n, sizeof(*r->fresh))) || !(r->ks = calloc(n, sizeof(*r->ks))) ||
        !(r->ts = calloc(n, sizeof(*r->ts))))
        abort();
    r->n = n;
    return r;
}

/* One listener: rebuild if its settings change (a failure refuses the whole alter) or if
 * its files changed on disk (a failure is logged and the old context kept). */
static gr_err_t prepare_one(gr_broker_t *b, size_t i, const gr_props_t *next, gr_tls_reload_t *r, char *errstr,
                            size_t sz) {
    gr_tls_opts_t cur, nxt;
    gr__broker_tls_opts(b, i, gr_meta_broker_configs(b->meta, false), &cur);
    gr__broker_tls_opts(b, i, next, &nxt);
    gr__broker_file_stamp(nxt.keystore_location, &r->ks[i]);
    gr__broker_file_stamp(nxt.truststore_location, &r->ts[i]);
    bool changed = !same_opts(&cur, &nxt);
    if (!changed && same_stamp(&r->ks[i], &b->lst[i].ks_stamp) && same_stamp(&r->ts[i], &b->lst[i].ts_stamp))
        return GR_ERR_NONE;
    nxt.map_principal = NULL; /* the listener's wrapper keeps mapping principals (see adopt) */
    gr_err_t err = build(b, i, &cur, nxt, &r->fresh[i], errstr, sz);
    if (err && !changed) {
        GR_ERROR("broker", "listener %s: the keystore or truststore file changed, but is not reloaded: %s",
                 b->cfg->listeners[i].name, errstr);
        errstr[0] = '\0';
        return GR_ERR_NONE;
    }
    return err;
}

gr_err_t gr__broker_tls_prepare(gr_broker_t *b, const gr_props_t *next, gr_tls_reload_t **out, char *errstr,
                                size_t sz) {
    *out = NULL;
    gr_tls_reload_t *r = NULL;
    for (size_t i = 0; i < b->n_lst; i++) {
        if (!is_tls(&b->cfg->listeners[i]) || !b->lst[i].tls) continue;
        if (!r) r = reload_new(b->n_lst);
        char inner[800];
        if (prepare_one(b, i, next, r, inner, sizeof(inner))) {
            snprintf(errstr, sz,
                     "Invalid value org.apache.kafka.common.config.ConfigException: Validation of dynamic config "
                     "update of SSLFactory failed: %s for configuration Invalid dynamic configuration",
                     inner);
            gr__broker_tls_discard(r);
            return GR_ERR_INVALID_REQUEST;
        }
    }
    *out = r;
    return GR_ERR_NONE;
}

void gr__broker_tls_commit(gr_broker_t *b, gr_tls_reload_t *r) {
    for (size_t i = 0; r && i < r->n && i < b->n_lst; i++) {
        if (!r->fresh[i]) continue;
        gr_tls_ctx_adopt(b->lst[i].tls, r->fresh[i]);
        r->fresh[i] = NULL;
        b->lst[i].ks_stamp = r->ks[i];
        b->lst[i].ts_stamp = r->ts[i];
        GR_INFO("broker", "listener %s: new keystore/truststore in use for new connections", b->cfg->listeners[i].name);
    }
    gr__broker_tls_discard(r);
}
