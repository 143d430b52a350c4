/* ShareAcknowledge (79), v1-2 (spec §3).
 *
 * Session (§3.2): the epoch rules of share/share_session.h (GR_SS_ACK: epoch 0
 * cannot open a session); epoch -1 applies the acks and then closes the session,
 * releasing what the member still holds. Per partition (§3.3-3.5) see gr_share_ack_partition.
 * The answer waits until every acknowledgement it reports as successful is
 * durable in the share-state store.
 *
 * @locality loop thread. */
#include <string.h>

#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/share_parts.h"
#include "broker/share_sessions.h"
#include "proto_msgs.h"

typedef gr_ShareAcknowledgeResponse_PartitionData_t part_out_t;
typedef gr_ShareAcknowledgeRequest_AcknowledgePartition_t part_in_t;

typedef struct sa_state {
    gr_req_t *req;
    gr_ShareAcknowledgeResponse_t *resp;
    const char *group, *member;
    gr_share_ackwait_t *w;
} sa_state_t;

static void sa_answer(sa_state_t *st) { gr_req_respond(st->req, st->resp); }

static void acks_durable(void *arg) {
    sa_state_t *st = arg;
    st->w = NULL;
    gr_broker_unpark(st->req->b, st->req);
    sa_answer(st);
}

static void sa_cancel(gr_req_t *req) {
    sa_state_t *st = req->park;
    if (st->w) gr_share_ackwait_detach(st->w);
    st->w = NULL;
    sa_answer(st);
}

static void ack_one(sa_state_t *st, const gr_uuid_t *topic_id, const part_in_t *pi, part_out_t *out) {
    gr_req_t *req = st->req;
    const gr_ShareAcknowledgeRequest_t *rq = req->body;
    int32_t n = pi->AcknowledgementBatches.n > 0 ? pi->AcknowledgementBatches.n : 0;
    gr_sp_ack_batch_t *bt = gr_arena_alloc(&req->arena, (size_t)(n ? n : 1) * sizeof(*bt));
    for (int32_t i = 0; i < n; i++) {
        const gr_ShareAcknowledgeRequest_AcknowledgementBatch_t *a = &pi->AcknowledgementBatches.v[i];
        bt[i] = (gr_sp_ack_batch_t){a->FirstOffset, a->LastOffset, (const int8_t *)a->AcknowledgeTypes.v,
                                    a->AcknowledgeTypes.n > 0 ? (size_t)a->AcknowledgeTypes.n : 0};
    }
    out->PartitionIndex = pi->PartitionIndex;
    char errstr[256];
    bool renew = req->hdr.api_version >= 2 && rq->IsRenewAck;
    const gr_meta_topic_t *mt = gr_meta_topic_find_id(req->b->meta, topic_id);
    gr_err_t denied = mt ? gr_req_authz(req, GR_AZ_SHARE_ACK_TOPIC, mt->name) : GR_ERR_NONE; /* READ on the topic */
    if (denied) {
        out->ErrorCode = (int16_t)denied;
        return;
    }
    gr_err_t err = gr_share_ack_partition(req->b, st->group, st->member, topic_id, pi->PartitionIndex, bt, (size_t)n,
                                          renew, st->w, &out->ErrorCode, errstr, sizeof(errstr));
    out->ErrorCode = (int16_t)err;
    if (err && errstr[0]) out->ErrorMessage = gr_req_msg(req, "%s", errstr);
}

static void apply(sa_state_t *st) {
    gr_req_t *req = st->req;
    const gr_ShareAcknowledgeRequest_t *rq = req->body;
    int32_t nt = rq->Topics.n > 0 ? rq->Topics.n : 0;
    st->resp->Responses.v = gr_req_alloc(req, &gr_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_sd, nt);
    st->resp->Responses.n = nt;
    for (int32_t t = 0; t < nt; t++) {
        const gr_ShareAcknowledgeRequest_AcknowledgeTopic_t *at = &rq->Topics.v[t];
        gr_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_t *rt = &st->resp->Responses.v[t];
        int32_t np = at->Partitions.n > 0 ? at->Partitions.n : 0;
        rt->TopicId = at->TopicId;
        rt->Partitions.v = gr_req_alloc(req, &gr_ShareAcknowledgeResponse_PartitionData_sd, np);
        rt->Partitions.n = np;
        for (int32_t i = 0; i < np; i++) ack_one(st, &at->TopicId, &at->Partitions.v[i], &rt->Partitions.v[i]);
    }
}

static gr_err_t session_step(sa_state_t *st, gr_share_session_t **out) {
    const gr_ShareAcknowledgeRequest_t *rq = st->req->body;
    /* Kafka 4.4.0 answers these top-level errors with a null ErrorMessage (share
     * divergences test, request_texts); an empty GroupId is refused here (Kafka opens a
     * share session for it, docs/compatibility.md). */
    if (rq->GroupId.len <= 0) return GR_ERR_INVALID_REQUEST;
    gr_err_t denied = gr_req_authz_s(st->req, GR_AZ_SHARE_ACK, rq->GroupId); /* READ on the group */
    if (denied) return denied;
    if (rq->MemberId.len <= 0 || rq->MemberId.len > 36) return GR_ERR_INVALID_REQUEST;
    const gr_ss_request_t sr = {GR_SS_ACK, st->group, st->member, rq->ShareSessionEpoch, false, NULL};
    return gr_share_session_step(st->req->b, &sr, out);
}

void gr_h_share_acknowledge(gr_req_t *req) {
    const gr_ShareAcknowledgeRequest_t *rq = req->body;
    sa_state_t *st = gr_arena_alloc(&req->arena, sizeof(*st));
    memset(st, 0, sizeof(*st));
    st->req = req;
    st->resp = gr_req_resp_new(req);
    st->group = gr_req_cstr(req, rq->GroupId);
    st->member = gr_req_cstr(req, rq->MemberId);
    gr_sgc_values_t vals;
    gr_share_group_values(req->b, st->group, &vals);
    st->resp->AcquisitionLockTimeoutMs = vals.record_lock_duration_ms;
    gr_share_session_t *sess = NULL;
    gr_err_t err = session_step(st, &sess);
    if (err) {
        st->resp->ErrorCode = (int16_t)err;
        sa_answer(st);
        return;
    }
    st->w = gr_share_ackwait_new(acks_durable, st);
    apply(st);
    if (gr_share_session_epoch_final(rq->ShareSessionEpoch)) gr_share_session_close(req->b, sess);
    if (gr_share_ackwait_arm(st->w)) {
        st->w = NULL;
        sa_answer(st);
        return;
    }
    req->park = st;
    gr_broker_park(req->b, req, sa_cancel);
}
