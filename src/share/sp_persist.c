/* Share-partition <-> share-state store rules: see sp_persist.h. */
#include "share/sp_persist.h"

#include <stdlib.h>

#include "base/xalloc.h"

void gr_sp_persist_update(const gr_sp_delta_t *d, int64_t now_ms, int64_t wall_ms, gr_sstore_batch_t *bv,
                          gr_sstore_update_t *up) {
    for (size_t i = 0; i < d->n; i++) {
        int64_t nb = d->batches[i].not_before_ms; /* loop clock -> wall clock */
        bv[i] = (gr_sstore_batch_t){d->batches[i].first_offset, d->batches[i].last_offset, d->batches[i].state,
                                    d->batches[i].delivery_count, nb > 0 ? wall_ms + (nb - now_ms) : 0};
    }
    *up = (gr_sstore_update_t){
        .state_epoch = d->state_epoch,
        .leader_epoch = -1,
        .start_offset = d->start_offset,
        .delivery_complete_count =
            d->delivery_complete_count > INT32_MAX ? INT32_MAX : (int32_t)d->delivery_complete_count,
        .batches = bv,
        .n_batches = d->n,
    };
}

void gr_sp_persist_batches(const gr_sstore_state_t *st, int64_t now_ms, int64_t wall_ms, gr_sp_batch_t *out) {
    for (size_t i = 0; i < st->n_batches; i++) {
        const gr_sstore_batch_t *b = &st->batches[i];
        int64_t due = b->due_ms; /* wall clock -> loop clock; a due time already past is none */
        out[i] = (gr_sp_batch_t){b->first_offset, b->last_offset, b->state, b->count,
                                 due > wall_ms ? now_ms + (due - wall_ms) : 0};
    }
}

int64_t gr_sp_reset_offset(const gr_sgc_values_t *vals, const gr_share_log_view_t *log, int64_t wall_ms) {
    if (vals->auto_offset_reset == GR_SGC_RESET_EARLIEST) return log->start_offset;
    if (vals->auto_offset_reset != GR_SGC_RESET_BY_DURATION) return log->end_offset;
    int64_t off;
    if (!log->offset_for_time || !log->offset_for_time(log->ctx, wall_ms - vals->reset_duration_ms, &off))
        return log->end_offset;
    return off;
}

gr_err_t gr_sp_load(gr_sp_t *sp, gr_err_t read_err, const gr_sstore_state_t *st, const gr_sgc_values_t *vals,
                    const gr_share_log_view_t *log, int64_t now_ms, int64_t wall_ms, char *why, size_t why_size) {
    if (why_size) why[0] = 0;
    if (read_err == GR_ERR__NOENT || (!read_err && st->start_offset < 0)) {
        /* The computed SPSO is written with the first write, not now (§1.10 step 2). */
        gr_sp_init_offset(sp, gr_sp_reset_offset(vals, log, wall_ms), read_err ? 0 : st->state_epoch);
        return GR_ERR_NONE;
    }
    if (read_err) return GR_ERR_UNKNOWN_SERVER_ERROR;
    gr_sp_batch_t *bv = gr_xcalloc(st->n_batches, sizeof(*bv));
    gr_sp_persist_batches(st, now_ms, wall_ms, bv);
    gr_err_t err = gr_sp_init_persisted(sp, st->start_offset, st->state_epoch, bv, st->n_batches, why, why_size);
    free(bv);
    return err ? GR_ERR_UNKNOWN_SERVER_ERROR : GR_ERR_NONE;
}

bool gr_sp_persist_start_needed(gr_err_t read_err, const gr_sstore_state_t *st, int32_t state_epoch, int64_t spso_begin,
                                gr_sstore_update_t *up) {
    if (!read_err && st->start_offset >= 0) return false;
    *up = (gr_sstore_update_t){
        .state_epoch = state_epoch, .leader_epoch = -1, .start_offset = spso_begin, .delivery_complete_count = -1};
    return true;
}

gr_err_t gr_sp_persister_error(gr_err_t err) {
    switch (err) {
    case GR_ERR_FENCED_STATE_EPOCH:
    case GR_ERR_FENCED_LEADER_EPOCH: return GR_ERR_NOT_LEADER_OR_FOLLOWER;
    case GR_ERR_COORDINATOR_NOT_AVAILABLE:
    case GR_ERR_KAFKA_STORAGE_ERROR:
    case GR_ERR_UNKNOWN_TOPIC_OR_PARTITION:
    case GR_ERR_INVALID_REQUEST: return err;
    default: return GR_ERR_UNKNOWN_SERVER_ERROR;
    }
}
