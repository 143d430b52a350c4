/* gregord configuration: server.properties plus --override key=value pairs, validated
 * against the config table (src/meta/configdefs.h) and turned into typed fields.
 *
 * Loaded once at start-up on the main thread; read-only afterwards (any thread may read). */
#ifndef GR_SERVER_CONFIG_H
#define GR_SERVER_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/props.h"
#include "net/tls.h"
#include "share/sg_broker_cfg.h"

typedef struct gr_share_config {
    gr_sg_broker_cfg_t sg;      /* what src/share reads */
    int32_t max_groups;         /* group.share.max.groups */
    int32_t max_share_sessions; /* group.share.max.share.sessions */
    int32_t state_topic_num_partitions;
    int32_t state_topic_segment_bytes;
    int64_t state_topic_prune_interval_ms;
    int32_t snapshot_update_records_per_snapshot;
    int32_t cold_partition_snapshot_interval_ms;
    int32_t write_timeout_ms;
} gr_share_config_t;

/* One client listener (listeners minus controller.listener.names), in listeners order. */
typedef struct gr_listener_config {
    char *name;        /* upper-cased, as Kafka normalises it: "PLAINTEXT", "CLIENT" */
    int sec_proto;     /* gr_sec_proto_t (net/conn.h) from listener.security.protocol.map */
    char *host;        /* "" = all interfaces; IPv6 without brackets */
    uint16_t port;     /* 0 = ephemeral */
    char *adv_host;    /* advertised.listeners (else host, else the host name); never empty */
    uint16_t adv_port; /* 0 = the bound port */
    gr_tls_opts_t tls; /* SSL, SASL_SSL: ssl.* with listener.name.<name>.ssl.* applied (strings owned) */
    char *ssl_rules;   /* ssl.principal.mapping.rules, effective */
} gr_listener_config_t;

typedef struct gr_server_config {
    /* Every key=value given (file first, then overrides, which win), unknown keys included.
     * This is the STATIC_BROKER_CONFIG layer for DescribeConfigs. */
    gr_props_t raw;

    gr_listener_config_t *listeners; /* client listeners, at least one */
    size_t n_listeners;
    char *inter_broker_listener; /* inter.broker.listener.name (validated; no other brokers) */
    /* The first client listener, as before several were served. */
    char *listener_name;   /* e.g. "PLAINTEXT" */
    char *listen_host;     /* "" = all interfaces; IPv6 without brackets */
    uint16_t listen_port;  /* 0 = ephemeral */
    char *advertised_host; /* never empty */
    uint16_t advertised_port;

    int32_t node_id;                  /* node.id, or broker.id, or 1 if neither is set */
    char *log_dir;                    /* first entry of log.dirs, else of log.dir */
    bool log_dir_is_default;          /* neither log.dirs nor log.dir given: Kafka's /tmp/kafka-logs */
    int log_level;                    /* log.level as a gr_log_level_t (base/log.h) */
    int log_client_errors_per_window; /* log.client.errors.max.per.10s (gr_log_set_limit_burst) */

    int32_t num_partitions;
    int32_t default_replication_factor;
    bool auto_create_topics_enable;
    bool delete_topic_enable;
    int32_t socket_request_max_bytes;
    int32_t message_max_bytes;
    int32_t fetch_max_bytes;
    int64_t connections_max_idle_ms;
    /* Resource limits (docs/configuration.md). */
    int64_t queued_max_request_bytes;       /* <= 0: no bound */
    int64_t socket_request_read_timeout_ms; /* 0: no timeout */
    int32_t max_connections, max_connections_per_ip;
    char *max_connections_per_ip_overrides;
    int32_t offsets_topic_num_partitions;
    int32_t group_initial_rebalance_delay_ms;
    int32_t socket_send_buffer_bytes, socket_receive_buffer_bytes;
    /* admin.listener=HOST:PORT (docs/operations.md "Admin endpoint"); admin_listener is NULL
     * when it is empty (off). admin_host: "" = all interfaces, IPv6 without brackets. */
    char *admin_listener, *admin_host;
    uint16_t admin_port;

    /* Broker-wide defaults of the topic configs (effective values, units converted). */
    int64_t log_retention_ms; /* -1 = forever */
    int64_t log_retention_bytes;
    int64_t log_retention_check_interval_ms;
    int32_t log_segment_bytes;
    int64_t log_roll_ms;
    int64_t log_flush_interval_messages;
    int64_t log_flush_interval_ms;
    int64_t log_flush_scheduler_interval_ms;
    int32_t log_index_interval_bytes;
    int32_t log_index_size_max_bytes;
    int64_t log_segment_delete_delay_ms;
    bool log_message_timestamp_log_append_time; /* log.message.timestamp.type=LogAppendTime */
    char *compression_type;
    int32_t metrics_partition_series_max; /* metrics.partition.series.max: series cap per kind (>= 0) */

    /* Authorization (docs/security.md "Authorization"): authorizer.class.name is Kafka's
     * StandardAuthorizer, super.users (';'-separated, never NULL), allow.everyone.if.no.acl.found. */
    bool authorizer_enabled;
    char *super_users;
    bool allow_everyone_if_no_acl_found;

    gr_share_config_t share;
} gr_server_config_t;

/** Load path (NULL: defaults only) and then the overrides ("key=value" strings, n of them;
 *  a later override of the same key wins). Unknown keys are logged as one warning each.
 *  Invalid values, malformed overrides, a broken listener or cross-field violations
 *  (group.share min <= default <= max, max.share.sessions >= max.size, node.id vs broker.id)
 *  return GR_ERR_INVALID_CONFIG (or GR_ERR__IO / GR_ERR__MALFORMED for the file) with a
 *  message naming the key, the value and the reason. On error cfg holds nothing to free.
 *  On success release with gr_server_config_free. */
gr_err_t gr_server_config_load(gr_server_config_t *cfg, const char *path, const char *const *overrides, int n_overrides,
                               char *errstr, size_t errstr_size);
/** gr_server_config_load with the file layer given as .properties text (len bytes; NULL:
 *  defaults only) instead of a path; origin names it in messages ("config line N" if
 *  NULL). For tests and fuzz_server_config: no file needed. */
gr_err_t gr_server_config_parse(gr_server_config_t *cfg, const char *text, size_t len, const char *origin,
                                const char *const *overrides, int n_overrides, char *errstr, size_t errstr_size);
/** Free everything cfg owns. */
void gr_server_config_free(gr_server_config_t *cfg);

#endif
