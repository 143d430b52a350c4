/* The producer's network side: InitProducerId, draining sealed batches into one
 * Produce request per broker, handling the answers (success, ordered retries,
 * idempotent sequence bookkeeping), delivery.timeout.ms expiry. See producer_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc32c.h"
#include "client/producer_int.h"
#include "proto/compress.h"
#include "proto_msgs.h"

typedef struct gr__preq {
    gr_producer_t *p;
    int n;
    gr__pbatch_t *b[];
} gr__preq_t;

/* ---- buffers ---- */

gr_wbuf_t gr__producer_buf_get(gr_producer_t *p) {
    gr_wbuf_t wb;
    if (p->n_pool > 0) {
        wb = p->pool[--p->n_pool];
        p->pool_bytes -= wb.cap;
        gr_wbuf_reset(&wb);
    } else {
        gr_wbuf_init(&wb);
    }
    return wb;
}

/* Keep a buffer for reuse while the pool holds at most GR__POOL buffers and half of
 * buffer.memory in capacity: with a large batch.size the pool stays bounded too. */
void gr__producer_buf_put(gr_producer_t *p, gr_wbuf_t *wb) {
    if (wb->mem && p->n_pool < GR__POOL && wb->cap <= (size_t)p->batch_size * 4 + 65536 &&
        p->pool_bytes + wb->cap <= (size_t)p->buffer_memory / 2) {
        p->pool_bytes += wb->cap;
        p->pool[p->n_pool++] = *wb;
        gr_wbuf_init(wb);
    } else {
        gr_wbuf_free(wb);
    }
}

/* ---- batch life cycle ---- */

void gr__producer_seal(gr_producer_t *p, gr__ppart_t *pp) {
    gr__pbatch_t *b = pp->open;
    if (!b) return;
    pp->open = NULL;
    b->next = NULL;
    if (pp->q_tail)
        pp->q_tail->next = b;
    else
        pp->q_head = b;
    pp->q_tail = b;
}

void gr__producer_complete(gr_producer_t *p, gr__pbatch_t *b, gr_err_t err, const char *errmsg, int64_t base_offset,
                           int64_t log_append_time) {
    b->err = err;
    b->errmsg = errmsg && *errmsg ? strdup(errmsg) : NULL;
    b->base_offset = base_offset;
    b->log_append_time = log_append_time;
    if (!b->finished) gr__producer_buf_put(p, &b->bb.records);
    gr__producer_buf_put(p, &b->wire);
    p->used_bytes -= b->bytes;
    b->next = NULL;
    if (p->done_tail)
        p->done_tail->next = b;
    else
        p->done_head = b;
    p->done_tail = b;
}

/* Write producer id, epoch and base sequence into a finished batch and fix its CRC. */
static void patch_batch(gr__pbatch_t *b, int64_t pid, int16_t epoch, int32_t seq) {
    uint8_t *m = b->wire.mem;
    gr_put_be64(m + 43, (uint64_t)pid);
    gr_put_be16(m + 51, (uint16_t)epoch);
    gr_put_be32(m + 53, (uint32_t)seq);
    gr_put_be32(m + GR_BATCH_CRC_OFFSET,
                gr_crc32c(0, m + GR_BATCH_ATTRIBUTES_OFFSET, b->wire.len - GR_BATCH_ATTRIBUTES_OFFSET));
    b->pid = pid;
    b->base_seq = seq;
}

/* Turn the builder into wire bytes, assigning the sequence if idempotent. */
static gr_err_t finish_batch(gr_producer_t *p, gr__pbatch_t *b) {
    gr__ppart_t *pp = b->pp;
    if (b->finished) {
        if (p->idempotent && b->pid != p->pid) { /* a new producer id: new sequences */
            patch_batch(b, p->pid, p->epoch, pp->next_seq);
            pp->next_seq += b->n_msgs;
        }
        return GR_ERR_NONE;
    }
    gr_batch_builder_opts_t o;
    gr_batch_builder_opts_init(&o);
    o.codec = p->codec;
    if (p->idempotent) {
        o.producer_id = p->pid;
        o.producer_epoch = p->epoch;
        o.base_sequence = pp->next_seq;
    }
    o.transactional = p->txn != NULL;
    /* The records follow GR_RECORD_BATCH_OVERHEAD reserved bytes (new_batch): view them alone. */
    gr_batch_builder_t view = b->bb;
    view.records.mem += GR_RECORD_BATCH_OVERHEAD;
    view.records.len -= GR_RECORD_BATCH_OVERHEAD;
    if (p->codec == GR_CODEC_NONE) {
        /* No copy: the builder writes the header alone, it goes into the reserved bytes in
         * front of the records, and that buffer becomes the wire batch. */
        view.records.len = 0;
        gr_wbuf_reset(&p->hdr);
        gr_err_t err = gr_batch_builder_finish(&view, &o, &p->hdr);
        if (err) return err;
        uint8_t *m = b->bb.records.mem;
        size_t len = b->bb.records.len;
        memcpy(m, p->hdr.mem, GR_RECORD_BATCH_OVERHEAD);
        gr_put_be32(m + 8, (uint32_t)(len - GR_LOG_OVERHEAD));
        gr_put_be32(m + GR_BATCH_CRC_OFFSET,
                    gr_crc32c(0, m + GR_BATCH_ATTRIBUTES_OFFSET, len - GR_BATCH_ATTRIBUTES_OFFSET));
        b->wire = b->bb.records;
        gr_wbuf_init(&b->bb.records);
    } else {
        b->wire = gr__producer_buf_get(p);
        gr_err_t err = gr_batch_builder_finish(&view, &o, &b->wire);
        if (err) return err;
        gr__producer_buf_put(p, &b->bb.records);
    }
    b->finished = true;
    b->pid = o.producer_id;
    b->base_seq = o.base_sequence;
    if (p->idempotent) pp->next_seq += b->n_msgs;
    return GR_ERR_NONE;
}

/* ---- producer id ---- */

static void reset_sequences(gr_producer_t *p) {
    for (size_t i = 0; i < p->n_topics; i++)
        for (int32_t j = 0; j < p->topics[i]->n_parts; j++) p->topics[i]->parts[j]->next_seq = 0;
}

static void on_init_pid(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr_producer_t *p = opaque;
    p->pid_inflight = false;
    const gr_InitProducerIdResponse_t *rs = resp;
    if (!err && rs->ErrorCode) err = (gr_err_t)rs->ErrorCode;
    if (err) {
        p->pid_retry_at = gr__client_now(cl) + p->backoff_ms;
        return;
    }
    p->pid = rs->ProducerId;
    p->epoch = rs->ProducerEpoch;
    reset_sequences(p);
}

static void maybe_init_pid(gr_producer_t *p) {
    if (p->pid_inflight || gr__client_now(p->cl) < p->pid_retry_at) return;
    gr__node_t *node = gr__client_any_node(p->cl);
    if (!node) return;
    int16_t ver = gr__node_version(node, GR_API_InitProducerId);
    if (ver < 0) return;
    gr_InitProducerIdRequest_t rq;
    gr_struct_init(&gr_InitProducerIdRequest_sd, &rq);
    rq.TransactionalId = GR_STR_NULL;
    rq.TransactionTimeoutMs = 2147483647;
    if (gr__node_send(node, GR_API_InitProducerId, ver, &rq, true, on_init_pid, p) == GR_ERR_NONE)
        p->pid_inflight = true;
}

/* ---- answers ---- */

static void requeue(gr_producer_t *p, gr__pbatch_t *b) {
    gr__ppart_t *pp = b->pp;
    gr__pbatch_t **at = &pp->q_head;
    if (p->idempotent) /* sequence order; unsent batches (-1) stay behind */
        while (*at && (*at)->base_seq >= 0 && (*at)->base_seq < b->base_seq) at = &(*at)->next;
    b->next = *at;
    *at = b;
    if (!b->next) pp->q_tail = b;
    pp->retrying = p->idempotent;
}

static bool leader_error(gr_err_t e) {
    return e == GR_ERR_NOT_LEADER_OR_FOLLOWER || e == GR_ERR_LEADER_NOT_AVAILABLE ||
           e == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION || e == GR_ERR_FENCED_LEADER_EPOCH ||
           e == GR_ERR_UNKNOWN_LEADER_EPOCH || e == GR_ERR__TRANSPORT || e == GR_ERR__TIMED_OUT;
}

static void batch_result(gr_producer_t *p, gr__pbatch_t *b, gr_err_t code, const char *msg, int64_t offset,
                         int64_t lat) {
    gr__ppart_t *pp = b->pp;
    pp->inflight--;
    b->in_flight = false;
    if (code == GR_ERR_NONE || (code == GR_ERR_DUPLICATE_SEQUENCE_NUMBER && p->idempotent)) {
        gr__producer_complete(p, b, GR_ERR_NONE, NULL, code ? -1 : offset, lat);
        return;
    }
    int64_t now = gr__client_now(p->cl);
    bool retriable = gr__err_retriable(code) || (code == GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER && pp->retrying);
    if (!p->closing && retriable && b->attempts < p->retries && now - b->created_ms < p->delivery_timeout) {
        b->attempts++;
        b->retry_at = now + p->backoff_ms;
        requeue(p, b);
        if (leader_error(code)) gr__client_request_metadata(p->cl);
        return;
    }
    char text[700];
    snprintf(text, sizeof(text), "%s-%d: %s%s%s", pp->pt->name, pp->id, gr_err_str(code), msg && *msg ? ": " : "",
             msg ? msg : "");
    gr__producer_complete(p, b, code, text, -1, -1);
    if (p->txn) {
        gr__txn_on_batch_error(p, code, text); /* the transaction must be aborted; the id stays */
        return;
    }
    if (p->idempotent && (code == GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER || code == GR_ERR_UNKNOWN_PRODUCER_ID ||
                          code == GR_ERR_INVALID_PRODUCER_EPOCH))
        p->pid = -1; /* sequence state is lost: start over with a new producer id */
}

static const gr_ProduceResponse_PartitionProduceResponse_t *find_presp(const gr_ProduceResponse_t *rs,
                                                                       const gr__pbatch_t *b) {
    for (int32_t i = 0; i < rs->Responses.n; i++) {
        const gr_ProduceResponse_TopicProduceResponse_t *t = &rs->Responses.v[i];
        if (!gr_str_eq_c(t->Name, b->pp->pt->name)) continue;
        for (int32_t j = 0; j < t->PartitionResponses.n; j++)
            if (t->PartitionResponses.v[j].Index == b->pp->id) return &t->PartitionResponses.v[j];
    }
    return NULL;
}

static void on_produce(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr__preq_t *rq = opaque;
    gr_producer_t *p = rq->p;
    for (int i = 0; i < rq->n; i++) {
        gr__pbatch_t *b = rq->b[i];
        if (err) {
            batch_result(p, b, err, errmsg, -1, -1);
            continue;
        }
        if (!resp) { /* acks=0 */
            batch_result(p, b, GR_ERR_NONE, NULL, -1, -1);
            continue;
        }
        const gr_ProduceResponse_PartitionProduceResponse_t *pr = find_presp(resp, b);
        if (!pr) {
            batch_result(p, b, GR_ERR__MALFORMED, "the broker did not answer for this partition", -1, -1);
            continue;
        }
        char msg[400] = "";
        if (pr->ErrorMessage.len > 0) snprintf(msg, sizeof(msg), "%.*s", pr->ErrorMessage.len, pr->ErrorMessage.ptr);
        batch_result(p, b, (gr_err_t)pr->ErrorCode, msg, pr->BaseOffset, pr->LogAppendTimeMs);
    }
    free(rq);
}

/* ---- draining ---- */

static bool part_ready(gr_producer_t *p, gr__ppart_t *pp, int64_t now) {
    gr__pbatch_t *b = pp->q_head;
    if (!b || b->retry_at > now || !gr__txn_part_ready(p, pp)) return false;
    if (p->idempotent && (pp->inflight >= p->max_inflight || (pp->retrying && pp->inflight > 0))) return false;
    return true;
}

/* Whether a batch sealed now could leave at once: nothing of its partition queued and a slot
 * free among the partition's requests in flight. */
static bool could_leave_now(const gr_producer_t *p, const gr__ppart_t *pp) {
    return !pp->q_head && pp->inflight < p->max_inflight;
}

/* Seal open batches that are due: on flush, after linger.ms, and when buffer.memory is 90 %
 * used -- except (flush aside) when the sealed batch could not leave at once: behind queued
 * batches or a full in-flight window an early seal would not leave sooner, it would only cut
 * batches short (down to one record each with linger.ms=0), and each short batch then costs
 * a request of its own, for an acks=all producer an fsync round trip per record, so a
 * backlog drains one record per request. An open batch keeps growing instead and is sealed
 * when the partition can send (the Java producer's accumulator works the same way). */
static void seal_due(gr_producer_t *p, int64_t now) {
    bool pressure = p->used_bytes * 10 >= (size_t)p->buffer_memory * 9;
    for (size_t i = 0; i < p->n_topics; i++) {
        gr__ptopic_t *pt = p->topics[i];
        for (int32_t j = 0; j < pt->n_parts; j++) {
            gr__ppart_t *pp = pt->parts[j];
            gr__pbatch_t *o = pp->open;
            if (o && (p->flushing || (could_leave_now(p, pp) && (pressure || now - o->created_ms >= p->linger_ms))))
                gr__producer_seal(p, pp);
        }
    }
}

/* Collect up to one ready batch per partition led by node into a request. */
static gr__preq_t *collect(gr_producer_t *p, gr__node_t *node, int64_t now) {
    gr__preq_t *rq = NULL;
    int cap = 0;
    size_t size = 100;
    for (size_t i = 0; i < p->n_topics; i++) {
        gr__ptopic_t *pt = p->topics[i];
        for (int32_t j = 0; j < pt->n_parts; j++) {
            gr__ppart_t *pp = pt->parts[j];
            if (!part_ready(p, pp, now)) continue;
            int32_t leader = pt->mt->n_parts > j ? pt->mt->parts[j].leader : -1;
            if (leader < 0) gr__client_request_metadata(p->cl);
            if (leader != gr__node_id(node)) continue;
            gr__pbatch_t *b = pp->q_head;
            if (finish_batch(p, b)) continue;
            if (rq && size + b->wire.len > (size_t)p->max_request) return rq;
            size += b->wire.len + 40;
            if (!rq || rq->n == cap) {
                cap = cap ? cap * 2 : 8;
                rq = realloc(rq, sizeof(*rq) + (size_t)cap * sizeof(rq->b[0]));
                if (!rq) abort();
                if (cap == 8) rq->n = 0;
            }
            rq->p = p;
            rq->b[rq->n++] = b;
            pp->q_head = b->next;
            if (!pp->q_head) pp->q_tail = NULL;
            b->next = NULL;
            b->in_flight = true;
            pp->inflight++;
            pp->retrying = false; /* the in-order resend has started */
        }
    }
    return rq;
}

static void send_request(gr_producer_t *p, gr__node_t *node, gr__preq_t *rq) {
    gr_arena_t a;
    gr_arena_init(&a);
    gr_ProduceRequest_t r;
    gr_struct_init(&gr_ProduceRequest_sd, &r);
    r.Acks = (int16_t)p->acks;
    r.TransactionalId = p->txn ? gr_str_c(gr__txn_id(p)) : GR_STR_NULL;
    r.TimeoutMs = (int32_t)gr__conf_int(gr__client_conf(p->cl), GR__CP_REQUEST_TIMEOUT_MS);
    r.TopicData.v = gr_struct_alloc(&a, &gr_ProduceRequest_TopicProduceData_sd, rq->n);
    r.TopicData.n = 0;
    for (int i = 0; i < rq->n; i++) {
        gr__pbatch_t *b = rq->b[i];
        gr_ProduceRequest_TopicProduceData_t *td = NULL;
        for (int32_t k = 0; k < r.TopicData.n && !td; k++)
            if (gr_str_eq_c(r.TopicData.v[k].Name, b->pp->pt->name)) td = &r.TopicData.v[k];
        if (!td) {
            td = &r.TopicData.v[r.TopicData.n++];
            td->Name = gr_str_c(b->pp->pt->name);
            td->TopicId = b->pp->pt->mt->id;
            td->PartitionData.v = gr_struct_alloc(&a, &gr_ProduceRequest_PartitionProduceData_sd, rq->n);
            td->PartitionData.n = 0;
        }
        gr_ProduceRequest_PartitionProduceData_t *pd = &td->PartitionData.v[td->PartitionData.n++];
        pd->Index = b->pp->id;
        /* not copied into the request: node.c sends the batch from its own buffer (GR__MEMSEG_FD) */
        pd->Records.len = (int32_t)b->wire.len;
        pd->Records.file_backed = true;
        pd->Records.fd = GR__MEMSEG_FD;
        pd->Records.off = (int64_t)(intptr_t)b->wire.mem;
        pd->Records.release = NULL;
        pd->Records.owner = NULL;
    }
    int16_t ver = gr__node_version(node, GR_API_Produce);
    if (p->txn && !gr__txn_v2(p) && ver > 11) ver = 11; /* v12+ announces transaction version 2 (KIP-890) */
    gr__node_send(node, GR_API_Produce, ver, &r, p->acks != 0, on_produce, rq);
    if (p->txn) gr__txn_on_produce(p);
    gr_arena_free(&a);
}

static void drain_node(gr_producer_t *p, gr__node_t *node, int64_t now) {
    while (gr__node_inflight(node) < p->max_inflight) {
        gr__preq_t *rq = collect(p, node, now);
        if (!rq) return;
        send_request(p, node, rq);
    }
}

void gr__producer_drain(gr_producer_t *p) {
    if (p->closing) return;
    int64_t now = gr__client_now(p->cl);
    if (p->txn) { /* the producer id comes from gr_producer_init_transactions */
        if (p->pid < 0) return;
        gr__txn_drain(p);
    } else if (p->idempotent && p->pid < 0) {
        bool busy = false;
        for (size_t i = 0; i < p->n_topics && !busy; i++)
            for (int32_t j = 0; j < p->topics[i]->n_parts && !busy; j++) busy = p->topics[i]->parts[j]->inflight > 0;
        if (!busy) maybe_init_pid(p);
        if (p->pid < 0) return;
    }
    seal_due(p, now);
    for (size_t i = 0; i < p->n_topics; i++) {
        gr__ptopic_t *pt = p->topics[i];
        for (int32_t j = 0; j < pt->n_parts; j++) {
            if (!pt->parts[j]->q_head) continue;
            int32_t leader = pt->mt->n_parts > j ? pt->mt->parts[j].leader : -1;
            gr__node_t *node = leader >= 0 ? gr__client_node(p->cl, leader) : NULL;
            if (!node) {
                gr__client_request_metadata(p->cl);
                continue;
            }
            if (!gr__node_ready(node)) {
                gr__node_connect(node);
                continue;
            }
            drain_node(p, node, now);
        }
    }
    gr__client_flush(p->cl); /* write what was queued now, not at the next poll */
}

/* ---- expiry ---- */

static void expire_batch(gr_producer_t *p, gr__pbatch_t *b, int64_t now) {
    char msg[400];
    snprintf(msg, sizeof(msg), "Expiring %d record(s) for %s-%d: %lld ms has passed since batch creation", b->n_msgs,
             b->pp->pt->name, b->pp->id, (long long)(now - b->created_ms));
    if (p->idempotent && b->base_seq >= 0) p->pid = -1; /* a sequence gap: start over */
    gr__producer_complete(p, b, GR_ERR__TIMED_OUT, msg, -1, -1);
}

int64_t gr__producer_expire(gr_producer_t *p) {
    int64_t now = gr__client_now(p->cl), wake = now + 100;
    for (size_t i = 0; i < p->n_topics; i++) {
        gr__ptopic_t *pt = p->topics[i];
        for (int32_t j = 0; j < pt->n_parts; j++) {
            gr__ppart_t *pp = pt->parts[j];
            if (pp->open && now - pp->open->created_ms >= p->delivery_timeout) {
                gr__pbatch_t *b = pp->open;
                pp->open = NULL;
                expire_batch(p, b, now);
            }
            while (pp->q_head && now - pp->q_head->created_ms >= p->delivery_timeout) {
                gr__pbatch_t *b = pp->q_head;
                pp->q_head = b->next;
                if (!pp->q_head) pp->q_tail = NULL;
                expire_batch(p, b, now);
            }
            /* a due batch that cannot leave yet is sealed when an answer frees the partition */
            if (pp->open && could_leave_now(p, pp) && pp->open->created_ms + p->linger_ms < wake)
                wake = pp->open->created_ms + p->linger_ms;
            if (pp->q_head && pp->q_head->retry_at > now && pp->q_head->retry_at < wake) wake = pp->q_head->retry_at;
        }
    }
    return gr__txn_wake(p, wake);
}
