/* Flusher: a background thread that makes partition logs durable (group commit).
 *
 * The loop thread asks "make log L durable up to offset O, then call cb(arg, err)".
 * The flusher thread takes every request queued so far, runs one gr_plog_fsync per
 * distinct log (one fsync covers all the requests waiting on that log, however
 * many; the logs of one pass in parallel, on helper threads), and queues the
 * completions. It then calls wake(wake_ctx) (from the flusher
 * thread; typically an eventfd write), and the loop thread runs
 * gr_flusher_run_completions(), which invokes the callbacks on the loop thread.
 *
 * Requests arriving while an fsync runs wait for the next pass, so under load each
 * log sees at most one fsync in flight and the batch grows with the load. */
#ifndef GR_STORAGE_FLUSHER_H
#define GR_STORAGE_FLUSHER_H

#include <stdint.h>

#include "base/err.h"
#include "base/metrics.h"
#include "storage/plog.h"

typedef struct gr_flusher gr_flusher_t;

/** Completion: err is 0 when offsets below the requested one are durable, else
 *  GR_ERR_KAFKA_STORAGE_ERROR (the log is then offline). Runs on the loop thread. */
typedef void gr_flusher_cb(void *arg, gr_err_t err);

/** Start the flusher thread. wake(wake_ctx) is called from the flusher thread after
 *  completions were queued; it must be thread-safe and must not block.
 *  @returns 0 or GR_ERR__NOMEM / GR_ERR_UNKNOWN_SERVER_ERROR (thread creation). */
gr_err_t gr_flusher_start(gr_flusher_t **out, void (*wake)(void *wake_ctx), void *wake_ctx);

/** Ask for plog to be durable up to `offset` (exclusive: all offsets < offset), offset
 *  <= the log end offset. cb(arg, err) runs later from gr_flusher_run_completions,
 *  never from inside this call (already durable: completed on the next run).
 *  The log must stay open until the callback has run. Loop thread. */
void gr_flusher_request(gr_flusher_t *fl, gr_plog_t *plog, int64_t offset, gr_flusher_cb *cb, void *arg);
/** gr_flusher_request whose fsync is also timed into *hist (gr_hist_observe_atomic, on the
 *  flusher thread; the caller reads it with gr_hist_load). One observation per
 *  gr_plog_fsync, however many requests it serves. hist (NULL: not timed) must outlive
 *  the flusher. The broker times its partition logs this way (gregor_log_fsync_*). */
void gr_flusher_request_timed(gr_flusher_t *fl, gr_plog_t *plog, int64_t offset, gr_hist_t *hist, gr_flusher_cb *cb,
                              void *arg);

/** One request of gr_flusher_request_many (the arguments of gr_flusher_request_timed). */
typedef struct gr_flusher_item {
    gr_plog_t *plog;
    int64_t offset;
    gr_hist_t *hist;
    gr_flusher_cb *cb;
    void *arg;
} gr_flusher_item_t;
/** n requests handed over at once (one lock, one wake-up of the thread), so that a pass
 *  never starts with only the first of them: a caller that collected a batch (the
 *  broker's acks=all sync queue) gets one fsync per log for all of it. Loop thread. */
void gr_flusher_request_many(gr_flusher_t *fl, const gr_flusher_item_t *items, size_t n);

/** Block until no request is pending and no pass is running, i.e. every request made so
 *  far has its completion queued (run them with gr_flusher_run_completions). For
 *  shutdown paths that must finish their waiters before the loop stops. Loop thread. */
void gr_flusher_wait_idle(gr_flusher_t *fl);

/** Run the queued completion callbacks on the calling (loop) thread. Returns how many ran. */
size_t gr_flusher_run_completions(gr_flusher_t *fl);

/** Counters: requests received, gr_plog_fsync calls made (one per log per pass). */
void gr_flusher_stats(gr_flusher_t *fl, uint64_t *n_requests, uint64_t *n_fsyncs);

/** Finish the pending requests, stop the thread, run the remaining completions on
 *  the calling thread and free the flusher. Loop thread. */
void gr_flusher_destroy(gr_flusher_t *fl);

#endif
