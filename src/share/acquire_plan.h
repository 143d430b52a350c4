/* The pure arithmetic of a ShareFetch acquisition (spec §2.6), around the log read
 * the broker does (its share_acquire.c):
 *  - how far the read may go: the SP can use offsets up to its window end (or the next
 *    fetch offset) plus the record budget, so the header scan stops at the batch that
 *    covers that offset;
 *  - the batch headers the scan collects, with their file positions;
 *  - the byte range of the whole batches that cover [first acquired, last acquired],
 *    served as one file-backed slice;
 *  - AcquiredRecords as Kafka 4.4.0 answers them: one entry per run of consecutive
 *    offsets with the same delivery count (the SP reports offset-tracked
 *    redeliveries one range per offset);
 *  - under share.isolation.level=read_committed, which batches of the read are data of
 *    aborted transactions (gr_share_aborted_batches; the read itself stops at the last
 *    stable offset, see gr_share_read_bound).
 * Pure; any thread. */
#ifndef GR_SHARE_ACQUIRE_PLAN_H
#define GR_SHARE_ACQUIRE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "share/sp.h"

/** The offset a read for an SP with next fetch offset next, window end spe and record
 *  budget may stop at (exclusive bound handed to the header scan). */
int64_t gr_share_read_until(int64_t next, int64_t spe, int64_t budget);

/** Batch headers of one log read, in log order, with their file byte ranges. */
typedef struct gr_share_hdrs {
    gr_sp_log_batch_t *v;
    int64_t *pos; /* file position of batch i */
    int64_t *end; /* file position after batch i */
    size_t n, cap;
} gr_share_hdrs_t;

void gr_share_hdrs_push(gr_share_hdrs_t *hs, int64_t base, int64_t last, int64_t pos, int64_t end);
void gr_share_hdrs_free(gr_share_hdrs_t *hs);
/** The byte range (*pos, *len) of the batches covering [first, last] (hs->n > 0). */
void gr_share_hdrs_cover(const gr_share_hdrs_t *hs, int64_t first, int64_t last, int64_t *pos, int64_t *len);

/** Copy the n ranges of in to out (n slots), merging adjacent ones (last + 1 == next
 *  first) with an equal delivery count; returns the number written. */
size_t gr_share_merge_ranges(const gr_sp_acquired_t *in, size_t n, gr_sp_acquired_t *out);

/** The exclusive offset bound of a share-partition's log read: the last stable offset
 *  under read_committed, else the high watermark. */
int64_t gr_share_read_bound(bool read_committed, int64_t hwm, int64_t lso);

/** What read_committed needs of one batch header. */
typedef struct gr_share_txn_batch {
    int64_t base, last;
    int64_t pid; /* -1: no producer id */
    bool transactional, control;
} gr_share_txn_batch_t;

/** One entry of the partition's aborted-transactions index. */
typedef struct gr_share_abort {
    int64_t pid;
    int64_t first_offset;  /* the transaction's first offset */
    int64_t marker_offset; /* its ABORT marker */
} gr_share_abort_t;

/** The data batches of aborted transactions among the n batches b (log order), given the
 *  aborted transactions ab that overlap the read (n_ab of them, any order: sorted here by
 *  first offset), as Apache Kafka 4.4.0's share-partition finds them: walking the batches,
 *  a producer enters the aborted set once the first offset of one of its aborted
 *  transactions is at or before the batch's last offset, leaves it at its ABORT marker
 *  (a control batch at a marker offset of that producer), and a transactional batch of a
 *  producer in the set is aborted. Writes the offset ranges (adjacent ones merged) to out
 *  (room for n) and returns how many. */
size_t gr_share_aborted_batches(const gr_share_txn_batch_t *b, size_t n, gr_share_abort_t *ab, size_t n_ab,
                                gr_sp_offsets_t *out);

#endif
