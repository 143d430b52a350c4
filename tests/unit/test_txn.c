/* Transaction coordinator state machine (src/txn): InitProducerId bumps, fencing and
 * KIP-360 recovery, epoch exhaustion (producer id rotation), AddPartitions, EndTxn with
 * transaction versions 0 and 2 (bump on every end, retries, overflow), the
 * coordinator's fenced abort, timeouts, expiration, failed writes, and the transaction
 * log record codec (round trip and malformed input). */
#include "testutil.h"

#include "base/err.h"
#include "txn/txn.h"
#include "txn/txn_record.h"

static int64_t g_next_pid = 100;
static int64_t next_pid(void *arg) {
    (void)arg;
    return g_next_pid++;
}

static gr_txn_reg_t reg;

static void reg_new(void) {
    gr_txn_cfg_t c;
    gr_txn_cfg_default(&c);
    c.id_expiration_ms = 1000;
    gr_txn_reg_init(&reg, &c, next_pid, NULL);
}

/* A new id as InitProducerId creates it (epoch -1), then its first InitProducerId. */
static gr_txn_t *new_id(const char *id, int64_t now) {
    gr_txn_meta_t m;
    gr_txn_meta_init(&m);
    m.pid = next_pid(NULL);
    m.timeout_ms = 60000;
    m.update_ms = now;
    gr_txn_t *t = gr_txn_put(&reg, id, strlen(id), &m);
    gr_txn_meta_free(&m);
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 60000, false, -1, -1, now), 0);
    gr_txn_apply(t);
    return t;
}

static gr_txn_tpart_t TP0 = {"t", 0}, TP1 = {"t", 1};

static void add(gr_txn_t *t, const gr_txn_tpart_t *p, int8_t tv) {
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, t->m.pid, t->m.epoch, p, 1, tv, 10), 0);
    gr_txn_apply(t);
}

static void test_init_and_bump(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 1);
    ASSERT_EQ(t->m.epoch, 0);
    ASSERT_EQ(t->m.state, GR_TXN_EMPTY);
    int64_t pid = t->m.pid;
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 5000, false, -1, -1, 2), 0);
    ASSERT(t->pending);
    /* A pending change blocks every other. */
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 5000, false, -1, -1, 2), GR_ERR_CONCURRENT_TRANSACTIONS);
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid, 0, &TP0, 1, 0, 2), GR_ERR_CONCURRENT_TRANSACTIONS);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, 1);
    ASSERT_EQ(t->m.last_epoch, -1);
    ASSERT_EQ(t->m.timeout_ms, 5000);
    ASSERT_EQ(t->m.pid, pid);
    /* KIP-360: the current (pid, epoch) bumps and records the last epoch; a retry of
     * that answers the same epoch; another pid or an old epoch is fenced. */
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 5000, true, pid, 1, 3), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, 2);
    ASSERT_EQ(t->m.last_epoch, 1);
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 5000, true, pid, 1, 3), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, 2);
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 5000, true, pid + 1, 2, 3), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 5000, true, pid, 0, 3), GR_ERR_PRODUCER_FENCED);
    gr_txn_reg_free(&reg);
}

static void test_add_and_verify(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 1);
    int64_t pid = t->m.pid;
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid + 1, 0, &TP0, 1, 0, 5), GR_ERR_INVALID_PRODUCER_ID_MAPPING);
    ASSERT_EQ(gr_txn_add_partitions(&reg, NULL, pid, 0, &TP0, 1, 0, 5), GR_ERR_INVALID_PRODUCER_ID_MAPPING);
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid, 1, &TP0, 1, 0, 5), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_verify(t, pid, 0, "t", 0), GR_ERR_TRANSACTION_ABORTABLE);
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid, 0, &TP0, 1, 0, 5), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.state, GR_TXN_ONGOING);
    ASSERT_EQ(t->m.start_ms, 5);
    ASSERT_EQ(gr_txn_verify(t, pid, 0, "t", 0), 0);
    ASSERT_EQ(gr_txn_verify(t, pid, 1, "t", 0), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_verify(t, pid, 0, "t", 1), GR_ERR_TRANSACTION_ABORTABLE);
    /* Already there: nothing to write. */
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid, 0, &TP0, 1, 0, 6), GR_TXN_NOOP);
    add(t, &TP1, 0);
    ASSERT_EQ(t->m.n_parts, 2);
    ASSERT_EQ(t->m.start_ms, 5); /* the transaction's start stays */
    gr_txn_reg_free(&reg);
}

static void test_end_v0(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 1);
    int64_t pid = t->m.pid, op;
    int16_t oe;
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 0, 5, &op, &oe), GR_ERR_INVALID_TXN_STATE); /* Empty */
    add(t, &TP0, 0);
    ASSERT_EQ(gr_txn_end(&reg, t, pid + 1, 0, true, true, 0, 5, &op, &oe), GR_ERR_INVALID_PRODUCER_ID_MAPPING);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 1, true, true, 0, 5, &op, &oe), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 0, 5, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.state, GR_TXN_PREPARE_COMMIT);
    ASSERT_EQ(t->m.epoch, 0); /* version 0: no bump */
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 0, 6, &op, &oe), GR_ERR_CONCURRENT_TRANSACTIONS);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, false, true, 0, 6, &op, &oe), GR_ERR_INVALID_TXN_STATE);
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 60000, false, -1, -1, 6), GR_ERR_CONCURRENT_TRANSACTIONS);
    ASSERT_EQ(gr_txn_complete(t, 7), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.state, GR_TXN_COMPLETE_COMMIT);
    ASSERT_EQ(t->m.n_parts, 0);
    /* A retried commit succeeds; an abort now is invalid. */
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 0, 8, &op, &oe), GR_TXN_NOOP);
    ASSERT_EQ(op, pid);
    ASSERT_EQ(oe, 0);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, false, true, 0, 8, &op, &oe), GR_ERR_INVALID_TXN_STATE);
    gr_txn_reg_free(&reg);
}

static void test_end_v2(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 1);
    int64_t pid = t->m.pid, op;
    int16_t oe;
    add(t, &TP0, 2);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 2, 5, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, 1); /* bumped on every end */
    ASSERT_EQ(t->m.last_epoch, 0);
    /* The retry carries the old epoch: still preparing -> CONCURRENT_TRANSACTIONS. */
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 2, 6, &op, &oe), GR_ERR_CONCURRENT_TRANSACTIONS);
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid, 0, &TP0, 1, 2, 6), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_add_partitions(&reg, t, pid, 1, &TP0, 1, 2, 6), GR_ERR_CONCURRENT_TRANSACTIONS);
    ASSERT_EQ(gr_txn_complete(t, 7), 0);
    gr_txn_apply(t);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 2, 8, &op, &oe), GR_TXN_NOOP);
    ASSERT_EQ(oe, 1);
    /* A new transaction at the new epoch. */
    add(t, &TP1, 2);
    ASSERT_EQ(t->m.state, GR_TXN_ONGOING);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, false, true, 2, 9, &op, &oe), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 1, false, true, 2, 9, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(gr_txn_complete(t, 10), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.state, GR_TXN_COMPLETE_ABORT);
    ASSERT_EQ(t->m.epoch, 2);
    /* An abort with no partition added still bumps the epoch (no markers to write). */
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 2, false, true, 2, 11, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.state, GR_TXN_PREPARE_ABORT);
    ASSERT_EQ(t->m.epoch, 3);
    ASSERT_EQ(t->m.n_parts, 0);
    gr_txn_reg_free(&reg);
}

static void test_epoch_overflow(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 1);
    int64_t pid = t->m.pid, op;
    int16_t oe;
    /* InitProducerId at an exhausted epoch rotates the producer id. */
    t->m.epoch = INT16_MAX - 1;
    ASSERT(gr_txn_epoch_exhausted(t->m.epoch));
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 60000, false, -1, -1, 2), 0);
    gr_txn_apply(t);
    ASSERT_NE(t->m.pid, pid);
    ASSERT_EQ(t->m.epoch, 0);
    ASSERT_EQ(t->m.prev_pid, pid);
    /* Version 2: the end that exhausts the epoch hands over to a new producer id when complete. */
    pid = t->m.pid;
    t->m.epoch = INT16_MAX - 1;
    add(t, &TP0, 2);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, INT16_MAX - 1, true, true, 2, 5, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, INT16_MAX);
    int64_t next = t->m.next_pid;
    ASSERT(next >= 0 && next != pid);
    ASSERT_EQ(gr_txn_complete(t, 6), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.pid, next);
    ASSERT_EQ(t->m.epoch, 0);
    ASSERT_EQ(t->m.prev_pid, pid);
    /* The client's retry with the old producer id and epoch: answered, not fenced. */
    ASSERT_EQ(gr_txn_end(&reg, t, pid, INT16_MAX - 1, true, true, 2, 7, &op, &oe), GR_TXN_NOOP);
    ASSERT_EQ(op, next);
    ASSERT_EQ(oe, 0);
    gr_txn_reg_free(&reg);
}

static void test_fence_and_timeout(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 1);
    int64_t pid = t->m.pid, op;
    int16_t oe;
    add(t, &TP0, 0);
    ASSERT(!gr_txn_timed_out(t, 10 + 60000));
    ASSERT(gr_txn_timed_out(t, 10 + 60001));
    /* InitProducerId during a transaction: fence (not written), then the abort. */
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 60000, false, -1, -1, 20), GR_TXN_FENCE);
    ASSERT_EQ(t->pending_state, GR_TXN_PREPARE_EPOCH_FENCE);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, t->transit.epoch, false, false, 0, 20, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.state, GR_TXN_PREPARE_ABORT);
    ASSERT_EQ(t->m.epoch, 1);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, 0, true, true, 0, 21, &op, &oe), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr_txn_complete(t, 22), 0);
    gr_txn_apply(t);
    ASSERT_EQ(gr_txn_init_pid(&reg, t, 60000, false, -1, -1, 23), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, 2);
    /* A failed fence write is not bumped again. */
    add(t, &TP0, 0);
    ASSERT_EQ(gr_txn_fence(t), 0);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, t->transit.epoch, false, false, 0, 30, &op, &oe), 0);
    gr_txn_cancel(t);
    ASSERT(t->failed_fence);
    ASSERT_EQ(t->m.epoch, 3);
    ASSERT_EQ(gr_txn_fence(t), 0);
    ASSERT_EQ(t->transit.epoch, 3);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, t->transit.epoch, false, false, 0, 31, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(gr_txn_complete(t, 32), 0);
    gr_txn_apply(t);
    ASSERT(!t->failed_fence);
    /* Version 2: the fenced abort bumps once. */
    add(t, &TP0, 2);
    int16_t e = t->m.epoch;
    ASSERT_EQ(gr_txn_fence(t), 0);
    ASSERT_EQ(gr_txn_end(&reg, t, pid, t->transit.epoch, false, false, 2, 40, &op, &oe), 0);
    gr_txn_apply(t);
    ASSERT_EQ(t->m.epoch, e + 1);
    gr_txn_reg_free(&reg);
}

static void test_expire(void) {
    reg_new();
    gr_txn_t *t = new_id("a", 100);
    ASSERT(!gr_txn_expired(&reg, t, 1099));
    ASSERT(gr_txn_expired(&reg, t, 1100));
    add(t, &TP0, 0);
    ASSERT(!gr_txn_expired(&reg, t, 100000)); /* an ongoing transaction never expires */
    gr_txn_t *b = new_id("b", 100);
    ASSERT_EQ(gr_txn_expire(b), 0);
    ASSERT_EQ(b->pending_state, GR_TXN_DEAD);
    gr_txn_remove(&reg, b);
    ASSERT(gr_txn_find(&reg, "b", 1) == NULL);
    ASSERT(gr_txn_find(&reg, "a", 1) == t);
    ASSERT_EQ(gr_txn_count(&reg), 1);
    gr_txn_reg_free(&reg);
}

static void test_names(void) {
    ASSERT_STREQ(gr_txn_state_name(GR_TXN_PREPARE_EPOCH_FENCE), "PrepareEpochFence");
    ASSERT_EQ(gr_txn_state_by_name("CompleteAbort", 13), GR_TXN_COMPLETE_ABORT);
    ASSERT_EQ(gr_txn_state_by_name("Bogus", 5), -1);
    ASSERT(gr_txn_state_name(8) == NULL);
}

static void test_record(void) {
    gr_txn_meta_t m, d;
    gr_txn_meta_init(&m);
    m.pid = 7;
    m.prev_pid = 6;
    m.next_pid = -1;
    m.epoch = 3;
    m.last_epoch = 2;
    m.timeout_ms = 60000;
    m.state = GR_TXN_PREPARE_COMMIT;
    m.start_ms = 11;
    m.update_ms = 12;
    m.tv = 2;
    gr_txn_meta_add(&m, "orders", 3);
    gr_txn_meta_add(&m, "__consumer_offsets", 17);
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_txn_rec_key(&k, "my-id", 5);
    gr_txn_rec_value(&v, &m);
    const char *id, *why = NULL;
    size_t idl;
    ASSERT_EQ(gr_txn_rec_decode_key(k.mem, k.len, &id, &idl, &why), 0);
    ASSERT_EQ(idl, 5);
    ASSERT_MEMEQ(id, "my-id", 5);
    ASSERT_EQ(gr_txn_rec_decode_value(v.mem, v.len, &d, &why), 0);
    ASSERT_EQ(d.pid, 7);
    ASSERT_EQ(d.prev_pid, 6);
    ASSERT_EQ(d.epoch, 3);
    ASSERT_EQ(d.last_epoch, 2);
    ASSERT_EQ(d.state, GR_TXN_PREPARE_COMMIT);
    ASSERT_EQ(d.start_ms, 11);
    ASSERT_EQ(d.tv, 2);
    ASSERT_EQ(d.n_parts, 2);
    ASSERT(gr_txn_meta_has(&d, "__consumer_offsets", 17));
    gr_txn_meta_free(&d);
    /* Every truncation, a trailing byte, a bad state and a repeated partition fail. */
    for (size_t n = 0; n < v.len; n++) {
        ASSERT_EQ(gr_txn_rec_decode_value(v.mem, n, &d, &why), GR_ERR__MALFORMED);
        gr_txn_meta_free(&d);
    }
    uint8_t buf[512];
    memcpy(buf, v.mem, v.len);
    buf[v.len] = 0;
    ASSERT_EQ(gr_txn_rec_decode_value(buf, v.len + 1, &d, &why), GR_ERR__MALFORMED);
    gr_txn_meta_free(&d);
    buf[2 + 24 + 4 + 4] = 9; /* the state byte */
    ASSERT_EQ(gr_txn_rec_decode_value(buf, v.len, &d, &why), GR_ERR__MALFORMED);
    gr_txn_meta_free(&d);
    ASSERT_EQ(gr_txn_rec_decode_key((const uint8_t *)"\0\1x", 3, &id, &idl, &why), GR_ERR__MALFORMED);
    ASSERT_EQ(gr_txn_rec_decode_key((const uint8_t *)"\0\0", 2, &id, &idl, &why), GR_ERR__MALFORMED);
    gr_wbuf_reset(&v);
    gr_txn_meta_add(&m, "orders", 4);
    m.parts[2].partition = 3; /* a repeat */
    gr_txn_rec_value(&v, &m);
    ASSERT_EQ(gr_txn_rec_decode_value(v.mem, v.len, &d, &why), GR_ERR__MALFORMED);
    gr_txn_meta_free(&d);
    gr_txn_meta_free(&m);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
}

int main(void) {
    RUN_TEST(test_init_and_bump);
    RUN_TEST(test_add_and_verify);
    RUN_TEST(test_end_v0);
    RUN_TEST(test_end_v2);
    RUN_TEST(test_epoch_overflow);
    RUN_TEST(test_fence_and_timeout);
    RUN_TEST(test_expire);
    RUN_TEST(test_names);
    RUN_TEST(test_record);
    return 0;
}
