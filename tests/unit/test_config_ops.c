/* The --add-config list of gregor configs (src/cli/config_ops.c): the quota list of
 * kafka-configs' examples, bracketed list values, blanks, bad items, and garbage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/config_ops.h"
#include "testutil.h"

static void test_quota_list(void) {
    char s[] = "producer_byte_rate=1024,consumer_byte_rate=2048,request_percentage=50,"
               "controller_mutation_rate=10,connection_creation_rate=5";
    static const char *const keys[] = {"producer_byte_rate", "consumer_byte_rate", "request_percentage",
                                       "controller_mutation_rate", "connection_creation_rate"};
    static const char *const vals[] = {"1024", "2048", "50", "10", "5"};
    char *items[8];
    ASSERT_EQ(cli_split_configs(s, items, 8), 5);
    for (size_t i = 0; i < 5; i++) {
        char *k, *v;
        ASSERT(cli_config_kv(items[i], &k, &v));
        ASSERT_STREQ(k, keys[i]);
        ASSERT_STREQ(v, vals[i]);
    }
}

static void test_forms(void) {
    char s[] = " a=1 ,, b=[x,y],c=[z],d= ,e=f=g,[k=1,2],";
    char *items[8], *k, *v;
    ASSERT_EQ(cli_split_configs(s, items, 8), 6);
    ASSERT(cli_config_kv(items[0], &k, &v) && !strcmp(k, "a") && !strcmp(v, "1"));
    ASSERT(cli_config_kv(items[1], &k, &v) && !strcmp(k, "b") && !strcmp(v, "x,y"));
    ASSERT(cli_config_kv(items[2], &k, &v) && !strcmp(k, "c") && !strcmp(v, "z"));
    ASSERT(cli_config_kv(items[3], &k, &v) && !strcmp(k, "d") && !strcmp(v, ""));
    ASSERT(cli_config_kv(items[4], &k, &v) && !strcmp(k, "e") && !strcmp(v, "f=g"));
    ASSERT_STREQ(items[5], "[k=1,2]"); /* a bracket keeps the comma; the key is "[k" */
    char nokey[] = "=5", noeq[] = "producer_byte_rate";
    ASSERT(!cli_config_kv(nokey, &k, &v) && !strcmp(nokey, "=5"));
    ASSERT(!cli_config_kv(noeq, &k, &v));
    char many[] = "a=1,b=2,c=3";
    ASSERT_EQ(cli_split_configs(many, items, 2), 2); /* at most max */
    char empty[] = "", blanks[] = " , ";
    ASSERT_EQ(cli_split_configs(empty, items, 8), 0);
    ASSERT_EQ(cli_split_configs(blanks, items, 8), 0);
    char unbalanced[] = "a=]],b=[[1,c=2";
    ASSERT_EQ(cli_split_configs(unbalanced, items, 8), 2);
    ASSERT_STREQ(items[1], "b=[[1,c=2");
}

/* Random bytes from a fixed seed: every item is a string inside the input, no crash. */
static void test_garbage(void) {
    srand(7);
    for (int round = 0; round < 20000; round++) {
        char s[64], *items[16], *k, *v;
        size_t len = (size_t)(rand() % 63);
        static const char alpha[] = "a=,[] \x01\xff";
        for (size_t i = 0; i < len; i++) s[i] = alpha[rand() % (int)(sizeof(alpha) - 1)];
        s[len] = 0;
        size_t n = cli_split_configs(s, items, 16);
        ASSERT(n <= 16);
        for (size_t i = 0; i < n; i++) {
            ASSERT(items[i] >= s && items[i] < s + sizeof(s));
            if (cli_config_kv(items[i], &k, &v)) ASSERT(*k && v > k && v <= s + len);
        }
    }
}

int main(void) {
    test_quota_list();
    test_forms();
    test_garbage();
    printf("test_config_ops: ok\n");
    return 0;
}
