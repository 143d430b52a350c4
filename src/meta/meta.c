/* Cluster metadata store: topics and configs in memory; persistence in meta_persist.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hash.h"
#include "base/uuid.h"
#include "base/xalloc.h"
#include "meta/meta_int.h"

/* ---- indexes: rebuilt after every insert/remove (changes are rare and O(n) anyway) ---- */

/* Keyed: topic names are the clients' choice. */
static uint64_t hash_name(const char *s) { return gr_hash_str(s); }

static uint64_t hash_id(const gr_uuid_t *id) {
    uint64_t h;
    memcpy(&h, id->b + 8, sizeof(h)); /* random bits */
    return h * 0x9e3779b97f4a7c15ull;
}

static void rebuild_index(gr_meta_t *meta) {
    size_t cap = 16;
    while (cap < meta->n_topics * 2 + 16) cap *= 2;
    free(meta->by_name);
    free(meta->by_id);
    meta->by_name = calloc(cap, sizeof(int32_t));
    meta->by_id = calloc(cap, sizeof(int32_t));
    if (!meta->by_name || !meta->by_id) abort();
    meta->hash_cap = cap;
    for (size_t i = 0; i < meta->n_topics; i++) {
        size_t h = hash_name(meta->topics[i]->name) & (cap - 1);
        while (meta->by_name[h]) h = (h + 1) & (cap - 1);
        meta->by_name[h] = (int32_t)i + 1;
        h = hash_id(&meta->topics[i]->id) & (cap - 1);
        while (meta->by_id[h]) h = (h + 1) & (cap - 1);
        meta->by_id[h] = (int32_t)i + 1;
    }
}

const gr_meta_topic_t *gr_meta_topic_find(const gr_meta_t *meta, const char *name) {
    if (!meta->hash_cap || !name) return NULL;
    for (size_t h = hash_name(name) & (meta->hash_cap - 1); meta->by_name[h]; h = (h + 1) & (meta->hash_cap - 1)) {
        const gr_meta_topic_t *t = meta->topics[meta->by_name[h] - 1];
        if (!strcmp(t->name, name)) return t;
    }
    return NULL;
}

const gr_meta_topic_t *gr_meta_topic_find_id(const gr_meta_t *meta, const gr_uuid_t *id) {
    if (!meta->hash_cap || gr_uuid_is_zero(id)) return NULL;
    for (size_t h = hash_id(id) & (meta->hash_cap - 1); meta->by_id[h]; h = (h + 1) & (meta->hash_cap - 1)) {
        const gr_meta_topic_t *t = meta->topics[meta->by_id[h] - 1];
        if (gr_uuid_eq(&t->id, id)) return t;
    }
    return NULL;
}

void gr__meta_insert(gr_meta_t *meta, gr_meta_topic_t *t) {
    if (meta->n_topics == meta->cap_topics) {
        meta->cap_topics = meta->cap_topics ? meta->cap_topics * 2 : 16;
        meta->topics = realloc(meta->topics, meta->cap_topics * sizeof(*meta->topics));
        if (!meta->topics) abort();
    }
    size_t lo = 0, hi = meta->n_topics;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(meta->topics[mid]->name, t->name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&meta->topics[lo + 1], &meta->topics[lo], (meta->n_topics - lo) * sizeof(*meta->topics));
    meta->topics[lo] = t;
    meta->n_topics++;
    rebuild_index(meta);
}

/* Unlink t from the store without freeing it. */
static void unlink_topic(gr_meta_t *meta, const gr_meta_topic_t *t) {
    for (size_t i = 0; i < meta->n_topics; i++) {
        if (meta->topics[i] != t) continue;
        memmove(&meta->topics[i], &meta->topics[i + 1], (meta->n_topics - i - 1) * sizeof(*meta->topics));
        meta->n_topics--;
        break;
    }
    rebuild_index(meta);
}

void gr__meta_topic_free(gr_meta_topic_t *t) {
    if (!t) return;
    free(t->name);
    gr_props_free(&t->configs);
    free(t);
}

/* ---- open / close ---- */

static gr_err_t mkdir_p(const char *dir, char *errstr, size_t sz) {
    char *p = gr_xstrdup(dir);
    gr_err_t err = GR_ERR_NONE;
    for (char *c = p + 1;; c++) {
        if (*c != '/' && *c != '\0') continue;
        char save = *c;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            snprintf(errstr, sz, "cannot create directory %s: %s", p, strerror(errno));
            err = GR_ERR__IO;
            break;
        }
        *c = save;
        if (!save) break;
    }
    free(p);
    return err;
}

gr_err_t gr_meta_open(gr_meta_t **out, const char *log_dir, int32_t node_id, const gr_props_t *static_config,
                      char *errstr, size_t errstr_size) {
    gr_meta_t *meta = calloc(1, sizeof(*meta));
    if (!meta) abort();
    meta->log_dir = gr_xstrdup(log_dir);
    meta->node_id = node_id;
    meta->meta_path = malloc(strlen(log_dir) + 32);
    if (!meta->meta_path) abort();
    sprintf(meta->meta_path, "%s/gregor.metadata", log_dir);
    gr_props_init(&meta->static_cfg);
    gr_props_init(&meta->dyn_broker);
    gr_props_init(&meta->dyn_default);
    gr_props_init(&meta->features);
    meta->features_epoch = 1;
    if (static_config) gr_props_copy(&meta->static_cfg, static_config);
    /* Kafka copies node.id into broker.id when only node.id is set, so DescribeConfigs
     * shows broker.id as a static config with the node id. */
    const char *node = gr_props_get(&meta->static_cfg, "node.id");
    if (node && !gr_props_get(&meta->static_cfg, "broker.id")) gr_props_set(&meta->static_cfg, "broker.id", node, 0);
    rebuild_index(meta);
    gr_err_t err;
    if ((err = mkdir_p(log_dir, errstr, errstr_size)) ||
        (err = gr__meta_load_meta_properties(meta, errstr, errstr_size)) ||
        (err = gr__meta_load(meta, errstr, errstr_size))) {
        gr_meta_close(meta);
        return err;
    }
    *out = meta;
    return GR_ERR_NONE;
}

void gr_meta_close(gr_meta_t *meta) {
    if (!meta) return;
    for (size_t i = 0; i < meta->n_topics; i++) gr__meta_topic_free(meta->topics[i]);
    free(meta->topics);
    free(meta->by_name);
    free(meta->by_id);
    gr_props_free(&meta->static_cfg);
    gr_props_free(&meta->dyn_broker);
    gr_props_free(&meta->dyn_default);
    gr_props_free(&meta->features);
    free(meta->log_dir);
    free(meta->meta_path);
    free(meta);
}

const char *gr_meta_cluster_id(const gr_meta_t *meta) { return meta->cluster_id; }
int32_t gr_meta_node_id(const gr_meta_t *meta) { return meta->node_id; }
size_t gr_meta_topic_count(const gr_meta_t *meta) { return meta->n_topics; }

const gr_meta_topic_t *gr_meta_topic_at(const gr_meta_t *meta, size_t i) {
    return i < meta->n_topics ? meta->topics[i] : NULL;
}

/* ---- topics ---- */

gr_err_t gr_meta_topic_name_validate(const char *name, char *errstr, size_t sz) {
    /* The checks and wording of Kafka 4.x Topic.validate ("Topic name is invalid: ..."). */
    size_t len = name ? strlen(name) : 0;
    if (len == 0) {
        snprintf(errstr, sz, "Topic name is invalid: the empty string is not allowed");
        return GR_ERR_INVALID_TOPIC_EXCEPTION;
    }
    if (!strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(errstr, sz, "Topic name is invalid: '%s' is not allowed", name);
        return GR_ERR_INVALID_TOPIC_EXCEPTION;
    }
    if (len > 249) {
        snprintf(errstr, sz, "Topic name is invalid: the length of '%s' is longer than the max allowed length 249",
                 name);
        return GR_ERR_INVALID_TOPIC_EXCEPTION;
    }
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-')) {
            snprintf(errstr, sz,
                     "Topic name is invalid: '%s' contains one or more characters other than ASCII "
                     "alphanumerics, '.', '_' and '-'",
                     name);
            return GR_ERR_INVALID_TOPIC_EXCEPTION;
        }
    }
    return GR_ERR_NONE;
}

/* Kafka refuses topics whose names differ only by '.' versus '_' (metric names collide). */
static const gr_meta_topic_t *colliding(const gr_meta_t *meta, const char *name) {
    if (!strpbrk(name, "._")) return NULL;
    for (size_t i = 0; i < meta->n_topics; i++) {
        const char *a = meta->topics[i]->name, *b = name;
        while (*a && *b && (*a == *b || ((*a == '.' || *a == '_') && (*b == '.' || *b == '_')))) a++, b++;
        if (!*a && !*b) return meta->topics[i];
    }
    return NULL;
}

static gr_err_t storage_err(gr_err_t err) { return err ? GR_ERR_KAFKA_STORAGE_ERROR : GR_ERR_NONE; }

static gr_err_t check_new_topic(gr_meta_t *meta, const char *name, int32_t partitions, const gr_props_t *configs,
                                char *errstr, size_t sz) {
    gr_err_t err = gr_meta_topic_name_validate(name, errstr, sz);
    if (err) return err;
    if (gr_meta_topic_find(meta, name)) {
        snprintf(errstr, sz, "Topic '%s' already exists.", name);
        return GR_ERR_TOPIC_ALREADY_EXISTS;
    }
    const gr_meta_topic_t *c = colliding(meta, name);
    if (c) {
        snprintf(errstr, sz, "Topic '%s' collides with existing topic: %s", name, c->name);
        return GR_ERR_INVALID_TOPIC_EXCEPTION;
    }
    if (partitions <= 0) {
        snprintf(errstr, sz, "Number of partitions was set to an invalid non-positive value.");
        return GR_ERR_INVALID_PARTITIONS;
    }
    if (partitions > GR_META_MAX_PARTITIONS) {
        snprintf(errstr, sz, "Number of partitions %d exceeds the maximum of %d.", partitions, GR_META_MAX_PARTITIONS);
        return GR_ERR_INVALID_PARTITIONS;
    }
    return gr_cfg_validate_all(GR_CFG_SCOPE_TOPIC, configs, errstr, sz);
}

gr_err_t gr_meta_topic_create(gr_meta_t *meta, const char *name, int32_t partitions, const gr_props_t *configs,
                              int64_t now_ms, bool validate_only, const gr_meta_topic_t **out, char *errstr,
                              size_t errstr_size) {
    if (out) *out = NULL;
    if (partitions == -1) partitions = (int32_t)gr_meta_broker_config_i64(meta, "num.partitions");
    gr_err_t err = check_new_topic(meta, name, partitions, configs, errstr, errstr_size);
    if (err || validate_only) return err;
    gr_meta_topic_t *t = calloc(1, sizeof(*t));
    if (!t) abort();
    t->name = gr_xstrdup(name);
    do t->id = gr_uuid_random();
    while (gr_meta_topic_find_id(meta, &t->id));
    t->partitions = partitions;
    t->created_ms = now_ms;
    gr_props_init(&t->configs);
    if (configs) gr_props_copy(&t->configs, configs);
    gr__meta_insert(meta, t);
    if ((err = storage_err(gr__meta_persist(meta, errstr, errstr_size)))) {
        unlink_topic(meta, t);
        gr__meta_topic_free(t);
        return err;
    }
    if (out) *out = t;
    return GR_ERR_NONE;
}

static gr_err_t delete_topic(gr_meta_t *meta, gr_meta_topic_t *t, char *errstr, size_t sz) {
    unlink_topic(meta, t);
    gr_err_t err = storage_err(gr__meta_persist(meta, errstr, sz));
    if (err)
        gr__meta_insert(meta, t);
    else
        gr__meta_topic_free(t);
    return err;
}

gr_err_t gr_meta_topic_delete(gr_meta_t *meta, const char *name, char *errstr, size_t errstr_size) {
    gr_meta_topic_t *t = (gr_meta_topic_t *)gr_meta_topic_find(meta, name);
    if (!t) {
        snprintf(errstr, errstr_size, "This server does not host this topic-partition.");
        return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    return delete_topic(meta, t, errstr, errstr_size);
}

gr_err_t gr_meta_topic_delete_id(gr_meta_t *meta, const gr_uuid_t *id, char *errstr, size_t errstr_size) {
    gr_meta_topic_t *t = (gr_meta_topic_t *)gr_meta_topic_find_id(meta, id);
    if (!t) {
        snprintf(errstr, errstr_size, "This server does not host this topic ID.");
        return GR_ERR_UNKNOWN_TOPIC_ID;
    }
    return delete_topic(meta, t, errstr, errstr_size);
}

static gr_meta_topic_t *find_mut(gr_meta_t *meta, const char *name, char *errstr, size_t sz) {
    gr_meta_topic_t *t = (gr_meta_topic_t *)gr_meta_topic_find(meta, name);
    if (!t) snprintf(errstr, sz, "This server does not host this topic-partition.");
    return t;
}

gr_err_t gr_meta_topic_add_partitions(gr_meta_t *meta, const char *name, int32_t new_count, bool validate_only,
                                      char *errstr, size_t errstr_size) {
    gr_meta_topic_t *t = find_mut(meta, name, errstr, errstr_size);
    if (!t) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (new_count < t->partitions) {
        snprintf(errstr, errstr_size, "The topic %s currently has %d partition(s); %d would not be an increase.", name,
                 t->partitions, new_count);
        return GR_ERR_INVALID_PARTITIONS;
    }
    if (new_count == t->partitions) {
        snprintf(errstr, errstr_size, "Topic already has %d partition(s).", t->partitions);
        return GR_ERR_INVALID_PARTITIONS;
    }
    if (new_count > GR_META_MAX_PARTITIONS) {
        snprintf(errstr, errstr_size, "Number of partitions %d exceeds the maximum of %d.", new_count,
                 GR_META_MAX_PARTITIONS);
        return GR_ERR_INVALID_PARTITIONS;
    }
    if (validate_only) return GR_ERR_NONE;
    int32_t old = t->partitions;
    t->partitions = new_count;
    gr_err_t err = storage_err(gr__meta_persist(meta, errstr, errstr_size));
    if (err) t->partitions = old;
    return err;
}

/* Swap *cur with next (validated), persist, and swap back on failure. */
static gr_err_t commit_props(gr_meta_t *meta, gr_props_t *cur, gr_props_t *next, char *errstr, size_t sz) {
    gr_props_t old = *cur;
    *cur = *next;
    gr_err_t err = storage_err(gr__meta_persist(meta, errstr, sz));
    if (err) {
        *next = *cur;
        *cur = old;
    } else {
        *next = old;
    }
    gr_props_free(next);
    return err;
}

gr_err_t gr_meta_topic_set_configs(gr_meta_t *meta, const char *name, const gr_props_t *configs, bool validate_only,
                                   char *errstr, size_t errstr_size) {
    gr_meta_topic_t *t = find_mut(meta, name, errstr, errstr_size);
    if (!t) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    gr_err_t err = gr_cfg_validate_all(GR_CFG_SCOPE_TOPIC, configs, errstr, errstr_size);
    if (err || validate_only) return err;
    gr_props_t next;
    gr_props_init(&next);
    if (configs) gr_props_copy(&next, configs);
    return commit_props(meta, &t->configs, &next, errstr, errstr_size);
}

gr_err_t gr_meta_topic_set_config(gr_meta_t *meta, const char *name, const char *key, const char *value,
                                  bool validate_only, char *errstr, size_t errstr_size) {
    gr_meta_topic_t *t = find_mut(meta, name, errstr, errstr_size);
    if (!t) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    gr_err_t err = GR_ERR_NONE;
    if (value || !gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, key)) /* deleting needs only a known name */
        err = gr_cfg_validate(GR_CFG_SCOPE_TOPIC, key, value ? value : "", errstr, errstr_size);
    if (err || validate_only) return err;
    gr_props_t next;
    gr_props_init(&next);
    gr_props_copy(&next, &t->configs);
    if (value)
        gr_props_set(&next, key, value, 0);
    else
        gr_props_unset(&next, key);
    return commit_props(meta, &t->configs, &next, errstr, errstr_size);
}

/* ---- effective values ---- */

void gr_meta_config_layers(const gr_meta_t *meta, const gr_meta_topic_t *topic, gr_cfg_layers_t *out) {
    out->topic = topic ? &topic->configs : NULL;
    out->dynamic_broker = &meta->dyn_broker;
    out->dynamic_default = &meta->dyn_default;
    out->static_broker = &meta->static_cfg;
}

const char *gr_meta_topic_config(const gr_meta_t *meta, const gr_meta_topic_t *topic, const char *key, char *buf,
                                 size_t buf_size) {
    gr_cfg_layers_t l;
    gr_meta_config_layers(meta, topic, &l);
    return gr_cfg_effective(GR_CFG_SCOPE_TOPIC, key, &l, buf, buf_size, NULL);
}

int64_t gr_meta_topic_config_i64(const gr_meta_t *meta, const gr_meta_topic_t *topic, const char *key) {
    gr_cfg_layers_t l;
    gr_meta_config_layers(meta, topic, &l);
    return gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, key, &l, 0);
}

bool gr_meta_topic_config_bool(const gr_meta_t *meta, const gr_meta_topic_t *topic, const char *key) {
    gr_cfg_layers_t l;
    gr_meta_config_layers(meta, topic, &l);
    return gr_cfg_effective_bool(GR_CFG_SCOPE_TOPIC, key, &l, false);
}

int64_t gr_meta_broker_config_i64(const gr_meta_t *meta, const char *key) {
    gr_cfg_layers_t l;
    gr_meta_config_layers(meta, NULL, &l);
    return gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, key, &l, 0);
}

/* ---- dynamic broker configs ---- */

static gr_err_t check_dynamic(const char *key, const char *value, char *errstr, size_t sz) {
    const char *base;
    char lname[128];
    /* listener.name.<l>.ssl.keystore.* etc.: the broker checked and loaded them already. */
    if (gr_cfg_listener_ssl_key(key, &base, lname, sizeof(lname))) return GR_ERR_NONE;
    const gr_cfgdef_t *def = gr_cfgdef_find(GR_CFG_SCOPE_BROKER, key);
    if (!def) return gr_cfg_validate(GR_CFG_SCOPE_BROKER, key, value, errstr, sz);
    if (!(def->flags & GR_CFG_F_DYNAMIC)) {
        snprintf(errstr, sz, "Cannot update these configs dynamically: [%s]", key);
        return GR_ERR_INVALID_CONFIG;
    }
    return value ? gr_cfg_validate(GR_CFG_SCOPE_BROKER, key, value, errstr, sz) : GR_ERR_NONE;
}

gr_err_t gr_meta_broker_set_configs(gr_meta_t *meta, bool cluster_default, const gr_props_t *configs,
                                    bool validate_only, char *errstr, size_t errstr_size) {
    for (size_t i = 0; configs && i < configs->n; i++) {
        gr_err_t err = check_dynamic(configs->v[i].key, configs->v[i].value, errstr, errstr_size);
        if (err) return err;
    }
    if (validate_only) return GR_ERR_NONE;
    gr_props_t next;
    gr_props_init(&next);
    if (configs) gr_props_copy(&next, configs);
    return commit_props(meta, cluster_default ? &meta->dyn_default : &meta->dyn_broker, &next, errstr, errstr_size);
}

gr_err_t gr_meta_broker_set_config(gr_meta_t *meta, bool cluster_default, const char *key, const char *value,
                                   bool validate_only, char *errstr, size_t errstr_size) {
    gr_err_t err = check_dynamic(key, value, errstr, errstr_size);
    if (err || validate_only) return err;
    gr_props_t *cur = cluster_default ? &meta->dyn_default : &meta->dyn_broker;
    gr_props_t next;
    gr_props_init(&next);
    gr_props_copy(&next, cur);
    if (value)
        gr_props_set(&next, key, value, 0);
    else
        gr_props_unset(&next, key);
    return commit_props(meta, cur, &next, errstr, errstr_size);
}

const gr_props_t *gr_meta_broker_configs(const gr_meta_t *meta, bool cluster_default) {
    return cluster_default ? &meta->dyn_default : &meta->dyn_broker;
}
