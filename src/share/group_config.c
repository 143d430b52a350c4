/* Share-group configs (resource type GROUP), KIP-932 (docs/share-groups.md).
 *
 * Names, types, static ranges and validation order follow Kafka's GroupConfig (4.2+,
 * KIP-932/KIP-1240): unknown names first, then each value parsed in definition order
 * (type, static range, validator), then the broker bounds group.share.min/max.*, then
 * session > heartbeat. Error texts are Kafka's. Defaults are the broker's current
 * group.share.* values, and stored values are clamped into the current broker bounds
 * when read (GroupConfig.evaluate). Doc strings are our own short summaries. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/duration.h"
#include "share/group_int.h"

enum {
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
#define BACKOFF_DEFAULT_MAX_MS 60000
#define BACKOFF_LIMIT_MS       86400000

static const gr_sgc_def_t defs[C_N] = {
    [C_SESSION] = {"share.session.timeout.ms", GR_CFG_INT, 1,
                   "Timeout after which a share group member that sends no heartbeat is removed."},
    [C_HEARTBEAT] = {"share.heartbeat.interval.ms", GR_CFG_INT, 1,
                     "Interval at which share group members are asked to heartbeat."},
    [C_LOCK] = {"share.record.lock.duration.ms", GR_CFG_INT, 1000,
                "Duration of the acquisition lock on records delivered to a share group member."},
    [C_DELIVERY] = {"share.delivery.count.limit", GR_CFG_INT, 2,
                    "Number of delivery attempts after which a record is archived."},
    [C_LOCKS] = {"share.partition.max.record.locks", GR_CFG_INT, 100,
                 "Maximum number of in-flight records per share-partition."},
    [C_RESET] = {"share.auto.offset.reset", GR_CFG_STRING, 0,
                 "Where a share-partition starts when it has no state: latest, earliest or "
                 "by_duration:<ISO-8601 duration>."},
    [C_ISOLATION] = {"share.isolation.level", GR_CFG_STRING, 0,
                     "How transactional records are read: read_uncommitted (read_committed needs "
                     "transactions, not yet supported)."},
    [C_RENEW] = {"share.renew.acknowledge.enable", GR_CFG_BOOLEAN, 0,
                 "Whether members may RENEW the acquisition lock of records (KIP-1222)."},
    /* Kafka 4.3.1+: batches assignment computations; gregord assigns at once on every
     * membership change, so the value is validated, stored and described only. */
    [C_ASSIGN] = {"share.assignment.interval.ms", GR_CFG_INT, 0,
                  "Interval between share group assignment computations (accepted; gregord assigns at once)."},
    [C_DLQ_NAME] = {"errors.deadletterqueue.topic.name", GR_CFG_STRING, 0,
                    "Dead-letter queue topic of the group: REJECTed records and records archived at the "
                    "delivery count limit are written there (empty = none; needs share.version 2)."},
    [C_DLQ_COPY] = {"errors.deadletterqueue.copy.record.enable", GR_CFG_BOOLEAN, 0,
                    "Whether dead-letter records carry the source record's key and value."},
    [C_BACKOFF] = {"gregor.share.redelivery.backoff.ms", GR_CFG_INT, 0,
                   "gregord only: delay before a RELEASEd or lock-expired record is redelivered, doubled "
                   "per earlier delivery (0 = off)."},
    [C_BACKOFF_MAX] = {"gregor.share.redelivery.backoff.max.ms", GR_CFG_INT, 1,
                       "gregord only: upper bound of the redelivery delay."},
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

/* Default, min and max from the broker config for the integer configs. */
static void int_bounds(const gr_sg_broker_cfg_t *b, int i, int32_t *dflt, int32_t *min, int32_t *max) {
    switch (i) {
    case C_SESSION:
        *dflt = b->session_timeout_ms, *min = b->min_session_timeout_ms, *max = b->max_session_timeout_ms;
        break;
    case C_HEARTBEAT:
        *dflt = b->heartbeat_interval_ms, *min = b->min_heartbeat_interval_ms, *max = b->max_heartbeat_interval_ms;
        break;
    case C_LOCK:
        *dflt = b->record_lock_duration_ms, *min = b->min_record_lock_duration_ms,
        *max = b->max_record_lock_duration_ms;
        break;
    case C_DELIVERY:
        *dflt = b->delivery_count_limit, *min = b->min_delivery_count_limit, *max = b->max_delivery_count_limit;
        break;
    case C_ASSIGN:
        *dflt = b->assignment_interval_ms, *min = b->min_assignment_interval_ms, *max = b->max_assignment_interval_ms;
        break;
    case C_BACKOFF: *dflt = 0, *min = 0, *max = BACKOFF_LIMIT_MS; break;
    case C_BACKOFF_MAX: *dflt = BACKOFF_DEFAULT_MAX_MS, *min = 1, *max = BACKOFF_LIMIT_MS; break;
    default:
        *dflt = b->partition_max_record_locks, *min = b->min_partition_max_record_locks;
        *max = b->max_partition_max_record_locks;
        break;
    }
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

/* Parse one value as ConfigDef.parse would (type, static range, validator). */
static gr_err_t parse_value(int i, const char *value, int64_t *ival, char *errstr, size_t n) {
    char buf[256], reason[512];
    const gr_sgc_def_t *d = &defs[i];
    trim_copy(value, buf, sizeof(buf));
    if (d->type == GR_CFG_INT) {
        if (!gr_cfg_parse_i64(GR_CFG_INT, buf, ival))
            return invalid(errstr, n, value, d->name, "Not a number of type INT");
        if (*ival < d->static_min) {
            snprintf(reason, sizeof(reason), "Value must be at least %lld", (long long)d->static_min);
            return invalid(errstr, n, buf, d->name, reason);
        }
    } else if (d->type == GR_CFG_BOOLEAN) {
        bool b;
        if (!gr_cfg_parse_bool(buf, &b))
            return invalid(errstr, n, value, d->name, "Expected value to be either true or false");
        *ival = b;
    } else if (i == C_DLQ_NAME) {
        if (!strncmp(buf, "__", 2)) { /* Kafka 4.4.0 checks only this when the config is set */
            snprintf(errstr, n, "%s: DLQ topic name must not start with '__'", d->name);
            return GR_ERR_INVALID_CONFIG;
        }
    } else if (i == C_RESET) {
        if (!gr_sgc_parse_reset(buf, NULL, NULL)) {
            snprintf(reason, sizeof(reason),
                     "Invalid value `%s` for configuration %s. The value must be either 'earliest', 'latest' or of "
                     "the format 'by_duration:<PnDTnHnMn.nS.>'.",
                     buf, d->name);
            return invalid(errstr, n, buf, d->name, reason);
        }
    } else if (i == C_ISOLATION) {
        if (strcmp(buf, "read_committed") && strcmp(buf, "read_uncommitted"))
            return invalid(errstr, n, buf, d->name, "String must be one of: read_committed, read_uncommitted");
        /* Issue 3 item 1: accepted only once transactions exist. */
        if (!strcmp(buf, "read_committed"))
            return invalid(errstr, n, buf, d->name,
                           "read_committed is not supported until transactions are implemented");
    }
    return GR_ERR_NONE;
}

static gr_err_t check_bounds(int i, int64_t v, const gr_sg_broker_cfg_t *b, char *errstr, size_t n) {
    int32_t dflt, min, max;
    int_bounds(b, i, &dflt, &min, &max);
    /* Apache Kafka 4.4.0's text, the same for both ends (share differential test,
     * group_config_bounds); 4.3.1 named the group.share.min/max.* broker config. */
    if (v < min || v > max) {
        snprintf(errstr, n, "%s must be in the range %d to %d inclusive.", defs[i].name, min, max);
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
        if (defs[i].type == GR_CFG_INT) int_bounds(broker, i, &dflt, &min, &max);
        v[i] = dflt;
        if (val && (err = parse_value(i, val, &v[i], errstr, errstr_size))) return err;
    }
    static const int order[] = {C_HEARTBEAT, C_SESSION, C_LOCK,    C_DELIVERY,
                                C_LOCKS,     C_ASSIGN,  C_BACKOFF, C_BACKOFF_MAX};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
        if ((err = check_bounds(order[k], v[order[k]], broker, errstr, errstr_size))) return err;
    if (v[C_SESSION] <= v[C_HEARTBEAT]) {
        snprintf(errstr, errstr_size, "%s must be greater than %s", defs[C_SESSION].name, defs[C_HEARTBEAT].name);
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

/* ---- effective values and DescribeConfigs ---- */

static int32_t resolve_int(const gr_props_t *stored, int i, const gr_sg_broker_cfg_t *b) {
    int32_t dflt, min, max;
    int_bounds(b, i, &dflt, &min, &max);
    const char *s = stored ? gr_props_get(stored, defs[i].name) : NULL;
    int64_t v;
    if (!s || !gr_cfg_parse_i64(GR_CFG_INT, s, &v)) return dflt;
    if (v < min) v = min; /* bounds may have moved since the value was stored */
    if (v > max) v = max;
    return (int32_t)v;
}

void gr_sgc_resolve(const gr_props_t *stored, const gr_sg_broker_cfg_t *broker, gr_sgc_values_t *out) {
    memset(out, 0, sizeof(*out));
    out->session_timeout_ms = resolve_int(stored, C_SESSION, broker);
    out->heartbeat_interval_ms = resolve_int(stored, C_HEARTBEAT, broker);
    out->record_lock_duration_ms = resolve_int(stored, C_LOCK, broker);
    out->delivery_count_limit = resolve_int(stored, C_DELIVERY, broker);
    out->partition_max_record_locks = resolve_int(stored, C_LOCKS, broker);
    out->redelivery_backoff_ms = resolve_int(stored, C_BACKOFF, broker);
    out->redelivery_backoff_max_ms = resolve_int(stored, C_BACKOFF_MAX, broker);
    char buf[256];
    const char *s = stored ? gr_props_get(stored, defs[C_RESET].name) : NULL;
    out->auto_offset_reset = GR_SGC_RESET_LATEST;
    if (s) {
        trim_copy(s, buf, sizeof(buf));
        if (!gr_sgc_parse_reset(buf, &out->auto_offset_reset, &out->reset_duration_ms))
            out->auto_offset_reset = GR_SGC_RESET_LATEST, out->reset_duration_ms = 0;
    }
    out->read_committed = false; /* refused by validation until transactions exist */
    out->renew_acknowledge_enable = true;
    s = stored ? gr_props_get(stored, defs[C_RENEW].name) : NULL;
    bool b;
    if (s && gr_cfg_parse_bool(s, &b)) out->renew_acknowledge_enable = b;
    s = stored ? gr_props_get(stored, defs[C_DLQ_NAME].name) : NULL;
    if (s) {
        trim_copy(s, buf, sizeof(buf));
        out->dlq_topic_cut = strlen(s) >= sizeof(out->dlq_topic) && strlen(buf) >= sizeof(out->dlq_topic);
        snprintf(out->dlq_topic, sizeof(out->dlq_topic), "%s", buf);
    }
    s = stored ? gr_props_get(stored, defs[C_DLQ_COPY].name) : NULL;
    if (s) {
        trim_copy(s, buf, sizeof(buf));
        if (gr_cfg_parse_bool(buf, &b)) out->dlq_copy_record = b;
    }
}

void gr_sgc_describe(const gr_props_t *stored, const gr_sg_broker_cfg_t *broker, gr_sgc_entry_t *out) {
    for (int i = 0; i < C_N; i++) {
        gr_sgc_entry_t *e = &out[i];
        memset(e, 0, sizeof(*e));
        e->def = &defs[i];
        e->name = defs[i].name;
        e->type = defs[i].type;
        e->doc = defs[i].doc;
        const char *s = stored ? gr_props_get(stored, defs[i].name) : NULL;
        e->source = s ? GR_CFG_SRC_GROUP : GR_CFG_SRC_DEFAULT;
        if (s) {
            e->value = s;
            if (i == C_DLQ_NAME || i == C_DLQ_COPY) e->default_synonym = i == C_DLQ_NAME ? "" : "false";
            continue;
        }
        int32_t dflt, min, max;
        if (defs[i].type == GR_CFG_INT) {
            int_bounds(broker, i, &dflt, &min, &max);
            snprintf(e->_buf, sizeof(e->_buf), "%d", dflt);
            e->value = e->_buf;
        } else {
            e->value = i == C_RESET       ? "latest"
                       : i == C_ISOLATION ? "read_uncommitted"
                       : i == C_DLQ_NAME  ? ""
                       : i == C_DLQ_COPY  ? "false"
                                          : "true";
        }
    }
}
