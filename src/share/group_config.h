/* Group configs (resource type GROUP): share.* (KIP-932 §5.2; docs/share-groups.md) and
 * consumer.* (KIP-848; docs/consumer-groups.md).
 *
 * ONE table of definitions (group_config.c) drives everything about a group config:
 * its name, type, default (a broker key group.share.X with its group.share.min/max.X
 * bounds, or a static value), static range, doc, validation, the typed field it
 * resolves into (gr_sgc_values_t), its DescribeConfigs entry and, for broker-backed
 * ones, the broker config keys read at start-up and their min <= default <= max check.
 * A new group config of an existing kind is one table entry plus its typed field.
 *
 * Values are resolved once into gr_sgc_values_t when a group's overrides change
 * (gr_sgc_store_t, share/group_config_store.h), not on every use.
 *
 * Pure; any thread. */
#ifndef GR_SHARE_GROUP_CONFIG_H
#define GR_SHARE_GROUP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/props.h"
#include "meta/configdefs.h"
#include "share/sg_broker_cfg.h"

#define GR_SGC_TOPIC_MAX 256 /* bytes of a GR_SGC_K_TOPIC field, NUL included */

typedef enum gr_sgc_reset {
    GR_SGC_RESET_LATEST = 0,
    GR_SGC_RESET_EARLIEST = 1,
    GR_SGC_RESET_BY_DURATION = 2
} gr_sgc_reset_t;

/** Effective values of one group: stored overrides over broker defaults, clamped
 *  into the broker's current min/max bounds (Kafka's GroupConfig.evaluate). */
typedef struct gr_sgc_values {
    /* consumer.* (KIP-848 consumer groups; the broker's cgroup_coord.c passes them in) */
    int32_t consumer_session_timeout_ms;
    int32_t consumer_heartbeat_interval_ms;
    int32_t consumer_assignment_interval_ms;
    int32_t session_timeout_ms;
    int32_t heartbeat_interval_ms;
    int32_t record_lock_duration_ms;
    int32_t delivery_count_limit;
    int32_t partition_max_record_locks;
    int32_t assignment_interval_ms; /* validated and described; gregord assigns at once */
    gr_sgc_reset_t auto_offset_reset;
    int64_t reset_duration_ms; /* BY_DURATION only */
    bool read_committed;       /* always false while transactions are not implemented */
    bool renew_acknowledge_enable;
    int32_t redelivery_backoff_ms;     /* gregor.share.redelivery.backoff.ms: 0 = off */
    int32_t redelivery_backoff_max_ms; /* gregor.share.redelivery.backoff.max.ms */
    /* errors.deadletterqueue.topic.name ("" = no DLQ; a longer name than fits is cut,
     * and no topic can have it: names are at most 249 bytes) and
     * .copy.record.enable (KIP-1191). */
    char dlq_topic[GR_SGC_TOPIC_MAX];
    bool dlq_copy_record;
} gr_sgc_values_t;

/** How a value is checked and resolved. */
typedef enum gr_sgc_kind {
    GR_SGC_K_INT,       /* int32: static minimum, then the [min, max] bounds; clamped when resolved */
    GR_SGC_K_BOOL,      /* true | false, any case */
    GR_SGC_K_RESET,     /* latest | earliest | by_duration:<ISO-8601> (+ reset_duration_ms) */
    GR_SGC_K_ISOLATION, /* read_committed | read_uncommitted */
    GR_SGC_K_TOPIC,     /* a topic name, "" = none; "__" refused; char[GR_SGC_TOPIC_MAX] */
} gr_sgc_kind_t;

/** One group config definition (a row of the table). */
typedef struct gr_sgc_def {
    const char *name;
    gr_cfg_type_t type;
    int64_t static_min; /* Kafka's ConfigDef atLeast(); INT only */
    const char *doc;
    gr_sgc_kind_t kind;
    size_t field;     /* offsetof(gr_sgc_values_t, <typed field>) */
    const char *dflt; /* the default when it is static ("" for none) */
    /* INT defaults and bounds: from the broker (broker_key != NULL: group.<G>.<key>,
     * group.<G>.min.<key>, group.<G>.max.<key> with G = broker_group ("share" or
     * "consumer") at these offsets of gr_sg_broker_cfg_t) or static (dflt, s_min, s_max). */
    const char *broker_group;
    const char *broker_key;
    size_t b_dflt, b_min, b_max;
    int32_t s_min, s_max;
    int8_t bounds_rank; /* order of the bounds check in validation (Kafka's); 0 = none */
    int8_t start_rank;  /* order of the broker's min <= default <= max start-up check; 0 = none */
    bool dflt_synonym;  /* a set value lists its default as a DEFAULT_CONFIG synonym (no broker key) */
} gr_sgc_def_t;

/** Number of group config definitions and definition i (in Kafka's define order). */
size_t gr_sgc_count(void);
const gr_sgc_def_t *gr_sgc_def_at(size_t i);
/** Definition by name, NULL if unknown. */
const gr_sgc_def_t *gr_sgc_find(const char *name);
/** Default, min and max of an INT definition under the broker config b. */
void gr_sgc_int_bounds(const gr_sgc_def_t *d, const gr_sg_broker_cfg_t *b, int32_t *dflt, int32_t *min, int32_t *max);

/** Validate a group's complete proposed config set (after the caller applied the
 *  Alter/IncrementalAlter operations to the stored one), merged over broker defaults,
 *  the way Kafka's GroupConfig.validate does: names, then parse in definition order,
 *  then broker bounds, then session > heartbeat. Errors: GR_ERR_INVALID_CONFIG with
 *  Kafka's message ("Unknown group config name: X", "Invalid value V for configuration
 *  N: Value must be at least 1000", "share.record.lock.duration.ms must be in the range
 *  15000 to 60000 inclusive.", ...). */
gr_err_t gr_sgc_validate(const gr_props_t *proposed, const gr_sg_broker_cfg_t *broker, char *errstr,
                         size_t errstr_size);
/** Effective values of a group (stored may be NULL: no overrides). Stored values are
 *  clamped into the current broker bounds; an unparsable stored value (never written
 *  by gr_sgc_validate) falls back to the default. */
void gr_sgc_resolve(const gr_props_t *stored, const gr_sg_broker_cfg_t *broker, gr_sgc_values_t *out);
/** Parse share.auto.offset.reset: latest | earliest | by_duration:<ISO-8601 PnDTnHnMn.nS>,
 *  non-negative, case-sensitive prefix as in Kafka. duration_ms may be NULL. */
bool gr_sgc_parse_reset(const char *value, gr_sgc_reset_t *type, int64_t *duration_ms);

/** One DescribeConfigs entry for resource type GROUP (32). */
typedef struct gr_sgc_entry {
    const gr_sgc_def_t *def;
    const char *name;
    const char *value;      /* points into stored, the table or _buf */
    gr_cfg_source_t source; /* GR_CFG_SRC_GROUP (8) if stored, else GR_CFG_SRC_DEFAULT (5) */
    gr_cfg_type_t type;
    const char *doc;
    bool read_only, is_sensitive; /* always false */
    /* Set value with no broker synonym (the DLQ keys): Kafka adds the default as a
     * DEFAULT_CONFIG synonym after the GROUP_CONFIG one; NULL otherwise. */
    const char *default_synonym;
    char _buf[32];
} gr_sgc_entry_t;
/** Fill out[0..count-1] (out must have gr_sgc_count() slots) with every group config:
 *  the stored value (source GROUP_CONFIG) or the default (DEFAULT_CONFIG).
 *  Entries point into stored; valid while it is unchanged. */
void gr_sgc_describe(const gr_props_t *stored, const gr_sg_broker_cfg_t *broker, gr_sgc_entry_t *out);

/** Broker side, from the same table: fill every broker-backed default and bound of b
 *  from get(ctx, "group.<G>.[min.|max.]<key>"), and check min <= default <= max for
 *  the share ones (start-up; Kafka's texts naming group.share.<key>; the group.consumer.*
 *  ones are checked with the consumer coordinator's config, the broker's cgroup_coord.c). */
void gr_sgc_broker_fill(gr_sg_broker_cfg_t *b, int64_t (*get)(void *ctx, const char *key), void *ctx);
gr_err_t gr_sgc_broker_check(const gr_sg_broker_cfg_t *b, char *errstr, size_t errstr_size);

#endif
