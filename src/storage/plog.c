/* Partition log: open/close, append with offset assignment and segment roll,
 * and the simple accessors. Reads are in read.c, retention and DeleteRecords in
 * retention.c, fsync and the flush policy in sync.c, opening/recovery in
 * recovery.c. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/crc32c.h"
#include "base/log.h"
#include "storage/plog_int.h"

void gr_plog_config_default(gr_plog_config_t *cfg) {
    *cfg = (gr_plog_config_t){
        .segment_bytes = 1073741824,
        .segment_ms = 604800000,
        .segment_index_bytes = 10485760,
        .index_interval_bytes = 4096,
        .retention_ms = 604800000,
        .retention_bytes = -1,
        .flush_interval_messages = INT64_MAX,
        .flush_interval_ms = -1,
        .checkpoint_interval_ms = 60000,
    };
}

void gr_plog_set_config(gr_plog_t *plog, const gr_plog_config_t *cfg) {
    pthread_mutex_lock(&plog->mu); /* the flusher reads checkpoint_interval_ms under mu */
    plog->cfg = *cfg;
    pthread_mutex_unlock(&plog->mu);
}

void gr__plog_push_seg(gr_plog_t *plog, gr__seg_t *seg) {
    pthread_mutex_lock(&plog->mu);
    if (plog->n_segs == plog->cap_segs) {
        size_t cap = plog->cap_segs ? plog->cap_segs * 2 : 4;
        gr__seg_t **s = realloc(plog->segs, cap * sizeof(*s));
        if (!s) abort();
        plog->segs = s;
        plog->cap_segs = cap;
    }
    plog->segs[plog->n_segs++] = seg;
    pthread_mutex_unlock(&plog->mu);
}

void gr__plog_drop_oldest(gr_plog_t *plog) {
    pthread_mutex_lock(&plog->mu);
    gr__seg_t *seg = plog->segs[0];
    memmove(plog->segs, plog->segs + 1, (plog->n_segs - 1) * sizeof(*plog->segs));
    plog->n_segs--;
    plog->dir_dirty = true;
    pthread_mutex_unlock(&plog->mu);
    gr__seg_unlink(seg);
    gr__seg_unref(seg);
}

static int write_recovery(gr_plog_t *plog, int64_t rp, bool clean, bool sync) {
    char text[256];
    /* The shutdown marker pins the active segment's base and size: any append after
     * the next open changes them, so a stale marker is never trusted. Only the loop
     * thread (close) writes it; the flusher's writes do not touch the segment list. */
    int64_t base = -1, size = -1, end = -1;
    if (clean) {
        base = plog->segs[plog->n_segs - 1]->base;
        size = plog->segs[plog->n_segs - 1]->size;
        end = plog->end_offset;
    }
    snprintf(text, sizeof(text), "gregor-recovery 1\nrp %" PRId64 "\nclean %d %" PRId64 " %" PRId64 " %" PRId64 "\n",
             rp, clean ? 1 : 0, base, size, end);
    return gr__ckpt_write_opt(plog->dir, GR__CKPT_RECOVERY, text, sync);
}

int gr__plog_write_recovery(gr_plog_t *plog, int64_t rp, bool clean) { return write_recovery(plog, rp, clean, true); }
int gr__plog_write_recovery_nosync(gr_plog_t *plog, int64_t rp, bool clean) {
    return write_recovery(plog, rp, clean, false);
}

int gr__plog_write_start(gr_plog_t *plog) {
    char text[64];
    snprintf(text, sizeof(text), "gregor-log-start 1\n%" PRId64 "\n", plog->start_offset);
    return gr__ckpt_write(plog->dir, GR__CKPT_START, text);
}

static void plog_free(gr_plog_t *plog) {
    for (size_t i = 0; i < plog->n_segs; i++) gr__seg_unref(plog->segs[i]);
    free(plog->segs);
    pthread_mutex_destroy(&plog->mu);
    pthread_mutex_destroy(&plog->fmu);
    free(plog->dir);
    free(plog);
}

/* *created: the directory is new; its entry in the parent is fsynced by the first
 * gr_plog_fsync (parent_unsynced), not here: opening thousands of new partitions must not
 * cost an fsync of the data directory each on the loop thread, and an empty log whose
 * directory a crash loses is simply created again. */
static gr_err_t make_dir(const char *dir, bool *created, char *errstr, size_t n) {
    *created = mkdir(dir, 0755) == 0;
    if (!*created && errno != EEXIST) {
        GR__ERRSTR(errstr, n, "mkdir %s: %s", dir, strerror(errno));
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    return GR_ERR_NONE;
}

gr_err_t gr_plog_open(const char *dir, const gr_plog_config_t *cfg, int64_t now_ms, gr_plog_t **out, char *errstr,
                      size_t errstr_size) {
    bool created;
    gr_err_t err = make_dir(dir, &created, errstr, errstr_size);
    if (err) return err;
    gr_plog_t *plog = calloc(1, sizeof(*plog));
    if (!plog) abort();
    plog->parent_unsynced = created;
    plog->dir = strdup(dir);
    if (!plog->dir) abort();
    size_t len = strlen(plog->dir);
    while (len > 1 && plog->dir[len - 1] == '/') plog->dir[--len] = '\0';
    const char *slash = strrchr(plog->dir, '/');
    plog->name = slash ? slash + 1 : plog->dir;
    plog->cfg = *cfg;
    pthread_mutex_init(&plog->mu, NULL);
    pthread_mutex_init(&plog->fmu, NULL);
    plog->last_flush_ms = plog->last_ckpt_ms = gr_clock_mono_ms();
    if ((err = gr__plog_load(plog, now_ms, errstr, errstr_size))) {
        plog_free(plog);
        return err;
    }
    *out = plog;
    return GR_ERR_NONE;
}

/* Give a segment its final time entry and write its index files (roll, close).
 * Returns 0 or -errno; a failed write leaves no index file behind (see index.c). */
static int seal_index(gr__seg_t *seg) {
    gr__index_t *ix = &seg->ix;
    if (seg->max_ts >= 0 && (ix->n_t == 0 || seg->max_ts > ix->t[ix->n_t - 1].ts))
        gr__index_add_t(ix, seg->max_ts, (int32_t)(seg->max_ts_off - seg->base));
    return gr__index_write(ix, seg->path);
}

void gr__plog_shape(const gr_plog_t *plog, int64_t shape[6]) {
    const gr__seg_t *act = plog->segs[plog->n_segs - 1];
    shape[0] = (int64_t)plog->n_segs;
    shape[1] = plog->segs[0]->base;
    shape[2] = act->base;
    shape[3] = act->size;
    shape[4] = plog->start_offset;
    shape[5] = plog->end_offset;
}

/* Opened from a clean state and not changed since: the files already say "clean
 * shutdown" (appends, rolls, retention and DeleteRecords all change the shape; the
 * flusher's interim checkpoint clears disk_clean), so there is nothing to flush. */
static bool unchanged_since_clean_open(const gr_plog_t *plog) {
    int64_t shape[6];
    if (!plog->disk_clean || __atomic_load_n(&plog->broken, __ATOMIC_ACQUIRE)) return false;
    gr__plog_shape(plog, shape);
    return memcmp(shape, plog->open_shape, sizeof(shape)) == 0;
}

void gr_plog_close(gr_plog_t *plog) {
    char es[256];
    /* Most partitions of a large broker are idle: skipping them keeps a shutdown of many
     * thousands of partitions from costing four fsyncs each (docs/storage.md). */
    if (unchanged_since_clean_open(plog)) {
        plog_free(plog);
        return;
    }
    gr__seg_t *act = plog->segs[plog->n_segs - 1];
    int ir = seal_index(act);
    if (ir < 0) GR_WARN("storage", "%s: writing index: %s (rebuilt at the next open)", act->path, strerror(-ir));
    pthread_mutex_lock(&plog->mu);
    act->ix_unsynced = true;
    pthread_mutex_unlock(&plog->mu);
    pthread_mutex_lock(&plog->fmu);
    plog->last_ckpt_ms = INT64_MAX / 2; /* no interim checkpoint: the clean one follows */
    pthread_mutex_unlock(&plog->fmu);
    if (gr_plog_fsync(plog, NULL, es, sizeof(es)) == 0) {
        pthread_mutex_lock(&plog->fmu);
        int r = gr__plog_write_recovery(plog, plog->end_offset, true);
        pthread_mutex_unlock(&plog->fmu);
        if (r < 0) GR_WARN("storage", "%s: writing shutdown checkpoint: %s", plog->name, strerror(-r));
    } else {
        GR_WARN("storage", "%s: unclean close: %s", plog->name, es);
    }
    plog_free(plog);
}

/* Below this many written logs the per-log fsyncs cost less than syncing a whole file
 * system (which may hold other programs' dirty data too). */
#define CLOSE_MANY_MIN 32

/* Seal the active segment's index without fsync (stage 1 of gr_plog_close_many). */
static void close_stage1(gr_plog_t *plog) {
    gr__seg_t *act = plog->segs[plog->n_segs - 1];
    int ir = seal_index(act);
    if (ir < 0) GR_WARN("storage", "%s: writing index: %s (rebuilt at the next open)", act->path, strerror(-ir));
}

void gr_plog_close_many(gr_plog_t **logs, size_t n, int fs_fd, void (*progress)(void *), void *progress_arg) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (unchanged_since_clean_open(logs[i]))
            plog_free(logs[i]);
        else
            logs[k++] = logs[i];
        if (progress) progress(progress_arg);
    }
    if (k < CLOSE_MANY_MIN || fs_fd < 0) {
        for (size_t i = 0; i < k; i++) {
            gr_plog_close(logs[i]);
            if (progress) progress(progress_arg);
        }
        return;
    }
    /* The marker says "everything up to here is on disk and indexed": it may only become
     * durable after the data, the index files and the directory entries it describes. So:
     * write the indexes, sync the file system (barrier 1), write every marker, sync again.
     * A crash before barrier 1 completes leaves the old markers (or none): those logs are
     * recovered. syncfs reports a writeback error of the file system since fs_fd was opened
     * (Linux >= 5.8): then no marker is written and every written log recovers. */
    for (size_t i = 0; i < k; i++) {
        close_stage1(logs[i]);
        if (progress) progress(progress_arg);
    }
    int r = syncfs(fs_fd) < 0 ? -errno : 0;
    if (r < 0)
        GR_WARN("storage",
                "syncfs at shutdown: %s; the %zu logs written since start-up are recovered at the next start",
                strerror(-r), k);
    for (size_t i = 0; i < k; i++) {
        gr_plog_t *plog = logs[i];
        int w = 0;
        if (r == 0 && !__atomic_load_n(&plog->broken, __ATOMIC_ACQUIRE))
            w = gr__plog_write_recovery_nosync(plog, plog->end_offset, true);
        if (w < 0) GR_WARN("storage", "%s: writing shutdown checkpoint: %s", plog->name, strerror(-w));
        plog_free(plog);
        if (progress) progress(progress_arg);
    }
    if (r == 0 && syncfs(fs_fd) < 0) /* a marker not on disk only means a recovery at the next start */
        GR_WARN("storage", "syncfs after the shutdown checkpoints: %s", strerror(errno));
}

void gr_plog_abandon(gr_plog_t *plog) { plog_free(plog); }

gr_err_t gr_plog_delete(gr_plog_t *plog, char *errstr, size_t errstr_size) {
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; i < plog->n_segs; i++) gr__seg_unlink(plog->segs[i]);
    DIR *d = opendir(plog->dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) unlinkat(dirfd(d), de->d_name, 0);
        closedir(d);
    }
    if (rmdir(plog->dir) < 0) {
        GR__ERRSTR(errstr, errstr_size, "rmdir %s: %s", plog->dir, strerror(errno));
        err = GR_ERR_KAFKA_STORAGE_ERROR;
    }
    plog_free(plog);
    return err;
}

/* Walk the batches of an append buffer. Returns the number of offsets they use,
 * or -1 if buf is not a sequence of whole v2 batches. *max_ts gets the largest maxTimestamp. */
static int64_t check_batches(const uint8_t *buf, size_t len, int64_t *max_ts) {
    int64_t n_off = 0;
    *max_ts = -1;
    size_t pos = 0;
    while (pos < len) {
        if (len - pos < GR__BATCH_HDR) return -1;
        const uint8_t *p = buf + pos;
        int32_t blen = (int32_t)gr_be32(p + 8);
        int32_t delta = (int32_t)gr_be32(p + 23);
        if (blen < GR__BATCH_HDR - GR__LOG_OVERHEAD || (size_t)blen > len - pos - GR__LOG_OVERHEAD) return -1;
        if (p[16] != 2 || delta < 0) return -1;
        int64_t ts = (int64_t)gr_be64(p + 35);
        if (ts > *max_ts) *max_ts = ts;
        n_off += (int64_t)delta + 1;
        pos += GR__LOG_OVERHEAD + (size_t)blen;
    }
    return len ? n_off : -1;
}

static bool need_roll(const gr_plog_t *plog, const gr__seg_t *seg, size_t len, int64_t n_off, int64_t max_ts,
                      int64_t now_ms) {
    const gr_plog_config_t *cfg = &plog->cfg;
    if (seg->size == 0) return false;
    if (seg->size > cfg->segment_bytes - (int64_t)len) return true;
    if ((int64_t)(seg->ix.n_o + 1) * 8 > cfg->segment_index_bytes ||
        (int64_t)(seg->ix.n_t + 1) * 12 > cfg->segment_index_bytes)
        return true;
    if (plog->end_offset + n_off - 1 - seg->base > INT32_MAX) return true;
    /* Kafka's LogSegment.shouldRoll: time since the first batch's timestamp, or since
     * the segment was created when there is no timestamp. */
    int64_t waited = seg->first_ts >= 0 && max_ts >= 0 ? max_ts - seg->first_ts : now_ms - seg->created_ms;
    return waited > cfg->segment_ms;
}

/* Seal the active segment and start a new one at the end offset. Either both
 * happen or neither: when the new file cannot be created or the old segment's
 * index files cannot be written (disk full), the new file is removed again and
 * the old segment stays the active one, unchanged and usable. */
static int roll(gr_plog_t *plog, int64_t now_ms, char *errstr, size_t n) {
    gr__seg_t *old = plog->segs[plog->n_segs - 1], *seg;
    if (gr__seg_create(plog->dir, plog->end_offset, now_ms, &seg, errstr, n)) return errno ? -errno : -EIO;
    int r = seal_index(old);
    if (r < 0) {
        GR__ERRSTR(errstr, n, "roll: writing %s.index: %s", old->path, strerror(-r));
        gr__seg_unlink(seg);
        gr__seg_unref(seg);
        return r;
    }
    pthread_mutex_lock(&plog->mu);
    old->sealed = true;
    old->ix_unsynced = true;
    plog->dir_dirty = true;
    pthread_mutex_unlock(&plog->mu);
    gr__plog_push_seg(plog, seg);
    GR_DEBUG("storage", "%s: rolled new segment at offset %" PRId64, plog->name, seg->base);
    return 0;
}

/* Rewrite the broker-owned header fields of each batch. */
static void stamp_batches(uint8_t *buf, size_t len, int64_t base, const gr_plog_append_opts_t *opts) {
    for (size_t pos = 0; pos < len;) {
        uint8_t *p = buf + pos;
        size_t total = GR__LOG_OVERHEAD + gr_be32(p + 8);
        gr_put_be64(p, (uint64_t)base);
        if (opts->set_leader_epoch) gr_put_be32(p + 12, (uint32_t)opts->leader_epoch);
        if (opts->log_append_time) {
            gr_put_be16(p + 21, gr_be16(p + 21) | 0x08);
            gr_put_be64(p + 35, (uint64_t)opts->now_ms);
            gr_put_be32(p + 17, gr_crc32c(0, p + 21, total - 21));
        }
        base += (int64_t)gr_be32(p + 23) + 1;
        pos += total;
    }
}

static void index_batches(gr_plog_t *plog, gr__seg_t *seg, const uint8_t *buf, size_t len) {
    int64_t fpos = seg->size;
    for (size_t pos = 0; pos < len;) {
        const uint8_t *p = buf + pos;
        int64_t total = GR__LOG_OVERHEAD + (int64_t)gr_be32(p + 8);
        int64_t base = (int64_t)gr_be64(p);
        gr__seg_note_batch(seg, base, base + (int32_t)gr_be32(p + 23), (int64_t)gr_be64(p + 35), fpos + (int64_t)pos,
                           total, plog->cfg.index_interval_bytes);
        pos += (size_t)total;
    }
}

/* Out of space (or quota, or the file size limit): nothing was accepted and the
 * partial write was cut, so the same append can simply be retried later. */
static bool no_space(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

/* A failed append. `offline`: the data is in doubt (an I/O error, a failed rollback),
 * so the log stops until restart; otherwise it stays usable and the failure is logged
 * once per episode (a producer retries every retry.backoff.ms while the disk is full). */
static gr_err_t append_failed(gr_plog_t *plog, const char *what, int e, bool offline) {
    if (offline) {
        __atomic_store_n(&plog->broken, true, __ATOMIC_RELEASE);
        GR_ERROR("storage", "%s: %s: %s, log taken offline until restart", plog->name, what, strerror(e));
    } else if (!plog->write_failing) {
        GR_WARN("storage", "%s: %s: %s; nothing appended, the log stays online and appends are retried", plog->name,
                what, strerror(e));
    }
    plog->write_failing = true;
    return GR_ERR_KAFKA_STORAGE_ERROR;
}

gr_err_t gr_plog_append(gr_plog_t *plog, uint8_t *buf, size_t len, const gr_plog_append_opts_t *opts,
                        gr_plog_append_result_t *res, char *errstr, size_t errstr_size) {
    if (__atomic_load_n(&plog->broken, __ATOMIC_ACQUIRE)) {
        GR__ERRSTR(errstr, errstr_size, "%s: log is offline after an I/O error", plog->name);
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    int64_t max_ts;
    int64_t n_off = check_batches(buf, len, &max_ts);
    if (n_off < 0) {
        GR__ERRSTR(errstr, errstr_size, "%s: append buffer is not a sequence of whole v2 batches", plog->name);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    if (opts->log_append_time) max_ts = opts->now_ms;
    gr__seg_t *seg = plog->segs[plog->n_segs - 1];
    if (need_roll(plog, seg, len, n_off, max_ts, opts->now_ms)) {
        int r = roll(plog, opts->now_ms, errstr, errstr_size);
        /* A failed roll changed nothing (no data written, no index file left): whatever
         * the cause (ENOSPC, EMFILE, EIO), the old segment is intact and stays active. */
        if (r < 0) return append_failed(plog, "segment roll", -r, false);
        seg = plog->segs[plog->n_segs - 1];
    }
    int64_t base = plog->end_offset;
    stamp_batches(buf, len, base, opts);
    bool rollback_failed = false;
    int r = gr__seg_write(seg, buf, len, &rollback_failed);
    if (r < 0) {
        GR__ERRSTR(errstr, errstr_size, "write %s.log: %s", seg->path, strerror(-r));
        if (rollback_failed) return append_failed(plog, "write (and truncating it back)", -r, true);
        return append_failed(plog, "write", -r, !no_space(-r));
    }
    if (plog->write_failing) {
        GR_INFO("storage", "%s: appends succeed again at offset %" PRId64, plog->name, base);
        plog->write_failing = false;
    }
    index_batches(plog, seg, buf, len);
    pthread_mutex_lock(&plog->mu);
    seg->size += (int64_t)len;
    seg->dirty = true;
    plog->end_offset = base + n_off;
    plog->bytes_appended += (int64_t)len;
    pthread_mutex_unlock(&plog->mu);
    res->base_offset = base;
    res->last_offset = base + n_off - 1;
    res->log_append_time_ms = opts->log_append_time ? opts->now_ms : -1;
    res->log_start_offset = plog->start_offset;
    return GR_ERR_NONE;
}

bool gr_plog_offline(const gr_plog_t *plog) { return __atomic_load_n(&plog->broken, __ATOMIC_ACQUIRE); }

int64_t gr_plog_start_offset(const gr_plog_t *plog) { return plog->start_offset; }
int64_t gr_plog_end_offset(const gr_plog_t *plog) { return plog->end_offset; }
int64_t gr_plog_durable_offset(const gr_plog_t *plog) {
    return __atomic_load_n(&plog->durable_offset, __ATOMIC_ACQUIRE);
}
size_t gr_plog_segment_count(const gr_plog_t *plog) { return plog->n_segs; }

int64_t gr_plog_size_bytes(const gr_plog_t *plog) {
    int64_t total = 0;
    for (size_t i = 0; i < plog->n_segs; i++) total += plog->segs[i]->size;
    return total;
}
