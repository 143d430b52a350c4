/* The pure rules between an in-memory share-partition (share/sp.h, on the broker's
 * loop clock) and its durable state (share/state_store.h, on the wall clock), used
 * by the broker's share-partition manager (share_parts.c in the broker):
 *  - a delta becomes one store update, and a stored state becomes the SP's batches,
 *    converting redelivery due times between the two clocks (both passed in);
 *  - share.auto.offset.reset picks the start offset of a share-partition with no
 *    state (§1.10 step 2) against a view of the partition log;
 *  - loading (§1.10): the share-state store's answer for a new SP makes it ACTIVE,
 *    from the persisted state or from share.auto.offset.reset;
 *  - a dead-lettering transition needs a durable start offset first (docs/dlq.md §7);
 *  - the persister's errors become the wire errors a share-partition answers (§1.10
 *    step 4).
 * Pure; any thread. */
#ifndef GR_SHARE_SP_PERSIST_H
#define GR_SHARE_SP_PERSIST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "share/group_config.h"
#include "share/sp.h"
#include "share/state_store.h"

/** The store update for delta d: bv (d->n slots) gets its batches, a due time on the
 *  loop clock now_ms becoming one on the wall clock wall_ms (it must survive a
 *  restart). up->batches points at bv. */
void gr_sp_persist_update(const gr_sp_delta_t *d, int64_t now_ms, int64_t wall_ms, gr_sstore_batch_t *bv,
                          gr_sstore_update_t *up);
/** The SP batches of a stored state: out (st->n_batches slots); a wall-clock due time
 *  already past (<= wall_ms) is none, a future one moves to the loop clock. */
void gr_sp_persist_batches(const gr_sstore_state_t *st, int64_t now_ms, int64_t wall_ms, gr_sp_batch_t *out);

/** What share.auto.offset.reset needs of a partition log. */
typedef struct gr_share_log_view {
    int64_t start_offset, end_offset;
    /* The first offset whose record timestamp is >= ts_ms; false when there is none. */
    bool (*offset_for_time)(void *ctx, int64_t ts_ms, int64_t *offset);
    void *ctx;
} gr_share_log_view_t;

/** §1.10 step 2: the start offset of a share-partition without state. latest: the log
 *  end; earliest: the log start; by_duration: the first record at or after
 *  wall_ms - duration, else latest (Kafka would fail the initialisation; the spec
 *  recommends latest). */
int64_t gr_sp_reset_offset(const gr_sgc_values_t *vals, const gr_share_log_view_t *log, int64_t wall_ms);

/** §1.10: initialise a new sp from the store's answer for its key (read_err, st): no
 *  state (GR_ERR__NOENT) or a start offset of -1 resolves share.auto.offset.reset
 *  against log (keeping a stored state epoch); otherwise the persisted batches, their
 *  due times moved from wall_ms to the loop clock now_ms. Returns NONE, or
 *  UNKNOWN_SERVER_ERROR: the store failed to read (why "") or the state is corrupt
 *  (why says how; the caller logs it and must not keep sp). */
gr_err_t gr_sp_load(gr_sp_t *sp, gr_err_t read_err, const gr_sstore_state_t *st, const gr_sgc_values_t *vals,
                    const gr_share_log_view_t *log, int64_t now_ms, int64_t wall_ms, char *why, size_t why_size);

/** Before the share-state record of a dead-lettering transition the durable state must
 *  carry a start offset, so that recovery can roll the archive forward into it. From
 *  the store's answer (read_err, st): true when it does not yet, with *up the record
 *  that writes spso_begin (the SPSO when the transition began) at state_epoch. */
bool gr_sp_persist_start_needed(gr_err_t read_err, const gr_sstore_state_t *st, int32_t state_epoch, int64_t spso_begin,
                                gr_sstore_update_t *up);

/** §1.10 step 4: a share-state store error as the share-partition surfaces it. */
gr_err_t gr_sp_persister_error(gr_err_t err);

#endif
