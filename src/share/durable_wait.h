/* A request that answers only once its durable writes completed (spec §7.4: every
 * change of a group, of its configs or of share state is on disk before the answer).
 * The handler takes one reference per write it queues (gr_dwait_add, with
 * gr_dwait_cb as the store callback), records a synchronous refusal
 * (gr_dwait_refused), then arms the wait; done(ctx, err) runs once, after the arm and
 * the last completion, with the first error (0 if none).
 * Pure; one thread (the store callbacks run on the caller's thread). */
#ifndef GR_SHARE_DURABLE_WAIT_H
#define GR_SHARE_DURABLE_WAIT_H

#include <stdint.h>

#include "base/err.h"

typedef struct gr_dwait {
    int32_t pending; /* outstanding writes + 1 until armed */
    gr_err_t err;    /* first error */
    void (*done)(void *ctx, gr_err_t err);
    void *ctx;
} gr_dwait_t;

/** A wait with nothing pending yet. */
void gr_dwait_init(gr_dwait_t *w, void (*done)(void *ctx, gr_err_t err), void *ctx);
/** One more write is about to be queued with gr_dwait_cb. */
void gr_dwait_add(gr_dwait_t *w);
/** Store callback (gr_gstore_cb / gr_sstore_cb shape; arg is the gr_dwait_t). */
void gr_dwait_cb(void *arg, gr_err_t err);
/** Record an error without a reference (the write was not queued). */
void gr_dwait_fail(gr_dwait_t *w, gr_err_t err);
/** A store call that took a reference returned err: a refusal completes it at once
 *  (its callback will not run); NONE does nothing. w may be NULL (no wait). */
void gr_dwait_queued(gr_dwait_t *w, gr_err_t err);
/** Every write is queued: done runs now, or when the last one completes. */
void gr_dwait_arm(gr_dwait_t *w);

#endif
