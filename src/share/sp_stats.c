/* Share-partition metrics: the counters of share_stats.h, updated where a
 * transition happens (sp_core.c, sp_acquire.c, sp_ack.c). Transactions save
 * and restore them with the rest of the state (sp_txn.c).
 *
 * @locality the thread that owns the SP. */
#include "share/sp_int.h"

void gr_sp_set_stats(gr_sp_t *sp, gr_share_stats_t *stats) { sp->stats = stats; }

void gr__sp_stat_acquired(gr_sp_t *sp, int64_t n, int16_t count) {
    if (!sp->stats) return;
    sp->stats->acquired += (uint64_t)n;
    if (count >= 2) sp->stats->redeliveries += (uint64_t)n;
}

/* n records of one range acknowledged with wire type `type` (GR_SP_ACK_*). */
void gr__sp_stat_ack(gr_sp_t *sp, int type, int64_t n, uint32_t acq_at) {
    if (!sp->stats) return;
    gr_share_ack_type_t t;
    switch (type) {
    case GR_SP_ACK_ACCEPT: t = GR_SHARE_ACK_ACCEPT; break;
    case GR_SP_ACK_RELEASE: t = GR_SHARE_ACK_RELEASE; break;
    case GR_SP_ACK_REJECT: t = GR_SHARE_ACK_REJECT; break;
    case GR_SP_ACK_RENEW: t = GR_SHARE_ACK_RENEW; break;
    default: t = GR_SHARE_ACK_GAP; break;
    }
    sp->stats->acks[t] += (uint64_t)n;
    /* W ends at the consumer's decision; RENEW and GAP are not decisions on a record. */
    if (t == GR_SHARE_ACK_ACCEPT || t == GR_SHARE_ACK_RELEASE || t == GR_SHARE_ACK_REJECT)
        gr_hist_observe_n(&sp->stats->in_flight, (sp->clock - gr__sp_time(sp, acq_at)) * 1000, (uint64_t)n);
}

void gr__sp_stat_archived(gr_sp_t *sp, gr_share_archive_reason_t why, int64_t n) {
    if (sp->stats && n > 0) sp->stats->archived[why] += (uint64_t)n;
}

void gr__sp_stat_timeout(gr_sp_t *sp, int64_t n) {
    if (sp->stats) sp->stats->lock_timeouts += (uint64_t)n;
}

void gr__sp_stat_save(gr_sp_t *sp) {
    if (sp->stats) sp->saved_stats = *sp->stats;
}

void gr__sp_stat_restore(gr_sp_t *sp) {
    if (sp->stats) *sp->stats = sp->saved_stats;
}
