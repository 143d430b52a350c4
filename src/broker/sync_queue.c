/* acks=all durability: group commit on a sync thread of its own, answered on the loop.
 *
 * Produce requests (and transaction markers, DLQ batches) that need their data on
 * disk queue a waiter here. Just before the loop sleeps, the waiters of that
 * iteration are grouped by partition; a partition already durable up to the
 * waiters' offsets completes them at once, every other partition becomes one
 * request to the queue's own flusher thread (storage/flusher.c), all handed over
 * in one lock and one wake-up. That thread fdatasyncs each partition once for
 * every waiter of the hand-off (group commit) and wakes the loop (gr_loop_post),
 * which completes the waiters: success only for offsets the fsync made durable;
 * after a failed fsync the waiters an earlier good fsync did not cover get
 * KAFKA_STORAGE_ERROR (the log is then offline). Waiters that arrive while an
 * fsync is in flight are handed over at the next before-sleep and wait for the
 * thread's next pass, so under load each partition has one fsync running and
 * one batch forming, and the batch grows with the load.
 *
 * Why a thread and not the loop itself (the previous design, Redis's
 * appendfsync-always): an fsync on the loop stalls every other connection -
 * fetches, share acknowledgements, other producers - for its whole duration,
 * which dominated end-to-end p99 under load. The cost of the hand-off is two
 * thread wake-ups per batch, paid once per loop iteration, not per request;
 * pipelined producers still see one fsync per partition per batch.
 *
 * The thread is the queue's own (not the broker's flusher, which serves the flush
 * policy and the share stores), so an acks=all fsync never waits behind them.
 * Callbacks always run on the loop thread, never inside gr_sync_queue_add; a
 * waiter's partition stays pinned until its callback has run. Shutdown
 * (gr_sync_queue_free) completes every waiter, queued or in flight.
 * @locality loop thread (the fsyncs themselves run on the sync thread). */
#include <stdlib.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "storage/flusher.h"

typedef struct sync_waiter {
    gr_partition_t *p;
    int64_t offset;
    gr_sync_cb *cb;
    void *arg;
} sync_waiter_t;

/* The waiters of one partition handed to the sync thread in one go. */
typedef struct sync_batch {
    gr_sync_queue_t *q;
    gr_partition_t *p;
    size_t n;
    sync_waiter_t w[];
} sync_batch_t;

struct gr_sync_queue {
    sync_waiter_t *v; /* waiting for the next hand-off */
    size_t n, cap;
    size_t n_inflight; /* batches handed to the thread, not completed yet */
    gr_hist_t *fsync_hist;
    gr_loop_t *loop;
    gr_flusher_t *fl; /* NULL: fsync inline (no thread, or shutting down) */
};

static void sync_completions(gr_loop_t *loop, void *arg, int64_t now) {
    (void)loop;
    (void)now;
    gr_sync_queue_t *q = arg;
    if (q->fl) gr_flusher_run_completions(q->fl);
}

/* Sync thread -> loop thread. */
static void sync_wake(void *ctx) {
    gr_sync_queue_t *q = ctx;
    gr_loop_post(q->loop, sync_completions, q);
}

gr_sync_queue_t *gr_sync_queue_new(gr_loop_t *loop, gr_hist_t *fsync_hist) {
    gr_sync_queue_t *q = calloc(1, sizeof(*q));
    if (!q) abort();
    q->fsync_hist = fsync_hist;
    q->loop = loop;
    if (loop && gr_flusher_start(&q->fl, sync_wake, q) != GR_ERR_NONE) {
        GR_WARN("broker", "cannot start the acks=all sync thread: fsyncs run on the loop thread");
        q->fl = NULL;
    }
    return q;
}

void gr_sync_queue_add(gr_sync_queue_t *q, gr_partition_t *p, int64_t offset, gr_sync_cb *cb, void *arg) {
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->v = realloc(q->v, q->cap * sizeof(*q->v));
        if (!q->v) abort();
    }
    gr_partition_pin(p);
    q->v[q->n++] = (sync_waiter_t){p, offset, cb, arg};
}

/* Answer waiter w given the durable offset of its log after an fsync that ended
 * with err: an offset an earlier good fsync covered stays a success. */
static void complete(sync_waiter_t *w, int64_t durable, gr_err_t err) {
    gr_partition_t *p = w->p;
    w->cb(w->arg, w->offset <= durable ? GR_ERR_NONE : err ? err : GR_ERR_KAFKA_STORAGE_ERROR);
    gr_partition_unpin(p);
}

static void batch_done(void *arg, gr_err_t err) {
    sync_batch_t *bt = arg;
    gr_partition_t *p = bt->p;
    if (err) GR_ERROR("broker", "fsync of %s-%d failed", p->topic, p->index);
    int64_t durable = gr_plog_durable_offset(p->plog);
    bt->q->n_inflight--;
    for (size_t i = 0; i < bt->n; i++) complete(&bt->w[i], durable, err);
    free(bt);
}

/* gr_plog_fsync on the calling thread, timed into the fsync histogram (metrics). */
static gr_err_t fsync_inline(gr_sync_queue_t *q, gr_partition_t *p) {
    char errstr[256];
    int64_t t0 = 0;
    GR_METRIC(if (q->fsync_hist) t0 = gr_cm_now_us());
    gr_err_t err = gr_plog_fsync(p->plog, NULL, errstr, sizeof(errstr));
    GR_METRIC(if (q->fsync_hist) gr_hist_observe_atomic(q->fsync_hist, gr_cm_now_us() - t0));
    (void)t0;
    if (err) GR_ERROR("broker", "fsync of %s-%d failed: %s", p->topic, p->index, errstr);
    return err;
}

/* Take the waiters v[i..n) of v[i].p out of v (p set to NULL); returns their highest offset. */
static int64_t group_need(sync_waiter_t *v, size_t i, size_t n, size_t *count) {
    int64_t need = v[i].offset;
    size_t c = 0;
    for (size_t j = i; j < n; j++) {
        if (v[j].p != v[i].p) continue;
        if (v[j].offset > need) need = v[j].offset;
        c++;
    }
    *count = c;
    return need;
}

/* The group of v[i].p: complete it now (already durable, or no thread: fsync here) or
 * move it into a batch for the sync thread (returned, with its request in *it). */
static sync_batch_t *take_group(gr_sync_queue_t *q, sync_waiter_t *v, size_t i, size_t n, gr_flusher_item_t *it) {
    gr_partition_t *p = v[i].p;
    size_t count;
    int64_t need = group_need(v, i, n, &count);
    if (!q->fl || gr_plog_durable_offset(p->plog) >= need) {
        gr_err_t err = gr_plog_durable_offset(p->plog) >= need ? GR_ERR_NONE : fsync_inline(q, p);
        int64_t durable = gr_plog_durable_offset(p->plog);
        for (size_t j = i; j < n; j++) {
            if (v[j].p != p) continue;
            sync_waiter_t w = v[j];
            v[j].p = NULL;
            complete(&w, durable, err);
        }
        return NULL;
    }
    sync_batch_t *bt = malloc(sizeof(*bt) + count * sizeof(bt->w[0]));
    if (!bt) abort();
    *bt = (sync_batch_t){.q = q, .p = p};
    for (size_t j = i; j < n; j++) {
        if (v[j].p != p) continue;
        bt->w[bt->n++] = v[j];
        v[j].p = NULL;
    }
    *it = (gr_flusher_item_t){.plog = p->plog, .offset = need, .hist = q->fsync_hist, .cb = batch_done, .arg = bt};
    return bt;
}

void gr_sync_queue_run(gr_sync_queue_t *q) {
    if (q->n == 0) return;
    /* Take the waiters first: callbacks may queue new ones (for the next run). */
    sync_waiter_t *v = q->v;
    size_t n = q->n;
    q->v = NULL;
    q->n = q->cap = 0;
    gr_flusher_item_t *items = malloc(n * sizeof(*items));
    if (!items) abort();
    size_t n_items = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].p && take_group(q, v, i, n, &items[n_items])) n_items++;
    q->n_inflight += n_items;
    if (n_items) gr_flusher_request_many(q->fl, items, n_items);
    free(items);
    free(v);
}

void gr_sync_queue_free(gr_sync_queue_t *q) {
    if (!q) return;
    /* Never leave a waiter without its answer: hand over what is queued, wait for the
     * thread, complete; callbacks may queue more, so until nothing is left. */
    while (q->fl && (q->n || q->n_inflight)) {
        gr_sync_queue_run(q);
        gr_flusher_wait_idle(q->fl);
        gr_flusher_run_completions(q->fl);
    }
    if (q->fl) gr_flusher_destroy(q->fl);
    q->fl = NULL;
    while (q->n) gr_sync_queue_run(q); /* without a thread: inline */
    free(q->v);
    free(q);
}
