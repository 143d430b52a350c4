/* Unit tests for group configs (src/share/group_config.c, spec §5.2; consumer.* KIP-848). */
#include "share/group.h"
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
    b.cons_assignment_interval_ms = 1000, b.max_cons_assignment_interval_ms = 15000;
    b.max_size = 200, b.initialize_retry_interval_ms = 30000;
    return b;
}

/* Validate {name=value} and compare the error message ("" = success). */
static void expect(const gr_sg_broker_cfg_t *b, const char *name, const char *value, const char *msg) {
    gr_props_t p;
    char err[512] = "";
    gr_props_init(&p);
    gr_props_set(&p, name, value, 0);
    gr_err_t e = gr_sgc_validate(&p, b, err, sizeof(err));
    if (!*msg) {
        if (e) GR__FAIL("%s=%s: unexpected error %s", name, value, err);
    } else {
        ASSERT_EQ(e, GR_ERR_INVALID_CONFIG);
        ASSERT_STREQ(err, msg);
    }
    gr_props_free(&p);
}

static void test_defaults(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_sgc_values_t v;
    gr_sgc_resolve(NULL, &b, &v);
    ASSERT_EQ(v.session_timeout_ms, 45000);
    ASSERT_EQ(v.heartbeat_interval_ms, 5000);
    ASSERT_EQ(v.record_lock_duration_ms, 30000);
    ASSERT_EQ(v.delivery_count_limit, 5);
    ASSERT_EQ(v.partition_max_record_locks, 2000);
    ASSERT_EQ(v.auto_offset_reset, GR_SGC_RESET_LATEST);
    ASSERT(!v.read_committed);
    ASSERT(v.renew_acknowledge_enable);
    ASSERT_EQ(gr_sgc_count(), 16);
    ASSERT_STREQ(v.dlq_topic, ""); /* KIP-1191: no DLQ by default */
    ASSERT(!v.dlq_copy_record);
    ASSERT(gr_sgc_find("share.delivery.count.limit"));
    ASSERT(gr_sgc_find("consumer.session.timeout.ms")); /* KIP-848 */
    ASSERT(!gr_sgc_find("streams.session.timeout.ms")); /* no streams groups yet */
    ASSERT_EQ(v.consumer_session_timeout_ms, 45000);
    ASSERT_EQ(v.consumer_heartbeat_interval_ms, 5000);
    ASSERT_EQ(v.consumer_assignment_interval_ms, 1000);
    ASSERT_EQ(gr_sgc_validate(NULL, &b, NULL, 0), GR_ERR_NONE);
}

static void test_unknown_and_types(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    expect(&b, "share.bogus", "1", "Unknown group config name: share.bogus");
    expect(&b, "share.record.lock.duration.ms", "abc",
           "Invalid value abc for configuration share.record.lock.duration.ms: Not a number of type INT");
    expect(&b, "share.record.lock.duration.ms", "99999999999",
           "Invalid value 99999999999 for configuration share.record.lock.duration.ms: Not a number of type INT");
    expect(&b, "share.renew.acknowledge.enable", "yes",
           "Invalid value yes for configuration share.renew.acknowledge.enable: Expected value to be either true or "
           "false");
    expect(&b, "share.renew.acknowledge.enable", "FALSE", "");
    /* KIP-1191 (Kafka 4.4.0's texts): only "__" is refused in the name; the prefix and the
     * topic's existence are checked when a record is dead-lettered. */
    expect(&b, "errors.deadletterqueue.topic.name", "__dlq",
           "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
    expect(&b, "errors.deadletterqueue.topic.name", "no-prefix", "");
    expect(&b, "errors.deadletterqueue.topic.name", "", "");
    expect(&b, "errors.deadletterqueue.copy.record.enable", "yes",
           "Invalid value yes for configuration errors.deadletterqueue.copy.record.enable: Expected value to be "
           "either true or false");
    expect(&b, "errors.deadletterqueue.copy.record.enable", "",
           "Invalid value  for configuration errors.deadletterqueue.copy.record.enable: Expected value to be "
           "either true or false");
    expect(&b, "errors.deadletterqueue.copy.record.enable", "TRUE", "");
    expect(&b, "share.record.lock.duration.ms", " 20000 ", "");
}

static void test_static_ranges(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    expect(&b, "share.record.lock.duration.ms", "999",
           "Invalid value 999 for configuration share.record.lock.duration.ms: Value must be at least 1000");
    expect(&b, "share.delivery.count.limit", "1",
           "Invalid value 1 for configuration share.delivery.count.limit: Value must be at least 2");
    expect(&b, "share.partition.max.record.locks", "99",
           "Invalid value 99 for configuration share.partition.max.record.locks: Value must be at least 100");
    expect(&b, "share.session.timeout.ms", "0",
           "Invalid value 0 for configuration share.session.timeout.ms: Value must be at least 1");
    expect(&b, "share.heartbeat.interval.ms", "-5",
           "Invalid value -5 for configuration share.heartbeat.interval.ms: Value must be at least 1");
}

static void test_broker_bounds(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    expect(&b, "share.record.lock.duration.ms", "14999",
           "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.");
    expect(&b, "share.record.lock.duration.ms", "60001",
           "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.");
    expect(&b, "share.record.lock.duration.ms", "15000", "");
    expect(&b, "share.record.lock.duration.ms", "60000", "");
    expect(&b, "share.delivery.count.limit", "11",
           "share.delivery.count.limit must be in the range 2 to 10 inclusive.");
    b.min_delivery_count_limit = 3;
    expect(&b, "share.delivery.count.limit", "2", "share.delivery.count.limit must be in the range 3 to 10 inclusive.");
    b = broker_defaults();
    b.min_partition_max_record_locks = 200;
    expect(&b, "share.partition.max.record.locks", "150",
           "share.partition.max.record.locks must be in the range 200 to 4000 inclusive.");
    expect(&b, "share.partition.max.record.locks", "4001",
           "share.partition.max.record.locks must be in the range 200 to 4000 inclusive.");
    expect(&b, "share.session.timeout.ms", "44999",
           "share.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
    expect(&b, "share.session.timeout.ms", "60001",
           "share.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
    expect(&b, "share.heartbeat.interval.ms", "4999",
           "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
    expect(&b, "share.heartbeat.interval.ms", "15001",
           "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
    /* Kafka 4.3.1+: share.assignment.interval.ms, static minimum 0, broker bounds
     * group.share.min/max.assignment.interval.ms (default 0 and 15000). */
    expect(&b, "share.assignment.interval.ms", "-1",
           "Invalid value -1 for configuration share.assignment.interval.ms: Value must be at least 0");
    expect(&b, "share.assignment.interval.ms", "15001",
           "share.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
    expect(&b, "share.assignment.interval.ms", "0", "");
    expect(&b, "share.assignment.interval.ms", "15000", "");
    b.min_assignment_interval_ms = 500;
    expect(&b, "share.assignment.interval.ms", "499",
           "share.assignment.interval.ms must be in the range 500 to 15000 inclusive.");
    /* Session must exceed heartbeat, also when only one of them is set. */
    b.min_session_timeout_ms = 1000;
    expect(&b, "share.session.timeout.ms", "5000",
           "share.session.timeout.ms must be greater than share.heartbeat.interval.ms");
    expect(&b, "share.session.timeout.ms", "5001", "");
    /* Heartbeat bounds are checked before session bounds, as Kafka does. */
    gr_props_t p;
    char err[512];
    b = broker_defaults();
    gr_props_init(&p);
    gr_props_set(&p, "share.session.timeout.ms", "1", 0);
    gr_props_set(&p, "share.heartbeat.interval.ms", "1", 0);
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
    gr_props_free(&p);
}

static void test_auto_offset_reset(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    const char *ok[] = {"latest",
                        "earliest",
                        "by_duration:PT1H",
                        "by_duration:P1DT2H3M4.5S",
                        "by_duration:pt1h",
                        "by_duration:P1DT-1H",
                        "by_duration:PT0S",
                        "by_duration:P2D",
                        "by_duration:PT0.001S"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) expect(&b, "share.auto.offset.reset", ok[i], "");
    const char *bad[] = {"LATEST",
                         "EARLIEST",
                         "none",
                         "",
                         "by_duration",
                         "by_duration:",
                         "by_duration:invalid",
                         "by_duration:-PT1H",
                         "by_duration:PT",
                         "by_duration:P",
                         "by_duration:P1Y",
                         "by_duration:PT1.1234567891S",
                         "by_duration:P1DT",
                         "by_duration:PT-1S"};
    char msg[512];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(msg, sizeof(msg),
                 "Invalid value %s for configuration share.auto.offset.reset: Invalid value `%s` for configuration "
                 "share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
                 "'by_duration:<PnDTnHnMn.nS.>'.",
                 bad[i], bad[i]);
        expect(&b, "share.auto.offset.reset", bad[i], msg);
    }
    gr_sgc_reset_t t;
    int64_t ms;
    ASSERT(gr_sgc_parse_reset("by_duration:PT1H", &t, &ms));
    ASSERT_EQ(t, GR_SGC_RESET_BY_DURATION);
    ASSERT_EQ(ms, 3600000);
    ASSERT(gr_sgc_parse_reset("by_duration:P1DT2H3M4.5S", &t, &ms));
    ASSERT_EQ(ms, 86400000LL + 2 * 3600000LL + 3 * 60000LL + 4500);
    ASSERT(gr_sgc_parse_reset("by_duration:P1DT-1H", &t, &ms));
    ASSERT_EQ(ms, 23 * 3600000LL);
    ASSERT(gr_sgc_parse_reset("earliest", &t, &ms));
    ASSERT_EQ(t, GR_SGC_RESET_EARLIEST);
    /* Edges where Kafka 4.4.0 (java.time.Duration.parse) differs from a plain grammar. */
    ASSERT(gr_sgc_parse_reset("by_duration:P1Dt", &t, &ms)); /* lowercase lone 't' */
    ASSERT_EQ(ms, 86400000);
    ASSERT(!gr_sgc_parse_reset("by_duration:P1DT", &t, &ms));
    ASSERT(gr_sgc_parse_reset("by_duration:PT9223372036854775807.999999999S", &t, &ms));
    ASSERT_EQ(ms, INT64_MAX);
    ASSERT(!gr_sgc_parse_reset("by_duration:P106751991167301DT-1148578M", &t, &ms)); /* days overflow */
    ASSERT(!gr_sgc_parse_reset("by_duration:PT-0.0001S", &t, &ms));                  /* negative */
    ASSERT(gr_sgc_parse_reset("by_duration:-PT-0.5S", &t, &ms));
    ASSERT_EQ(ms, 500);
    ASSERT(!gr_sgc_parse_reset(NULL, &t, &ms));
}

static void test_isolation_level(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    expect(&b, "share.isolation.level", "read_uncommitted", "");
    expect(&b, "share.isolation.level", "read_committed", "");
    expect(&b, "share.isolation.level", "READ_COMMITTED",
           "Invalid value READ_COMMITTED for configuration share.isolation.level: String must be one of: "
           "read_committed, read_uncommitted");
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "share.isolation.level", "read_committed", 0);
    gr_sgc_values_t v;
    gr_sgc_resolve(&p, &b, &v);
    ASSERT(v.read_committed);
    gr_props_set(&p, "share.isolation.level", "read_uncommitted", 0);
    gr_sgc_resolve(&p, &b, &v);
    ASSERT(!v.read_committed);
    gr_props_free(&p);
}

static void test_resolve_and_clamp(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "share.record.lock.duration.ms", "60000", 0);
    gr_props_set(&p, "share.delivery.count.limit", "3", 0);
    gr_props_set(&p, "share.auto.offset.reset", "by_duration:PT10M", 0);
    gr_props_set(&p, "share.renew.acknowledge.enable", "false", 0);
    gr_props_set(&p, "share.heartbeat.interval.ms", "6000", 0);
    char err[512];
    ASSERT_EQ(gr_sgc_validate(&p, &b, err, sizeof(err)), GR_ERR_NONE);
    gr_sgc_values_t v;
    gr_sgc_resolve(&p, &b, &v);
    ASSERT_EQ(v.record_lock_duration_ms, 60000);
    ASSERT_EQ(v.delivery_count_limit, 3);
    ASSERT_EQ(v.auto_offset_reset, GR_SGC_RESET_BY_DURATION);
    ASSERT_EQ(v.reset_duration_ms, 600000);
    ASSERT(!v.renew_acknowledge_enable);
    ASSERT_EQ(v.heartbeat_interval_ms, 6000);
    /* The broker bounds moved after the values were stored: clamp at read time. */
    b.max_record_lock_duration_ms = 40000;
    b.min_delivery_count_limit = 4;
    b.min_heartbeat_interval_ms = 7000;
    gr_sgc_resolve(&p, &b, &v);
    ASSERT_EQ(v.record_lock_duration_ms, 40000);
    ASSERT_EQ(v.delivery_count_limit, 4);
    ASSERT_EQ(v.heartbeat_interval_ms, 7000);
    /* A broken stored value falls back to the default. */
    gr_props_set(&p, "share.partition.max.record.locks", "junk", 0);
    gr_sgc_resolve(&p, &b, &v);
    ASSERT_EQ(v.partition_max_record_locks, 2000);
    gr_props_free(&p);
}

static void test_describe(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "share.delivery.count.limit", "7", 0);
    gr_sgc_entry_t e[16];
    gr_sgc_describe(&p, &b, e);
    int found = 0;
    for (size_t i = 0; i < gr_sgc_count(); i++) {
        ASSERT(e[i].doc && *e[i].doc);
        ASSERT(!e[i].read_only && !e[i].is_sensitive);
        if (!strcmp(e[i].name, "share.delivery.count.limit")) {
            ASSERT_STREQ(e[i].value, "7");
            ASSERT_EQ(e[i].source, GR_CFG_SRC_GROUP);
            ASSERT_EQ(e[i].source, 8);
            found++;
        } else {
            ASSERT_EQ(e[i].source, GR_CFG_SRC_DEFAULT);
            ASSERT_EQ(e[i].source, 5);
        }
        if (!strcmp(e[i].name, "share.session.timeout.ms")) {
            ASSERT_STREQ(e[i].value, "45000");
            found++;
        }
        if (!strcmp(e[i].name, "share.auto.offset.reset")) {
            ASSERT_STREQ(e[i].value, "latest");
            found++;
        }
        if (!strcmp(e[i].name, "share.isolation.level")) {
            ASSERT_STREQ(e[i].value, "read_uncommitted");
            found++;
        }
        if (!strcmp(e[i].name, "share.renew.acknowledge.enable")) {
            ASSERT_STREQ(e[i].value, "true");
            ASSERT_EQ(e[i].type, GR_CFG_BOOLEAN);
            found++;
        }
        if (!strcmp(e[i].name, "errors.deadletterqueue.topic.name")) {
            ASSERT_STREQ(e[i].value, ""); /* Kafka 4.4.0: "" with DEFAULT_CONFIG */
            ASSERT_EQ(e[i].type, GR_CFG_STRING);
        }
        if (!strcmp(e[i].name, "errors.deadletterqueue.copy.record.enable")) {
            ASSERT_STREQ(e[i].value, "false");
            ASSERT_EQ(e[i].type, GR_CFG_BOOLEAN);
        }
        if (!strcmp(e[i].name, "share.record.lock.duration.ms")) {
            ASSERT_EQ(e[i].type, GR_CFG_INT);
            found++;
        }
        if (!strcmp(e[i].name, "share.assignment.interval.ms")) {
            ASSERT_STREQ(e[i].value, "1000"); /* group.share.assignment.interval.ms */
            ASSERT_EQ(e[i].type, GR_CFG_INT);
            found++;
        }
        if (!strcmp(e[i].name, "consumer.heartbeat.interval.ms")) {
            ASSERT_STREQ(e[i].value, "5000"); /* group.consumer.heartbeat.interval.ms */
            ASSERT_EQ(e[i].type, GR_CFG_INT);
            found++;
        }
    }
    ASSERT_EQ(found, 8);
    gr_props_free(&p);
}

/* gregord's delayed redelivery configs: off by default, static bounds [0|1, 1 day]. */
static void test_redelivery_backoff(void) {
    gr_sg_broker_cfg_t b = broker_defaults();
    gr_sgc_values_t v;
    gr_sgc_resolve(NULL, &b, &v);
    ASSERT_EQ(v.redelivery_backoff_ms, 0);
    ASSERT_EQ(v.redelivery_backoff_max_ms, 60000);
    expect(&b, "gregor.share.redelivery.backoff.ms", "-1",
           "Invalid value -1 for configuration gregor.share.redelivery.backoff.ms: Value must be at least 0");
    expect(&b, "gregor.share.redelivery.backoff.max.ms", "0",
           "Invalid value 0 for configuration gregor.share.redelivery.backoff.max.ms: Value must be at least 1");
    expect(&b, "gregor.share.redelivery.backoff.ms", "86400001",
           "gregor.share.redelivery.backoff.ms must be in the range 0 to 86400000 inclusive.");
    expect(&b, "gregor.share.redelivery.backoff.ms", "1000", "");
    expect(&b, "gregor.share.redelivery.other", "1", "Unknown group config name: gregor.share.redelivery.other");
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "gregor.share.redelivery.backoff.ms", "1500", 0);
    gr_props_set(&p, "gregor.share.redelivery.backoff.max.ms", "4000", 0);
    gr_sgc_resolve(&p, &b, &v);
    ASSERT_EQ(v.redelivery_backoff_ms, 1500);
    ASSERT_EQ(v.redelivery_backoff_max_ms, 4000);
    gr_props_free(&p);
}

int main(void) {
    RUN_TEST(test_redelivery_backoff);
    RUN_TEST(test_defaults);
    RUN_TEST(test_unknown_and_types);
    RUN_TEST(test_static_ranges);
    RUN_TEST(test_broker_bounds);
    RUN_TEST(test_auto_offset_reset);
    RUN_TEST(test_isolation_level);
    RUN_TEST(test_resolve_and_clamp);
    RUN_TEST(test_describe);
    return 0;
}
