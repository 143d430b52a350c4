/* Transaction state transitions, as Apache Kafka 4.4.0's TransactionCoordinator and
 * TransactionMetadata make them. Each prepare function computes the whole next
 * state (what the transaction log will hold) into t->transit; gr_txn_apply swaps
 * it in once it is durable. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "txn/txn.h"

static bool complete_state(gr_txn_state_t s) { return s == GR_TXN_COMPLETE_COMMIT || s == GR_TXN_COMPLETE_ABORT; }
static bool prepare_state(gr_txn_state_t s) { return s == GR_TXN_PREPARE_COMMIT || s == GR_TXN_PREPARE_ABORT; }

/* Start a transit as a copy of the current state, moved to state. */
static gr_txn_meta_t *begin(gr_txn_t *t, gr_txn_state_t state, int64_t now_ms) {
    gr_txn_meta_copy(&t->transit, &t->m);
    t->transit.state = state;
    t->transit.update_ms = now_ms;
    t->pending = true;
    t->pending_state = state;
    return &t->transit;
}

static void clear_parts(gr_txn_meta_t *m) {
    gr_txn_meta_free(m);
    m->n_parts = 0;
}

/* InitProducerId on an id without a transaction in flight: bump the epoch (or rotate
 * the producer id when the epochs are exhausted). prepareIncrementProducerEpoch. */
static int init_empty(gr_txn_reg_t *r, gr_txn_t *t, int32_t timeout_ms, bool has_expected, int16_t exp_epoch,
                      int64_t now_ms) {
    const gr_txn_meta_t *m = &t->m;
    int64_t pid = m->pid;
    int16_t epoch, last;
    if (gr_txn_epoch_exhausted(m->epoch) && (!has_expected || exp_epoch == m->epoch)) {
        pid = r->new_pid(r->new_pid_arg);
        if (pid < 0) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
        epoch = 0;
        last = has_expected ? m->epoch : GR_TXN_NO_EPOCH;
    } else if (!has_expected) {
        epoch = (int16_t)(m->epoch + 1);
        last = GR_TXN_NO_EPOCH;
    } else if (m->epoch == GR_TXN_NO_EPOCH || exp_epoch == m->epoch) {
        epoch = (int16_t)(m->epoch + 1);
        last = m->epoch;
    } else if (exp_epoch == m->last_epoch) {
        epoch = m->epoch; /* a retry of a bump that succeeded */
        last = m->last_epoch;
    } else {
        return GR_ERR_PRODUCER_FENCED;
    }
    gr_txn_meta_t *n = begin(t, GR_TXN_EMPTY, now_ms);
    n->prev_pid = m->pid;
    n->pid = pid;
    n->epoch = epoch;
    n->last_epoch = last;
    n->timeout_ms = timeout_ms;
    clear_parts(n);
    n->start_ms = -1;
    n->tv = 0;
    return 0;
}

int gr_txn_init_pid(gr_txn_reg_t *r, gr_txn_t *t, int32_t timeout_ms, bool has_expected, int64_t exp_pid,
                    int16_t exp_epoch, int64_t now_ms) {
    if (t->pending) return GR_ERR_CONCURRENT_TRANSACTIONS;
    /* KIP-360: a producer that names its id and epoch is fenced unless the id is new,
     * it is the current producer id, or the previous one with an exhausted epoch. */
    if (has_expected && !(t->m.epoch == GR_TXN_NO_EPOCH || exp_pid == t->m.pid ||
                          (exp_pid == t->m.prev_pid && gr_txn_epoch_exhausted(exp_epoch))))
        return GR_ERR_PRODUCER_FENCED;
    switch (t->m.state) {
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT: return GR_ERR_CONCURRENT_TRANSACTIONS;
    case GR_TXN_EMPTY:
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT: return init_empty(r, t, timeout_ms, has_expected, exp_epoch, now_ms);
    case GR_TXN_ONGOING: return gr_txn_fence(t) ? GR_ERR_CONCURRENT_TRANSACTIONS : GR_TXN_FENCE;
    default: return GR_ERR_INVALID_TXN_STATE; /* Dead, PrepareEpochFence: never durable */
    }
}

int gr_txn_fence(gr_txn_t *t) {
    if (t->pending || t->m.state != GR_TXN_ONGOING || t->m.epoch == INT16_MAX) return GR_ERR_CONCURRENT_TRANSACTIONS;
    /* Not written: the abort that follows carries the bumped epoch. After a failed
     * fence write the epoch was bumped already and never handed out. */
    t->pending = true;
    t->pending_state = GR_TXN_PREPARE_EPOCH_FENCE;
    gr_txn_meta_copy(&t->transit, &t->m);
    if (!t->failed_fence) t->transit.epoch = (int16_t)(t->m.epoch + 1);
    t->transit.last_epoch = GR_TXN_NO_EPOCH;
    return 0;
}

int gr_txn_add_partitions(gr_txn_reg_t *r, gr_txn_t *t, int64_t pid, int16_t epoch, const gr_txn_tpart_t *parts,
                          int32_t n, int8_t tv, int64_t now_ms) {
    (void)r;
    if (!t || t->m.pid != pid) return GR_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (t->m.epoch != epoch) return GR_ERR_PRODUCER_FENCED;
    if (t->pending || prepare_state(t->m.state)) return GR_ERR_CONCURRENT_TRANSACTIONS;
    if (t->m.state == GR_TXN_ONGOING) {
        bool all = true;
        for (int32_t i = 0; i < n && all; i++) all = gr_txn_meta_has(&t->m, parts[i].topic, parts[i].partition);
        if (all) return GR_TXN_NOOP;
    }
    bool fresh = t->m.state == GR_TXN_EMPTY || complete_state(t->m.state);
    gr_txn_meta_t *nm = begin(t, GR_TXN_ONGOING, now_ms);
    for (int32_t i = 0; i < n; i++) gr_txn_meta_add(nm, parts[i].topic, parts[i].partition);
    if (fresh) nm->start_ms = now_ms;
    nm->tv = tv;
    return 0;
}

int gr_txn_verify(const gr_txn_t *t, int64_t pid, int16_t epoch, const char *topic, int32_t partition) {
    if (!t || t->m.pid != pid) return GR_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (t->m.epoch != epoch) return GR_ERR_PRODUCER_FENCED;
    if (prepare_state(t->m.state)) return GR_ERR_CONCURRENT_TRANSACTIONS;
    return gr_txn_meta_has(&t->m, topic, partition) ? 0 : GR_ERR_TRANSACTION_ABORTABLE;
}

/* Is the (pid, epoch) of an EndTxn acceptable? Transaction version 2 bumps the epoch
 * on every end, so a retry carries the epoch before the bump. */
static bool end_epoch_ok(const gr_txn_t *t, int64_t pid, int16_t epoch, bool from_client, bool fence, bool *retry) {
    const gr_txn_meta_t *m = &t->m;
    bool v2 = !fence && m->tv >= 2;
    bool retry_overflow = v2 && m->prev_pid == pid && epoch == INT16_MAX - 1 && m->epoch == 0;
    bool retry_bump = v2 && m->epoch == epoch + 1;
    *retry = retry_bump || retry_overflow;
    if (!v2) return (!from_client || epoch == m->epoch) && epoch >= m->epoch;
    if (prepare_state(m->state)) return retry_bump;
    if (complete_state(m->state)) return *retry || epoch == m->epoch;
    return epoch == m->epoch;
}

/* Prepare PREPARE_COMMIT / PREPARE_ABORT (prepareAbortOrCommit). */
static int prepare_end(gr_txn_reg_t *r, gr_txn_t *t, bool commit, int8_t tv, bool fence, bool empty, int64_t now_ms) {
    int64_t next_pid = GR_TXN_NO_PID;
    if (tv >= 2 && !fence && gr_txn_epoch_exhausted(t->m.epoch)) {
        next_pid = r->new_pid(r->new_pid_arg);
        if (next_pid < 0) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    }
    if (fence) {
        /* The fence's bumped epoch becomes the state the abort is written with; under
         * transaction version 2 the abort's own bump is that one (one bump in all). */
        if (tv < 2) {
            t->m.epoch = t->transit.epoch;
            t->m.last_epoch = GR_TXN_NO_EPOCH;
        }
        gr_txn_meta_free(&t->transit);
        t->pending = false;
        t->fence_active = true;
    }
    gr_txn_meta_t *n = begin(t, commit ? GR_TXN_PREPARE_COMMIT : GR_TXN_PREPARE_ABORT, now_ms);
    if (tv >= 2) {
        n->epoch = (int16_t)(t->m.epoch + 1);
        n->last_epoch = t->m.epoch;
    }
    n->next_pid = next_pid;
    n->tv = tv;
    if (empty) { /* TV2: abort of a transaction without partitions (epoch bump only) */
        clear_parts(n);
        if (n->start_ms < 0) n->start_ms = now_ms;
    }
    return 0;
}

int gr_txn_end(gr_txn_reg_t *r, gr_txn_t *t, int64_t pid, int16_t epoch, bool commit, bool from_client, int8_t tv,
               int64_t now_ms, int64_t *out_pid, int16_t *out_epoch) {
    *out_pid = GR_TXN_NO_PID;
    *out_epoch = GR_TXN_NO_EPOCH;
    if (!t) return GR_ERR_INVALID_PRODUCER_ID_MAPPING;
    bool fence = t->pending && t->pending_state == GR_TXN_PREPARE_EPOCH_FENCE;
    bool retry = false;
    bool epoch_ok = end_epoch_ok(t, pid, epoch, from_client, fence, &retry);
    bool retry_overflow = retry && t->m.pid != pid;
    if (t->m.pid != pid && !retry_overflow) return GR_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (!epoch_ok) return GR_ERR_PRODUCER_FENCED;
    if (t->pending && !fence) return GR_ERR_CONCURRENT_TRANSACTIONS;
    switch (t->m.state) {
    case GR_TXN_ONGOING: return prepare_end(r, t, commit, tv, fence, false, now_ms);
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT: {
        bool same = commit == (t->m.state == GR_TXN_COMPLETE_COMMIT);
        if (same && (tv < 2 || retry)) {
            *out_pid = t->m.pid;
            *out_epoch = t->m.epoch;
            return GR_TXN_NOOP;
        }
        if (tv >= 2 && !commit && !retry) return prepare_end(r, t, false, tv, false, true, now_ms);
        return GR_ERR_INVALID_TXN_STATE;
    }
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT:
        return commit == (t->m.state == GR_TXN_PREPARE_COMMIT) ? GR_ERR_CONCURRENT_TRANSACTIONS
                                                               : GR_ERR_INVALID_TXN_STATE;
    case GR_TXN_EMPTY:
        if (tv >= 2 && !commit) return prepare_end(r, t, false, tv, false, true, now_ms);
        return GR_ERR_INVALID_TXN_STATE;
    default: return GR_ERR_INVALID_TXN_STATE;
    }
}

int gr_txn_complete(gr_txn_t *t, int64_t now_ms) {
    if (t->pending || !prepare_state(t->m.state)) return GR_ERR_INVALID_TXN_STATE;
    const gr_txn_meta_t *m = &t->m;
    gr_txn_meta_t *n =
        begin(t, m->state == GR_TXN_PREPARE_COMMIT ? GR_TXN_COMPLETE_COMMIT : GR_TXN_COMPLETE_ABORT, now_ms);
    clear_parts(n);
    if (m->tv >= 2) {
        if (m->next_pid != GR_TXN_NO_PID) { /* the epoch overflowed: the new producer id takes over */
            n->pid = m->next_pid;
            n->epoch = 0;
        }
        n->prev_pid = m->pid;
        n->last_epoch = m->epoch;
        n->next_pid = GR_TXN_NO_PID;
    }
    return 0;
}

int gr_txn_expire(gr_txn_t *t) {
    if (t->pending) return GR_ERR_CONCURRENT_TRANSACTIONS;
    gr_txn_meta_t *n = begin(t, GR_TXN_DEAD, t->m.update_ms);
    clear_parts(n);
    return 0;
}

void gr_txn_apply(gr_txn_t *t) {
    if (!t->pending) return;
    if (t->pending_state != GR_TXN_PREPARE_EPOCH_FENCE) {
        gr_txn_meta_free(&t->m);
        t->m = t->transit;
        memset(&t->transit, 0, sizeof(t->transit));
        if (complete_state(t->m.state)) {
            t->failed_fence = false;
            t->fence_active = false;
        }
    } else {
        gr_txn_meta_free(&t->transit);
    }
    t->pending = false;
    t->loaded = true;
}

void gr_txn_cancel(gr_txn_t *t) {
    if (!t->pending) return;
    if (t->fence_active && t->pending_state == GR_TXN_PREPARE_ABORT) t->failed_fence = true;
    gr_txn_meta_free(&t->transit);
    t->pending = false;
}

bool gr_txn_timed_out(const gr_txn_t *t, int64_t now_ms) {
    return !t->pending && t->m.state == GR_TXN_ONGOING && t->m.start_ms + t->m.timeout_ms < now_ms;
}

bool gr_txn_expired(const gr_txn_reg_t *r, const gr_txn_t *t, int64_t now_ms) {
    bool idle = t->m.state == GR_TXN_EMPTY || complete_state(t->m.state);
    return !t->pending && idle && t->m.update_ms + r->cfg.id_expiration_ms <= now_ms;
}
