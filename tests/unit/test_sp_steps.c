/* Unit tests for share/sp_steps.c and gr_sp_unit_end (share/sp_unit.c): lock expiry,
 * a member's release and an acknowledgement, each as one unit with a fake share-state
 * writer that accepts or refuses; a refused write leaves the SP as it was; the
 * acknowledgement waits for its write and reports its failure; the lock timer plan. */
#include "share/sp_steps.h"

#include "sp_test_util.h"

/* A fake store: refuses with `refuse`, else queues one write (cb, arg) like the store,
 * hands the delta off (reset, as the broker's writer does) and counts. */
typedef struct fake {
    gr_sp_delta_t *d;
    gr_err_t refuse;
    int writes;
    gr_sstore_cb *cb;
    void *arg;
} fake_t;

static gr_err_t fake_write(void *ctx, gr_sstore_cb *cb, void *arg, bool *written) {
    fake_t *f = ctx;
    *written = false;
    if (f->refuse) return f->refuse;
    f->writes++;
    f->cb = cb;
    f->arg = arg;
    gr_sp_delta_reset(f->d);
    *written = true;
    return GR_ERR_NONE;
}

typedef struct unit {
    gr_sp_t *sp;
    gr_sp_delta_t d;
    gr_sp_unit_mark_t m;
    fake_t f;
    gr_sp_step_t s;
} unit_t;

static void unit_init(unit_t *u) {
    u->sp = mk(0);
    gr_sp_delta_init(&u->d);
    u->f = (fake_t){.d = &u->d};
    u->s = (gr_sp_step_t){u->sp, &u->d, &u->m, fake_write, &u->f};
}

static void unit_free(unit_t *u) {
    gr_sp_delta_free(&u->d);
    gr_sp_destroy(u->sp);
}

static void test_expire(void) {
    unit_t u;
    unit_init(&u);
    acq(u.sp, "m", 100, 0, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 9)); /* locks until 31000 */
    ASSERT_EQ(gr_sp_next_deadline(u.sp), 31000);
    u.f.refuse = GR_ERR_KAFKA_STORAGE_ERROR; /* disk full: the expiry is rolled back */
    ASSERT_EQ(gr_sp_step_expire(&u.s, &CONF, 31000), GR_ERR_KAFKA_STORAGE_ERROR);
    chk(u.sp, &CONF);
    ASSERT_EQ(st(u.sp, 0), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_acquired_count(u.sp), 10);
    ASSERT_EQ(ack1(u.sp, "m", 0, 0, GR_SP_ACK_ACCEPT, 31500), GR_ERR_NONE); /* the owner still may */
    u.f.refuse = GR_ERR_NONE;
    ASSERT_EQ(gr_sp_step_expire(&u.s, &CONF, 32000), GR_ERR_NONE);
    chk(u.sp, &CONF);
    ASSERT_EQ(u.f.writes, 1);
    ASSERT_EQ(st(u.sp, 1), GR_SP_AVAILABLE);
    ASSERT_EQ(cnt(u.sp, 1), 1);
    ASSERT_EQ(gr_sp_acquired_count(u.sp), 0);
    ASSERT_EQ(gr_sp_next_deadline(u.sp), INT64_MAX);
    /* nothing expired: nothing to write */
    ASSERT_EQ(gr_sp_step_expire(&u.s, &CONF, 40000), GR_ERR_NONE);
    ASSERT_EQ(u.f.writes, 1);
    unit_free(&u);
}

static void test_release(void) {
    unit_t u;
    unit_init(&u);
    acq(u.sp, "a", 5, 0, GR_SP_MODE_RECORD_LIMIT, &CONF, 1000, LB(0, 9));
    acq(u.sp, "b", 5, 0, GR_SP_MODE_RECORD_LIMIT, &CONF, 1000, LB(0, 9));
    int64_t n = -1;
    u.f.refuse = GR_ERR_KAFKA_STORAGE_ERROR;
    ASSERT_EQ(gr_sp_step_release(&u.s, &CONF, "a", &n), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(n, 0);
    ASSERT_EQ(gr_sp_acquired_count(u.sp), 10); /* stays locked until expiry */
    u.f.refuse = GR_ERR_NONE;
    ASSERT_EQ(gr_sp_step_release(&u.s, &CONF, "a", &n), GR_ERR_NONE);
    chk(u.sp, &CONF);
    ASSERT_EQ(n, 5);
    ASSERT_EQ(gr_sp_acquired_count(u.sp), 5);
    ASSERT_EQ(st(u.sp, 0), GR_SP_AVAILABLE);
    ASSERT_EQ(st(u.sp, 5), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_step_release(&u.s, &CONF, "nobody", &n), GR_ERR_NONE);
    ASSERT_EQ(n, 0);
    unit_free(&u);
}

static int g_done;
static void on_done(void *arg) {
    (void)arg;
    g_done++;
}

static gr_err_t ack_step(unit_t *u, const char *member, int64_t first, int64_t last, int type, gr_share_ackwait_t *w,
                         int16_t *slot, char *errstr) {
    int8_t t = (int8_t)type;
    gr_sp_ack_batch_t b = {first, last, &t, 1};
    gr_sp_ack_req_t req = {member, &b, 1, false, true};
    return gr_sp_step_ack(&u->s, &req, &CONF, 2000, w, slot, errstr, 256);
}

static void test_ack(void) {
    unit_t u;
    unit_init(&u);
    char errstr[256];
    int16_t slot = 0;
    acq(u.sp, "m", 100, 0, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 9));
    /* the SP refuses (not the owner): nothing written, its own error */
    gr_share_ackwait_t *w = gr_share_ackwait_new(on_done, NULL);
    ASSERT_EQ(ack_step(&u, "other", 0, 4, GR_SP_ACK_ACCEPT, w, &slot, errstr), GR_ERR_INVALID_RECORD_STATE);
    ASSERT_EQ(u.f.writes, 0);
    /* the write is refused: rolled back, a storage error with a message */
    u.f.refuse = GR_ERR_KAFKA_STORAGE_ERROR;
    ASSERT_EQ(ack_step(&u, "m", 0, 4, GR_SP_ACK_ACCEPT, w, &slot, errstr), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(strstr(errstr, "not applied") != NULL);
    ASSERT_EQ(st(u.sp, 0), GR_SP_ACQUIRED);
    ASSERT_EQ(gr_sp_start_offset(u.sp), 0);
    ASSERT(gr_share_ackwait_arm(w)); /* nothing pending: answered at once */
    /* accepted: the answer waits for the write, whose failure marks the slot */
    u.f.refuse = GR_ERR_NONE;
    w = gr_share_ackwait_new(on_done, NULL);
    g_done = 0;
    ASSERT_EQ(ack_step(&u, "m", 0, 4, GR_SP_ACK_ACCEPT, w, &slot, errstr), GR_ERR_NONE);
    ASSERT_EQ(u.f.writes, 1);
    ASSERT_EQ(gr_sp_start_offset(u.sp), 5);
    ASSERT(!gr_share_ackwait_arm(w));
    ASSERT_EQ(g_done, 0);
    u.f.cb(u.f.arg, GR_ERR_KAFKA_STORAGE_ERROR); /* fsync failed */
    ASSERT_EQ(g_done, 1);
    ASSERT_EQ(slot, GR_ERR_KAFKA_STORAGE_ERROR);
    unit_free(&u);
}

static void test_unit_end(void) {
    unit_t u;
    unit_init(&u);
    bool written = true;
    /* the call failed: rolled back, its error returned, no write */
    gr_sp_unit_begin(u.sp, &u.d, &u.m);
    ASSERT_EQ(gr_sp_unit_end(u.sp, &u.d, &u.m, GR_ERR_INVALID_REQUEST, fake_write, &u.f, NULL, NULL, &written),
              GR_ERR_INVALID_REQUEST);
    ASSERT(!written);
    /* a lazy SPSO move alone is not written */
    gr_sp_update_log_start(u.sp, 20, &u.d);
    gr_sp_unit_begin(u.sp, &u.d, &u.m);
    ASSERT_EQ(gr_sp_unit_end(u.sp, &u.d, &u.m, GR_ERR_NONE, fake_write, &u.f, NULL, NULL, &written), GR_ERR_NONE);
    ASSERT(!written);
    ASSERT_EQ(u.f.writes, 0);
    ASSERT(u.d.changed);
    ASSERT_EQ(gr_sp_start_offset(u.sp), 20);
    unit_free(&u);
}

static void test_timer_plan(void) {
    int64_t delay = -1;
    ASSERT_EQ(gr_sp_timer_plan(INT64_MAX, true, 500, 100, &delay), GR_SP_TIMER_STOP);
    ASSERT_EQ(gr_sp_timer_plan(500, true, 500, 100, &delay), GR_SP_TIMER_KEEP);
    ASSERT_EQ(gr_sp_timer_plan(400, true, 500, 100, &delay), GR_SP_TIMER_START);
    ASSERT_EQ(delay, 300);
    ASSERT_EQ(gr_sp_timer_plan(500, false, 500, 100, &delay), GR_SP_TIMER_START);
    ASSERT_EQ(delay, 400);
    ASSERT_EQ(gr_sp_timer_plan(50, false, 0, 100, &delay), GR_SP_TIMER_START); /* overdue: fires at once */
    ASSERT_EQ(delay, -50);
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_expire);
    RUN_TEST(test_release);
    RUN_TEST(test_ack);
    RUN_TEST(test_unit_end);
    RUN_TEST(test_timer_plan);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
