/* Unit tests for src/server/config: file + overrides, typed fields, errors. */
#include <stdlib.h>
#include <unistd.h>

#include "server/config.h"
#include "testutil.h"

/* src/server is linked only into gregord, not into grcore, so the unit test compiles
 * config.c itself unless the build links it (define GR_SERVER_LINKED then). */
#ifndef GR_SERVER_LINKED
#include "server/config.c"
#endif

#ifndef GR_SOURCE_DIR
#define GR_SOURCE_DIR "."
#endif

static char tmp_path[64];

static const char *write_tmp(const char *text) {
    snprintf(tmp_path, sizeof(tmp_path), "/tmp/gr_srvcfg_XXXXXX");
    int fd = mkstemp(tmp_path);
    ASSERT(fd >= 0);
    ASSERT_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
    close(fd);
    return tmp_path;
}

static void test_defaults(void) {
    gr_server_config_t c;
    char err[512];
    ASSERT_EQ(gr_server_config_load(&c, NULL, NULL, 0, err, sizeof(err)), 0);
    ASSERT_EQ(c.node_id, 1);
    ASSERT_STREQ(c.listener_name, "PLAINTEXT");
    ASSERT_STREQ(c.listen_host, "");
    ASSERT_EQ(c.listen_port, 9092);
    ASSERT(c.advertised_host[0]);
    ASSERT_STREQ(c.log_dir, "/tmp/kafka-logs");
    ASSERT_EQ(c.num_partitions, 1);
    ASSERT_EQ(c.log_retention_ms, 604800000);
    ASSERT_EQ(c.log_roll_ms, 604800000);
    ASSERT_EQ(c.log_flush_interval_ms, INT64_MAX);
    ASSERT_EQ(c.message_max_bytes, 1048588);
    ASSERT_EQ(c.socket_request_max_bytes, 104857600);
    ASSERT_EQ(c.share.sg.delivery_count_limit, 5);
    ASSERT_EQ(c.share.sg.record_lock_duration_ms, 30000);
    ASSERT_EQ(c.share.max_share_sessions, 2000);
    ASSERT(c.auto_create_topics_enable);
    ASSERT_STREQ(c.compression_type, "producer");
    ASSERT(!c.log_message_timestamp_log_append_time);
    gr_server_config_free(&c);
}

static void test_sample_file_and_overrides(void) {
    gr_server_config_t c;
    char err[512];
    const char *ov[] = {"log.retention.minutes=5", "listeners=PLAINTEXT://[::1]:0",
                        "advertised.listeners =", "some.unknown.key=1", "log.dirs= /tmp/a ,"};
    /* advertised.listeners with an empty value is a syntax-valid empty list: falls back to listeners. */
    ASSERT_EQ(gr_server_config_load(&c, GR_SOURCE_DIR "/config/server.properties", ov, 5, err, sizeof(err)), 0);
    ASSERT_EQ(c.node_id, 1);
    ASSERT_STREQ(c.listen_host, "::1");
    ASSERT_EQ(c.listen_port, 0);
    ASSERT_STREQ(c.advertised_host, "::1");
    ASSERT_EQ(c.log_retention_ms, 300000);
    ASSERT_STREQ(c.log_dir, "/tmp/a");
    ASSERT_STREQ(gr_props_get(&c.raw, "log.retention.minutes"), "5");
    ASSERT_STREQ(gr_props_get(&c.raw, "some.unknown.key"), "1");
    gr_server_config_free(&c);
    /* Several data directories: refused, not silently reduced to the first. */
    const char *two[] = {"log.dirs=/tmp/a, /tmp/b"};
    ASSERT_EQ(gr_server_config_load(&c, NULL, two, 1, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "log.dirs") && strstr(err, "exactly one"));

    const char *p = write_tmp("broker.id=7\nlisteners=PLAINTEXT://0.0.0.0:19092\n"
                              "advertised.listeners=PLAINTEXT://kafka.example:29092\n"
                              "log.message.timestamp.type=LogAppendTime\nlog.dir=/var/x\n");
    ASSERT_EQ(gr_server_config_load(&c, p, NULL, 0, err, sizeof(err)), 0);
    ASSERT_EQ(c.node_id, 7);
    ASSERT_STREQ(c.listen_host, "0.0.0.0");
    ASSERT_STREQ(c.advertised_host, "kafka.example");
    ASSERT_EQ(c.advertised_port, 29092);
    ASSERT(c.log_message_timestamp_log_append_time);
    ASSERT_STREQ(c.log_dir, "/var/x");
    gr_server_config_free(&c);
    unlink(p);
}

static gr_err_t load_ov(const char *o1, const char *o2, char *err) {
    gr_server_config_t c;
    const char *ov[] = {o1, o2};
    gr_err_t e = gr_server_config_load(&c, NULL, ov, o2 ? 2 : 1, err, 512);
    if (!e) gr_server_config_free(&c);
    return e;
}

/* Several listeners, custom names, per-listener ssl.* and Kafka's refusals. */
static void test_listeners(void) {
    char err[512];
    gr_server_config_t c;
    const char *ov[] = {"listeners=PLAINTEXT://127.0.0.1:9092,secure://[::1]:9093,CONTROLLER://:9094",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SECURE:SSL,CONTROLLER:PLAINTEXT",
                        "controller.listener.names=CONTROLLER",
                        "advertised.listeners=PLAINTEXT://127.0.0.1:9092,SECURE://broker.example:19093",
                        "ssl.keystore.location=/global.pem",
                        "listener.name.secure.ssl.keystore.location=/secure.pem",
                        "listener.name.secure.ssl.client.auth=required",
                        "ssl.principal.mapping.rules=RULE:^CN=(.*?),.*$/$1/L,DEFAULT"};
    ASSERT_EQ(gr_server_config_load(&c, NULL, ov, 8, err, sizeof(err)), GR_ERR_NONE);
    ASSERT_EQ(c.n_listeners, 2);
    ASSERT_STREQ(c.listeners[0].name, "PLAINTEXT");
    ASSERT_EQ(c.listeners[0].sec_proto, 0);
    ASSERT_STREQ(c.listeners[0].adv_host, "127.0.0.1");
    ASSERT_EQ(c.listeners[0].adv_port, 9092);
    ASSERT_STREQ(c.listeners[1].name, "SECURE");
    ASSERT_EQ(c.listeners[1].sec_proto, 1);
    ASSERT_STREQ(c.listeners[1].host, "::1");
    ASSERT_EQ(c.listeners[1].port, 9093);
    ASSERT_STREQ(c.listeners[1].adv_host, "broker.example");
    ASSERT_EQ(c.listeners[1].adv_port, 19093);
    ASSERT_STREQ(c.listeners[1].tls.keystore_location, "/secure.pem");
    ASSERT_STREQ(c.listeners[1].tls.keystore_type, "JKS");
    ASSERT_STREQ(c.listeners[1].tls.enabled_protocols, "TLSv1.2,TLSv1.3");
    ASSERT_EQ(c.listeners[1].tls.client_auth, GR_TLS_AUTH_REQUIRED);
    ASSERT_STREQ(c.listeners[1].ssl_rules, "RULE:^CN=(.*?),.*$/$1/L,DEFAULT");
    ASSERT_STREQ(c.inter_broker_listener, "PLAINTEXT");
    ASSERT_STREQ(c.listener_name, "PLAINTEXT");
    gr_server_config_free(&c);

    ASSERT_EQ(load_ov("listeners=CLIENT://:9092", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Error creating broker listeners from '[CLIENT://:9092]': No security protocol defined for "
                      "listener CLIENT");
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://:9092, SSL://:9092", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Error creating broker listeners from '[PLAINTEXT://:9092, SSL://:9092]': If you have two "
                      "listeners on the same port then one needs to be IPv4 and the other IPv6, listeners: "
                      "[PLAINTEXT://:9092, SSL://:9092], port: 9092");
    /* one IPv4 and one IPv6 address may share a port, as in Kafka */
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://127.0.0.1:9092,V6://[::1]:9092",
                      "listener.security.protocol.map=PLAINTEXT:"
                      "PLAINTEXT,V6:PLAINTEXT",
                      err),
              GR_ERR_NONE);
    /* Kafka checks the inter-broker listener among the advertised names first */
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://:9092", "advertised.listeners=SSL://h:9093", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid "
                      "options based on currently configured listeners are SSL");
    ASSERT_EQ(
        load_ov("listeners=PLAINTEXT://:9092,SSL://:9094", "advertised.listeners=PLAINTEXT://h:1,SASL_SSL://h:2", err),
        GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "advertised.listeners listener names must be equal to or a subset of the ones defined in "
                      "listeners. Found PLAINTEXT,SASL_SSL. The valid options based on the current configuration are "
                      "PLAINTEXT,SSL");
    /* SASL listeners are accepted (their mechanisms are checked when the broker opens them) */
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://:9092,SASL_SSL://:9094", NULL, err), GR_ERR_NONE);
    ASSERT_EQ(load_ov("listeners=SSL://:9093", "inter.broker.listener.name=SSL", err), GR_ERR_NONE);
    ASSERT_EQ(load_ov("listeners=SSL://:9093", "security.inter.broker.protocol=SSL", err), GR_ERR_NONE);
    ASSERT_EQ(load_ov("inter.broker.listener.name=PLAINTEXT", "security.inter.broker.protocol=PLAINTEXT", err),
              GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.");
    ASSERT_EQ(load_ov("inter.broker.listener.name=FOO", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Listener with name FOO defined in inter.broker.listener.name not found in "
                      "listener.security.protocol.map.");
    ASSERT_EQ(load_ov("listener.security.protocol.map=PLAINTEXT:TLS", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid security protocol `TLS` defined in listener.security.protocol.map");
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://:9092,SSL://:9093", "ssl.client.auth=maybe", err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value maybe for configuration ssl.client.auth: String must be one of: required, "
                      "requested, none");
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://:9092,SSL://:9093", "ssl.principal.mapping.rules=DEFAULTX", err),
              GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Invalid value DEFAULTX for configuration ssl.principal.mapping.rules: Invalid rule: `DEFAULTX`, "
                      "unmatched substring: `X`");
}

static void test_errors(void) {
    char err[512];
    ASSERT_EQ(load_ov("num.partitions=0", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "Invalid value 0 for configuration num.partitions: Value must be at least 1"));
    ASSERT(strstr(err, "--override"));
    ASSERT_EQ(load_ov("novalue", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(load_ov("node.id=2", "broker.id=3", err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "must be equal"));
    /* Kafka: the inter-broker listener (security.inter.broker.protocol=PLAINTEXT) must exist. */
    ASSERT_EQ(load_ov("listeners=SSL://:9093", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid "
                      "options based on currently configured listeners are SSL");
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://0.0.0.0:9092", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "advertised.listeners"));
    ASSERT_EQ(load_ov("listeners=PLAINTEXT://:9092,CONTROLLER://:9093", "controller.listener.names=CONTROLLER", err),
              0);
    ASSERT_EQ(load_ov("group.share.delivery.count.limit=3", "group.share.min.delivery.count.limit=4", err),
              GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "group.share.delivery.count.limit"));
    ASSERT_EQ(load_ov("group.share.max.share.sessions=100", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "group.share.max.share.sessions"));
    ASSERT_EQ(load_ov("group.share.session.timeout.ms=70000", NULL, err), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(load_ov("log.cleanup.policy=compact", NULL, err), GR_ERR_INVALID_CONFIG);

    gr_server_config_t c;
    const char *p = write_tmp("a=1\n\nlog.segment.bytes=12\n");
    ASSERT_EQ(gr_server_config_load(&c, p, NULL, 0, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "line 3"));
    ASSERT(strstr(err, "log.segment.bytes"));
    unlink(p);
    ASSERT_EQ(gr_server_config_load(&c, "/nonexistent.properties", NULL, 0, err, sizeof(err)), GR_ERR__IO);
}

/* admin.listener: HOST:PORT, [v6]:PORT, :PORT; empty = off; anything else refused. */
static void test_admin_listener(void) {
    static const struct {
        const char *v, *host;
        int port; /* -1: off, -2: refused */
    } cases[] = {
        {"127.0.0.1:9644", "127.0.0.1", 9644},
        {"[::1]:9644", "::1", 9644},
        {":0", "", 0},
        {" localhost:65535 ", "localhost", 65535},
        {"", NULL, -1},
        {"  ", NULL, -1},
        {"127.0.0.1", NULL, -2},
        {"127.0.0.1:", NULL, -2},
        {"127.0.0.1:65536", NULL, -2},
        {"::1:9644", NULL, -2},
        {"[::1]9644", NULL, -2},
        {"h:12a", NULL, -2},
        {"a b:1", NULL, -2},
        {"h:-1", NULL, -2},
        {"h:123456", NULL, -2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gr_server_config_t c;
        char err[512], ov[128];
        snprintf(ov, sizeof(ov), "admin.listener=%s", cases[i].v);
        const char *ovp[] = {ov};
        gr_err_t e = gr_server_config_load(&c, NULL, ovp, 1, err, sizeof(err));
        if (cases[i].port == -2) {
            ASSERT_EQ(e, GR_ERR_INVALID_CONFIG);
            ASSERT(strstr(err, "for configuration admin.listener: expected HOST:PORT"));
            continue;
        }
        ASSERT_EQ(e, GR_ERR_NONE);
        if (cases[i].port == -1) {
            ASSERT(c.admin_listener == NULL);
        } else {
            ASSERT_STREQ(c.admin_host, cases[i].host);
            ASSERT_EQ(c.admin_port, cases[i].port);
        }
        gr_server_config_free(&c);
    }
    gr_server_config_t c;
    char err[512];
    ASSERT_EQ(gr_server_config_load(&c, NULL, NULL, 0, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(c.admin_listener == NULL); /* off by default */
    gr_server_config_free(&c);
}

/* authorizer.class.name: Kafka's StandardAuthorizer or nothing; super.users kept as given. */
static void test_authorizer(void) {
    gr_server_config_t c;
    char err[512];
    ASSERT_EQ(gr_server_config_load(&c, NULL, NULL, 0, err, sizeof(err)), 0);
    ASSERT(!c.authorizer_enabled && !c.allow_everyone_if_no_acl_found);
    ASSERT_STREQ(c.super_users, "");
    gr_server_config_free(&c);
    const char *on[] = {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                        "super.users=User:admin;User:ops", "allow.everyone.if.no.acl.found=true"};
    ASSERT_EQ(gr_server_config_load(&c, NULL, on, 3, err, sizeof(err)), 0);
    ASSERT(c.authorizer_enabled && c.allow_everyone_if_no_acl_found);
    ASSERT_STREQ(c.super_users, "User:admin;User:ops");
    gr_server_config_free(&c);
    const char *bad[] = {"authorizer.class.name=kafka.security.authorizer.AclAuthorizer"};
    ASSERT_EQ(gr_server_config_load(&c, NULL, bad, 1, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "Invalid value kafka.security.authorizer.AclAuthorizer for configuration "
                       "authorizer.class.name: gregord implements org.apache.kafka.metadata.authorizer."
                       "StandardAuthorizer only"));
}

int main(void) {
    RUN_TEST(test_authorizer);
    RUN_TEST(test_defaults);
    RUN_TEST(test_admin_listener);
    RUN_TEST(test_sample_file_and_overrides);
    RUN_TEST(test_errors);
    RUN_TEST(test_listeners);
    return 0;
}
