/* Share-partition transitions as units with their writes: see sp_steps.h. */
#include "share/sp_steps.h"

#include <stdio.h>

#include "share/sp_persist.h"

void gr_sp_step_begin(const gr_sp_step_t *s) { gr_sp_unit_begin(s->sp, s->delta, s->mark); }

gr_err_t gr_sp_step_end(const gr_sp_step_t *s, gr_err_t op_err, gr_sstore_cb *cb, void *arg, bool *written) {
    return gr_sp_unit_end(s->sp, s->delta, s->mark, op_err, s->write, s->ctx, cb, arg, written);
}

gr_err_t gr_sp_step_expire(const gr_sp_step_t *s, const gr_sp_conf_t *conf, int64_t now_ms) {
    bool written;
    gr_sp_step_begin(s);
    (void)gr_sp_expire(s->sp, conf, now_ms, s->delta);
    return gr_sp_step_end(s, GR_ERR_NONE, NULL, NULL, &written);
}

gr_err_t gr_sp_step_release(const gr_sp_step_t *s, const gr_sp_conf_t *conf, const char *member, int64_t *released) {
    bool written;
    gr_sp_step_begin(s);
    int64_t n = gr_sp_release_member(s->sp, conf, member, s->delta);
    gr_err_t err = gr_sp_step_end(s, GR_ERR_NONE, NULL, NULL, &written); /* §7.2: written after a release */
    *released = err ? 0 : n;
    return err;
}

gr_err_t gr_sp_step_ack(const gr_sp_step_t *s, const gr_sp_ack_req_t *ar, const gr_sp_conf_t *conf, int64_t now_ms,
                        gr_share_ackwait_t *w, int16_t *err_slot, char *errstr, size_t errstr_size) {
    bool written;
    gr_sp_step_begin(s);
    gr_err_t err = gr_sp_acknowledge(s->sp, ar, conf, now_ms, s->delta, errstr, errstr_size);
    if (err) return gr_sp_step_end(s, err, NULL, NULL, &written);
    gr_share_ackslot_t *slot = gr_share_ackslot_new(w, err_slot);
    err = gr_sp_step_end(s, GR_ERR_NONE, gr_share_ackslot_done, slot, &written);
    gr_share_ackslot_commit(slot, !err && written);
    if (!err) return GR_ERR_NONE;
    snprintf(errstr, errstr_size, "The share state could not be written; the acknowledgement was not applied.");
    return gr_sp_persister_error(err);
}

gr_sp_timer_action_t gr_sp_timer_plan(int64_t due, bool active, int64_t active_due, int64_t now_ms, int64_t *delay_ms) {
    *delay_ms = 0;
    if (due == INT64_MAX) return GR_SP_TIMER_STOP;
    if (active && active_due == due) return GR_SP_TIMER_KEEP;
    *delay_ms = due - now_ms;
    return GR_SP_TIMER_START;
}
