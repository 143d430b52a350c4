/* ACL matching semantics (Kafka's StandardAuthorizer, filters, validation). */
#include <stdlib.h>
#include <unistd.h>

#include "auth/acl.h"
#include "auth/acl_file.h"
#include "testutil.h"

#define ANON "User:ANONYMOUS"
#define H    "127.0.0.1"

static gr_acl_binding_t B(int8_t rt, int8_t pt, const char *name, const char *pr, const char *host, int8_t op,
                          int8_t perm) {
    gr_acl_binding_t b = {rt, pt, name, pr, host, op, perm};
    return b;
}

static bool az(gr_acl_authz_t *a, int8_t op, int8_t rt, const char *name) {
    return gr_acl_authorize(a, ANON, H, op, rt, name);
}

static void test_basic_and_implied(void) {
    gr_acl_authz_t *a = gr_acl_authz_new(NULL, false);
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t")); /* no ACL, default deny */
    gr_acl_binding_t b = B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "t", ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_ALLOW);
    ASSERT(gr_acl_authz_add(a, &b));
    ASSERT(!gr_acl_authz_add(a, &b));
    ASSERT_EQ(gr_acl_authz_count(a), 1);
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t"));
    ASSERT(az(a, GR_ACL_OP_DESCRIBE, GR_ACL_RT_TOPIC, "t")); /* READ implies DESCRIBE */
    ASSERT(!az(a, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC, "t"));
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t2"));
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_GROUP, "t"));
    ASSERT(!gr_acl_authorize(a, "User:bob", H, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t"));
    ASSERT(!gr_acl_authorize(a, ANON, "10.0.0.1", GR_ACL_OP_DESCRIBE_CONFIGS, GR_ACL_RT_TOPIC, "t"));
    gr_acl_binding_t c =
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "c", ANON, H, GR_ACL_OP_ALTER_CONFIGS, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &c);
    ASSERT(az(a, GR_ACL_OP_DESCRIBE_CONFIGS, GR_ACL_RT_TOPIC, "c"));
    ASSERT(!az(a, GR_ACL_OP_DESCRIBE, GR_ACL_RT_TOPIC, "c")); /* ALTER_CONFIGS does not imply DESCRIBE */
    ASSERT(!gr_acl_authorize(a, ANON, "10.0.0.1", GR_ACL_OP_ALTER_CONFIGS, GR_ACL_RT_TOPIC, "c")); /* host */
    gr_acl_binding_t all = B(GR_ACL_RT_GROUP, GR_ACL_PT_LITERAL, "g", ANON, "*", GR_ACL_OP_ALL, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &all);
    ASSERT(az(a, GR_ACL_OP_DELETE, GR_ACL_RT_GROUP, "g"));
    ASSERT(gr_acl_authz_remove(a, &b));
    ASSERT(!gr_acl_authz_remove(a, &b));
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t"));
    ASSERT_EQ(gr_acl_authz_count(a), 2);
    gr_acl_authz_free(a);
}

static void test_deny_wins_and_wildcards(void) {
    gr_acl_authz_t *a = gr_acl_authz_new("User:admin; User:root ;", false);
    gr_acl_binding_t acls[] = {
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "*", "User:*", "*", GR_ACL_OP_ALL, GR_ACL_PERM_ALLOW),
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "sec", ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_DENY),
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "x", ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_DENY),
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "d", ANON, "*", GR_ACL_OP_DESCRIBE, GR_ACL_PERM_DENY),
    };
    for (size_t i = 0; i < sizeof(acls) / sizeof(acls[0]); i++) ASSERT(gr_acl_authz_add(a, &acls[i]));
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "anything"));
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "secret"));
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "sec"));
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "se"));
    ASSERT(az(a, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC, "secret"));    /* DENY READ is not DENY WRITE */
    ASSERT(az(a, GR_ACL_OP_DESCRIBE, GR_ACL_RT_TOPIC, "secret")); /* a DENY READ does not imply DENY DESCRIBE */
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "x"));
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "xy"));
    ASSERT(!az(a, GR_ACL_OP_DESCRIBE, GR_ACL_RT_TOPIC, "data"));
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "data")); /* DESCRIBE denied, READ still allowed */
    ASSERT(gr_acl_authorize(a, "User:bob", H, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "secret"));
    ASSERT(gr_acl_authorize(a, "User:admin", H, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "secret")); /* super */
    ASSERT(gr_acl_authorize(a, "User:root", H, GR_ACL_OP_ALTER, GR_ACL_RT_CLUSTER, "kafka-cluster"));
    ASSERT(!gr_acl_is_super(a, "User:roo"));
    ASSERT(!gr_acl_is_super(a, ""));
    gr_acl_authz_free(a);
}

static void test_allow_if_no_acl(void) {
    gr_acl_authz_t *a = gr_acl_authz_new("", true);
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t"));
    /* An ACL for someone else on a matching pattern: the resource has ACLs, so denied. */
    gr_acl_binding_t b =
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "t", "User:bob", "*", GR_ACL_OP_WRITE, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &b);
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "t1"));
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "u"));
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_GROUP, "t1"));
    gr_acl_authz_free(a);
}

static void test_by_type(void) {
    gr_acl_authz_t *a = gr_acl_authz_new(NULL, false);
    ASSERT(!gr_acl_authorize_any(a, ANON, H, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC));
    gr_acl_binding_t w = B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "abc", ANON, "*", GR_ACL_OP_WRITE, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &w);
    ASSERT(gr_acl_authorize_any(a, ANON, H, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC));
    ASSERT(!gr_acl_authorize_any(a, ANON, H, GR_ACL_OP_READ, GR_ACL_RT_TOPIC));
    gr_acl_binding_t d = B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "ab", ANON, "*", GR_ACL_OP_WRITE, GR_ACL_PERM_DENY);
    gr_acl_authz_add(a, &d);
    ASSERT(!gr_acl_authorize_any(a, ANON, H, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC)); /* dominated */
    gr_acl_authz_remove(a, &d);
    gr_acl_binding_t dl = B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "abc", ANON, "*", GR_ACL_OP_ALL, GR_ACL_PERM_DENY);
    gr_acl_authz_add(a, &dl);
    ASSERT(!gr_acl_authorize_any(a, ANON, H, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC));
    gr_acl_binding_t p = B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "z", "User:*", H, GR_ACL_OP_WRITE, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &p);
    ASSERT(gr_acl_authorize_any(a, ANON, H, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC));
    ASSERT(!gr_acl_authorize_any(a, ANON, "10.1.1.1", GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC));
    gr_acl_authz_free(a);
}

static void test_filters_and_validation(void) {
    gr_acl_binding_t lit = B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "foo", ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_ALLOW);
    gr_acl_binding_t star = B(GR_ACL_RT_TOPIC, GR_ACL_PT_LITERAL, "*", ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_ALLOW);
    gr_acl_binding_t pre = B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "fo", ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_DENY);
    gr_acl_filter_t any = {GR_ACL_RT_ANY, GR_ACL_PT_ANY, NULL, NULL, NULL, GR_ACL_OP_ANY, GR_ACL_PERM_ANY};
    ASSERT(gr_acl_filter_matches(&any, &lit) && gr_acl_filter_matches(&any, &pre));
    gr_acl_filter_t m = {GR_ACL_RT_TOPIC, GR_ACL_PT_MATCH, "foo", NULL, NULL, GR_ACL_OP_ANY, GR_ACL_PERM_ANY};
    ASSERT(gr_acl_filter_matches(&m, &lit) && gr_acl_filter_matches(&m, &star) && gr_acl_filter_matches(&m, &pre));
    m.name = "f";
    ASSERT(!gr_acl_filter_matches(&m, &lit) && gr_acl_filter_matches(&m, &star) && !gr_acl_filter_matches(&m, &pre));
    gr_acl_filter_t an = {GR_ACL_RT_TOPIC, GR_ACL_PT_ANY, "foo", NULL, NULL, GR_ACL_OP_ANY, GR_ACL_PERM_ANY};
    ASSERT(gr_acl_filter_matches(&an, &lit) && !gr_acl_filter_matches(&an, &star) && !gr_acl_filter_matches(&an, &pre));
    gr_acl_filter_t pf = {GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, NULL, ANON, "*", GR_ACL_OP_READ, GR_ACL_PERM_DENY};
    ASSERT(!gr_acl_filter_matches(&pf, &lit) && gr_acl_filter_matches(&pf, &pre));
    pf.op = GR_ACL_OP_WRITE;
    ASSERT(!gr_acl_filter_matches(&pf, &pre));
    pf.op = GR_ACL_OP_READ;
    pf.host = H;
    ASSERT(!gr_acl_filter_matches(&pf, &pre));
    char msg[256];
    ASSERT_EQ(gr_acl_validate_new(&lit, msg, sizeof(msg)), 0);
    gr_acl_binding_t bad = lit;
    bad.ptype = GR_ACL_PT_MATCH;
    ASSERT_EQ(gr_acl_validate_new(&bad, msg, sizeof(msg)), GR_ERR_UNKNOWN_SERVER_ERROR);
    ASSERT_STREQ(msg, "");
    bad = lit;
    bad.op = 99;
    ASSERT_EQ(gr_acl_validate_new(&bad, msg, sizeof(msg)), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(msg, "Invalid operation UNKNOWN");
    bad = lit;
    bad.rtype = GR_ACL_RT_ANY;
    ASSERT_EQ(gr_acl_validate_new(&bad, msg, sizeof(msg)), GR_ERR_UNKNOWN_SERVER_ERROR);
    bad = lit;
    bad.rtype = 42;
    gr_acl_validate_new(&bad, msg, sizeof(msg));
    ASSERT_STREQ(msg, "Invalid resourceType UNKNOWN");
    bad = lit;
    bad.rtype = GR_ACL_RT_CLUSTER;
    gr_acl_validate_new(&bad, msg, sizeof(msg));
    ASSERT_STREQ(msg, "The only valid name for the CLUSTER resource is kafka-cluster");
    bad = lit;
    bad.perm = 0;
    gr_acl_validate_new(&bad, msg, sizeof(msg));
    ASSERT_STREQ(msg, "Invalid permissionType UNKNOWN");
    bad = lit;
    bad.name = "";
    gr_acl_validate_new(&bad, msg, sizeof(msg));
    ASSERT_STREQ(msg, "Invalid empty resource name");
    gr_acl_filter_t uf = any;
    uf.ptype = 9;
    ASSERT_EQ(gr_acl_validate_filter(&uf, msg, sizeof(msg)), GR_ERR_INVALID_REQUEST);
    ASSERT_STREQ(msg, "Unknown patternFilter.");
    uf = any;
    uf.perm = 0;
    gr_acl_validate_filter(&uf, msg, sizeof(msg));
    ASSERT_STREQ(msg, "Unknown entryFilter.");
    ASSERT_STREQ(gr_acl_op_name(GR_ACL_OP_IDEMPOTENT_WRITE), "IDEMPOTENT_WRITE");
    ASSERT_STREQ(gr_acl_rtype_name(GR_ACL_RT_TRANSACTIONAL_ID), "TRANSACTIONAL_ID");
}

/* Many prefixed patterns of different lengths: the prefix-length index finds each. */
static void test_prefix_index(void) {
    gr_acl_authz_t *a = gr_acl_authz_new(NULL, false);
    char name[64];
    for (int i = 1; i <= 40; i++) {
        snprintf(name, sizeof(name), "%.*s", i, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
        gr_acl_binding_t b =
            B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, name, "User:u", "*", GR_ACL_OP_READ, GR_ACL_PERM_ALLOW);
        ASSERT(gr_acl_authz_add(a, &b));
    }
    gr_acl_binding_t mine = B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "abcdefghijklmnopqrstuvwxyzabcd", ANON, "*",
                              GR_ACL_OP_READ, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &mine);
    ASSERT(az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "abcdefghijklmnopqrstuvwxyzabcdXYZ"));
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "abcdefghijklmnopqrstuvwxyzabc"));
    gr_acl_authz_remove(a, &mine);
    ASSERT(!az(a, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "abcdefghijklmnopqrstuvwxyzabcdXYZ"));
    ASSERT_EQ(gr_acl_authz_count(a), 40);
    gr_acl_authz_free(a);
}

/* The ACL file: save, load back, and refuse damaged or truncated files. */
static void test_file(void) {
    char dir[] = "/tmp/gregor-test-acl-XXXXXX";
    ASSERT(mkdtemp(dir));
    gr_acl_authz_t *a = gr_acl_authz_new(NULL, false);
    gr_acl_binding_t b1 =
        B(GR_ACL_RT_TOPIC, GR_ACL_PT_PREFIXED, "a b%c", "User:x y", "*", GR_ACL_OP_READ, GR_ACL_PERM_DENY);
    gr_acl_binding_t b2 = B(GR_ACL_RT_GROUP, GR_ACL_PT_LITERAL, "g", ANON, "::1", GR_ACL_OP_ALL, GR_ACL_PERM_ALLOW);
    gr_acl_authz_add(a, &b1);
    gr_acl_authz_add(a, &b2);
    char err[512];
    ASSERT_EQ(gr_acl_file_save(a, dir, err, sizeof(err)), 0);
    gr_acl_authz_t *r = gr_acl_authz_new(NULL, false);
    ASSERT_EQ(gr_acl_file_load(r, dir, err, sizeof(err)), 0);
    ASSERT_EQ(gr_acl_authz_count(r), 2);
    ASSERT(!gr_acl_authz_add(r, &b1) && !gr_acl_authz_add(r, &b2)); /* both came back equal */
    ASSERT(!gr_acl_authorize(r, "User:x y", H, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, "a b%cde"));
    const char *bad[] = {"acl 2 3 3 3 zz 2a 74\nend 1\n", "acl 2 3 3 3 557365723a78 2a 74\n",
                         "acl 2 3 3 3 557365723a78 2a 74\nend 2\n", "acl 2 2 3 3 557365723a78 2a 74\nend 1\n",
                         "end 0\nacl 2 3 3 3 557365723a78 2a 74\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gr_acl_authz_t *x = gr_acl_authz_new(NULL, false);
        ASSERT_EQ(gr_acl_file_parse(x, bad[i], strlen(bad[i]), "t", err, sizeof(err)), GR_ERR__MALFORMED);
        gr_acl_authz_free(x);
    }
    gr_acl_authz_t *e = gr_acl_authz_new(NULL, false);
    ASSERT_EQ(gr_acl_file_load(e, "/nonexistent-dir-gregor", err, sizeof(err)), 0); /* no file: no ACLs */
    ASSERT_EQ(gr_acl_authz_count(e), 0);
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, GR_ACL_FILE_NAME);
    unlink(path);
    rmdir(dir);
    gr_acl_authz_free(e);
    gr_acl_authz_free(r);
    gr_acl_authz_free(a);
}

int main(void) {
    test_file();
    test_basic_and_implied();
    test_deny_wins_and_wildcards();
    test_allow_if_no_acl();
    test_by_type();
    test_filters_and_validation();
    test_prefix_index();
    printf("test_acl ok\n");
    return 0;
}
