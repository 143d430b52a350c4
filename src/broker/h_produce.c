/* Produce (0), v3-13: validate each partition's batch, check idempotent
 * producer sequences, append to the partition log and answer.
 *
 * Kafka's order (KafkaApis.handleProduceRequest, ReplicaManager.appendRecords,
 * UnifiedLog.append) is kept: transactional records without a transactional id
 * fail the whole request; then per partition the topic id / name and partition
 * are resolved (UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION; Produce never
 * auto-creates topics in Kafka, only Metadata does); then acks must be 0, 1 or
 * -1 (INVALID_REQUIRED_ACKS); then the records are validated, the producer
 * state is checked (duplicates answer with the original offsets and are not
 * appended again) and the batch is appended.
 *
 * Durability: acks=1 answers once the batch is in the page cache, as Kafka
 * does. acks=-1 answers once every appended partition is fsynced: each
 * partition joins the broker's sync queue, which fsyncs it once for all the
 * requests of a loop iteration just before the loop sleeps (group commit). Kafka's TimeoutMs is not applied to that wait: the
 * single replica is always "in sync", only the disk can be slow.
 *
 * Storage errors (docs/storage.md, "Write and fsync failures"): an append that
 * fails for lack of space appended nothing and leaves the partition online;
 * it is answered KAFKA_STORAGE_ERROR (56), which producers retry. A failed
 * fsync, or any other write error, takes the partition offline until restart
 * and fails every acks=-1 request still waiting on it with 56.
 *
 * Transactions (docs/compatibility.md, "Transactions: the log side"): a
 * transactional batch in a request with a transactional id is first verified by
 * the transaction coordinator (gr_txn_coord_verify, Kafka's partition
 * verification); the request is parked until every such partition has its answer,
 * then those batches are checked against the producer state and appended like the
 * others. A failed verification is answered as Kafka's ReplicaManager translates
 * it: INVALID_TXN_STATE with "Partition was not added to the transaction";
 * CONCURRENT_TRANSACTIONS, NETWORK_EXCEPTION and the coordinator errors become
 * NOT_ENOUGH_REPLICAS with "Unable to verify the partition has been added to the
 * transaction. Underlying error: <error>", which older clients retry. Unlike
 * Kafka, the records are validated before the verification (an invalid batch that
 * would also fail verification gets the validation error).
 *
 * @locality loop thread. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/producers.h"
#include "broker/txn_bridge.h"
#include "proto/records.h"
#include "proto_msgs.h"

typedef gr_ProduceResponse_PartitionProduceResponse_t part_resp_t;

struct produce_ctx;

/* One partition waiting for its fsync (acks=-1). */
typedef struct produce_wait {
    struct produce_ctx *ctx;
    part_resp_t *pr; /* in the request arena: only touched while ctx->req is set */
    gr_partition_t *p;
    int64_t offset; /* durable up to (exclusive) */
} produce_wait_t;

/* A transactional batch waiting for the coordinator's verification. */
typedef struct produce_verify {
    struct produce_ctx *ctx;
    gr_partition_t *p; /* pinned while waiting */
    part_resp_t *pr;
    gr_produce_validate_result_t res;
    bool log_append_time;
    gr_err_t err;
} produce_verify_t;

/* State of a request that waits: for verifications (transactional batches) and
 * for fsyncs (acks=-1). Heap-allocated apart from the request because a cancelled
 * request (client gone, shutdown) is freed while its callbacks are still to come;
 * the last of them frees this. */
typedef struct produce_ctx {
    gr_req_t *req; /* NULL once answered */
    gr_ProduceResponse_t *resp;
    int64_t now_ms;   /* wall clock: timestamp bounds and LogAppendTime */
    bool any_error;   /* some partition failed (acks=0 closes the connection) */
    bool dispatching; /* verifications still being started */
    bool parked;
    int32_t pending; /* fsyncs not completed */
    int32_t n_verify, verify_pending;
    produce_verify_t *verify; /* n_verify entries (after waits[]) */
    int32_t n_waits;
    produce_wait_t waits[];
} produce_ctx_t;

/* What one request needs while its partitions are processed. */
typedef struct produce_run {
    gr_req_t *req;
    const gr_ProduceRequest_t *rq;
    produce_ctx_t *ctx;
} produce_run_t;

static void part_error(part_resp_t *pr, gr_err_t err) {
    pr->ErrorCode = (int16_t)err;
    pr->BaseOffset = -1;
    pr->LogAppendTimeMs = -1;
    pr->LogStartOffset = -1;
}

/* ---------------------------------------------------------------- validation */

static void validate_opts(produce_run_t *run, const gr_meta_topic_t *mt, gr_partition_t *p,
                          gr_produce_validate_opts_t *o) {
    gr_meta_t *meta = run->req->b->meta;
    char buf[128];
    gr_produce_validate_opts_init(o, run->ctx->now_ms);
    o->produce_version = run->req->hdr.api_version;
    int64_t mmb = gr_meta_topic_config_i64(meta, mt, "max.message.bytes");
    o->max_message_bytes = (int32_t)(mmb < 0 ? 0 : mmb > INT32_MAX ? INT32_MAX : mmb);
    const char *tt = gr_meta_topic_config(meta, mt, "message.timestamp.type", buf, sizeof(buf));
    o->timestamp_type = tt && !strcmp(tt, "LogAppendTime") ? GR_TIMESTAMP_LOG_APPEND_TIME : GR_TIMESTAMP_CREATE_TIME;
    o->timestamp_before_max_ms = gr_meta_topic_config_i64(meta, mt, "message.timestamp.before.max.ms");
    o->timestamp_after_max_ms = gr_meta_topic_config_i64(meta, mt, "message.timestamp.after.max.ms");
    const char *cp = gr_meta_topic_config(meta, mt, "cleanup.policy", buf, sizeof(buf));
    o->compacted = cp && strstr(cp, "compact") != NULL;
    o->topic_partition = gr_arena_sprintf(&run->req->arena, "%s-%d", p->topic, p->index);
    o->arena = &run->req->arena;
}

/* Kafka puts ErrorMessage and RecordErrors on the wire only for record-level
 * errors (RecordValidationException); those also carry the log start offset. */
static void validation_error(produce_run_t *run, gr_partition_t *p, const gr_produce_validate_result_t *res,
                             part_resp_t *pr) {
    part_error(pr, res->err);
    if (!res->message_on_wire) return;
    pr->LogStartOffset = gr_plog_start_offset(p->plog);
    pr->ErrorMessage = gr_req_msg(run->req, "%s", res->message);
    if (res->n_record_errors == 0) return;
    int32_t n = (int32_t)res->n_record_errors;
    pr->RecordErrors.v = gr_req_alloc(run->req, &gr_ProduceResponse_BatchIndexAndErrorMessage_sd, n);
    pr->RecordErrors.n = n;
    for (int32_t i = 0; i < n; i++) {
        pr->RecordErrors.v[i].BatchIndex = res->record_errors[i].batch_index;
        pr->RecordErrors.v[i].BatchIndexErrorMessage = gr_str_c(res->record_errors[i].message);
    }
}

/* Transactional records in a request without a transactional id: Kafka refuses
 * the whole request (TRANSACTIONAL_ID_AUTHORIZATION_FAILED). Only the first
 * batch of each partition is looked at, as Kafka's hasTransactionalRecords. */
static bool has_transactional_records(const gr_ProduceRequest_t *rq) {
    for (int32_t t = 0; t < rq->TopicData.n; t++) {
        const gr_ProduceRequest_TopicProduceData_t *td = &rq->TopicData.v[t];
        for (int32_t i = 0; i < td->PartitionData.n; i++) {
            const gr_bytes_t *r = &td->PartitionData.v[i].Records;
            if (r->len <= 0 || !r->ptr) continue;
            gr_batch_iter_t it;
            gr_batch_view_t bv;
            gr_batch_iter_init(&it, r->ptr, (size_t)r->len);
            if (gr_batch_iter_next(&it, &bv, NULL, 0) == GR_ERR_NONE && bv.has_header &&
                (bv.attributes & GR_BATCH_ATTR_TRANSACTIONAL))
                return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- append */

static void wait_durable(produce_run_t *run, gr_partition_t *p, part_resp_t *pr, int64_t offset) {
    produce_ctx_t *ctx = run->ctx;
    if (run->rq->Acks != -1) return;
    ctx->waits[ctx->n_waits++] = (produce_wait_t){ctx, pr, p, offset};
}

/* Kafka answers a duplicate with the stored batch's maxTimestamp as
 * LogAppendTimeMs (whatever the timestamp type); read it back from the log. */
static int64_t stored_max_timestamp(gr_partition_t *p, int64_t offset) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_plog_slice_t sl;
    char errstr[128];
    int64_t ts = -1;
    if (!gr_plog_read_copy(p->plog, offset, 1, gr_plog_end_offset(p->plog), &wb, &sl, errstr, sizeof(errstr)) &&
        sl.len >= GR_RECORD_BATCH_OVERHEAD && wb.len >= GR_RECORD_BATCH_OVERHEAD)
        ts = (int64_t)gr_be64(wb.mem + 35);
    gr_wbuf_free(&wb);
    return ts;
}

/* A retried batch already in the log: answer with its original offsets. */
static bool check_producer(produce_run_t *run, gr_partition_t *p, const gr_batch_view_t *bv, part_resp_t *pr) {
    if (bv->producer_id < 0) return true;
    gr_producer_check_t chk;
    gr_producers_check(p->producers, bv->producer_id, bv->producer_epoch, bv->base_sequence, bv->last_offset_delta + 1,
                       (bv->attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0, &chk);
    if (chk.err) {
        part_error(pr, chk.err);
        pr->LogStartOffset = gr_plog_start_offset(p->plog);
        if (chk.err == GR_ERR_NOT_ENOUGH_REPLICAS) { /* the producer-state cap: gregord only, say why */
            pr->ErrorMessage = gr_req_msg(run->req, "%s", chk.msg);
            GR_LOG_LIMITED(GR_LOG_WARN, "produce", "%s-%d: %s", p->topic, p->index, chk.msg);
        }
        return false;
    }
    if (chk.duplicate) {
        pr->ErrorCode = GR_ERR_NONE;
        pr->BaseOffset = chk.dup_base_offset;
        pr->LogAppendTimeMs = stored_max_timestamp(p, chk.dup_base_offset);
        pr->LogStartOffset = gr_plog_start_offset(p->plog);
        /* The original may still be waiting for its fsync. */
        wait_durable(run, p, pr, chk.dup_last_offset + 1);
        return false;
    }
    return true;
}

/* Note the appended batch in the producer state; a new producer id may evict the least
 * recently used one (gregor.producer.state.max.producers), which the log says at a
 * bounded rate. */
static void record_producer(gr_partition_t *p, const gr_batch_view_t *bv, const gr_plog_append_result_t *ar,
                            int64_t max_timestamp) {
    uint64_t ev0, ev1, refused;
    gr_producers_counters(p->producers, &ev0, &refused);
    gr_producers_record(p->producers, bv->producer_id, bv->producer_epoch, bv->base_sequence, bv->last_offset_delta + 1,
                        ar->base_offset, ar->last_offset, max_timestamp,
                        (bv->attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0, gr_clock_wall_ms());
    gr_producers_counters(p->producers, &ev1, &refused);
    if (ev1 > ev0)
        GR_LOG_LIMITED(GR_LOG_WARN, "produce",
                       "%s-%d: producer %lld is new and the partition already tracks "
                       "gregor.producer.state.max.producers=%zu producers: the least recently used one was "
                       "forgotten (%llu so far); its next batch is accepted as after producer.id.expiration.ms",
                       p->topic, p->index, (long long)bv->producer_id, gr_producers_max(p->producers),
                       (unsigned long long)ev1);
}

static void append_batch(produce_run_t *run, gr_partition_t *p, const gr_produce_validate_result_t *res,
                         bool log_append_time, part_resp_t *pr) {
    uint8_t *batch = (uint8_t *)res->batch.data; /* points into our own frame */
    if (!log_append_time)
        gr_records_set_max_timestamp(batch, res->valid_bytes, GR_TIMESTAMP_CREATE_TIME, res->max_timestamp);
    gr_plog_append_opts_t ao = {.now_ms = run->ctx->now_ms,
                                .set_leader_epoch = true,
                                .leader_epoch = p->leader_epoch,
                                .log_append_time = log_append_time};
    gr_plog_append_result_t ar;
    char errstr[256];
    gr_err_t err = gr_plog_append(p->plog, batch, res->valid_bytes, &ao, &ar, errstr, sizeof(errstr));
    if (err) {
        /* Disk full: nothing was appended and the log stays online; the client
         * retries (56 is retriable) and succeeds once there is space again. The
         * storage layer logs each episode once; here only a real I/O error counts. */
        if (gr_plog_offline(p->plog)) {
            GR_ERROR("produce", "append to %s-%d failed: %s; partition offline until restart", p->topic, p->index,
                     errstr);
            p->offline = true;
        } else {
            GR_DEBUG("produce", "append to %s-%d failed: %s", p->topic, p->index, errstr);
        }
        part_error(pr, err);
        return;
    }
    const gr_batch_view_t *bv = &res->batch;
    if (bv->producer_id >= 0) record_producer(p, bv, &ar, res->max_timestamp);
    gr_partition_appended(p, res->valid_bytes);
    GR_METRIC(p->bytes_in += res->valid_bytes);
    GR_METRIC(p->records_in += (uint64_t)(ar.last_offset - ar.base_offset + 1));
    pr->ErrorCode = GR_ERR_NONE;
    pr->BaseOffset = ar.base_offset;
    pr->LogAppendTimeMs = ar.log_append_time_ms;
    pr->LogStartOffset = ar.log_start_offset;
    wait_durable(run, p, pr, ar.last_offset + 1);
    gr_partition_notify(p);
}

/* ---------------------------------------------------------------- verification */

static void verified(void *arg, gr_err_t err);

static void verify_start(produce_run_t *run, gr_partition_t *p, const gr_produce_validate_result_t *res,
                         bool log_append_time, part_resp_t *pr) {
    produce_ctx_t *ctx = run->ctx;
    produce_verify_t *v = &ctx->verify[ctx->n_verify++];
    *v = (produce_verify_t){.ctx = ctx, .p = p, .pr = pr, .res = *res, .log_append_time = log_append_time};
    gr_partition_pin(p);
    ctx->verify_pending++;
    pr->ErrorCode = GR_ERR_NONE; /* answered once verified */
    gr_txn_coord_verify(run->req->b, run->rq->TransactionalId, res->batch.producer_id, res->batch.producer_epoch,
                        p->topic, p->index, run->req->hdr.api_version, verified, v);
}

/* ReplicaManager's translation of the coordinator's verification errors. */
static void verify_error(produce_run_t *run, part_resp_t *pr, gr_err_t err) {
    switch (err) {
    case GR_ERR_INVALID_TXN_STATE:
        part_error(pr, err);
        pr->ErrorMessage = GR_STR("Partition was not added to the transaction");
        return;
    case GR_ERR_CONCURRENT_TRANSACTIONS:
    case GR_ERR_NETWORK_EXCEPTION:
    case GR_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case GR_ERR_COORDINATOR_NOT_AVAILABLE:
    case GR_ERR_NOT_COORDINATOR:
        part_error(pr, GR_ERR_NOT_ENOUGH_REPLICAS);
        pr->ErrorMessage = gr_req_msg(run->req,
                                      "Unable to verify the partition has been added to the transaction. "
                                      "Underlying error: %s",
                                      gr_err_name(err));
        return;
    default: part_error(pr, err); return;
    }
}

/* Every verification answered: append what was verified. */
static void verify_finish(produce_run_t *run) {
    produce_ctx_t *ctx = run->ctx;
    for (int32_t i = 0; i < ctx->n_verify; i++) {
        produce_verify_t *v = &ctx->verify[i];
        gr_partition_t *p = v->p;
        gr_partition_unpin(p);
        if (!run->req) continue;
        if (v->err)
            verify_error(run, v->pr, v->err);
        else if (p->deleted)
            part_error(v->pr, GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
        else if (p->offline || gr_plog_offline(p->plog))
            part_error(v->pr, GR_ERR_KAFKA_STORAGE_ERROR);
        else if (gr_partition_txn_ready(p))
            part_error(v->pr, GR_ERR_KAFKA_STORAGE_ERROR);
        else if (check_producer(run, p, &v->res.batch, v->pr))
            append_batch(run, p, &v->res, v->log_append_time, v->pr);
        if (v->pr->ErrorCode) ctx->any_error = true;
    }
}

static void produce_partition(produce_run_t *run, const gr_meta_topic_t *mt, gr_partition_t *p,
                              const gr_bytes_t *records, part_resp_t *pr) {
    if (p->offline || gr_plog_offline(p->plog)) {
        part_error(pr, GR_ERR_KAFKA_STORAGE_ERROR);
        return;
    }
    gr_produce_validate_opts_t o;
    validate_opts(run, mt, p, &o);
    gr_produce_validate_result_t res;
    size_t len = records->len > 0 && records->ptr ? (size_t)records->len : 0;
    gr_records_validate_produce(len ? records->ptr : (const void *)"", len, &o, &res);
    if (res.err) {
        validation_error(run, p, &res, pr);
        return;
    }
    if ((res.batch.attributes & GR_BATCH_ATTR_TRANSACTIONAL) && !gr_str_is_null(run->rq->TransactionalId)) {
        verify_start(run, p, &res, o.timestamp_type == GR_TIMESTAMP_LOG_APPEND_TIME, pr);
        return;
    }
    if (!check_producer(run, p, &res.batch, pr)) return;
    append_batch(run, p, &res, o.timestamp_type == GR_TIMESTAMP_LOG_APPEND_TIME, pr);
}

/* ---------------------------------------------------------------- request */

static void produce_topic(produce_run_t *run, const gr_ProduceRequest_TopicProduceData_t *td,
                          gr_ProduceResponse_TopicProduceResponse_t *tr, gr_err_t whole_err) {
    gr_req_t *req = run->req;
    bool by_id = req->hdr.api_version >= 13;
    const gr_meta_topic_t *mt = by_id ? gr_meta_topic_find_id(req->b->meta, &td->TopicId)
                                      : gr_meta_topic_find(req->b->meta, gr_req_cstr(req, td->Name));
    tr->Name = td->Name;
    tr->TopicId = td->TopicId;
    /* WRITE on the topic, checked by name (a v13 id resolves to its name first). */
    gr_err_t topic_err = by_id ? (mt ? gr_req_authz(req, GR_AZ_PRODUCE, mt->name) : GR_ERR_NONE)
                               : gr_req_authz_s(req, GR_AZ_PRODUCE, td->Name);
    int32_t n = td->PartitionData.n > 0 ? td->PartitionData.n : 0;
    tr->PartitionResponses.v = gr_req_alloc(req, &gr_ProduceResponse_PartitionProduceResponse_sd, n);
    tr->PartitionResponses.n = n;
    for (int32_t i = 0; i < n; i++) {
        const gr_ProduceRequest_PartitionProduceData_t *pd = &td->PartitionData.v[i];
        part_resp_t *pr = &tr->PartitionResponses.v[i];
        pr->Index = pd->Index;
        gr_partition_t *p = mt ? gr_parts_find(req->b->parts, mt->name, pd->Index) : NULL;
        if (whole_err)
            part_error(pr, whole_err);
        else if (!mt && by_id)
            part_error(pr, GR_ERR_UNKNOWN_TOPIC_ID);
        else if (topic_err)
            part_error(pr, topic_err);
        else if (!p)
            part_error(pr, GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
        else if (run->rq->Acks != 0 && run->rq->Acks != 1 && run->rq->Acks != -1)
            part_error(pr, GR_ERR_INVALID_REQUIRED_ACKS);
        else
            produce_partition(run, mt, p, &pd->Records, pr);
        if (pr->ErrorCode) run->ctx->any_error = true;
    }
}

static int32_t count_partitions(const gr_ProduceRequest_t *rq) {
    int64_t n = 0;
    for (int32_t t = 0; t < rq->TopicData.n; t++)
        if (rq->TopicData.v[t].PartitionData.n > 0) n += rq->TopicData.v[t].PartitionData.n;
    return (int32_t)(n > INT32_MAX ? INT32_MAX : n); /* bounded by the frame size anyway */
}

static void ctx_maybe_free(produce_ctx_t *ctx) {
    if (!ctx->req && ctx->pending == 0 && ctx->verify_pending == 0) free(ctx);
}

static void produce_answer(produce_ctx_t *ctx) {
    gr_req_t *req = ctx->req;
    ctx->req = NULL;
    if (ctx->parked) gr_broker_unpark(req->b, req);
    ctx->parked = false;
    gr_req_respond(req, ctx->resp);
}

static void produce_flushed(void *arg, gr_err_t err) {
    produce_wait_t *w = arg;
    produce_ctx_t *ctx = w->ctx;
    if (err) {
        /* The fsync policy (docs/storage.md): the log is offline until restart. */
        if (!w->p->offline)
            GR_ERROR("produce", "fsync of %s-%d failed; partition offline until restart", w->p->topic, w->p->index);
        w->p->offline = true;
        if (ctx->req) part_error(w->pr, GR_ERR_KAFKA_STORAGE_ERROR);
    }
    if (--ctx->pending > 0) return;
    if (ctx->req) produce_answer(ctx);
    ctx_maybe_free(ctx);
}

/* Client gone or shutdown: answer now (the answer is dropped); the verifications
 * and flush completions still to come only count down and free the context. */
static void produce_cancel(gr_req_t *req) {
    produce_ctx_t *ctx = req->park;
    for (int32_t i = 0; i < ctx->n_waits; i++) part_error(ctx->waits[i].pr, GR_ERR_REQUEST_TIMED_OUT);
    produce_answer(ctx);
}

static void park(produce_ctx_t *ctx) {
    if (ctx->parked) return;
    ctx->req->park = ctx;
    gr_broker_park(ctx->req->b, ctx->req, produce_cancel);
    ctx->parked = true;
}

/* acks=-1: queue a sync for every appended partition, answer when all are durable. */
static void produce_wait_flushes(produce_ctx_t *ctx) {
    if (ctx->n_waits == 0) {
        produce_answer(ctx);
        return;
    }
    ctx->pending = ctx->n_waits;
    park(ctx);
    /* The sync queue pins each partition until its waiter completes. */
    for (int32_t i = 0; i < ctx->n_waits; i++)
        gr_sync_queue_add(ctx->req->b->syncq, ctx->waits[i].p, ctx->waits[i].offset, produce_flushed, &ctx->waits[i]);
}

/* Every partition appended (or failed): answer as acks asks. */
static void produce_complete(produce_ctx_t *ctx) {
    gr_req_t *req = ctx->req;
    const gr_ProduceRequest_t *rq = req->body;
    if (rq->Acks == 0) {
        /* No response is expected; on any error Kafka closes the connection so
         * that the producer notices and refreshes its metadata. */
        ctx->req = NULL;
        if (ctx->parked) gr_broker_unpark(req->b, req);
        ctx->parked = false;
        if (ctx->any_error) {
            GR_INFO("produce", "closing connection from %s: error in an acks=0 produce (correlation id %d)",
                    gr_conn_peer(req->conn), req->hdr.correlation_id);
            gr_conn_close(req->conn);
        }
        gr_req_respond_none(req);
    } else if (rq->Acks == -1) {
        produce_wait_flushes(ctx);
    } else {
        produce_answer(ctx);
    }
}

static void verified(void *arg, gr_err_t err) {
    produce_verify_t *v = arg;
    produce_ctx_t *ctx = v->ctx;
    v->err = err;
    if (--ctx->verify_pending > 0 || ctx->dispatching) return;
    produce_run_t run = {.req = ctx->req, .rq = ctx->req ? ctx->req->body : NULL, .ctx = ctx};
    verify_finish(&run);
    if (ctx->req) produce_complete(ctx);
    ctx_maybe_free(ctx);
}

void gr_h_produce(gr_req_t *req) {
    const gr_ProduceRequest_t *rq = req->body;
    int32_t n = count_partitions(rq);
    bool txn = !gr_str_is_null(rq->TransactionalId);
    size_t waits = (size_t)n * sizeof(produce_wait_t), verifies = txn ? (size_t)n * sizeof(produce_verify_t) : 0;
    produce_ctx_t *ctx = calloc(1, sizeof(produce_ctx_t) + waits + verifies);
    if (!ctx) abort();
    ctx->req = req;
    ctx->resp = gr_req_resp_new(req);
    ctx->now_ms = gr_clock_wall_ms();
    ctx->verify = txn ? (produce_verify_t *)((char *)ctx->waits + waits) : NULL;
    ctx->dispatching = true;
    produce_run_t run = {.req = req, .rq = rq, .ctx = ctx};
    gr_err_t whole = GR_ERR_NONE;
    if (has_transactional_records(rq))
        whole = !txn ? GR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                     : gr_req_authz_s(req, GR_AZ_PRODUCE_TXN, rq->TransactionalId);
    gr_ProduceResponse_t *resp = ctx->resp;
    int32_t nt = rq->TopicData.n > 0 ? rq->TopicData.n : 0;
    resp->Responses.v = gr_req_alloc(req, &gr_ProduceResponse_TopicProduceResponse_sd, nt);
    resp->Responses.n = nt;
    for (int32_t t = 0; t < nt; t++) produce_topic(&run, &rq->TopicData.v[t], &resp->Responses.v[t], whole);
    ctx->dispatching = false;
    if (ctx->verify_pending > 0) {
        park(ctx); /* verified() goes on */
        return;
    }
    if (ctx->n_verify > 0) verify_finish(&run);
    produce_complete(ctx);
    ctx_maybe_free(ctx);
}
