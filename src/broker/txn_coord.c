/* Transaction coordinator, broker side: the transaction log, start-up, timers and
 * the path from PREPARE_* through the markers to COMPLETE_*. See txn_coord.h.
 * @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "broker/cgroup_coord.h"
#include "broker/txn_coord.h"
#include "meta/configdefs.h"
#include "txn/txn_record.h"

/* Per-id broker state (t->user): the markers in flight and the produce checks
 * waiting for a pending add to be written, or (retry_until, a transaction-version-2
 * produce) for the previous transaction to complete. */
typedef struct waiter {
    struct waiter *next;
    char *topic;
    int32_t partition;
    int64_t pid;
    int16_t epoch;
    int64_t retry_until; /* loop ms; 0: CONCURRENT_TRANSACTIONS is answered at once */
    bool waited;         /* parked at least once (metrics) */
    gr_txn_verify_cb *cb;
    void *arg;
} waiter_t;

typedef struct aux {
    bool markers_busy;
    waiter_t *waiters, **tail;
    gr_broker_t *b;
    gr_txn_t *t;
    gr_timer_t retry_timer; /* the first retry_until of the parked checks */
} aux_t;

static void run_waiters(gr_broker_t *b, gr_txn_t *t);

static void aux_retry_fire(gr_timer_t *tm, int64_t now) {
    (void)now;
    aux_t *a = tm->data;
    run_waiters(a->b, a->t);
}

static aux_t *aux_of(gr_broker_t *b, gr_txn_t *t) {
    if (!t->user) {
        aux_t *a = gr_xcalloc(1, sizeof(*a));
        a->tail = &a->waiters;
        a->b = b;
        a->t = t;
        gr_timer_init(b->loop, &a->retry_timer, aux_retry_fire, a);
        t->user = a;
    }
    return t->user;
}

static void aux_free(gr_txn_t *t) {
    aux_t *a = t->user;
    if (!a) return;
    gr_timer_stop(&a->retry_timer);
    free(a);
    t->user = NULL;
}

static int64_t cfg_i64(const gr_broker_t *b, const char *name) {
    gr_cfg_layers_t l;
    memset(&l, 0, sizeof(l));
    l.static_broker = &b->cfg->raw;
    return gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, name, &l, 0);
}

/* Kafka's Utils.abs(groupId.hashCode) % offsets.topic.num.partitions: Java's String
 * hash over UTF-16 code units (the id is UTF-8 on the wire). */
int32_t gr_txn_coord_offsets_partition(const gr_broker_t *b, const char *gid) {
    uint32_t h = 0;
    const unsigned char *p = (const unsigned char *)gid;
    while (*p) {
        uint32_t c = *p++;
        int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        c &= more == 3 ? 0x07 : more == 2 ? 0x0f : more == 1 ? 0x1f : 0xff;
        for (; more > 0 && (*p & 0xc0) == 0x80; more--) c = c << 6 | (*p++ & 0x3f);
        if (c >= 0x10000) {
            c -= 0x10000;
            h = 31 * h + (0xd800 + (c >> 10));
            c = 0xdc00 + (c & 0x3ff);
        }
        h = 31 * h + c;
    }
    int32_t s = (int32_t)h;
    int32_t a = s == INT32_MIN ? 0 : s < 0 ? -s : s;
    int32_t n = b->txn ? b->txn->offsets_partitions : 50;
    return a % (n > 0 ? n : 1);
}

/* ------------------------------------------------------------------ the transaction log */

typedef struct persist_ctx {
    gr_broker_t *b;
    gr_txn_t *t;
    gr_txn_done_fn *done;
    void *arg;
} persist_ctx_t;

static gr_err_t map_write_err(gr_err_t err) {
    return err == GR_ERR_KAFKA_STORAGE_ERROR ? GR_ERR_NOT_COORDINATOR : GR_ERR_COORDINATOR_NOT_AVAILABLE;
}

static void persisted(void *arg, gr_err_t err) {
    persist_ctx_t *pc = arg;
    gr_broker_t *b = pc->b;
    gr_txn_t *t = pc->t;
    if (err) {
        GR_ERROR("txn", "transaction log write for %s failed: %s", t->id, gr_err_str(err));
        gr_txn_cancel(t);
    } else if (t->pending_state == GR_TXN_DEAD) {
        aux_t *a = t->user;
        if (a && (a->waiters || a->markers_busy)) {
            gr_txn_cancel(t); /* in use again: keep it (the tombstone is rewritten below) */
            gr_txn_meta_t keep;
            gr_txn_meta_copy(&keep, &t->m);
            t->pending = true;
            t->pending_state = t->m.state;
            t->transit = keep;
            gr_txn_coord_persist(b, t, NULL, NULL);
        } else {
            aux_free(t);
            b->txn->n_expired++;
            gr_txn_remove(&b->txn->reg, t);
            t = NULL;
        }
    } else {
        gr_txn_apply(t);
    }
    gr_txn_done_fn *done = pc->done;
    void *darg = pc->arg;
    free(pc);
    if (done) done(darg, err ? map_write_err(err) : GR_ERR_NONE);
    if (t) run_waiters(b, t);
}

/* Append t's transit record to the store and ask for its fsync (cb(arg, err) then). */
static gr_err_t write_record(gr_broker_t *b, gr_txn_t *t, gr_flusher_cb *cb, void *arg) {
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_txn_rec_key(&k, t->id, strlen(t->id));
    bool dead = t->pending_state == GR_TXN_DEAD;
    if (!dead) gr_txn_rec_value(&v, &t->transit);
    gr_cstore_add(b->txn->store, k.mem, k.len, dead ? NULL : v.mem, dead ? 0 : v.len);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
    return gr_cstore_commit(b->txn->store, cb, arg);
}

void gr_txn_coord_persist(gr_broker_t *b, gr_txn_t *t, gr_txn_done_fn *done, void *arg) {
    persist_ctx_t *pc = gr_xcalloc(1, sizeof(*pc));
    *pc = (persist_ctx_t){b, t, done, arg};
    if (b->shutting_down) { /* the flusher may be gone: nothing more is written */
        persisted(pc, GR_ERR_KAFKA_STORAGE_ERROR);
        return;
    }
    gr_err_t err = write_record(b, t, persisted, pc);
    if (err) persisted(pc, err);
}

/* ------------------------------------------------------------------ partition checks */

static void waiter_answer(waiter_t *w, gr_err_t err) {
    w->cb(w->arg, err);
    free(w->topic);
    free(w);
}

static void added(void *arg, gr_err_t err) {
    waiter_t *list = arg;
    for (waiter_t *w = list, *next; w; w = next) {
        next = w->next;
        waiter_answer(w, err);
    }
}

static int add_need(const gr_txn_t *t, const waiter_t *w) {
    if (t->m.pid != w->pid) return GR_ERR_INVALID_PRODUCER_ID_MAPPING;
    if (t->m.epoch != w->epoch) return GR_ERR_PRODUCER_FENCED;
    if (t->m.state == GR_TXN_PREPARE_COMMIT || t->m.state == GR_TXN_PREPARE_ABORT)
        return GR_ERR_CONCURRENT_TRANSACTIONS;
    if (t->m.state == GR_TXN_ONGOING && gr_txn_meta_has(&t->m, w->topic, w->partition)) return 0;
    return 1;
}

/* Kafka 4.4.0's ReplicaManager retries a transaction-version-2 produce's add that
 * got CONCURRENT_TRANSACTIONS (the previous transaction's markers are being written)
 * for add.partitions.to.txn.retry.backoff.max.ms before answering the producer; here
 * the check waits, in arrival order, and goes on as soon as the transaction completes
 * (run_waiters after COMPLETE_*), or gets the error when its time is up. */
static bool park(aux_t *a, waiter_t *w, int e, waiter_t ***parked_tail) {
    struct gr_txn_ctx *c = a->b->txn;
    int64_t now = gr_loop_now(a->b->loop);
    if (e != GR_ERR_CONCURRENT_TRANSACTIONS || w->retry_until <= now) {
        if (w->waited) e == GR_ERR_CONCURRENT_TRANSACTIONS ? c->n_add_waits_timed_out++ : c->n_add_waits_done++;
        return false;
    }
    w->waited = true;
    **parked_tail = w;
    *parked_tail = &w->next;
    if (!gr_timer_is_active(&a->retry_timer) || gr_timer_due(&a->retry_timer) > w->retry_until)
        gr_timer_start(&a->retry_timer, w->retry_until - now, 0);
    return true;
}

/* Checks wait while t has a pending write; then those that need an add go on in
 * one write (several partitions of one produce request share it). */
static void run_waiters(gr_broker_t *b, gr_txn_t *t) {
    aux_t *a = t->user;
    if (!a || !a->waiters || t->pending) return;
    waiter_t *list = a->waiters, *adds = NULL, **adds_tail = &adds, *parked = NULL, **parked_tail = &parked;
    a->waiters = NULL;
    a->tail = &a->waiters;
    gr_timer_stop(&a->retry_timer);
    gr_txn_tpart_t *parts = NULL;
    int32_t n = 0;
    for (waiter_t *w = list, *next; w; w = next) {
        next = w->next;
        w->next = NULL;
        int e = add_need(t, w);
        if (park(a, w, e, &parked_tail)) continue;
        if (e != 1 && !(e == 0 && n > 0)) {
            waiter_answer(w, (gr_err_t)e);
            continue;
        }
        /* Once an earlier check waits for an add, a later one of a partition already in
         * the transaction waits with it: answered in arrival order, a later produce
         * request never appends before an earlier one (its sequence would be out of order). */
        if (e == 1) {
            parts = gr_xrealloc(parts, (size_t)(n + 1) * sizeof(*parts));
            parts[n++] = (gr_txn_tpart_t){w->topic, w->partition};
        }
        *adds_tail = w;
        adds_tail = &w->next;
    }
    if (parked) { /* ahead of any check that arrived meanwhile */
        *parked_tail = a->waiters;
        if (!a->waiters) a->tail = parked_tail;
        a->waiters = parked;
    }
    if (!n) return;
    int e = gr_txn_add_partitions(&b->txn->reg, t, t->m.pid, t->m.epoch, parts, n, 2, gr_clock_wall_ms());
    free(parts);
    if (e) {
        added(adds, e == GR_TXN_NOOP ? GR_ERR_NONE : (gr_err_t)e);
        return;
    }
    gr_txn_coord_persist(b, t, added, adds);
}

static void check(gr_broker_t *b, gr_str_t txn_id, int64_t pid, int16_t epoch, const char *topic, int32_t partition,
                  bool add, int64_t retry_ms, gr_txn_verify_cb *cb, void *arg) {
    if (gr_str_is_null(txn_id) || txn_id.len == 0) {
        cb(arg, GR_ERR_INVALID_REQUEST);
        return;
    }
    gr_txn_t *t = b->txn ? gr_txn_find(&b->txn->reg, txn_id.ptr, (size_t)txn_id.len) : NULL;
    if (!t || !add) {
        cb(arg, (gr_err_t)gr_txn_verify(t, pid, epoch, topic, partition));
        return;
    }
    waiter_t *w = gr_xcalloc(1, sizeof(*w));
    int64_t until = retry_ms > 0 ? gr_loop_now(b->loop) + retry_ms : 0;
    *w = (waiter_t){NULL, gr_xstrdup(topic), partition, pid, epoch, until, false, cb, arg};
    aux_t *a = aux_of(b, t);
    *a->tail = w;
    a->tail = &w->next;
    run_waiters(b, t);
}

void gr_txn_coord_check(gr_broker_t *b, gr_str_t txn_id, int64_t pid, int16_t epoch, const char *topic,
                        int32_t partition, bool add, gr_txn_verify_cb *cb, void *arg) {
    check(b, txn_id, pid, epoch, topic, partition, add, 0, cb, arg);
}

/* What Kafka's AddPartitionsToTxnManager hands the produce path: a fenced producer is
 * INVALID_PRODUCER_EPOCH, and clients before produce v11 get INVALID_TXN_STATE for
 * TRANSACTION_ABORTABLE. The produce handler then translates as ReplicaManager does
 * (CONCURRENT_TRANSACTIONS and coordinator errors -> NOT_ENOUGH_REPLICAS). */
typedef struct verify_ctx {
    gr_txn_verify_cb *cb;
    void *arg;
    int16_t version;
} verify_ctx_t;

static void verified(void *arg, gr_err_t err) {
    verify_ctx_t vc = *(verify_ctx_t *)arg;
    free(arg);
    if (err == GR_ERR_PRODUCER_FENCED)
        err = GR_ERR_INVALID_PRODUCER_EPOCH;
    else if (err == GR_ERR_TRANSACTION_ABORTABLE && vc.version < 11)
        err = GR_ERR_INVALID_TXN_STATE;
    vc.cb(vc.arg, err);
}

void gr_txn_coord_verify(gr_broker_t *b, gr_str_t txn_id, int64_t pid, int16_t epoch, const char *topic,
                         int32_t partition, int16_t produce_version, gr_txn_verify_cb *cb, void *arg) {
    verify_ctx_t *vc = gr_xmalloc(sizeof(*vc));
    *vc = (verify_ctx_t){cb, arg, produce_version};
    bool add = produce_version >= 12;
    check(b, txn_id, pid, epoch, topic, partition, add, add && b->txn ? b->txn->add_retry_ms : 0, verified, vc);
}

/* ------------------------------------------------------------------ markers and completion */

typedef struct mk {
    gr_broker_t *b;
    char *id;
    int64_t pid;
    int16_t epoch;
    bool commit;
    gr_txn_tp_t *tps; /* data partitions (topics owned) */
    size_t n;
    gr_err_t *errs;
    int outstanding; /* the log side's markers + the group offsets */
    bool offsets, offsets_failed;
} mk_t;

static void retry_later(gr_broker_t *b) {
    if (!gr_timer_is_active(&b->txn->retry_timer)) gr_timer_start(&b->txn->retry_timer, b->txn->retry_backoff_ms, 0);
}

/* COMPLETE_* is appended without an fsync of its own and applies at once: the markers
 * are durable already, the fsync any later record of the log asks for covers it, and
 * after a crash before that the log still says PREPARE_*, so the markers are written
 * again (harmless) and the transaction completes. Neither the next transaction of the id
 * nor the flusher waits for it: the next AddPartitionsToTxn's fsync does not queue behind
 * one for this record (docs/transactions.md, "Durability"). */
static void persist_complete(gr_broker_t *b, gr_txn_t *t) {
    gr_err_t err = b->shutting_down ? GR_ERR_KAFKA_STORAGE_ERROR : write_record(b, t, NULL, NULL);
    if (err) {
        gr_txn_cancel(t);
        retry_later(b); /* still PREPARE_*: the markers and the completion go again */
        return;
    }
    gr_txn_apply(t);
    if (t->m.state == GR_TXN_COMPLETE_COMMIT)
        b->txn->n_committed++;
    else
        b->txn->n_aborted++;
    GR_DEBUG("txn", "transaction of %s completed (%s)", t->id, gr_txn_state_name(t->m.state));
    run_waiters(b, t);
}

static void mk_free(mk_t *k) {
    for (size_t i = 0; i < k->n; i++) free((char *)k->tps[i].topic);
    free(k->tps);
    free(k->errs);
    free(k->id);
    free(k);
}

/* Every marker of one round is answered: forget the partitions done, and complete
 * the transaction when none is left. */
static void mk_finish(mk_t *k) {
    gr_broker_t *b = k->b;
    gr_txn_t *t = gr_txn_find(&b->txn->reg, k->id, strlen(k->id));
    bool again = false;
    if (t && t->user) ((aux_t *)t->user)->markers_busy = false;
    if (!t || t->pending || t->m.pid != k->pid ||
        (t->m.state != GR_TXN_PREPARE_COMMIT && t->m.state != GR_TXN_PREPARE_ABORT)) {
        mk_free(k);
        return;
    }
    for (size_t i = 0; i < k->n; i++) {
        gr_err_t e = k->errs[i];
        if (e == GR_ERR_KAFKA_STORAGE_ERROR || e == GR_ERR_NOT_ENOUGH_REPLICAS || e == GR_ERR_REQUEST_TIMED_OUT ||
            e == GR_ERR_NOT_LEADER_OR_FOLLOWER) {
            again = true;
            continue;
        }
        if (e && e != GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)
            GR_WARN("txn", "marker for %s on %s-%d: %s; the partition is left out", t->id, k->tps[i].topic,
                    k->tps[i].partition, gr_err_str(e));
        gr_txn_meta_remove(&t->m, k->tps[i].topic, k->tps[i].partition);
    }
    if (k->offsets && !k->offsets_failed) {
        for (int32_t i = t->m.n_parts - 1; i >= 0; i--)
            if (!strcmp(t->m.parts[i].topic, GR_TXN_OFFSETS_TOPIC))
                gr_txn_meta_remove(&t->m, GR_TXN_OFFSETS_TOPIC, t->m.parts[i].partition);
    }
    again = again || k->offsets_failed;
    mk_free(k);
    if (again || t->m.n_parts) {
        retry_later(b);
        return;
    }
    if (gr_txn_complete(t, gr_clock_wall_ms())) return;
    persist_complete(b, t);
}

static void mk_part(void *arg, size_t i, gr_err_t err) {
    mk_t *k = arg;
    if (i < k->n) k->errs[i] = err;
}

static void mk_done(void *arg, size_t n_failed) {
    (void)n_failed;
    mk_t *k = arg;
    if (--k->outstanding == 0) mk_finish(k);
}

static void mk_offsets_done(void *arg, gr_err_t err) {
    mk_t *k = arg;
    if (err) {
        GR_ERROR("txn", "completing the transactional offsets of %s: %s", k->id, gr_err_str(err));
        k->offsets_failed = true;
    }
    if (--k->outstanding == 0) mk_finish(k);
}

void gr_txn_coord_markers(gr_broker_t *b, gr_txn_t *t) {
    aux_t *a = aux_of(b, t);
    if (a->markers_busy || b->shutting_down) return;
    mk_t *k = gr_xcalloc(1, sizeof(*k));
    k->b = b;
    k->id = gr_xstrdup(t->id);
    k->pid = t->m.pid;
    k->epoch = t->m.epoch;
    k->commit = t->m.state == GR_TXN_PREPARE_COMMIT;
    k->tps = gr_xcalloc((size_t)t->m.n_parts + 1, sizeof(*k->tps));
    for (int32_t i = 0; i < t->m.n_parts; i++) {
        if (!strcmp(t->m.parts[i].topic, GR_TXN_OFFSETS_TOPIC)) {
            k->offsets = true;
            continue;
        }
        k->tps[k->n++] = (gr_txn_tp_t){gr_xstrdup(t->m.parts[i].topic), t->m.parts[i].partition};
    }
    k->errs = gr_xcalloc(k->n + 1, sizeof(*k->errs));
    a->markers_busy = true;
    k->outstanding = 1 + (k->n > 0) + k->offsets;
    if (k->offsets) {
        gr_err_t err = gr_cgroup_txn_complete(b, k->pid, k->commit, mk_offsets_done, k);
        if (err) mk_offsets_done(k, err);
    }
    if (k->n) gr_txn_write_markers(b, k->pid, k->epoch, 0, k->commit, k->tps, k->n, mk_part, mk_done, k);
    mk_done(k, 0); /* our own reference */
}

typedef struct fence_ctx {
    gr_broker_t *b;
    gr_txn_t *t;
    gr_txn_done_fn *done;
    void *arg;
} fence_ctx_t;

static void fence_written(void *arg, gr_err_t err) {
    fence_ctx_t fc = *(fence_ctx_t *)arg;
    free(arg);
    if (fc.done) fc.done(fc.arg, err);
    if (!err) gr_txn_coord_markers(fc.b, fc.t);
}

void gr_txn_coord_fence_abort(gr_broker_t *b, gr_txn_t *t, gr_txn_done_fn *done, void *arg) {
    int64_t pid;
    int16_t epoch;
    int e = gr_txn_end(&b->txn->reg, t, t->m.pid, t->transit.epoch, false, false, t->m.tv, gr_clock_wall_ms(), &pid,
                       &epoch);
    if (e) {
        gr_txn_cancel(t);
        if (done) done(arg, e == GR_TXN_NOOP ? GR_ERR_NONE : (gr_err_t)e);
        return;
    }
    fence_ctx_t *fc = gr_xmalloc(sizeof(*fc));
    *fc = (fence_ctx_t){b, t, done, arg};
    gr_txn_coord_persist(b, t, fence_written, fc);
}

/* ------------------------------------------------------------------ timers */

static void timeout_aborted(void *arg, gr_err_t err) {
    char *id = arg;
    if (err)
        GR_WARN("txn", "abort of the timed-out transaction of %s failed: %s", id, gr_err_str(err));
    else
        GR_INFO("txn", "aborting the timed-out transaction of %s", id);
    free(id);
}

/* Kafka's abortTimedOutTransactions: fence the producer (epoch bump) and abort. */
static void abort_fire(gr_timer_t *tm, int64_t mono_now) {
    (void)mono_now;
    gr_broker_t *b = tm->data;
    int64_t now = gr_clock_wall_ms();
    for (gr_txn_t *t = gr_txn_first(&b->txn->reg), *next; t; t = next) {
        next = gr_txn_next(&b->txn->reg, t);
        if (!gr_txn_timed_out(t, now) || gr_txn_fence(t)) continue;
        b->txn->n_timed_out++;
        gr_txn_coord_fence_abort(b, t, timeout_aborted, gr_xstrdup(t->id));
    }
}

/* transactional.id.expiration.ms: idle ids are removed (a tombstone in the log). */
static void expire_fire(gr_timer_t *tm, int64_t mono_now) {
    (void)mono_now;
    gr_broker_t *b = tm->data;
    int64_t now = gr_clock_wall_ms();
    for (gr_txn_t *t = gr_txn_first(&b->txn->reg), *next; t; t = next) {
        next = gr_txn_next(&b->txn->reg, t);
        aux_t *a = t->user;
        if (!gr_txn_expired(&b->txn->reg, t, now) || (a && (a->waiters || a->markers_busy))) continue;
        if (gr_txn_expire(t)) continue;
        GR_INFO("txn", "transactional id %s expired", t->id);
        gr_txn_coord_persist(b, t, NULL, NULL); /* t may be gone now */
    }
}

static void retry_fire(gr_timer_t *tm, int64_t mono_now) {
    (void)mono_now;
    gr_broker_t *b = tm->data;
    for (gr_txn_t *t = gr_txn_first(&b->txn->reg); t; t = gr_txn_next(&b->txn->reg, t))
        if (!t->pending && (t->m.state == GR_TXN_PREPARE_COMMIT || t->m.state == GR_TXN_PREPARE_ABORT))
            gr_txn_coord_markers(b, t);
}

/* ------------------------------------------------------------------ open / close */

static int64_t new_pid(void *arg) { return gr_broker_producer_id_next(arg); }

static void load_one(void *arg, const uint8_t *key, size_t kl, const uint8_t *val, size_t vl) {
    gr_broker_t *b = arg;
    const char *id, *why = "";
    size_t idl;
    gr_txn_meta_t m;
    if (gr_txn_rec_decode_key(key, kl, &id, &idl, &why) || gr_txn_rec_decode_value(val, vl, &m, &why)) {
        GR_WARN("txn", "transaction log: record skipped (%s)", why);
        if (val) gr_txn_meta_free(&m);
        return;
    }
    gr_txn_t *t = gr_txn_put(&b->txn->reg, id, idl, &m);
    t->loaded = true;
    gr_txn_meta_free(&m);
}

gr_err_t gr_txn_coord_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    struct gr_txn_ctx *c = gr_xcalloc(1, sizeof(*c));
    b->txn = c;
    gr_txn_cfg_t cfg;
    gr_txn_cfg_default(&cfg);
    cfg.max_timeout_ms = (int32_t)cfg_i64(b, "transaction.max.timeout.ms");
    cfg.id_expiration_ms = cfg_i64(b, "transactional.id.expiration.ms");
    cfg.server_tv = (int8_t)gr_broker_feature_level(b, "transaction.version");
    gr_txn_reg_init(&c->reg, &cfg, new_pid, b);
    c->offsets_partitions = b->cfg->offsets_topic_num_partitions;
    c->retry_backoff_ms = 100;
    c->add_retry_ms = cfg_i64(b, "add.partitions.to.txn.retry.backoff.max.ms");
    gr_timer_init(b->loop, &c->abort_timer, abort_fire, b);
    gr_timer_init(b->loop, &c->expire_timer, expire_fire, b);
    gr_timer_init(b->loop, &c->retry_timer, retry_fire, b);
    gr_cstore_options_t o;
    gr_cstore_options_default(&o);
    o.flusher = b->flusher;
    o.now_ms = gr_clock_wall_ms();
    o.segment_bytes = cfg_i64(b, "transaction.state.log.segment.bytes");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/%s", b->cfg->log_dir, GR_TXN_DIR_NAME);
    gr_err_t err = gr_cstore_open(dir, &o, &c->store, errstr, errstr_size);
    if (err) return err;
    size_t n = gr_cstore_foreach(c->store, load_one, b);
    size_t n_prep = 0;
    for (gr_txn_t *t = gr_txn_first(&c->reg); t; t = gr_txn_next(&c->reg, t))
        n_prep += t->m.state == GR_TXN_PREPARE_COMMIT || t->m.state == GR_TXN_PREPARE_ABORT;
    GR_INFO("txn", "loaded %zu transactional id(s), %zu to complete", n, n_prep);
    int64_t ai = cfg_i64(b, "transaction.abort.timed.out.transaction.cleanup.interval.ms");
    int64_t ei = cfg_i64(b, "transaction.remove.expired.transaction.cleanup.interval.ms");
    gr_timer_start(&c->abort_timer, ai, ai);
    gr_timer_start(&c->expire_timer, ei, ei);
    if (n_prep) gr_timer_start(&c->retry_timer, 0, 0); /* markers again, once the loop runs */
    return GR_ERR_NONE;
}

void gr_txn_coord_close(gr_broker_t *b) {
    struct gr_txn_ctx *c = b->txn;
    if (!c) return;
    gr_timer_stop(&c->abort_timer);
    gr_timer_stop(&c->expire_timer);
    gr_timer_stop(&c->retry_timer);
    if (c->store) gr_cstore_close(c->store);
    for (gr_txn_t *t = gr_txn_first(&c->reg); t; t = gr_txn_next(&c->reg, t)) {
        aux_t *a = t->user;
        if (!a) continue;
        for (waiter_t *w = a->waiters, *next; w; w = next) {
            next = w->next;
            waiter_answer(w, GR_ERR_NOT_COORDINATOR);
        }
        aux_free(t);
    }
    gr_txn_reg_free(&c->reg);
    free(c);
    b->txn = NULL;
}
