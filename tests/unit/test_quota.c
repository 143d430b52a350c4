/* Client quota logic (src/auth/quota*.c): Kafka's windowed rate and throttle time, the
 * default callback's eight-step resolution, AlterClientQuotas validation with Kafka's
 * messages, the describe filter, and the store file. Expected values worked out from
 * Kafka 4.4.0's Rate/SampledStat, QuotaUtils and ClientQuotaControlManager. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/quota.h"
#include "base/err.h"
#include "testutil.h"

static const gr_quota_window_t W = {11, 1000};

static void test_rate(void) {
    gr_quota_rate_t r;
    gr_quota_rate_init(&r);
    /* A fresh rate divides by (samples - 1) windows: 1000 bytes over 10 s is 100/s. */
    ASSERT_EQ(gr_quota_record_throttle(&r, &W, 1000, 100, 0, 0), 0);
    ASSERT_EQ((int64_t)gr_quota_rate_window_ms(&r, &W, 0), 10000);
    /* 2000 bytes: 200/s against 100/s -> (200-100)/100 * 10000 ms. */
    ASSERT_EQ(gr_quota_record_throttle(&r, &W, 1000, 100, 0, 0), 10000);
    /* The request quota bounds it by one window. */
    gr_quota_rate_init(&r);
    ASSERT_EQ(gr_quota_record_throttle(&r, &W, 2000, 100, 1000, 0), 1000);
    /* Samples advance each window; after 11 windows everything has expired. */
    gr_quota_rate_init(&r);
    for (int t = 0; t < 11; t++) gr_quota_rate_record(&r, &W, 100, t * 1000);
    ASSERT(fabs(gr_quota_rate_measure(&r, &W, 10500) - 1100 / 10.5) < 1e-9);
    ASSERT_EQ(r.used, 11);
    ASSERT(gr_quota_rate_measure(&r, &W, 30000) == 0);
    /* A window longer than the minimum: elapsed time since the oldest sample. */
    gr_quota_rate_init(&r);
    gr_quota_rate_record(&r, &W, 0, 0);
    for (int t = 1; t <= 10; t++) gr_quota_rate_record(&r, &W, 0, t * 1000);
    ASSERT_EQ((int64_t)gr_quota_rate_window_ms(&r, &W, 10700), 10700);
    /* Unrecording (a throttled fetch) takes the bytes back out. */
    gr_quota_rate_init(&r);
    gr_quota_rate_record(&r, &W, 5000, 0);
    gr_quota_rate_record(&r, &W, -5000, 0);
    ASSERT(gr_quota_rate_measure(&r, &W, 0) == 0);
    /* One sample of one window: the rate is over at least 1 ms. */
    gr_quota_window_t one = {1, 1000};
    gr_quota_rate_init(&r);
    ASSERT_EQ((int64_t)gr_quota_rate_window_ms(&r, &one, 5), 1);
}

static void set(gr_quota_store_t *s, const char *user, const char *client, uint8_t types, double v) {
    gr_quota_entity_t e = {types, user, client, NULL};
    gr_quota_store_set(s, &e, GR_QK_PRODUCER_BYTE_RATE, true, v);
}

static void expect_resolve(const gr_quota_store_t *s, double limit, bool user_tag, bool client_tag) {
    gr_quota_resolved_t r;
    gr_quota_resolve(s, GR_QK_PRODUCER_BYTE_RATE, "alice", "app", &r);
    ASSERT(r.has_limit);
    ASSERT(r.limit == limit);
    ASSERT_EQ(r.user_tag, user_tag);
    ASSERT_EQ(r.client_tag, client_tag);
}

/* Kafka's order, each step shadowing the ones after it: add them from last to first. */
static void test_resolve(void) {
    gr_quota_store_t s;
    gr_quota_store_init(&s);
    gr_quota_resolved_t r;
    gr_quota_resolve(&s, GR_QK_PRODUCER_BYTE_RATE, "alice", "app", &r);
    ASSERT(!r.has_limit);
    enum { U = GR_QE_USER, C = GR_QE_CLIENT, UC = GR_QE_USER | GR_QE_CLIENT };
    set(&s, NULL, NULL, C, 8);
    expect_resolve(&s, 8, false, true); /* 8: default client-id */
    set(&s, NULL, "app", C, 7);
    expect_resolve(&s, 7, false, true); /* 7: client-id */
    set(&s, NULL, NULL, U, 6);
    expect_resolve(&s, 6, true, false); /* 6: default user */
    set(&s, NULL, NULL, UC, 5);
    expect_resolve(&s, 5, true, true); /* 5: default user, default client-id */
    set(&s, NULL, "app", UC, 4);
    expect_resolve(&s, 4, true, true); /* 4: default user, client-id */
    set(&s, "alice", NULL, U, 3);
    expect_resolve(&s, 3, true, false); /* 3: user */
    set(&s, "alice", NULL, UC, 2);
    expect_resolve(&s, 2, true, true); /* 2: user, default client-id */
    set(&s, "alice", "app", UC, 1);
    expect_resolve(&s, 1, true, true); /* 1: user, client-id */
    /* Another key has no quota: unlimited. */
    gr_quota_resolve(&s, GR_QK_CONSUMER_BYTE_RATE, "alice", "app", &r);
    ASSERT(!r.has_limit);
    /* Removing the last key removes the entity. */
    size_t n = s.n;
    gr_quota_entity_t e = {UC, "alice", "app", NULL};
    gr_quota_store_set(&s, &e, GR_QK_PRODUCER_BYTE_RATE, false, 0);
    ASSERT_EQ(s.n, n - 1);
    expect_resolve(&s, 2, true, true);
    /* IP: exact, else default. */
    gr_quota_entity_t ipd = {GR_QE_IP, NULL, NULL, NULL}, ip = {GR_QE_IP, NULL, NULL, "10.0.0.1"};
    double lim = 0;
    uint8_t a1[16] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 1}, a2[16] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 2};
    uint8_t v6[16] = {[15] = 1};
    ASSERT(!gr_quota_ip_limit(&s, a1, &lim));
    gr_quota_store_set(&s, &ipd, GR_QK_CONNECTION_CREATION_RATE, true, 5);
    gr_quota_store_set(&s, &ip, GR_QK_CONNECTION_CREATION_RATE, true, 9);
    ASSERT(gr_quota_ip_limit(&s, a1, &lim) && lim == 9);
    ASSERT(gr_quota_ip_limit(&s, a2, &lim) && lim == 5);
    gr_quota_entity_t loop6 = {GR_QE_IP, NULL, NULL, "0:0:0:0:0:0:0:1"}; /* any notation of ::1 */
    gr_quota_store_set(&s, &loop6, GR_QK_CONNECTION_CREATION_RATE, true, 2);
    ASSERT(gr_quota_ip_limit(&s, v6, &lim) && lim == 2);
    gr_quota_store_free(&s);
}

/* One AlterClientQuotas entry: its error code and message. */
static int16_t alter1(gr_quota_store_t *s, const gr_quota_pair_t *pairs, size_t np, const gr_quota_op_t *ops, size_t no,
                      char *msg) {
    gr_quota_pair_t map[4];
    gr_quota_alter_t a = {.pairs = pairs, .n_pairs = np, .ops = ops, .n_ops = no, .map = map};
    gr_quota_alter_validate(s, &a, 1);
    strcpy(msg, a.message);
    if (!a.error) gr_quota_alter_apply(s, &a, 1);
    return a.error;
}

#define IR GR_ERR_INVALID_REQUEST

static void test_alter(void) {
    gr_quota_store_t s;
    gr_quota_store_init(&s);
    char m[512];
    gr_quota_pair_t user = {"user", "alice"}, client = {"client-id", "c"}, ip = {"ip", "127.0.0.1"};
    gr_quota_pair_t uc[2] = {user, client}, ipu[2] = {ip, user};
    gr_quota_op_t ok = {"producer_byte_rate", 1024, false}, frac = {"producer_byte_rate", 1.5, false};
    gr_quota_op_t zero = {"consumer_byte_rate", 0, false}, unknown = {"foo", 1, false};
    gr_quota_op_t conn = {"connection_creation_rate", 10, false}, big = {"connection_creation_rate", 3e9, false};
    gr_quota_op_t pct = {"request_percentage", 12.5, false}, rm = {"foo", 0, true};
    ASSERT_EQ(alter1(&s, &user, 1, &ok, 1, m), 0);
    ASSERT_EQ(alter1(&s, &user, 1, &frac, 1, m), IR);
    ASSERT_STREQ(m, "producer_byte_rate cannot be a fractional value.");
    ASSERT_EQ(alter1(&s, &user, 1, &zero, 1, m), IR);
    ASSERT_STREQ(m, "Quota consumer_byte_rate must be greater than 0");
    gr_quota_op_t inf = {"request_percentage", INFINITY, false};
    ASSERT_EQ(alter1(&s, &user, 1, &inf, 1, m), IR); /* Kafka 4.4.0 checks finiteness first */
    ASSERT_STREQ(m, "Quota request_percentage must be a finite number");
    ASSERT_EQ(alter1(&s, &user, 1, &unknown, 1, m), IR);
    ASSERT_STREQ(m, "Invalid configuration key foo");
    ASSERT_EQ(alter1(&s, &user, 1, &conn, 1, m), IR); /* an IP key on a user */
    ASSERT_STREQ(m, "Invalid configuration key connection_creation_rate");
    ASSERT_EQ(alter1(&s, &ip, 1, &big, 1, m), IR);
    ASSERT_STREQ(m, "Proposed value for connection_creation_rate is too large for an INT.");
    ASSERT_EQ(alter1(&s, &ip, 1, &conn, 1, m), 0);
    ASSERT_EQ(alter1(&s, uc, 2, &pct, 1, m), 0);   /* a double may be fractional */
    ASSERT_EQ(alter1(&s, &user, 1, &rm, 1, m), 0); /* removing an unknown key: nothing */
    ASSERT_EQ(alter1(&s, ipu, 2, &ok, 1, m), IR);
    ASSERT_STREQ(m, "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
    ASSERT_EQ(alter1(&s, NULL, 0, &ok, 1, m), IR);
    ASSERT_STREQ(m, "Invalid empty client quota entity");
    gr_quota_pair_t bad = {"group", "g"}, empty = {"user", ""}, badip = {"ip", "no such host.invalid"};
    ASSERT_EQ(alter1(&s, &bad, 1, &ok, 1, m), IR);
    ASSERT_STREQ(m, "Unhandled client quota entity type: group");
    ASSERT_EQ(alter1(&s, &empty, 1, &ok, 1, m), IR);
    ASSERT_STREQ(m, "Empty user not supported");
    ASSERT_EQ(alter1(&s, &badip, 1, &conn, 1, m), IR);
    ASSERT_STREQ(m, "no such host.invalid is not a valid IP or resolvable host.");
    /* A key twice: Kafka's second check overwrites the duplicate-key message. */
    gr_quota_op_t twice[2] = {ok, ok};
    ASSERT_EQ(alter1(&s, &user, 1, twice, 2, m), IR);
    ASSERT_STREQ(m, "Ignoring duplicate entity ClientQuotaEntity(entries={user=alice})");
    /* Java's HashMap order in the entity text: client-id before user. */
    gr_quota_op_t twice2[2] = {pct, pct};
    ASSERT_EQ(alter1(&s, uc, 2, twice2, 2, m), IR);
    ASSERT_STREQ(m, "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=c, user=alice})");
    /* The same entity twice in one request: the first applies, the answer is an error. */
    gr_quota_pair_t map[2][2];
    gr_quota_op_t v2 = {"producer_byte_rate", 2048, false}, v3 = {"producer_byte_rate", 4096, false};
    gr_quota_alter_t a[2] = {{.pairs = &user, .n_pairs = 1, .ops = &v2, .n_ops = 1, .map = map[0]},
                             {.pairs = &user, .n_pairs = 1, .ops = &v3, .n_ops = 1, .map = map[1]}};
    gr_quota_alter_validate(&s, a, 2);
    ASSERT(a[0].first && !a[1].first && a[0].applied && !a[1].applied);
    ASSERT_EQ(a[0].error, IR);
    gr_quota_alter_apply(&s, a, 2);
    gr_quota_entity_t ue = {GR_QE_USER, "alice", NULL, NULL};
    ASSERT(gr_quota_store_find(&s, &ue)->v[GR_QK_PRODUCER_BYTE_RATE] == 2048);
    /* The file round-trips, exactly; an edited file is refused. */
    size_t len;
    char *text = gr_quota_store_format(&s, &len), why[256];
    gr_quota_store_t back;
    ASSERT_EQ(gr_quota_store_parse(&back, text, len, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(back.n, s.n);
    for (size_t i = 0; i < s.n; i++) {
        ASSERT_EQ(back.e[i].types, s.e[i].types);
        ASSERT_EQ(back.e[i].set, s.e[i].set);
        for (int k = 0; k < GR_QK__N; k++) ASSERT(back.e[i].v[k] == s.e[i].v[k]);
    }
    gr_quota_store_free(&back);
    text[len / 2] ^= 1; /* a flipped bit in the middle */
    ASSERT_EQ(gr_quota_store_parse(&back, text, len, why, sizeof(why)), GR_ERR__MALFORMED);
    free(text);
    gr_quota_store_free(&s);
}

static void test_filter(void) {
    char m[512];
    gr_quota_filter_comp_t c[3] = {{"user", 0, "alice"}, {"client-id", 2, NULL}, {"ip", 1, NULL}};
    ASSERT_EQ(gr_quota_filter_check(c, 2, m, sizeof(m)), 0);
    ASSERT_EQ(gr_quota_filter_check(c, 3, m, sizeof(m)), IR);
    ASSERT_STREQ(m, "Invalid entity filter component combination. IP filter component should not be used with user "
                    "or clientId filter component.");
    gr_quota_filter_comp_t bad[] = {{"user", 0, NULL}, {"user", 1, "x"},  {"user", 2, "x"},
                                    {"user", 3, NULL}, {"group", 0, "g"}, {"", 0, "g"}};
    const char *want[] = {"Request specified MATCH_TYPE_EXACT, but set match string to null.",
                          "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.",
                          "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.",
                          "Unknown match type 3",
                          "Unsupported entity type group",
                          "Invalid empty entity type."};
    for (int i = 0; i < 6; i++) {
        ASSERT_EQ(gr_quota_filter_check(&bad[i], 1, m, sizeof(m)), i == 4 ? GR_ERR_UNSUPPORTED_VERSION : IR);
        ASSERT_STREQ(m, want[i]);
    }
    gr_quota_filter_comp_t twice[2] = {{"user", 2, NULL}, {"user", 1, NULL}};
    ASSERT_EQ(gr_quota_filter_check(twice, 2, m, sizeof(m)), IR);
    ASSERT_STREQ(m, "Entity type user cannot appear more than once in the filter.");
    gr_quota_entry_t alice = {.types = GR_QE_USER, .user = "alice"}, dflt = {.types = GR_QE_USER};
    gr_quota_entry_t alice_c = {.types = GR_QE_USER | GR_QE_CLIENT, .user = "alice", .client = "c"};
    ASSERT(gr_quota_filter_match(c, 1, false, &alice));
    ASSERT(gr_quota_filter_match(c, 1, false, &alice_c));
    ASSERT(!gr_quota_filter_match(c, 1, true, &alice_c)); /* strict: no other types */
    ASSERT(!gr_quota_filter_match(c, 1, false, &dflt));
    gr_quota_filter_comp_t d = {"user", 1, NULL};
    ASSERT(gr_quota_filter_match(&d, 1, false, &dflt));
    ASSERT(!gr_quota_filter_match(&d, 1, false, &alice));
    ASSERT(gr_quota_filter_match(NULL, 0, false, &alice)); /* no components: everything */
}

int main(void) {
    RUN_TEST(test_rate);
    RUN_TEST(test_resolve);
    RUN_TEST(test_alter);
    RUN_TEST(test_filter);
    printf("test_quota ok\n");
    return 0;
}
