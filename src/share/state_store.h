/* Share-state store: the durable state of every share-partition (Kafka's share
 * coordinator and its __share_group_state topic, on one node).
 *
 * One record per change is appended to an internal partition log (gr_plog) in
 * the directory GR_SSTORE_DIR_NAME under log.dir. The record key is the
 * share-partition key (group id, topic id, partition); the value is either a
 * snapshot (the full state) or an update (a delta: epochs, start offset,
 * delivery-complete count and the batches this write changed); a null value is
 * a tombstone. The first write of a key and every snapshot_every-th write after
 * a snapshot write a snapshot, the others an update (spec §7.2).
 *
 * The whole merged state of every key lives in memory. Open replays the log
 * from its start offset; the log start is kept at the oldest snapshot any live
 * key still needs, and a compaction rewrites fresh snapshots of every key when
 * the log outgrows twice the live state, so recovery reads a bounded tail.
 * docs/share-state.md has the record format, the recovery and compaction rules
 * and why each step is crash-safe.
 *
 * Threads: everything here is loop-thread only. Durability goes through the
 * gr_flusher given at open (group commit); its callbacks run on the loop thread. */
#ifndef GR_SHARE_STATE_STORE_H
#define GR_SHARE_STATE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/metrics.h"
#include "base/uuid.h"
#include "storage/flusher.h"
#include "storage/plog.h"

/** Directory of the store log under log.dir. The topic name __share_group_state
 *  is reserved: user topics of that name must be refused (Kafka does the same,
 *  it is an internal topic there). */
#define GR_SSTORE_DIR_NAME "__share_group_state-0"

/** Persisted delivery states (spec §1.2). ACQUIRED (1) is never persisted. */
enum {
    GR_SSTORE_AVAILABLE = 0,
    GR_SSTORE_ACKNOWLEDGED = 2,
    GR_SSTORE_ARCHIVED = 4,
};

/** One persisted range of offsets with one delivery state and count (StateBatch). */
typedef struct gr_sstore_batch {
    int64_t first_offset;
    int64_t last_offset; /* inclusive, >= first_offset */
    int8_t state;        /* GR_SSTORE_AVAILABLE / ACKNOWLEDGED / ARCHIVED */
    int16_t count;       /* DeliveryCount, >= 0 */
    int64_t due_ms;      /* AVAILABLE only: redelivery not before this wall-clock ms (gregord's
                          * delayed redelivery); 0 = none */
} gr_sstore_batch_t;

/** A share-partition key. The group id is a byte string of group_len bytes
 *  (not NUL-terminated; at most GR_SSTORE_MAX_GROUP_LEN). */
typedef struct gr_sstore_key {
    const char *group;
    size_t group_len;
    gr_uuid_t topic_id;
    int32_t partition;
} gr_sstore_key_t;

#define GR_SSTORE_MAX_GROUP_LEN 32767

/** Convenience: a key from a NUL-terminated group id. */
gr_sstore_key_t gr_sstore_key(const char *group, gr_uuid_t topic_id, int32_t partition);

/** The merged, current state of one share-partition. */
typedef struct gr_sstore_state {
    int32_t state_epoch;
    int32_t leader_epoch;             /* -1: none recorded */
    int64_t start_offset;             /* SPSO; -1: never set */
    int32_t delivery_complete_count;  /* -1: unknown */
    int32_t snapshot_epoch;           /* number of snapshots written for this key (informational) */
    const gr_sstore_batch_t *batches; /* sorted, non-overlapping, all >= start_offset */
    size_t n_batches;
} gr_sstore_state_t;

/** What one WriteShareGroupState carries. */
typedef struct gr_sstore_update {
    int32_t state_epoch;              /* lower than stored -> GR_ERR_FENCED_STATE_EPOCH */
    int32_t leader_epoch;             /* lower than stored -> GR_ERR_FENCED_LEADER_EPOCH; higher is recorded */
    int64_t start_offset;             /* -1: unchanged */
    int32_t delivery_complete_count;  /* -1: unchanged */
    const gr_sstore_batch_t *batches; /* changed batches, any order, may overlap each other */
    size_t n_batches;
} gr_sstore_update_t;

typedef struct gr_sstore gr_sstore_t;

/** Store options. gr_sstore_options_default fills Kafka's defaults. */
typedef struct gr_sstore_options {
    uint32_t snapshot_every;   /* share.coordinator.snapshot.update.records.per.snapshot (500); 0 = always */
    int64_t segment_bytes;     /* store log segment size (8 MiB: small, so compaction frees space soon) */
    int64_t compact_min_bytes; /* compaction when log bytes > 2 * live snapshot bytes + this (4 MiB) */
    gr_flusher_t *flusher;     /* durability; NULL only if every callback passed is NULL */
    int64_t now_ms;            /* wall clock at open (segment naming) */
} gr_sstore_options_t;

void gr_sstore_options_default(gr_sstore_options_t *opts);

/** Completion of a durable write: err 0 means the record is on disk; otherwise
 *  GR_ERR_KAFKA_STORAGE_ERROR (the store then refuses further writes, gr_sstore_failed). Runs on the
 *  loop thread from gr_flusher_run_completions, never inside the call that queued it. */
typedef void gr_sstore_cb(void *arg, gr_err_t err);

/** Open (creating it if missing) the store whose log is the directory dir
 *  (normally <log.dir>/GR_SSTORE_DIR_NAME) and load every key by replaying the log.
 *  @returns 0; GR_ERR_KAFKA_STORAGE_ERROR (I/O); GR_ERR_CORRUPT_MESSAGE (a record that
 *  does not decode), with errstr set. *out is owned by the caller (gr_sstore_close). */
gr_err_t gr_sstore_open(const char *dir, const gr_sstore_options_t *opts, gr_sstore_t **out, char *errstr,
                        size_t errstr_size);

/** Clean close: fsync and close the log, free everything. Every callback must have
 *  run (destroy or drain the flusher first). */
void gr_sstore_close(gr_sstore_t *ss);

/** Close as a crash would leave the files (tests): no fsync, no checkpoint. */
void gr_sstore_abandon(gr_sstore_t *ss);

/** The current state of key. @returns 0 with *out filled (batches point into the
 *  store, valid until the next mutating call), or GR_ERR__NOENT if the key has no
 *  state (never initialised or deleted; Kafka then answers start offset -1). */
gr_err_t gr_sstore_read(gr_sstore_t *ss, const gr_sstore_key_t *key, gr_sstore_state_t *out);

/** WriteShareGroupState: check fencing, merge up into the key's state (§7.2 rule,
 *  gr_sstore_merge), append a snapshot or update record. A key without state is
 *  created by its first write (snapshot). Synchronous errors (cb not called):
 *  GR_ERR_FENCED_STATE_EPOCH, GR_ERR_FENCED_LEADER_EPOCH, GR_ERR_INVALID_REQUEST (bad
 *  batch: state not 0/2/4, negative count, first > last, negative offset),
 *  GR_ERR_KAFKA_STORAGE_ERROR (append failed; state unchanged). On 0, cb(arg, err)
 *  runs once the record is durable (if cb is not NULL). The in-memory state changes
 *  at once: a read before the callback sees it. */
gr_err_t gr_sstore_write(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_update_t *up, gr_sstore_cb *cb,
                         void *arg);

/** InitializeShareGroupState / AlterShareGroupOffsets: replace the key's state with
 *  {state_epoch, leader epoch -1, start_offset, no batches} as a snapshot.
 *  GR_ERR_FENCED_STATE_EPOCH if state_epoch is lower than the stored one. Callback as write. */
gr_err_t gr_sstore_initialize(gr_sstore_t *ss, const gr_sstore_key_t *key, int32_t state_epoch, int64_t start_offset,
                              gr_sstore_cb *cb, void *arg);

/** DeleteShareGroupState: tombstone the key (no-op record if absent). Callback as write. */
gr_err_t gr_sstore_delete(gr_sstore_t *ss, const gr_sstore_key_t *key, gr_sstore_cb *cb, void *arg);

/** Delete every key of a group (DeleteGroups) in one atomic batch; *n_deleted (may be
 *  NULL) gets how many. Callback as write. */
gr_err_t gr_sstore_delete_group(gr_sstore_t *ss, const char *group, size_t group_len, size_t *n_deleted,
                                gr_sstore_cb *cb, void *arg);

/** Delete every key of a topic id, all groups (topic deletion). As delete_group.
 *  With a group (group != NULL) only that group's keys (DeleteShareGroupOffsets). */
gr_err_t gr_sstore_delete_topic(gr_sstore_t *ss, const char *group, size_t group_len, gr_uuid_t topic_id,
                                size_t *n_deleted, gr_sstore_cb *cb, void *arg);

/** Visit every key of a group (group NULL: every key), in no particular order. The
 *  visitor must not mutate the store. Returns the number of keys visited. */
typedef void gr_sstore_visit_fn(void *arg, const gr_sstore_key_t *key, const gr_sstore_state_t *st);
size_t gr_sstore_foreach(gr_sstore_t *ss, const char *group, size_t group_len, gr_sstore_visit_fn *fn, void *arg);

/** Rewrite a snapshot of every live key now and arrange for the log start to move
 *  past the old records once these snapshots are durable (see gr_sstore_maintain).
 *  Normally triggered by writes; exposed for tests and operators. */
gr_err_t gr_sstore_compact(gr_sstore_t *ss);

/** Advance the log start offset if a pending prune's records are durable (the log
 *  start never moves past a snapshot that is not yet on disk). Cheap; called by
 *  every write and by the store's own flush completions. Returns how far it went. */
int64_t gr_sstore_maintain(gr_sstore_t *ss);

/** True once a durable write failed (fsync error): memory may be ahead of the
 *  disk, every later write answers GR_ERR_KAFKA_STORAGE_ERROR until the store
 *  is reopened. A failed append (ENOSPC) does not fail the store: it changes
 *  nothing, and the next append may succeed. */
bool gr_sstore_failed(const gr_sstore_t *ss);

/** fsync the store log now (tests, benchmarks, shutdown). */
gr_err_t gr_sstore_sync(gr_sstore_t *ss);

/** Counters and sizes. */
typedef struct gr_sstore_stats {
    size_t n_keys;
    uint64_t n_snapshots, n_updates, n_tombstones; /* records appended since open */
    uint64_t n_compactions;
    uint64_t n_replayed; /* records read by the last open */
    int64_t log_start_offset, log_end_offset, log_bytes;
    size_t n_segments;
    int64_t live_bytes; /* encoded size of the latest snapshot of every live key */
    /* Metrics since open: batches and bytes appended (state writes, initialisations,
     * deletions, compaction rewrites), fsyncs of the log, and the latency from each
     * durable write's request to its completion (writes that wait for durability). */
    uint64_t n_writes, bytes_written, n_fsyncs;
    gr_hist_t write_latency;
} gr_sstore_stats_t;
void gr_sstore_stats(const gr_sstore_t *ss, gr_sstore_stats_t *st);

/** The store's log (tests: byte-level crash simulation). */
gr_plog_t *gr_sstore_plog(gr_sstore_t *ss);

/* ---- pure helpers: the batch combiner (state_merge.c) and the codec (state_codec.c) ---- */

/** A growable batch array (malloc'd). */
typedef struct gr_sstore_bvec {
    gr_sstore_batch_t *v;
    size_t n, cap;
} gr_sstore_bvec_t;
void gr_sstore_bvec_free(gr_sstore_bvec_t *bv);
void gr_sstore_bvec_push(gr_sstore_bvec_t *bv, const gr_sstore_batch_t *b);

/** True if b is a valid persisted batch (state 0/2/4, count >= 0, 0 <= first <= last < INT64_MAX,
 *  due_ms >= 0 and 0 unless the state is AVAILABLE). */
bool gr_sstore_batch_valid(const gr_sstore_batch_t *b);

/** PersisterStateBatchCombiner (spec §7.2): out := merge of old (sorted, non-overlapping)
 *  and add (any order, may overlap), dropping offsets below start_offset (-1: none).
 *  Where ranges overlap the higher delivery count wins, then the higher state id,
 *  then the later due time; contiguous ranges with equal (state, count, due) coalesce. out is sorted and
 *  non-overlapping; it may not alias old or add. Batches must be valid. */
void gr_sstore_merge(const gr_sstore_batch_t *old, size_t n_old, const gr_sstore_batch_t *add, size_t n_add,
                     int64_t start_offset, gr_sstore_bvec_t *out);

/** Record value kinds. */
enum { GR_SSTORE_REC_SNAPSHOT = 0, GR_SSTORE_REC_UPDATE = 1 };

/** A decoded record value (batches point into bv of the decode call). */
typedef struct gr_sstore_value {
    int kind; /* GR_SSTORE_REC_* */
    int32_t snapshot_epoch;
    int32_t state_epoch, leader_epoch;
    int64_t start_offset;             /* update: -1 unchanged */
    int32_t delivery_complete_count;  /* update: -1 unchanged */
    const gr_sstore_batch_t *batches; /* sorted and non-overlapping */
    size_t n_batches;
} gr_sstore_value_t;

/** Encode a value (batches sorted and non-overlapping) to wb. */
void gr_sstore_value_encode(const gr_sstore_value_t *val, gr_wbuf_t *wb);
/** Decode a value; batches go to bv (reset first). @returns 0, GR_ERR__MALFORMED or
 *  GR_ERR__INCOMPLETE with *why set to a static explanation. */
gr_err_t gr_sstore_value_decode(const void *p, size_t len, gr_sstore_value_t *val, gr_sstore_bvec_t *bv,
                                const char **why);
/** Encode a key. */
void gr_sstore_key_encode(const gr_sstore_key_t *key, gr_wbuf_t *wb);
/** Decode a key; key->group points into p. */
gr_err_t gr_sstore_key_decode(const void *p, size_t len, gr_sstore_key_t *key, const char **why);

#endif
