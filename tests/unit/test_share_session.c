/* Unit tests for the share-session cache and its epoch rules (src/share/share_session.c):
 * every rule of share_session.h, for ShareFetch and ShareAcknowledge. */
#include "share/share_session.h"

#include "testutil.h"

static int owner_a, owner_b; /* opaque owner tokens (connections in the broker) */

static gr_err_t fetch(gr_share_sessions_t *ss, const char *member, int32_t epoch, bool acks, void *owner,
                      gr_share_session_t **out) {
    const gr_ss_request_t rq = {GR_SS_FETCH, "g", member, epoch, acks, owner};
    return gr_share_sessions_step(ss, &rq, out);
}

static gr_err_t ack(gr_share_sessions_t *ss, const char *member, int32_t epoch, gr_share_session_t **out) {
    const gr_ss_request_t rq = {GR_SS_ACK, "g", member, epoch, false, NULL};
    return gr_share_sessions_step(ss, &rq, out);
}

static gr_uuid_t tid(int i) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)i;
    return u;
}

static void test_open_and_advance(void) {
    gr_share_sessions_t *ss = gr_share_sessions_new(10);
    gr_share_session_t *s = NULL, *s2 = NULL;
    ASSERT_EQ(fetch(ss, "m", 0, false, &owner_a, &s), GR_ERR_NONE); /* epoch 0 opens */
    ASSERT(s && s->owner == &owner_a);
    ASSERT_EQ(s->epoch, 1); /* the next request carries 1 */
    ASSERT_EQ(gr_share_sessions_size(ss), 1);
    ASSERT(gr_share_sessions_find(ss, "g", "m") == s);
    ASSERT(!gr_share_sessions_find(ss, "g", "other"));
    ASSERT(!gr_share_sessions_find(ss, "h", "m"));
    ASSERT_EQ(fetch(ss, "m", 1, true, NULL, &s2), GR_ERR_NONE); /* acks allowed after epoch 0 */
    ASSERT(s2 == s);
    ASSERT_EQ(s->epoch, 2);
    ASSERT_EQ(ack(ss, "m", 2, &s2), GR_ERR_NONE); /* ShareAcknowledge advances too */
    ASSERT_EQ(s->epoch, 3);
    ASSERT_EQ(fetch(ss, "m", 2, false, NULL, &s2), GR_ERR_INVALID_SHARE_SESSION_EPOCH); /* stale */
    ASSERT(!s2);
    ASSERT_EQ(fetch(ss, "m", 4, false, NULL, &s2), GR_ERR_INVALID_SHARE_SESSION_EPOCH); /* ahead */
    ASSERT_EQ(ack(ss, "m", 7, &s2), GR_ERR_INVALID_SHARE_SESSION_EPOCH);
    ASSERT_EQ(fetch(ss, "m", -2, false, NULL, &s2), GR_ERR_INVALID_SHARE_SESSION_EPOCH);
    ASSERT_EQ(s->epoch, 3); /* refused requests do not advance */
    ASSERT_EQ(fetch(ss, "m", 3, false, NULL, &s2), GR_ERR_NONE);
    ASSERT_EQ(s->epoch, 4);
    gr_share_sessions_free(ss);
}

static void test_epoch_zero(void) {
    gr_share_sessions_t *ss = gr_share_sessions_new(10);
    gr_share_session_t *s = NULL, *s2 = NULL;
    /* ShareFetch epoch 0 with acknowledgements: INVALID_REQUEST, nothing opened */
    ASSERT_EQ(fetch(ss, "m", 0, true, &owner_a, &s), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(gr_share_sessions_size(ss), 0);
    /* ShareAcknowledge cannot open a session, with or without one */
    ASSERT_EQ(ack(ss, "m", 0, &s), GR_ERR_INVALID_SHARE_SESSION_EPOCH);
    ASSERT_EQ(fetch(ss, "m", 0, false, &owner_a, &s), GR_ERR_NONE);
    ASSERT_EQ(ack(ss, "m", 0, &s2), GR_ERR_INVALID_SHARE_SESSION_EPOCH);
    ASSERT_EQ(s->epoch, 1);
    /* epoch 0 again replaces the session: a fresh one, epoch 1, new owner, no partitions */
    gr_uuid_t t = tid(1);
    gr_share_session_add(s, &t, 0);
    ASSERT_EQ(fetch(ss, "m", 1, false, NULL, &s2), GR_ERR_NONE);
    ASSERT_EQ(fetch(ss, "m", 0, false, &owner_b, &s2), GR_ERR_NONE);
    ASSERT_EQ(s2->epoch, 1);
    ASSERT(s2->owner == &owner_b);
    ASSERT_EQ(s2->n, 0);
    ASSERT_EQ(gr_share_sessions_size(ss), 1);
    gr_share_sessions_free(ss);
}

static void test_not_found_and_final(void) {
    gr_share_sessions_t *ss = gr_share_sessions_new(10);
    gr_share_session_t *s = NULL, *s2 = NULL;
    ASSERT_EQ(fetch(ss, "m", 1, false, NULL, &s), GR_ERR_SHARE_SESSION_NOT_FOUND);
    ASSERT_EQ(fetch(ss, "m", -1, false, NULL, &s), GR_ERR_SHARE_SESSION_NOT_FOUND);
    ASSERT_EQ(ack(ss, "m", 5, &s), GR_ERR_SHARE_SESSION_NOT_FOUND);
    ASSERT_EQ(ack(ss, "m", -1, &s), GR_ERR_SHARE_SESSION_NOT_FOUND);
    ASSERT_EQ(fetch(ss, "m", 0, false, &owner_a, &s), GR_ERR_NONE);
    /* epoch -1 finds the session whatever its expected epoch, and does not advance it */
    ASSERT(gr_share_session_epoch_final(-1));
    ASSERT(!gr_share_session_epoch_final(0) && !gr_share_session_epoch_final(1));
    ASSERT_EQ(ack(ss, "m", -1, &s2), GR_ERR_NONE);
    ASSERT(s2 == s);
    ASSERT_EQ(s->epoch, 1);
    ASSERT_EQ(fetch(ss, "m", -1, true, NULL, &s2), GR_ERR_NONE); /* final fetch may carry acks */
    ASSERT(s2 == s);
    /* the caller closes it: afterwards it is gone */
    gr_share_sessions_detach(ss, s);
    gr_share_session_free(s);
    ASSERT_EQ(gr_share_sessions_size(ss), 0);
    ASSERT_EQ(fetch(ss, "m", 1, false, NULL, &s2), GR_ERR_SHARE_SESSION_NOT_FOUND);
    gr_share_sessions_free(ss);
}

static void test_wrap(void) {
    ASSERT_EQ(gr_share_session_next_epoch(1), 2);
    ASSERT_EQ(gr_share_session_next_epoch(INT32_MAX - 1), INT32_MAX);
    ASSERT_EQ(gr_share_session_next_epoch(INT32_MAX), 1); /* never back to 0 or -1 */
    gr_share_sessions_t *ss = gr_share_sessions_new(1);
    gr_share_session_t *s = NULL, *s2 = NULL;
    ASSERT_EQ(fetch(ss, "m", 0, false, NULL, &s), GR_ERR_NONE);
    s->epoch = INT32_MAX;
    ASSERT_EQ(ack(ss, "m", INT32_MAX, &s2), GR_ERR_NONE);
    ASSERT_EQ(s->epoch, 1);
    ASSERT_EQ(fetch(ss, "m", 1, false, NULL, &s2), GR_ERR_NONE);
    gr_share_sessions_free(ss);
}

static void test_limit(void) {
    gr_share_sessions_t *d = gr_share_sessions_new(0);
    ASSERT_EQ(gr_share_sessions_capacity(d), 2000); /* Kafka's default */
    gr_share_sessions_free(d);
    d = gr_share_sessions_new(-5);
    ASSERT_EQ(gr_share_sessions_capacity(d), 2000);
    gr_share_sessions_free(d);
    gr_share_sessions_t *ss = gr_share_sessions_new(2);
    gr_share_session_t *s = NULL;
    ASSERT_EQ(fetch(ss, "a", 0, false, NULL, &s), GR_ERR_NONE);
    ASSERT_EQ(fetch(ss, "b", 0, false, NULL, &s), GR_ERR_NONE);
    ASSERT_EQ(fetch(ss, "c", 0, false, NULL, &s), GR_ERR_SHARE_SESSION_LIMIT_REACHED);
    ASSERT(!s);
    ASSERT(!gr_share_sessions_find(ss, "g", "c"));
    /* re-opening an existing member at the limit replaces it (the old one is dropped first) */
    ASSERT_EQ(fetch(ss, "a", 0, false, NULL, &s), GR_ERR_NONE);
    ASSERT_EQ(gr_share_sessions_size(ss), 2);
    /* another group counts toward the same broker-wide capacity */
    const gr_ss_request_t other = {GR_SS_FETCH, "h", "a", 0, false, NULL};
    ASSERT_EQ(gr_share_sessions_step(ss, &other, &s), GR_ERR_SHARE_SESSION_LIMIT_REACHED);
    gr_share_sessions_free(ss);
    /* capacity 1 after a close: room again */
    ss = gr_share_sessions_new(1);
    ASSERT_EQ(fetch(ss, "a", 0, false, NULL, &s), GR_ERR_NONE);
    ASSERT_EQ(fetch(ss, "b", 0, false, NULL, &s), GR_ERR_SHARE_SESSION_LIMIT_REACHED);
    ASSERT_EQ(fetch(ss, "a", -1, false, NULL, &s), GR_ERR_NONE);
    gr_share_sessions_detach(ss, s);
    gr_share_session_free(s);
    ASSERT_EQ(fetch(ss, "b", 0, false, NULL, &s), GR_ERR_NONE);
    gr_share_sessions_free(ss);
}

static void test_no_cache(void) {
    gr_share_session_t *s = (gr_share_session_t *)&owner_a;
    ASSERT_EQ(fetch(NULL, "m", 0, false, NULL, &s), GR_ERR_COORDINATOR_NOT_AVAILABLE);
    ASSERT(!s);
    ASSERT_EQ(fetch(NULL, "m", 0, true, NULL, &s), GR_ERR_INVALID_REQUEST);
    ASSERT_EQ(fetch(NULL, "m", 3, false, NULL, &s), GR_ERR_SHARE_SESSION_NOT_FOUND);
    ASSERT_EQ(ack(NULL, "m", 0, &s), GR_ERR_INVALID_SHARE_SESSION_EPOCH);
    ASSERT_EQ(ack(NULL, "m", -1, &s), GR_ERR_SHARE_SESSION_NOT_FOUND);
    ASSERT_EQ(gr_share_sessions_size(NULL), 0);
    ASSERT(!gr_share_sessions_detach_owned(NULL, &owner_a));
    ASSERT(!gr_share_sessions_group_has(NULL, "g"));
}

static void count(void *arg, const gr_share_session_t *s) {
    (void)s;
    ++*(int *)arg;
}

static void test_owner_close(void) {
    gr_share_sessions_t *ss = gr_share_sessions_new(10);
    gr_share_session_t *s = NULL;
    const gr_ss_request_t r1 = {GR_SS_FETCH, "g1", "m1", 0, false, &owner_a};
    const gr_ss_request_t r2 = {GR_SS_FETCH, "g2", "m2", 0, false, &owner_a};
    const gr_ss_request_t r3 = {GR_SS_FETCH, "g1", "m3", 0, false, &owner_b};
    ASSERT_EQ(gr_share_sessions_step(ss, &r1, &s), GR_ERR_NONE);
    ASSERT_EQ(gr_share_sessions_step(ss, &r2, &s), GR_ERR_NONE);
    ASSERT_EQ(gr_share_sessions_step(ss, &r3, &s), GR_ERR_NONE);
    int n = 0;
    gr_share_sessions_each(ss, count, &n);
    ASSERT_EQ(n, 3);
    int closed = 0;
    while ((s = gr_share_sessions_detach_owned(ss, &owner_a))) {
        ASSERT(s->owner == &owner_a);
        closed++;
        gr_share_session_free(s);
    }
    ASSERT_EQ(closed, 2);
    ASSERT_EQ(gr_share_sessions_size(ss), 1);
    ASSERT(gr_share_sessions_group_has(ss, "g1")); /* m3 is still there */
    ASSERT(!gr_share_sessions_group_has(ss, "g2"));
    ASSERT(gr_share_sessions_find(ss, "g1", "m3"));
    gr_share_sessions_free(ss);
}

static void test_partitions(void) {
    gr_share_sessions_t *ss = gr_share_sessions_new(10);
    gr_share_session_t *s = NULL;
    ASSERT_EQ(fetch(ss, "m", 0, false, NULL, &s), GR_ERR_NONE);
    gr_uuid_t t1 = tid(1), t2 = tid(2);
    for (int32_t p = 0; p < 10; p++) gr_share_session_add(s, p % 2 ? &t2 : &t1, p); /* grows past 8 */
    gr_share_session_add(s, &t1, 0);                                                /* present: no-op */
    ASSERT_EQ(s->n, 10);
    ASSERT(s->parts[0].fresh && s->parts[9].fresh);
    ASSERT_EQ(gr_share_session_index(s, &t2, 1), 1);
    ASSERT_EQ(gr_share_session_index(s, &t1, 1), -1); /* the topic id is part of the key */
    gr_share_session_forget(s, &t2, 1);
    gr_share_session_forget(s, &t2, 1); /* absent: no-op */
    ASSERT_EQ(s->n, 9);
    ASSERT_EQ(s->parts[1].partition, 2);
    /* parts now 0,2,3,...,9; move indexes 0 and 2 (partitions 0 and 3) to the end, in order */
    const int32_t idx[] = {0, 2};
    gr_share_session_to_end(s, idx, 2);
    const int32_t want[] = {2, 4, 5, 6, 7, 8, 9, 0, 3};
    for (int32_t i = 0; i < 9; i++) ASSERT_EQ(s->parts[i].partition, want[i]);
    gr_share_session_to_end(s, idx, 0); /* nothing moved */
    ASSERT_EQ(s->parts[0].partition, 2);
    gr_share_sessions_free(ss);
}

int main(void) {
    RUN_TEST(test_open_and_advance);
    RUN_TEST(test_epoch_zero);
    RUN_TEST(test_not_found_and_final);
    RUN_TEST(test_wrap);
    RUN_TEST(test_limit);
    RUN_TEST(test_no_cache);
    RUN_TEST(test_owner_close);
    RUN_TEST(test_partitions);
    return 0;
}
