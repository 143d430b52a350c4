/* Store log: the internal partition log shared by the share-state store and the
 * group store. See store_log.h.
 *
 * @locality loop thread only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/log.h"
#include "share/store_log.h"

#define REPLAY_READ_BYTES (1u << 20)

gr_err_t gr_store_log_open(gr_store_log_t *lg, const char *dir, int64_t segment_bytes, gr_flusher_t *flusher,
                           int64_t now_ms, const char *sub, char *errstr, size_t errstr_size) {
    *lg = (gr_store_log_t){.flusher = flusher, .sub = sub, .now_ms = now_ms};
    gr_batch_builder_init(&lg->bb);
    gr_wbuf_init(&lg->out);
    gr_plog_config_t cfg;
    gr_plog_config_default(&cfg);
    cfg.segment_bytes = segment_bytes;
    cfg.segment_ms = INT64_MAX; /* no time-based rolls: the store passes no clock to appends */
    cfg.retention_ms = -1;      /* the store moves the log start itself (prune) */
    cfg.retention_bytes = -1;
    gr_err_t err = gr_plog_open(dir, &cfg, now_ms, &lg->plog, errstr, errstr_size);
    if (err) {
        lg->plog = NULL;
        gr_store_log_abandon(lg);
        return err;
    }
    lg->appended_bytes = gr_plog_size_bytes(lg->plog);
    return GR_ERR_NONE;
}

static gr_err_t replay_batch(gr_store_log_t *lg, const gr_batch_view_t *bv, gr_wbuf_t *scratch, const char *what,
                             gr_store_log_record_fn *fn, void *arg, char *errstr, size_t n) {
    if (!gr_batch_crc_ok(bv)) {
        snprintf(errstr, n, "%s batch at offset %" PRId64 ": CRC mismatch", what, bv->base_offset);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    gr_record_iter_t it;
    if (gr_record_iter_init(&it, bv, scratch, 0, errstr, n)) return GR_ERR_CORRUPT_MESSAGE;
    int64_t start = gr_plog_start_offset(lg->plog);
    gr_record_t rec;
    gr_err_t err;
    while ((err = gr_record_iter_next(&it, &rec, errstr, n)) == GR_ERR_NONE) {
        if (rec.offset < start) continue; /* superseded: below the log start, inside its batch */
        if ((err = fn(arg, &rec, errstr, n))) return err;
    }
    return err == GR_ERR__NOENT ? GR_ERR_NONE : GR_ERR_CORRUPT_MESSAGE;
}

gr_err_t gr_store_log_replay(gr_store_log_t *lg, const char *what, gr_store_log_record_fn *fn, void *arg, char *errstr,
                             size_t n) {
    int64_t off = gr_plog_start_offset(lg->plog), end = gr_plog_end_offset(lg->plog);
    gr_wbuf_t wb, scratch;
    gr_wbuf_init(&wb);
    gr_wbuf_init(&scratch);
    gr_err_t err = GR_ERR_NONE;
    while (off < end && !err) {
        gr_plog_slice_t sl;
        gr_wbuf_reset(&wb);
        if ((err = gr_plog_read_copy(lg->plog, off, REPLAY_READ_BYTES, end, &wb, &sl, errstr, n))) break;
        if (sl.len == 0) break;
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, wb.mem, wb.len);
        while (!err && gr_batch_iter_next(&it, &bv, NULL, 0) == GR_ERR_NONE)
            err = replay_batch(lg, &bv, &scratch, what, fn, arg, errstr, n);
        off = sl.next_offset;
    }
    gr_wbuf_free(&wb);
    gr_wbuf_free(&scratch);
    return err;
}

void gr_store_log_add(gr_store_log_t *lg, const void *key, size_t key_len, const void *value, size_t value_len) {
    gr_batch_builder_add(&lg->bb, lg->now_ms, key, (int32_t)key_len, value, value ? (int32_t)value_len : -1, NULL, 0);
}

gr_err_t gr_store_log_append(gr_store_log_t *lg, int64_t *base) {
    if (lg->failed) {
        gr_batch_builder_free(&lg->bb);
        gr_batch_builder_init(&lg->bb);
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    gr_wbuf_reset(&lg->out);
    gr_err_t err = gr_batch_builder_finish(&lg->bb, &bo, &lg->out);
    gr_batch_builder_free(&lg->bb);
    gr_batch_builder_init(&lg->bb);
    if (err) return err;
    gr_plog_append_opts_t ao = {.now_ms = lg->now_ms};
    gr_plog_append_result_t res;
    char es[256];
    if (gr_plog_append(lg->plog, lg->out.mem, lg->out.len, &ao, &res, es, sizeof(es))) {
        /* Once per episode (a full disk refuses every write until space returns). */
        if (!lg->append_failing)
            GR_ERROR(lg->sub, "append: %s (further failures are logged at debug level)", es);
        else
            GR_DEBUG(lg->sub, "append: %s", es);
        lg->append_failing = true;
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    if (lg->append_failing) GR_INFO(lg->sub, "appends work again");
    lg->append_failing = false;
    *base = res.base_offset;
    lg->appended_bytes += (int64_t)lg->out.len;
    GR_METRIC(lg->n_appends++; lg->bytes_appended += lg->out.len);
    return GR_ERR_NONE;
}

static void set_failed(gr_store_log_t *lg) {
    if (lg->failed) return;
    lg->failed = true;
    GR_ERROR(lg->sub, "a durable write failed: the store refuses every write until restart");
}

typedef struct durable_req {
    gr_store_log_t *lg;
    gr_flusher_cb *cb;
    void *arg;
    int64_t t0_us; /* when durability was asked for (metrics) */
} durable_req_t;

/* Microseconds for the write-latency histogram only: the loop's clock has
 * millisecond resolution, too coarse for an fsync. */
static inline int64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void on_durable(void *arg, gr_err_t err) {
    durable_req_t *r = arg;
    GR_METRIC(if (!err) gr_hist_observe(&r->lg->write_latency, mono_us() - r->t0_us));
    if (err) set_failed(r->lg);
    r->cb(r->arg, err);
    free(r);
}

void gr_store_log_request(gr_store_log_t *lg, gr_flusher_cb *cb, void *arg) {
    if (!lg->flusher) abort(); /* a durable write needs a flusher (API misuse) */
    durable_req_t *r = malloc(sizeof(*r));
    if (!r) abort();
    *r = (durable_req_t){lg, cb, arg, 0};
    GR_METRIC(r->t0_us = mono_us());
    gr_flusher_request(lg->flusher, lg->plog, gr_plog_end_offset(lg->plog), on_durable, r);
}

/* Waiting for the end offset of now (not just `to`) is what makes the prune
 * crash-safe: every record that makes the old ones redundant was appended before
 * now, so it is on disk before anything it replaces is dropped. */
void gr_store_log_plan_prune(gr_store_log_t *lg, int64_t to) {
    if (to <= gr_plog_start_offset(lg->plog)) return;
    lg->prune_pending = true;
    lg->prune_to = to;
    lg->prune_after = gr_plog_end_offset(lg->plog);
}

int64_t gr_store_log_maintain(gr_store_log_t *lg) {
    if (lg->prune_pending && gr_plog_durable_offset(lg->plog) >= lg->prune_after) {
        char es[256];
        if (gr_plog_delete_records(lg->plog, lg->prune_to, es, sizeof(es)))
            GR_WARN(lg->sub, "prune to %" PRId64 ": %s", lg->prune_to, es);
        lg->prune_pending = false;
    }
    return gr_plog_start_offset(lg->plog);
}

bool gr_store_log_compaction_due(const gr_store_log_t *lg, int64_t live_bytes, int64_t slack) {
    return lg->appended_bytes > live_bytes + slack;
}

static void on_internal_flush(void *arg, gr_err_t err) {
    gr_store_log_t *lg = arg;
    lg->n_internal_flushes--;
    if (err)
        set_failed(lg);
    else
        gr_store_log_maintain(lg);
}

void gr_store_log_compacted(gr_store_log_t *lg, int64_t to) {
    lg->appended_bytes = 0;
    gr_store_log_plan_prune(lg, to);
    if (lg->flusher && lg->prune_pending) {
        lg->n_internal_flushes++;
        gr_flusher_request(lg->flusher, lg->plog, gr_plog_end_offset(lg->plog), on_internal_flush, lg);
    }
}

gr_err_t gr_store_log_sync(gr_store_log_t *lg) {
    char es[256];
    gr_err_t err = gr_plog_fsync(lg->plog, NULL, es, sizeof(es));
    if (err) GR_ERROR(lg->sub, "fsync: %s", es);
    return err;
}

static void free_bufs(gr_store_log_t *lg) {
    gr_batch_builder_free(&lg->bb);
    gr_wbuf_free(&lg->out);
    lg->plog = NULL;
}

void gr_store_log_close(gr_store_log_t *lg) {
    if (lg->n_internal_flushes != 0) GR_ERROR(lg->sub, "closed with %d flushes pending", lg->n_internal_flushes);
    if (lg->plog) gr_plog_close(lg->plog);
    free_bufs(lg);
}

void gr_store_log_abandon(gr_store_log_t *lg) {
    if (lg->plog) gr_plog_abandon(lg->plog);
    free_bufs(lg);
}
