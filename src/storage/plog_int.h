/* Internals of src/storage shared by its .c files: segments, sparse indexes,
 * the batch-header scanner and the gr_plog struct. Not for other modules.
 *
 * Locking: the loop thread owns everything; it takes plog->mu only around
 * changes the flusher thread must see consistently (the segment array, the
 * dirty flags, end offset and byte counters). The flusher reads those under mu,
 * and uses the segment fds only through references it took under mu. */
#ifndef GR_STORAGE_PLOG_INT_H
#define GR_STORAGE_PLOG_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/plog.h"

#define GR__LOG_OVERHEAD 12 /* baseOffset + batchLength */
#define GR__BATCH_HDR    61 /* fixed part of a v2 batch */
#define GR__SCAN_HDR     43 /* header bytes the scanner reads (up to maxTimestamp) */
#define GR__MAX_BATCH    (1 << 30)

/* Offset index entry: batch base offset - segment base, file position of the batch. */
typedef struct gr__oix {
    int32_t rel;
    int32_t pos;
} gr__oix_t;
/* Time index entry: largest batch maxTimestamp so far, relative base offset of that batch. */
typedef struct gr__tix {
    int64_t ts;
    int32_t rel;
} gr__tix_t;

typedef struct gr__index {
    gr__oix_t *o;
    size_t n_o, cap_o;
    gr__tix_t *t;
    size_t n_t, cap_t;
    int64_t bytes_since; /* bytes appended since the last offset index entry */
} gr__index_t;

typedef struct gr__seg {
    int64_t base;        /* base offset, also the file name */
    char *path;          /* "<dir>/<20 digits>", extensions are added */
    int fd;              /* .log, read/write */
    int64_t size;        /* bytes of whole batches (loop thread) */
    int64_t next_offset; /* one past the last offset in the segment */
    int64_t max_ts;      /* largest batch maxTimestamp, -1 if none (valid when ix_loaded) */
    int64_t max_ts_off;  /* base offset of the first batch holding max_ts */
    int64_t first_ts;    /* maxTimestamp of the first batch (segment.ms roll base), -1 none */
    int64_t created_ms;  /* wall clock when created/opened (segment.ms fallback) */
    gr__index_t ix;      /* in memory; loaded lazily for sealed segments */
    bool ix_loaded;
    bool sealed;      /* no longer the active segment, its index files are written */
    bool dirty;       /* data written since the last fdatasync (mu) */
    bool ix_unsynced; /* index files written but not fsynced (mu) */
    int refcnt;       /* atomic: the log's list holds one, slices and the flusher others */
} gr__seg_t;

struct gr_plog {
    char *dir;
    const char *name; /* last path component, for log lines */
    gr_plog_config_t cfg;
    pthread_mutex_t mu;  /* see the top of this file */
    pthread_mutex_t fmu; /* serializes gr_plog_fsync */
    gr__seg_t **segs;    /* oldest first; the last one is active */
    size_t n_segs, cap_segs;
    int64_t start_offset;
    int64_t end_offset;     /* written under mu */
    int64_t bytes_appended; /* since open, under mu */
    int64_t durable_bytes;  /* bytes_appended covered by the last fsync, under mu */
    int64_t durable_offset; /* atomic */
    int64_t last_flush_ms;  /* atomic, monotonic */
    int64_t last_ckpt_ms;   /* fmu */
    uint64_t n_fsyncs;      /* atomic */
    bool dir_dirty;         /* mu: a file was created or removed since the last dir fsync */
    bool parent_unsynced;   /* mu: the log's directory is new, its parent not fsynced yet */
    bool broken;            /* atomic: an fsync, a rollback or a non-ENOSPC write failed: the log is
                             * offline until restart (see "Write and fsync failures" in docs/storage.md) */
    bool write_failing;     /* loop thread: the last append failed with ENOSPC (log lines once per episode) */
    /* The files are a clean-shutdown state as they are (a matching marker, or a lone empty
     * segment that needs none): while the log still has the shape it had then (open_shape),
     * gr_plog_close has nothing to write or fsync. Cleared by the flusher's interim
     * checkpoint (fmu), which replaces the clean marker. */
    bool disk_clean;
    int64_t open_shape[6];
};

/** The log's shape (segments, sizes, offsets) for the unchanged-since-open test of close. */
void gr__plog_shape(const gr_plog_t *plog, int64_t shape[6]);

/* ---- segment.c ---- */
gr__seg_t *gr__seg_new(const char *dir, int64_t base, int fd, int64_t now_ms);
gr_err_t gr__seg_create(const char *dir, int64_t base, int64_t now_ms, gr__seg_t **out, char *errstr, size_t n);
void gr__seg_ref(gr__seg_t *seg);
void gr__seg_unref(gr__seg_t *seg);
/** Unlink the segment's files (the fd stays usable through remaining references). */
void gr__seg_unlink(gr__seg_t *seg);
/** Write len bytes at seg->size; on failure truncate back (*rollback_failed is set
 *  if even that failed). Returns 0 or -errno. */
int gr__seg_write(gr__seg_t *seg, const uint8_t *buf, size_t len, bool *rollback_failed);
/** Record one appended batch in the in-memory indexes. */
void gr__seg_note_batch(gr__seg_t *seg, int64_t base_off, int64_t last_off, int64_t max_ts, int64_t pos, int64_t len,
                        int32_t interval);
/** Read exactly len bytes at pos. 0, -errno, or -EINVAL for a short read. */
int gr__pread_full(int fd, void *buf, size_t len, int64_t pos);
/** Make the segment's indexes available (load from files or rebuild). 0 or -errno. */
int gr__seg_ensure_index(gr__seg_t *seg, int32_t interval);
/** Fsync a directory. 0 or -errno. */
int gr__fsync_dir(const char *dir);

/* ---- index.c ---- */
void gr__index_free(gr__index_t *ix);
void gr__index_reset(gr__index_t *ix);
void gr__index_add_o(gr__index_t *ix, int32_t rel, int32_t pos);
void gr__index_add_t(gr__index_t *ix, int64_t ts, int32_t rel);
/** Position of the last indexed batch with base <= rel (0 if none). */
int64_t gr__index_lookup_o(const gr__index_t *ix, int32_t rel);
/** Relative base offset of the last time entry with ts < target, or -1. */
int32_t gr__index_lookup_t(const gr__index_t *ix, int64_t target);
/** Load .index/.timeindex; false if missing or insane (bad size, not monotonic,
 *  past seg_size). Empty files are valid for an empty segment only. */
bool gr__index_load(gr__index_t *ix, const char *path, int64_t seg_size, int64_t seg_base, int64_t next_offset);
/** Write both index files (no fsync). 0 or -errno; on failure both files are removed,
 *  so no partial index is ever loaded (a missing index is rebuilt from the data). */
int gr__index_write(const gr__index_t *ix, const char *path);
/** Fsync both index files by path. 0 or -errno (ENOENT ignored). */
int gr__index_fsync(const char *path);

/* ---- recovery.c ---- */
/* Batch header scanner over a file range, reading in chunks. */
typedef struct gr__scan {
    int fd;
    int64_t end;  /* file end (exclusive) */
    int64_t pos;  /* position of the next batch */
    uint8_t *buf; /* window [wpos, wpos + wlen) of the file */
    size_t cap, wlen;
    int64_t wpos;
    /* the current batch, after gr__scan_next returned 1 */
    int64_t b_pos, b_base, b_last, b_max_ts;
    int64_t b_len;         /* whole batch, with the 12-byte log overhead */
    const uint8_t *b_data; /* whole batch bytes when want_body */
    const char *why;       /* reason for -1 */
} gr__scan_t;
void gr__scan_init(gr__scan_t *sc, int fd, int64_t pos, int64_t end);
void gr__scan_free(gr__scan_t *sc);
/** Next batch: 1 found, 0 clean end, -1 torn/corrupt (sc->why), -2 I/O error (errno).
 *  check_crc implies reading the whole batch. */
int gr__scan_next(gr__scan_t *sc, bool check_crc);
/** Rebuild a segment's in-memory indexes from its data; with `validate`, CRC-check and
 *  truncate the file after the last whole valid batch. *truncated gets the bytes cut.
 *  Returns 0 or -errno. */
int gr__seg_rebuild(gr__seg_t *seg, int32_t interval, bool validate, int64_t *truncated);
/** Recover the log at open; see gr_plog_open. */
gr_err_t gr__plog_load(gr_plog_t *plog, int64_t now_ms, char *errstr, size_t n);

/* ---- checkpoint.c ---- */
/** Atomically replace dir/name with text: temp file, fsync, rename, fsync dir. */
int gr__ckpt_write(const char *dir, const char *name, const char *text);
/** The same; sync=false skips both fsyncs (the caller syncs the file system afterwards). */
int gr__ckpt_write_opt(const char *dir, const char *name, const char *text, bool sync);
/** Read dir/name into buf (NUL-terminated). 0, -ENOENT or -errno. */
int gr__ckpt_read(const char *dir, const char *name, char *buf, size_t cap);

#define GR__CKPT_START    "log-start-offset.checkpoint"
#define GR__CKPT_RECOVERY "recovery-point.checkpoint"

/* ---- plog.c ---- */
void gr__plog_push_seg(gr_plog_t *plog, gr__seg_t *seg);
/** Remove (unlink and drop) the oldest segment. Caller holds nothing. */
void gr__plog_drop_oldest(gr_plog_t *plog);
/** Write the recovery checkpoint; clean=true adds the shutdown marker. */
int gr__plog_write_recovery(gr_plog_t *plog, int64_t rp, bool clean);
/** The same without fsyncs (gr_plog_close_many syncs the file system afterwards). */
int gr__plog_write_recovery_nosync(gr_plog_t *plog, int64_t rp, bool clean);
int gr__plog_write_start(gr_plog_t *plog);

#define GR__ERRSTR(errstr, n, ...)                                 \
    do {                                                           \
        if ((errstr) && (n)) snprintf((errstr), (n), __VA_ARGS__); \
    } while (0)

#endif
