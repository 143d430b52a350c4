/* The share-group dead-letter queue in the broker (KIP-1191; docs/dlq.md §6-§7).
 *
 * A share-partition transition that archives records for REJECT or at the delivery
 * count limit lists them in its delta (gr_sp_delta_t.dead). Before the transition's
 * share-state record is written, gr_share_dlq_write appends their DLQ records to the
 * DLQ topic's partition log, on the loop thread, in the same step. The share-state
 * record is the commit point and is written only after the DLQ batch is fsynced
 * (share_wq.h), so whatever survives a crash or a power loss, a durable archive has its
 * DLQ records. The other torn case, DLQ records whose archive is not in the share
 * state, is rolled forward by gr_share_dlq_recover (start-up), so every archived record
 * is in the DLQ exactly once. The acknowledgement answer waits for both fsyncs.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_DLQ_H
#define GR_BROKER_SHARE_DLQ_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "broker/partitions.h"
#include "broker/share_parts.h"

/** Where a transition's DLQ records went (p NULL: nothing written). */
typedef struct gr_share_dlq_out {
    gr_partition_t *p;
    int64_t end; /* log end offset after the append: durable once the partition is synced to it */
} gr_share_dlq_out_t;

/** True if the ranges part->delta lists are to be dead-lettered: share.version >= 2
 *  (read now) and the group has a DLQ topic; *vals gets the group's configs. */
bool gr_share_dlq_wanted(gr_share_part_t *part, gr_sgc_values_t *vals);

/** Dead-letter the ranges part->delta lists (gr_share_dlq_wanted said so). A refusal at write time (docs/dlq.md §2) is logged as Kafka logs it and
 *  the records are archived anyway (NONE). An append that fails returns
 *  KAFKA_STORAGE_ERROR: the caller rolls the transition back (nothing changed). */
gr_err_t gr_share_dlq_write(gr_share_part_t *part, const gr_sgc_values_t *vals, gr_share_dlq_out_t *out);

/** Start-up, after the partitions and the share-state store are open and before
 *  any share-partition loads: roll forward the archive of DLQ records whose
 *  share-state write was lost (docs/dlq.md §7). Returns the number rolled forward. */
int64_t gr_share_dlq_recover(gr_broker_t *b);
/** Clean close (after the share-state store is closed): the next start needs no scan. */
void gr_share_dlq_mark_clean(gr_broker_t *b);

/** Per-group DLQ counters (metrics; Kafka's DeadLetterQueue* meters). */
typedef struct gr_share_dlq_stats {
    uint64_t records;  /* DLQ records written */
    uint64_t produces; /* DLQ writes (one per dead-lettered range) */
    uint64_t failed;   /* DLQ writes that failed (append or topic creation) */
} gr_share_dlq_stats_t;
/** fn for every group that has counters, in no particular order. */
void gr_share_dlq_foreach(gr_broker_t *b, void (*fn)(void *arg, const char *group, const gr_share_dlq_stats_t *st),
                          void *arg);
void gr_share_dlq_close(gr_broker_t *b);

#endif
