/* Reads: fetch slices (zero-copy file ranges), copying reads, and the
 * timestamp queries of ListOffsets. All loop-thread only. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "storage/plog_int.h"

/* Index of the segment holding offset: the last one with base <= offset. */
static size_t find_seg(const gr_plog_t *plog, int64_t offset) {
    size_t lo = 0, hi = plog->n_segs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plog->segs[mid]->base <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

static gr_err_t seg_error(gr__seg_t *seg, int r, const char *why, char *errstr, size_t n) {
    if (r == -2)
        GR__ERRSTR(errstr, n, "read %s.log: %s", seg->path, strerror(errno));
    else if (r == -1)
        GR__ERRSTR(errstr, n, "%s.log: %s", seg->path, why);
    else
        GR__ERRSTR(errstr, n, "%s: loading index: %s", seg->path, strerror(-r));
    return GR_ERR_KAFKA_STORAGE_ERROR;
}

/* Collect whole batches of one segment into out (see gr_plog_read). out->len stays 0 if
 * the segment has no batch ending at or after offset. */
static gr_err_t read_seg(gr_plog_t *plog, gr__seg_t *seg, int64_t offset, size_t max_bytes, int64_t max_offset,
                         int64_t stop_offset, gr_plog_batch_cb cb, void *arg, gr_plog_slice_t *out, char *errstr,
                         size_t n) {
    int r = gr__seg_ensure_index(seg, plog->cfg.index_interval_bytes);
    if (r < 0) return seg_error(seg, r, NULL, errstr, n);
    gr__scan_t sc;
    gr__scan_init(&sc, seg->fd, gr__index_lookup_o(&seg->ix, (int32_t)(offset - seg->base)), seg->size);
    while ((r = gr__scan_next(&sc, false)) == 1) {
        if (sc.b_last < offset) continue;
        if (sc.b_last >= max_offset) break;
        if (out->n_batches > 0 && (size_t)(sc.b_pos + sc.b_len - out->pos) > max_bytes) break;
        if (out->n_batches++ == 0) {
            out->pos = sc.b_pos;
            out->first_offset = sc.b_base;
        }
        out->len = (size_t)(sc.b_pos + sc.b_len - out->pos);
        out->last_offset = sc.b_last;
        out->next_offset = sc.b_last + 1;
        if (cb) cb(arg, &(gr_plog_batch_t){sc.b_base, sc.b_last, sc.b_pos, sc.b_len});
        if (out->len >= max_bytes || sc.b_last >= stop_offset) break;
    }
    const char *why = sc.why;
    gr__scan_free(&sc);
    if (r < 0) return seg_error(seg, r, why, errstr, n);
    return GR_ERR_NONE;
}

gr_err_t gr_plog_read_batches(gr_plog_t *plog, int64_t offset, size_t max_bytes, int64_t max_offset,
                              int64_t stop_offset, gr_plog_batch_cb cb, void *arg, gr_plog_slice_t *out, char *errstr,
                              size_t errstr_size) {
    memset(out, 0, sizeof(*out));
    out->fd = -1;
    out->next_offset = offset;
    if (offset < plog->start_offset || offset > plog->end_offset) {
        GR__ERRSTR(errstr, errstr_size, "offset %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", offset,
                   plog->start_offset, plog->end_offset);
        return GR_ERR_OFFSET_OUT_OF_RANGE;
    }
    if (max_offset > plog->end_offset) max_offset = plog->end_offset;
    for (size_t i = find_seg(plog, offset); i < plog->n_segs && offset < max_offset; i++) {
        gr__seg_t *seg = plog->segs[i];
        if (offset >= seg->next_offset) continue; /* offset is in a later segment */
        gr_err_t err =
            read_seg(plog, seg, offset, max_bytes, max_offset, stop_offset, cb, arg, out, errstr, errstr_size);
        if (err) {
            memset(out, 0, sizeof(*out));
            out->fd = -1;
            out->next_offset = offset;
            return err;
        }
        if (out->n_batches) {
            gr__seg_ref(seg);
            out->fd = seg->fd;
            out->owner = seg;
            break;
        }
    }
    return GR_ERR_NONE;
}

gr_err_t gr_plog_read(gr_plog_t *plog, int64_t offset, size_t max_bytes, int64_t max_offset, gr_plog_slice_t *out,
                      char *errstr, size_t errstr_size) {
    return gr_plog_read_batches(plog, offset, max_bytes, max_offset, INT64_MAX, NULL, NULL, out, errstr, errstr_size);
}

void gr_plog_slice_release(void *owner) { gr__seg_unref(owner); }

gr_err_t gr_plog_read_copy(gr_plog_t *plog, int64_t offset, size_t max_bytes, int64_t max_offset, gr_wbuf_t *wb,
                           gr_plog_slice_t *out, char *errstr, size_t errstr_size) {
    gr_err_t err = gr_plog_read(plog, offset, max_bytes, max_offset, out, errstr, errstr_size);
    if (err || out->len == 0) return err;
    uint8_t *dst = gr_wbuf_reserve(wb, out->len); /* advances wb->len */
    int r = gr__pread_full(out->fd, dst, out->len, out->pos);
    if (r < 0) {
        wb->len -= out->len;
        GR__ERRSTR(errstr, errstr_size, "read %s: %s", plog->name, strerror(-r));
        err = GR_ERR_KAFKA_STORAGE_ERROR;
    }
    gr_plog_slice_release(out->owner);
    out->owner = NULL;
    out->fd = -1;
    return err;
}

/* First batch of seg with maxTimestamp >= ts and last offset >= the log start. */
static int find_ts_in_seg(gr_plog_t *plog, gr__seg_t *seg, int64_t ts, int64_t *offset, int64_t *batch_ts) {
    int32_t rel = gr__index_lookup_t(&seg->ix, ts);
    gr__scan_t sc;
    gr__scan_init(&sc, seg->fd, gr__index_lookup_o(&seg->ix, rel < 0 ? 0 : rel), seg->size);
    int r, found = 0;
    while ((r = gr__scan_next(&sc, false)) == 1) {
        if (sc.b_max_ts >= ts && sc.b_last >= plog->start_offset) {
            *offset = sc.b_base > plog->start_offset ? sc.b_base : plog->start_offset;
            *batch_ts = sc.b_max_ts;
            found = 1;
            break;
        }
    }
    gr__scan_free(&sc);
    return r < 0 ? r : found;
}

gr_err_t gr_plog_offset_for_timestamp(gr_plog_t *plog, int64_t ts, int64_t *offset, int64_t *batch_ts) {
    for (size_t i = find_seg(plog, plog->start_offset); i < plog->n_segs; i++) {
        gr__seg_t *seg = plog->segs[i];
        if (gr__seg_ensure_index(seg, plog->cfg.index_interval_bytes) < 0) return GR_ERR_KAFKA_STORAGE_ERROR;
        if (seg->size == 0 || seg->max_ts < ts) continue;
        int r = find_ts_in_seg(plog, seg, ts, offset, batch_ts);
        if (r < 0) return GR_ERR_KAFKA_STORAGE_ERROR;
        if (r == 1) return GR_ERR_NONE;
    }
    return GR_ERR__NOENT;
}

gr_err_t gr_plog_max_timestamp(gr_plog_t *plog, int64_t *offset, int64_t *ts) {
    *offset = *ts = -1;
    for (size_t i = find_seg(plog, plog->start_offset); i < plog->n_segs; i++) {
        gr__seg_t *seg = plog->segs[i];
        if (gr__seg_ensure_index(seg, plog->cfg.index_interval_bytes) < 0) return GR_ERR_KAFKA_STORAGE_ERROR;
        if (seg->size > 0 && seg->max_ts > *ts) {
            *ts = seg->max_ts;
            *offset = seg->max_ts_off > plog->start_offset ? seg->max_ts_off : plog->start_offset;
        }
    }
    return *offset < 0 ? GR_ERR__NOENT : GR_ERR_NONE;
}

int64_t gr_plog_tail_offset(gr_plog_t *plog, size_t max_bytes) {
    gr__seg_t *seg = plog->segs[plog->n_segs - 1];
    int64_t from = seg->base > plog->start_offset ? seg->base : plog->start_offset;
    int64_t want = seg->size - (int64_t)max_bytes;
    if (want <= 0 || !seg->ix_loaded || seg->ix.n_o == 0) return from;
    /* First indexed batch at or after the wanted position (entries are sorted by position). */
    size_t lo = 0, hi = seg->ix.n_o;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (seg->ix.o[mid].pos < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == seg->ix.n_o) lo = seg->ix.n_o - 1;
    int64_t off = seg->base + seg->ix.o[lo].rel;
    return off > from ? off : from;
}
