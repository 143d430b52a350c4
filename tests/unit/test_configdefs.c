/* Unit tests for src/meta/configdefs: table sanity, validation wording, effective values
 * and DescribeConfigs synonyms. */
#include "base/arena.h"
#include "meta/configdefs.h"
#include "testutil.h"

static gr_err_t v(gr_cfg_scope_t scope, const char *name, const char *value, char *err) {
    return gr_cfg_validate(scope, name, value, err, 256);
}

static void test_table_sane(void) {
    char err[256];
    ASSERT(gr_cfgdef_count() > 80);
    for (size_t i = 0; i < gr_cfgdef_count(); i++) {
        const gr_cfgdef_t *d = gr_cfgdef_at(i);
        ASSERT(d->doc && d->doc[0]);
        ASSERT(gr_cfgdef_find(d->scope, d->name) == d); /* no duplicates */
        if (d->dflt && strcmp(d->name, "listeners") && strcmp(d->name, "cleanup.policy") &&
            strcmp(d->name, "log.cleanup.policy")) {
            if (v(d->scope, d->name, d->dflt, err)) GR__FAIL("default of %s invalid: %s", d->name, err);
        }
        for (int k = 0; k < 3 && d->syn[k].name; k++)
            if (!gr_cfgdef_find(GR_CFG_SCOPE_BROKER, d->syn[k].name)) GR__FAIL("%s: unknown synonym", d->name);
    }
    ASSERT(gr_cfgdef_at(gr_cfgdef_count()) == NULL);
    ASSERT(gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, "log.retention.ms") == NULL);
    ASSERT_EQ(gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, "retention.ms")->type, 5);
    ASSERT_STREQ(gr_cfg_type_name(GR_CFG_LIST), "LIST");
}

static void test_validate_messages(void) {
    char err[256];
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "retention.ms", "1000", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "retention.ms", " -1 ", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "retention.ms", "-2", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value -2 for configuration retention.ms: Value must be at least -1");
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "segment.bytes", "abc", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value abc for configuration segment.bytes: Not a number of type INT");
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "segment.bytes", "3000000000", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "segment.bytes", "1000", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576");
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "group.share.delivery.count.limit", "11", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err,
                 "Invalid value 11 for configuration group.share.delivery.count.limit: Value must be no more than 10");
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "unclean.leader.election.enable", "TRUE", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "unclean.leader.election.enable", "yes", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value yes for configuration unclean.leader.election.enable: "
                      "Expected value to be either true or false");
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "message.timestamp.type", "LogAppendTime", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "message.timestamp.type", "Now", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value Now for configuration message.timestamp.type: "
                      "String must be one of: CreateTime, LogAppendTime");
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "compression.type", "zstd", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "compression.type", "brotli", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "cleanup.policy", "delete", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "cleanup.policy", "compact", err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "Invalid value compact for configuration cleanup.policy: log compaction is not supported"));
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "cleanup.policy", "delete,compact", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "cleanup.policy", "remove", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value remove for configuration cleanup.policy: String must be one of: compact, delete");
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "min.cleanable.dirty.ratio", "0.7", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "min.cleanable.dirty.ratio", "1.5", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "compression.gzip.level", "-1", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "compression.gzip.level", "0", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_TOPIC, "no.such.config", "1", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Unknown topic config name: no.such.config");
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "listeners", "PLAINTEXT://127.0.0.1:9092,CONTROLLER://:9093", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "listeners", "PLAINTEXT://[::1]:9092", err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "listeners", "127.0.0.1:9092", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "listeners", "PLAINTEXT://host:99999", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "listeners", "A://:1,A://:2", err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "log.retention.ms", NULL, err), 0);
    ASSERT_EQ(v(GR_CFG_SCOPE_BROKER, "num.partitions", NULL, err), GR_ERR_INVALID_CONFIG);

    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "retention.ms", "5", 0);
    gr_props_set(&p, "segment.ms", "0", 0);
    ASSERT_EQ(gr_cfg_validate_all(GR_CFG_SCOPE_TOPIC, &p, err, 256), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "segment.ms"));
    gr_props_free(&p);
}

static void test_effective(void) {
    gr_props_t st, dyn, top;
    gr_props_init(&st);
    gr_props_init(&dyn);
    gr_props_init(&top);
    gr_cfg_layers_t l = {.topic = &top, .dynamic_default = &dyn, .static_broker = &st};
    char buf[32];
    gr_cfg_source_t src;
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "retention.ms", &l, 0), 604800000);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, "log.retention.ms", &l, 0), 604800000);
    gr_props_set(&st, "log.retention.hours", "1", 0);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "retention.ms", &l, 0), 3600000);
    gr_props_set(&st, "log.retention.minutes", "2", 0);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "retention.ms", &l, 0), 120000);
    gr_props_set(&st, "log.retention.ms", "777", 0);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "retention.ms", &l, 0), 777);
    gr_props_set(&dyn, "log.retention.ms", "888", 0);
    ASSERT_STREQ(gr_cfg_effective(GR_CFG_SCOPE_TOPIC, "retention.ms", &l, buf, sizeof(buf), &src), "888");
    ASSERT_EQ(src, GR_CFG_SRC_DYNAMIC_DEFAULT_BROKER);
    gr_props_set(&top, "retention.ms", "999", 0);
    ASSERT_STREQ(gr_cfg_effective(GR_CFG_SCOPE_TOPIC, "retention.ms", &l, buf, sizeof(buf), &src), "999");
    ASSERT_EQ(src, GR_CFG_SRC_TOPIC);
    gr_props_set(&st, "log.retention.hours", "-1", 0);
    gr_props_unset(&st, "log.retention.minutes");
    gr_props_unset(&st, "log.retention.ms");
    gr_props_unset(&dyn, "log.retention.ms");
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, "log.retention.ms", &l, 0), -1);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "flush.ms", &l, 0), INT64_MAX);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "segment.ms", &l, 0), 604800000);
    gr_props_set(&st, "log.roll.hours", "2", 0);
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "segment.ms", &l, 0), 7200000);
    ASSERT(gr_cfg_effective_bool(GR_CFG_SCOPE_BROKER, "auto.create.topics.enable", &l, false));
    ASSERT_EQ(gr_cfg_effective_i64(GR_CFG_SCOPE_TOPIC, "nope", &l, 42), 42);
    ASSERT(gr_cfg_effective(GR_CFG_SCOPE_BROKER, "advertised.listeners", &l, buf, sizeof(buf), NULL) == NULL);
    gr_props_free(&st);
    gr_props_free(&dyn);
    gr_props_free(&top);
}

static void test_describe(void) {
    gr_props_t st, top;
    gr_props_init(&st);
    gr_props_init(&top);
    gr_cfg_layers_t l = {.topic = &top, .static_broker = &st};
    gr_arena_t a;
    gr_arena_init(&a);
    gr_cfg_entry_t e;

    /* Nothing set: Kafka drops the log.retention.hours default (its dropWhile quirk). */
    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, "retention.ms"), &l, &a, &e);
    ASSERT_STREQ(e.value, "604800000");
    ASSERT_EQ(e.source, GR_CFG_SRC_DEFAULT);
    ASSERT_EQ(e.n_synonyms, 0);
    ASSERT(!e.read_only);

    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, "segment.bytes"), &l, &a, &e);
    ASSERT_EQ(e.n_synonyms, 1);
    ASSERT_STREQ(e.synonyms[0].name, "log.segment.bytes");
    ASSERT_EQ(e.synonyms[0].source, GR_CFG_SRC_DEFAULT);
    ASSERT_EQ(e.type, GR_CFG_INT);

    gr_props_set(&st, "log.retention.ms", "5000", 0);
    gr_props_set(&top, "retention.ms", "100", 0);
    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, "retention.ms"), &l, &a, &e);
    ASSERT_STREQ(e.value, "100");
    ASSERT_EQ(e.source, GR_CFG_SRC_TOPIC);
    ASSERT_EQ(e.n_synonyms, 3);
    ASSERT_STREQ(e.synonyms[1].name, "log.retention.ms");
    ASSERT_EQ(e.synonyms[1].source, GR_CFG_SRC_STATIC_BROKER);
    ASSERT_STREQ(e.synonyms[2].name, "log.retention.hours");
    ASSERT_EQ(e.synonyms[2].source, GR_CFG_SRC_DEFAULT);

    gr_props_set(&st, "log.roll.hours", "3", 0);
    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_TOPIC, "segment.ms"), &l, &a, &e);
    ASSERT_STREQ(e.value, "10800000"); /* converted, arena-allocated */

    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_BROKER, "log.retention.ms"), &l, &a, &e);
    ASSERT_STREQ(e.value, "5000");
    ASSERT_EQ(e.source, GR_CFG_SRC_STATIC_BROKER);
    ASSERT(!e.read_only);
    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_BROKER, "log.roll.ms"), &l, &a, &e);
    ASSERT(e.value == NULL);
    ASSERT_EQ(e.source, GR_CFG_SRC_DEFAULT);
    /* node.id has no default (as in Kafka 4.x): unset, it is null with no synonym. */
    gr_cfg_describe(gr_cfgdef_find(GR_CFG_SCOPE_BROKER, "node.id"), &l, &a, &e);
    ASSERT(e.value == NULL);
    ASSERT(e.read_only);
    ASSERT_EQ(e.source, GR_CFG_SRC_DEFAULT);
    ASSERT_EQ(e.n_synonyms, 0);
    gr_arena_free(&a);
    gr_props_free(&st);
    gr_props_free(&top);
}

static void test_listener_ssl_keys(void) {
    const char *base = NULL;
    char l[16];
    ASSERT(gr_cfg_listener_ssl_key("listener.name.ssl.ssl.keystore.location", &base, l, sizeof(l)));
    ASSERT_STREQ(base, "ssl.keystore.location");
    ASSERT_STREQ(l, "ssl");
    ASSERT(gr_cfg_listener_ssl_key("listener.name.internal.ssl.truststore.certificates", &base, l, sizeof(l)));
    ASSERT_STREQ(l, "internal");
    /* not reconfigurable, no listener, no prefix, a name too long for the buffer */
    ASSERT(!gr_cfg_listener_ssl_key("listener.name.ssl.ssl.client.auth", &base, l, sizeof(l)));
    ASSERT(!gr_cfg_listener_ssl_key("listener.name..ssl.keystore.location", &base, l, sizeof(l)));
    ASSERT(!gr_cfg_listener_ssl_key("ssl.keystore.location", &base, l, sizeof(l)));
    ASSERT(!gr_cfg_listener_ssl_key("listener.name.averyveryverylongname.ssl.keystore.location", &base, l, sizeof(l)));
    ASSERT(gr_cfg_ssl_reconfigurable("ssl.key.password"));
    ASSERT(!gr_cfg_ssl_reconfigurable("ssl.allow.dn.changes"));
    ASSERT(gr_cfg_ssl_sensitive("ssl.keystore.key") && gr_cfg_ssl_sensitive("ssl.truststore.password"));
    ASSERT(!gr_cfg_ssl_sensitive("ssl.keystore.location") && !gr_cfg_ssl_sensitive("ssl.truststore.type"));
}

int main(void) {
    RUN_TEST(test_table_sane);
    RUN_TEST(test_listener_ssl_keys);
    RUN_TEST(test_validate_messages);
    RUN_TEST(test_effective);
    RUN_TEST(test_describe);
    return 0;
}
