/* Configs: DescribeConfigs (32), AlterConfigs (33), IncrementalAlterConfigs (44) for
 * TOPIC and BROKER resources.
 *
 * Observable behaviour follows Apache Kafka 4.3 in KRaft mode:
 * - DescribeConfigs (ConfigHelper): a topic lists every topic config with its effective
 *   value; BROKER "<node id>" lists every broker config plus the unknown keys of
 *   server.properties; BROKER "" lists only the dynamic cluster defaults that are set.
 *   Entries are built by gr_cfg_describe (values, sources, synonyms).
 * - The two alter APIs run Kafka's broker-side preprocessing (ConfigAdminManager:
 *   duplicate resources, duplicate keys, null values, the broker id) and then the
 *   controller's (ConfigurationControlManager: apply, validate the whole resulting map,
 *   check that the topic exists). Broker config validation failures are INVALID_REQUEST,
 *   not INVALID_CONFIG, as in Kafka (KAFKA-13609).
 * - BROKER_LOGGER (8): gregor has no per-logger levels; it is refused per resource with
 *   INVALID_REQUEST after Kafka's broker id checks.
 * - GROUP (32): share-group configs (spec §5.2), validated, stored and described by
 *   h_group_configs.c; the alter path applies the ops here like for topics (the
 *   controller's ConfigurationControlManager) and validates the whole resulting map.
 * - CLIENT_METRICS (16): not implemented; such a resource gets INVALID_REQUEST (Kafka's
 *   code for resource types a broker does not handle) and nothing else fails.
 * @locality loop thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/dups.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

enum { RT_TOPIC = 2, RT_BROKER = 4, RT_BROKER_LOGGER = 8, RT_CLIENT_METRICS = 16, RT_GROUP = 32 };
#define GR_LIST_MAX_ITEMS 10000

enum { OP_SET = 0, OP_DELETE = 1, OP_APPEND = 2, OP_SUBTRACT = 3 };

static const char *rtype_name(int8_t t) {
    switch (t) {
    case RT_TOPIC: return "TOPIC";
    case RT_BROKER: return "BROKER";
    case RT_BROKER_LOGGER: return "BROKER_LOGGER";
    case RT_CLIENT_METRICS: return "CLIENT_METRICS";
    case RT_GROUP: return "GROUP";
    default: return "UNKNOWN";
    }
}

/* Java's Integer.parseInt. */
static bool parse_int(const char *s, int32_t *out) {
    if (!*s) return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < INT32_MIN || v > INT32_MAX || s[0] == ' ') return false;
    *out = (int32_t)v;
    return true;
}

/* A BROKER resource name: "" is the cluster-wide default, else it must be our node id.
 * Kafka words this differently in DescribeConfigs and in the alter APIs. */
static gr_err_t broker_target(gr_req_t *req, const char *name, bool describe, bool *cluster_default, char *errstr,
                              size_t sz) {
    int32_t id, node_id = gr_broker_node_id(req->b);
    *cluster_default = !*name;
    if (!*name) return GR_ERR_NONE;
    if (!parse_int(name, &id)) {
        snprintf(errstr, sz, "%s id must be an integer, but it is: %s", describe ? "Broker" : "Node", name);
        return GR_ERR_INVALID_REQUEST;
    }
    if (id != node_id) {
        snprintf(errstr, sz, "Unexpected broker id, expected %d%s, but received %s", node_id,
                 describe ? " or empty string" : "", name);
        return GR_ERR_INVALID_REQUEST;
    }
    return GR_ERR_NONE;
}

/* BROKER_LOGGER names: Kafka checks them before anything else. */
static gr_err_t logger_target(gr_req_t *req, const char *name, char *errstr, size_t sz) {
    int32_t id;
    if (!*name) {
        snprintf(errstr, sz, "Broker id must not be empty");
        return GR_ERR_INVALID_REQUEST;
    }
    if (!parse_int(name, &id)) {
        snprintf(errstr, sz, "Broker id must be an integer, but it is: %s", name);
        return GR_ERR_INVALID_REQUEST;
    }
    if (id != gr_broker_node_id(req->b)) {
        snprintf(errstr, sz, "Unexpected broker id, expected %d but received %s", gr_broker_node_id(req->b), name);
        return GR_ERR_INVALID_REQUEST;
    }
    snprintf(errstr, sz, "Resource type BROKER_LOGGER is not supported by this broker.");
    return GR_ERR_INVALID_REQUEST;
}

/* CLIENT_METRICS configs are not implemented. */
static gr_err_t group_configs_unsupported(int8_t type, char *errstr, size_t sz) {
    snprintf(errstr, sz, "Resource type %s is not supported by this broker yet.", rtype_name(type));
    return GR_ERR_INVALID_REQUEST;
}

/* ------------------------------------------------------------------ DescribeConfigs */

typedef gr_DescribeConfigsRequest_DescribeConfigsResource_t dres_t;
typedef gr_DescribeConfigsResponse_DescribeConfigsResult_t dcr_t;
typedef gr_DescribeConfigsResponse_DescribeConfigsResourceResult_t dce_t;

/* The requested keys, sorted for lookups; n == 0: every config (a null or empty list).
 * Unknown keys are silently skipped, as in Kafka. */
typedef struct keyset {
    gr_str_t *v;
    int32_t n;
} keyset_t;

static int str_cmp(const void *a, const void *b) {
    const gr_str_t *x = a, *y = b;
    int32_t lx = x->len > 0 ? x->len : 0, ly = y->len > 0 ? y->len : 0;
    int c = memcmp(x->ptr ? x->ptr : "", y->ptr ? y->ptr : "", (size_t)(lx < ly ? lx : ly));
    return c ? c : (lx > ly) - (lx < ly);
}

static keyset_t keyset_make(gr_req_t *req, const dres_t *rs) {
    keyset_t ks = {NULL, rs->ConfigurationKeys.n > 0 ? rs->ConfigurationKeys.n : 0};
    ks.v = gr_arena_alloc(&req->arena, (size_t)ks.n * sizeof(*ks.v) + 1);
    if (ks.n) memcpy(ks.v, rs->ConfigurationKeys.v, (size_t)ks.n * sizeof(*ks.v));
    qsort(ks.v, (size_t)ks.n, sizeof(*ks.v), str_cmp);
    return ks;
}

static bool key_wanted(const keyset_t *ks, const char *name) {
    gr_str_t k = gr_str_c(name);
    return !ks->n || bsearch(&k, ks->v, (size_t)ks->n, sizeof(*ks->v), str_cmp);
}

static void put_entry(gr_req_t *req, const gr_cfg_entry_t *e, dce_t *out) {
    const gr_DescribeConfigsRequest_t *r = req->body;
    out->Name = gr_req_str_copy(req, e->name);
    out->Value = gr_req_str_copy(req, e->value);
    out->ReadOnly = e->read_only;
    out->ConfigSource = (int8_t)e->source;
    out->IsSensitive = e->is_sensitive;
    out->ConfigType = (int8_t)e->type;
    out->Documentation = r->IncludeDocumentation && e->doc ? gr_str_c(e->doc) : GR_STR_NULL;
    int32_t n = r->IncludeSynonyms ? e->n_synonyms : 0;
    out->Synonyms.v = gr_req_alloc(req, &gr_DescribeConfigsResponse_DescribeConfigsSynonym_sd, n);
    out->Synonyms.n = n;
    for (int32_t i = 0; i < n; i++) {
        out->Synonyms.v[i].Name = gr_req_str_copy(req, e->synonyms[i].name);
        out->Synonyms.v[i].Value = gr_req_str_copy(req, e->synonyms[i].value);
        out->Synonyms.v[i].Source = (int8_t)e->synonyms[i].source;
    }
}

static dce_t *entries_alloc(gr_req_t *req, dcr_t *res, size_t cap) {
    res->Configs.v = gr_req_alloc(req, &gr_DescribeConfigsResponse_DescribeConfigsResourceResult_sd, (int32_t)cap);
    res->Configs.n = 0;
    return res->Configs.v;
}

static gr_err_t describe_topic(gr_req_t *req, const keyset_t *rs, const char *name, dcr_t *res, char *errstr,
                               size_t sz) {
    gr_err_t err = gr_meta_topic_name_validate(name, errstr, sz);
    if (err) return err;
    const gr_meta_topic_t *t = gr_meta_topic_find(req->b->meta, name);
    if (!t) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    gr_cfg_layers_t layers;
    gr_meta_config_layers(req->b->meta, t, &layers);
    dce_t *v = entries_alloc(req, res, gr_cfgdef_count());
    for (size_t i = 0; i < gr_cfgdef_count(); i++) {
        const gr_cfgdef_t *def = gr_cfgdef_at(i);
        if (def->scope != GR_CFG_SCOPE_TOPIC || !key_wanted(rs, def->name)) continue;
        gr_cfg_entry_t e;
        gr_cfg_describe(def, &layers, &req->arena, &e);
        put_entry(req, &e, &v[res->Configs.n++]);
    }
    return GR_ERR_NONE;
}

/* A key of server.properties gregor does not know: Kafka lists it too, and since it
 * cannot tell its type it treats it as sensitive. */
static void unknown_static_entry(const char *name, gr_cfg_entry_t *e) {
    memset(e, 0, sizeof(*e));
    e->name = name;
    e->source = GR_CFG_SRC_STATIC_BROKER;
    e->read_only = true;
    e->is_sensitive = true;
    e->type = 0; /* UNKNOWN */
    e->n_synonyms = 1;
    e->synonyms[0] = (gr_cfg_synonym_t){name, NULL, GR_CFG_SRC_STATIC_BROKER};
}

/* A dynamic listener.name.<l>.ssl.{keystore,truststore}.* key, as Kafka lists it: typed,
 * passwords and PEM texts sensitive, with the static values it overrides as synonyms. */
static void dynamic_ssl_entry(const gr_cfg_layers_t *l, const char *name, const char *value, const char *base,
                              gr_cfg_entry_t *e) {
    bool secret = gr_cfg_ssl_sensitive(base);
    memset(e, 0, sizeof(*e));
    e->name = name;
    e->value = secret ? NULL : value;
    e->source = GR_CFG_SRC_DYNAMIC_BROKER;
    e->is_sensitive = secret;
    e->type = secret ? GR_CFG_PASSWORD : GR_CFG_STRING;
    e->synonyms[e->n_synonyms++] = (gr_cfg_synonym_t){name, e->value, GR_CFG_SRC_DYNAMIC_BROKER};
    const char *v = gr_props_get(l->static_broker, name);
    if (v) e->synonyms[e->n_synonyms++] = (gr_cfg_synonym_t){name, secret ? NULL : v, GR_CFG_SRC_STATIC_BROKER};
    if ((v = gr_props_get(l->static_broker, base)))
        e->synonyms[e->n_synonyms++] = (gr_cfg_synonym_t){base, secret ? NULL : v, GR_CFG_SRC_STATIC_BROKER};
}

static bool is_dynamic_ssl(const gr_cfg_layers_t *l, const char *key, const char **base) {
    char ln[128];
    return gr_cfg_listener_ssl_key(key, base, ln, sizeof(ln)) && gr_props_get(l->dynamic_broker, key);
}

static void describe_broker(gr_req_t *req, const keyset_t *rs, bool cluster_default, dcr_t *res) {
    gr_cfg_layers_t layers;
    gr_meta_config_layers(req->b->meta, NULL, &layers);
    gr_cfg_entry_t e;
    if (cluster_default) {
        /* Only what is set at the default level; per-broker values are not part of it. */
        const gr_props_t *dyn = gr_meta_broker_configs(req->b->meta, true);
        layers.dynamic_broker = NULL;
        dce_t *v = entries_alloc(req, res, dyn->n);
        for (size_t i = 0; i < dyn->n; i++) {
            const gr_cfgdef_t *def = gr_cfgdef_find(GR_CFG_SCOPE_BROKER, dyn->v[i].key);
            if (!def || (def->flags & GR_CFG_F_INTERNAL) || !key_wanted(rs, def->name)) continue;
            gr_cfg_describe(def, &layers, &req->arena, &e);
            put_entry(req, &e, &v[res->Configs.n++]);
        }
        return;
    }
    dce_t *v = entries_alloc(req, res, gr_cfgdef_count() + layers.static_broker->n + layers.dynamic_broker->n);
    for (size_t i = 0; i < gr_cfgdef_count(); i++) {
        const gr_cfgdef_t *def = gr_cfgdef_at(i);
        /* Kafka never describes its internal configs, even when they are set. */
        if (def->scope != GR_CFG_SCOPE_BROKER || (def->flags & GR_CFG_F_INTERNAL) || !key_wanted(rs, def->name))
            continue;
        gr_cfg_describe(def, &layers, &req->arena, &e);
        put_entry(req, &e, &v[res->Configs.n++]);
    }
    for (size_t i = 0; i < layers.static_broker->n; i++) {
        const char *k = layers.static_broker->v[i].key;
        const char *base;
        if (gr_cfgdef_find(GR_CFG_SCOPE_BROKER, k) || !key_wanted(rs, k) || is_dynamic_ssl(&layers, k, &base)) continue;
        unknown_static_entry(k, &e);
        put_entry(req, &e, &v[res->Configs.n++]);
    }
    for (size_t i = 0; i < layers.dynamic_broker->n; i++) {
        const char *k = layers.dynamic_broker->v[i].key, *base;
        if (!is_dynamic_ssl(&layers, k, &base) || !key_wanted(rs, k)) continue;
        dynamic_ssl_entry(&layers, k, layers.dynamic_broker->v[i].value, base, &e);
        put_entry(req, &e, &v[res->Configs.n++]);
    }
}

/* GROUP resources: every share.* config, stored value or broker default. */
typedef struct group_put {
    gr_req_t *req;
    const keyset_t *ks;
    dcr_t *res;
} group_put_t;

static bool group_wanted(void *ctx, const char *name) { return key_wanted(((group_put_t *)ctx)->ks, name); }

static void group_put(void *ctx, const gr_sgc_entry_t *g) {
    group_put_t *gp = ctx;
    gr_cfg_entry_t e;
    memset(&e, 0, sizeof(e));
    e.name = g->name;
    e.value = g->value;
    e.source = g->source;
    e.type = g->type;
    e.doc = g->doc;
    e.read_only = g->read_only;
    e.is_sensitive = g->is_sensitive;
    e.n_synonyms = 1;
    e.synonyms[0] = (gr_cfg_synonym_t){g->name, g->value, g->source};
    if (g->default_synonym)
        e.synonyms[e.n_synonyms++] = (gr_cfg_synonym_t){g->name, g->default_synonym, GR_CFG_SRC_DEFAULT};
    put_entry(gp->req, &e, &gp->res->Configs.v[gp->res->Configs.n++]);
}

static gr_err_t describe_group(gr_req_t *req, const keyset_t *ks, const char *name, dcr_t *res, char *errstr,
                               size_t sz) {
    entries_alloc(req, res, gr_sgc_count());
    group_put_t gp = {req, ks, res};
    return gr_share_describe_group_configs(req->b, name, group_wanted, group_put, &gp, errstr, sz);
}

static gr_err_t describe_one(gr_req_t *req, const dres_t *rs, dcr_t *res, char *errstr, size_t sz) {
    char *name = gr_req_cstr(req, rs->ResourceName);
    bool cluster_default;
    gr_err_t err;
    keyset_t ks = keyset_make(req, rs);
    /* DESCRIBE_CONFIGS on the topic, the group, or the cluster for broker resources. */
    gr_az_t check = gr_az_config_check(rs->ResourceType, true);
    if (check != GR_AZ_N && (err = gr_req_authz(req, check, name))) return err;
    switch (rs->ResourceType) {
    case RT_TOPIC: return describe_topic(req, &ks, name, res, errstr, sz);
    case RT_BROKER:
        if ((err = broker_target(req, name, true, &cluster_default, errstr, sz))) return err;
        describe_broker(req, &ks, cluster_default, res);
        return GR_ERR_NONE;
    case RT_BROKER_LOGGER: return logger_target(req, name, errstr, sz);
    case RT_GROUP: return describe_group(req, &ks, name, res, errstr, sz);
    case RT_CLIENT_METRICS: return group_configs_unsupported(rs->ResourceType, errstr, sz);
    default:
        snprintf(errstr, sz, "Unexpected resource type %s for resource %s", rtype_name(rs->ResourceType), name);
        return GR_ERR_INVALID_REQUEST;
    }
}

void gr_h_describe_configs(gr_req_t *req) {
    gr_DescribeConfigsRequest_t *r = req->body;
    gr_DescribeConfigsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Resources.n > 0 ? r->Resources.n : 0;
    resp->Results.v = gr_req_alloc(req, &gr_DescribeConfigsResponse_DescribeConfigsResult_sd, n);
    resp->Results.n = n;
    for (int32_t i = 0; i < n; i++) {
        const dres_t *rs = &r->Resources.v[i];
        dcr_t *res = &resp->Results.v[i];
        char errstr[512] = "";
        res->ResourceType = rs->ResourceType;
        res->ResourceName = rs->ResourceName;
        gr_err_t err = describe_one(req, rs, res, errstr, sizeof(errstr));
        res->ErrorCode = (int16_t)err;
        /* Kafka sends "" rather than null when there is nothing to say, success included. */
        res->ErrorMessage = err && errstr[0] ? gr_req_msg(req, "%s", errstr) : GR_STR("");
        if (err) res->Configs.n = 0;
    }
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ alter, shared */

/* One resource of either alter API, in a common form (legacy entries are SETs). */
typedef struct alter_item {
    gr_str_t key, value;
    int8_t op;
} alter_item_t;

typedef struct alter_res {
    int8_t type;
    gr_str_t name;
    alter_item_t *items;
    int32_t n;
    bool dup_resource;
} alter_res_t;

static void mark_dup_resources(gr_req_t *req, alter_res_t *rs, int32_t n) {
    gr_keyed_t *keys = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*keys) + 1);
    bool *dup = gr_arena_alloc(&req->arena, (size_t)n + 1);
    for (int32_t i = 0; i < n; i++) keys[i] = (gr_keyed_t){rs[i].type, rs[i].name, i};
    gr_find_dups(keys, n, dup, NULL);
    for (int32_t i = 0; i < n; i++) rs[i].dup_resource = dup[i];
}

static bool has_dup_keys(gr_req_t *req, const alter_res_t *ar) {
    gr_keyed_t *keys = gr_arena_alloc(&req->arena, (size_t)ar->n * sizeof(*keys) + 1);
    bool *dup = gr_arena_alloc(&req->arena, (size_t)ar->n + 1);
    for (int32_t i = 0; i < ar->n; i++) keys[i] = (gr_keyed_t){0, ar->items[i].key, i};
    gr_find_dups(keys, ar->n, dup, NULL);
    for (int32_t i = 0; i < ar->n; i++)
        if (dup[i]) return true;
    return false;
}

/* ConfigAdminManager.preprocess: duplicate keys, then null values (except DELETE). */
static gr_err_t check_items(gr_req_t *req, const alter_res_t *ar, char *errstr, size_t sz) {
    if (has_dup_keys(req, ar)) {
        snprintf(errstr, sz, "Error due to duplicate config keys");
        return GR_ERR_INVALID_REQUEST;
    }
    size_t o = 0;
    for (int32_t i = 0; i < ar->n; i++) {
        if (ar->items[i].op == OP_DELETE || !gr_str_is_null(ar->items[i].value)) continue;
        o += (size_t)snprintf(errstr + o, o < sz ? sz - o : 0, "%s%s",
                              o ? ", " : "Null value not supported for : ", gr_req_cstr(req, ar->items[i].key));
        if (o >= sz) o = sz - 1;
    }
    if (o) return GR_ERR_INVALID_REQUEST;
    for (int32_t i = 0; i < ar->n; i++)
        if (ar->items[i].op < OP_SET || ar->items[i].op > OP_SUBTRACT) {
            snprintf(errstr, sz, "Unknown operations type %d", ar->items[i].op);
            return GR_ERR_INVALID_REQUEST;
        }
    return GR_ERR_NONE;
}

/* Split s on ',' into the arena (empty parts dropped); returns the count. */
static int32_t split_list(gr_req_t *req, const char *s, char ***out) {
    int32_t cap = 1;
    for (const char *p = s; *p; p++) cap += *p == ',';
    char **v = gr_arena_alloc(&req->arena, (size_t)cap * sizeof(*v));
    int32_t n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (len) v[n++] = gr_arena_strndup(&req->arena, s, len);
        s += len + (s[len] == ',');
    }
    *out = v;
    return n;
}

/* APPEND / SUBTRACT on a LIST config (ConfigurationControlManager): the current value,
 * else the definition's default, as a list; APPEND adds the items not yet present,
 * SUBTRACT removes the first occurrence of each item; the result is joined with ','. */
static gr_err_t list_op(gr_req_t *req, gr_props_t *map, const gr_cfgdef_t *def, int8_t op, const char *value,
                        char *errstr, size_t sz) {
    const char *cur = gr_props_get(map, def->name);
    char **have, **items;
    int32_t nh = split_list(req, cur ? cur : def->dflt ? def->dflt : "", &have);
    int32_t ni = split_list(req, value, &items);
    if (nh + ni > GR_LIST_MAX_ITEMS) { /* the merge below is quadratic; real lists are short */
        snprintf(errstr, sz, "Invalid value for configuration %s: more than %d list items", def->name,
                 GR_LIST_MAX_ITEMS);
        return GR_ERR_INVALID_CONFIG;
    }
    char **res = gr_arena_alloc(&req->arena, (size_t)(nh + ni + 1) * sizeof(*res));
    int32_t nr = 0;
    size_t len = 1;
    for (int32_t i = 0; i < nh; i++) res[nr++] = have[i];
    for (int32_t k = 0; k < ni; k++) {
        int32_t at = -1;
        for (int32_t i = 0; i < nr && at < 0; i++)
            if (!strcmp(res[i], items[k])) at = i;
        if (op == OP_APPEND && at < 0) res[nr++] = items[k];
        if (op == OP_SUBTRACT && at >= 0) memmove(&res[at], &res[at + 1], (size_t)(--nr - at) * sizeof(*res));
    }
    for (int32_t i = 0; i < nr; i++) len += strlen(res[i]) + 1;
    char *out = gr_arena_alloc(&req->arena, len), *o = out;
    for (int32_t i = 0; i < nr; i++) o += sprintf(o, "%s%s", i ? "," : "", res[i]);
    *o = '\0';
    gr_props_set(map, def->name, out, 0);
    return GR_ERR_NONE;
}

/* Apply the incremental ops of ar to map (a copy of the resource's current overrides). */
static gr_err_t apply_ops(gr_req_t *req, const alter_res_t *ar, gr_cfg_scope_t scope, gr_props_t *map, char *errstr,
                          size_t sz) {
    for (int32_t i = 0; i < ar->n; i++) {
        const alter_item_t *it = &ar->items[i];
        char *key = gr_req_cstr(req, it->key);
        const gr_cfgdef_t *def = gr_cfgdef_find(scope, key);
        if (it->op == OP_SET) {
            gr_props_set(map, key, gr_req_cstr(req, it->value), 0);
        } else if (it->op == OP_DELETE) {
            gr_props_unset(map, key);
        } else if (!def || def->type != GR_CFG_LIST) {
            const char *verb = it->op == OP_APPEND ? "APPEND" : "SUBTRACT";
            if (scope == GR_CFG_SCOPE_TOPIC)
                snprintf(errstr, sz, "Can't %s to key %s because its type is not LIST.", verb, key);
            else
                snprintf(errstr, sz, "Config value %s is not allowed for config key: %s",
                         it->op == OP_APPEND ? "append" : "subtract", key);
            return GR_ERR_INVALID_CONFIG;
        } else {
            gr_err_t err = list_op(req, map, def, it->op, gr_req_cstr(req, it->value), errstr, sz);
            if (err) return err;
        }
    }
    return GR_ERR_NONE;
}

static gr_err_t alter_topic(gr_req_t *req, const alter_res_t *ar, bool incremental, bool validate_only, char *errstr,
                            size_t sz) {
    gr_meta_t *meta = req->b->meta;
    char *name = gr_req_cstr(req, ar->name);
    if (!*name) {
        snprintf(errstr, sz, "Default topic resources are not allowed.");
        return GR_ERR_INVALID_REQUEST;
    }
    gr_err_t err = gr_meta_topic_name_validate(name, errstr, sz);
    if (err) return err;
    const gr_meta_topic_t *t = gr_meta_topic_find(meta, name);
    gr_props_t map;
    gr_props_init(&map);
    if (incremental && t) gr_props_copy(&map, &t->configs);
    if (incremental) err = apply_ops(req, ar, GR_CFG_SCOPE_TOPIC, &map, errstr, sz);
    for (int32_t i = 0; !incremental && i < ar->n; i++)
        gr_props_set(&map, gr_req_cstr(req, ar->items[i].key), gr_req_cstr(req, ar->items[i].value), 0);
    /* Kafka validates the resulting map before it checks that the topic exists. */
    if (!err) err = gr_cfg_validate_all(GR_CFG_SCOPE_TOPIC, &map, errstr, sz);
    if (!err && !t) {
        snprintf(errstr, sz, "The topic '%s' does not exist.", name);
        err = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (!err) err = gr_meta_topic_set_configs(meta, name, &map, validate_only, errstr, sz);
    gr_props_free(&map);
    if (!err && !validate_only) {
        gr_parts_reconfigure(req->b->parts, gr_meta_topic_find(meta, name));
        GR_INFO("configs", "topic %s configs altered", name);
    }
    return err;
}

static gr_err_t alter_broker(gr_req_t *req, const alter_res_t *ar, bool incremental, bool validate_only, char *errstr,
                             size_t sz) {
    gr_meta_t *meta = req->b->meta;
    char *name = gr_req_cstr(req, ar->name);
    bool cluster_default;
    gr_err_t err = broker_target(req, name, false, &cluster_default, errstr, sz);
    if (err) return err;
    gr_props_t map;
    gr_props_init(&map);
    if (incremental) gr_props_copy(&map, gr_meta_broker_configs(meta, cluster_default));
    if (incremental) err = apply_ops(req, ar, GR_CFG_SCOPE_BROKER, &map, errstr, sz);
    for (int32_t i = 0; !incremental && i < ar->n; i++)
        gr_props_set(&map, gr_req_cstr(req, ar->items[i].key), gr_req_cstr(req, ar->items[i].value), 0);
    /* Kafka's order: the key checks, then reconfiguration (a new keystore must load and keep
     * its identity), then the change is stored; a per-broker alter also reloads changed files. */
    if (!err) err = gr__broker_tls_check_keys(&map, cluster_default, errstr, sz);
    if (!err) err = gr_meta_broker_set_configs(meta, cluster_default, &map, true, errstr, sz);
    gr_tls_reload_t *reload = NULL;
    if (!err && !cluster_default) err = gr__broker_tls_prepare(req->b, &map, &reload, errstr, sz);
    if (!err && !validate_only) err = gr_meta_broker_set_configs(meta, cluster_default, &map, false, errstr, sz);
    if (err == GR_ERR_INVALID_CONFIG) err = GR_ERR_INVALID_REQUEST; /* KAFKA-13609 */
    if (!err && !validate_only)
        gr__broker_tls_commit(req->b, reload);
    else
        gr__broker_tls_discard(reload);
    gr_props_free(&map);
    if (!err && !validate_only) {
        gr_parts_reconfigure_all(req->b->parts);
        GR_INFO("configs", "broker configs (%s) altered", cluster_default ? "cluster default" : name);
    }
    return err;
}

/* GROUP: like a topic, the ops apply to the stored overrides (AlterConfigs replaces them)
 * and the whole resulting map is validated against the broker bounds. */
static gr_err_t alter_group(gr_req_t *req, const alter_res_t *ar, bool incremental, bool validate_only, char *errstr,
                            size_t sz) {
    char *name = gr_req_cstr(req, ar->name);
    const gr_props_t *cur = gr_share_group_configs(req->b, name);
    gr_props_t map;
    gr_props_init(&map);
    gr_err_t err = GR_ERR_NONE;
    if (incremental && cur) gr_props_copy(&map, cur);
    if (incremental) err = apply_ops(req, ar, GR_CFG_SCOPE_TOPIC, &map, errstr, sz);
    for (int32_t i = 0; !incremental && i < ar->n; i++)
        gr_props_set(&map, gr_req_cstr(req, ar->items[i].key), gr_req_cstr(req, ar->items[i].value), 0);
    if (!err) err = gr_share_alter_group_configs(req->b, name, &map, validate_only, errstr, sz);
    gr_props_free(&map);
    return err;
}

static gr_err_t alter_one(gr_req_t *req, const alter_res_t *ar, bool incremental, bool validate_only, char *errstr,
                          size_t sz) {
    if (ar->dup_resource) {
        snprintf(errstr, sz, "Each resource must appear at most once.");
        return GR_ERR_INVALID_REQUEST;
    }
    /* ALTER_CONFIGS on the topic, the group, or the cluster for broker resources. */
    gr_az_t check = gr_az_config_check(ar->type, false);
    gr_err_t err = check != GR_AZ_N ? gr_req_authz(req, check, gr_req_cstr(req, ar->name)) : GR_ERR_NONE;
    if (err) return err;
    if ((err = check_items(req, ar, errstr, sz))) return err;
    switch (ar->type) {
    case RT_TOPIC: return alter_topic(req, ar, incremental, validate_only, errstr, sz);
    case RT_BROKER: return alter_broker(req, ar, incremental, validate_only, errstr, sz);
    case RT_BROKER_LOGGER:
        if (incremental) return logger_target(req, gr_req_cstr(req, ar->name), errstr, sz);
        break; /* legacy AlterConfigs never supported loggers */
    case RT_GROUP: return alter_group(req, ar, incremental, validate_only, errstr, sz);
    case RT_CLIENT_METRICS: return group_configs_unsupported(ar->type, errstr, sz);
    default: break;
    }
    snprintf(errstr, sz, "Unknown resource type %d", ar->type);
    return GR_ERR_INVALID_REQUEST;
}

/* Run every resource and fill the (identically shaped) response entries. */
static void alter_all(gr_req_t *req, alter_res_t *rs, int32_t n, bool incremental, bool validate_only, int16_t *codes,
                      gr_str_t *msgs) {
    mark_dup_resources(req, rs, n);
    for (int32_t i = 0; i < n; i++) {
        char errstr[1024] = "";
        gr_err_t err = alter_one(req, &rs[i], incremental, validate_only, errstr, sizeof(errstr));
        codes[i] = (int16_t)err;
        msgs[i] = err && errstr[0] ? gr_req_msg(req, "%s", errstr) : GR_STR_NULL;
    }
}

/* ------------------------------------------------------------------ AlterConfigs */

void gr_h_alter_configs(gr_req_t *req) {
    gr_AlterConfigsRequest_t *r = req->body;
    gr_AlterConfigsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Resources.n > 0 ? r->Resources.n : 0;
    alter_res_t *rs = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*rs) + 1);
    int16_t *codes = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*codes) + 1);
    gr_str_t *msgs = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*msgs) + 1);
    for (int32_t i = 0; i < n; i++) {
        const gr_AlterConfigsRequest_AlterConfigsResource_t *src = &r->Resources.v[i];
        int32_t m = src->Configs.n > 0 ? src->Configs.n : 0;
        rs[i] = (alter_res_t){.type = src->ResourceType, .name = src->ResourceName, .n = m};
        rs[i].items = gr_arena_alloc(&req->arena, (size_t)m * sizeof(alter_item_t) + 1);
        for (int32_t j = 0; j < m; j++)
            rs[i].items[j] = (alter_item_t){src->Configs.v[j].Name, src->Configs.v[j].Value, OP_SET};
    }
    alter_all(req, rs, n, false, r->ValidateOnly, codes, msgs);
    resp->Responses.v = gr_req_alloc(req, &gr_AlterConfigsResponse_AlterConfigsResourceResponse_sd, n);
    resp->Responses.n = n;
    for (int32_t i = 0; i < n; i++) {
        resp->Responses.v[i].ErrorCode = codes[i];
        resp->Responses.v[i].ErrorMessage = msgs[i];
        resp->Responses.v[i].ResourceType = rs[i].type;
        resp->Responses.v[i].ResourceName = rs[i].name;
    }
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ IncrementalAlterConfigs */

void gr_h_incremental_alter_configs(gr_req_t *req) {
    gr_IncrementalAlterConfigsRequest_t *r = req->body;
    gr_IncrementalAlterConfigsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Resources.n > 0 ? r->Resources.n : 0;
    alter_res_t *rs = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*rs) + 1);
    int16_t *codes = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*codes) + 1);
    gr_str_t *msgs = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*msgs) + 1);
    for (int32_t i = 0; i < n; i++) {
        const gr_IncrementalAlterConfigsRequest_AlterConfigsResource_t *src = &r->Resources.v[i];
        int32_t m = src->Configs.n > 0 ? src->Configs.n : 0;
        rs[i] = (alter_res_t){.type = src->ResourceType, .name = src->ResourceName, .n = m};
        rs[i].items = gr_arena_alloc(&req->arena, (size_t)m * sizeof(alter_item_t) + 1);
        for (int32_t j = 0; j < m; j++) {
            const gr_IncrementalAlterConfigsRequest_AlterableConfig_t *c = &src->Configs.v[j];
            rs[i].items[j] = (alter_item_t){c->Name, c->Value, c->ConfigOperation};
        }
    }
    alter_all(req, rs, n, true, r->ValidateOnly, codes, msgs);
    resp->Responses.v = gr_req_alloc(req, &gr_IncrementalAlterConfigsResponse_AlterConfigsResourceResponse_sd, n);
    resp->Responses.n = n;
    for (int32_t i = 0; i < n; i++) {
        resp->Responses.v[i].ErrorCode = codes[i];
        resp->Responses.v[i].ErrorMessage = msgs[i];
        resp->Responses.v[i].ResourceType = rs[i].type;
        resp->Responses.v[i].ResourceName = rs[i].name;
    }
    gr_req_respond(req, resp);
}
