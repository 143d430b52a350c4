/* cli_java_double against Java 17's Double.toString (values printed by a JVM),
 * cli_java_parse_double against Double.parseDouble's grammar, and java_hash.c's HashMap
 * order against what kafka-configs 4.4.0 printed. */
#include <math.h>
#include <string.h>

#include "../../src/cli/java_double.h"
#include "../../src/cli/java_hash.h"
#include "testutil.h"

static void test_parse(void) {
    static const struct {
        const char *s;
        double v;
    } good[] = {{"5", 5},     {" 5 ", 5},       {"5d", 5},           {"1.5f", 1.5},
                {"1e9", 1e9}, {".5", 0.5},      {"5.", 5},           {"-2", -2},
                {"+3", 3},    {"0x1.8p3", 12},  {"0X10P0", 16},      {"1E-3", 1e-3},
                {"\t7\n", 7}, {"2.5e+2D", 250}, {"1e400", HUGE_VAL}, {"-Infinity", -HUGE_VAL}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double v = -1;
        ASSERT(cli_java_parse_double(good[i].s, &v));
        ASSERT(v == good[i].v);
    }
    double v;
    ASSERT(cli_java_parse_double("NaN", &v) && isnan(v));
    ASSERT(cli_java_parse_double("-NaN", &v) && isnan(v));
    static const char *const bad[] = {"",    "  ",  "abc",       "0x10", "1e",  "e5",  "1.5x",  "5dd", ".", "1,000",
                                      "inf", "nan", "Infinity5", "0x",   "--1", "1 2", "0x.p1", "1e+", "d", "+"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) ASSERT(!cli_java_parse_double(bad[i], &v));
    srand(11); /* garbage from the grammar's own characters: no crash; no blank inside a number */
    for (int round = 0; round < 20000; round++) {
        static const char alpha[] = "0123456789.eE+-xXpPdDfNaI \t";
        char s[24];
        size_t len = (size_t)(rand() % 23);
        for (size_t i = 0; i < len; i++) s[i] = alpha[rand() % (int)(sizeof(alpha) - 1)];
        s[len] = 0;
        if (!cli_java_parse_double(s, &v)) continue;
        const char *p = s + strspn(s, " \t");
        size_t body = strcspn(p, " \t");
        ASSERT(body > 0 && strspn(p + body, " \t") == strlen(p + body));
    }
}

/* Orders kafka-configs 4.4.0 printed (Admin.describeClientQuotas fills HashMaps sized to
 * the response: entities keyed by ClientQuotaEntity, whose hashCode is 31 + the entries
 * map's; quota values keyed by name). */
static void test_hash_order(void) {
    ASSERT_EQ(cli_java_string_hash("a"), 97);
    ASSERT_EQ(cli_java_string_hash("\xc3\xa9t\xc3\xa9"), 227742); /* "été" */
    static const char *const users[] = {"alice", "bob", "carol", "dave", "erin", "frank"};
    static const size_t user_order[] = {4, 1, 5, 0, 3, 2}; /* erin bob frank alice dave carol */
    int32_t h[9];
    size_t idx[9];
    for (size_t i = 0; i < 6; i++)
        h[i] = (int32_t)(31u + (uint32_t)(cli_java_string_hash("user") ^ cli_java_string_hash(users[i])));
    ASSERT(cli_java_hashmap_order(h, 6, 6, idx));
    for (size_t i = 0; i < 6; i++) ASSERT_EQ(idx[i], user_order[i]);
    static const char *const keys[] = {"consumer_byte_rate", "controller_mutation_rate", "producer_byte_rate",
                                       "request_percentage"};
    static const size_t key_order[] = {2, 0, 1, 3}; /* producer consumer controller request */
    for (size_t i = 0; i < 4; i++) h[i] = cli_java_string_hash(keys[i]);
    ASSERT(cli_java_hashmap_order(h, 4, 4, idx));
    for (size_t i = 0; i < 4; i++) ASSERT_EQ(idx[i], key_order[i]);
    /* 9 keys in one bucket of a 16-slot table: treeifyBin doubles it to 32 instead */
    static const size_t tree_order[] = {0, 2, 4, 6, 8, 1, 3, 5, 7};
    for (size_t i = 0; i < 9; i++) h[i] = (int32_t)(16 * i);
    ASSERT(cli_java_hashmap_order(h, 9, 0, idx));
    for (size_t i = 0; i < 9; i++) ASSERT_EQ(idx[i], tree_order[i]);
    ASSERT(cli_java_hashmap_order(h, 8, 0, idx)); /* 8 stay in one bucket */
    for (size_t i = 0; i < 8; i++) ASSERT_EQ(idx[i], i);
}

int main(void) {
    test_parse();
    test_hash_order();
    static const struct {
        double v;
        const char *java;
    } cases[] = {{100, "100.0"},
                 {2e7, "2.0E7"},
                 {50.5, "50.5"},
                 {1e9, "1.0E9"},
                 {0.001, "0.001"},
                 {1e-4, "1.0E-4"},
                 {9999999.0, "9999999.0"},
                 {1e7, "1.0E7"},
                 {123456.789, "123456.789"},
                 {-5, "-5.0"},
                 {0.0, "0.0"},
                 {1.5e-4, "1.5E-4"},
                 {3.14, "3.14"},
                 {12345678.9, "1.23456789E7"},
                 {0.1, "0.1"},
                 {1.0 / 3, "0.3333333333333333"},
                 {1e300, "1.0E300"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[64];
        cli_java_double(cases[i].v, out, sizeof(out));
        ASSERT_STREQ(out, cases[i].java);
    }
    char small[4];
    cli_java_double(12345.5, small, sizeof(small)); /* cut short, still terminated */
    ASSERT_STREQ(small, "123");
    char special[16];
    cli_java_double(NAN, special, sizeof(special));
    ASSERT_STREQ(special, "NaN");
    cli_java_double(-HUGE_VAL, special, sizeof(special));
    ASSERT_STREQ(special, "-Infinity");
    return 0;
}
