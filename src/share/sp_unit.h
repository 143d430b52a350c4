/* A share-partition transition and its write as one unit (docs/share-state.md,
 * "Failed writes"), share side: begin saves the SP and remembers what was already
 * pending in the delta (a lazy SPSO move, §1.8, written with the next write) and the
 * SPSO; after the gr_sp_* call, own_changes says whether the transition itself must
 * be written now (batches changed or SPSO moved: a lazy move alone waits); rollback
 * undoes the transition and puts the delta back to its lazy content. The broker's
 * share_parts.c does the write between the two and calls commit or rollback.
 * Pure; one thread. */
#ifndef GR_SHARE_SP_UNIT_H
#define GR_SHARE_SP_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "share/sp.h"

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

#endif
