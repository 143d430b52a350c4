/* src/auth/jaas.c: Kafka's JAAS config text (StreamTokenizer rules, JaasConfig messages). */
#include <string.h>

#include "auth/jaas.h"
#include "testutil.h"

static gr_err_t parse(const char *t, gr_jaas_t *j, char *err) { return gr_jaas_parse(t, strlen(t), j, err, 256); }

static void expect_error(const char *text, const char *msg) {
    gr_jaas_t j;
    char err[256];
    ASSERT_EQ(parse(text, &j, err), GR_ERR__INVALID_ARG);
    ASSERT_STREQ(err, msg);
    ASSERT_EQ(j.n, 0);
}

static void test_plain_users(void) {
    gr_jaas_t j;
    char err[256];
    ASSERT_EQ(parse("org.apache.kafka.common.security.plain.PlainLoginModule required\n"
                    "  username=\"admin\" password=\"admin-secret\"\n"
                    "  user_admin=\"admin-secret\" user_alice='al\\\"ice' user_$x-y_1=plainword;",
                    &j, err),
              0);
    ASSERT_EQ(j.n, 1);
    ASSERT_STREQ(j.entries[0].login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
    ASSERT_EQ(j.entries[0].flag, GR_JAAS_REQUIRED);
    ASSERT_EQ(j.entries[0].n_opts, 5);
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "user_admin"), "admin-secret");
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "user_alice"), "al\"ice");
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "user_$x-y_1"), "plainword");
    ASSERT(gr_jaas_option(&j.entries[0], "user_bob") == NULL);
    gr_jaas_free(&j);
}

static void test_tokens(void) {
    gr_jaas_t j;
    char err[256];
    /* comments, escapes, case-insensitive flag, a repeated key (last wins), two entries */
    ASSERT_EQ(parse("// line comment\n a.B Optional /* block\n comment */ k=\"x\\ty\\101\\z\" k2=\"\" k=\"last\";"
                    " second.Module SUFFICIENT;",
                    &j, err),
              0);
    ASSERT_EQ(j.n, 2);
    ASSERT_EQ(j.entries[0].flag, GR_JAAS_OPTIONAL);
    ASSERT_EQ(j.entries[0].n_opts, 2);
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "k"), "last");
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "k2"), "");
    ASSERT_STREQ(j.entries[1].login_module, "second.Module");
    ASSERT_EQ(j.entries[1].flag, GR_JAAS_SUFFICIENT);
    gr_jaas_free(&j);
    ASSERT_EQ(parse("m requisite k=\"x\\ty\\101\\z\";", &j, err), 0);
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "k"), "x\tyAz");
    gr_jaas_free(&j);
    /* a quote ends at the end of its line; a lone '/' comments out the rest of the line */
    ASSERT_EQ(parse("m required k=\"open\n; / k2=v\n", &j, err), 0);
    ASSERT_STREQ(gr_jaas_option(&j.entries[0], "k"), "open");
    ASSERT_EQ(j.entries[0].n_opts, 1);
    gr_jaas_free(&j);
}

static void test_errors(void) {
    expect_error("", "Login module not specified in JAAS config");
    expect_error("   // nothing\n", "Login module not specified in JAAS config");
    expect_error("m", "Login module control flag not specified in JAAS config");
    expect_error("m mandatory;", "Invalid login module control flag 'mandatory' in JAAS config");
    expect_error("m required k=v", "JAAS config entry not terminated by semi-colon");
    expect_error("m required k;", "Value not specified for key 'k' in JAAS config");
    expect_error("m required k=;", "Value not specified for key 'k' in JAAS config");
    expect_error("m required k=123;", "Value not specified for key 'k' in JAAS config"); /* a number */
    expect_error("m required k=-x;", "Value not specified for key 'k' in JAAS config");  /* '-' then a word */
    expect_error("m required k=\"v\"; m2", "Login module control flag not specified in JAAS config");
}

int main(void) {
    RUN_TEST(test_plain_users);
    RUN_TEST(test_tokens);
    RUN_TEST(test_errors);
    return 0;
}
