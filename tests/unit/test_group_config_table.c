/* Unit tests for the table that drives the group configs (share.* and consumer.*) (src/share/group_config.c):
 * every row is consistent, validation/resolution/describe agree row by row, the broker
 * side (defaults, bounds, start-up check) is read from the same rows; and the store that
 * resolves a group's overrides once (src/share/group_config_store.c). */
#include <stddef.h>

#include "share/group_config.h"
#include "share/group_config_store.h"
#include "testutil.h"

static gr_sg_broker_cfg_t broker_defaults(void) {
    gr_sg_broker_cfg_t b;
    memset(&b, 0, sizeof(b));
    b.delivery_count_limit = 5, b.min_delivery_count_limit = 2, b.max_delivery_count_limit = 10;
    b.record_lock_duration_ms = 30000, b.min_record_lock_duration_ms = 15000, b.max_record_lock_duration_ms = 60000;
    b.partition_max_record_locks = 2000, b.min_partition_max_record_locks = 100;
    b.max_partition_max_record_locks = 4000;
    b.session_timeout_ms = 45000, b.min_session_timeout_ms = 45000, b.max_session_timeout_ms = 60000;
    b.heartbeat_interval_ms = 5000, b.min_heartbeat_interval_ms = 5000, b.max_heartbeat_interval_ms = 15000;
    b.assignment_interval_ms = 1000, b.min_assignment_interval_ms = 0, b.max_assignment_interval_ms = 15000;
    b.cons_session_timeout_ms = 45000, b.min_cons_session_timeout_ms = 45000, b.max_cons_session_timeout_ms = 60000;
    b.cons_heartbeat_interval_ms = 5000, b.min_cons_heartbeat_interval_ms = 5000;
    b.max_cons_heartbeat_interval_ms = 15000;
    b.cons_assignment_interval_ms = 1000, b.min_cons_assignment_interval_ms = 0;
    b.max_cons_assignment_interval_ms = 15000;
    b.max_size = 200, b.initialize_retry_interval_ms = 30000;
    return b;
}

static int32_t field_i32(const gr_sgc_values_t *v, const gr_sgc_def_t *d) {
    int32_t x;
    memcpy(&x, (const char *)v + d->field, sizeof(x));
    return x;
}

static bool field_bool(const gr_sgc_values_t *v, const gr_sgc_def_t *d) {
    bool x;
    memcpy(&x, (const char *)v + d->field, sizeof(x));
    return x;
}

/* Every row: a unique name, a kind that matches its wire type, a field inside the
 * values struct, a doc, a default; INT rows have bounds around their default. */
static void test_rows(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    size_t n = gr_sgc_count();
    ASSERT(n >= 16);
    ASSERT(!gr_sgc_def_at(n));
    int n_bounds = 0, n_start = 0;
    for (size_t i = 0; i < n; i++) {
        const gr_sgc_def_t *d = gr_sgc_def_at(i);
        ASSERT(d->name && *d->name && d->doc && *d->doc);
        ASSERT(gr_sgc_find(d->name) == d);
        for (size_t j = 0; j < i; j++) ASSERT(strcmp(gr_sgc_def_at(j)->name, d->name));
        ASSERT(d->field < sizeof(gr_sgc_values_t));
        if (d->kind == GR_SGC_K_INT) {
            ASSERT_EQ(d->type, GR_CFG_INT);
            int32_t dflt, min, max;
            gr_sgc_int_bounds(d, &b, &dflt, &min, &max);
            ASSERT(min <= dflt && dflt <= max);
            ASSERT(min >= d->static_min);
            ASSERT(d->bounds_rank > 0);
            n_bounds++;
            if (d->broker_key) {
                /* <group>.<key> is backed by group.<group>.<key>; the share ones are checked
                 * at start-up here, the consumer ones by the consumer coordinator */
                size_t gl = strlen(d->broker_group);
                ASSERT(!strncmp(d->name, d->broker_group, gl) && d->name[gl] == '.');
                ASSERT(!strcmp(d->name + gl + 1, d->broker_key));
                ASSERT(!strcmp(d->broker_group, "share") ? d->start_rank > 0 : d->start_rank == 0);
                n_start += d->start_rank > 0;
            } else {
                ASSERT(d->dflt && *d->dflt);
            }
        } else {
            ASSERT(d->dflt);
            ASSERT(!d->broker_key && !d->bounds_rank && !d->start_rank);
            ASSERT(d->kind == GR_SGC_K_BOOL ? d->type == GR_CFG_BOOLEAN : d->type == GR_CFG_STRING);
        }
    }
    ASSERT_EQ(n_bounds, 11);
    ASSERT_EQ(n_start, 6);
}

/* Row by row: the described default, stored as an override, validates and resolves to
 * the same values as no override at all (describe, validation and parsing agree). */
static void test_default_roundtrip(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_sgc_entry_t e[32];
    ASSERT(gr_sgc_count() <= 32);
    gr_sgc_describe(NULL, &b, e);
    gr_sgc_values_t none, with;
    gr_sgc_resolve(NULL, &b, &none);
    for (size_t i = 0; i < gr_sgc_count(); i++) {
        gr_props_t p;
        gr_props_init(&p);
        gr_props_set(&p, e[i].name, e[i].value, 0);
        char err[512] = "";
        if (gr_sgc_validate(&p, &b, err, sizeof(err))) GR__FAIL("%s=%s: %s", e[i].name, e[i].value, err);
        gr_sgc_resolve(&p, &b, &with);
        if (memcmp(&none, &with, sizeof(none))) GR__FAIL("%s=%s resolves differently", e[i].name, e[i].value);
        gr_props_free(&p);
    }
}

/* Row by row for INT: both bounds are accepted and land in the row's field; one past
 * either bound is refused with the range text; below the static minimum with its text. */
static void test_int_rows(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    for (size_t i = 0; i < gr_sgc_count(); i++) {
        const gr_sgc_def_t *d = gr_sgc_def_at(i);
        if (d->kind != GR_SGC_K_INT) continue;
        int32_t dflt, min, max;
        gr_sgc_int_bounds(d, &b, &dflt, &min, &max);
        const int64_t tries[] = {min, max, (int64_t)min - 1, (int64_t)max + 1};
        for (int k = 0; k < 4; k++) {
            char val[32], err[512] = "", want[512];
            snprintf(val, sizeof(val), "%lld", (long long)tries[k]);
            gr_props_t p;
            gr_props_init(&p);
            gr_props_set(&p, d->name, val, 0);
            /* keep session > heartbeat whichever of the two is under test */
            if (!strcmp(d->name, "share.heartbeat.interval.ms"))
                gr_props_set(&p, "share.session.timeout.ms", "60000", 0);
            if (!strcmp(d->name, "share.session.timeout.ms"))
                gr_props_set(&p, "share.heartbeat.interval.ms", "5000", 0);
            if (!strcmp(d->name, "consumer.heartbeat.interval.ms"))
                gr_props_set(&p, "consumer.session.timeout.ms", "60000", 0);
            if (!strcmp(d->name, "consumer.session.timeout.ms"))
                gr_props_set(&p, "consumer.heartbeat.interval.ms", "5000", 0);
            gr_err_t rc = gr_sgc_validate(&p, &b, err, sizeof(err));
            if (k < 2) {
                if (rc) GR__FAIL("%s=%s: %s", d->name, val, err);
                gr_sgc_values_t v;
                gr_sgc_resolve(&p, &b, &v);
                ASSERT_EQ(field_i32(&v, d), tries[k]);
            } else {
                ASSERT_EQ(rc, GR_ERR_INVALID_CONFIG);
                if (tries[k] < d->static_min)
                    snprintf(want, sizeof(want), "Invalid value %s for configuration %s: Value must be at least %lld",
                             val, d->name, (long long)d->static_min);
                else
                    snprintf(want, sizeof(want), "%s must be in the range %d to %d inclusive.", d->name, min, max);
                ASSERT_STREQ(err, want);
            }
            gr_props_free(&p);
        }
    }
}

/* BOOL rows: both values, any case, with spaces, land in the field; other text is refused. */
static void test_bool_rows(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    int n = 0;
    for (size_t i = 0; i < gr_sgc_count(); i++) {
        const gr_sgc_def_t *d = gr_sgc_def_at(i);
        if (d->kind != GR_SGC_K_BOOL) continue;
        n++;
        const char *vals[] = {"true", " FALSE ", "True", "false"};
        for (int k = 0; k < 4; k++) {
            gr_props_t p;
            gr_props_init(&p);
            gr_props_set(&p, d->name, vals[k], 0);
            ASSERT_EQ(gr_sgc_validate(&p, &b, NULL, 0), GR_ERR_NONE);
            gr_sgc_values_t v;
            gr_sgc_resolve(&p, &b, &v);
            ASSERT_EQ(field_bool(&v, d), k % 2 == 0);
            gr_props_set(&p, d->name, "1", 0);
            ASSERT_EQ(gr_sgc_validate(&p, &b, NULL, 0), GR_ERR_INVALID_CONFIG);
            gr_props_free(&p);
        }
    }
    ASSERT_EQ(n, 2);
}

/* The bounds are checked in Kafka's order, not the definition order: heartbeat first. */
static void test_bounds_order(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "share.session.timeout.ms", "1", 0);
    gr_props_set(&p, "share.heartbeat.interval.ms", "1", 0);
    gr_props_set(&p, "gregor.share.redelivery.backoff.max.ms", "86400001", 0);
    char err[512];
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
    gr_props_set(&p, "share.heartbeat.interval.ms", "5000", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "share.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
    gr_props_set(&p, "share.session.timeout.ms", "45000", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "gregor.share.redelivery.backoff.max.ms must be in the range 1 to 86400000 inclusive.");
    gr_props_free(&p);
}

/* consumer.* (KIP-848), as Apache Kafka 4.4.0 answers (differential group_config_consumer):
 * parsed before the share.* ones (session, heartbeat, assignment), bounds checked first
 * (heartbeat, session, assignment), then session > heartbeat before share's. */
static void test_consumer_rows(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_props_t p;
    gr_props_init(&p);
    char err[512];
    gr_props_set(&p, "share.record.lock.duration.ms", "1", 0);
    gr_props_set(&p, "consumer.heartbeat.interval.ms", "0", 0);
    gr_props_set(&p, "consumer.session.timeout.ms", "0", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1");
    gr_props_set(&p, "consumer.session.timeout.ms", "1", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value 0 for configuration consumer.heartbeat.interval.ms: Value must be at least 1");
    gr_props_set(&p, "share.record.lock.duration.ms", "30000", 0);
    gr_props_set(&p, "share.heartbeat.interval.ms", "1", 0);
    gr_props_set(&p, "consumer.assignment.interval.ms", "99999", 0);
    gr_props_set(&p, "consumer.heartbeat.interval.ms", "1", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
    gr_props_set(&p, "consumer.heartbeat.interval.ms", "6000", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
    gr_props_set(&p, "consumer.session.timeout.ms", "50000", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "consumer.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
    gr_props_set(&p, "consumer.assignment.interval.ms", "0", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
    gr_props_set(&p, "share.heartbeat.interval.ms", "5000", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_NONE);
    gr_sgc_values_t v;
    gr_sgc_resolve(&p, &b, &v);
    ASSERT_EQ(v.consumer_session_timeout_ms, 50000);
    ASSERT_EQ(v.consumer_heartbeat_interval_ms, 6000);
    ASSERT_EQ(v.consumer_assignment_interval_ms, 0);
    ASSERT_EQ(v.session_timeout_ms, 45000); /* the share ones are apart */
    /* session > heartbeat, once the broker bounds let them meet; consumer's first */
    b.max_cons_heartbeat_interval_ms = 60000, b.max_heartbeat_interval_ms = 60000;
    gr_props_set(&p, "consumer.heartbeat.interval.ms", "50000", 0);
    gr_props_set(&p, "share.heartbeat.interval.ms", "50000", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
    gr_props_set(&p, "consumer.heartbeat.interval.ms", "49999", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "share.session.timeout.ms must be greater than share.heartbeat.interval.ms");
    /* defaults and clamping follow the group.consumer.* broker values */
    gr_sgc_resolve(NULL, &b, &v);
    ASSERT_EQ(v.consumer_session_timeout_ms, 45000);
    ASSERT_EQ(v.consumer_heartbeat_interval_ms, 5000);
    ASSERT_EQ(v.consumer_assignment_interval_ms, 1000);
    b.max_cons_session_timeout_ms = 48000;
    gr_props_set(&p, "consumer.session.timeout.ms", "50000", 0);
    gr_sgc_resolve(&p, &b, &v);
    ASSERT_EQ(v.consumer_session_timeout_ms, 48000);
    gr_props_free(&p);
}

/* The broker side reads group.share.[min.|max.]<key> for each broker-backed row. */
static int64_t fake_get(void *ctx, const char *key) {
    int *calls = ctx;
    (*calls)++;
    if (!strcmp(key, "group.share.delivery.count.limit")) return 7;
    if (!strcmp(key, "group.share.min.delivery.count.limit")) return 3;
    if (!strcmp(key, "group.share.max.delivery.count.limit")) return 9;
    if (!strcmp(key, "group.share.min.assignment.interval.ms")) return 11;
    if (!strcmp(key, "group.consumer.heartbeat.interval.ms")) return 3000;
    if (!strcmp(key, "group.consumer.min.session.timeout.ms")) return 12;
    if (!strcmp(key, "group.consumer.max.assignment.interval.ms")) return 13;
    if (!strncmp(key, "group.share.min.", 16)) return 1;
    if (!strncmp(key, "group.share.max.", 16)) return 100000;
    return 5000;
}

static void test_broker_side(void) {
    gr_sg_broker_cfg_t b;
    memset(&b, 0, sizeof(b));
    int calls = 0;
    gr_sgc_broker_fill(&b, fake_get, &calls);
    ASSERT_EQ(calls, 27); /* 9 broker-backed rows x (default, min, max) */
    ASSERT_EQ(b.cons_heartbeat_interval_ms, 3000);
    ASSERT_EQ(b.heartbeat_interval_ms, 5000);
    ASSERT_EQ(b.min_cons_session_timeout_ms, 12);
    ASSERT_EQ(b.max_cons_assignment_interval_ms, 13);
    ASSERT_EQ(b.delivery_count_limit, 7);
    ASSERT_EQ(b.min_delivery_count_limit, 3);
    ASSERT_EQ(b.max_delivery_count_limit, 9);
    ASSERT_EQ(b.record_lock_duration_ms, 5000);
    ASSERT_EQ(b.min_assignment_interval_ms, 11);
    ASSERT_EQ(b.max_session_timeout_ms, 100000);
    ASSERT_EQ(b.max_size, 0); /* not a group config: the server reads it itself */
    char err[256];
    ASSERT_EQ(gr_sgc_broker_check(&b, err, sizeof(err)), GR_ERR_NONE);
    /* start-up order: ShareGroupConfig's triples (delivery, lock, locks) before the
     * coordinator's (session, heartbeat, assignment) */
    b.session_timeout_ms = 0;
    b.max_record_lock_duration_ms = 10;
    ASSERT_EQ(gr_sgc_broker_check(&b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value 5000 for configuration group.share.record.lock.duration.ms: must be less than "
                      "or equal to group.share.max.record.lock.duration.ms (10)");
    b.max_record_lock_duration_ms = 100000;
    ASSERT_EQ(gr_sgc_broker_check(&b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value 0 for configuration group.share.session.timeout.ms: must be greater than or "
                      "equal to group.share.min.session.timeout.ms (1)");
}

static void count_ids(void *arg, const char *id) {
    ASSERT(id && *id);
    ++*(int *)arg;
}

/* The store resolves a group's overrides once, when they are set. */
static void test_store(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_sgc_store_t *st = gr_sgc_store_new(&b);
    b.record_lock_duration_ms = 1; /* the store keeps its own copy of the broker config */
    const gr_sgc_values_t *v = gr_sgc_store_values(st, "g");
    ASSERT_EQ(v->record_lock_duration_ms, 30000);
    ASSERT(!gr_sgc_store_props(st, "g"));
    ASSERT_EQ(gr_sgc_store_count(st), 0);
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "share.record.lock.duration.ms", "20000", 0);
    gr_props_set(&p, "errors.deadletterqueue.topic.name", " dlq.g ", 0);
    gr_props_set(&p, "share.auto.offset.reset", "earliest", 0);
    gr_sgc_store_set(st, "g", &p);
    gr_props_set(&p, "share.record.lock.duration.ms", "25000", 0); /* the caller's copy changes */
    v = gr_sgc_store_values(st, "g");
    ASSERT_EQ(v->record_lock_duration_ms, 20000);
    ASSERT_STREQ(v->dlq_topic, "dlq.g");
    ASSERT_EQ(v->auto_offset_reset, GR_SGC_RESET_EARLIEST);
    ASSERT_EQ(v->delivery_count_limit, 5);
    ASSERT_STREQ(gr_props_get(gr_sgc_store_props(st, "g"), "share.record.lock.duration.ms"), "20000");
    ASSERT_EQ(gr_sgc_store_values(st, "h")->record_lock_duration_ms, 30000); /* other groups: defaults */
    gr_sgc_store_set(st, "g", &p);                                           /* replaced */
    ASSERT_EQ(gr_sgc_store_values(st, "g")->record_lock_duration_ms, 25000);
    for (int i = 0; i < 40; i++) { /* grows the table */
        char id[16];
        snprintf(id, sizeof(id), "grp-%d", i);
        gr_sgc_store_set(st, id, &p);
    }
    ASSERT_EQ(gr_sgc_store_count(st), 41);
    int n = 0;
    gr_sgc_store_each(st, count_ids, &n);
    ASSERT_EQ(n, 41);
    gr_props_t empty;
    gr_props_init(&empty);
    gr_sgc_store_set(st, "g", &empty); /* an empty set removes the entry */
    gr_sgc_store_set(st, "grp-3", NULL);
    gr_sgc_store_set(st, "never", NULL);
    ASSERT_EQ(gr_sgc_store_count(st), 39);
    ASSERT(!gr_sgc_store_props(st, "g"));
    ASSERT_EQ(gr_sgc_store_values(st, "g")->record_lock_duration_ms, 30000);
    ASSERT_STREQ(gr_sgc_store_values(st, "g")->dlq_topic, "");
    gr_props_free(&p);
    gr_sgc_store_free(st);
}

/* group.share.max.groups counts groups and configs-only ids. */
static void test_group_cap(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_sgc_store_t *st = gr_sgc_store_new(&b);
    gr_share_group_registry_t *reg = gr_share_group_registry_new(&b);
    gr_sg_group_t g = {"real", 1, 0, NULL, 0, NULL, 0, {NULL, 0}};
    ASSERT_EQ(gr_share_group_import(reg, &g, 0, 45000), GR_ERR_NONE);
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "share.delivery.count.limit", "3", 0);
    gr_sgc_store_set(st, "real", &p); /* a group with configs counts once */
    gr_sgc_store_set(st, "cfg-only", &p);
    ASSERT_EQ(gr_sgc_store_config_only(st, reg), 1);
    ASSERT_EQ(gr_sgc_store_config_only(NULL, reg), 0);
    char err[256] = "";
    ASSERT(gr_sgc_store_group_may_create(st, reg, 3, "new", err, sizeof(err))); /* 2 of 3 */
    ASSERT(!gr_sgc_store_group_may_create(st, reg, 2, "new", err, sizeof(err)));
    ASSERT_STREQ(err, "The share group new cannot be created: the broker already holds the maximum of 2 share "
                      "groups (group.share.max.groups).");
    ASSERT(gr_sgc_store_group_may_create(st, reg, 2, "real", err, sizeof(err))); /* exists */
    ASSERT(gr_sgc_store_group_may_create(st, reg, 0, "new", err, sizeof(err)));  /* no cap */
    ASSERT(gr_sgc_store_group_may_create(st, reg, 2, "", err, sizeof(err)));     /* refused elsewhere */
    gr_sgc_store_set(st, "cfg-only", NULL);
    ASSERT(gr_sgc_store_group_may_create(st, reg, 2, "new", err, sizeof(err)));
    gr_props_free(&p);
    gr_share_group_registry_free(reg);
    gr_sgc_store_free(st);
}

int main(void) {
    RUN_TEST(test_rows);
    RUN_TEST(test_default_roundtrip);
    RUN_TEST(test_int_rows);
    RUN_TEST(test_bool_rows);
    RUN_TEST(test_bounds_order);
    RUN_TEST(test_consumer_rows);
    RUN_TEST(test_broker_side);
    RUN_TEST(test_store);
    RUN_TEST(test_group_cap);
    return 0;
}
