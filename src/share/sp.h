/* Share-partition (SP) state machine: the in-flight window of one
 * (group, topic, partition) of a share group (KIP-932).
 *
 * This is a PURE module (docs/style.md, event loop and time): no I/O, no clock reads, no
 * globals, no locks. Time is passed in as `now_ms`; every mutating call
 * returns its result plus a delta (gr_sp_delta_t) that the caller persists
 * (share-state store) before answering the client where the spec requires it,
 * and the caller arms its own timer from gr_sp_next_deadline().
 *
 * Normative behaviour: KIP-932 (record states, acquisition locks, acknowledgement).
 * Design notes and the decisions on unsettled points: docs/share-partition.md.
 *
 * @locality One thread owns an SP (the event loop). Nothing here is
 * thread-safe; different SPs are independent.
 *
 * Offsets are int64, delivery counts int16 as on the wire. Record states use
 * the persisted/wire ids below. */
#ifndef GR_SHARE_SP_H
#define GR_SHARE_SP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/** Record states (spec §1.2); the values are the persisted ids. */
enum {
    GR_SP_AVAILABLE = 0,
    GR_SP_ACQUIRED = 1, /* never persisted */
    GR_SP_ACKNOWLEDGED = 2,
    GR_SP_ARCHIVED = 4,
};

/** AcknowledgeTypes on the wire (spec §1.2). */
enum {
    GR_SP_ACK_GAP = 0,
    GR_SP_ACK_ACCEPT = 1,
    GR_SP_ACK_RELEASE = 2,
    GR_SP_ACK_REJECT = 3,
    GR_SP_ACK_RENEW = 4,
};

/** ShareAcquireMode (ShareFetch v2, spec §2.5). */
enum {
    GR_SP_MODE_BATCH_OPTIMIZED = 0,
    GR_SP_MODE_RECORD_LIMIT = 1,
};

typedef struct gr_sp gr_sp_t;

/** The effective group configuration, read by the caller at call time
 *  (group configs are dynamic, spec §5.2). */
typedef struct gr_sp_conf {
    int32_t delivery_count_limit; /**< share.delivery.count.limit (≥ 2) */
    int32_t max_record_locks;     /**< share.partition.max.record.locks: soft cap on the window span */
    int64_t lock_duration_ms;     /**< share.record.lock.duration.ms */
} gr_sp_conf_t;

/** Delayed redelivery (gregord only, group configs gregor.share.redelivery.backoff.ms
 *  and .max.ms; docs/share-partition.md): a record RELEASEd, or whose lock
 *  expired, stays AVAILABLE but is not acquired before now + gr_sp_backoff_ms().
 *  base_ms 0 = off (the default). A configuration like gr_sp_conf_t, kept in the
 *  SP: the caller sets it whenever it reads the group configs (it survives
 *  gr_sp_init_* and is not undone by gr_sp_rollback). */
void gr_sp_set_redelivery_backoff(gr_sp_t *sp, int64_t base_ms, int64_t max_ms);

/** The redelivery delay of a record whose delivery count is `count` (≥ 1):
 *  min(max, base × 2^(count−1)); 0 when the base is 0 (off). */
int64_t gr_sp_backoff_ms(const gr_sp_t *sp, int16_t count);

/** One persisted state batch (WriteShareGroupState StateBatches; state ∈ {0,2,4}). */
typedef struct gr_sp_batch {
    int64_t first_offset;
    int64_t last_offset;
    int8_t state;
    int16_t delivery_count;
    /** AVAILABLE only: not acquired before this time (now_ms scale; 0 = due).
     *  Must lie within 2^31 ms of the now_ms of the calls that follow: pass 0
     *  for a time already past. */
    int64_t not_before_ms;
} gr_sp_batch_t;

/** Reasons a range is dead-lettered (KIP-1191; docs/dlq.md): the only two. */
enum {
    GR_SP_DEAD_REJECT = 0, /**< acknowledged REJECT */
    GR_SP_DEAD_LIMIT = 1,  /**< archived at share.delivery.count.limit (RELEASE, lock expiry, member release) */
};

/** A range a transition archived for a dead-lettering reason, with its delivery count.
 *  Archives below SPSO, of records gone from the log and GAPs never appear. */
typedef struct gr_sp_dead {
    int64_t first_offset;
    int64_t last_offset;
    int16_t delivery_count;
    uint8_t reason; /**< GR_SP_DEAD_* */
} gr_sp_dead_t;

/** What a mutating call changed, for the share-state store (spec §7.2).
 *
 * `batches` lists the changed ranges (sorted, non-overlapping, coalesced, all
 * ≥ start_offset) with their *persisted* state: ACQUIRED never appears (an
 * acquisition is never written). The caller owns the delta: init it once,
 * pass it to any number of calls (later changes overwrite earlier ones for
 * the same offsets), write it, then gr_sp_delta_reset() it. */
typedef struct gr_sp_delta {
    int64_t start_offset;            /**< SPSO after the last call */
    int64_t delivery_complete_count; /**< terminal records ≥ SPSO after the last call (KIP-1226) */
    int32_t state_epoch;
    bool changed; /**< SPSO moved or batches changed: something to write */
    gr_sp_batch_t *batches;
    size_t n, cap;
    /** Ranges archived for a dead-lettering reason, in the order the call archived
     *  them (the broker dead-letters them with this write; reset with the batches). */
    gr_sp_dead_t *dead;
    size_t n_dead, cap_dead;
} gr_sp_delta_t;

void gr_sp_delta_init(gr_sp_delta_t *d);
void gr_sp_delta_reset(gr_sp_delta_t *d);
void gr_sp_delta_free(gr_sp_delta_t *d);

/** A full persisted snapshot (gr_sp_export); same layout as a delta. */
typedef gr_sp_delta_t gr_sp_snapshot_t;

/* ---------------------------------------------------------------------- */
/* Life cycle and initialisation (spec §1.10)                              */

/** New, empty SP with SPSO = SPEO = 0. Aborts on OOM. Free with gr_sp_destroy. */
gr_sp_t *gr_sp_new(void);
void gr_sp_destroy(gr_sp_t *sp);

/** Initialise from a start offset resolved by the caller from
 *  share.auto.offset.reset (latest/earliest/by_duration, see
 *  gr_sgc_parse_reset). Empty window, nothing to persist yet
 *  (the computed SPSO is written lazily with the first write, §1.10). */
void gr_sp_init_offset(gr_sp_t *sp, int64_t start_offset, int32_t state_epoch);

/** Initialise from persisted state (ReadShareGroupState). `batches` must be
 *  sorted, non-overlapping, with state ∈ {0,2,4} and count ≥ 0; offsets
 *  below start_offset are corrupt (§1.10: SP FAILED) → GR_ERR__MALFORMED
 *  with a reason in errstr. Holes between SPSO and the last batch form the
 *  "gap window": they are fetched and acquired first (count 1). */
gr_err_t gr_sp_init_persisted(gr_sp_t *sp, int64_t start_offset, int32_t state_epoch, const gr_sp_batch_t *batches,
                              size_t n, char *errstr, size_t errstr_size);

/* ---------------------------------------------------------------------- */
/* Acquisition (ShareFetch, spec §1.3–1.6, §1.9, §2.5)                     */

/** A log batch header as read from the partition log. */
typedef struct gr_sp_log_batch {
    int64_t base_offset;
    int64_t last_offset;
} gr_sp_log_batch_t;

/** An offset range [first, last], both inclusive. */
typedef struct gr_sp_offsets {
    int64_t first;
    int64_t last;
} gr_sp_offsets_t;

/** One AcquiredRecords entry. */
typedef struct gr_sp_acquired {
    int64_t first_offset;
    int64_t last_offset;
    int16_t delivery_count;
} gr_sp_acquired_t;

typedef struct gr_sp_acquire_req {
    const char *member_id;            /**< copied (interned) by the SP */
    int32_t max_records;              /**< MaxRecords budget left for this partition */
    int32_t batch_size;               /**< BatchSize (≤ 0: same as max_records) */
    int8_t mode;                      /**< GR_SP_MODE_* */
    const gr_sp_log_batch_t *batches; /**< log batches read from gr_sp_next_fetch_offset(), in order */
    size_t n_batches;
} gr_sp_acquire_req_t;

/** Result of gr_sp_acquire. Caller-owned; init, reuse, free. */
typedef struct gr_sp_acquire_res {
    gr_sp_acquired_t *ranges; /**< sorted, non-overlapping AcquiredRecords */
    size_t n, cap;
    int64_t n_records;  /**< records acquired */
    int64_t read_first; /**< first offset the caller must serve from the log (-1: nothing) */
    int64_t read_last;  /**< last offset the caller must serve from the log (-1: nothing) */
} gr_sp_acquire_res_t;

void gr_sp_acquire_res_init(gr_sp_acquire_res_t *res);
void gr_sp_acquire_res_free(gr_sp_acquire_res_t *res);

/** Where the next log read must start (§1.5): the first AVAILABLE record or
 *  gap-window hole at or after SPSO, else SPEO+1 (SPSO when the window is
 *  empty). The caller reads log batches from here (the first batch may start
 *  before it) and passes them to gr_sp_acquire. */
int64_t gr_sp_next_fetch_offset(gr_sp_t *sp);

/** False when the fetch can acquire nothing: no redeliverable record inside
 *  the window and the span has reached max_record_locks (§1.5; the cap is
 *  soft, as Kafka's: see gr_sp_acquire). */
bool gr_sp_can_acquire(gr_sp_t *sp, const gr_sp_conf_t *conf);

/** Acquire records for `req->member_id` from the log batches the caller read
 *  at gr_sp_next_fetch_offset() (§2.5). `res` is reset and filled; archival
 *  of records that disappeared from the log (§1.8) goes to `delta` (may be
 *  NULL). Returns GR_ERR_INVALID_REQUEST for an unknown acquire mode,
 *  GR_ERR__INVALID_ARG for unsorted/overlapping batches, else NONE (possibly
 *  with nothing acquired). Lock deadline = now_ms + conf->lock_duration_ms.
 *  The record budget is min(MaxRecords, max_record_locks − span) (span =
 *  SPEO−SPSO+1, every state counts); batch_optimized ends new records on a
 *  log-batch end, so the span may pass the cap by less than one log batch
 *  (record_limit: the rest of that batch is cached AVAILABLE). At or over the
 *  cap only records inside the window are acquired, at most
 *  SPEO − fetch offset + 1 (Apache Kafka 4.4.0's rule). */
gr_err_t gr_sp_acquire(gr_sp_t *sp, const gr_sp_acquire_req_t *req, const gr_sp_conf_t *conf, int64_t now_ms,
                       gr_sp_acquire_res_t *res, gr_sp_delta_t *delta);

/** share.isolation.level=read_committed, right after gr_sp_acquire (same transaction):
 *  aborted lists the data batches of aborted transactions among the batches read (sorted,
 *  disjoint; share/acquire_plan.h finds them). What res acquired of them is ARCHIVED at
 *  once, its delivery count kept, and left out of res, its entries split around them;
 *  the SPSO moves past archived records at the window start (Apache Kafka 4.4.0's
 *  filterAbortedTransactionalAcquiredRecords). Archived ranges go to delta (may be NULL). */
void gr_sp_drop_aborted(gr_sp_t *sp, const gr_sp_offsets_t *aborted, size_t n_aborted, gr_sp_acquire_res_t *res,
                        gr_sp_delta_t *delta);

/* ---------------------------------------------------------------------- */
/* Acknowledgement (ShareAcknowledge / piggybacked, spec §3.3–3.5)          */

/** One AcknowledgementBatch: n_types == 1 applies types[0] to every offset,
 *  otherwise n_types must equal last-first+1 (one type per offset). */
typedef struct gr_sp_ack_batch {
    int64_t first_offset;
    int64_t last_offset;
    const int8_t *types;
    size_t n_types;
} gr_sp_ack_batch_t;

typedef struct gr_sp_ack_req {
    const char *member_id;
    const gr_sp_ack_batch_t *batches;
    size_t n_batches;
    bool is_renew_ack;  /**< request is v2 with IsRenewAck=true: type 4 allowed */
    bool renew_enabled; /**< group config share.renew.acknowledge.enable */
} gr_sp_ack_req_t;

/** Apply the acknowledgements of one partition atomically (all or nothing).
 *  Returns the partition's wire error: NONE, INVALID_REQUEST (42, malformed
 *  batches or offsets past the window) or INVALID_RECORD_STATE (121, a record
 *  not ACQUIRED by this member, or RENEW while renew is disabled). On error
 *  nothing changed. On success `delta` (may be NULL) holds what must be
 *  durable before the response is sent (empty for RENEW-only requests).
 *  If errstr is non-NULL a reason is written there on error. */
gr_err_t gr_sp_acknowledge(gr_sp_t *sp, const gr_sp_ack_req_t *req, const gr_sp_conf_t *conf, int64_t now_ms,
                           gr_sp_delta_t *delta, char *errstr, size_t errstr_size);

/* ---------------------------------------------------------------------- */
/* Timers, members, log start                                              */

/** Process every acquisition lock whose deadline ≤ now_ms (§1.4): the records
 *  become AVAILABLE (delayed by the redelivery backoff when it is on), or
 *  ARCHIVED at the delivery limit or below SPSO. Delayed records whose due
 *  time ≤ now_ms become acquirable (nothing to persist). Changes
 *  go to `delta` (the broker writes them in a transaction). Returns the next deadline (INT64_MAX
 *  when no lock is held). */
int64_t gr_sp_expire(gr_sp_t *sp, const gr_sp_conf_t *conf, int64_t now_ms, gr_sp_delta_t *delta);

/** Earliest pending lock deadline or redelivery due time (gr_sp_expire makes
 *  a delayed record acquirable when it is due), INT64_MAX if none. May (rarely) be earlier
 *  than the real next expiry; gr_sp_expire then finds nothing to do. */
int64_t gr_sp_next_deadline(gr_sp_t *sp);

/** The member's share session ended: every record it holds returns to
 *  AVAILABLE with its delivery count unchanged, or to ARCHIVED when the count
 *  reached the limit; records below SPSO are archived. This is what Apache
 *  Kafka 4.4.0 does (observed: the next member sees count 2); spec §1.3 rule 3
 *  describes a decrement that the reference broker does not make
 *  (docs/compatibility.md). Returns the number of records released. */
int64_t gr_sp_release_member(gr_sp_t *sp, const gr_sp_conf_t *conf, const char *member_id, gr_sp_delta_t *delta);

/** The log start offset moved to `log_start` (retention, DeleteRecords;
 *  §1.8). When it is past SPSO: SPSO := log_start, AVAILABLE records below
 *  are archived, ACQUIRED ones below are archived later (at expiry/ack).
 *  The new SPSO is in `delta` (persisted lazily with the next write). */
void gr_sp_update_log_start(gr_sp_t *sp, int64_t log_start, gr_sp_delta_t *delta);

/* ---------------------------------------------------------------------- */
/* Transactions: a transition and its durable write as one unit (§3.4)    */

/** Save the SP's state before a transition whose delta must be written
 *  (acquire, acknowledge, expire, release_member, update_log_start). Then
 *  exactly one of gr_sp_commit (the write was accepted) or gr_sp_rollback
 *  (it failed: every change since gr_sp_begin is undone — states, counts,
 *  owners, lock deadlines and timers, SPSO, counters) must follow before the
 *  next gr_sp_begin. Cost: one copy of the window (O(ranges + locks +
 *  members)); buffers are reused. Member ids released inside the transaction
 *  are freed after the commit, by the next collection. */
void gr_sp_begin(gr_sp_t *sp);
void gr_sp_commit(gr_sp_t *sp);
void gr_sp_rollback(gr_sp_t *sp);
bool gr_sp_in_txn(const gr_sp_t *sp);

/* ---------------------------------------------------------------------- */
/* Metrics                                                                  */

typedef struct gr_share_stats gr_share_stats_t;

/** Count this SP's records acquired, redelivered, acknowledged by type, lock
 *  timeouts, archivals by reason and W (acquisition -> ACCEPT/REJECT/RELEASE)
 *  into *stats (share/share_stats.h; NULL stops counting). The pointer stays
 *  across gr_sp_init_*. Only what stands counts: an acknowledgement refused
 *  with an error changes nothing, and gr_sp_rollback restores the counters as
 *  they were at gr_sp_begin. Uses the now_ms of the calls (ms resolution). */
void gr_sp_set_stats(gr_sp_t *sp, gr_share_stats_t *stats);

/* ---------------------------------------------------------------------- */
/* Snapshot, accessors, invariants                                         */

/** Full persisted view for a periodic snapshot: SPSO, deliveryCompleteCount
 *  and every range ≥ SPSO with its persisted state (ACQUIRED shown as its last
 *  persisted state: AVAILABLE with count−1; never-delivered records omitted),
 *  merged. `out` is reset first. */
void gr_sp_export(const gr_sp_t *sp, gr_sp_snapshot_t *out);

int64_t gr_sp_start_offset(const gr_sp_t *sp); /**< SPSO */
int64_t gr_sp_end_offset(const gr_sp_t *sp);   /**< SPEO (= SPSO when the window is empty) */
int64_t gr_sp_span(const gr_sp_t *sp);         /**< numInFlight = SPEO−SPSO+1, 0 if empty */
int64_t gr_sp_delivery_complete_count(const gr_sp_t *sp);
int64_t gr_sp_acquired_count(const gr_sp_t *sp); /**< records currently ACQUIRED */
size_t gr_sp_range_count(const gr_sp_t *sp);     /**< cached ranges (memory use) */
int32_t gr_sp_state_epoch(const gr_sp_t *sp);
/** Records ≥ SPSO held back by the redelivery backoff; *next_due (may be NULL)
 *  gets the earliest due time (INT64_MAX if none). O(ranges). */
int64_t gr_sp_delayed_count(const gr_sp_t *sp, int64_t *next_due);

/** State of one offset. Returns false when it is not cached (below SPSO, a
 *  gap-window hole, or beyond SPEO). *member is owned by the SP (NULL unless
 *  ACQUIRED); *deadline is the lock deadline (ACQUIRED), the redelivery due
 *  time (a delayed AVAILABLE record) or 0; any out-pointer may be NULL. */
bool gr_sp_record(const gr_sp_t *sp, int64_t offset, int *state, int16_t *count, const char **member,
                  int64_t *deadline);

/** Check every structural invariant (sorted, non-overlapping, coalesced
 *  ranges; at most one owner per record; nothing but ACQUIRED below SPSO;
 *  counters match; every lock has a timer; with conf: counts ≤ limit; the
 *  span is not bounded here: the cap is soft, see gr_sp_acquire). For tests
 *  and fuzzing: O(n). Returns NONE or _STATE with a reason in errstr. */
gr_err_t gr_sp_check(const gr_sp_t *sp, const gr_sp_conf_t *conf, char *errstr, size_t errstr_size);

#endif
