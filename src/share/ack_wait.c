/* Acknowledgement checks and durable-write tracking: see ack_wait.h. */
#include "share/ack_wait.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/xalloc.h"

bool gr_share_acks_valid(const gr_sp_ack_batch_t *bt, size_t n, bool renew, const char **why) {
    for (size_t i = 0; i < n; i++) {
        const gr_sp_ack_batch_t *a = &bt[i];
        const char *w = NULL;
        if (a->first_offset > a->last_offset)
            w = "FirstOffset is greater than LastOffset";
        else if (i > 0 && a->first_offset < bt[i - 1].last_offset) /* Kafka 4.4.0: a shared offset is the SP's */
            w = "batches are not in ascending order";
        else if (a->n_types == 0)
            w = "AcknowledgeTypes is empty";
        else if (a->n_types > 1 && (int64_t)a->n_types - 1 != a->last_offset - a->first_offset)
            w = "AcknowledgeTypes does not match the batch size";
        for (size_t j = 0; !w && j < a->n_types; j++)
            if (a->types[j] < 0 || a->types[j] > (renew ? 4 : 3)) w = "invalid AcknowledgeType";
        if (w) {
            if (why) *why = w;
            return false;
        }
    }
    return true;
}

gr_err_t gr_share_ack_admit(const gr_sp_ack_batch_t *bt, size_t n, bool renew, const gr_share_ack_target_t *t,
                            bool *apply, char *errstr, size_t errstr_size) {
    const char *why;
    *apply = false;
    if (errstr_size) errstr[0] = 0;
    if (!gr_share_acks_valid(bt, n, renew, &why)) {
        GR_DEBUG("share", "invalid acknowledgement batch: %s", why);
        return GR_ERR_INVALID_REQUEST;
    }
    if (!t->topic_known) return GR_ERR_UNKNOWN_TOPIC_ID;
    if (!t->partition_known) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (n == 0) return GR_ERR_NONE;
    if (!t->sp_in_memory) {
        snprintf(errstr, errstr_size, "The share partition is not initialized on this broker.");
        return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (t->state_failed) {
        snprintf(errstr, errstr_size, "The share state is offline after a failed write (restart the broker).");
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    *apply = true;
    return GR_ERR_NONE;
}

struct gr_share_ackwait {
    int32_t pending; /* writes queued, +1 until armed */
    bool detached;
    void (*done)(void *arg);
    void *arg;
};

struct gr_share_ackslot {
    gr_share_ackwait_t *w;
    int16_t *err; /* in the request's memory: only while !w->detached */
};

gr_share_ackwait_t *gr_share_ackwait_new(void (*done)(void *arg), void *arg) {
    gr_share_ackwait_t *w = gr_xcalloc(1, sizeof(*w));
    w->pending = 1;
    w->done = done;
    w->arg = arg;
    return w;
}

static void wait_put(gr_share_ackwait_t *w) {
    if (--w->pending > 0) return;
    if (!w->detached) w->done(w->arg);
    free(w);
}

bool gr_share_ackwait_arm(gr_share_ackwait_t *w) {
    if (w->pending == 1) {
        free(w);
        return true;
    }
    w->pending--;
    return false;
}

void gr_share_ackwait_detach(gr_share_ackwait_t *w) { w->detached = true; }

gr_share_ackslot_t *gr_share_ackslot_new(gr_share_ackwait_t *w, int16_t *err_slot) {
    gr_share_ackslot_t *s = gr_xmalloc(sizeof(*s));
    *s = (gr_share_ackslot_t){w, err_slot};
    return s;
}

void gr_share_ackslot_commit(gr_share_ackslot_t *s, bool queued) {
    if (queued)
        s->w->pending++;
    else
        free(s);
}

void gr_share_ackslot_done(void *slot, gr_err_t err) {
    gr_share_ackslot_t *s = slot;
    gr_share_ackwait_t *w = s->w;
    if (err && !w->detached && *s->err == 0) *s->err = GR_ERR_KAFKA_STORAGE_ERROR;
    free(s);
    wait_put(w);
}
