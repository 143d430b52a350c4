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
