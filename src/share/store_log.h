/* Store log: the internal partition log under the share-state store and the
 * group store (state_store.c, group_store.c). Both keep their whole live state in
 * memory and append one record per change; this module holds what they share:
 * opening the log, replaying it from its start, appending built batches, asking
 * the flusher for durability, and the crash-safe prune that follows a compaction
 * (the log start moves past old records only once everything appended before the
 * prune was planned is durable). docs/share-state.md has the argument.
 *
 * What a record means, when to compact and what to rewrite stay in each store.
 *
 * Threads: loop thread only, like the stores; flusher callbacks run on it. */
#ifndef GR_SHARE_STORE_LOG_H
#define GR_SHARE_STORE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/metrics.h"
#include "proto/records.h"
#include "storage/flusher.h"
#include "storage/plog.h"

/** Embedded in a store; fields are the store's to read, this module's to write. */
typedef struct gr_store_log {
    gr_plog_t *plog;
    gr_flusher_t *flusher; /* NULL only if no durable callback is ever asked for */
    const char *sub;       /* log subsystem of the owning store */
    int64_t now_ms;        /* clock passed to appends (segment naming) */
    gr_batch_builder_t bb; /* the batch gr_store_log_add builds */
    gr_wbuf_t out;         /* scratch: the finished batch */
    /* Pending prune: the log may start at prune_to once offsets below prune_after are durable. */
    bool prune_pending;
    int64_t prune_to, prune_after;
    int64_t appended_bytes; /* appended since the last compaction (at open: the log size) */
    int n_internal_flushes; /* our own flusher requests not yet completed */
    /* A durability request failed (fsync error): what was appended since the
     * last good fsync may or may not be on disk, and memory may be ahead of it,
     * so every later append is refused until the store is reopened (restart). */
    bool failed;
    bool append_failing; /* the last append failed (logged once per episode) */
    /* Metrics (loop thread): batches and bytes appended since open, and the
     * time from each durability request to its completion. */
    uint64_t n_appends, bytes_appended;
    gr_hist_t write_latency;
} gr_store_log_t;

/** Open (create if missing) the log in dir: size-based segment rolls only, no
 *  retention (the store moves the log start itself). On error nothing stays open.
 *  @returns 0 or the gr_plog_open error with errstr set. */
gr_err_t gr_store_log_open(gr_store_log_t *lg, const char *dir, int64_t segment_bytes, gr_flusher_t *flusher,
                           int64_t now_ms, const char *sub, char *errstr, size_t errstr_size);

/** Called by replay for every record at or past the log start, in log order.
 *  Returns 0 or an error (with errstr set) that stops the replay. */
typedef gr_err_t gr_store_log_record_fn(void *arg, const gr_record_t *rec, char *errstr, size_t errstr_size);

/** Read the log from its start to its end, passing each record to fn. A batch
 *  whose CRC does not match fails with GR_ERR_CORRUPT_MESSAGE ("<what> batch at
 *  offset N: CRC mismatch"), as does a record that does not parse. */
gr_err_t gr_store_log_replay(gr_store_log_t *lg, const char *what, gr_store_log_record_fn *fn, void *arg, char *errstr,
                             size_t errstr_size);

/** Add a record to the batch being built (value NULL: a tombstone). */
void gr_store_log_add(gr_store_log_t *lg, const void *key, size_t key_len, const void *value, size_t value_len);

/** Append the batch being built as one batch (written or lost whole) and start a
 *  new one; *base gets its first offset. @returns 0, the builder's error, or
 *  GR_ERR_KAFKA_STORAGE_ERROR (logged) if the append failed (e.g. ENOSPC: nothing
 *  was added, a later append may succeed) or the log has failed (lg->failed). */
gr_err_t gr_store_log_append(gr_store_log_t *lg, int64_t *base);

/** Ask the flusher to call cb(arg, err) once everything appended so far is
 *  durable. An error sets lg->failed. Aborts without a flusher (API misuse). */
void gr_store_log_request(gr_store_log_t *lg, gr_flusher_cb *cb, void *arg);

/** Plan to move the log start to `to` once everything below the current end is
 *  durable (nothing if `to` is not past the start). */
void gr_store_log_plan_prune(gr_store_log_t *lg, int64_t to);

/** Carry out a planned prune whose records are durable. Returns the log start offset. */
int64_t gr_store_log_maintain(gr_store_log_t *lg);

/** True when the log holds more than live_bytes + slack appended since the last
 *  compaction: about twice the live state, so rewriting is amortised O(1). */
bool gr_store_log_compaction_due(const gr_store_log_t *lg, int64_t live_bytes, int64_t slack);

/** After a compaction appended fresh records of everything live: reset the count
 *  of appended bytes, plan the prune to `to` and ask the flusher (if any) to make
 *  the new records durable so the prune can run. */
void gr_store_log_compacted(gr_store_log_t *lg, int64_t to);

/** fsync the log now. */
gr_err_t gr_store_log_sync(gr_store_log_t *lg);

/** Clean close (fsync) and free; every flusher callback must have run. */
void gr_store_log_close(gr_store_log_t *lg);
/** Close as a crash would leave the files (no fsync) and free. */
void gr_store_log_abandon(gr_store_log_t *lg);

#endif
