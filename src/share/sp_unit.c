/* A share-partition transition and its write as one unit: see sp_unit.h. */
#include "share/sp_unit.h"

void gr_sp_unit_begin(gr_sp_t *sp, const gr_sp_delta_t *d, gr_sp_unit_mark_t *m) {
    m->lazy = d->changed;
    m->spso_begin = gr_sp_start_offset(sp);
    gr_sp_begin(sp);
}

bool gr_sp_unit_own_changes(const gr_sp_t *sp, const gr_sp_delta_t *d, const gr_sp_unit_mark_t *m) {
    return d->n > 0 || gr_sp_start_offset(sp) != m->spso_begin;
}

void gr_sp_unit_rollback(gr_sp_t *sp, gr_sp_delta_t *d, const gr_sp_unit_mark_t *m) {
    gr_sp_rollback(sp);
    gr_sp_delta_reset(d);
    d->changed = m->lazy;
    d->start_offset = gr_sp_start_offset(sp);
    d->delivery_complete_count = gr_sp_delivery_complete_count(sp);
    d->state_epoch = gr_sp_state_epoch(sp);
}

gr_err_t gr_sp_unit_end(gr_sp_t *sp, gr_sp_delta_t *d, const gr_sp_unit_mark_t *m, gr_err_t op_err,
                        gr_sp_unit_write_fn *write, void *ctx, gr_sstore_cb *cb, void *arg, bool *written) {
    *written = false;
    if (op_err) { /* the SP refused: nothing changed, but leave no doubt */
        gr_sp_unit_rollback(sp, d, m);
        return op_err;
    }
    gr_err_t err = gr_sp_unit_own_changes(sp, d, m) ? write(ctx, cb, arg, written) : GR_ERR_NONE;
    if (err) { /* nothing was written: memory must not run ahead of the disk */
        gr_sp_unit_rollback(sp, d, m);
        return err;
    }
    gr_sp_commit(sp);
    return GR_ERR_NONE;
}
