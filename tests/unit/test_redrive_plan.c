/* Unit tests for src/cli/redrive_plan (the pure part of `gregor share-groups --redrive`):
 * Kafka 4.4.0's dead-letter headers, the provenance headers and their round trip, the done
 * set, the redrive decision and the target partition. */
#include <stdlib.h>

#include "cli/redrive_plan.h"
#include "testutil.h"

#define H(k, v) \
    { k, sizeof(k) - 1, v, sizeof(v) - 1 }

/* The six headers of a REJECT as Kafka 4.4.0 writes them (docs/dlq.md §3). */
static const rd_hdr_t kafka_dlq[] = {
    H("__dlq.errors.topic", "dlqr-src"),   H("__dlq.errors.partition", "1"),
    H("__dlq.errors.offset", "42"),        H("__dlq.errors.group", "dlqr-nc-g"),
    H("__dlq.errors.delivery.count", "2"), H("__dlq.errors.message", "Offset rejected by client."),
};

static void test_parse_i64(void) {
    int64_t x = 7;
    ASSERT(rd_parse_i64("0", 1, 0, 10, &x) && x == 0);
    ASSERT(rd_parse_i64("2147483647", 10, 0, INT32_MAX, &x) && x == INT32_MAX);
    ASSERT(!rd_parse_i64("2147483648", 10, 0, INT32_MAX, &x));
    ASSERT(rd_parse_i64("9223372036854775807", 19, 0, INT64_MAX, &x) && x == INT64_MAX);
    ASSERT(!rd_parse_i64("9223372036854775808", 19, 0, INT64_MAX, &x));
    ASSERT(!rd_parse_i64("99999999999999999999", 20, INT64_MIN, INT64_MAX, &x));
    ASSERT(rd_parse_i64("-9223372036854775808", 20, INT64_MIN, 0, &x) && x == INT64_MIN);
    ASSERT(!rd_parse_i64("-1", 2, 0, 10, &x));
    ASSERT(!rd_parse_i64("", 0, 0, 10, &x));
    ASSERT(!rd_parse_i64("-", 1, -10, 10, &x));
    ASSERT(!rd_parse_i64(" 1", 2, 0, 10, &x));
    ASSERT(!rd_parse_i64("1x", 2, 0, 10, &x));
    ASSERT(!rd_parse_i64("+1", 2, 0, 10, &x));
    ASSERT(!rd_parse_i64(NULL, 0, 0, 10, &x));
    ASSERT_EQ(x, INT64_MIN); /* untouched by the failures */
}

static void test_parse_dlq(void) {
    rd_dlq_t d;
    ASSERT_EQ(rd_parse_dlq(kafka_dlq, 6, &d), RD_OK);
    ASSERT_STREQ(d.topic, "dlqr-src");
    ASSERT_EQ(d.partition, 1);
    ASSERT_EQ(d.offset, 42);
    ASSERT_STREQ(d.group, "dlqr-nc-g");
    ASSERT_EQ(d.delivery_count, 2);
    ASSERT_STREQ(d.message, "Offset rejected by client.");
    rd_dlq_free(&d);
    /* Without the optional count and message; other headers around are ignored. */
    rd_hdr_t h[6] = {H("x", "y"), kafka_dlq[0], kafka_dlq[1], kafka_dlq[2], kafka_dlq[3], H("__dlq.errors.other", "")};
    ASSERT_EQ(rd_parse_dlq(h, 6, &d), RD_OK);
    ASSERT_EQ(d.delivery_count, -1);
    ASSERT(d.message == NULL);
    rd_dlq_free(&d);
    /* No group header: not a share-group dead letter. */
    ASSERT_EQ(rd_parse_dlq(kafka_dlq, 3, &d), RD_NOT_DLQ);
    ASSERT_EQ(rd_parse_dlq(NULL, 0, &d), RD_NOT_DLQ);
}

/* Each way a dead letter can be malformed; the group is still known when its header is fine. */
static void test_parse_dlq_bad(void) {
    static const struct {
        size_t idx;
        rd_hdr_t h;
        bool group_known;
    } bad[] = {
        {1, H("__dlq.errors.partition", "x"), true},          {1, H("__dlq.errors.partition", "-1"), true},
        {1, H("__dlq.errors.partition", "2147483648"), true}, {2, H("__dlq.errors.offset", ""), true},
        {2, {"__dlq.errors.offset", 19, NULL, 0}, true},      {0, H("__dlq.errors.topic", ""), true},
        {0, H("__dlq.errors.topic", "a\0b"), true},           {4, H("__dlq.errors.delivery.count", "two"), true},
        {3, {"__dlq.errors.group", 18, NULL, 0}, false},      {3, H("__dlq.errors.group", "g\0"), false},
        {5, H("__dlq.errors.group", "dlqr-nc-g"), true}, /* a repeated header */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rd_hdr_t h[6];
        memcpy(h, kafka_dlq, sizeof(h));
        h[bad[i].idx] = bad[i].h;
        rd_dlq_t d;
        ASSERT_EQ(rd_parse_dlq(h, 6, &d), RD_BAD);
        ASSERT_EQ(d.group != NULL, bad[i].group_known);
        if (d.group) ASSERT_STREQ(d.group, "dlqr-nc-g");
        rd_dlq_free(&d);
    }
    /* Missing offset header. */
    rd_hdr_t h[3] = {kafka_dlq[0], kafka_dlq[1], kafka_dlq[3]};
    rd_dlq_t d;
    ASSERT_EQ(rd_parse_dlq(h, 3, &d), RD_BAD);
    rd_dlq_free(&d);
}

static void test_prov_round_trip(void) {
    rd_prov_t p = {.dlq_topic = "dlq.orders",
                   .dlq_topic_id = "jWyFnGmSROO6QdDaJSwALw",
                   .dlq_partition = 3,
                   .dlq_offset = 9000000000LL,
                   .group = "workers",
                   .src_topic = "orders",
                   .src_partition = 1,
                   .src_offset = 17};
    const char *names[RD_PROV_N], *vals[RD_PROV_N];
    char bufs[5][24];
    size_t n = rd_prov_headers(&p, 2, "source", names, vals, bufs);
    ASSERT_EQ(n, 10);
    static const char *const want[][2] = {
        {"gregor.redrive.dlq.topic", "dlq.orders"}, {"gregor.redrive.dlq.topic.id", "jWyFnGmSROO6QdDaJSwALw"},
        {"gregor.redrive.dlq.partition", "3"},      {"gregor.redrive.dlq.offset", "9000000000"},
        {"gregor.redrive.group", "workers"},        {"gregor.redrive.source.topic", "orders"},
        {"gregor.redrive.source.partition", "1"},   {"gregor.redrive.source.offset", "17"},
        {"gregor.redrive.delivery.count", "2"},     {"gregor.redrive.payload", "source"},
    };
    for (size_t i = 0; i < n; i++) {
        ASSERT_STREQ(names[i], want[i][0]);
        ASSERT_STREQ(vals[i], want[i][1]);
    }
    ASSERT_EQ(rd_prov_headers(&p, -1, "dlq", names, vals, bufs), 9); /* no count */
    /* Parse it back, after an older provenance (a record redriven twice): the last one wins. */
    rd_hdr_t h[2 + RD_PROV_N];
    h[0] = (rd_hdr_t)H("gregor.redrive.dlq.topic", "old-dlq");
    h[1] = (rd_hdr_t)H("gregor.redrive.dlq.offset", "1");
    n = rd_prov_headers(&p, 2, "source", names, vals, bufs);
    for (size_t i = 0; i < n; i++) h[2 + i] = (rd_hdr_t){names[i], strlen(names[i]), vals[i], strlen(vals[i])};
    rd_prov_t q;
    ASSERT(rd_parse_prov(h, 2 + n, &q));
    ASSERT_STREQ(q.dlq_topic, "dlq.orders");
    ASSERT_STREQ(q.dlq_topic_id, "jWyFnGmSROO6QdDaJSwALw");
    ASSERT_EQ(q.dlq_partition, 3);
    ASSERT_EQ(q.dlq_offset, 9000000000LL);
    ASSERT_STREQ(q.group, "workers");
    ASSERT_STREQ(q.src_topic, "orders");
    ASSERT_EQ(q.src_partition, 1);
    ASSERT_EQ(q.src_offset, 17);
    rd_prov_free(&q);
    /* Incomplete: no DLQ offset -> no provenance; no source offset -> no source identity. */
    ASSERT(!rd_parse_prov(h + 2, 3, &q));
    rd_hdr_t h2[4] = {h[2], h[4], h[5], h[6]};
    ASSERT(rd_parse_prov(h2, 4, &q));
    ASSERT(q.group == NULL && q.src_topic == NULL && q.src_partition == -1 && q.src_offset == -1);
    ASSERT(q.dlq_topic_id == NULL);
    rd_prov_free(&q);
}

static void test_set(void) {
    rd_set_t s;
    rd_set_init(&s);
    ASSERT(!rd_set_has(&s, "a", 1));
    char key[32];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof(key), "k%d", i);
        ASSERT(rd_set_add(&s, key, (size_t)n));
        ASSERT(!rd_set_add(&s, key, (size_t)n));
    }
    ASSERT_EQ(s.n, 5000);
    ASSERT(rd_set_has(&s, "k4999", 5) && !rd_set_has(&s, "k5000", 5) && rd_set_has(&s, "k4", 2));
    ASSERT(!rd_set_has(&s, "k", 1));
    rd_set_free(&s);
    /* Keys are unambiguous: ("a1", p 2) differs from ("a", p 12). */
    char *k1, *k2;
    size_t n1 = rd_key_dlq(&k1, "a1", 2, 3), n2 = rd_key_dlq(&k2, "a", 12, 3);
    ASSERT(n1 != n2 || memcmp(k1, k2, n1));
    free(k1), free(k2);
    n1 = rd_key_src(&k1, "g:1", "t", 0, 0), n2 = rd_key_src(&k2, "g", ":1t", 0, 0);
    ASSERT(n1 != n2 || memcmp(k1, k2, n1));
    free(k1), free(k2);
}

static rd_dlq_t dl(const char *group, const char *topic, int32_t p, int64_t o) {
    return (rd_dlq_t){.topic = (char *)topic, .group = (char *)group, .partition = p, .offset = o};
}

static void test_decide(void) {
    rd_set_t done;
    rd_set_init(&done);
    /* The scan found DLQ record dlq/0/5 (source src/1/7) redriven. */
    rd_prov_t p = {.dlq_topic = "dlq",
                   .dlq_partition = 0,
                   .dlq_offset = 5,
                   .group = "g",
                   .src_topic = "src",
                   .src_partition = 1,
                   .src_offset = 7};
    rd_prov_mark(&done, &p, "dlq", NULL);
    /* Provenance of another DLQ topic, or of a re-created one (other id), proves nothing. */
    rd_prov_t other = {.dlq_topic = "dlq2", .dlq_partition = 0, .dlq_offset = 6};
    rd_prov_mark(&done, &other, "dlq", NULL);
    rd_prov_t old = {.dlq_topic = "dlq", .dlq_topic_id = "OLD", .dlq_partition = 0, .dlq_offset = 6};
    rd_prov_mark(&done, &old, "dlq", "NEW");
    rd_dlq_t d5 = dl("g", "src", 1, 7), d6 = dl("g", "src", 1, 8), d9 = dl("g", "src", 1, 7),
             d10 = dl("g", "src", 1, 8);
    ASSERT_EQ(rd_decide(&done, "dlq", 0, 5, &d5), RD_DONE);
    ASSERT_EQ(rd_decide(&done, "dlq", 0, 6, &d6), RD_REDRIVE);
    ASSERT_EQ(rd_decide(&done, "dlq", 1, 9, &d9), RD_DUP_SRC);   /* the same source as dlq/0/5 */
    ASSERT_EQ(rd_decide(&done, "dlq", 1, 10, &d10), RD_DUP_SRC); /* the same source as dlq/0/6 */
    /* Another group's dead letter of the same source record is its own. */
    rd_dlq_t dg = dl("h", "src", 1, 7);
    ASSERT_EQ(rd_decide(&done, "dlq", 1, 11, &dg), RD_REDRIVE);
    rd_set_free(&done);
}

static void test_target_partition(void) {
    ASSERT_EQ(rd_target_partition(2, 3, true, 12345), 2);           /* the source partition exists */
    ASSERT_EQ(rd_target_partition(3, 3, true, 7), 1);               /* by key: 7 % 3 */
    ASSERT_EQ(rd_target_partition(3, 3, true, -1), 2147483647 % 3); /* & 0x7fffffff */
    ASSERT_EQ(rd_target_partition(5, 3, false, 0), 2);              /* null key: 5 % 3, the same every run */
    ASSERT_EQ(rd_target_partition(0, 0, true, 1), -1);
}

int main(void) {
    RUN_TEST(test_parse_i64);
    RUN_TEST(test_parse_dlq);
    RUN_TEST(test_parse_dlq_bad);
    RUN_TEST(test_prov_round_trip);
    RUN_TEST(test_set);
    RUN_TEST(test_decide);
    RUN_TEST(test_target_partition);
    return 0;
}
