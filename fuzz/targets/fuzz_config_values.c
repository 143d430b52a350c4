/* libFuzzer target: validation of topic, broker and share-group config values
 * (src/meta/configdefs*.c, src/share/group_config.c). These values arrive from clients in
 * CreateTopics, AlterConfigs, IncrementalAlterConfigs and group config requests.
 *
 * Input byte 0 selects the mode and byte 1 the definition; the rest is the value
 * (up to the first NUL: the requests carry C strings here).
 *   mode bit 0 = 0: one topic/broker definition. Validation never crashes; it gives the
 *     same answer for the value and for the value without surrounding whitespace (Kafka's
 *     ConfigDef trims); an accepted number or boolean is accepted again in canonical form
 *     and is what the effective-value lookup returns; DescribeConfigs of it works.
 *   mode bit 0 = 1: share-group configs. The rest is NUL-separated values, each given to
 *     the definition named by the next selector byte; an accepted set resolves
 *     (gr_sgc_resolve) to exactly the values validated. */
#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/log.h"
#include "meta/configdefs.h"
#include "server/config.h"
#include "share/group.h"

static gr_sg_broker_cfg_t g_share; /* the broker's default group.share.* bounds */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    gr_log_set_level(GR_LOG_ERROR);
    gr_server_config_t cfg;
    char err[512];
    const char *ov[] = {"log.dirs=/nonexistent"};
    if (gr_server_config_parse(&cfg, NULL, 0, NULL, ov, 1, err, sizeof(err)) != GR_ERR_NONE) abort();
    g_share = cfg.share.sg;
    gr_server_config_free(&cfg);
    return 0;
}

static char *trimmed(const char *v) {
    while (isspace((unsigned char)*v)) v++;
    size_t n = strlen(v);
    while (n && isspace((unsigned char)v[n - 1])) n--;
    return strndup(v, n);
}

/* An accepted value is what the lookup in its own layer returns, typed. */
static void check_effective(const gr_cfgdef_t *def, const char *value) {
    gr_props_t layer;
    gr_props_init(&layer);
    gr_props_set(&layer, def->name, value, 0);
    gr_cfg_layers_t l = {0};
    if (def->scope == GR_CFG_SCOPE_TOPIC)
        l.topic = &layer;
    else
        l.static_broker = &layer;
    char buf[32];
    const char *v = gr_cfg_effective(def->scope, def->name, &l, buf, sizeof(buf), NULL);
    assert(v && strcmp(v, value) == 0);
    int64_t x;
    if (def->type == GR_CFG_INT || def->type == GR_CFG_SHORT || def->type == GR_CFG_LONG) {
        assert(gr_cfg_parse_i64(def->type, value, &x));
        assert(gr_cfg_effective_i64(def->scope, def->name, &l, x ^ 1) == x);
    }
    bool b;
    if (def->type == GR_CFG_BOOLEAN) {
        assert(gr_cfg_parse_bool(value, &b));
        assert(gr_cfg_effective_bool(def->scope, def->name, &l, !b) == b);
    }
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_cfg_entry_t e;
    gr_cfg_describe(def, &l, &arena, &e);
    assert(e.name && strcmp(e.name, def->name) == 0);
    /* Every topic config taking its default from this broker config resolves too. */
    if (def->scope == GR_CFG_SCOPE_BROKER) {
        for (size_t i = 0; i < gr_cfgdef_count(); i++) {
            const gr_cfgdef_t *t = gr_cfgdef_at(i);
            if (t->scope != GR_CFG_SCOPE_TOPIC || !t->syn[0].name) continue;
            (void)gr_cfg_effective(GR_CFG_SCOPE_TOPIC, t->name, &l, buf, sizeof(buf), NULL);
            (void)gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, t->name, &l, 0);
            gr_cfg_describe(t, &l, &arena, &e);
        }
    }
    gr_arena_free(&arena);
    gr_props_free(&layer);
}

/* The canonical text of an accepted number or boolean is accepted too. */
static void check_canonical(const gr_cfgdef_t *def, const char *value) {
    char canon[64], err[512];
    int64_t x;
    bool b;
    double d;
    switch (def->type) {
    case GR_CFG_INT:
    case GR_CFG_SHORT:
    case GR_CFG_LONG:
        assert(gr_cfg_parse_i64(def->type, value, &x));
        snprintf(canon, sizeof(canon), "%" PRId64, x);
        break;
    case GR_CFG_BOOLEAN:
        assert(gr_cfg_parse_bool(value, &b));
        snprintf(canon, sizeof(canon), "%s", b ? "true" : "false");
        break;
    case GR_CFG_DOUBLE:
        assert(gr_cfg_parse_double(value, &d));
        snprintf(canon, sizeof(canon), "%.17g", d);
        break;
    default: return;
    }
    assert(gr_cfg_validate(def->scope, def->name, canon, err, sizeof(err)) == GR_ERR_NONE);
}

static void fuzz_def(uint8_t sel, const char *value) {
    const gr_cfgdef_t *def = gr_cfgdef_at(sel % gr_cfgdef_count());
    char err[512], err2[512];
    gr_err_t e = gr_cfg_validate(def->scope, def->name, value, err, sizeof(err));
    char *t = trimmed(value);
    gr_err_t e2 = gr_cfg_validate(def->scope, def->name, t, err2, sizeof(err2));
    assert((e == GR_ERR_NONE) == (e2 == GR_ERR_NONE));
    if (e == GR_ERR_NONE) {
        check_canonical(def, value);
        check_effective(def, value);
    } else {
        assert(strstr(err, def->name) != NULL);
    }
    free(t);
}

static void fuzz_group(const uint8_t *data, size_t size) {
    gr_props_t proposed;
    gr_props_init(&proposed);
    size_t i = 0;
    while (i < size) {
        const gr_sgc_def_t *d = gr_sgc_def_at(data[i++] % gr_sgc_count());
        size_t start = i;
        while (i < size && data[i]) i++;
        char *v = strndup((const char *)data + start, i - start);
        gr_props_set(&proposed, d->name, v, 0);
        free(v);
        i++;
    }
    char err[1024];
    if (gr_sgc_validate(&proposed, &g_share, err, sizeof(err)) == GR_ERR_NONE) {
        gr_sgc_values_t r;
        gr_sgc_resolve(&proposed, &g_share, &r);
        const struct {
            const char *name;
            int64_t got;
        } ints[] = {
            {"share.session.timeout.ms", r.session_timeout_ms},
            {"share.heartbeat.interval.ms", r.heartbeat_interval_ms},
            {"share.record.lock.duration.ms", r.record_lock_duration_ms},
            {"share.delivery.count.limit", r.delivery_count_limit},
            {"share.partition.max.record.locks", r.partition_max_record_locks},
        };
        for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
            const char *s = gr_props_get(&proposed, ints[k].name);
            if (!s) continue;
            char *t = trimmed(s);
            int64_t x;
            assert(gr_cfg_parse_i64(GR_CFG_INT, t, &x) && x == ints[k].got);
            free(t);
        }
        const char *s = gr_props_get(&proposed, "share.renew.acknowledge.enable");
        if (s) {
            char *t = trimmed(s);
            bool b;
            assert(gr_cfg_parse_bool(t, &b) && b == r.renew_acknowledge_enable);
            free(t);
        }
        s = gr_props_get(&proposed, "share.auto.offset.reset");
        if (s) {
            char *t = trimmed(s);
            gr_sgc_reset_t type;
            int64_t ms;
            assert(gr_sgc_parse_reset(t, &type, &ms) && type == r.auto_offset_reset && ms == r.reset_duration_ms);
            free(t);
        }
        gr_sgc_entry_t entries[16];
        assert(gr_sgc_count() <= 16);
        gr_sgc_describe(&proposed, &g_share, entries);
    } else {
        assert(err[0] != '\0');
    }
    gr_props_free(&proposed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    if (data[0] & 1) {
        fuzz_group(data + 1, size - 1);
        return 0;
    }
    char *value = strndup((const char *)data + 2, size - 2);
    fuzz_def(data[1], value);
    free(value);
    return 0;
}
