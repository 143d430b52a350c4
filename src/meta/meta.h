/* Cluster metadata store: cluster id, node id, topics (name, topic id, partition
 * count, config overrides, creation time) and dynamic broker configs.
 *
 * Single node, no network. Every change is written to <log dir>/gregor.metadata
 * (properties text with a CRC-32 trailer, replaced atomically: temp file, fsync,
 * rename, fsync of the directory) before the call returns; a failed write leaves
 * memory unchanged and returns GR_ERR_KAFKA_STORAGE_ERROR.
 *
 * @locality: the event-loop thread owns a gr_meta_t; nothing here is thread-safe.
 * Pointers to topics stay valid until that topic is deleted or the store is closed;
 * string pointers inside a topic stay valid until that topic is changed. */
#ifndef GR_META_META_H
#define GR_META_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/props.h"
#include "base/uuid.h"
#include "meta/configdefs.h"

#define GR_META_MAX_PARTITIONS 100000 /* per topic; guards allocations sized from requests */

typedef struct gr_meta gr_meta_t;

/** A topic. Read-only outside src/meta. */
typedef struct gr_meta_topic {
    char *name;
    gr_uuid_t id;
    int32_t partitions;
    int64_t created_ms;
    gr_props_t configs; /* validated per-topic overrides, in the order they were set */
} gr_meta_topic_t;

/** Open the store in log_dir (created if missing). Reads or creates meta.properties
 *  (cluster.id, node.id, version=1; refuses a node.id different from the stored one) and
 *  loads the metadata file (refuses a corrupted one with a clear message). static_config is
 *  copied: it is the STATIC_BROKER_CONFIG layer for effective values. On success *out is
 *  owned by the caller (gr_meta_close). Errors: GR_ERR__IO, GR_ERR__STATE (node id
 *  mismatch), GR_ERR__MALFORMED (corrupt files). */
/** Does log_dir/gregor.metadata hold a dynamic listener.name.<l>.ssl.* setting of this broker?
 *  (Read without opening: start-up checks server.properties' TLS settings before the data
 *  directory, and leaves listeners with stored overrides to the listener set-up.) */
bool gr_meta_has_dynamic_tls(const char *log_dir);
gr_err_t gr_meta_open(gr_meta_t **out, const char *log_dir, int32_t node_id, const gr_props_t *static_config,
                      char *errstr, size_t errstr_size);
/** True when this open created the directory's meta.properties: a fresh node, whose
 *  caller records the feature levels a new cluster starts with. */
bool gr_meta_is_new(const gr_meta_t *meta);
/** Free the store (nothing is written). NULL is ignored. */
void gr_meta_close(gr_meta_t *meta);

/** The cluster id (Kafka's 22-char base64 form). Valid until close. */
const char *gr_meta_cluster_id(const gr_meta_t *meta);
int32_t gr_meta_node_id(const gr_meta_t *meta);

/** Number of topics, and topic i in name order (0 <= i < count). */
size_t gr_meta_topic_count(const gr_meta_t *meta);
const gr_meta_topic_t *gr_meta_topic_at(const gr_meta_t *meta, size_t i);
/** Lookups; NULL when absent. */
const gr_meta_topic_t *gr_meta_topic_find(const gr_meta_t *meta, const char *name);
const gr_meta_topic_t *gr_meta_topic_find_id(const gr_meta_t *meta, const gr_uuid_t *id);

/** Kafka's topic name rules: 1..249 chars of [a-zA-Z0-9._-], not "." or "..".
 *  GR_ERR_INVALID_TOPIC_EXCEPTION with Kafka's message otherwise. */
gr_err_t gr_meta_topic_name_validate(const char *name, char *errstr, size_t errstr_size);

/** Create a topic. partitions -1 uses num.partitions. configs (may be NULL) are validated
 *  as topic configs. With validate_only nothing changes. Errors: INVALID_TOPIC_EXCEPTION
 *  (bad name or '.'/'_' collision), TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS, INVALID_CONFIG,
 *  KAFKA_STORAGE_ERROR. On success *out (may be NULL) is the new topic (NULL if validate_only). */
gr_err_t gr_meta_topic_create(gr_meta_t *meta, const char *name, int32_t partitions, const gr_props_t *configs,
                              int64_t now_ms, bool validate_only, const gr_meta_topic_t **out, char *errstr,
                              size_t errstr_size);
/** Delete a topic by name (UNKNOWN_TOPIC_OR_PARTITION) or id (UNKNOWN_TOPIC_ID). Its pointer dies. */
gr_err_t gr_meta_topic_delete(gr_meta_t *meta, const char *name, char *errstr, size_t errstr_size);
gr_err_t gr_meta_topic_delete_id(gr_meta_t *meta, const gr_uuid_t *id, char *errstr, size_t errstr_size);
/** Grow a topic to new_count partitions; INVALID_PARTITIONS unless it is an increase. */
gr_err_t gr_meta_topic_add_partitions(gr_meta_t *meta, const char *name, int32_t new_count, bool validate_only,
                                      char *errstr, size_t errstr_size);
/** Replace all overrides of a topic (AlterConfigs semantics); validated first. */
gr_err_t gr_meta_topic_set_configs(gr_meta_t *meta, const char *name, const gr_props_t *configs, bool validate_only,
                                   char *errstr, size_t errstr_size);
/** Set one override, or delete it when value is NULL (deleting an absent one is fine). */
gr_err_t gr_meta_topic_set_config(gr_meta_t *meta, const char *name, const char *key, const char *value,
                                  bool validate_only, char *errstr, size_t errstr_size);

/** The config layers for topic (NULL: broker only): topic overrides, dynamic per-broker,
 *  dynamic cluster default, static. Pointers valid until the next change. */
void gr_meta_config_layers(const gr_meta_t *meta, const gr_meta_topic_t *topic, gr_cfg_layers_t *out);
/** Effective topic config (override, else broker value, else default), see gr_cfg_effective. */
const char *gr_meta_topic_config(const gr_meta_t *meta, const gr_meta_topic_t *topic, const char *key, char *buf,
                                 size_t buf_size);
/** Typed forms; an unknown key or a null value gives 0 / false. */
int64_t gr_meta_topic_config_i64(const gr_meta_t *meta, const gr_meta_topic_t *topic, const char *key);
bool gr_meta_topic_config_bool(const gr_meta_t *meta, const gr_meta_topic_t *topic, const char *key);
/** Effective broker config (dynamic per-broker, dynamic default, static, default). */
int64_t gr_meta_broker_config_i64(const gr_meta_t *meta, const char *key);

/** Dynamic broker configs: cluster_default selects the cluster-wide level (resource name "")
 *  rather than this broker's. Only GR_CFG_F_DYNAMIC configs may be set: others give
 *  INVALID_CONFIG "Cannot update these configs dynamically: [k]". set_configs replaces the level. */
gr_err_t gr_meta_broker_set_configs(gr_meta_t *meta, bool cluster_default, const gr_props_t *configs,
                                    bool validate_only, char *errstr, size_t errstr_size);
gr_err_t gr_meta_broker_set_config(gr_meta_t *meta, bool cluster_default, const char *key, const char *value,
                                   bool validate_only, char *errstr, size_t errstr_size);
const gr_props_t *gr_meta_broker_configs(const gr_meta_t *meta, bool cluster_default);

/** Finalized feature levels (UpdateFeatures): the level stored for name, else dflt (a
 *  fresh node's level). gr_meta_feature_set persists the change (fsynced) before it
 *  returns; GR_ERR_KAFKA_STORAGE_ERROR leaves memory unchanged. The epoch starts at 1
 *  and grows with every change (ApiVersions FinalizedFeaturesEpoch). */
int16_t gr_meta_feature_level(const gr_meta_t *meta, const char *name, int16_t dflt);
gr_err_t gr_meta_feature_set(gr_meta_t *meta, const char *name, int16_t level, char *errstr, size_t errstr_size);
int64_t gr_meta_features_epoch(const gr_meta_t *meta);

#endif
