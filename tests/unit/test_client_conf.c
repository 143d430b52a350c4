/* libgregor configuration and partitioner, through the public API only:
 *  - gr_conf_t: defaults, valid and invalid values with Kafka's messages, unknown
 *    names, scopes, aliases, rejected names, dup, .properties files;
 *  - constructors refusing bad configurations (idempotence with acks=1, empty
 *    bootstrap.servers, wrong scope);
 *  - murmur2: the vectors of Kafka's UtilsTest.testMurmur2,
 *    and the partition choice (toPositive(murmur2) % n);
 *  - the public error table matches the library's names code by code;
 *  - the ACL code names both ways (Kafka's enum names, fromString ignoring case). */
#include <gregor/gregor.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

static char err[512];

static void test_defaults(void) {
    gr_conf_t *c = gr_conf_new(GR_CONF_PRODUCER);
    ASSERT_EQ(gr_conf_scope(c), GR_CONF_PRODUCER);
    ASSERT_STREQ(gr_conf_get(c, "acks"), "all");
    ASSERT_STREQ(gr_conf_get(c, "linger.ms"), "5");
    ASSERT_STREQ(gr_conf_get(c, "batch.size"), "1000000");
    ASSERT_STREQ(gr_conf_get(c, "enable.idempotence"), "true");
    ASSERT_STREQ(gr_conf_get(c, "buffer.memory"), "33554432");
    ASSERT_STREQ(gr_conf_get(c, "compression.type"), "none");
    ASSERT_STREQ(gr_conf_get(c, "bootstrap.servers"), "");
    ASSERT(gr_conf_get(c, "no.such.thing") == NULL);
    gr_conf_destroy(c);
}

static void test_set_valid(void) {
    gr_conf_t *c = gr_conf_new(GR_CONF_PRODUCER);
    const char *ok[][2] = {{"acks", "0"},
                           {"acks", "1"},
                           {"acks", "-1"},
                           {"acks", "all"},
                           {"linger.ms", " 100 "},
                           {"compression.type", "zstd"},
                           {"compression.type", "LZ4"},
                           {"enable.idempotence", "false"},
                           {"bootstrap.servers", "a:1,b:2"},
                           {"message.max.bytes", "2000000"},
                           {"max.in.flight.requests.per.connection", "1"},
                           {"partitioner.ignore.keys", "true"},
                           {"socket.connection.setup.timeout.ms", "1000"},
                           {"metadata.max.age.ms", "1000"}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        gr_err_t e = gr_conf_set(c, ok[i][0], ok[i][1], err, sizeof(err));
        if (e) fprintf(stderr, "%s=%s: %s\n", ok[i][0], ok[i][1], err);
        ASSERT_EQ(e, GR_ERR_NONE);
    }
    ASSERT_STREQ(gr_conf_get(c, "linger.ms"), "100");
    ASSERT_STREQ(gr_conf_get(c, "max.request.size"), "2000000"); /* message.max.bytes is an alias */
    ASSERT_STREQ(gr_conf_get(c, "message.max.bytes"), "2000000");
    gr_conf_t *d = gr_conf_dup(c);
    ASSERT_STREQ(gr_conf_get(d, "compression.type"), "LZ4");
    gr_conf_set(c, "compression.type", "gzip", NULL, 0);
    ASSERT_STREQ(gr_conf_get(d, "compression.type"), "LZ4");
    gr_conf_destroy(d);
    gr_conf_destroy(c);
}

static void expect_bad(gr_conf_t *c, const char *name, const char *value, const char *msg) {
    ASSERT_EQ(gr_conf_set(c, name, value, err, sizeof(err)), GR_ERR__INVALID_ARG);
    if (strcmp(err, msg)) GR__FAIL("%s=%s: got \"%s\", want \"%s\"", name, value, err, msg);
}

static void test_set_invalid(void) {
    gr_conf_t *c = gr_conf_new(GR_CONF_PRODUCER);
    expect_bad(c, "acks", "2", "Invalid value 2 for configuration acks: String must be one of: all,-1,0,1");
    expect_bad(c, "linger.ms", "-1", "Invalid value -1 for configuration linger.ms: Value must be at least 0");
    expect_bad(c, "linger.ms", "abc", "Invalid value abc for configuration linger.ms: Not a number of type INT");
    expect_bad(c, "batch.size", "99999999999",
               "Invalid value 99999999999 for configuration batch.size: Not a number of type INT");
    expect_bad(c, "max.in.flight.requests.per.connection", "0",
               "Invalid value 0 for configuration max.in.flight.requests.per.connection: Value must be at least 1");
    expect_bad(c, "enable.idempotence", "yes",
               "Invalid value yes for configuration enable.idempotence: Expected value to be either true or false");
    expect_bad(
        c, "compression.type", "brotli",
        "Invalid value brotli for configuration compression.type: String must be one of: none,gzip,snappy,lz4,zstd");
    expect_bad(c, "foo.bar", "1", "Unknown configuration 'foo.bar' for a producer");
    expect_bad(c, "default.api.timeout.ms", "1", "Configuration 'default.api.timeout.ms' does not apply to a producer");
    ASSERT_EQ(gr_conf_set(c, "transactional.id", "tx-1", err, sizeof(err)), GR_ERR_NONE);
    expect_bad(c, "transaction.timeout.ms", "0",
               "Invalid value 0 for configuration transaction.timeout.ms: Value must be at least 1");
    ASSERT_STREQ(gr_conf_get(c, "acks"), "all"); /* failures keep the old value */
    ASSERT_EQ(gr_conf_set(c, NULL, "x", err, sizeof(err)), GR_ERR__INVALID_ARG);
    gr_conf_destroy(c);
    gr_conf_t *a = gr_conf_new(GR_CONF_ADMIN);
    expect_bad(a, "linger.ms", "5", "Configuration 'linger.ms' does not apply to a admin");
    ASSERT_EQ(gr_conf_set(a, "default.api.timeout.ms", "5000", err, sizeof(err)), GR_ERR_NONE);
    gr_conf_destroy(a);
}

static void test_file_and_listing(void) {
    char path[] = "/tmp/test_client_confXXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    const char text[] = "# producer\nacks=1\nlinger.ms = 50\nbogus.name=1\n";
    ASSERT_EQ(write(fd, text, sizeof(text) - 1), (long long)sizeof(text) - 1);
    close(fd);
    gr_conf_t *c = gr_conf_new(GR_CONF_PRODUCER);
    ASSERT_EQ(gr_conf_load_file(c, path, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT(strstr(err, ":4: Unknown configuration 'bogus.name'") != NULL);
    ASSERT_STREQ(gr_conf_get(c, "acks"), "1");
    ASSERT_STREQ(gr_conf_get(c, "linger.ms"), "50");
    unlink(path);
    ASSERT_EQ(gr_conf_load_file(c, path, err, sizeof(err)), GR_ERR__IO);
    gr_conf_destroy(c);
    size_t n = 0;
    int saw_acks = 0, saw_consumer = 0;
    for (const char *name; (name = gr_conf_property_name(GR_CONF_PRODUCER, n)); n++) {
        saw_acks |= !strcmp(name, "acks");
        saw_consumer |= !strcmp(name, "group.id"); /* a consumer property */
    }
    ASSERT(n > 15 && saw_acks && !saw_consumer);
    ASSERT(gr_conf_property_name(GR_CONF_ADMIN, 0) != NULL);
}

static void test_constructors(void) {
    gr_conf_t *c = gr_conf_new(GR_CONF_PRODUCER);
    gr_producer_t *p = NULL;
    ASSERT_EQ(gr_producer_new(c, &p, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT(strstr(err, "bootstrap.servers") != NULL);
    gr_conf_set(c, "bootstrap.servers", "127.0.0.1:1", NULL, 0);
    gr_conf_set(c, "enable.idempotence", "true", NULL, 0);
    gr_conf_set(c, "acks", "1", NULL, 0);
    ASSERT_EQ(gr_producer_new(c, &p, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT(strstr(err, "Must set acks to all") != NULL);
    gr_conf_set(c, "bootstrap.servers", "nohostport", NULL, 0);
    gr_conf_set(c, "enable.idempotence", "false", NULL, 0);
    ASSERT_EQ(gr_producer_new(c, &p, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT_STREQ(err, "Invalid url in bootstrap.servers: nohostport");
    gr_conf_set(c, "bootstrap.servers", "127.0.0.1:1", NULL, 0);
    ASSERT_EQ(gr_producer_new(c, &p, err, sizeof(err)), GR_ERR_NONE);
    gr_producer_destroy(p); /* nothing queued: returns at once */
    gr_admin_t *a = NULL;
    ASSERT_EQ(gr_admin_new(c, &a, err, sizeof(err)), GR_ERR__INVALID_ARG); /* producer scope */
    gr_conf_destroy(c);
    gr_headers_t *h = gr_headers_new();
    ASSERT_EQ(gr_headers_add(h, "k", "v", 1), GR_ERR_NONE);
    ASSERT_EQ(gr_headers_add(h, "null", NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_headers_add(h, NULL, "v", 1), GR_ERR__INVALID_ARG);
    ASSERT_EQ(gr_headers_count(h), 2);
    gr_headers_destroy(h);
}

/* security.protocol and the ssl.* properties: parsed at set, files read by the constructor. */
static void test_tls_conf(void) {
    gr_conf_t *c = gr_conf_new(GR_CONF_ADMIN);
    gr_admin_t *a = NULL;
    ASSERT_EQ(gr_conf_set(c, "security.protocol", "SSL", err, sizeof(err)), GR_ERR_NONE);
    ASSERT_EQ(gr_conf_set(c, "ssl.truststore.location", "/nonexistent/ca.pem", err, sizeof(err)), GR_ERR_NONE);
    ASSERT_STREQ(gr_conf_get(c, "ssl.ca.location"), "/nonexistent/ca.pem"); /* Java's name is an alias */
    expect_bad(c, "security.protocol", "tls",
               "Invalid value tls for configuration security.protocol: String must be one of: "
               "plaintext,ssl,sasl_plaintext,sasl_ssl");
    expect_bad(c, "ssl.truststore.type", "JKS",
               "Invalid value JKS for configuration ssl.truststore.type: String must be one of: PEM");
    expect_bad(c, "ssl.endpoint.identification.algorithm", "dns",
               "Invalid value dns for configuration ssl.endpoint.identification.algorithm: String must be one of: "
               "none,https");
    gr_conf_set(c, "bootstrap.servers", "127.0.0.1:1", NULL, 0);
    ASSERT_EQ(gr_admin_new(c, &a, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT(strncmp(err, "ssl.ca.location=/nonexistent/ca.pem: cannot load CA certificates", 63) == 0);
    gr_conf_set(c, "ssl.ca.location", "", NULL, 0);
    gr_conf_set(c, "ssl.certificate.location", "/nonexistent/c.pem", NULL, 0);
    ASSERT_EQ(gr_admin_new(c, &a, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT_STREQ(err, "ssl.certificate.location and ssl.key.location go together");
    gr_conf_set(c, "security.protocol", "sasl_ssl", NULL, 0); /* SASL over TLS: the TLS settings are checked too */
    ASSERT_EQ(gr_admin_new(c, &a, err, sizeof(err)), GR_ERR__INVALID_ARG);
    ASSERT_STREQ(err, "ssl.certificate.location and ssl.key.location go together");
    gr_conf_set(c, "security.protocol", "ssl", NULL, 0);
    gr_conf_set(c, "ssl.certificate.location", "", NULL, 0);
    ASSERT_EQ(gr_admin_new(c, &a, err, sizeof(err)), GR_ERR_NONE); /* system CAs */
    gr_admin_destroy(a);
    gr_conf_destroy(c);
}

static void test_murmur2(void) {
    /* Kafka clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java testMurmur2 */
    ASSERT_EQ(gr_murmur2("21", 2), -973932308);
    ASSERT_EQ(gr_murmur2("foobar", 6), -790332482);
    ASSERT_EQ(gr_murmur2("a-little-bit-long-string", 24), -985981536);
    ASSERT_EQ(gr_murmur2("a-little-bit-longer-string", 26), -1486304829);
    ASSERT_EQ(gr_murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", 48), -58897971);
    ASSERT_EQ(gr_murmur2("abc", 3), 479470107);
    /* toPositive(h) % n, as BuiltInPartitioner.partitionForKey */
    ASSERT_EQ(gr_partition_for_key("21", 2, 1), 0);
    ASSERT_EQ(gr_partition_for_key("21", 2, 7), (-973932308 & 0x7fffffff) % 7);
    ASSERT_EQ(gr_partition_for_key("foobar", 6, 3), (-790332482 & 0x7fffffff) % 3);
}

static void test_error_table(void) {
#define CHECK_ERR(name, code, str)                   \
    ASSERT_EQ(GR_ERR_##name, code);                  \
    ASSERT_STREQ(gr_err_name(GR_ERR_##name), #name); \
    ASSERT_STREQ(gr_err_str(GR_ERR_##name), str);
    GR_ERR_MAP(CHECK_ERR)
#undef CHECK_ERR
    ASSERT_STREQ(gr_version_str(), "0.1.0");
}

static void test_acl_names(void) {
    ASSERT_STREQ(gr_admin_acl_resource_type_name(GR_ACL_RESOURCE_TRANSACTIONAL_ID), "TRANSACTIONAL_ID");
    ASSERT_STREQ(gr_admin_acl_resource_type_name(7), "USER");
    ASSERT_STREQ(gr_admin_acl_resource_type_name(8), "UNKNOWN");
    ASSERT_STREQ(gr_admin_acl_pattern_type_name(GR_ACL_PATTERN_MATCH), "MATCH");
    ASSERT_STREQ(gr_admin_acl_pattern_type_name(-1), "UNKNOWN");
    ASSERT_STREQ(gr_admin_acl_operation_name(10), "DESCRIBE_CONFIGS");
    ASSERT_STREQ(gr_admin_acl_operation_name(15), "TWO_PHASE_COMMIT");
    ASSERT_STREQ(gr_admin_acl_operation_name(16), "UNKNOWN");
    ASSERT_STREQ(gr_admin_acl_permission_name(2), "DENY");
    ASSERT_STREQ(gr_admin_acl_permission_name(4), "UNKNOWN");
    ASSERT_EQ(gr_admin_acl_resource_type_code("group"), GR_ACL_RESOURCE_GROUP);
    ASSERT_EQ(gr_admin_acl_resource_type_code("Delegation_Token"), 6);
    ASSERT_EQ(gr_admin_acl_pattern_type_code("PREFIXED"), GR_ACL_PATTERN_PREFIXED);
    ASSERT_EQ(gr_admin_acl_pattern_type_code("pre-fixed"), 0);
    ASSERT_EQ(gr_admin_acl_operation_code("idempotent_write"), 12);
    ASSERT_EQ(gr_admin_acl_operation_code("IdempotentWrite"), 0);
    ASSERT_EQ(gr_admin_acl_operation_code("any"), 1);
    ASSERT_EQ(gr_admin_acl_permission_code("Allow"), 3);
    ASSERT_EQ(gr_admin_acl_permission_code(""), 0);
    ASSERT_EQ(gr_admin_acl_permission_code(NULL), 0);
}

int main(void) {
    RUN_TEST(test_defaults);
    RUN_TEST(test_set_valid);
    RUN_TEST(test_tls_conf);
    RUN_TEST(test_set_invalid);
    RUN_TEST(test_file_and_listing);
    RUN_TEST(test_constructors);
    RUN_TEST(test_murmur2);
    RUN_TEST(test_error_table);
    RUN_TEST(test_acl_names);
    return 0;
}
