/* Regression tests for config-value bugs found by fuzz_config_values and fuzz_server_config
 * (fuzz/targets/), and for gr_server_config_parse, the in-memory form of
 * gr_server_config_load the fuzzer uses. */
#include <stdlib.h>

#include "meta/configdefs.h"
#include "server/config.h"
#include "share/group.h"
#include "testutil.h"

static gr_err_t broker(const char *name, const char *value) {
    char err[512];
    return gr_cfg_validate(GR_CFG_SCOPE_BROKER, name, value, err, sizeof(err));
}

/* Kafka splits lists on \s*,\s* after trimming: any blank, and "host:" needs a number. */
static void test_endpoint_lists(void) {
    ASSERT_EQ(broker("max.connections.per.ip.overrides", "127.0.0.1: "), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(broker("max.connections.per.ip.overrides", "127.0.0.1:\n"), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(broker("max.connections.per.ip.overrides", "127.0.0.1: 5"), GR_ERR_NONE);
    ASSERT_EQ(broker("max.connections.per.ip.overrides", "127.0.0.1:5\n"), GR_ERR_NONE);
    ASSERT_EQ(broker("max.connections.per.ip.overrides", "a:1,\tb:2\t"), GR_ERR_NONE);
    ASSERT_EQ(broker("listeners", "PLAINTEXT://:\t"), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(broker("listeners", "PLAINTEXT://: "), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(broker("listeners", "PLAINTEXT://:9092\n"), GR_ERR_NONE);
    ASSERT_EQ(broker("listeners", "A://:1,\tB://:2"), GR_ERR_NONE);
    ASSERT_EQ(broker("advertised.listeners", "\n"), GR_ERR_NONE); /* an empty list, as "" */
}

static char *padded(const char *lead, const char *v, size_t spaces, const char *tail) {
    char *s = malloc(strlen(lead) + strlen(v) + spaces + strlen(tail) + 1);
    strcpy(s, lead);
    strcat(s, v);
    memset(s + strlen(s), ' ', spaces);
    strcpy(s + strlen(lead) + strlen(v) + spaces, tail);
    return s;
}

/* Surrounding whitespace of any length is trimmed before the type check. */
static void test_long_whitespace(void) {
    char *v = padded("", "2", 70, "");
    ASSERT_EQ(broker("num.network.threads", v), GR_ERR_NONE);
    int64_t x = 0;
    ASSERT(gr_cfg_parse_i64(GR_CFG_INT, v, &x) && x == 2);
    free(v);
    v = padded("\t\t", "true", 100, "");
    bool b = false;
    ASSERT(gr_cfg_parse_bool(v, &b) && b);
    free(v);
    /* The message of a long bad value still names the config. */
    v = padded("", "x", 600, "y");
    char err[512];
    ASSERT_EQ(gr_cfg_validate(GR_CFG_SCOPE_BROKER, "num.network.threads", v, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "for configuration num.network.threads: Not a number of type INT") != NULL);
    free(v);
}

/* A share-group value is validated on all of it, and resolves to what was validated. */
static void test_group_configs(void) {
    gr_server_config_t cfg;
    char err[512];
    ASSERT_EQ(gr_server_config_load(&cfg, NULL, NULL, 0, err, sizeof(err)), GR_ERR_NONE);
    gr_props_t p;
    gr_props_init(&p);
    char *v = padded("", "false", 300, "x"); /* was validated as "false" + spaces (cut at 255) */
    gr_props_set(&p, "share.renew.acknowledge.enable", v, 0);
    ASSERT_EQ(gr_sgc_validate(&p, &cfg.share.sg, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "share.renew.acknowledge.enable") != NULL);
    free(v);
    gr_props_free(&p);
    v = padded("", "3", 70, ""); /* was accepted, then resolved to the default 5 */
    gr_props_set(&p, "share.delivery.count.limit", v, 0);
    ASSERT_EQ(gr_sgc_validate(&p, &cfg.share.sg, err, sizeof(err)), GR_ERR_NONE);
    gr_sgc_values_t r;
    gr_sgc_resolve(&p, &cfg.share.sg, &r);
    ASSERT_EQ(r.delivery_count_limit, 3);
    free(v);
    gr_props_free(&p);
    gr_server_config_free(&cfg);
}

static void test_server_config_parse(void) {
    gr_server_config_t cfg;
    char err[512];
    const char *text = "node.id=2\nlog.dirs=/data/a,\nlisteners=PLAINTEXT://127.0.0.1:0\n";
    const char *ov[] = {"log.level=debug", "max.connections.per.ip.overrides=127.0.0.1:5"};
    ASSERT_EQ(gr_server_config_parse(&cfg, text, strlen(text), "mem", ov, 2, err, sizeof(err)), GR_ERR_NONE);
    ASSERT_EQ(cfg.node_id, 2);
    ASSERT_STREQ(cfg.log_dir, "/data/a");
    ASSERT_STREQ(cfg.listen_host, "127.0.0.1");
    ASSERT_STREQ(cfg.max_connections_per_ip_overrides, "127.0.0.1:5");
    gr_server_config_free(&cfg);
    text = "node.id=2\nmax.connections.per.ip.overrides=h: \n";
    ASSERT_EQ(gr_server_config_parse(&cfg, text, strlen(text), "mem", NULL, 0, err, sizeof(err)),
              GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "max.connections.per.ip.overrides") && strstr(err, "(mem line 2)"));
    ASSERT_EQ(gr_server_config_parse(&cfg, "a=\\u12", 6, "mem", NULL, 0, err, sizeof(err)), GR_ERR__MALFORMED);
}

int main(void) {
    RUN_TEST(test_endpoint_lists);
    RUN_TEST(test_long_whitespace);
    RUN_TEST(test_group_configs);
    RUN_TEST(test_server_config_parse);
    return 0;
}
