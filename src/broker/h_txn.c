/* Transaction coordinator APIs: AddPartitionsToTxn (24; v0-3 from clients, v4+ the
 * broker-to-broker batched form with verifyOnly), AddOffsetsToTxn (25) and EndTxn (26),
 * as Apache Kafka 4.4.0's KafkaApis and TransactionCoordinator answer them.
 * The state machine is txn/txn.h; writes and markers are txn_coord.h's. */
#include <string.h>

#include "base/clock.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/txn_coord.h"
#include "proto_msgs.h"

typedef gr_AddPartitionsToTxnRequest_AddPartitionsToTxnTopic_t apt_topic_t;
typedef gr_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_t apt_result_t;
typedef gr_AddPartitionsToTxnResponse_AddPartitionsToTxnPartitionResult_t apt_part_t;

static gr_txn_t *find_txn(gr_broker_t *b, gr_str_t id) {
    return gr_str_is_null(id) || id.len == 0 ? NULL : gr_txn_find(&b->txn->reg, id.ptr, (size_t)id.len);
}

/* Result rows mirroring the request's topics and partitions, every error = err. */
static apt_result_t *results_new(gr_req_t *req, const apt_topic_t *topics, int32_t n, int16_t err) {
    apt_result_t *r = gr_req_alloc(req, &gr_AddPartitionsToTxnResponse_AddPartitionsToTxnTopicResult_sd, n);
    for (int32_t i = 0; i < n; i++) {
        r[i].Name = topics[i].Name;
        int32_t np = topics[i].Partitions.n > 0 ? topics[i].Partitions.n : 0;
        r[i].ResultsByPartition.v =
            gr_req_alloc(req, &gr_AddPartitionsToTxnResponse_AddPartitionsToTxnPartitionResult_sd, np);
        r[i].ResultsByPartition.n = np;
        for (int32_t k = 0; k < np; k++)
            r[i].ResultsByPartition.v[k] =
                (apt_part_t){.PartitionIndex = topics[i].Partitions.v[k], .PartitionErrorCode = err};
    }
    return r;
}

static void results_set(apt_result_t *r, int32_t n, int16_t err) {
    for (int32_t i = 0; i < n; i++)
        for (int32_t k = 0; k < r[i].ResultsByPartition.n; k++) r[i].ResultsByPartition.v[k].PartitionErrorCode = err;
}

/* One request, several transactions (v4+): the answer goes once every one is done. */
typedef struct apt_req {
    gr_req_t *req;
    gr_AddPartitionsToTxnResponse_t *resp;
    int32_t left;
} apt_req_t;

typedef struct apt_one {
    apt_req_t *all;
    apt_result_t *r;
    int32_t n;
} apt_one_t;

static void apt_release(apt_req_t *a) {
    if (--a->left == 0) gr_req_respond(a->req, a->resp);
}

static void apt_added(void *arg, gr_err_t err) {
    apt_one_t *o = arg;
    if (o->all->req->hdr.api_version < 2 && err == GR_ERR_PRODUCER_FENCED) err = GR_ERR_INVALID_PRODUCER_EPOCH;
    results_set(o->r, o->n, (int16_t)err);
    apt_release(o->all);
}

/* v0-3: WRITE on each topic (internal topics never), and the topic must exist; any
 * failure fails the whole transaction's add, the rest OPERATION_NOT_ATTEMPTED. */
static bool check_topics(gr_req_t *req, apt_result_t *r, int32_t n, bool client) {
    bool ok = true;
    for (int32_t i = 0; i < n; i++) {
        char *name = gr_req_cstr(req, r[i].Name);
        const gr_meta_topic_t *t = gr_meta_topic_find(req->b->meta, name);
        bool internal = !strcmp(name, GR_TXN_OFFSETS_TOPIC) || !strcmp(name, "__transaction_state");
        bool authorized = !client || (!internal && gr_req_allowed(req, GR_AZ_ADD_PARTITIONS_TOPIC, name));
        for (int32_t k = 0; k < r[i].ResultsByPartition.n; k++) {
            apt_part_t *p = &r[i].ResultsByPartition.v[k];
            int16_t e = !authorized ? GR_ERR_TOPIC_AUTHORIZATION_FAILED
                        : !t || p->PartitionIndex < 0 || p->PartitionIndex >= t->partitions
                            ? GR_ERR_UNKNOWN_TOPIC_OR_PARTITION
                            : 0;
            p->PartitionErrorCode = e ? e : GR_ERR_OPERATION_NOT_ATTEMPTED;
            if (e) ok = false;
        }
    }
    return ok;
}

static void apt_one(gr_req_t *req, apt_req_t *all, gr_str_t id, int64_t pid, int16_t epoch, bool verify_only,
                    const apt_topic_t *topics, int32_t n, apt_result_t **out) {
    gr_broker_t *b = req->b;
    bool client = req->hdr.api_version < 4;
    apt_result_t *r = results_new(req, topics, n, 0);
    *out = r;
    if (client && gr_req_authz_s(req, GR_AZ_ADD_PARTITIONS_TXN, id)) {
        results_set(r, n, GR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        return;
    }
    if (gr_str_is_null(id) || id.len == 0) {
        results_set(r, n, GR_ERR_INVALID_REQUEST);
        return;
    }
    if (!check_topics(req, r, n, client)) return;
    gr_txn_t *t = find_txn(b, id);
    int32_t total = 0;
    for (int32_t i = 0; i < n; i++) total += r[i].ResultsByPartition.n;
    gr_txn_tpart_t *parts = gr_arena_alloc(&req->arena, (size_t)(total ? total : 1) * sizeof(*parts));
    int32_t np = 0;
    for (int32_t i = 0; i < n; i++) {
        char *name = gr_req_cstr(req, r[i].Name);
        for (int32_t k = 0; k < r[i].ResultsByPartition.n; k++) {
            apt_part_t *p = &r[i].ResultsByPartition.v[k];
            parts[np++] = (gr_txn_tpart_t){name, p->PartitionIndex};
            if (verify_only) p->PartitionErrorCode = (int16_t)gr_txn_verify(t, pid, epoch, name, p->PartitionIndex);
        }
    }
    if (verify_only) return;
    int e = gr_txn_add_partitions(&b->txn->reg, t, pid, epoch, parts, np, client ? 0 : 2, gr_clock_wall_ms());
    apt_one_t *o = gr_arena_alloc(&req->arena, sizeof(*o));
    *o = (apt_one_t){all, r, n};
    all->left++;
    if (e) {
        apt_added(o, e == GR_TXN_NOOP ? GR_ERR_NONE : (gr_err_t)e);
        return;
    }
    gr_txn_coord_persist(b, t, apt_added, o);
}

void gr_h_add_partitions_to_txn(gr_req_t *req) {
    gr_AddPartitionsToTxnRequest_t *q = req->body;
    gr_AddPartitionsToTxnResponse_t *resp = gr_req_resp_new(req);
    apt_req_t *all = gr_arena_alloc(&req->arena, sizeof(*all));
    *all = (apt_req_t){req, resp, 1};
    if (req->hdr.api_version < 4) {
        apt_one(req, all, q->V3AndBelowTransactionalId, q->V3AndBelowProducerId, q->V3AndBelowProducerEpoch, false,
                q->V3AndBelowTopics.v, q->V3AndBelowTopics.n > 0 ? q->V3AndBelowTopics.n : 0,
                &resp->ResultsByTopicV3AndBelow.v);
        resp->ResultsByTopicV3AndBelow.n = q->V3AndBelowTopics.n > 0 ? q->V3AndBelowTopics.n : 0;
        apt_release(all);
        return;
    }
    /* v4+ comes from brokers (KIP-890 verification): CLUSTER_ACTION on the cluster. */
    if (gr_req_authz(req, GR_AZ_ADD_PARTITIONS_CLUSTER, NULL)) {
        resp->ErrorCode = GR_ERR_CLUSTER_AUTHORIZATION_FAILED;
        apt_release(all);
        return;
    }
    int32_t n = q->Transactions.n > 0 ? q->Transactions.n : 0;
    resp->ResultsByTransaction.v = gr_req_alloc(req, &gr_AddPartitionsToTxnResponse_AddPartitionsToTxnResult_sd, n);
    resp->ResultsByTransaction.n = n;
    for (int32_t i = 0; i < n; i++) {
        gr_AddPartitionsToTxnRequest_AddPartitionsToTxnTransaction_t *x = &q->Transactions.v[i];
        resp->ResultsByTransaction.v[i].TransactionalId = x->TransactionalId;
        resp->ResultsByTransaction.v[i].TopicResults.n = x->Topics.n > 0 ? x->Topics.n : 0;
        apt_one(req, all, x->TransactionalId, x->ProducerId, x->ProducerEpoch, x->VerifyOnly, x->Topics.v,
                x->Topics.n > 0 ? x->Topics.n : 0, &resp->ResultsByTransaction.v[i].TopicResults.v);
    }
    apt_release(all);
}

/* ------------------------------------------------------------------ AddOffsetsToTxn */

typedef struct simple_wait {
    gr_req_t *req;
    void *resp;
    int16_t *err;
    gr_txn_t *t;
} simple_wait_t;

static void offsets_added(void *arg, gr_err_t err) {
    simple_wait_t *w = arg;
    if (w->req->hdr.api_version < 2 && err == GR_ERR_PRODUCER_FENCED) err = GR_ERR_INVALID_PRODUCER_EPOCH;
    *w->err = (int16_t)err;
    gr_req_respond(w->req, w->resp);
}

void gr_h_add_offsets_to_txn(gr_req_t *req) {
    gr_AddOffsetsToTxnRequest_t *q = req->body;
    gr_AddOffsetsToTxnResponse_t *resp = gr_req_resp_new(req);
    gr_broker_t *b = req->b;
    gr_err_t denied = gr_req_authz_s(req, GR_AZ_ADD_OFFSETS_TXN, q->TransactionalId);
    if (!denied) denied = gr_req_authz_s(req, GR_AZ_ADD_OFFSETS_GROUP, q->GroupId);
    if (denied) {
        resp->ErrorCode = (int16_t)denied;
        gr_req_respond(req, resp);
        return;
    }
    if (gr_str_is_null(q->TransactionalId) || q->TransactionalId.len == 0) {
        resp->ErrorCode = GR_ERR_INVALID_REQUEST;
        gr_req_respond(req, resp);
        return;
    }
    gr_txn_t *t = find_txn(b, q->TransactionalId);
    gr_txn_tpart_t part = {GR_TXN_OFFSETS_TOPIC, gr_txn_coord_offsets_partition(b, gr_req_cstr(req, q->GroupId))};
    int e = gr_txn_add_partitions(&b->txn->reg, t, q->ProducerId, q->ProducerEpoch, &part, 1, 0, gr_clock_wall_ms());
    simple_wait_t *w = gr_arena_alloc(&req->arena, sizeof(*w));
    *w = (simple_wait_t){req, resp, &resp->ErrorCode, t};
    if (e) {
        offsets_added(w, e == GR_TXN_NOOP ? GR_ERR_NONE : (gr_err_t)e);
        return;
    }
    gr_txn_coord_persist(b, t, offsets_added, w);
}

/* ------------------------------------------------------------------ EndTxn */

static void end_written(void *arg, gr_err_t err) {
    simple_wait_t *w = arg;
    gr_EndTxnResponse_t *resp = w->resp;
    if (w->req->hdr.api_version < 2 && err == GR_ERR_PRODUCER_FENCED) err = GR_ERR_INVALID_PRODUCER_EPOCH;
    resp->ErrorCode = (int16_t)err;
    if (!err) {
        resp->ProducerId = w->t->m.pid;
        resp->ProducerEpoch = w->t->m.epoch;
    }
    gr_broker_t *b = w->req->b;
    gr_txn_t *t = w->t;
    gr_req_respond(w->req, resp);
    if (!err) gr_txn_coord_markers(b, t);
}

void gr_h_end_txn(gr_req_t *req) {
    gr_EndTxnRequest_t *q = req->body;
    gr_EndTxnResponse_t *resp = gr_req_resp_new(req);
    gr_broker_t *b = req->b;
    resp->ProducerId = -1;
    resp->ProducerEpoch = -1;
    gr_err_t denied = gr_req_authz_s(req, GR_AZ_END_TXN, q->TransactionalId);
    if (denied || gr_str_is_null(q->TransactionalId) || q->TransactionalId.len == 0) {
        resp->ErrorCode = denied ? (int16_t)denied : GR_ERR_INVALID_REQUEST;
        gr_req_respond(req, resp);
        return;
    }
    gr_txn_t *t = find_txn(b, q->TransactionalId);
    int8_t tv = req->hdr.api_version >= 5 ? 2 : 0;
    int64_t pid;
    int16_t epoch;
    int e = gr_txn_end(&b->txn->reg, t, q->ProducerId, q->ProducerEpoch, q->Committed, true, tv, gr_clock_wall_ms(),
                       &pid, &epoch);
    if (e == GR_TXN_NOOP) {
        resp->ProducerId = pid;
        resp->ProducerEpoch = epoch;
        gr_req_respond(req, resp);
        return;
    }
    if (e) {
        if (req->hdr.api_version < 2 && e == GR_ERR_PRODUCER_FENCED) e = GR_ERR_INVALID_PRODUCER_EPOCH;
        resp->ErrorCode = (int16_t)e;
        gr_req_respond(req, resp);
        return;
    }
    simple_wait_t *w = gr_arena_alloc(&req->arena, sizeof(*w));
    *w = (simple_wait_t){req, resp, &resp->ErrorCode, t};
    gr_txn_coord_persist(b, t, end_written, w);
}
