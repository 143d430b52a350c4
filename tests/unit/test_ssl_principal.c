/* Unit tests for src/auth/ssl_principal (ssl.principal.mapping.rules, Kafka's
 * SslPrincipalMapper semantics; expected values follow Kafka's SslPrincipalMapperTest). */
#include <stdlib.h>

#include "auth/ssl_principal.h"
#include "testutil.h"

static char g_err[512];

static const char *map(const char *rules, const char *dn) {
    static char out[256];
    gr_ssl_rules_t *r = NULL;
    ASSERT_EQ(gr_ssl_rules_parse(rules, &r, g_err, sizeof(g_err)), GR_ERR_NONE);
    bool ok = gr_ssl_rules_map(r, dn, out, sizeof(out), g_err, sizeof(g_err));
    gr_ssl_rules_free(r);
    return ok ? out : NULL;
}

static void bad(const char *rules, const char *want_err) {
    gr_ssl_rules_t *r = NULL;
    ASSERT_EQ(gr_ssl_rules_parse(rules, &r, g_err, sizeof(g_err)), GR_ERR__INVALID_ARG);
    ASSERT_STREQ(g_err, want_err);
}

static void test_default(void) {
    ASSERT_STREQ(map(NULL, "CN=client,O=Gregor"), "CN=client,O=Gregor");
    ASSERT_STREQ(map("DEFAULT", "CN=a"), "CN=a");
    ASSERT_STREQ(map("  DEFAULT  ", "CN=a"), "CN=a");
}

static void test_rules(void) {
    const char *rules =
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/"
        "$1@$2/L,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U,DEFAULT";
    ASSERT_STREQ(map(rules, "CN=Duke,OU=ServiceUsers,O=Org,C=US"), "Duke");
    ASSERT_STREQ(map(rules, "CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"), "duke@sme");
    ASSERT_STREQ(map(rules, "cn=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
    ASSERT_STREQ(map(rules, "OU=JavaSoft,O=Sun Microsystems,C=US"), "OU=JavaSoft,O=Sun Microsystems,C=US");
    /* A pattern that does not match the whole name does not apply. */
    ASSERT(map("RULE:CN=a/x/", "CN=ab") == NULL);
    ASSERT_STREQ(g_err, "No rules apply to CN=ab");
    /* replaceAll: every match is replaced once the whole name matched. */
    ASSERT_STREQ(map("RULE:(a|b)+/x/", "ab"), "x");
    ASSERT_STREQ(map("RULE:CN=([^,]*).*/\\$$1\\//", "CN=z,O=y"), "$z/");
    /* Escaped slash inside a pattern, and spaces around rules. */
    ASSERT_STREQ(map(" RULE:^CN=(.*)\\/(.*)$/$2/ , DEFAULT ", "CN=a/b"), "b");
    /* No rules at all: nothing applies. */
    ASSERT(map("", "CN=a") == NULL);
}

static void test_invalid(void) {
    bad("DEFAULTX", "Invalid rule: `DEFAULTX`, unmatched substring: `X`");
    bad("RULE:a/b/Lx", "Invalid rule: `RULE:a/b/Lx`, unmatched substring: `x`");
    bad("DEFAULT,foo", "Invalid rule: `foo`, unmatched substring: `foo`");
    bad("RULE:abc", "Invalid rule: `RULE:abc`, unmatched substring: `RULE:abc`");
    gr_ssl_rules_t *r = NULL;
    ASSERT_EQ(gr_ssl_rules_parse("RULE:(/x/", &r, g_err, sizeof(g_err)), GR_ERR__INVALID_ARG);
    ASSERT(strstr(g_err, "bad pattern") != NULL);
}

static void test_too_long(void) {
    gr_ssl_rules_t *r = NULL;
    char out[4];
    ASSERT_EQ(gr_ssl_rules_parse("DEFAULT", &r, g_err, sizeof(g_err)), GR_ERR_NONE);
    ASSERT(!gr_ssl_rules_map(r, "CN=abc", out, sizeof(out), g_err, sizeof(g_err)));
    ASSERT(gr_ssl_rules_map(r, "CN=", out, sizeof(out), g_err, sizeof(g_err)));
    ASSERT_STREQ(out, "CN=");
    gr_ssl_rules_free(r);
}

int main(void) {
    RUN_TEST(test_default);
    RUN_TEST(test_rules);
    RUN_TEST(test_invalid);
    RUN_TEST(test_too_long);
    return 0;
}
