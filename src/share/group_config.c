/* Group configs (resource type GROUP): share.* (KIP-932, docs/share-groups.md) and
 * consumer.* (KIP-848, docs/consumer-groups.md): the one table of definitions and
 * everything it drives (see group_config.h).
 *
 * Names, types, static ranges and validation order follow Kafka's GroupConfig (4.2+,
 * KIP-932/KIP-1240): unknown names first, then each value parsed in definition order
 * (type, static range, validator), then the broker bounds group.consumer/share.min/max.*,
 * then session > heartbeat (consumer, then share). Error texts are Kafka's. Defaults are the broker's current
 * group.share.* values, and stored values are clamped into the current broker bounds
 * when resolved (GroupConfig.evaluate). Doc strings are our own short summaries. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/duration.h"
#include "share/group_int.h"

enum {
    C_CONS_SESSION, /* KIP-848 consumer groups */
    C_CONS_HEARTBEAT,
    C_CONS_ASSIGN,
    C_SESSION,
    C_HEARTBEAT,
    C_LOCK,
    C_DELIVERY,
    C_LOCKS,
    C_RESET,
    C_ISOLATION,
    C_RENEW,
    C_ASSIGN,
    C_DLQ_NAME, /* KIP-1191, Kafka 4.4.0 */
    C_DLQ_COPY,
    C_BACKOFF,     /* gregord only: delayed redelivery */
    C_BACKOFF_MAX, /* gregord only */
    C_N
};

/* gregord's own group configs live under "gregor.", a prefix Kafka never uses, so
 * a future Kafka name cannot collide. Their bounds are static: a delay is at most a
 * day (the SP keeps due times in 32-bit ms relative to its clock). */
#define BACKOFF_LIMIT_MS 86400000

#define FIELD(f) .field = offsetof(gr_sgc_values_t, f)
/* An INT whose default is group.<g>.<key> and bounds group.<g>.min/max.<key> (broker
 * fields bf, min_bf, max_bf), resolved into the gr_sgc_values_t field f. */
#define BROKER_AT(g, key, bf, f)                                                                            \
    .kind = GR_SGC_K_INT, .broker_group = g, .broker_key = key, .b_dflt = offsetof(gr_sg_broker_cfg_t, bf), \
    .b_min = offsetof(gr_sg_broker_cfg_t, min_##bf), .b_max = offsetof(gr_sg_broker_cfg_t, max_##bf), FIELD(f)
#define BROKER(key, f)   BROKER_AT("share", key, f, f)
#define CONSUMER(key, f) BROKER_AT("consumer", key, cons_##f, consumer_##f)

static const gr_sgc_def_t defs[C_N] = {
    /* Kafka 4.4.0 checks the bounds of consumer.heartbeat, .session, .assignment first
     * (differential: group_config_consumer); the broker's group.consumer.* start-up
     * checks are the consumer coordinator's (start_rank 0). */
    [C_CONS_SESSION] = {"consumer.session.timeout.ms", GR_CFG_INT, 1,
                        "Timeout after which a consumer group member that sends no heartbeat is removed.",
                        CONSUMER("session.timeout.ms", session_timeout_ms), .bounds_rank = 2},
    [C_CONS_HEARTBEAT] = {"consumer.heartbeat.interval.ms", GR_CFG_INT, 1,
                          "Interval at which consumer group members are asked to heartbeat.",
                          CONSUMER("heartbeat.interval.ms", heartbeat_interval_ms), .bounds_rank = 1},
    [C_CONS_ASSIGN] = {"consumer.assignment.interval.ms", GR_CFG_INT, 0,
                       "Minimum interval between consumer group assignment computations.",
                       CONSUMER("assignment.interval.ms", assignment_interval_ms), .bounds_rank = 3},
    [C_SESSION] = {"share.session.timeout.ms", GR_CFG_INT, 1,
                   "Timeout after which a share group member that sends no heartbeat is removed.",
                   BROKER("session.timeout.ms", session_timeout_ms), .bounds_rank = 5, .start_rank = 4},
    [C_HEARTBEAT] = {"share.heartbeat.interval.ms", GR_CFG_INT, 1,
                     "Interval at which share group members are asked to heartbeat.",
                     BROKER("heartbeat.interval.ms", heartbeat_interval_ms), .bounds_rank = 4, .start_rank = 5},
    [C_LOCK] = {"share.record.lock.duration.ms", GR_CFG_INT, 1000,
                "Duration of the acquisition lock on records delivered to a share group member.",
                BROKER("record.lock.duration.ms", record_lock_duration_ms), .bounds_rank = 6, .start_rank = 2},
    [C_DELIVERY] = {"share.delivery.count.limit", GR_CFG_INT, 2,
                    "Number of delivery attempts after which a record is archived.",
                    BROKER("delivery.count.limit", delivery_count_limit), .bounds_rank = 7, .start_rank = 1},
    [C_LOCKS] = {"share.partition.max.record.locks", GR_CFG_INT, 100,
                 "Maximum number of in-flight records per share-partition.",
                 BROKER("partition.max.record.locks", partition_max_record_locks), .bounds_rank = 8, .start_rank = 3},
    [C_RESET] = {"share.auto.offset.reset", GR_CFG_STRING, 0,
                 "Where a share-partition starts when it has no state: latest, earliest or "
                 "by_duration:<ISO-8601 duration>.",
                 .kind = GR_SGC_K_RESET, FIELD(auto_offset_reset), .dflt = "latest"},
    [C_ISOLATION] = {"share.isolation.level", GR_CFG_STRING, 0,
                     "Controls how to read records written transactionally: read_committed (only "
                     "committed records, up to the last stable offset) or read_uncommitted.",
                     .kind = GR_SGC_K_ISOLATION, FIELD(read_committed), .dflt = "read_uncommitted"},
    [C_RENEW] = {"share.renew.acknowledge.enable", GR_CFG_BOOLEAN, 0,
                 "Whether members may RENEW the acquisition lock of records (KIP-1222).", .kind = GR_SGC_K_BOOL,
                 FIELD(renew_acknowledge_enable), .dflt = "true"},
    /* Kafka 4.3.1+: batches assignment computations; gregord assigns at once on every
     * membership change, so the value is validated, stored and described only. */
    [C_ASSIGN] = {"share.assignment.interval.ms", GR_CFG_INT, 0,
                  "Interval between share group assignment computations (accepted; gregord assigns at once).",
                  BROKER("assignment.interval.ms", assignment_interval_ms), .bounds_rank = 9, .start_rank = 6},
    [C_DLQ_NAME] = {"errors.deadletterqueue.topic.name", GR_CFG_STRING, 0,
                    "Dead-letter queue topic of the group: REJECTed records and records archived at the "
                    "delivery count limit are written there (empty = none; needs share.version 2).",
                    .kind = GR_SGC_K_TOPIC, FIELD(dlq_topic), .dflt = "", .dflt_synonym = true},
    [C_DLQ_COPY] = {"errors.deadletterqueue.copy.record.enable", GR_CFG_BOOLEAN, 0,
                    "Whether dead-letter records carry the source record's key and value.", .kind = GR_SGC_K_BOOL,
                    FIELD(dlq_copy_record), .dflt = "false", .dflt_synonym = true},
    [C_BACKOFF] = {"gregor.share.redelivery.backoff.ms", GR_CFG_INT, 0,
                   "gregord only: delay before a RELEASEd or lock-expired record is redelivered, doubled "
                   "per earlier delivery (0 = off).",
                   .kind = GR_SGC_K_INT, FIELD(redelivery_backoff_ms), .dflt = "0", .s_min = 0,
                   .s_max = BACKOFF_LIMIT_MS, .bounds_rank = 10},
    [C_BACKOFF_MAX] = {"gregor.share.redelivery.backoff.max.ms", GR_CFG_INT, 1,
                       "gregord only: upper bound of the redelivery delay.", .kind = GR_SGC_K_INT,
                       FIELD(redelivery_backoff_max_ms), .dflt = "60000", .s_min = 1, .s_max = BACKOFF_LIMIT_MS,
                       .bounds_rank = 11},
};

size_t gr_sgc_count(void) { return C_N; }

const gr_sgc_def_t *gr_sgc_def_at(size_t i) { return i < C_N ? &defs[i] : NULL; }

static int def_index(const char *name) {
    for (int i = 0; i < C_N; i++)
        if (name && !strcmp(defs[i].name, name)) return i;
    return -1;
}

const gr_sgc_def_t *gr_sgc_find(const char *name) {
    int i = def_index(name);
    return i < 0 ? NULL : &defs[i];
}

static int32_t bcfg_at(const gr_sg_broker_cfg_t *b, size_t off) {
    int32_t v;
    memcpy(&v, (const char *)b + off, sizeof(v));
    return v;
}

void gr_sgc_int_bounds(const gr_sgc_def_t *d, const gr_sg_broker_cfg_t *b, int32_t *dflt, int32_t *min, int32_t *max) {
    if (d->broker_key) {
        *dflt = bcfg_at(b, d->b_dflt), *min = bcfg_at(b, d->b_min), *max = bcfg_at(b, d->b_max);
        return;
    }
    *dflt = (int32_t)strtol(d->dflt, NULL, 10), *min = d->s_min, *max = d->s_max;
}

bool gr_sgc_parse_reset(const char *value, gr_sgc_reset_t *type, int64_t *duration_ms) {
    gr_sgc_reset_t t;
    int64_t ms = 0;
    if (!value) return false;
    if (!strcmp(value, "latest"))
        t = GR_SGC_RESET_LATEST;
    else if (!strcmp(value, "earliest"))
        t = GR_SGC_RESET_EARLIEST;
    else if (!strncmp(value, "by_duration:", 12)) {
        gr_duration_t d;
        if (!gr_duration_parse(value + 12, &d) || gr_duration_is_negative(d)) return false;
        ms = gr_duration_to_ms(d);
        t = GR_SGC_RESET_BY_DURATION;
    } else
        return false;
    if (type) *type = t;
    if (duration_ms) *duration_ms = ms;
    return true;
}

/* ---- validation ---- */

/* Trimmed copy of v (ConfigDef trims every STRING/INT/BOOLEAN value). A value too long
 * for buf is never valid: buf then holds its start and "...", which no type accepts
 * (a truncated copy could be valid: "false" followed by 300 spaces and "x"). */
static void trim_copy(const char *v, char *buf, size_t n) {
    while (isspace((unsigned char)*v)) v++;
    size_t len = strlen(v);
    while (len && isspace((unsigned char)v[len - 1])) len--;
    if (len >= n) {
        snprintf(buf, n, "%.*s...", (int)(n - 4), v);
        return;
    }
    memcpy(buf, v, len);
    buf[len] = '\0';
}

static gr_err_t invalid(char *errstr, size_t n, const char *value, const char *name, const char *reason) {
    size_t vl = strlen(value); /* a long value is cut so that the name still fits */
    snprintf(errstr, n, "Invalid value %.*s%s for configuration %s: %s", vl > 200 ? 200 : (int)vl, value,
             vl > 200 ? "..." : "", name, reason);
    return GR_ERR_INVALID_CONFIG;
}

static gr_err_t check_string(const gr_sgc_def_t *d, const char *buf, char *errstr, size_t n) {
    char reason[512];
    switch (d->kind) {
    case GR_SGC_K_TOPIC:
        if (!strncmp(buf, "__", 2)) { /* Kafka 4.4.0 checks only this when the config is set */
            snprintf(errstr, n, "%s: DLQ topic name must not start with '__'", d->name);
            return GR_ERR_INVALID_CONFIG;
        }
        return GR_ERR_NONE;
    case GR_SGC_K_RESET:
        if (gr_sgc_parse_reset(buf, NULL, NULL)) return GR_ERR_NONE;
        snprintf(reason, sizeof(reason),
                 "Invalid value `%s` for configuration %s. The value must be either 'earliest', 'latest' or of "
                 "the format 'by_duration:<PnDTnHnMn.nS.>'.",
                 buf, d->name);
        return invalid(errstr, n, buf, d->name, reason);
    case GR_SGC_K_ISOLATION:
        if (strcmp(buf, "read_committed") && strcmp(buf, "read_uncommitted"))
            return invalid(errstr, n, buf, d->name, "String must be one of: read_committed, read_uncommitted");
        return GR_ERR_NONE;
    default: return GR_ERR_NONE;
    }
}

/* Parse one value as ConfigDef.parse would (type, static range, validator). */
static gr_err_t parse_value(const gr_sgc_def_t *d, const char *value, int64_t *ival, char *errstr, size_t n) {
    char buf[256], reason[64];
    trim_copy(value, buf, sizeof(buf));
    if (d->kind == GR_SGC_K_INT) {
        if (!gr_cfg_parse_i64(GR_CFG_INT, buf, ival))
            return invalid(errstr, n, value, d->name, "Not a number of type INT");
        if (*ival < d->static_min) {
            snprintf(reason, sizeof(reason), "Value must be at least %lld", (long long)d->static_min);
            return invalid(errstr, n, buf, d->name, reason);
        }
        return GR_ERR_NONE;
    }
    if (d->kind == GR_SGC_K_BOOL) {
        bool b;
        if (!gr_cfg_parse_bool(buf, &b))
            return invalid(errstr, n, value, d->name, "Expected value to be either true or false");
        *ival = b;
        return GR_ERR_NONE;
    }
    return check_string(d, buf, errstr, n);
}

static gr_err_t check_bounds(const gr_sgc_def_t *d, int64_t v, const gr_sg_broker_cfg_t *b, char *errstr, size_t n) {
    int32_t dflt, min, max;
    gr_sgc_int_bounds(d, b, &dflt, &min, &max);
    /* Apache Kafka 4.4.0's text, the same for both ends (share differential test,
     * group_config_bounds); 4.3.1 named the group.share.min/max.* broker config. */
    if (v < min || v > max) {
        snprintf(errstr, n, "%s must be in the range %d to %d inclusive.", d->name, min, max);
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

gr_err_t gr_sgc_validate(const gr_props_t *proposed, const gr_sg_broker_cfg_t *broker, char *errstr,
                         size_t errstr_size) {
    int64_t v[C_N];
    gr_err_t err;
    for (size_t k = 0; proposed && k < proposed->n; k++)
        if (def_index(proposed->v[k].key) < 0) {
            snprintf(errstr, errstr_size, "Unknown group config name: %s", proposed->v[k].key);
            return GR_ERR_INVALID_CONFIG;
        }
    for (int i = 0; i < C_N; i++) {
        const char *val = proposed ? gr_props_get(proposed, defs[i].name) : NULL;
        int32_t dflt = 0, min, max;
        if (defs[i].kind == GR_SGC_K_INT) gr_sgc_int_bounds(&defs[i], broker, &dflt, &min, &max);
        v[i] = dflt;
        if (val && (err = parse_value(&defs[i], val, &v[i], errstr, errstr_size))) return err;
    }
    for (int rank = 1; rank <= C_N; rank++)
        for (int i = 0; i < C_N; i++)
            if (defs[i].bounds_rank == rank && (err = check_bounds(&defs[i], v[i], broker, errstr, errstr_size)))
                return err;
    if (v[C_CONS_SESSION] <= v[C_CONS_HEARTBEAT]) {
        snprintf(errstr, errstr_size, "%s must be greater than %s", defs[C_CONS_SESSION].name,
                 defs[C_CONS_HEARTBEAT].name);
        return GR_ERR_INVALID_CONFIG;
    }
    if (v[C_SESSION] <= v[C_HEARTBEAT]) {
        snprintf(errstr, errstr_size, "%s must be greater than %s", defs[C_SESSION].name, defs[C_HEARTBEAT].name);
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

/* ---- effective values ---- */

static void resolve_one(const gr_sgc_def_t *d, const char *s, const gr_sg_broker_cfg_t *b, gr_sgc_values_t *out) {
    char *f = (char *)out + d->field, buf[256];
    if (d->kind == GR_SGC_K_INT) {
        int32_t dflt, min, max;
        int64_t v;
        gr_sgc_int_bounds(d, b, &dflt, &min, &max);
        if (!s || !gr_cfg_parse_i64(GR_CFG_INT, s, &v)) v = dflt;
        if (v < min) v = min; /* bounds may have moved since the value was stored */
        if (v > max) v = max;
        int32_t i = (int32_t)v;
        memcpy(f, &i, sizeof(i));
        return;
    }
    trim_copy(s ? s : d->dflt, buf, sizeof(buf));
    switch (d->kind) {
    case GR_SGC_K_BOOL: {
        bool v = false;
        if (!gr_cfg_parse_bool(buf, &v)) gr_cfg_parse_bool(d->dflt, &v);
        memcpy(f, &v, sizeof(v));
        break;
    }
    case GR_SGC_K_RESET:
        if (!gr_sgc_parse_reset(buf, &out->auto_offset_reset, &out->reset_duration_ms))
            gr_sgc_parse_reset(d->dflt, &out->auto_offset_reset, &out->reset_duration_ms);
        break;
    case GR_SGC_K_ISOLATION: {
        bool rc = !strcmp(buf, "read_committed");
        memcpy(f, &rc, sizeof(rc));
        break;
    }
    case GR_SGC_K_TOPIC: snprintf(f, GR_SGC_TOPIC_MAX, "%s", buf); break;
    default: break;
    }
}

void gr_sgc_resolve(const gr_props_t *stored, const gr_sg_broker_cfg_t *broker, gr_sgc_values_t *out) {
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < C_N; i++)
        resolve_one(&defs[i], stored ? gr_props_get(stored, defs[i].name) : NULL, broker, out);
}

/* ---- DescribeConfigs ---- */

void gr_sgc_describe(const gr_props_t *stored, const gr_sg_broker_cfg_t *broker, gr_sgc_entry_t *out) {
    for (int i = 0; i < C_N; i++) {
        const gr_sgc_def_t *d = &defs[i];
        gr_sgc_entry_t *e = &out[i];
        memset(e, 0, sizeof(*e));
        e->def = d;
        e->name = d->name;
        e->type = d->type;
        e->doc = d->doc;
        const char *s = stored ? gr_props_get(stored, d->name) : NULL;
        e->source = s ? GR_CFG_SRC_GROUP : GR_CFG_SRC_DEFAULT;
        if (s) {
            e->value = s;
            if (d->dflt_synonym) e->default_synonym = d->dflt;
        } else if (d->kind == GR_SGC_K_INT) {
            int32_t dflt, min, max;
            gr_sgc_int_bounds(d, broker, &dflt, &min, &max);
            snprintf(e->_buf, sizeof(e->_buf), "%d", dflt);
            e->value = e->_buf;
        } else {
            e->value = d->dflt;
        }
    }
}

/* ---- the broker's group.share.* defaults and bounds ---- */

void gr_sgc_broker_fill(gr_sg_broker_cfg_t *b, int64_t (*get)(void *ctx, const char *key), void *ctx) {
    char key[128];
    for (int i = 0; i < C_N; i++) {
        const gr_sgc_def_t *d = &defs[i];
        if (!d->broker_key) continue;
        static const char *const pre[3] = {"", "min.", "max."};
        const size_t off[3] = {d->b_dflt, d->b_min, d->b_max};
        for (int k = 0; k < 3; k++) {
            snprintf(key, sizeof(key), "group.%s.%s%s", d->broker_group, pre[k], d->broker_key);
            int32_t v = (int32_t)get(ctx, key);
            memcpy((char *)b + off[k], &v, sizeof(v));
        }
    }
}

gr_err_t gr_sgc_broker_check(const gr_sg_broker_cfg_t *b, char *errstr, size_t sz) {
    for (int rank = 1; rank <= C_N; rank++)
        for (int i = 0; i < C_N; i++) {
            const gr_sgc_def_t *d = &defs[i];
            if (d->start_rank != rank || !d->broker_key) continue; /* consumer ones: start_rank 0 */
            int32_t dflt, min, max;
            gr_sgc_int_bounds(d, b, &dflt, &min, &max);
            if (min <= dflt && dflt <= max) continue;
            const char *w = d->broker_key;
            if (dflt < min)
                snprintf(errstr, sz,
                         "Invalid value %d for configuration group.share.%s: must be greater than or equal to "
                         "group.share.min.%s (%d)",
                         dflt, w, w, min);
            else
                snprintf(errstr, sz,
                         "Invalid value %d for configuration group.share.%s: must be less than or equal to "
                         "group.share.max.%s (%d)",
                         dflt, w, w, max);
            return GR_ERR_INVALID_CONFIG;
        }
    return GR_ERR_NONE;
}
