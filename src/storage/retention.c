/* Retention (retention.ms, retention.bytes) and DeleteRecords. Loop thread.
 *
 * Segments are deleted oldest first and never the active one. Deleting unlinks
 * the files at once; readers and the flusher holding a reference keep the fd. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "storage/plog_int.h"

/* Delete the sealed segments whose offsets are all below the log start. */
static int drop_below_start(gr_plog_t *plog) {
    int n = 0;
    while (plog->n_segs > 1 && plog->segs[1]->base <= plog->start_offset) {
        gr__plog_drop_oldest(plog);
        n++;
    }
    return n;
}

/* The timestamp retention.ms compares: the largest batch timestamp, or the file's
 * modification time when the segment has no timestamps (Kafka does the same). */
static int64_t seg_ts(gr_plog_t *plog, gr__seg_t *seg) {
    if (gr__seg_ensure_index(seg, plog->cfg.index_interval_bytes) == 0 && seg->max_ts >= 0) return seg->max_ts;
    struct stat st;
    if (fstat(seg->fd, &st) < 0) return INT64_MAX;
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

gr_err_t gr_plog_retention(gr_plog_t *plog, int64_t now_ms, int *n_deleted) {
    const gr_plog_config_t *cfg = &plog->cfg;
    int n = drop_below_start(plog);
    if (cfg->retention_ms >= 0) {
        while (plog->n_segs > 1 && now_ms - seg_ts(plog, plog->segs[0]) > cfg->retention_ms) {
            gr__plog_drop_oldest(plog);
            n++;
        }
    }
    if (cfg->retention_bytes >= 0) {
        int64_t total = gr_plog_size_bytes(plog);
        while (plog->n_segs > 1 && total - plog->segs[0]->size >= cfg->retention_bytes) {
            total -= plog->segs[0]->size;
            gr__plog_drop_oldest(plog);
            n++;
        }
    }
    if (plog->segs[0]->base > plog->start_offset) plog->start_offset = plog->segs[0]->base;
    if (n > 0)
        GR_DEBUG("storage", "%s: retention deleted %d segment(s), log start offset %" PRId64, plog->name, n,
                 plog->start_offset);
    if (n_deleted) *n_deleted = n;
    return GR_ERR_NONE;
}

gr_err_t gr_plog_delete_records(gr_plog_t *plog, int64_t offset, char *errstr, size_t errstr_size) {
    if (offset > plog->end_offset) {
        GR__ERRSTR(errstr, errstr_size, "offset %" PRId64 " is past the end offset %" PRId64, offset, plog->end_offset);
        return GR_ERR_OFFSET_OUT_OF_RANGE;
    }
    if (offset <= plog->start_offset) return GR_ERR_NONE;
    int64_t old = plog->start_offset;
    plog->start_offset = offset;
    int r = gr__plog_write_start(plog);
    if (r < 0) {
        plog->start_offset = old;
        GR__ERRSTR(errstr, errstr_size, "%s: writing log start checkpoint: %s", plog->name, strerror(-r));
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    drop_below_start(plog);
    return GR_ERR_NONE;
}
