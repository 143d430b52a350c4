/* Unit tests for share/ack_wait.c: the §3.3 acknowledgement batch checks and the
 * tracker of the durable writes one request waits for. */
#include "share/ack_wait.h"

#include "testutil.h"

static const int8_t ACCEPT[] = {1}, RELEASE_RENEW[] = {2, 4}, THREE[] = {1, 2, 3}, BAD[] = {5}, NEG[] = {-1};

static bool valid(const gr_sp_ack_batch_t *bt, size_t n, bool renew, const char *want_why) {
    const char *why = NULL;
    bool ok = gr_share_acks_valid(bt, n, renew, &why);
    if (!ok && want_why) ASSERT_STREQ(why, want_why);
    return ok;
}

static void test_batches(void) {
    ASSERT(valid(NULL, 0, false, NULL));
    gr_sp_ack_batch_t one[] = {{5, 9, ACCEPT, 1}};
    ASSERT(valid(one, 1, false, NULL)); /* one type for the whole batch */
    gr_sp_ack_batch_t per[] = {{5, 7, THREE, 3}};
    ASSERT(valid(per, 1, false, NULL)); /* one type per offset */
    gr_sp_ack_batch_t mism[] = {{5, 8, THREE, 3}};
    ASSERT(!valid(mism, 1, false, "AcknowledgeTypes does not match the batch size"));
    gr_sp_ack_batch_t rev[] = {{9, 5, ACCEPT, 1}};
    ASSERT(!valid(rev, 1, false, "FirstOffset is greater than LastOffset"));
    gr_sp_ack_batch_t empty[] = {{5, 5, ACCEPT, 0}};
    ASSERT(!valid(empty, 1, false, "AcknowledgeTypes is empty"));
    /* Kafka 4.4.0: [5,5,RENEW],[5,6,ACCEPT] share offset 5 and pass this check (the SP judges) */
    gr_sp_ack_batch_t shared[] = {{5, 5, RELEASE_RENEW + 1, 1}, {5, 6, ACCEPT, 1}};
    ASSERT(valid(shared, 2, true, NULL));
    gr_sp_ack_batch_t back[] = {{5, 6, ACCEPT, 1}, {4, 8, ACCEPT, 1}};
    ASSERT(!valid(back, 2, false, "batches are not in ascending order"));
    /* types: 0..3, and 4 (RENEW) only in a renew request */
    gr_sp_ack_batch_t renew[] = {{1, 2, RELEASE_RENEW, 2}};
    ASSERT(!valid(renew, 1, false, "invalid AcknowledgeType"));
    ASSERT(valid(renew, 1, true, NULL));
    gr_sp_ack_batch_t bad[] = {{1, 1, BAD, 1}}, neg[] = {{1, 1, NEG, 1}};
    ASSERT(!valid(bad, 1, true, "invalid AcknowledgeType"));
    ASSERT(!valid(neg, 1, false, "invalid AcknowledgeType"));
    ASSERT(!gr_share_acks_valid(neg, 1, false, NULL)); /* why is optional */
}

static int done_calls;
static void on_done(void *arg) {
    ASSERT(arg == &done_calls);
    done_calls++;
}

static void test_tracker(void) {
    /* nothing queued: arm says so, done never runs */
    done_calls = 0;
    gr_share_ackwait_t *w = gr_share_ackwait_new(on_done, &done_calls);
    int16_t e1 = 0;
    gr_share_ackslot_t *s = gr_share_ackslot_new(w, &e1);
    gr_share_ackslot_commit(s, false); /* the write was not queued */
    ASSERT(gr_share_ackwait_arm(w));
    ASSERT_EQ(done_calls, 0);

    /* two writes: done once after both, after arm; a failed one marks its slot */
    w = gr_share_ackwait_new(on_done, &done_calls);
    int16_t e2 = 0, e3 = 0;
    gr_share_ackslot_t *s2 = gr_share_ackslot_new(w, &e2), *s3 = gr_share_ackslot_new(w, &e3);
    gr_share_ackslot_commit(s2, true);
    gr_share_ackslot_commit(s3, true);
    gr_share_ackslot_done(s2, GR_ERR_NONE); /* completes before arm: no answer yet */
    ASSERT_EQ(done_calls, 0);
    ASSERT(!gr_share_ackwait_arm(w));
    ASSERT_EQ(done_calls, 0);
    gr_share_ackslot_done(s3, GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(done_calls, 1);
    ASSERT_EQ(e2, 0);
    ASSERT_EQ(e3, GR_ERR_KAFKA_STORAGE_ERROR);

    /* an error already in the slot is kept */
    w = gr_share_ackwait_new(on_done, &done_calls);
    int16_t e4 = GR_ERR_INVALID_RECORD_STATE;
    s = gr_share_ackslot_new(w, &e4);
    gr_share_ackslot_commit(s, true);
    ASSERT(!gr_share_ackwait_arm(w));
    gr_share_ackslot_done(s, GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(e4, GR_ERR_INVALID_RECORD_STATE);
    ASSERT_EQ(done_calls, 2);

    /* detached (request cancelled): its slots are not touched, done does not run */
    w = gr_share_ackwait_new(on_done, &done_calls);
    int16_t e5 = 0;
    s = gr_share_ackslot_new(w, &e5);
    gr_share_ackslot_commit(s, true);
    ASSERT(!gr_share_ackwait_arm(w));
    gr_share_ackwait_detach(w);
    gr_share_ackslot_done(s, GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(e5, 0);
    ASSERT_EQ(done_calls, 2);
}

/* §3.3's order: each check wins over every later one. */
static void test_admit(void) {
    gr_sp_ack_batch_t ok[] = {{5, 9, ACCEPT, 1}}, bad[] = {{9, 5, ACCEPT, 1}};
    gr_share_ack_target_t all = {true, true, true, false}, t;
    char e[128];
    bool apply = true;
    t = (gr_share_ack_target_t){false, false, false, true};
    ASSERT_EQ(gr_share_ack_admit(bad, 1, false, &t, &apply, e, sizeof(e)), GR_ERR_INVALID_REQUEST);
    ASSERT(!apply);
    ASSERT_STREQ(e, ""); /* Kafka 4.4.0 answers these with a null message */
    ASSERT_EQ(gr_share_ack_admit(ok, 1, false, &t, &apply, e, sizeof(e)), GR_ERR_UNKNOWN_TOPIC_ID);
    t.topic_known = true;
    ASSERT_EQ(gr_share_ack_admit(ok, 1, false, &t, &apply, e, sizeof(e)), GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    ASSERT_STREQ(e, "");
    t.partition_known = true;
    ASSERT_EQ(gr_share_ack_admit(ok, 0, false, &t, &apply, e, sizeof(e)), GR_ERR_NONE); /* nothing to do */
    ASSERT(!apply);
    ASSERT_EQ(gr_share_ack_admit(ok, 1, false, &t, &apply, e, sizeof(e)), GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    ASSERT(strstr(e, "not initialized") != NULL);
    t.sp_in_memory = true;
    ASSERT_EQ(gr_share_ack_admit(ok, 1, false, &t, &apply, e, sizeof(e)), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(strstr(e, "offline") != NULL);
    ASSERT(!apply);
    ASSERT_EQ(gr_share_ack_admit(ok, 1, false, &all, &apply, e, sizeof(e)), GR_ERR_NONE);
    ASSERT(apply);
    ASSERT_STREQ(e, "");
}

int main(void) {
    RUN_TEST(test_batches);
    RUN_TEST(test_admit);
    RUN_TEST(test_tracker);
    return 0;
}
