/* acks=all durability on the loop thread (Redis's appendfsync-always pattern).
 *
 * Produce requests that need their data on disk queue a sync here; just before
 * the loop sleeps, every partition with waiters is fdatasync'ed once and the
 * waiters are completed. Everything that arrived in one loop iteration shares
 * one fsync per partition (group commit) and no thread hand-off sits between
 * the append and the answer, which is what bounds acks=all latency on a busy
 * machine. The cost is that the loop does not serve other connections during
 * the fsync itself; on this class of disk that is well under a millisecond.
 * @locality loop thread. */
#include <stdlib.h>

#include "base/log.h"
#include "broker/broker_int.h"

typedef struct sync_waiter {
    gr_partition_t *p;
    int64_t offset;
    gr_sync_cb *cb;
    void *arg;
} sync_waiter_t;

struct gr_sync_queue {
    sync_waiter_t *v;
    size_t n, cap;
    gr_hist_t *fsync_hist; /* shared with the flusher thread: atomic updates */
};

gr_sync_queue_t *gr_sync_queue_new(gr_hist_t *fsync_hist) {
    gr_sync_queue_t *q = calloc(1, sizeof(*q));
    if (!q) abort();
    q->fsync_hist = fsync_hist;
    return q;
}

void gr_sync_queue_free(gr_sync_queue_t *q) {
    if (!q) return;
    gr_sync_queue_run(q); /* never leave a waiter without its answer */
    free(q->v);
    free(q);
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

/* Sync p if some waiter needs more than is durable; remember the outcome in
 * the waiters of p (at most one fsync per partition per run). */
/* gr_plog_fsync timed into the fsync histogram (metrics). */
static gr_err_t fsync_timed(gr_sync_queue_t *q, gr_plog_t *plog, char *errstr, size_t errstr_size) {
#ifndef GR_NO_METRICS
    if (q->fsync_hist) {
        int64_t t0 = gr_cm_now_us();
        gr_err_t err = gr_plog_fsync(plog, NULL, errstr, errstr_size);
        gr_hist_observe_atomic(q->fsync_hist, gr_cm_now_us() - t0);
        return err;
    }
#endif
    (void)q;
    return gr_plog_fsync(plog, NULL, errstr, errstr_size);
}

static gr_err_t sync_partition(gr_sync_queue_t *q, gr_partition_t *p, int64_t need) {
    if (gr_plog_durable_offset(p->plog) >= need) return GR_ERR_NONE;
    char errstr[256];
    gr_err_t err = fsync_timed(q, p->plog, errstr, sizeof(errstr));
    if (err) GR_ERROR("broker", "fsync of %s-%d failed: %s", p->topic, p->index, errstr);
    return err;
}

void gr_sync_queue_run(gr_sync_queue_t *q) {
    if (q->n == 0) return;
    /* Take the batch first: callbacks may queue new waiters. */
    sync_waiter_t *v = q->v;
    size_t n = q->n;
    q->v = NULL;
    q->n = q->cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i].p) continue;
        gr_partition_t *p = v[i].p;
        int64_t need = v[i].offset;
        for (size_t j = i + 1; j < n; j++)
            if (v[j].p == p && v[j].offset > need) need = v[j].offset;
        gr_err_t err = sync_partition(q, p, need);
        int64_t durable = gr_plog_durable_offset(p->plog);
        for (size_t j = i; j < n; j++) {
            if (v[j].p != p) continue;
            v[j].p = NULL;
            /* A failed fsync fails only the waiters an earlier good fsync did not cover. */
            v[j].cb(v[j].arg, v[j].offset <= durable ? GR_ERR_NONE : err);
            gr_partition_unpin(p);
        }
    }
    free(v);
}
