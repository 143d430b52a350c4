/* Unit tests for src/cli/cg_plan (the pure part of `gregor consumer-groups --reset-offsets`):
 * --topic arguments, --to-datetime as Kafka's Utils.getDateTime, the --from-file CSV plan, the
 * --export CSV fields, and Java's hash codes and HashMap order. The expected hash codes, orders and
 * timestamps are what Java 17 with kafka-clients 4.4.0 answers for the same inputs. */
#include <stdlib.h>

#include "cli/cg_plan.h"
#include "testutil.h"

static void test_topic_arg(void) {
    char t[64], err[256];
    int32_t p[8];
    size_t n;
    bool whole;
    ASSERT(cg_parse_topic_arg("orders", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT(whole && n == 0);
    ASSERT_STREQ(t, "orders");
    ASSERT(cg_parse_topic_arg("orders:0,2,-1", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT(!whole && n == 3 && p[0] == 0 && p[1] == 2 && p[2] == -1);
    ASSERT_STREQ(t, "orders");
    ASSERT(
        cg_parse_topic_arg("o:1,", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err))); /* split drops "" at the end */
    ASSERT_EQ(n, 1);
    ASSERT(cg_parse_topic_arg("o:1:", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT(!cg_parse_topic_arg("o:", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT_STREQ(err, "Invalid topic arg 'o:', expected topic name and partitions");
    ASSERT(!cg_parse_topic_arg("o:1:2", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT(!cg_parse_topic_arg("o:1,,2", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT_STREQ(err, "Invalid partition '' specified in topic arg 'o:1,,2''");
    ASSERT(!cg_parse_topic_arg("o:x", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT_STREQ(err, "Invalid partition 'x' specified in topic arg 'o:x''");
    ASSERT(!cg_parse_topic_arg("o:2147483648", t, sizeof(t), p, 8, &n, &whole, err, sizeof(err)));
    ASSERT(!cg_parse_topic_arg("o:0,1,2", t, sizeof(t), p, 2, &n, &whole, err, sizeof(err))); /* bounded */
}

static void test_datetime(void) {
    static const struct {
        const char *in;
        int64_t ms; /* -1: Kafka throws */
    } cases[] = {
        {"2020-01-01T00:00:00.000", 1577836800000LL},
        {"2020-01-01T00:00:00.000Z", 1577836800000LL},
        {"2024-02-29T12:34:56.789+01:00", 1709206496789LL},
        {"2024-02-29T12:34:56.789-0530", 1709228096789LL},
        {"2024-02-29T12:34:56.789+02", 1709202896789LL},
        {"2021-02-29T00:00:00.000", -1},
        {"2020-01-01T00:00:00", -1},
        {"2020-01-01T24:00:00.000", -1},
        {"2020-01-01T00:00:00.5", 1577836800005LL},
        {"2020-01-01T00:00:00.000Zjunk", 1577836800000LL},
        {"2020-1-1T1:2:3.4", 1577840523004LL},
        {"1970-01-01T00:00:00.000-00:30", 1800000LL},
        {"2020-01-01", -1},
        {"T", -1},
        {"", -1},
    };
    char err[256];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t ms = -7;
        bool ok = cg_parse_datetime(cases[i].in, &ms, err, sizeof(err));
        if (ok != (cases[i].ms >= 0) || (ok && ms != cases[i].ms))
            GR__FAIL("%s: got %s %lld", cases[i].in, ok ? "ok" : err, (long long)ms);
    }
}

static void test_plan(void) {
    cg_entry_t *v;
    size_t n;
    char err[256];
    const char *one = "orders,0,5\r\norders,1,7\n\n\"we,ird\",2,9\n";
    ASSERT(cg_parse_plan(one, strlen(one), true, 100, &v, &n, err, sizeof(err)));
    ASSERT_EQ(n, 3);
    ASSERT(v[0].group == NULL && !strcmp(v[0].topic, "orders") && v[0].partition == 0 && v[0].offset == 5);
    ASSERT(v[2].partition == 2 && v[2].offset == 9);
    ASSERT_STREQ(v[2].topic, "we,ird");
    cg_entries_free(v, n);
    const char *multi = "g1,orders,0,5\n\"g\"\"2\",orders,1,-3\n";
    ASSERT(cg_parse_plan(multi, strlen(multi), false, 100, &v, &n, err, sizeof(err)));
    ASSERT(n == 2 && !strcmp(v[1].group, "g\"2") && v[1].offset == -3);
    cg_entries_free(v, n);
    /* one --group but the group form: still read with groups */
    ASSERT(cg_parse_plan(multi, strlen(multi), true, 100, &v, &n, err, sizeof(err)) && n == 2 && v[0].group);
    cg_entries_free(v, n);
    /* several groups and the 3-field form: refused */
    ASSERT(!cg_parse_plan(one, strlen(one), false, 100, &v, &n, err, sizeof(err)));
    ASSERT_STREQ(err, "line 1: expected 4 fields (group,topic,partition,offset), found 3");
    const char *bad = "orders,0,5\norders,x,5\n";
    ASSERT(!cg_parse_plan(bad, strlen(bad), true, 100, &v, &n, err, sizeof(err)));
    ASSERT_STREQ(err, "line 2: partition and offset must be numbers");
    const char *unterminated = "\"orders,0,5\n";
    ASSERT(!cg_parse_plan(unterminated, strlen(unterminated), true, 100, &v, &n, err, sizeof(err)));
    ASSERT(!cg_parse_plan(one, strlen(one), true, 2, &v, &n, err, sizeof(err))); /* bounded */
    ASSERT(cg_parse_plan("", 0, true, 2, &v, &n, err, sizeof(err)) && n == 0);
    free(v);
}

static void test_csv_field(void) {
    char buf[64];
    size_t len = 0;
    cg_csv_field(buf, sizeof(buf), &len, "plain");
    ASSERT_STREQ(buf, "plain");
    len = 0;
    cg_csv_field(buf, sizeof(buf), &len, "a,\"b\"");
    ASSERT_STREQ(buf, "\"a,\"\"b\"\"\"");
    char small[4];
    len = 0;
    cg_csv_field(small, sizeof(small), &len, "longer than the buffer"); /* truncated, terminated */
    ASSERT(strlen(small) < sizeof(small));
}

static void test_java_hashes(void) {
    ASSERT_EQ(cg_java_string_hash(""), 0);
    ASSERT_EQ(cg_java_string_hash("a"), 97);
    ASSERT_EQ(cg_java_string_hash("cgc-t"), 94593702);
    ASSERT_EQ(cg_java_string_hash("topic-with-a-long-name"), -49133785);
    ASSERT_EQ(cg_java_string_hash("\xc3\xa9t\xc3\xa9"), 227742);   /* "été" */
    ASSERT_EQ(cg_java_string_hash("\xf0\x9f\x98\x80x"), 54959989); /* a surrogate pair */
    ASSERT_EQ(cg_java_tp_hash("cgc-t", 0), 94594663);
    ASSERT_EQ(cg_java_tp_hash("cgc-t", 7), 94594880);
}

static void test_java_order(void) {
    /* 10 partitions of "orders" then 10 of "cgc-t" put into a HashMap: Java iterates them so. */
    static const char *const want =
        "orders-7 cgc-t-4 orders-8 cgc-t-5 orders-9 cgc-t-6 cgc-t-7 cgc-t-0 cgc-t-1 cgc-t-2 cgc-t-3 orders-0 "
        "orders-1 orders-2 orders-3 cgc-t-8 orders-4 cgc-t-9 orders-5 orders-6";
    int32_t h[20];
    size_t idx[20];
    for (int i = 0; i < 20; i++) h[i] = cg_java_tp_hash(i < 10 ? "orders" : "cgc-t", i % 10);
    cg_java_hash_order(h, 20, idx);
    char got[512] = "";
    for (int i = 0; i < 20; i++) {
        size_t l = strlen(got);
        snprintf(got + l, sizeof(got) - l, "%s%s-%zu", i ? " " : "", idx[i] < 10 ? "orders" : "cgc-t", idx[i] % 10);
    }
    ASSERT_STREQ(got, want);
    static const char *const groups[] = {"g1", "group-b", "cgc-g", "zz", "a"};
    int32_t gh[5];
    for (int i = 0; i < 5; i++) gh[i] = cg_java_string_hash(groups[i]);
    cg_java_hash_order(gh, 5, idx);
    got[0] = 0;
    for (int i = 0; i < 5; i++) {
        size_t l = strlen(got);
        snprintf(got + l, sizeof(got) - l, "%s%s", i ? " " : "", groups[idx[i]]);
    }
    ASSERT_STREQ(got, "zz a group-b g1 cgc-g");
}

int main(void) {
    test_topic_arg();
    test_datetime();
    test_plan();
    test_csv_field();
    test_java_hashes();
    test_java_order();
    puts("test_cg_plan: ok");
    return 0;
}
