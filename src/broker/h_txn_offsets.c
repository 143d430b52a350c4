/* TxnOffsetCommit (28), v0-6: offsets committed inside a transaction. As in Apache
 * Kafka 4.4.0, the transaction must hold the group's offsets partition (AddOffsetsToTxn;
 * from v5, transaction version 2, the commit adds it itself); the offsets stay pending
 * for the producer until the transaction's marker commits or drops them
 * (cgroup/cgroup.h, cgroup_coord.c). They are durable in the group store before the
 * answer. */
#include <string.h>

#include "base/clock.h"
#include "broker/cgroup_coord.h"
#include "broker/handlers.h"
#include "broker/txn_coord.h"
#include "proto_msgs.h"

typedef gr_TxnOffsetCommitRequest_TxnOffsetCommitRequestTopic_t tq_topic_t;
typedef gr_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_t tr_topic_t;

typedef struct toc {
    gr_req_t *req;
    gr_TxnOffsetCommitResponse_t *resp;
    char **names; /* per request topic: its name (NULL: not committed, the row has its error) */
} toc_t;

static void set_all(toc_t *c, int16_t err, bool only_valid) {
    for (int32_t i = 0; i < c->resp->Topics.n; i++) {
        if (only_valid && !c->names[i]) continue;
        tr_topic_t *t = &c->resp->Topics.v[i];
        for (int32_t k = 0; k < t->Partitions.n; k++)
            if (!only_valid || t->Partitions.v[k].ErrorCode == 0) t->Partitions.v[k].ErrorCode = err;
    }
}

static void written(void *arg, gr_err_t err) {
    toc_t *c = arg;
    if (err)
        set_all(c, err == GR_ERR_KAFKA_STORAGE_ERROR ? GR_ERR_NOT_COORDINATOR : GR_ERR_COORDINATOR_NOT_AVAILABLE, true);
    gr_req_respond(c->req, c->resp);
}

/* The transaction holds the offsets partition: group checks, then the pending offsets. */
static void commit_pending(toc_t *c) {
    gr_req_t *req = c->req;
    gr_broker_t *b = req->b;
    gr_TxnOffsetCommitRequest_t *q = req->body;
    const char *gid = gr_req_cstr(req, q->GroupId);
    const char *member = gr_req_cstr(req, q->MemberId);
    const char *inst = gr_str_is_null(q->GroupInstanceId) ? NULL : gr_req_cstr(req, q->GroupInstanceId);
    int64_t now = gr_clock_wall_ms();
    bool created;
    int16_t e = gr_cg_txn_commit_check(b->cgroup->reg, gid, member, inst, q->GenerationIdOrMemberEpoch, now, &created);
    if (e) {
        set_all(c, e, true);
        gr_req_respond(req, c->resp);
        return;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < q->Topics.n; i++) {
        if (!c->names[i]) continue;
        tr_topic_t *rt = &c->resp->Topics.v[i];
        for (int32_t k = 0; k < rt->Partitions.n; k++) {
            const gr_TxnOffsetCommitRequest_TxnOffsetCommitRequestPartition_t *p = &q->Topics.v[i].Partitions.v[k];
            if (rt->Partitions.v[k].ErrorCode) continue;
            if (!gr_str_is_null(p->CommittedMetadata) && p->CommittedMetadata.len > b->cgroup->metadata_max_bytes) {
                rt->Partitions.v[k].ErrorCode = GR_ERR_OFFSET_METADATA_TOO_LARGE;
                continue;
            }
            gr_cg_offset_t o = {p->CommittedOffset, p->CommittedLeaderEpoch, gr_req_cstr(req, p->CommittedMetadata),
                                now, -1};
            gr_cgroup_txn_offset_record(b, gid, q->ProducerId, c->names[i], p->PartitionIndex, &o);
            gr_cg_txn_put(b->cgroup->reg, gid, q->ProducerId, c->names[i], p->PartitionIndex, &o);
            n++;
        }
    }
    if (!n) {
        gr_req_respond(req, c->resp);
        return;
    }
    gr_err_t err = gr_cstore_commit(b->cgroup->store, written, c);
    if (err) written(c, err);
}

/* The transaction coordinator's answer (AddPartitionsToTxnManager's mapping). */
static void txn_checked(void *arg, gr_err_t err) {
    toc_t *c = arg;
    int16_t v = c->req->hdr.api_version;
    if (err == GR_ERR_PRODUCER_FENCED)
        err = GR_ERR_INVALID_PRODUCER_EPOCH;
    else if (err == GR_ERR_TRANSACTION_ABORTABLE && v < 4)
        err = GR_ERR_INVALID_TXN_STATE;
    if (err) {
        set_all(c, (int16_t)err, true);
        gr_req_respond(c->req, c->resp);
        return;
    }
    commit_pending(c);
}

/* Response rows and the per-topic checks of KafkaApis: READ on the topic, the topic
 * and partition must exist. Returns how many topics go on. */
static int32_t check_topics(gr_req_t *req, toc_t *c) {
    gr_TxnOffsetCommitRequest_t *q = req->body;
    int32_t nt = q->Topics.n > 0 ? q->Topics.n : 0, valid = 0;
    c->resp->Topics.v = gr_req_alloc(req, &gr_TxnOffsetCommitResponse_TxnOffsetCommitResponseTopic_sd, nt);
    c->resp->Topics.n = nt;
    c->names = gr_arena_alloc(&req->arena, (size_t)(nt ? nt : 1) * sizeof(char *));
    for (int32_t i = 0; i < nt; i++) {
        const tq_topic_t *qt = &q->Topics.v[i];
        tr_topic_t *rt = &c->resp->Topics.v[i];
        const gr_meta_topic_t *t = req->hdr.api_version >= 6
                                       ? gr_meta_topic_find_id(req->b->meta, &qt->TopicId)
                                       : gr_meta_topic_find(req->b->meta, gr_req_cstr(req, qt->Name));
        rt->Name = qt->Name;
        rt->TopicId = qt->TopicId;
        int32_t np = qt->Partitions.n > 0 ? qt->Partitions.n : 0;
        rt->Partitions.v = gr_req_alloc(req, &gr_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_sd, np);
        rt->Partitions.n = np;
        int16_t terr = 0;
        if (req->hdr.api_version >= 6 && !t)
            terr = GR_ERR_UNKNOWN_TOPIC_ID;
        else if (!gr_req_allowed(req, GR_AZ_TXN_OFFSET_COMMIT_TOPIC, t ? t->name : gr_req_cstr(req, qt->Name)))
            terr = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
        else if (!t)
            terr = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        bool any = false;
        for (int32_t k = 0; k < np; k++) {
            int32_t part = qt->Partitions.v[k].PartitionIndex;
            int16_t e = terr ? terr : part < 0 || part >= t->partitions ? GR_ERR_UNKNOWN_TOPIC_OR_PARTITION : 0;
            rt->Partitions.v[k] =
                (gr_TxnOffsetCommitResponse_TxnOffsetCommitResponsePartition_t){.PartitionIndex = part, .ErrorCode = e};
            any = any || !e;
        }
        c->names[i] = any ? gr_arena_strndup(&req->arena, t->name, strlen(t->name)) : NULL;
        valid += any;
    }
    return valid;
}

void gr_h_txn_offset_commit(gr_req_t *req) {
    gr_TxnOffsetCommitRequest_t *q = req->body;
    toc_t *c = gr_arena_alloc(&req->arena, sizeof(*c));
    *c = (toc_t){req, gr_req_resp_new(req), NULL};
    gr_err_t denied = gr_req_authz_s(req, GR_AZ_TXN_OFFSET_COMMIT_TXN, q->TransactionalId);
    if (!denied) denied = gr_req_authz_s(req, GR_AZ_TXN_OFFSET_COMMIT_GROUP, q->GroupId);
    int32_t valid = check_topics(req, c);
    if (denied) {
        set_all(c, (int16_t)denied, false);
        gr_req_respond(req, c->resp);
        return;
    }
    if (!valid) {
        gr_req_respond(req, c->resp);
        return;
    }
    if (gr_str_is_null(q->GroupId) || q->GroupId.len == 0) {
        set_all(c, GR_ERR_INVALID_GROUP_ID, true);
        gr_req_respond(req, c->resp);
        return;
    }
    gr_broker_t *b = req->b;
    int32_t part = gr_txn_coord_offsets_partition(b, gr_req_cstr(req, q->GroupId));
    gr_txn_coord_check(b, q->TransactionalId, q->ProducerId, q->ProducerEpoch, GR_TXN_OFFSETS_TOPIC, part,
                       req->hdr.api_version >= 5, txn_checked, c);
}
