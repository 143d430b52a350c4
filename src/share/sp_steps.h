/* The share-partition transitions the broker runs outside an acquisition, each as one
 * unit with its write (share/sp_unit.h), and the decisions around them:
 *  - lock expiry (§1.4): expired locks make records AVAILABLE (or ARCHIVED at the
 *    delivery count limit); a refused write rolls the expiry back (the records stay
 *    ACQUIRED by their owner, who may still acknowledge them) and is retried
 *    GR_SP_EXPIRY_RETRY_MS later. Kafka lets an in-memory expiry stand when its write
 *    fails; gregord never lets memory run ahead of the disk;
 *  - a member's release (§1.3 rule 3): a refused write keeps the records ACQUIRED until
 *    their locks expire;
 *  - an acknowledgement (§3.4), answered only once its record is durable;
 *  - when the lock timer must next fire.
 * The clock and the write are the caller's (explicit arguments). Pure; one thread. */
#ifndef GR_SHARE_SP_STEPS_H
#define GR_SHARE_SP_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "share/ack_wait.h"
#include "share/sp.h"
#include "share/sp_unit.h"

/** A lock expiry whose write failed is retried this much later. */
#define GR_SP_EXPIRY_RETRY_MS 1000

/** One share-partition with its pending delta, its transition mark and its writer. */
typedef struct gr_sp_step {
    gr_sp_t *sp;
    gr_sp_delta_t *delta;
    gr_sp_unit_mark_t *mark;
    gr_sp_unit_write_fn *write;
    void *ctx;
} gr_sp_step_t;

/** Begin a transition (gr_sp_unit_begin on the step's SP and delta). */
void gr_sp_step_begin(const gr_sp_step_t *s);
/** End it (gr_sp_unit_end with the step's writer). */
gr_err_t gr_sp_step_end(const gr_sp_step_t *s, gr_err_t op_err, gr_sstore_cb *cb, void *arg, bool *written);

/** Lock expiry at now_ms. NONE: it stands (re-arm the timer, wake waiters); else the
 *  write's error, nothing changed (retry after GR_SP_EXPIRY_RETRY_MS). */
gr_err_t gr_sp_step_expire(const gr_sp_step_t *s, const gr_sp_conf_t *conf, int64_t now_ms);

/** Release member's records. NONE with *released records released (wake waiters when
 *  > 0); else the write's error, nothing changed (*released 0). */
gr_err_t gr_sp_step_release(const gr_sp_step_t *s, const gr_sp_conf_t *conf, const char *member, int64_t *released);

/** Apply one partition's acknowledgements (§3.3-3.5). The SP's refusal is returned as
 *  it is (errstr says why). With something to persist its write is counted on w and a
 *  failure of it sets *err_slot; a refused write rolls back (the records stay ACQUIRED
 *  with their count and lock) and returns the persister's wire error with a message. */
gr_err_t gr_sp_step_ack(const gr_sp_step_t *s, const gr_sp_ack_req_t *ar, const gr_sp_conf_t *conf, int64_t now_ms,
                        gr_share_ackwait_t *w, int16_t *err_slot, char *errstr, size_t errstr_size);

/** What to do with the lock timer. */
typedef enum gr_sp_timer_action {
    GR_SP_TIMER_STOP,  /**< no deadline pending */
    GR_SP_TIMER_KEEP,  /**< already armed for that deadline */
    GR_SP_TIMER_START, /**< (re)start it *delay_ms from now */
} gr_sp_timer_action_t;

/** The timer after a change: due = gr_sp_next_deadline (INT64_MAX none); active and
 *  active_due describe the timer as it is armed. */
gr_sp_timer_action_t gr_sp_timer_plan(int64_t due, bool active, int64_t active_due, int64_t now_ms, int64_t *delay_ms);

#endif
