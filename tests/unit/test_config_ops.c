/* The --add-config list of gregor configs (src/cli/config_ops.c), against what
 * kafka-configs 4.4.0 accepts and refuses: the quota list of five keys, bracketed list
 * values, blanks, empty pieces, keys with bad characters, and garbage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/config_ops.h"
#include "testutil.h"

static int parse(const char *in, char **k, char **v, size_t max, const char **bad) {
    static char buf[512];
    snprintf(buf, sizeof(buf), "%s", in);
    return cli_parse_add_config(buf, k, v, max, bad);
}

static void test_quota_list(void) {
    static const char *const keys[] = {"producer_byte_rate", "consumer_byte_rate", "request_percentage",
                                       "controller_mutation_rate", "connection_creation_rate"};
    static const char *const vals[] = {"1024", "2048", "50", "10", "5"};
    char *k[8], *v[8];
    const char *bad = NULL;
    ASSERT_EQ(parse("producer_byte_rate=1024,consumer_byte_rate=2048,request_percentage=50,"
                    "controller_mutation_rate=10,connection_creation_rate=5",
                    k, v, 8, &bad),
              5);
    for (size_t i = 0; i < 5; i++) {
        ASSERT_STREQ(k[i], keys[i]);
        ASSERT_STREQ(v[i], vals[i]);
    }
}

static void test_accepted(void) {
    char *k[8], *v[8];
    const char *bad = NULL;
    ASSERT_EQ(parse(" a = 1 ,b=[x,y],c=[z],d=,e=[p=q]", k, v, 8, &bad), 5);
    ASSERT_STREQ(k[0], "a");
    ASSERT_STREQ(v[0], "1");
    ASSERT_STREQ(k[1], "b");
    ASSERT_STREQ(v[1], "x,y");
    ASSERT_STREQ(k[2], "c");
    ASSERT_STREQ(v[2], "z");
    ASSERT_STREQ(k[3], "d");
    ASSERT_STREQ(v[3], "");
    ASSERT_STREQ(k[4], "e");
    ASSERT_STREQ(v[4], "p=q");                     /* an '=' inside brackets is the value's */
    ASSERT_EQ(parse("a=1,a=2", k, v, 8, &bad), 1); /* the last value wins */
    ASSERT_STREQ(v[0], "2");
    ASSERT_EQ(parse("a=1,,", k, v, 8, &bad), 1); /* trailing empty pieces go, as in Java's split */
    ASSERT_EQ(parse("a=[1]2]", k, v, 8, &bad), 1);
    ASSERT_STREQ(v[0], "12"); /* every bracket of a value goes */
    ASSERT_EQ(parse("$x.y_z-1=5", k, v, 8, &bad), 1);
}

static void test_refused(void) {
    char *k[8], *v[8];
    const char *bad = NULL;
    static const char *const format[] = {"", "a", "a=1=2", "a=1,,b=2", ",a=1", "a==1", "a=1,b", "=", " "};
    for (size_t i = 0; i < sizeof(format) / sizeof(format[0]); i++) {
        int r = parse(format[i], k, v, 8, &bad);
        if (!strcmp(format[i], "=")) {
            ASSERT_EQ(r, 1); /* Kafka takes "=" as the empty key, refused later by name */
            continue;
        }
        ASSERT_EQ(r, CLI_CONFIG_BAD_FORMAT);
    }
    ASSERT_EQ(parse("a b=1", k, v, 8, &bad), CLI_CONFIG_BAD_KEY);
    ASSERT_STREQ(bad, "a b");
    ASSERT_EQ(parse("a=1,b=2,c=3", k, v, 2, &bad), CLI_CONFIG_TOO_MANY);
}

/* Random bytes from a fixed seed: the pairs point into the input, no crash. */
static void test_garbage(void) {
    srand(7);
    for (int round = 0; round < 20000; round++) {
        static const char alpha[] = "a=,[] \x01\xff";
        char s[64], *k[16], *v[16];
        const char *bad = NULL;
        size_t len = (size_t)(rand() % 63);
        for (size_t i = 0; i < len; i++) s[i] = alpha[rand() % (int)(sizeof(alpha) - 1)];
        s[len] = 0;
        int n = cli_parse_add_config(s, k, v, 16, &bad);
        ASSERT(n >= CLI_CONFIG_TOO_MANY && n <= 16);
        for (int i = 0; i < n; i++) ASSERT(k[i] >= s && k[i] <= s + len && v[i] >= s && v[i] <= s + len);
        if (n == CLI_CONFIG_BAD_KEY) ASSERT(bad >= s && bad <= s + len);
    }
}

static void test_file_item(void) {
    char item[] = "k=[a,b]", nokey[] = "=5", noeq[] = "x", *k, *v;
    ASSERT(cli_config_kv(item, &k, &v) && !strcmp(k, "k") && !strcmp(v, "a,b"));
    ASSERT(!cli_config_kv(nokey, &k, &v) && !strcmp(nokey, "=5"));
    ASSERT(!cli_config_kv(noeq, &k, &v));
}

int main(void) {
    test_quota_list();
    test_accepted();
    test_refused();
    test_garbage();
    test_file_item();
    printf("test_config_ops: ok\n");
    return 0;
}
