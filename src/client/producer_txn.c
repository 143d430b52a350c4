/* The transactional producer (transactional.id): Kafka's transaction protocol as the
 * Java 4.x producer runs it, version 2 (KIP-890) when the brokers finalized
 * transaction.version >= 2 and the coordinator has the request versions for it
 * (txn_rules.h), else version 1:
 *   init       FindCoordinator (key type 1) -> InitProducerId with the transactional id
 *              (the coordinator fences older producers of the id and completes their
 *              transaction); the protocol version is chosen then;
 *   send       the first record for a partition in a transaction marks it. Version 1:
 *              the drain sends one AddPartitionsToTxn for the marked partitions and
 *              holds their batches until the coordinator added them. Version 2: the
 *              batches go at once (Produce v12+), the broker adds the partition;
 *              batches carry the transactional attribute and Produce the id;
 *   offsets    version 1: AddOffsetsToTxn (coordinator) then TxnOffsetCommit v<=4
 *              (group coordinator); version 2: TxnOffsetCommit v5+ alone;
 *   commit     flush, then EndTxn(commit) -- refused if a batch of the transaction
 *              failed: the application must abort. Version 2: EndTxn v5 answers a new
 *              epoch (or producer id), which the next transaction uses from sequence 0;
 *   abort      batches not sent yet fail ("transaction was aborted"), the ones in flight
 *              are waited for, then EndTxn(abort).
 * Errors (txn_rules.c): PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, authorization failures
 * and INVALID_PRODUCER_ID_MAPPING are fatal (the producer must be destroyed), so are an
 * EndTxn's INVALID_TXN_STATE and unexpected codes; any other failure inside a transaction
 * (TRANSACTION_ABORTABLE, ...) makes it abortable; CONCURRENT_TRANSACTIONS is retried.
 * The control calls (init, offsets, commit, abort) block the calling thread; do not call
 * them from a delivery callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/producer_int.h"
#include "client/txn_rules.h"
#include "proto_msgs.h"

enum { TXN_UNINIT, TXN_READY, TXN_IN_TXN, TXN_ABORTABLE, TXN_FATAL };

struct gr__ptxn {
    char *id;
    int32_t timeout_ms;
    int state;
    int32_t coord; /* node id, -1 unknown */
    bool add_inflight, offsets_added;
    bool v2;       /* transaction version 2 (chosen by init_transactions) */
    bool produced; /* a Produce of this transaction went out */
    int64_t add_retry_at;
    int64_t busy_backoff; /* CONCURRENT_TRANSACTIONS: 2 ms, doubling up to 20 ms (the previous
                           * transaction is still being completed: usually a few ms) */
    gr_err_t err;         /* what made the transaction abortable or the producer fatal */
    char msg[600];
};

gr_err_t gr__txn_new(gr_producer_t *p, const gr_conf_t *conf, char *errstr, size_t size) {
    const char *id = gr__conf_str(conf, GR__CP_TRANSACTIONAL_ID);
    if (!id || !*id) return GR_ERR_NONE;
    if (gr__conf_is_set(conf, GR__CP_ENABLE_IDEMPOTENCE) && !p->idempotent)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "Cannot set a transactional.id without also enabling idempotence.");
    if (!p->idempotent)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "A transactional producer needs idempotence: acks=all, retries > 0 and "
                       "max.in.flight.requests.per.connection <= 5.");
    p->txn = calloc(1, sizeof(*p->txn));
    if (!p->txn) abort();
    p->txn->id = strdup(id);
    p->txn->timeout_ms = (int32_t)gr__conf_int(conf, GR__CP_TRANSACTION_TIMEOUT_MS);
    p->txn->coord = -1;
    return GR_ERR_NONE;
}

void gr__txn_free(gr_producer_t *p) {
    if (!p->txn) return;
    free(p->txn->id);
    free(p->txn);
    p->txn = NULL;
}

const char *gr__txn_id(const gr_producer_t *p) { return p->txn ? p->txn->id : NULL; }

static bool fatal_code(gr_err_t e) { return gr__txn_fatal_code(e); }

bool gr__txn_v2(const gr_producer_t *p) { return p->txn && p->txn->v2; }

void gr__txn_on_produce(gr_producer_t *p) {
    if (p->txn->state == TXN_IN_TXN || p->txn->state == TXN_ABORTABLE) p->txn->produced = true;
}

/* The transaction (or, for a fatal code, the producer) failed with err. Errors outside a
 * transaction, or after it already became abortable, change nothing. */
static void txn_fail(gr_producer_t *p, gr_err_t err, const char *msg) {
    gr__ptxn_t *t = p->txn;
    if (t->state == TXN_FATAL) return;
    if (fatal_code(err))
        t->state = TXN_FATAL;
    else if (t->state == TXN_IN_TXN)
        t->state = TXN_ABORTABLE;
    else
        return;
    t->err = err;
    snprintf(t->msg, sizeof(t->msg), "%s", msg && *msg ? msg : gr_err_str(err));
}

void gr__txn_on_batch_error(gr_producer_t *p, gr_err_t err, const char *msg) {
    if (p->txn && err) txn_fail(p, err, msg);
}

gr_err_t gr__txn_check_send(gr_producer_t *p) {
    gr__ptxn_t *t = p->txn;
    if (!t || t->state == TXN_IN_TXN) return GR_ERR_NONE;
    if (t->state == TXN_FATAL || t->state == TXN_ABORTABLE)
        return gr__fmt(GR_ERR__STATE, p->errbuf, sizeof(p->errbuf),
                       "Cannot perform send because at least one previous transactional or idempotent request has "
                       "failed with errors: %.400s",
                       t->msg);
    return gr__fmt(GR_ERR__STATE, p->errbuf, sizeof(p->errbuf),
                   "Cannot call send in state %s: call gr_producer_%s first",
                   t->state == TXN_UNINIT ? "UNINITIALIZED" : "READY",
                   t->state == TXN_UNINIT ? "init_transactions" : "begin_transaction");
}

void gr__txn_on_append(gr_producer_t *p, gr__ppart_t *pp) {
    if (p->txn && pp->txn == 0) pp->txn = p->txn->v2 ? 2 : 1; /* version 2: the broker adds it */
}

bool gr__txn_part_ready(const gr_producer_t *p, const gr__ppart_t *pp) { return !p->txn || pp->txn == 2; }

/* ---- AddPartitionsToTxn, from the drain ---- */

static void on_add(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    (void)ver;
    gr_producer_t *p = opaque;
    gr__ptxn_t *t = p->txn;
    t->add_inflight = false;
    const gr_AddPartitionsToTxnResponse_t *rs = resp;
    gr_err_t worst = err;
    for (int32_t i = 0; !err && i < rs->ResultsByTopicV3AndBelow.n; i++) {
        const gr_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_t *tr = &rs->ResultsByTopicV3AndBelow.v[i];
        for (int32_t k = 0; k < tr->ResultsByPartition.n; k++) {
            gr_err_t e = (gr_err_t)tr->ResultsByPartition.v[k].PartitionErrorCode;
            if (e && e != GR_ERR_OPERATION_NOT_ATTEMPTED && !worst) worst = e;
            for (size_t j = 0; j < p->n_topics && !e; j++) {
                gr__ptopic_t *pt = p->topics[j];
                int32_t idx = tr->ResultsByPartition.v[k].PartitionIndex;
                if (gr_str_eq_c(tr->Name, pt->name) && idx >= 0 && idx < pt->n_parts && pt->parts[idx]->txn == 1)
                    pt->parts[idx]->txn = 2;
            }
        }
    }
    if (!worst) {
        t->busy_backoff = 0;
        return;
    }
    if (worst == GR_ERR_NOT_COORDINATOR || worst == GR_ERR_COORDINATOR_NOT_AVAILABLE) t->coord = -1;
    if (gr__err_retriable(worst) || worst == GR_ERR_CONCURRENT_TRANSACTIONS) {
        if (worst == GR_ERR_CONCURRENT_TRANSACTIONS)
            t->busy_backoff = t->busy_backoff ? (t->busy_backoff * 2 > 20 ? 20 : t->busy_backoff * 2) : 2;
        t->add_retry_at =
            gr__client_now(cl) + (worst == GR_ERR_CONCURRENT_TRANSACTIONS ? t->busy_backoff : p->backoff_ms);
        return;
    }
    char m[300];
    snprintf(m, sizeof(m), "AddPartitionsToTxn: %s%s%s", gr_err_str(worst), errmsg ? ": " : "", errmsg ? errmsg : "");
    txn_fail(p, worst, m);
}

/* Partitions marked in this transaction and not added yet: one request for all. */
static void send_add(gr_producer_t *p, gr__node_t *node) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_AddPartitionsToTxnRequest_t rq;
    gr_struct_init(&gr_AddPartitionsToTxnRequest_sd, &rq);
    rq.V3AndBelowTransactionalId = gr_str_c(p->txn->id);
    rq.V3AndBelowProducerId = p->pid;
    rq.V3AndBelowProducerEpoch = p->epoch;
    rq.V3AndBelowTopics.v = gr_struct_alloc(&ar, &gr_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_sd,
                                            (int32_t)(p->n_topics ? p->n_topics : 1));
    rq.V3AndBelowTopics.n = 0;
    for (size_t i = 0; i < p->n_topics; i++) {
        gr__ptopic_t *pt = p->topics[i];
        int32_t n = 0;
        for (int32_t j = 0; j < pt->n_parts; j++) n += pt->parts[j]->txn == 1;
        if (!n) continue;
        gr_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_t *tt = &rq.V3AndBelowTopics.v[rq.V3AndBelowTopics.n++];
        tt->Name = gr_str_c(pt->name);
        tt->Partitions.v = gr_arena_alloc(&ar, (size_t)n * sizeof(int32_t));
        tt->Partitions.n = 0;
        for (int32_t j = 0; j < pt->n_parts; j++)
            if (pt->parts[j]->txn == 1) tt->Partitions.v[tt->Partitions.n++] = j;
    }
    int16_t ver = gr__node_version(node, GR_API_AddPartitionsToTxn);
    if (rq.V3AndBelowTopics.n && ver >= 0 &&
        gr__node_send(node, GR_API_AddPartitionsToTxn, ver, &rq, true, on_add, p) == GR_ERR_NONE)
        p->txn->add_inflight = true;
    gr_arena_free(&ar);
}

int64_t gr__txn_wake(const gr_producer_t *p, int64_t wake) {
    const gr__ptxn_t *t = p->txn;
    if (t && t->state == TXN_IN_TXN && !t->add_inflight && t->add_retry_at > gr__client_now(p->cl) &&
        t->add_retry_at < wake)
        return t->add_retry_at;
    return wake;
}

void gr__txn_drain(gr_producer_t *p) {
    gr__ptxn_t *t = p->txn;
    if (!t || t->state != TXN_IN_TXN || t->add_inflight || t->coord < 0) return;
    if (gr__client_now(p->cl) < t->add_retry_at) return;
    bool want = false;
    for (size_t i = 0; i < p->n_topics && !want; i++)
        for (int32_t j = 0; j < p->topics[i]->n_parts && !want; j++) want = p->topics[i]->parts[j]->txn == 1;
    if (!want) return;
    gr__node_t *node = gr__client_node(p->cl, t->coord);
    if (!node) return;
    if (!gr__node_ready(node)) {
        gr__node_connect(node);
        return;
    }
    send_add(p, node);
}

/* ---- the blocking control calls ---- */

/* Wait ms, running the client's I/O (responses of the producer keep coming in). */
static void pause_ms(gr_producer_t *p, int64_t ms) {
    int64_t until = gr__client_tick(p->cl) + ms;
    while (gr__client_tick(p->cl) < until) gr__client_io(p->cl, (int)(until - gr__client_now(p->cl)));
}

/* A retriable answer of the coordinator: forget it if it moved, wait, true to retry. */
static bool retry_after(gr_producer_t *p, gr_err_t err, int64_t deadline) {
    if (err == GR_ERR_NOT_COORDINATOR || err == GR_ERR_COORDINATOR_NOT_AVAILABLE) p->txn->coord = -1;
    if (!(gr__err_retriable(err) || err == GR_ERR_CONCURRENT_TRANSACTIONS) || err == GR_ERR__TIMED_OUT) return false;
    int64_t wait = err == GR_ERR_CONCURRENT_TRANSACTIONS ? 20 : p->backoff_ms;
    if (gr__client_tick(p->cl) + wait >= deadline) return false;
    pause_ms(p, wait);
    return true;
}

/* One request to the transaction coordinator (found first if unknown). */
static gr_err_t coord_call(gr_producer_t *p, int16_t api, const void *rq, int64_t deadline, gr_arena_t *ar,
                           void **resp) {
    gr__ptxn_t *t = p->txn;
    gr_err_t err = GR_ERR_NONE;
    if (t->coord < 0)
        err = gr__client_find_coordinator(p->cl, 1, t->id, deadline, &t->coord, p->errbuf, sizeof(p->errbuf));
    int16_t ver, max = gr__txn_max_version(t->v2, api);
    if (!err)
        err =
            gr__client_call_max(p->cl, t->coord, api, max, rq, deadline, ar, resp, &ver, p->errbuf, sizeof(p->errbuf));
    if (err == GR_ERR__TRANSPORT) t->coord = -1;
    return err;
}

/* Run a control request until it succeeds, fails for good or the deadline passes.
 * code_of reads the answer's error code. */
typedef gr_err_t code_fn(const void *resp);
static gr_err_t control(gr_producer_t *p, const char *what, int16_t api, const void *rq, code_fn *code_of,
                        int64_t deadline, gr_arena_t *ar, void **resp) {
    for (;;) {
        gr_err_t err = coord_call(p, api, rq, deadline, ar, resp);
        if (!err) err = code_of(*resp);
        if (!err) return GR_ERR_NONE;
        if (retry_after(p, err, deadline)) continue;
        if (err > 0)
            gr__fmt(err, p->errbuf, sizeof(p->errbuf), "%s for transactional id %s: %s", what, p->txn->id,
                    gr_err_str(err));
        return err;
    }
}

static gr_err_t init_code(const void *r) { return (gr_err_t)((const gr_InitProducerIdResponse_t *)r)->ErrorCode; }
static gr_err_t end_code(const void *r) { return (gr_err_t)((const gr_EndTxnResponse_t *)r)->ErrorCode; }
static gr_err_t add_offsets_code(const void *r) {
    return (gr_err_t)((const gr_AddOffsetsToTxnResponse_t *)r)->ErrorCode;
}

static int64_t deadline_of(gr_producer_t *p, int timeout_ms) {
    return gr__client_tick(p->cl) + (timeout_ms < 0 ? p->max_block_ms : timeout_ms);
}

static gr_err_t need(gr_producer_t *p, int state, const char *call) {
    gr__ptxn_t *t = p->txn;
    if (!t) return gr__fmt(GR_ERR__STATE, p->errbuf, sizeof(p->errbuf), "%s needs transactional.id to be set", call);
    if (t->state == TXN_FATAL)
        return gr__fmt(GR_ERR__STATE, p->errbuf, sizeof(p->errbuf),
                       "The producer failed fatally (%.400s): destroy it and create a new one", t->msg);
    if (t->state == state || (state == TXN_IN_TXN && t->state == TXN_ABORTABLE && !strcmp(call, "abort")))
        return GR_ERR_NONE;
    static const char *const names[] = {"UNINITIALIZED", "READY", "IN_TRANSACTION", "ABORTABLE_ERROR", "FATAL_ERROR"};
    return gr__fmt(GR_ERR__STATE, p->errbuf, sizeof(p->errbuf), "Invalid transition attempted from state %s (%s)",
                   names[t->state], call);
}

/* Transaction version 2 when the brokers finalized it and the coordinator offers the
 * request versions it needs (the Java producer decides at initTransactions too). */
static bool choose_v2(gr_producer_t *p) {
    gr__node_t *node = gr__client_node(p->cl, p->txn->coord);
    if (!node || !gr__node_ready(node)) return false;
    gr__txn_caps_t c = {gr__client_txn_version(p->cl), gr__node_version(node, GR_API_Produce),
                        gr__node_version(node, GR_API_EndTxn), gr__node_version(node, GR_API_TxnOffsetCommit)};
    return gr__txn_v2_usable(&c);
}

static void reset_sequences(gr_producer_t *p) {
    for (size_t i = 0; i < p->n_topics; i++)
        for (int32_t j = 0; j < p->topics[i]->n_parts; j++) p->topics[i]->parts[j]->next_seq = 0;
}

gr_err_t gr_producer_init_transactions(gr_producer_t *p, int timeout_ms) {
    gr_err_t err = need(p, TXN_UNINIT, "init_transactions");
    if (err) return err;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_InitProducerIdRequest_t rq;
    gr_struct_init(&gr_InitProducerIdRequest_sd, &rq);
    rq.TransactionalId = gr_str_c(p->txn->id);
    rq.TransactionTimeoutMs = p->txn->timeout_ms;
    rq.ProducerId = -1;
    rq.ProducerEpoch = -1;
    void *resp;
    err = control(p, "InitProducerId", GR_API_InitProducerId, &rq, init_code, deadline_of(p, timeout_ms), &ar, &resp);
    if (!err) {
        const gr_InitProducerIdResponse_t *rs = resp;
        p->pid = rs->ProducerId;
        p->epoch = rs->ProducerEpoch;
        reset_sequences(p);
        p->txn->v2 = choose_v2(p);
        p->txn->state = TXN_READY;
    } else if (fatal_code(err)) {
        p->txn->state = TXN_FATAL;
        snprintf(p->txn->msg, sizeof(p->txn->msg), "%s", p->errbuf);
    }
    gr_arena_free(&ar);
    return err;
}

gr_err_t gr_producer_begin_transaction(gr_producer_t *p) {
    gr_err_t err = need(p, TXN_READY, "begin_transaction");
    if (err) return err;
    /* The brokers finalized a lower transaction.version since: back to version 1 (going up
     * waits for the next init_transactions, which starts from a new epoch). */
    int16_t tv = gr__client_txn_version(p->cl);
    if (p->txn->v2 && tv >= 0 && tv < 2) p->txn->v2 = false;
    p->txn->state = TXN_IN_TXN;
    p->txn->offsets_added = false;
    p->txn->produced = false;
    return GR_ERR_NONE;
}

/* The coordinator knows the transaction. Version 1: partitions it added (an abort waits
 * for an AddPartitionsToTxn in flight first; as in Java, an add that never happened
 * needs no EndTxn, which would answer INVALID_TXN_STATE). Version 2: a Produce went out (the broker adds the partition on its own);
 * records that never left are failed locally, so an abort of them alone needs no EndTxn
 * (Java sends one, which bumps the epoch; while the previous transaction's markers are
 * still being written the coordinator answers it PRODUCER_FENCED). */
static bool txn_started(gr_producer_t *p) {
    if (p->txn->offsets_added) return true;
    if (p->txn->v2) return p->txn->produced;
    for (size_t i = 0; i < p->n_topics; i++)
        for (int32_t j = 0; j < p->topics[i]->n_parts; j++)
            if (p->topics[i]->parts[j]->txn == 2) return true;
    return false;
}

/* EndTxn (if the coordinator knows the transaction), then READY again. */
static gr_err_t end_txn(gr_producer_t *p, bool commit, int64_t deadline) {
    gr_err_t err = GR_ERR_NONE;
    if (txn_started(p)) {
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_EndTxnRequest_t rq;
        gr_struct_init(&gr_EndTxnRequest_sd, &rq);
        rq.TransactionalId = gr_str_c(p->txn->id);
        rq.ProducerId = p->pid;
        rq.ProducerEpoch = p->epoch;
        rq.Committed = commit;
        void *resp;
        err = control(p, "EndTxn", GR_API_EndTxn, &rq, end_code, deadline, &ar, &resp);
        const gr_EndTxnResponse_t *rs = resp;
        if (!err && p->txn->v2 && rs->ProducerId >= 0 && rs->ProducerEpoch >= 0) {
            /* version 2: the coordinator bumped the epoch; the next transaction uses it */
            p->pid = rs->ProducerId;
            p->epoch = rs->ProducerEpoch;
            reset_sequences(p);
        }
        gr_arena_free(&ar);
    }
    if (err) {
        err = gr__txn_reported_code(err);
        if (gr__txn_end_outcome(err) == GR__TXN_FATAL)
            p->txn->state = TXN_FATAL;
        else if (p->txn->state == TXN_IN_TXN)
            p->txn->state = TXN_ABORTABLE;
        p->txn->err = err;
        snprintf(p->txn->msg, sizeof(p->txn->msg), "%s", p->errbuf);
        return err;
    }
    for (size_t i = 0; i < p->n_topics; i++)
        for (int32_t j = 0; j < p->topics[i]->n_parts; j++) p->topics[i]->parts[j]->txn = 0;
    p->txn->state = TXN_READY;
    p->txn->add_retry_at = 0;
    return GR_ERR_NONE;
}

gr_err_t gr_producer_commit_transaction(gr_producer_t *p, int timeout_ms) {
    gr_err_t err = need(p, TXN_IN_TXN, "commit_transaction");
    if (err) return err;
    int64_t deadline = deadline_of(p, timeout_ms);
    int64_t left = deadline - gr__client_tick(p->cl);
    if ((err = gr_producer_flush(p, (int)(left > 0 ? left : 0)))) return err;
    if (p->txn->state == TXN_ABORTABLE)
        return gr__fmt(p->txn->err, p->errbuf, sizeof(p->errbuf),
                       "Cannot commit: a record of the transaction failed (%.400s); abort the transaction",
                       p->txn->msg);
    if (p->txn->state == TXN_FATAL) return need(p, TXN_IN_TXN, "commit_transaction");
    return end_txn(p, true, deadline);
}

gr_err_t gr_producer_abort_transaction(gr_producer_t *p, int timeout_ms) {
    gr_err_t err = need(p, TXN_IN_TXN, "abort");
    if (err) return err;
    int64_t deadline = deadline_of(p, timeout_ms);
    /* Records not sent yet are dropped; those in flight are waited for. */
    gr__producer_fail_unsent(p, "Failing batch since transaction was aborted");
    for (;;) {
        bool inflight = p->txn->add_inflight;
        for (size_t i = 0; i < p->n_topics && !inflight; i++)
            for (int32_t j = 0; j < p->topics[i]->n_parts && !inflight; j++)
                inflight = p->topics[i]->parts[j]->inflight > 0;
        if (!inflight) break;
        if (gr__client_tick(p->cl) >= deadline)
            return gr__fmt(GR_ERR__TIMED_OUT, p->errbuf, sizeof(p->errbuf),
                           "abort timed out waiting for records in flight");
        gr_producer_poll(p, 10);
    }
    if (p->txn->state == TXN_FATAL) return need(p, TXN_IN_TXN, "abort");
    p->txn->state = TXN_IN_TXN; /* abortable -> ending */
    return end_txn(p, false, deadline);
}

static gr_err_t txn_offset_commit(gr_producer_t *p, const char *group, const char *const *topics,
                                  const int32_t *partitions, const int64_t *offsets, size_t n, int64_t deadline) {
    for (;;) {
        int32_t node;
        gr_err_t err = gr__client_find_coordinator(p->cl, 0, group, deadline, &node, p->errbuf, sizeof(p->errbuf));
        if (err) return err;
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_TxnOffsetCommitRequest_t rq;
        gr_struct_init(&gr_TxnOffsetCommitRequest_sd, &rq);
        rq.TransactionalId = gr_str_c(p->txn->id);
        rq.GroupId = gr_str_c(group);
        rq.ProducerId = p->pid;
        rq.ProducerEpoch = p->epoch;
        rq.Topics.v = gr_struct_alloc(&ar, &gr_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_sd, (int32_t)n);
        rq.Topics.n = 0;
        for (size_t i = 0; i < n; i++) {
            gr_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_t *tt = NULL;
            for (int32_t k = 0; k < rq.Topics.n && !tt; k++)
                if (gr_str_eq_c(rq.Topics.v[k].Name, topics[i])) tt = &rq.Topics.v[k];
            if (!tt) {
                tt = &rq.Topics.v[rq.Topics.n++];
                tt->Name = gr_str_c(topics[i]);
                tt->Partitions.v =
                    gr_struct_alloc(&ar, &gr_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_sd, (int32_t)n);
                tt->Partitions.n = 0;
            }
            gr_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_t *pp = &tt->Partitions.v[tt->Partitions.n++];
            pp->PartitionIndex = partitions[i];
            pp->CommittedOffset = offsets[i];
            pp->CommittedMetadata = gr_str_c("");
        }
        void *resp;
        int16_t ver;
        err = gr__client_call_max(p->cl, node, GR_API_TxnOffsetCommit,
                                  gr__txn_max_version(p->txn->v2, GR_API_TxnOffsetCommit), &rq, deadline, &ar, &resp,
                                  &ver, p->errbuf, sizeof(p->errbuf));
        gr_err_t worst = err;
        if (!err) {
            const gr_TxnOffsetCommitResponse_t *rs = resp;
            for (int32_t i = 0; i < rs->Topics.n && !worst; i++)
                for (int32_t k = 0; k < rs->Topics.v[i].Partitions.n && !worst; k++)
                    worst = (gr_err_t)rs->Topics.v[i].Partitions.v[k].ErrorCode;
        }
        gr_arena_free(&ar);
        if (!worst) return GR_ERR_NONE;
        if (worst == GR_ERR_NOT_COORDINATOR || worst == GR_ERR_COORDINATOR_NOT_AVAILABLE ||
            worst == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS || worst == GR_ERR_CONCURRENT_TRANSACTIONS ||
            worst == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION || worst == GR_ERR_REQUEST_TIMED_OUT) {
            if (gr__client_tick(p->cl) + p->backoff_ms >= deadline) return worst;
            pause_ms(p, p->backoff_ms);
            continue;
        }
        if (worst > 0)
            gr__fmt(worst, p->errbuf, sizeof(p->errbuf), "TxnOffsetCommit for group %s: %s", group, gr_err_str(worst));
        return worst;
    }
}

gr_err_t gr_producer_send_offsets_to_transaction(gr_producer_t *p, const char *group, const char *const *topics,
                                                 const int32_t *partitions, const int64_t *offsets, size_t n,
                                                 int timeout_ms) {
    gr_err_t err = need(p, TXN_IN_TXN, "send_offsets_to_transaction");
    if (err) return err;
    if (!group || !*group || (n && (!topics || !partitions || !offsets)))
        return gr__fmt(GR_ERR__INVALID_ARG, p->errbuf, sizeof(p->errbuf), "a group id and n offsets are needed");
    int64_t deadline = deadline_of(p, timeout_ms);
    if (!p->txn->v2) { /* version 2: TxnOffsetCommit v5 adds the group's partition itself */
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_AddOffsetsToTxnRequest_t rq;
        gr_struct_init(&gr_AddOffsetsToTxnRequest_sd, &rq);
        rq.TransactionalId = gr_str_c(p->txn->id);
        rq.ProducerId = p->pid;
        rq.ProducerEpoch = p->epoch;
        rq.GroupId = gr_str_c(group);
        void *resp;
        err = control(p, "AddOffsetsToTxn", GR_API_AddOffsetsToTxn, &rq, add_offsets_code, deadline, &ar, &resp);
        gr_arena_free(&ar);
    }
    if (!err) {
        p->txn->offsets_added = true;
        err = txn_offset_commit(p, group, topics, partitions, offsets, n, deadline);
    }
    if (err) txn_fail(p, err, p->errbuf);
    return err;
}
