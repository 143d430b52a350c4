/* Unit tests of share-partition acknowledgements (src/share/sp_ack.c): the
 * errors and their texts (batch- and offset-level, as Kafka 4.4.0), invalid
 * batches, and RENEW. */
#include <stdint.h>
#include <string.h>

#include "sp_test_util.h"

static void test_ack_errors(void) {
    gr_sp_t *sp = mk(0);
    /* Nothing in flight: no cached entry → INVALID_RECORD_STATE. */
    ASSERT_EQ(ack1(sp, "A", 0, 0, GR_SP_ACK_ACCEPT, 0), GR_ERR_INVALID_RECORD_STATE);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    ASSERT_EQ(ack1(sp, "B", 0, 0, GR_SP_ACK_ACCEPT, 0), GR_ERR_INVALID_RECORD_STATE); /* not owner */
    ASSERT_EQ(ack1(sp, "A", 5, 12, GR_SP_ACK_ACCEPT, 0), GR_ERR_INVALID_REQUEST);     /* past window */
    ASSERT_EQ(ack1(sp, "A", 11, 12, GR_SP_ACK_ACCEPT, 0), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(ack1(sp, "A", 0, 0, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "A", 0, 0, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE); /* below SPSO: ignored */
    ASSERT_EQ(ack1(sp, "A", 1, 1, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "A", 3, 3, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE);
    ASSERT_EQ(ack1(sp, "A", 3, 3, GR_SP_ACK_ACCEPT, 0), GR_ERR_INVALID_RECORD_STATE); /* twice */
    ASSERT_EQ(ack1(sp, "A", 2, 4, GR_SP_ACK_ACCEPT, 0), GR_ERR_INVALID_RECORD_STATE);
    /* After the lock expired. */
    gr_sp_expire(sp, &CONF, 30000, NULL);
    ASSERT_EQ(ack1(sp, "A", 4, 4, GR_SP_ACK_ACCEPT, 30000), GR_ERR_INVALID_RECORD_STATE);
    ASSERT_EQ(ack1(sp, "A", 4, 4, GR_SP_ACK_RENEW, 30000), GR_ERR_INVALID_RECORD_STATE);
    /* Re-acquired by someone else: still refused for A. */
    acq(sp, "B", 500, 500, 0, &CONF, 30000, LB(0, 9));
    ASSERT_EQ(ack1(sp, "A", 4, 4, GR_SP_ACK_ACCEPT, 30000), GR_ERR_INVALID_RECORD_STATE);
    /* Atomicity: the first batch is valid, the second is not: nothing applied. */
    int8_t acc = GR_SP_ACK_ACCEPT;
    gr_sp_ack_batch_t b[2] = {{4, 5, &acc, 1}, {8, 8, &acc, 1}};
    gr_sp_ack_req_t req = {"B", b, 2, false, true};
    ASSERT_EQ(gr_sp_acknowledge(sp, &req, &CONF, 0, NULL, NULL, 0), GR_ERR_NONE);
    b[0] = (gr_sp_ack_batch_t){6, 7, &acc, 1};
    b[1] = (gr_sp_ack_batch_t){8, 8, &acc, 1}; /* already acknowledged */
    char why[128];
    ASSERT_EQ(gr_sp_acknowledge(sp, &req, &CONF, 0, NULL, why, sizeof(why)), GR_ERR_INVALID_RECORD_STATE);
    ASSERT(!strcmp(why, "The offset cannot be acknowledged. The offset is not acquired.")); /* Kafka's text */
    ASSERT_EQ(st(sp, 6), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_start_offset(sp), 2); /* 2 is held by B */
    gr_sp_destroy(sp);
}

/* The error text of one acknowledgement (sp_ack.c; compared with Kafka 4.4.0 by
 * test_share_divergences.sh): batch-level for a range that is still one whole acquired
 * batch, offset-level once it has per-offset state. */
static const char *ack_why(gr_sp_t *sp, const char *member, const gr_sp_ack_batch_t *b, size_t n, char *why,
                           size_t size) {
    gr_sp_ack_req_t req = {member, b, n, true, true};
    why[0] = 0;
    gr_sp_acknowledge(sp, &req, &CONF, 0, NULL, why, size);
    chk(sp, &CONF);
    return why;
}

static void test_ack_texts(void) {
    static const char BATCH[] = "The batch cannot be acknowledged. The batch is not in the acquired state.";
    static const char OFFSET[] = "The offset cannot be acknowledged. The offset is not acquired.";
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 4));
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(5, 9));
    int8_t acc = GR_SP_ACK_ACCEPT, rel = GR_SP_ACK_RELEASE, renew = GR_SP_ACK_RENEW;
    char why[160];
    gr_sp_ack_batch_t whole = {5, 9, &acc, 1}, part = {6, 7, &acc, 1};
    ASSERT_EQ(ack1(sp, "A", 5, 9, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE); /* full match */
    ASSERT_STREQ(ack_why(sp, "A", &whole, 1, why, sizeof(why)), BATCH);
    ASSERT_STREQ(ack_why(sp, "A", &part, 1, why, sizeof(why)), BATCH);
    gr_sp_ack_batch_t other = {0, 4, &acc, 1}, other_part = {1, 2, &acc, 1}, three = {3, 3, &acc, 1};
    ASSERT_STREQ(ack_why(sp, "B", &other, 1, why, sizeof(why)), "Member is not the owner of batch record");
    ASSERT_STREQ(ack_why(sp, "B", &other_part, 1, why, sizeof(why)), "Member is not the owner of batch record");
    ASSERT_EQ(ack1(sp, "A", 2, 2, GR_SP_ACK_ACCEPT, 0), GR_ERR_NONE); /* [0, 4] now has per-offset state */
    gr_sp_ack_batch_t two = {2, 2, &acc, 1};
    ASSERT_STREQ(ack_why(sp, "A", &two, 1, why, sizeof(why)), OFFSET);
    ASSERT_STREQ(ack_why(sp, "B", &three, 1, why, sizeof(why)), "Member is not the owner of offset");
    /* Batches sharing an offset: after RENEW the next batch applies; otherwise the
     * offset is "not acquired" for it and nothing applies (Kafka 4.4.0). */
    gr_sp_ack_batch_t ov[2] = {{3, 3, &acc, 1}, {3, 4, &rel, 1}};
    ASSERT_STREQ(ack_why(sp, "A", ov, 2, why, sizeof(why)), OFFSET);
    ASSERT_EQ(st(sp, 3), GR_SP_ACQUIRED);
    ov[0] = (gr_sp_ack_batch_t){3, 3, &renew, 1};
    ov[1] = (gr_sp_ack_batch_t){3, 4, &acc, 1};
    ASSERT_STREQ(ack_why(sp, "A", ov, 2, why, sizeof(why)), "");
    ASSERT_EQ(st(sp, 3), GR_SP_ACKNOWLEDGED);
    ASSERT_EQ(st(sp, 4), GR_SP_ACKNOWLEDGED);
    gr_sp_destroy(sp);
}

static void test_invalid_batches(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    int8_t acc = GR_SP_ACK_ACCEPT, bad = 5, renew = GR_SP_ACK_RENEW, two[2] = {1, 1};
    gr_sp_ack_batch_t cases[][2] = {
        {{5, 4, &acc, 1}, {0}},             /* first > last */
        {{4, 6, &acc, 1}, {2, 3, &acc, 1}}, /* not ascending */
        {{0, 1, &acc, 0}, {0}},             /* empty types */
        {{0, 2, two, 2}, {0}},              /* types size mismatch */
        {{0, 0, &bad, 1}, {0}},             /* type out of range */
        {{0, 0, &renew, 1}, {0}},           /* RENEW without IsRenewAck */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gr_sp_ack_req_t req = {"A", cases[i], cases[i][1].n_types ? 2 : 1, false, true};
        ASSERT_EQ(gr_sp_acknowledge(sp, &req, &CONF, 0, NULL, NULL, 0), GR_ERR_INVALID_REQUEST);
    }
    ASSERT_EQ(gr_sp_acquired_count(sp), 10);
    /* Empty batch list → NONE. */
    gr_sp_ack_req_t none = {"A", NULL, 0, false, true};
    ASSERT_EQ(gr_sp_acknowledge(sp, &none, &CONF, 0, NULL, NULL, 0), GR_ERR_NONE);
    /* Unknown acquire mode. */
    gr_sp_acquire_res_t res;
    gr_sp_acquire_res_init(&res);
    gr_sp_log_batch_t lb = {10, 19};
    gr_sp_acquire_req_t aq = {"A", 10, 10, 7, &lb, 1};
    ASSERT_EQ(gr_sp_acquire(sp, &aq, &CONF, 0, &res, NULL), GR_ERR_INVALID_REQUEST);
    gr_sp_acquire_res_free(&res);
    gr_sp_destroy(sp);
}

static void test_renew(void) {
    gr_sp_t *sp = mk(0);
    acq(sp, "A", 500, 500, 0, &CONF, 0, LB(0, 9));
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    int8_t renew = GR_SP_ACK_RENEW;
    /* Renew every 20 s, well past several lock durations. */
    for (int64_t now = 20000; now <= 200000; now += 20000) {
        ASSERT_EQ(gr_sp_expire(sp, &CONF, now, NULL), now + 10000);
        ASSERT_EQ(ackv(sp, "A", 0, 9, &renew, 1, now, &d), GR_ERR_NONE);
        ASSERT_EQ(gr_sp_next_deadline(sp), now + 30000);
        ASSERT_EQ(gr_sp_acquired_count(sp), 10);
        ASSERT_EQ(cnt(sp, 0), 1);
    }
    ASSERT(!d.changed); /* RENEW is never persisted */
    ASSERT_EQ(d.n, 0);
    ASSERT_EQ(ack1(sp, "A", 0, 9, GR_SP_ACK_ACCEPT, 210000), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 10);
    /* Renew disabled: 121 for the whole partition, nothing changes. */
    acq(sp, "A", 500, 500, 0, &CONF, 300000, LB(10, 19));
    int8_t acc = GR_SP_ACK_ACCEPT;
    gr_sp_ack_batch_t b[2] = {{10, 14, &acc, 1}, {15, 19, &renew, 1}};
    gr_sp_ack_req_t req = {"A", b, 2, true, false};
    ASSERT_EQ(gr_sp_acknowledge(sp, &req, &CONF, 300000, NULL, NULL, 0), GR_ERR_INVALID_RECORD_STATE);
    ASSERT_EQ(gr_sp_acquired_count(sp), 10);
    /* Renewing a split part keeps the rest on the old timer. */
    ASSERT_EQ(ack1(sp, "A", 12, 13, GR_SP_ACK_RENEW, 310000), GR_ERR_NONE);
    gr_sp_expire(sp, &CONF, 330000, NULL);
    ASSERT_EQ(st(sp, 11), GR_SP_AVAILABLE);
    ASSERT_EQ(st(sp, 12), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_next_deadline(sp), 340000);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_ack_errors);
    RUN_TEST(test_ack_texts);
    RUN_TEST(test_invalid_batches);
    RUN_TEST(test_renew);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
