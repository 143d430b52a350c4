/* gregord configuration loading. See config.h. */
#include "server/config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "meta/configdefs.h"
#include "net/conn.h"
#include "server/config_int.h"
#include "share/group_config.h"

static const gr_cfg_layers_t *layers_of(const gr_server_config_t *cfg, gr_cfg_layers_t *l) {
    memset(l, 0, sizeof(*l));
    l->static_broker = &cfg->raw;
    return l;
}

static int64_t get_i64(const gr_server_config_t *cfg, const char *name) {
    gr_cfg_layers_t l;
    return gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, name, layers_of(cfg, &l), 0);
}

static bool get_bool(const gr_server_config_t *cfg, const char *name) {
    gr_cfg_layers_t l;
    return gr_cfg_effective_bool(GR_CFG_SCOPE_BROKER, name, layers_of(cfg, &l), false);
}

/* Effective string value (never NULL: "" for null). */
static const char *get_str(const gr_server_config_t *cfg, const char *name, char *buf, size_t n) {
    gr_cfg_layers_t l;
    const char *v = gr_cfg_effective(GR_CFG_SCOPE_BROKER, name, layers_of(cfg, &l), buf, n, NULL);
    return v ? v : "";
}

/* First comma-separated item of s, trimmed, malloc'd. */
static char *first_item(const char *s) {
    while (*s == ',' || isspace((unsigned char)*s)) s++;
    size_t len = strcspn(s, ",");
    while (len && isspace((unsigned char)s[len - 1])) len--;
    return gr_xstrndup(s, len);
}

static gr_err_t apply_overrides(gr_server_config_t *cfg, const char *const *ov, int n, char *errstr, size_t sz) {
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(ov[i], '=');
        if (!eq || eq == ov[i]) {
            snprintf(errstr, sz, "Invalid --override '%s': expected key=value", ov[i]);
            return GR_ERR_INVALID_CONFIG;
        }
        char *key = gr_xstrndup(ov[i], (size_t)(eq - ov[i]));
        size_t kl = strlen(key);
        while (kl && isspace((unsigned char)key[kl - 1])) key[--kl] = '\0';
        gr_props_set(&cfg->raw, key, eq + 1, 0);
        free(key);
    }
    return GR_ERR_NONE;
}

/* Validate every known key; warn once per unknown key. */
static gr_err_t check_keys(gr_server_config_t *cfg, const char *path, char *errstr, size_t sz) {
    char msg[512];
    for (size_t i = 0; i < cfg->raw.n; i++) {
        const gr_prop_t *e = &cfg->raw.v[i];
        char where[300] = "--override";
        if (e->line) snprintf(where, sizeof(where), "%s line %d", path ? path : "config", e->line);
        if (!gr_cfgdef_find(GR_CFG_SCOPE_BROKER, e->key)) {
            if (gr__config_key_consumed(e->key)) continue; /* ssl.*: checked with the listeners */
            GR_WARN("config", "unknown configuration '%s' (%s) ignored", e->key, where);
            continue;
        }
        if (gr_cfg_validate(GR_CFG_SCOPE_BROKER, e->key, e->value, msg, sizeof(msg))) {
            snprintf(errstr, sz, "%s (%s)", msg, where);
            return GR_ERR_INVALID_CONFIG;
        }
    }
    return GR_ERR_NONE;
}

static gr_err_t resolve_node_id(gr_server_config_t *cfg, char *errstr, size_t sz) {
    const char *n = gr_props_get(&cfg->raw, "node.id"), *b = gr_props_get(&cfg->raw, "broker.id");
    int64_t node = -1, broker = -1;
    if (n) gr_cfg_parse_i64(GR_CFG_INT, n, &node);
    if (b) gr_cfg_parse_i64(GR_CFG_INT, b, &broker);
    if (n && b && node != broker) {
        snprintf(errstr, sz, "If both broker.id and node.id are set, they must be equal: broker.id=%lld, node.id=%lld",
                 (long long)broker, (long long)node);
        return GR_ERR_INVALID_CONFIG;
    }
    if (!n && b) node = broker;
    if (!n && !b) {
        node = 1;
        GR_INFO("config", "node.id not set, using node.id=1");
    }
    if (node < 0) {
        snprintf(errstr, sz, "Invalid value %lld for configuration node.id: Value must be at least 0", (long long)node);
        return GR_ERR_INVALID_CONFIG;
    }
    cfg->node_id = (int32_t)node;
    return GR_ERR_NONE;
}

/* Every client listener (config_listeners.c); the first one also fills the single-listener fields. */
static gr_err_t resolve_listeners(gr_server_config_t *cfg, char *errstr, size_t sz) {
    char b1[32], b2[32], b3[128];
    const char *listeners = get_str(cfg, "listeners", b1, sizeof(b1));
    const char *controllers = get_str(cfg, "controller.listener.names", b2, sizeof(b2));
    const char *map = get_str(cfg, "listener.security.protocol.map", b3, sizeof(b3));
    gr_err_t err = gr__config_listeners(cfg, listeners, map, controllers, errstr, sz);
    if (err) return err;
    const gr_listener_config_t *l = &cfg->listeners[0];
    cfg->listener_name = gr_xstrndup(l->name, strlen(l->name));
    cfg->listen_host = gr_xstrndup(l->host, strlen(l->host));
    cfg->listen_port = l->port;
    cfg->advertised_host = gr_xstrndup(l->adv_host, strlen(l->adv_host));
    cfg->advertised_port = l->adv_port;
    return GR_ERR_NONE;
}

static int64_t get_i64_cb(void *ctx, const char *name) { return get_i64(ctx, name); }

static void fill_share(gr_server_config_t *cfg) {
    gr_share_config_t *s = &cfg->share;
    gr_sgc_broker_fill(&s->sg, get_i64_cb, cfg); /* the group configs' defaults and bounds */
#define S(field, name) s->field = (int32_t)get_i64(cfg, "group.share." name)
    S(sg.max_size, "max.size");
    S(max_groups, "max.groups");
    S(max_share_sessions, "max.share.sessions");
    S(sg.initialize_retry_interval_ms, "initialize.retry.interval.ms");
#undef S
    s->state_topic_num_partitions = (int32_t)get_i64(cfg, "share.coordinator.state.topic.num.partitions");
    s->state_topic_segment_bytes = (int32_t)get_i64(cfg, "share.coordinator.state.topic.segment.bytes");
    s->state_topic_prune_interval_ms = get_i64(cfg, "share.coordinator.state.topic.prune.interval.ms");
    s->snapshot_update_records_per_snapshot =
        (int32_t)get_i64(cfg, "share.coordinator.snapshot.update.records.per.snapshot");
    s->cold_partition_snapshot_interval_ms =
        (int32_t)get_i64(cfg, "share.coordinator.cold.partition.snapshot.interval.ms");
    s->write_timeout_ms = (int32_t)get_i64(cfg, "share.coordinator.write.timeout.ms");
}

/* min <= default <= max for every group.share triple of a group config (share spec 5.1
 * start-up invariant; share/group_config.c's table), then the session cap. */
static gr_err_t check_share(const gr_share_config_t *s, char *errstr, size_t sz) {
    gr_err_t err = gr_sgc_broker_check(&s->sg, errstr, sz);
    if (err) return err;
    if (s->max_share_sessions < s->sg.max_size) {
        snprintf(errstr, sz,
                 "Invalid value %d for configuration group.share.max.share.sessions: must be greater "
                 "than or equal to group.share.max.size (%d)",
                 s->max_share_sessions, s->sg.max_size);
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

static void fill_limits(gr_server_config_t *cfg) {
    char buf[64];
    cfg->queued_max_request_bytes = get_i64(cfg, "queued.max.request.bytes");
    cfg->socket_request_read_timeout_ms = get_i64(cfg, "socket.request.read.timeout.ms");
    cfg->max_connections = (int32_t)get_i64(cfg, "max.connections");
    cfg->max_connections_per_ip = (int32_t)get_i64(cfg, "max.connections.per.ip");
    const char *ov = gr_props_get(&cfg->raw, "max.connections.per.ip.overrides");
    if (!ov) ov = get_str(cfg, "max.connections.per.ip.overrides", buf, sizeof(buf));
    cfg->max_connections_per_ip_overrides = gr_xstrndup(ov, strlen(ov));
}

/* Kafka's rule: a per-IP limit of 0 only makes sense with overrides that let someone in. */
static gr_err_t check_limits(const gr_server_config_t *cfg, char *errstr, size_t sz) {
    if (cfg->max_connections_per_ip == 0 && !cfg->max_connections_per_ip_overrides[0]) {
        snprintf(errstr, sz,
                 "Invalid value 0 for configuration max.connections.per.ip: max.connections.per.ip can "
                 "be set to zero only if max.connections.per.ip.overrides property is set.");
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

/* One node keeps everything in one directory: a second log.dirs entry would be silently
 * unused (and data an operator placed there invisible), so it is refused. */
static gr_err_t check_one_dir(const gr_server_config_t *cfg, char *errstr, size_t sz) {
    const char *dirs = gr_props_get(&cfg->raw, "log.dirs");
    if (!dirs) return GR_ERR_NONE;
    int n = 0;
    for (const char *p = dirs; *p;) {
        size_t len = strcspn(p, ",");
        for (size_t i = 0; i < len; i++)
            if (!isspace((unsigned char)p[i])) {
                n++;
                break;
            }
        p += len + (p[len] == ',');
    }
    if (n <= 1) return GR_ERR_NONE;
    snprintf(errstr, sz,
             "Invalid value %s for configuration log.dirs: gregord keeps all its data in one directory; "
             "give exactly one",
             dirs);
    return GR_ERR_INVALID_CONFIG;
}

/* admin.listener: HOST:PORT, [IPv6]:PORT or :PORT (all interfaces); empty = off. */
static gr_err_t parse_admin_listener(gr_server_config_t *cfg, char *errstr, size_t sz) {
    char buf[64];
    const char *v = get_str(cfg, "admin.listener", buf, sizeof(buf));
    while (isspace((unsigned char)*v)) v++;
    size_t len = strlen(v);
    while (len && isspace((unsigned char)v[len - 1])) len--;
    if (!len) return GR_ERR_NONE;
    const char *colon = NULL, *host = v;
    size_t hl = 0;
    if (v[0] == '[') {
        const char *rb = memchr(v, ']', len);
        if (rb && rb + 1 < v + len && rb[1] == ':') colon = rb + 1, host = v + 1, hl = (size_t)(rb - v - 1);
    } else {
        colon = memchr(v, ':', len);
        if (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - v))) colon = NULL; /* bare IPv6 */
        if (colon) hl = (size_t)(colon - v);
    }
    long port = -1;
    if (colon) {
        size_t pl = len - (size_t)(colon + 1 - v);
        bool digits = pl >= 1 && pl <= 5;
        for (size_t i = 0; digits && i < pl; i++) digits = isdigit((unsigned char)colon[1 + i]);
        if (digits) port = strtol(colon + 1, NULL, 10);
    }
    bool host_ok = true;
    for (size_t i = 0; i < hl; i++) host_ok = host_ok && !isspace((unsigned char)host[i]) && host[i] != '/';
    if (!colon || port < 0 || port > 65535 || !host_ok) {
        snprintf(errstr, sz,
                 "Invalid value %.*s for configuration admin.listener: expected HOST:PORT with a port in [0, 65535] "
                 "(e.g. 127.0.0.1:9644; [::1]:9644 for IPv6), or empty to turn the admin endpoint off",
                 (int)len, v);
        return GR_ERR_INVALID_CONFIG;
    }
    cfg->admin_listener = gr_xstrndup(v, len);
    cfg->admin_host = gr_xstrndup(host, hl);
    cfg->admin_port = (uint16_t)port;
    return GR_ERR_NONE;
}

static void fill_typed(gr_server_config_t *cfg) {
    char buf[64];
    const char *dirs = gr_props_get(&cfg->raw, "log.dirs");
    cfg->log_dir = first_item(dirs ? dirs : get_str(cfg, "log.dir", buf, sizeof(buf)));
    cfg->log_dir_is_default = !dirs && !gr_props_get(&cfg->raw, "log.dir");
    gr_log_level_t lvl = GR_LOG_INFO;
    gr_log_level_parse(get_str(cfg, "log.level", buf, sizeof(buf)), &lvl); /* validated by check_keys */
    cfg->log_level = (int)lvl;
    cfg->log_client_errors_per_window = (int)get_i64(cfg, "log.client.errors.max.per.10s");
    cfg->num_partitions = (int32_t)get_i64(cfg, "num.partitions");
    cfg->default_replication_factor = (int32_t)get_i64(cfg, "default.replication.factor");
    cfg->auto_create_topics_enable = get_bool(cfg, "auto.create.topics.enable");
    cfg->delete_topic_enable = get_bool(cfg, "delete.topic.enable");
    cfg->socket_request_max_bytes = (int32_t)get_i64(cfg, "socket.request.max.bytes");
    cfg->message_max_bytes = (int32_t)get_i64(cfg, "message.max.bytes");
    cfg->fetch_max_bytes = (int32_t)get_i64(cfg, "fetch.max.bytes");
    cfg->connections_max_idle_ms = get_i64(cfg, "connections.max.idle.ms");
    fill_limits(cfg);
    cfg->offsets_topic_num_partitions = (int32_t)get_i64(cfg, "offsets.topic.num.partitions");
    cfg->group_initial_rebalance_delay_ms = (int32_t)get_i64(cfg, "group.initial.rebalance.delay.ms");
    cfg->socket_send_buffer_bytes = (int32_t)get_i64(cfg, "socket.send.buffer.bytes");
    cfg->socket_receive_buffer_bytes = (int32_t)get_i64(cfg, "socket.receive.buffer.bytes");
    cfg->log_retention_ms = get_i64(cfg, "log.retention.ms");
    cfg->log_retention_bytes = get_i64(cfg, "log.retention.bytes");
    cfg->log_retention_check_interval_ms = get_i64(cfg, "log.retention.check.interval.ms");
    cfg->log_segment_bytes = (int32_t)get_i64(cfg, "log.segment.bytes");
    cfg->log_roll_ms = get_i64(cfg, "log.roll.ms");
    cfg->log_flush_interval_messages = get_i64(cfg, "log.flush.interval.messages");
    cfg->log_flush_interval_ms = get_i64(cfg, "log.flush.interval.ms");
    cfg->log_flush_scheduler_interval_ms = get_i64(cfg, "log.flush.scheduler.interval.ms");
    cfg->log_index_interval_bytes = (int32_t)get_i64(cfg, "log.index.interval.bytes");
    cfg->log_index_size_max_bytes = (int32_t)get_i64(cfg, "log.index.size.max.bytes");
    cfg->log_segment_delete_delay_ms = get_i64(cfg, "log.segment.delete.delay.ms");
    cfg->log_message_timestamp_log_append_time =
        strcmp(get_str(cfg, "log.message.timestamp.type", buf, sizeof(buf)), "LogAppendTime") == 0;
    const char *ct = get_str(cfg, "compression.type", buf, sizeof(buf));
    cfg->compression_type = gr_xstrndup(ct, strlen(ct));
    cfg->metrics_partition_series_max = (int32_t)get_i64(cfg, "metrics.partition.series.max");
    fill_share(cfg);
}

/* Only Kafka's KRaft StandardAuthorizer is implemented; another class would silently
 * mean other rules, so it is refused. */
static gr_err_t parse_authorizer(gr_server_config_t *cfg, char *errstr, size_t sz) {
    const char *cls = gr_props_get(&cfg->raw, "authorizer.class.name");
    const char *su = gr_props_get(&cfg->raw, "super.users");
    while (cls && isspace((unsigned char)*cls)) cls++;
    cfg->authorizer_enabled = cls && *cls;
    if (cfg->authorizer_enabled && strcmp(cls, "org.apache.kafka.metadata.authorizer.StandardAuthorizer")) {
        snprintf(errstr, sz,
                 "Invalid value %s for configuration authorizer.class.name: gregord implements "
                 "org.apache.kafka.metadata.authorizer.StandardAuthorizer only",
                 cls);
        return GR_ERR_INVALID_CONFIG;
    }
    cfg->super_users = gr_xstrndup(su ? su : "", su ? strlen(su) : 0);
    cfg->allow_everyone_if_no_acl_found = get_bool(cfg, "allow.everyone.if.no.acl.found");
    return GR_ERR_NONE;
}

/* Everything after the file layer is in cfg->raw: overrides, validation, typed fields. */
static gr_err_t finish_load(gr_server_config_t *cfg, const char *origin, const char *const *overrides, int n_overrides,
                            char *errstr, size_t errstr_size) {
    gr_err_t err;
    if ((err = apply_overrides(cfg, overrides, n_overrides, errstr, errstr_size))) return err;
    if ((err = check_keys(cfg, origin, errstr, errstr_size))) return err;
    if ((err = resolve_node_id(cfg, errstr, errstr_size))) return err;
    if ((err = resolve_listeners(cfg, errstr, errstr_size))) return err;
    fill_typed(cfg);
    if (!cfg->log_dir[0]) {
        snprintf(errstr, errstr_size, "Invalid value for configuration log.dirs: no log directory given");
        return GR_ERR_INVALID_CONFIG;
    }
    if ((err = check_one_dir(cfg, errstr, errstr_size))) return err;
    if ((err = check_share(&cfg->share, errstr, errstr_size))) return err;
    if ((err = parse_admin_listener(cfg, errstr, errstr_size))) return err;
    if ((err = parse_authorizer(cfg, errstr, errstr_size))) return err;
    return check_limits(cfg, errstr, errstr_size);
}

gr_err_t gr_server_config_load(gr_server_config_t *cfg, const char *path, const char *const *overrides, int n_overrides,
                               char *errstr, size_t errstr_size) {
    memset(cfg, 0, sizeof(*cfg));
    gr_props_init(&cfg->raw);
    gr_err_t err = GR_ERR_NONE;
    if (path && (err = gr_props_load_file(&cfg->raw, path, errstr, errstr_size))) goto fail;
    if ((err = finish_load(cfg, path, overrides, n_overrides, errstr, errstr_size))) goto fail;
    return GR_ERR_NONE;
fail:
    gr_server_config_free(cfg);
    return err;
}

gr_err_t gr_server_config_parse(gr_server_config_t *cfg, const char *text, size_t len, const char *origin,
                                const char *const *overrides, int n_overrides, char *errstr, size_t errstr_size) {
    memset(cfg, 0, sizeof(*cfg));
    gr_props_init(&cfg->raw);
    gr_err_t err = GR_ERR_NONE;
    if (text && (err = gr_props_parse(&cfg->raw, text, len, errstr, errstr_size))) goto fail;
    if ((err = finish_load(cfg, origin, overrides, n_overrides, errstr, errstr_size))) goto fail;
    return GR_ERR_NONE;
fail:
    gr_server_config_free(cfg);
    return err;
}

void gr_server_config_free(gr_server_config_t *cfg) {
    gr__config_listeners_free(cfg);
    gr_props_free(&cfg->raw);
    free(cfg->listener_name);
    free(cfg->listen_host);
    free(cfg->advertised_host);
    free(cfg->log_dir);
    free(cfg->compression_type);
    free(cfg->max_connections_per_ip_overrides);
    free(cfg->admin_listener);
    free(cfg->super_users);
    free(cfg->admin_host);
    memset(cfg, 0, sizeof(*cfg));
}
