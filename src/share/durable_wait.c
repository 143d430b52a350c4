/* Answering after durable writes: see durable_wait.h. */
#include "share/durable_wait.h"

#include <stddef.h>

#include "base/log.h"

void gr_dwait_init(gr_dwait_t *w, void (*done)(void *ctx, gr_err_t err), void *ctx) {
    *w = (gr_dwait_t){.pending = 1, .done = done, .ctx = ctx};
}

void gr_dwait_add(gr_dwait_t *w) { w->pending++; }

void gr_dwait_fail(gr_dwait_t *w, gr_err_t err) {
    if (!w->err) w->err = err;
}

/* done may free w (it answers the request that owns it): nothing touches w after it. */
static void release(gr_dwait_t *w) {
    if (--w->pending > 0) return;
    w->done(w->ctx, w->err);
}

void gr_dwait_cb(void *arg, gr_err_t err) {
    gr_dwait_t *w = arg;
    if (err) {
        GR_ERROR("share", "group/share-state store write failed: %s", gr_err_str(err));
        gr_dwait_fail(w, err);
    }
    release(w);
}

void gr_dwait_queued(gr_dwait_t *w, gr_err_t err) {
    if (!err) return;
    GR_ERROR("share", "group/share-state store refused a write: %s", gr_err_str(err));
    if (w) gr_dwait_cb(w, err);
}

void gr_dwait_arm(gr_dwait_t *w) { release(w); }
