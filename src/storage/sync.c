/* Durability: gr_plog_fsync (run by the flusher thread, or directly) and the
 * flush policy query.
 *
 * The loop thread marks segments dirty under plog->mu as it appends; one fsync
 * pass takes references on the dirty segments and clears the marks under mu,
 * syncs without the lock (so appends continue meanwhile), then publishes the
 * end offset it captured as the new durable offset. Bytes appended during the
 * pass re-mark their segment and are covered by the next pass. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "storage/plog_int.h"

typedef struct sync_item {
    gr__seg_t *seg;
    bool data, ix;
} sync_item_t;

/* Under mu: capture what to sync. Returns the number of items (*items malloc'd). */
static size_t snapshot(gr_plog_t *plog, sync_item_t **items, int64_t *target, int64_t *tbytes, bool dir[2],
                       int64_t *ckpt_ms) {
    size_t k = 0;
    *items = malloc((plog->n_segs ? plog->n_segs : 1) * sizeof(**items));
    if (!*items) abort();
    for (size_t i = 0; i < plog->n_segs; i++) {
        gr__seg_t *seg = plog->segs[i];
        if (!seg->dirty && !seg->ix_unsynced) continue;
        gr__seg_ref(seg);
        (*items)[k++] = (sync_item_t){seg, seg->dirty, seg->ix_unsynced};
        seg->dirty = seg->ix_unsynced = false;
    }
    *target = plog->end_offset;
    *tbytes = plog->bytes_appended;
    dir[0] = plog->dir_dirty;
    dir[1] = plog->parent_unsynced;
    plog->dir_dirty = plog->parent_unsynced = false;
    *ckpt_ms = plog->cfg.checkpoint_interval_ms;
    return k;
}

/* The directory holding the log's directory ("." for a relative name without a slash). */
static int fsync_parent(const char *dir) {
    char parent[4096];
    snprintf(parent, sizeof(parent), "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = '\0';
    else
        snprintf(parent, sizeof(parent), "%s", slash ? "/" : ".");
    return gr__fsync_dir(parent);
}

static int sync_items(gr_plog_t *plog, sync_item_t *items, size_t k, const bool dir[2], const char **what) {
    int r = 0;
    for (size_t i = 0; i < k && r == 0; i++) {
        *what = items[i].seg->path;
        if (items[i].data && fdatasync(items[i].seg->fd) < 0) r = -errno;
        if (r == 0 && items[i].ix) r = gr__index_fsync(items[i].seg->path);
    }
    if (r == 0 && dir[0]) {
        *what = plog->dir;
        r = gr__fsync_dir(plog->dir);
    }
    if (r == 0 && dir[1]) {
        *what = "the parent of the log directory";
        r = fsync_parent(plog->dir);
    }
    return r;
}

static void maybe_checkpoint(gr_plog_t *plog, int64_t rp, int64_t now, int64_t interval) {
    if (now - plog->last_ckpt_ms < interval) return;
    int r = gr__plog_write_recovery(plog, rp, false);
    if (r < 0)
        GR_WARN("storage", "%s: writing recovery point: %s", plog->name, strerror(-r));
    else
        plog->last_ckpt_ms = now;
    plog->disk_clean = false; /* even a failed write may have replaced the clean marker */
}

gr_err_t gr_plog_fsync(gr_plog_t *plog, int64_t *durable, char *errstr, size_t errstr_size) {
    sync_item_t *items;
    int64_t target, tbytes, ckpt_ms;
    bool dir[2];
    gr_err_t err = GR_ERR_NONE;
    pthread_mutex_lock(&plog->fmu);
    pthread_mutex_lock(&plog->mu);
    size_t k = snapshot(plog, &items, &target, &tbytes, dir, &ckpt_ms);
    pthread_mutex_unlock(&plog->mu);
    int64_t t0 = gr_clock_mono_ms();
    const char *what = plog->dir;
    bool was_broken = __atomic_load_n(&plog->broken, __ATOMIC_ACQUIRE);
    int r = was_broken ? -EIO : sync_items(plog, items, k, dir, &what);
    if (r < 0) {
        /* After a failed fsync the kernel may have dropped the dirty pages or
         * marked them clean without writing them, so a second fsync could
         * "succeed" over lost data (PostgreSQL's fsyncgate). Nothing written
         * since the last good fsync can be trusted: the log goes offline until
         * a restart, whose recovery re-reads and CRC-checks the tail from disk. */
        __atomic_store_n(&plog->broken, true, __ATOMIC_RELEASE);
        if (was_broken) {
            GR__ERRSTR(errstr, errstr_size, "%s: log is offline after an I/O error", plog->name);
        } else {
            GR_ERROR("storage", "%s: fsync %s: %s, log taken offline until restart", plog->name, what, strerror(-r));
            GR__ERRSTR(errstr, errstr_size, "fsync %s: %s", what, strerror(-r));
        }
        err = GR_ERR_KAFKA_STORAGE_ERROR;
    } else {
        pthread_mutex_lock(&plog->mu);
        if (target > __atomic_load_n(&plog->durable_offset, __ATOMIC_RELAXED))
            __atomic_store_n(&plog->durable_offset, target, __ATOMIC_RELEASE);
        plog->durable_bytes = tbytes;
        pthread_mutex_unlock(&plog->mu);
        __atomic_store_n(&plog->last_flush_ms, t0, __ATOMIC_RELAXED);
        if (k || dir[0] || dir[1]) __atomic_add_fetch(&plog->n_fsyncs, 1, __ATOMIC_RELAXED);
        maybe_checkpoint(plog, target, t0, ckpt_ms);
    }
    for (size_t i = 0; i < k; i++) gr__seg_unref(items[i].seg);
    free(items);
    pthread_mutex_unlock(&plog->fmu);
    if (durable) *durable = gr_plog_durable_offset(plog);
    return err;
}

bool gr_plog_flush_due(const gr_plog_t *plog, int64_t now_mono_ms) {
    int64_t unflushed = plog->end_offset - gr_plog_durable_offset(plog);
    if (unflushed <= 0) return false;
    if (unflushed >= plog->cfg.flush_interval_messages) return true;
    return plog->cfg.flush_interval_ms >= 0 &&
           now_mono_ms - __atomic_load_n(&plog->last_flush_ms, __ATOMIC_RELAXED) >= plog->cfg.flush_interval_ms;
}

void gr_plog_flush_stats(const gr_plog_t *plog, gr_plog_flush_stats_t *st) {
    gr_plog_t *p = (gr_plog_t *)plog; /* mu is logically const */
    pthread_mutex_lock(&p->mu);
    st->unflushed_messages = p->end_offset - gr_plog_durable_offset(p);
    st->unflushed_bytes = p->bytes_appended - p->durable_bytes;
    pthread_mutex_unlock(&p->mu);
    st->last_flush_mono_ms = __atomic_load_n(&p->last_flush_ms, __ATOMIC_RELAXED);
    st->n_fsyncs = __atomic_load_n(&p->n_fsyncs, __ATOMIC_RELAXED);
}
