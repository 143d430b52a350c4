/* A share-partition transition and its write as one unit (docs/share-state.md,
 * "Failed writes"), share side: begin saves the SP and remembers what was already
 * pending in the delta (a lazy SPSO move, §1.8, written with the next write) and the
 * SPSO; after the gr_sp_* call, own_changes says whether the transition itself must
 * be written now (batches changed or SPSO moved: a lazy move alone waits); rollback
 * undoes the transition and puts the delta back to its lazy content; end decides
 * between them: write the transition's own changes through the caller's writer, then
 * commit, or roll back when the SP refused or the write was refused.
 * Pure (the write is the caller's); one thread. */
#ifndef GR_SHARE_SP_UNIT_H
#define GR_SHARE_SP_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "share/sp.h"
#include "share/state_store.h"

/** What begin remembers. */
typedef struct gr_sp_unit_mark {
    bool lazy;          /* delta->changed at begin (a lazy SPSO move) */
    int64_t spso_begin; /* SPSO at begin */
} gr_sp_unit_mark_t;

/** Start a transition on sp whose pending changes are in d (gr_sp_begin included). */
void gr_sp_unit_begin(gr_sp_t *sp, const gr_sp_delta_t *d, gr_sp_unit_mark_t *m);
/** Whether the transition since begin changed persisted state of its own. */
bool gr_sp_unit_own_changes(const gr_sp_t *sp, const gr_sp_delta_t *d, const gr_sp_unit_mark_t *m);
/** Undo the transition (gr_sp_rollback); d keeps only the lazy content it had. */
void gr_sp_unit_rollback(gr_sp_t *sp, gr_sp_delta_t *d, const gr_sp_unit_mark_t *m);

/** Append the transition's changes (the delta) to the store: the synchronous error;
 *  with NONE, *written tells whether a record was appended, and then cb(arg, err) runs
 *  once it is durable (or failed). Must leave the delta untouched on error. */
typedef gr_err_t gr_sp_unit_write_fn(void *ctx, gr_sstore_cb *cb, void *arg, bool *written);

/** End the transition begun with m after the gr_sp_* call that returned op_err: op_err
 *  rolls back and is returned; own changes are written with write(ctx, cb, arg,
 *  written) and a refused write rolls back and is returned; else the SP commits
 *  (a lazy SPSO move alone is not written). */
gr_err_t gr_sp_unit_end(gr_sp_t *sp, gr_sp_delta_t *d, const gr_sp_unit_mark_t *m, gr_err_t op_err,
                        gr_sp_unit_write_fn *write, void *ctx, gr_sstore_cb *cb, void *arg, bool *written);

#endif
