/* Sequence checks follow Kafka's ProducerAppendInfo.checkSequence and the
 * duplicate lookup its ProducerStateEntry.findDuplicateBatch; the transaction
 * rules its appendDataBatch and appendEndTxnMarker. */
#include "broker/producers.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "broker/producers_int.h"

gr_producer_state_t *gr_producers_new(void) {
    gr_producer_state_t *ps = calloc(1, sizeof(*ps));
    if (!ps) abort();
    gr_htab_init(&ps->tab, 8);
    ps->max = SIZE_MAX;
    return ps;
}

static void free_list(gr_plru_t *l) {
    for (gr_pentry_t *e = l->head, *n; e; e = n) {
        n = e->lru_next;
        free(e);
    }
}

void gr_producers_free(gr_producer_state_t *ps) {
    if (!ps) return;
    free_list(&ps->idle);
    free_list(&ps->busy);
    gr_htab_free(&ps->tab);
    free(ps->ongoing);
    free(ps->aborted);
    free(ps);
}

/* ---------------------------------------------------------------- table and LRU lists */

static bool pid_eq(const gr_hnode_t *node, const void *key) {
    return GR_HTAB_ENTRY(node, gr_pentry_t, node)->pid == *(const int64_t *)key;
}

/* Keyed: producer ids are whatever a client writes into its batches. */
static uint64_t pid_hash(int64_t pid) { return gr_hash(&pid, sizeof(pid)); }

static void lru_unlink(gr_producer_state_t *ps, gr_pentry_t *e) {
    gr_plru_t *l = e->busy ? &ps->busy : &ps->idle;
    if (e->lru_prev)
        e->lru_prev->lru_next = e->lru_next;
    else
        l->head = e->lru_next;
    if (e->lru_next)
        e->lru_next->lru_prev = e->lru_prev;
    else
        l->tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_append(gr_producer_state_t *ps, gr_pentry_t *e) {
    e->busy = e->txn_first >= 0;
    gr_plru_t *l = e->busy ? &ps->busy : &ps->idle;
    e->lru_prev = l->tail;
    e->lru_next = NULL;
    if (l->tail)
        l->tail->lru_next = e;
    else
        l->head = e;
    l->tail = e;
}

void gr_producers_touch(gr_producer_state_t *ps, gr_pentry_t *e) {
    lru_unlink(ps, e);
    lru_append(ps, e);
}

/* Forget an entry (expiry, eviction). It has no ongoing transaction. */
static void entry_remove(gr_producer_state_t *ps, gr_pentry_t *e) {
    gr_hnode_t **slot = gr_htab_slot(&ps->tab, e->node.hash, pid_eq, &e->pid);
    gr_htab_unlink(&ps->tab, slot);
    lru_unlink(ps, e);
    free(e);
}

/* Evict least recently used idle entries until fewer than `below` remain (or none is idle). */
static size_t evict_to(gr_producer_state_t *ps, size_t below) {
    size_t n = 0;
    while (ps->tab.n >= below && ps->idle.head) {
        entry_remove(ps, ps->idle.head);
        n++;
    }
    ps->n_evicted += n;
    return n;
}

gr_pentry_t *gr_producers_entry(gr_producer_state_t *ps, int64_t pid, bool create) {
    uint64_t h = pid_hash(pid);
    gr_hnode_t **slot = gr_htab_slot(&ps->tab, h, pid_eq, &pid);
    if (*slot || !create) return GR_HTAB_ENTRY(*slot, gr_pentry_t, node);
    if (ps->tab.n >= ps->max) evict_to(ps, ps->max);
    gr_pentry_t *e = calloc(1, sizeof(*e));
    if (!e) abort();
    e->pid = pid;
    e->epoch = -1;
    e->coord_epoch = -1;
    e->last_ts = -1;
    e->txn_first = -1;
    e->touched_ms = -1;
    gr_htab_insert(&ps->tab, &e->node, h);
    lru_append(ps, e);
    return e;
}

size_t gr_producers_set_max(gr_producer_state_t *ps, size_t max) {
    ps->max = max ? max : 1;
    return ps->tab.n > ps->max ? evict_to(ps, ps->max + 1) : 0;
}

size_t gr_producers_max(const gr_producer_state_t *ps) { return ps->max; }

void gr_producers_counters(const gr_producer_state_t *ps, uint64_t *evicted, uint64_t *refused) {
    *evicted = ps->n_evicted;
    *refused = ps->n_refused;
}

static int32_t seq_add(int32_t seq, int32_t n) {
    /* Sequences wrap from INT32_MAX to 0. */
    int64_t s = (int64_t)seq + n;
    return (int32_t)(s > INT32_MAX ? s - INT32_MAX - 1 : s);
}

static void check_sequence(const gr_pentry_t *e, int64_t pid, int16_t epoch, int32_t first_seq, int32_t last_seq,
                           gr_producer_check_t *out) {
    if (epoch != e->epoch) {
        if (first_seq != 0 && e->epoch >= 0) {
            out->err = GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
            snprintf(out->msg, sizeof(out->msg),
                     "Invalid sequence number for new epoch of producer %lld: %d (request epoch), %d (seq. number), %d "
                     "(current producer epoch)",
                     (long long)pid, epoch, first_seq, e->epoch);
        }
        return;
    }
    for (int i = 0; i < e->n; i++) {
        if (e->b[i].first_seq == first_seq && e->b[i].last_seq == last_seq) {
            out->duplicate = true;
            out->dup_base_offset = e->b[i].base_offset;
            out->dup_last_offset = e->b[i].last_offset;
            return;
        }
    }
    /* No batch kept for this epoch (only a marker was seen): the producer starts at 0. */
    int32_t cur_last = e->n ? e->b[e->n - 1].last_seq : -1;
    if (first_seq == seq_add(cur_last, 1) || (cur_last == -1 && first_seq == 0)) return;
    out->err = GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
    snprintf(out->msg, sizeof(out->msg),
             "Out of order sequence number for producer %lld: %d (incoming seq. number), %d (current end sequence "
             "number)",
             (long long)pid, first_seq, cur_last);
}

void gr_producers_check(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                        bool transactional, gr_producer_check_t *out) {
    memset(out, 0, sizeof(*out));
    gr_pentry_t *e = gr_producers_entry(ps, pid, false);
    if (!e) {
        /* Unknown producer (new, or its state expired or was evicted): any sequence is
         * accepted, as Kafka does, unless the state is full of ongoing transactions. */
        if (ps->tab.n >= ps->max && !ps->idle.head) {
            ps->n_refused++;
            out->err = GR_ERR_NOT_ENOUGH_REPLICAS;
            snprintf(out->msg, sizeof(out->msg),
                     "Producer %lld refused: the partition tracks %zu producers, all with an ongoing transaction "
                     "(gregor.producer.state.max.producers=%zu); retry once one ends",
                     (long long)pid, ps->tab.n, ps->max);
        }
        return;
    }
    if (epoch < e->epoch) {
        out->err = GR_ERR_INVALID_PRODUCER_EPOCH;
        snprintf(out->msg, sizeof(out->msg),
                 "Epoch of producer %lld is %d, which is smaller than the last seen epoch %d", (long long)pid, epoch,
                 e->epoch);
        return;
    }
    check_sequence(e, pid, epoch, first_seq, seq_add(first_seq, count - 1), out);
    if (out->err || out->duplicate) return;
    if (!transactional && e->txn_first >= 0) {
        out->err = GR_ERR_INVALID_TXN_STATE;
        snprintf(out->msg, sizeof(out->msg), "Expected transactional write from producer %lld", (long long)pid);
    }
}

void gr_producers_ongoing_add(gr_producer_state_t *ps, int64_t pid, int64_t first_offset) {
    if (ps->n_ongoing == ps->cap_ongoing) {
        ps->cap_ongoing = ps->cap_ongoing ? ps->cap_ongoing * 2 : 8;
        ps->ongoing = realloc(ps->ongoing, ps->cap_ongoing * sizeof(*ps->ongoing));
        if (!ps->ongoing) abort();
    }
    size_t i = ps->n_ongoing; /* appends come in offset order: usually the end */
    while (i > 0 && ps->ongoing[i - 1].first_offset > first_offset) i--;
    memmove(&ps->ongoing[i + 1], &ps->ongoing[i], (ps->n_ongoing - i) * sizeof(*ps->ongoing));
    ps->ongoing[i] = (gr_ongoing_t){first_offset, pid};
    ps->n_ongoing++;
}

static void ongoing_remove(gr_producer_state_t *ps, int64_t pid) {
    for (size_t i = 0; i < ps->n_ongoing; i++) {
        if (ps->ongoing[i].pid != pid) continue;
        memmove(&ps->ongoing[i], &ps->ongoing[i + 1], (ps->n_ongoing - i - 1) * sizeof(*ps->ongoing));
        ps->n_ongoing--;
        return;
    }
}

void gr_producers_aborted_add(gr_producer_state_t *ps, const gr_aborted_txn_t *a) {
    if (ps->n_aborted == ps->cap_aborted) {
        ps->cap_aborted = ps->cap_aborted ? ps->cap_aborted * 2 : 8;
        ps->aborted = realloc(ps->aborted, ps->cap_aborted * sizeof(*ps->aborted));
        if (!ps->aborted) abort();
    }
    size_t i = ps->n_aborted;
    while (i > 0 && ps->aborted[i - 1].last_offset > a->last_offset) i--;
    memmove(&ps->aborted[i + 1], &ps->aborted[i], (ps->n_aborted - i) * sizeof(*ps->aborted));
    ps->aborted[i] = *a;
    ps->n_aborted++;
}

void gr_producers_record(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                         int64_t base_offset, int64_t last_offset, int64_t max_timestamp, bool transactional,
                         int64_t now_ms) {
    gr_pentry_t *e = gr_producers_entry(ps, pid, true);
    e->touched_ms = now_ms;
    if (epoch != e->epoch) {
        e->epoch = epoch;
        e->n = 0;
    }
    if (e->n == GR_PRODUCER_BATCHES) {
        memmove(&e->b[0], &e->b[1], sizeof(e->b[0]) * (GR_PRODUCER_BATCHES - 1));
        e->n--;
    }
    e->b[e->n++] = (gr_pbatch_t){first_seq, seq_add(first_seq, count - 1), base_offset, last_offset};
    e->last_ts = max_timestamp;
    if (transactional && e->txn_first < 0) {
        e->txn_first = base_offset;
        gr_producers_ongoing_add(ps, pid, base_offset);
    }
    gr_producers_touch(ps, e);
}

gr_err_t gr_producers_check_marker(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t coordinator_epoch) {
    const gr_pentry_t *e = gr_producers_entry(ps, pid, false);
    if (!e) return GR_ERR_NONE;
    if (epoch < e->epoch) return GR_ERR_INVALID_PRODUCER_EPOCH;
    if (e->coord_epoch > coordinator_epoch) return GR_ERR_TRANSACTION_COORDINATOR_FENCED;
    return GR_ERR_NONE;
}

void gr_producers_complete(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t coordinator_epoch, bool commit,
                           int64_t marker_offset, int64_t timestamp, int64_t now_ms) {
    gr_pentry_t *e = gr_producers_entry(ps, pid, true);
    e->touched_ms = now_ms;
    if (e->txn_first >= 0) {
        ongoing_remove(ps, pid);
        if (!commit) {
            int64_t lso = ps->n_ongoing && ps->ongoing[0].first_offset <= marker_offset ? ps->ongoing[0].first_offset
                                                                                        : marker_offset + 1;
            gr_producers_aborted_add(ps, &(gr_aborted_txn_t){pid, e->txn_first, marker_offset, lso});
        }
        e->txn_first = -1;
    }
    if (epoch != e->epoch) {
        e->epoch = epoch;
        e->n = 0;
    }
    e->coord_epoch = coordinator_epoch;
    e->last_ts = timestamp;
    gr_producers_touch(ps, e);
}

int64_t gr_producers_first_unstable(const gr_producer_state_t *ps) {
    return ps->n_ongoing ? ps->ongoing[0].first_offset : -1;
}

size_t gr_producers_ongoing(const gr_producer_state_t *ps) { return ps->n_ongoing; }

/* Binary search: the first entry whose last_offset >= from. */
static size_t aborted_lower_bound(const gr_producer_state_t *ps, int64_t from) {
    size_t lo = 0, hi = ps->n_aborted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ps->aborted[mid].last_offset < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t gr_producers_aborted(const gr_producer_state_t *ps, int64_t from, int64_t upper, gr_aborted_txn_t *out,
                            size_t max) {
    size_t n = 0;
    /* As Kafka's TransactionIndex.collectAbortedTxns: a later transaction can still
     * overlap until one ended with the last stable offset at or past upper. */
    for (size_t i = aborted_lower_bound(ps, from); i < ps->n_aborted; i++) {
        if (ps->aborted[i].first_offset < upper) {
            if (n < max) out[n] = ps->aborted[i];
            n++;
        }
        if (ps->aborted[i].lso >= upper) break;
    }
    return n;
}

void gr_producers_prune(gr_producer_state_t *ps, int64_t log_start) {
    size_t k = aborted_lower_bound(ps, log_start);
    if (k == 0) return;
    memmove(ps->aborted, ps->aborted + k, (ps->n_aborted - k) * sizeof(*ps->aborted));
    ps->n_aborted -= k;
}

static void foreach_list(const gr_plru_t *l, gr_producer_info_cb *cb, void *arg) {
    for (const gr_pentry_t *e = l->tail; e; e = e->lru_prev) {
        gr_producer_info_t info = {.pid = e->pid,
                                   .epoch = e->epoch,
                                   .last_sequence = e->n ? e->b[e->n - 1].last_seq : -1,
                                   .last_timestamp = e->last_ts,
                                   .coordinator_epoch = e->coord_epoch,
                                   .txn_start_offset = e->txn_first};
        cb(arg, &info);
    }
}

void gr_producers_foreach(const gr_producer_state_t *ps, gr_producer_info_cb *cb, void *arg) {
    foreach_list(&ps->busy, cb, arg);
    foreach_list(&ps->idle, cb, arg);
}

size_t gr_producers_count(const gr_producer_state_t *ps) { return ps->tab.n; }

size_t gr_producers_expire(gr_producer_state_t *ps, int64_t now_ms, int64_t expiration_ms) {
    size_t n = 0;
    /* Only idle entries expire. Not necessarily in list order: the wall clock may step. */
    for (gr_pentry_t *e = ps->idle.head, *next; e; e = next) {
        next = e->lru_next;
        if (e->touched_ms < 0) e->touched_ms = now_ms; /* rebuilt at start-up: count from now */
        if (now_ms - e->touched_ms < expiration_ms) continue;
        entry_remove(ps, e);
        n++;
    }
    return n;
}
