/* Unit tests for share/sp_unit.c: a share-partition transition as one unit with its
 * write — own changes force a write, a lazy SPSO move alone does not; rollback
 * restores the SP and leaves the delta with only its lazy content. */
#include "share/sp_unit.h"

#include "sp_test_util.h"

static void test_ack_rollback_and_commit(void) {
    gr_sp_t *sp = mk(0);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    acq(sp, "m", 100, 0, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(0, 9));
    ASSERT_EQ(st(sp, 0), GR_SP_ACQUIRED);
    gr_sp_unit_mark_t m;
    /* a transition that changes nothing persisted: no write needed */
    gr_sp_unit_begin(sp, &d, &m);
    ASSERT(!m.lazy);
    ASSERT_EQ(m.spso_begin, 0);
    ASSERT(!gr_sp_unit_own_changes(sp, &d, &m));
    gr_sp_unit_rollback(sp, &d, &m);
    /* an acknowledgement: own changes (batches, and the SPSO moves past 0-4) */
    gr_sp_unit_begin(sp, &d, &m);
    ASSERT_EQ(ackv(sp, "m", 0, 4, (const int8_t[]){GR_SP_ACK_ACCEPT}, 1, 1000, &d), GR_ERR_NONE);
    ASSERT(gr_sp_unit_own_changes(sp, &d, &m));
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    /* the write was refused: everything is back, the delta holds nothing */
    gr_sp_unit_rollback(sp, &d, &m);
    chk(sp, &CONF);
    ASSERT_EQ(gr_sp_start_offset(sp), 0);
    ASSERT_EQ(st(sp, 0), GR_SP_ACQUIRED);
    ASSERT_EQ(st(sp, 4), GR_SP_ACQUIRED);
    ASSERT_EQ(d.n, 0);
    ASSERT(!d.changed);
    ASSERT_EQ(d.start_offset, 0);
    /* again, and this time the write is accepted */
    gr_sp_unit_begin(sp, &d, &m);
    ASSERT_EQ(ackv(sp, "m", 0, 4, (const int8_t[]){GR_SP_ACK_ACCEPT}, 1, 1000, &d), GR_ERR_NONE);
    ASSERT(gr_sp_unit_own_changes(sp, &d, &m));
    gr_sp_commit(sp);
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

static void test_lazy_spso(void) {
    gr_sp_t *sp = mk(0);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    gr_sp_update_log_start(sp, 20, &d); /* retention moved the log start: a lazy change */
    ASSERT(d.changed);
    ASSERT_EQ(gr_sp_start_offset(sp), 20);
    gr_sp_unit_mark_t m;
    gr_sp_unit_begin(sp, &d, &m);
    ASSERT(m.lazy);
    ASSERT_EQ(m.spso_begin, 20);
    ASSERT(!gr_sp_unit_own_changes(sp, &d, &m)); /* the lazy move alone waits for the next write */
    acq(sp, "m", 100, 0, GR_SP_MODE_BATCH_OPTIMIZED, &CONF, 1000, LB(20, 29));
    ASSERT_EQ(gr_sp_acquired_count(sp), 10);
    ASSERT(!gr_sp_unit_own_changes(sp, &d, &m)); /* acquisitions are not persisted */
    gr_sp_unit_rollback(sp, &d, &m);
    ASSERT_NE(st(sp, 20), GR_SP_ACQUIRED); /* the acquisition is undone */
    ASSERT_EQ(gr_sp_acquired_count(sp), 0);
    ASSERT(d.changed); /* the lazy move is still to be written */
    ASSERT_EQ(d.start_offset, 20);
    ASSERT_EQ(d.n, 0);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_ack_rollback_and_commit);
    RUN_TEST(test_lazy_spso);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
