/* Unit tests of the share-group DLQ's pure parts: the write-time checks and texts
 * (src/share/dlq.c, Kafka 4.4.0's order), the DLQ record (headers, key/value, timestamp)
 * and its provenance read back, the recovery decision, and which share-partition
 * transitions list ranges to dead-letter (gr_sp_delta_t.dead: REJECT and the delivery
 * limit only, never GAP, log-start or below-SPSO archives). */
#include <stdint.h>
#include <string.h>

#include "share/dlq.h"
#include "sp_test_util.h"

static gr_dlq_action_t chk_target(const char *topic, const char *prefix, bool exists, bool flag, bool ac, char *why) {
    gr_dlq_target_t t = {"g1", topic, prefix, exists, flag, ac};
    why[0] = 0;
    return gr_dlq_check(&t, why, 512);
}

static void test_check(void) {
    char why[512];
    ASSERT_EQ(chk_target("dlq.x", "dlq.", true, true, false, why), GR_DLQ_WRITE);
    ASSERT_EQ(chk_target("", "dlq.", true, true, false, why), GR_DLQ_REFUSE);
    ASSERT_STREQ(why, "Configured DLQ topic name in share group: g1 is empty.");
    ASSERT_EQ(chk_target("__x", "", true, true, true, why), GR_DLQ_REFUSE);
    ASSERT_STREQ(why, "Configured DLQ topic name in share group: g1 cannot start with __, topic: __x.");
    ASSERT_EQ(chk_target("dlq.noflag", "dlq.", true, false, true, why), GR_DLQ_REFUSE);
    ASSERT_STREQ(why, "DLQ is not enabled on configured DLQ topic for share group: g1, topic: dlq.noflag.");
    ASSERT_EQ(chk_target("dlq.missing", "dlq.", false, false, false, why), GR_DLQ_REFUSE);
    ASSERT_STREQ(why, "DLQ topic does not exist and auto create is disabled on cluster for share group: g1, "
                      "topic: dlq.missing.");
    ASSERT_EQ(chk_target("noprefix", "dlq.", true, true, false, why), GR_DLQ_REFUSE);
    ASSERT_STREQ(why, "Configured DLQ topic name does not comply with the DLQ topic prefix in share group: g1, "
                      "topic: noprefix, prefix: dlq..");
    /* Kafka's order: the flag before the prefix, existence before the prefix. */
    ASSERT_EQ(chk_target("noprefix", "dlq.", true, false, false, why), GR_DLQ_REFUSE);
    ASSERT(strstr(why, "DLQ is not enabled") != NULL);
    ASSERT_EQ(chk_target("noprefix", "dlq.", false, false, false, why), GR_DLQ_REFUSE);
    ASSERT(strstr(why, "does not exist") != NULL);
    ASSERT_EQ(chk_target("noprefix", "dlq.", false, false, true, why), GR_DLQ_REFUSE);
    ASSERT(strstr(why, "prefix: dlq..") != NULL);
    ASSERT_EQ(chk_target("dlq.auto", "dlq.", false, false, true, why), GR_DLQ_CREATE);
    ASSERT_EQ(chk_target("anyname", "", false, false, true, why), GR_DLQ_CREATE);
}

/* A built batch read back: its bytes, the batch and an iterator over its records. */
typedef struct readback {
    gr_wbuf_t wb, scratch;
    gr_batch_view_t bv;
    gr_record_iter_t ri;
} readback_t;

/* Finish bb (and free it) into rb, positioned at the first record. */
static void read_back(gr_batch_builder_t *bb, readback_t *rb) {
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    gr_wbuf_init(&rb->wb);
    gr_wbuf_init(&rb->scratch);
    ASSERT_EQ(gr_batch_builder_finish(bb, &bo, &rb->wb), GR_ERR_NONE);
    gr_batch_builder_free(bb);
    gr_batch_iter_t it;
    gr_batch_iter_init(&it, rb->wb.mem, rb->wb.len);
    ASSERT_EQ(gr_batch_iter_next(&it, &rb->bv, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_record_iter_init(&rb->ri, &rb->bv, &rb->scratch, 0, NULL, 0), GR_ERR_NONE);
}

static void read_back_free(readback_t *rb) {
    gr_wbuf_free(&rb->wb);
    gr_wbuf_free(&rb->scratch);
}

/* Build one batch of DLQ records and read it back. */
static void test_record(void) {
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    gr_dlq_rec_t r = {"src", 3, 1234567, "grp", 2, GR_DLQ_DELIVERY_LIMIT, "k", 1, NULL, -1};
    gr_dlq_add(&bb, 1700000000123, &r);
    r = (gr_dlq_rec_t){"src", 3, 7, "grp", 1, GR_DLQ_REJECT, NULL, -1, NULL, -1};
    gr_dlq_add(&bb, 1700000000123, &r);
    readback_t rb;
    read_back(&bb, &rb);
    ASSERT_EQ(rb.bv.producer_id, -1);
    ASSERT_EQ(rb.bv.record_count, 2);
    ASSERT_EQ(rb.bv.attributes, 0); /* uncompressed, CreateTime, not transactional */
    gr_record_t rec;
    ASSERT_EQ(gr_record_iter_next(&rb.ri, &rec, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(rec.timestamp, 1700000000123);
    ASSERT_EQ(rec.key_len, 1);
    ASSERT_MEMEQ(rec.key, "k", 1);
    ASSERT_EQ(rec.value_len, -1);
    ASSERT_EQ(rec.header_count, 6);
    static const char *const want[6][2] = {{"__dlq.errors.topic", "src"},
                                           {"__dlq.errors.partition", "3"},
                                           {"__dlq.errors.offset", "1234567"},
                                           {"__dlq.errors.group", "grp"},
                                           {"__dlq.errors.delivery.count", "2"},
                                           {"__dlq.errors.message", "Offset delivery count exceeded the threshold."}};
    gr_header_iter_t hi;
    gr_header_t h;
    gr_header_iter_init(&hi, &rec);
    for (int i = 0; i < 6; i++) {
        ASSERT(gr_header_iter_next(&hi, &h));
        ASSERT_EQ(h.key_len, (int32_t)strlen(want[i][0]));
        ASSERT_MEMEQ(h.key, want[i][0], strlen(want[i][0]));
        ASSERT_EQ(h.value_len, (int32_t)strlen(want[i][1]));
        ASSERT_MEMEQ(h.value, want[i][1], strlen(want[i][1]));
    }
    gr_dlq_src_t s;
    ASSERT(gr_dlq_parse(&rec, &s));
    ASSERT_EQ(s.partition, 3);
    ASSERT_EQ(s.offset, 1234567);
    ASSERT_EQ(s.delivery_count, 2);
    ASSERT_EQ(s.topic_len, 3);
    ASSERT_MEMEQ(s.group, "grp", 3);
    ASSERT_EQ(gr_record_iter_next(&rb.ri, &rec, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(rec.key_len, -1);
    gr_header_iter_init(&hi, &rec);
    for (int i = 0; i < 6; i++) ASSERT(gr_header_iter_next(&hi, &h));
    ASSERT_MEMEQ(h.value, "Offset rejected by client.", 26);
    read_back_free(&rb);
}

static void test_parse_foreign(void) {
    /* A record without the headers (someone produced into the DLQ topic) is not ours. */
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    gr_header_t h = {(const uint8_t *)"__dlq.errors.offset", 19, (const uint8_t *)"x1", 2};
    gr_batch_builder_add(&bb, 1, "k", 1, "v", 1, &h, 1);
    readback_t rb;
    read_back(&bb, &rb);
    gr_record_t rec;
    gr_dlq_src_t s;
    ASSERT_EQ(gr_record_iter_next(&rb.ri, &rec, NULL, 0), GR_ERR_NONE);
    ASSERT(!gr_dlq_parse(&rec, &s));
    read_back_free(&rb);
}

static void test_committed(void) {
    gr_sstore_batch_t b[3] = {{10, 12, GR_SSTORE_ACKNOWLEDGED, 1, 0},
                              {13, 13, GR_SSTORE_ARCHIVED, 2, 0},
                              {14, 20, GR_SSTORE_AVAILABLE, 1, 0}};
    ASSERT(gr_dlq_committed(10, b, 3, 5));   /* below the start offset */
    ASSERT(gr_dlq_committed(10, b, 3, 13));  /* archived */
    ASSERT(!gr_dlq_committed(10, b, 3, 11)); /* acknowledged: not the archive we wrote */
    ASSERT(!gr_dlq_committed(10, b, 3, 15)); /* still AVAILABLE: the archive was lost */
    ASSERT(!gr_dlq_committed(10, b, 3, 30)); /* beyond the state: lost */
    ASSERT(!gr_dlq_committed(-1, NULL, 0, 0));
}

/* The roll-forward moves the start offset as the lost write would have. */
static void test_rollforward(void) {
    gr_sstore_batch_t b[3] = {{11, 12, GR_SSTORE_ACKNOWLEDGED, 1, 0},
                              {13, 13, GR_SSTORE_ARCHIVED, 2, 0},
                              {14, 20, GR_SSTORE_AVAILABLE, 1, 0}};
    gr_sstore_state_t st = {
        .state_epoch = 3, .start_offset = 10, .delivery_complete_count = 3, .batches = b, .n_batches = 3};
    gr_sstore_batch_t bt;
    gr_sstore_update_t up;
    gr_dlq_rollforward(&st, 10, 2, &bt, &up); /* the start record: past it and 11-13 */
    ASSERT_EQ(up.n_batches, 1);
    ASSERT_EQ(up.batches[0].first_offset, 10);
    ASSERT_EQ(up.batches[0].state, GR_SSTORE_ARCHIVED);
    ASSERT_EQ(up.batches[0].count, 2);
    ASSERT_EQ(up.start_offset, 14);
    ASSERT_EQ(up.delivery_complete_count, 0); /* 3 + 1 - 4 passed */
    ASSERT_EQ(up.state_epoch, 3);
    gr_dlq_rollforward(&st, 15, 2, &bt, &up); /* inside the window: the start stays */
    ASSERT_EQ(up.start_offset, -1);
    ASSERT_EQ(up.delivery_complete_count, 4);
    st.delivery_complete_count = -1; /* unknown stays unknown */
    gr_dlq_rollforward(&st, 10, 2, &bt, &up);
    ASSERT_EQ(up.start_offset, 14);
    ASSERT_EQ(up.delivery_complete_count, -1);
    gr_sstore_batch_t tail[1] = {{10, 10, GR_SSTORE_AVAILABLE, 1, 0}}; /* the record itself, then nothing */
    gr_sstore_state_t st2 = {.start_offset = 10, .delivery_complete_count = 0, .batches = tail, .n_batches = 1};
    gr_dlq_rollforward(&st2, 10, 2, &bt, &up);
    ASSERT_EQ(up.start_offset, 11);
    ASSERT_EQ(up.delivery_complete_count, 0);
}

/* One acknowledgement under conf (sp_test_util's ackv uses its own CONF). */
static gr_err_t ackc(gr_sp_t *sp, const gr_sp_conf_t *conf, const char *m, int64_t f, int64_t l, int8_t type,
                     gr_sp_delta_t *d) {
    gr_sp_ack_batch_t b = {f, l, &type, 1};
    gr_sp_ack_req_t req = {m, &b, 1, false, true};
    gr_err_t err = gr_sp_acknowledge(sp, &req, conf, 0, d, NULL, 0);
    chk(sp, conf);
    return err;
}

/* Which transitions list ranges to dead-letter, with their counts and reasons. */
static void test_sp_dead(void) {
    gr_sp_conf_t conf = {2, 2000, 30000}; /* delivery limit 2 */
    gr_sp_t *sp = mk(0);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    acq(sp, "A", 500, 500, 0, &conf, 0, LB(0, 9));
    int8_t t[10] = {3, 3, 1, 0, 2, 2, 3, 1, 1, 1}; /* REJECT x2, ACCEPT, GAP, RELEASE x2, REJECT ... */
    gr_sp_ack_batch_t b = {0, 9, t, 10};
    gr_sp_ack_req_t req = {"A", &b, 1, false, true};
    ASSERT_EQ(gr_sp_acknowledge(sp, &req, &conf, 0, &d, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(d.n_dead, 2); /* [0,1] REJECT, [6,6] REJECT; the GAP and the RELEASEs below the limit: no */
    ASSERT_EQ(d.dead[0].first_offset, 0);
    ASSERT_EQ(d.dead[0].last_offset, 1);
    ASSERT_EQ(d.dead[0].reason, GR_SP_DEAD_REJECT);
    ASSERT_EQ(d.dead[0].delivery_count, 1);
    ASSERT_EQ(d.dead[1].first_offset, 6);
    gr_sp_delta_reset(&d);
    ASSERT_EQ(d.n_dead, 0);
    /* Second delivery of 4 (its last allowed attempt: delivered alone): RELEASE at the limit. */
    acq(sp, "A", 500, 500, 0, &conf, 10, LB(0, 9));
    ASSERT_EQ(st(sp, 4), GR_SP_ACQUIRED);
    ASSERT_EQ(ackc(sp, &conf, "A", 4, 4, GR_SP_ACK_RELEASE, &d), GR_ERR_NONE);
    ASSERT_EQ(d.n_dead, 1);
    ASSERT_EQ(d.dead[0].first_offset, 4);
    ASSERT_EQ(d.dead[0].reason, GR_SP_DEAD_LIMIT);
    ASSERT_EQ(d.dead[0].delivery_count, 2);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);

    /* Lock expiry at the limit, member release at the limit; below the limit: nothing. */
    sp = mk(0);
    gr_sp_delta_init(&d);
    acq(sp, "A", 500, 500, 0, &conf, 0, LB(0, 3));
    gr_sp_expire(sp, &conf, 30000, &d);
    ASSERT_EQ(d.n_dead, 0);
    acq(sp, "A", 500, 500, 0, &conf, 30000, LB(0, 3));
    gr_sp_delta_reset(&d);
    gr_sp_expire(sp, &conf, 60000, &d);
    ASSERT_EQ(d.n_dead, 1);
    ASSERT_EQ(d.dead[0].first_offset, 0);
    ASSERT_EQ(d.dead[0].last_offset, 3);
    ASSERT_EQ(d.dead[0].reason, GR_SP_DEAD_LIMIT);
    gr_sp_delta_reset(&d);
    acq(sp, "B", 500, 500, 0, &conf, 60000, LB(4, 5));
    acq(sp, "B", 500, 500, 0, &conf, 60000, LB(6, 7));
    ASSERT_EQ(ackc(sp, &conf, "B", 4, 5, GR_SP_ACK_RELEASE, NULL), GR_ERR_NONE);
    acq(sp, "B", 500, 500, 0, &conf, 60000, LB(4, 5));
    gr_sp_release_member(sp, &conf, "B", &d);
    ASSERT_EQ(d.n_dead, 1); /* 4-5 at count 2; 6-7 at count 1 go back to AVAILABLE */
    ASSERT_EQ(d.dead[0].first_offset, 4);
    ASSERT_EQ(d.dead[0].last_offset, 5);
    gr_sp_delta_reset(&d);
    /* Log start moved past acquired records: archived when acknowledged, never dead-lettered. */
    acq(sp, "C", 500, 500, 0, &conf, 60000, LB(6, 9));
    gr_sp_update_log_start(sp, 9, &d);
    ASSERT_EQ(ackc(sp, &conf, "C", 6, 8, GR_SP_ACK_REJECT, &d), GR_ERR_NONE);
    ASSERT_EQ(d.n_dead, 0);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

static void test_wanted(void) {
    ASSERT(gr_dlq_wanted(1, 2, "dlq.x"));
    ASSERT(!gr_dlq_wanted(0, 2, "dlq.x")); /* nothing archived for REJECT or the limit */
    ASSERT(!gr_dlq_wanted(1, 1, "dlq.x")); /* share.version 1: Kafka dead-letters nothing */
    ASSERT(!gr_dlq_wanted(1, 2, ""));      /* no DLQ topic for the group */
    ASSERT(!gr_dlq_wanted(1, 2, NULL));
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_wanted);
    RUN_TEST(test_check);
    RUN_TEST(test_record);
    RUN_TEST(test_parse_foreign);
    RUN_TEST(test_committed);
    RUN_TEST(test_rollforward);
    RUN_TEST(test_sp_dead);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
