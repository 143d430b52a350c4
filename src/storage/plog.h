/* Partition log: the on-disk log of one partition (Kafka's UnifiedLog + LogSegment).
 *
 * A log lives in one directory (<log.dir>/<topic>-<partition>/) as a list of
 * segments named by their base offset: 00000000000000000000.log holds record
 * batches (v2) exactly as received, with only baseOffset (and optionally
 * partitionLeaderEpoch / LogAppendTime) rewritten; .index is a sparse offset
 * index (int32 relative offset, int32 position, big-endian) and .timeindex a
 * time index (int64 max-timestamp-so-far, int32 relative offset). Two small
 * checkpoint files keep the log start offset and the recovery point.
 * See docs/storage.md for the file formats, recovery and the flush policy.
 *
 * Threads: a log is owned by the event-loop thread; every function here is
 * loop-thread only, except gr_plog_fsync(), gr_plog_durable_offset() and
 * gr_plog_slice_release(), which any thread may call (the flusher thread runs
 * gr_plog_fsync while the loop appends, rolls and deletes segments).
 *
 * Records are never interpreted: only batch header fields are read
 * (baseOffset, batchLength, magic, crc, lastOffsetDelta, maxTimestamp). */
#ifndef GR_STORAGE_PLOG_H
#define GR_STORAGE_PLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct gr_plog gr_plog_t;

/** Per-log settings, Kafka's topic config names. -1 means "unlimited/none" where noted. */
typedef struct gr_plog_config {
    int64_t segment_bytes;           /* segment.bytes (1073741824) */
    int64_t segment_ms;              /* segment.ms (604800000) */
    int64_t segment_index_bytes;     /* segment.index.bytes (10485760): max .index size, roll when full */
    int32_t index_interval_bytes;    /* index.interval.bytes (4096) */
    int64_t retention_ms;            /* retention.ms (604800000), -1 unlimited */
    int64_t retention_bytes;         /* retention.bytes (-1 unlimited) */
    int64_t flush_interval_messages; /* flush.messages / log.flush.interval.messages (INT64_MAX) */
    int64_t flush_interval_ms;       /* flush.ms / log.flush.interval.ms (-1: none) */
    int64_t checkpoint_interval_ms;  /* log.flush.offset.checkpoint.interval.ms (60000): recovery point writes */
} gr_plog_config_t;

/** Fill cfg with Kafka's defaults. */
void gr_plog_config_default(gr_plog_config_t *cfg);

/** Open (creating it if missing) the log in directory dir.
 *  now_ms is the wall clock (segment.ms fallback for segments without timestamps).
 *  A log closed with gr_plog_close() opens without reading data (only index sanity
 *  and the active segment's tail after its last index entry). Otherwise every
 *  segment from the recovery point on is scanned, CRC-checked, truncated after its
 *  last whole valid batch, and its indexes are rebuilt (one INFO line if anything
 *  was truncated).
 *  @returns 0, GR_ERR_KAFKA_STORAGE_ERROR (I/O), with errstr set. *out is owned by the caller. */
gr_err_t gr_plog_open(const char *dir, const gr_plog_config_t *cfg, int64_t now_ms, gr_plog_t **out, char *errstr,
                      size_t errstr_size);

/** Replace the settings (topic config change). Takes effect at the next append/retention. */
void gr_plog_set_config(gr_plog_t *plog, const gr_plog_config_t *cfg);

/** Clean shutdown: fsync everything, write indexes and the clean-shutdown checkpoint,
 *  close. Segments still referenced by slices stay open until released.
 *  No flush request for this log may be pending in a flusher. */
void gr_plog_close(gr_plog_t *plog);

/** Clean shutdown of many logs of one file system (fs_fd: an fd of the data directory,
 *  opened at start-up so that syncfs reports any writeback error since): like
 *  gr_plog_close on each, but logs written since they were opened share two syncfs
 *  barriers instead of about four fsyncs each (docs/storage.md "Clean shutdown"). Frees
 *  every log. Fewer than 32 written logs, or fs_fd < 0: gr_plog_close one by one.
 *  progress (may be NULL) is called between two logs, so that a caller on the event
 *  loop can serve its admin endpoint during a long shutdown; it must not touch logs. */
void gr_plog_close_many(gr_plog_t **logs, size_t n, int fs_fd, void (*progress)(void *), void *progress_arg);

/** Close without flushing or writing the shutdown checkpoint, as a crash would leave
 *  the files (tests, and emergency shutdown after an I/O error). */
void gr_plog_abandon(gr_plog_t *plog);

/** Delete the whole log (topic deletion): close it and remove its directory.
 *  Open slices keep their (unlinked) files readable until released. */
gr_err_t gr_plog_delete(gr_plog_t *plog, char *errstr, size_t errstr_size);

/** Options of one append. */
typedef struct gr_plog_append_opts {
    int64_t now_ms;        /* wall clock: segment.ms roll, LogAppendTime */
    bool set_leader_epoch; /* write leader_epoch into every batch's partitionLeaderEpoch */
    int32_t leader_epoch;
    bool log_append_time; /* message.timestamp.type=LogAppendTime: set maxTimestamp=now_ms and the
                                 * timestamp-type attribute bit, recompute the CRC */
} gr_plog_append_opts_t;

typedef struct gr_plog_append_result {
    int64_t base_offset;        /* offset of the first record appended */
    int64_t last_offset;        /* offset of the last record appended */
    int64_t log_append_time_ms; /* now_ms if LogAppendTime was used, else -1 */
    int64_t log_start_offset;   /* for the Produce response */
} gr_plog_append_result_t;

/** Append one or more whole v2 batches, already validated by the caller (sizes, magic,
 *  CRC). buf is modified in place: each batch gets its baseOffset (and the fields
 *  the options ask for). Rolls the active segment first when segment.bytes,
 *  segment.ms, the index size or the int32 relative-offset range require it.
 *  @returns 0; GR_ERR_KAFKA_STORAGE_ERROR when the write or the roll failed: nothing
 *  was appended (the partial write is truncated away, no offset is used, a failed
 *  roll leaves the old segment active). After ENOSPC/EDQUOT/EFBIG the log stays
 *  usable and the same append may be retried once there is space; so does it after a
 *  failed roll (nothing was written). After any other write error (EIO, or if the
 *  truncation failed) gr_plog_offline() is true.
 *  GR_ERR_CORRUPT_MESSAGE if buf is not a sequence of whole batches. */
gr_err_t gr_plog_append(gr_plog_t *plog, uint8_t *buf, size_t len, const gr_plog_append_opts_t *opts,
                        gr_plog_append_result_t *res, char *errstr, size_t errstr_size);

/** A byte range of one segment file holding whole batches (for sendfile/pread).
 *  `owner` holds a reference on the segment: pass it to gr_plog_slice_release
 *  exactly once (directly or as gr_wbuf_put_ext's release/owner). */
typedef struct gr_plog_slice {
    int fd;               /* segment file, valid until release */
    int64_t pos;          /* file position of the first batch */
    size_t len;           /* 0 = nothing to read (then owner is NULL) */
    int64_t first_offset; /* baseOffset of the first batch */
    int64_t last_offset;  /* last offset of the last batch */
    int64_t next_offset;  /* offset to fetch next (last_offset + 1; or the request offset if len==0) */
    int n_batches;
    void *owner;
} gr_plog_slice_t;

/** Find whole batches starting with the batch that contains `offset`, at most max_bytes
 *  but always at least one whole batch (KIP-74), within one segment, only batches
 *  whose last offset is below max_offset (the high watermark; pass the end offset for
 *  no limit). offset == end offset (or nothing below max_offset) gives len 0.
 *  @returns 0, GR_ERR_OFFSET_OUT_OF_RANGE (offset < log start or > end offset),
 *  GR_ERR_KAFKA_STORAGE_ERROR (read error or corrupt segment). */
gr_err_t gr_plog_read(gr_plog_t *plog, int64_t offset, size_t max_bytes, int64_t max_offset, gr_plog_slice_t *out,
                      char *errstr, size_t errstr_size);

/** A batch of a slice, as gr_plog_read_batches reports it. */
typedef struct gr_plog_batch {
    int64_t base, last; /* baseOffset, last offset */
    int64_t pos, len;   /* file position and size (with the 12-byte log overhead) */
} gr_plog_batch_t;
typedef void (*gr_plog_batch_cb)(void *arg, const gr_plog_batch_t *b);

/** gr_plog_read that also stops after the first batch whose last offset is >= stop_offset
 *  (a reader that needs offsets up to stop_offset only, e.g. ShareFetch's record budget,
 *  then scans no further than that), and calls cb (if not NULL) for each batch put in
 *  the slice, in order, from the same single header scan. On error the batches reported
 *  are void. */
gr_err_t gr_plog_read_batches(gr_plog_t *plog, int64_t offset, size_t max_bytes, int64_t max_offset,
                              int64_t stop_offset, gr_plog_batch_cb cb, void *arg, gr_plog_slice_t *out, char *errstr,
                              size_t errstr_size);

/** Drop the segment reference of a slice. Any thread. NULL is ignored. */
void gr_plog_slice_release(void *owner);

/** Copying read for small internal uses: like gr_plog_read, then pread the bytes and
 *  append them to wb. *out describes what was read (owner is NULL, fd is -1). */
gr_err_t gr_plog_read_copy(gr_plog_t *plog, int64_t offset, size_t max_bytes, int64_t max_offset, gr_wbuf_t *wb,
                           gr_plog_slice_t *out, char *errstr, size_t errstr_size);

/** An offset from which reading to the end covers about the last max_bytes of the
 *  active segment (batch granularity, via the offset index; never below the log
 *  start). Used to rebuild in-memory state from the log tail at start-up. */
int64_t gr_plog_tail_offset(gr_plog_t *plog, size_t max_bytes);

/** True once the log has had an I/O error it cannot recover from while running
 *  (a failed fsync, a write error other than out-of-space, a failed rollback):
 *  appends and fsyncs are refused until the log is reopened (broker restart),
 *  and callers should stop serving it. Any thread. */
bool gr_plog_offline(const gr_plog_t *plog);

/** Log start offset (earliest readable offset). */
int64_t gr_plog_start_offset(const gr_plog_t *plog);
/** Log end offset: the offset the next appended record gets. */
int64_t gr_plog_end_offset(const gr_plog_t *plog);
/** Offsets below this are on disk (fsynced). Any thread. */
int64_t gr_plog_durable_offset(const gr_plog_t *plog);
/** Total bytes in segment files. */
int64_t gr_plog_size_bytes(const gr_plog_t *plog);
/** Number of segments (at least 1). */
size_t gr_plog_segment_count(const gr_plog_t *plog);

/** ListOffsets by timestamp: the base offset of the first batch (at or after the log
 *  start) whose maxTimestamp >= ts, and that batch's maxTimestamp. Batch granularity:
 *  the exact record is inside that batch. @returns 0 or GR_ERR__NOENT (no such batch). */
gr_err_t gr_plog_offset_for_timestamp(gr_plog_t *plog, int64_t ts, int64_t *offset, int64_t *batch_ts);

/** ListOffsets MAX_TIMESTAMP (-3): the largest batch maxTimestamp in the log and the base
 *  offset of the first batch holding it (batch granularity). GR_ERR__NOENT if empty. */
gr_err_t gr_plog_max_timestamp(gr_plog_t *plog, int64_t *offset, int64_t *ts);

/** DeleteRecords: advance the log start offset to `offset` (start <= offset <= end;
 *  lower values are a no-op), persist it atomically, delete segments wholly below it.
 *  @returns 0, GR_ERR_OFFSET_OUT_OF_RANGE (offset > end), GR_ERR_KAFKA_STORAGE_ERROR. */
gr_err_t gr_plog_delete_records(gr_plog_t *plog, int64_t offset, char *errstr, size_t errstr_size);

/** Apply retention at wall time now_ms: delete segments wholly below the log start
 *  offset, then by retention.ms (segment max timestamp older than now - retention.ms),
 *  then by retention.bytes, oldest first, never the active segment. The log start
 *  follows. *n_deleted (may be NULL) gets the number of segments deleted. File
 *  removal failures are logged, not returned. @returns 0. */
gr_err_t gr_plog_retention(gr_plog_t *plog, int64_t now_ms, int *n_deleted);

/** Flush policy (log.flush.interval.messages / .ms): true when the unflushed messages
 *  reach flush_interval_messages, or flush_interval_ms >= 0 and at least that long has
 *  passed since the last fsync with something unflushed. now_mono_ms is
 *  gr_clock_mono_ms(). */
bool gr_plog_flush_due(const gr_plog_t *plog, int64_t now_mono_ms);

/** Unflushed state, for metrics and the flush policy. */
typedef struct gr_plog_flush_stats {
    int64_t unflushed_messages; /* end offset - durable offset */
    int64_t unflushed_bytes;
    int64_t last_flush_mono_ms; /* start of the last successful fsync (open time at first) */
    uint64_t n_fsyncs;          /* gr_plog_fsync calls that synced something */
} gr_plog_flush_stats_t;
void gr_plog_flush_stats(const gr_plog_t *plog, gr_plog_flush_stats_t *st);

/** Make everything appended so far durable: fdatasync the segments written since the
 *  last call, fsync the index files of segments sealed since then and the directory
 *  after a roll or deletion, advance the durable offset, and write the recovery point
 *  checkpoint every checkpoint_interval_ms. Any thread (normally the flusher); calls
 *  are serialized per log. *durable (may be NULL) gets the new durable offset.
 *  After a failure the log is offline (gr_plog_offline): an fsync error may have
 *  lost dirty pages, so nothing since the last good fsync can be trusted.
 *  @returns 0 or GR_ERR_KAFKA_STORAGE_ERROR. */
gr_err_t gr_plog_fsync(gr_plog_t *plog, int64_t *durable, char *errstr, size_t errstr_size);

#endif
