/* Config definitions: one static table of the broker and topic configs gregor
 * knows, with Kafka's names, types, defaults, validators, importance and a short
 * doc; validation of a (name, value) pair with Kafka's error wording; and the
 * resolution of an effective value and its DescribeConfigs synonyms chain from
 * the config layers (topic override, dynamic broker, dynamic cluster default,
 * static server.properties, built-in default).
 *
 * Pure and stateless (the table is static const): callable from any thread. */
#ifndef GR_META_CONFIGDEFS_H
#define GR_META_CONFIGDEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/props.h"

/** Config data types; the numbers are DescribeConfigs v3+ ConfigType. */
typedef enum gr_cfg_type {
    GR_CFG_BOOLEAN = 1,
    GR_CFG_STRING = 2,
    GR_CFG_INT = 3,
    GR_CFG_SHORT = 4,
    GR_CFG_LONG = 5,
    GR_CFG_DOUBLE = 6,
    GR_CFG_LIST = 7,
    GR_CFG_CLASS = 8,
    GR_CFG_PASSWORD = 9
} gr_cfg_type_t;

/** Where a value comes from; the numbers are DescribeConfigs v1+ ConfigSource. */
typedef enum gr_cfg_source {
    GR_CFG_SRC_UNKNOWN = 0,
    GR_CFG_SRC_TOPIC = 1,                  /* DYNAMIC_TOPIC_CONFIG */
    GR_CFG_SRC_DYNAMIC_BROKER = 2,         /* AlterConfigs on BROKER "<node id>" */
    GR_CFG_SRC_DYNAMIC_DEFAULT_BROKER = 3, /* AlterConfigs on BROKER "" */
    GR_CFG_SRC_STATIC_BROKER = 4,          /* server.properties / --override */
    GR_CFG_SRC_DEFAULT = 5,
    GR_CFG_SRC_DYNAMIC_BROKER_LOGGER = 6,
    GR_CFG_SRC_CLIENT_METRICS = 7,
    GR_CFG_SRC_GROUP = 8
} gr_cfg_source_t;

/** Which table a definition belongs to; the numbers are Kafka's ConfigResource types. */
typedef enum gr_cfg_scope { GR_CFG_SCOPE_TOPIC = 2, GR_CFG_SCOPE_BROKER = 4 } gr_cfg_scope_t;

typedef enum gr_cfg_importance { GR_CFG_HIGH, GR_CFG_MEDIUM, GR_CFG_LOW } gr_cfg_importance_t;

#define GR_CFG_F_MIN       0x01u /* min is a lower bound (inclusive) */
#define GR_CFG_F_MAX       0x02u /* max is an upper bound (inclusive) */
#define GR_CFG_F_DYNAMIC   0x04u /* broker config that AlterConfigs may change at runtime */
#define GR_CFG_F_UNUSED    0x08u /* accepted and validated for Kafka compatibility, no effect */
#define GR_CFG_F_SENSITIVE 0x10u
#define GR_CFG_F_INTERNAL  0x20u /* a Kafka internal config: accepted and used, never described */

/** A fallback name for a value, with the factor converting its unit (hours -> ms: 3600000). */
typedef struct gr_cfg_syn {
    const char *name;
    int64_t mult;
} gr_cfg_syn_t;

/** Extra validation after type and range checks; writes the reason on failure. */
typedef bool (*gr_cfg_check_fn)(const char *value, char *reason, size_t reason_size);

typedef struct gr_cfgdef {
    const char *name;
    gr_cfg_scope_t scope;
    gr_cfg_type_t type;
    const char *dflt;         /* textual default; NULL is Kafka's null */
    int64_t min, max;         /* integer bounds, see GR_CFG_F_MIN/MAX (DOUBLE uses them too, as whole numbers) */
    const char *const *valid; /* STRING/LIST: allowed values (NULL-terminated), NULL = any */
    gr_cfg_check_fn check;
    /* Fallbacks, in order, when this name has no value. Topic configs: the broker
     * configs that supply the default (Kafka's ServerTopicConfigSynonyms). Broker
     * configs: secondary names (log.retention.ms -> .minutes -> .hours). */
    gr_cfg_syn_t syn[3];
    gr_cfg_importance_t importance;
    unsigned flags;
    const char *doc;
} gr_cfgdef_t;

/** Number of definitions in the table. */
size_t gr_cfgdef_count(void);
/** Definition i (0 <= i < count), in table order (grouped by scope, then as documented). */
const gr_cfgdef_t *gr_cfgdef_at(size_t i);
/** Definition of name in scope, or NULL if unknown. */
const gr_cfgdef_t *gr_cfgdef_find(gr_cfg_scope_t scope, const char *name);
/** "BOOLEAN", "STRING", "INT", ... */
const char *gr_cfg_type_name(gr_cfg_type_t type);

/** Check value for name in scope. Unknown names give GR_ERR_INVALID_CONFIG with
 *  "Unknown topic config name: X" (or "Unknown broker config name: X"); bad values give
 *  GR_ERR_INVALID_CONFIG with Kafka's "Invalid value V for configuration N: reason".
 *  cleanup.policy / log.cleanup.policy containing "compact" is refused (not supported).
 *  A NULL value is accepted only when the definition's default is null. */
gr_err_t gr_cfg_validate(gr_cfg_scope_t scope, const char *name, const char *value, char *errstr, size_t errstr_size);
/** gr_cfg_validate for every entry of a map. The first failure is returned. */
gr_err_t gr_cfg_validate_all(gr_cfg_scope_t scope, const gr_props_t *configs, char *errstr, size_t errstr_size);

/** Kafka's dynamic SSL keys (SslConfigs.RECONFIGURABLE_CONFIGS): a keystore or truststore
 *  setting a broker can change at run time, per listener only. Is base one of them? */
bool gr_cfg_ssl_reconfigurable(const char *base);
/** Is key "listener.name.<listener>.<base>" with base reconfigurable? Then *base points into
 *  key and the listener name (as written) is copied to lname. */
bool gr_cfg_listener_ssl_key(const char *key, const char **base, char *lname, size_t lname_size);
/** Kafka's PASSWORD-typed ones among them (described as sensitive, value null). */
bool gr_cfg_ssl_sensitive(const char *base);

/** Parse helpers with Kafka's syntax (values trimmed; booleans case-insensitive).
 *  They return false on a syntax error or (for INT/SHORT) a value out of the type's range. */
bool gr_cfg_parse_i64(gr_cfg_type_t type, const char *value, int64_t *out);
bool gr_cfg_parse_bool(const char *value, bool *out);
bool gr_cfg_parse_double(const char *value, double *out);

/** The layers a value is looked up in, highest priority first. Any may be NULL. */
typedef struct gr_cfg_layers {
    const gr_props_t *topic;           /* per-topic overrides (topic scope only) */
    const gr_props_t *dynamic_broker;  /* AlterConfigs on this broker */
    const gr_props_t *dynamic_default; /* AlterConfigs on the cluster default */
    const gr_props_t *static_broker;   /* server.properties + --override */
} gr_cfg_layers_t;

typedef struct gr_cfg_synonym {
    const char *name;
    const char *value; /* NULL for null or sensitive */
    gr_cfg_source_t source;
} gr_cfg_synonym_t;

#define GR_CFG_MAX_SYNONYMS 16

/** One DescribeConfigs entry. Strings live in the layers, the table or the arena given to
 *  gr_cfg_describe: valid while those are. */
typedef struct gr_cfg_entry {
    const gr_cfgdef_t *def;
    const char *name;
    const char *value; /* NULL for null or sensitive */
    gr_cfg_source_t source;
    bool read_only;
    bool is_sensitive;
    gr_cfg_type_t type;
    const char *doc;
    int n_synonyms;
    gr_cfg_synonym_t synonyms[GR_CFG_MAX_SYNONYMS];
} gr_cfg_entry_t;

/** Effective value of name in scope: the topic override, else (for topic configs) the
 *  broker synonyms in order, each from the dynamic/static layers or its default, converted
 *  to this config's unit, else the default. Broker configs use their own layers, then their
 *  secondary names (log.retention.hours, converted), then the default. Returns a pointer into
 *  the layers, the table or buf (converted values), NULL when the value is null or name is
 *  unknown. *source (may be NULL) says which layer supplied it. */
const char *gr_cfg_effective(gr_cfg_scope_t scope, const char *name, const gr_cfg_layers_t *layers, char *buf,
                             size_t buf_size, gr_cfg_source_t *source);
/** Typed forms of gr_cfg_effective. They return the fallback if the value is null or unparsable. */
int64_t gr_cfg_effective_i64(gr_cfg_scope_t scope, const char *name, const gr_cfg_layers_t *layers, int64_t fallback);
bool gr_cfg_effective_bool(gr_cfg_scope_t scope, const char *name, const gr_cfg_layers_t *layers, bool fallback);

/** Fill a DescribeConfigs entry for def, following Kafka's ConfigHelper: a topic entry shows
 *  its effective value, a broker entry the raw value of that name (null if unset and no default);
 *  synonyms are listed layer by layer (dynamic broker, dynamic default, static, default), and the
 *  source is that of the first synonym. Converted values are allocated in arena. */
void gr_cfg_describe(const gr_cfgdef_t *def, const gr_cfg_layers_t *layers, gr_arena_t *arena, gr_cfg_entry_t *out);

#endif
