/* The share consumer's share sessions (spec §2.3, §3, §8.2): one session per
 * partition leader, at most one ShareFetch / ShareAcknowledge in flight to it.
 * Epochs go 0 (open, lists the leader's assigned partitions, never carries acks),
 * 1, 2, ... (adds partitions via Topics, removes them via ForgottenTopicsData, carries
 * piggybacked acks) and -1 (close). A lost session (SHARE_SESSION_NOT_FOUND,
 * INVALID_SHARE_SESSION_EPOCH, a broken connection) starts again at epoch 0, and the
 * acknowledgements it carried are reported failed (NETWORK_EXCEPTION), as the Java
 * client does. RENEW goes in a ShareAcknowledge with IsRenewAck (v2), which never
 * returns records, so a renewed lock is not spent waiting on a long poll. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/uuid.h"
#include "client/share_int.h"
#include "proto_msgs.h"

gr__sleader_t *gr__share_leader(gr_share_consumer_t *c, int32_t node_id) {
    for (size_t i = 0; i < c->n_leaders; i++)
        if (c->leaders[i]->node_id == node_id) return c->leaders[i];
    if (c->n_leaders == c->cap_leaders) {
        c->cap_leaders = c->cap_leaders ? c->cap_leaders * 2 : 4;
        c->leaders = realloc(c->leaders, c->cap_leaders * sizeof(*c->leaders));
        if (!c->leaders) abort();
    }
    gr__sleader_t *ld = calloc(1, sizeof(*ld));
    if (!ld) abort();
    ld->node_id = node_id;
    c->leaders[c->n_leaders++] = ld;
    return ld;
}

bool gr__share_any_inflight(gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->n_leaders; i++)
        if (c->leaders[i]->req) return true;
    return false;
}

bool gr__share_pending_acks(gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i]->pending.n) return true;
    return false;
}

static int32_t next_epoch(int32_t e) { return e == INT32_MAX ? 1 : e + 1; }

/* ---- acknowledgement outcomes ---- */

static gr_share_record_t *take_renewing(gr_share_consumer_t *c, gr__spart_t *part, int64_t off) {
    for (gr_share_record_t **pp = &c->renewing.head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        gr_share_record_t *r = *pp;
        if (r->part != part || r->offset != off) continue;
        *pp = r->next;
        if (c->renewing.tail == r) c->renewing.tail = prev;
        return r;
    }
    return NULL;
}

/* A RENEW answered: the record comes back from the next poll, or is dropped (lock lost). */
static void renew_done(gr_share_consumer_t *c, gr__spart_t *part, int64_t off, bool ok) {
    gr_share_record_t *r = take_renewing(c, part, off);
    if (r) {
        if (ok) {
            r->ack = GR__ACK_NONE;
            r->st = GR__RS_NEW;
            gr__rlist_push(&c->replay, r);
        } else {
            free(r);
        }
        return;
    }
    for (size_t i = 0; i < c->batch.n; i++) {
        gr_share_record_t *b = c->batch.v[i];
        if (b->part == part && b->offset == off && b->ack == GR_ACK_RENEW)
            b->st = ok ? GR__RS_RENEWED : GR__RS_RENEW_FAILED;
    }
}

static void finish_set(gr_share_consumer_t *c, gr__sreq_t *req, struct gr__sreq_set *set, gr_err_t err,
                       const char *msg) {
    bool visible = false;
    for (size_t i = 0; i < set->acks.n; i++) {
        visible |= set->acks.type[i] != GR__ACK_GAP;
        if (set->acks.type[i] == GR_ACK_RENEW) renew_done(c, set->part, set->acks.off[i], err == GR_ERR_NONE);
    }
    if (visible) {
        gr__result_add(&c->done, set->part, err, msg, &set->acks);
        if (req->commit_id && req->commit_id == c->commit_seq && c->commit_res)
            gr__result_add(c->commit_res, set->part, err, msg, &set->acks);
    }
    gr__acks_free(&set->acks);
    set->part = NULL;
}

static void finish_all(gr_share_consumer_t *c, gr__sreq_t *req, gr_err_t err, const char *msg) {
    for (size_t i = 0; i < req->n; i++)
        if (req->sets[i].part) finish_set(c, req, &req->sets[i], err, msg);
}

static struct gr__sreq_set *find_set(gr__sreq_t *req, const gr__spart_t *part) {
    for (size_t i = 0; i < req->n; i++)
        if (req->sets[i].part == part) return &req->sets[i];
    return NULL;
}

static void req_free(gr_share_consumer_t *c, gr__sreq_t *req) {
    if (req->commit_id && req->commit_id == c->commit_seq) c->commit_left--;
    free(req->sets);
    free(req);
}

/* The session with ld is gone: the next request opens a new one. */
static void reset_session(gr_share_consumer_t *c, gr__sleader_t *ld) {
    ld->epoch = 0;
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i]->session == ld) c->parts[i]->in_session = false;
}

/* Pending acks that cannot be sent (no session with their leader): fail them locally. */
static void fail_pending(gr_share_consumer_t *c, gr__sleader_t *ld, const char *why, uint64_t commit_id) {
    gr__sreq_t tmp = {0};
    tmp.commit_id = commit_id;
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__spart_t *part = c->parts[i];
        if (part->session != ld || !part->pending.n) continue;
        struct gr__sreq_set set = {part, part->pending};
        memset(&part->pending, 0, sizeof(part->pending));
        finish_set(c, &tmp, &set, GR_ERR_NETWORK_EXCEPTION, why);
    }
}

/* Top-level failure of a request (transport or ErrorCode): report its acks. */
static void request_failed(gr_share_consumer_t *c, gr__sreq_t *req, gr_err_t err, const char *msg) {
    gr__sleader_t *ld = req->ld;
    char why[300];
    snprintf(why, sizeof(why), "share session with broker %d lost: %s", ld->node_id,
             msg && *msg ? msg : gr_err_str(err));
    if (err == GR_ERR_SHARE_SESSION_LIMIT_REACHED) {
        reset_session(c, ld);
        finish_all(c, req, err, why);
    } else if (err < 0 || err == GR_ERR_SHARE_SESSION_NOT_FOUND || err == GR_ERR_INVALID_SHARE_SESSION_EPOCH) {
        reset_session(c, ld);
        finish_all(c, req, GR_ERR_NETWORK_EXCEPTION, why);
    } else {
        finish_all(c, req, err, why);
        if (err == GR_ERR_NOT_LEADER_OR_FOLLOWER || err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)
            gr__client_request_metadata(c->cl);
    }
    ld->backoff_until = gr__client_now(c->cl) + c->retry_backoff_ms;
}

/* Partition-level fetch errors: refresh leaders; the partition is fetched again later. */
static void partition_error(gr_share_consumer_t *c, gr__spart_t *part, int16_t code,
                            const gr_ShareFetchResponse_LeaderIdAndEpoch_t *leader) {
    if (code == GR_ERR_NOT_LEADER_OR_FOLLOWER || code == GR_ERR_FENCED_LEADER_EPOCH ||
        code == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION || code == GR_ERR_UNKNOWN_TOPIC_ID) {
        if (leader && leader->LeaderId >= 0 && part->topic) {
            gr__mtopic_t *t = gr__client_topic(c->cl, part->topic);
            if (t && part->partition < t->n_parts) t->parts[part->partition].leader = leader->LeaderId;
        }
        part->in_session = false;
        gr__client_request_metadata(c->cl);
    }
}

static void upsert_endpoints(gr_share_consumer_t *c, const gr_ShareFetchResponse_t *rs) {
    for (int32_t i = 0; i < rs->NodeEndpoints.n; i++) {
        const gr_ShareFetchResponse_NodeEndpoint_t *e = &rs->NodeEndpoints.v[i];
        char h[256];
        int n = e->Host.len < 0 ? 0 : e->Host.len > 255 ? 255 : e->Host.len;
        memcpy(h, e->Host.ptr, (size_t)n);
        h[n] = 0;
        gr__client_upsert_broker(c->cl, e->NodeId, h, e->Port);
    }
}

static void fetch_partition(gr_share_consumer_t *c, gr__sreq_t *req, const gr_uuid_t *tid,
                            const gr_ShareFetchResponse_PartitionData_t *pd) {
    gr__spart_t *part = gr__share_part_get(c, tid, pd->PartitionIndex, true);
    struct gr__sreq_set *set = find_set(req, part);
    if (set) {
        char msg[300];
        snprintf(msg, sizeof(msg), "%.*s",
                 pd->AcknowledgeErrorMessage.len > 0 ? (int)pd->AcknowledgeErrorMessage.len : 0,
                 pd->AcknowledgeErrorMessage.ptr ? pd->AcknowledgeErrorMessage.ptr : "");
        finish_set(c, req, set, (gr_err_t)pd->AcknowledgeErrorCode, msg);
    }
    if (pd->ErrorCode) {
        partition_error(c, part, pd->ErrorCode, pd->CurrentLeader);
        return;
    }
    size_t n = (size_t)(pd->AcquiredRecords.n > 0 ? pd->AcquiredRecords.n : 0);
    if (!n) return;
    part->session = req->ld;
    if (!part->topic) gr__share_part_leader(c, part); /* resolves the name from metadata */
    if (!part->topic) {                               /* still unknown: hand the records back */
        for (size_t i = 0; i < n; i++)
            for (int64_t o = pd->AcquiredRecords.v[i].FirstOffset; o <= pd->AcquiredRecords.v[i].LastOffset; o++)
                gr__acks_add(&part->pending, o, GR_ACK_RELEASE);
        return;
    }
    int64_t *first = malloc(n * sizeof(int64_t)), *last = malloc(n * sizeof(int64_t));
    int16_t *dc = malloc(n * sizeof(int16_t));
    if (!first || !last || !dc) abort();
    for (size_t i = 0; i < n; i++) {
        first[i] = pd->AcquiredRecords.v[i].FirstOffset;
        last[i] = pd->AcquiredRecords.v[i].LastOffset;
        dc[i] = pd->AcquiredRecords.v[i].DeliveryCount;
    }
    gr__share_decode(c, part, pd->Records.ptr, pd->Records.len > 0 ? (size_t)pd->Records.len : 0, first, last, dc, n);
    free(first);
    free(last);
    free(dc);
}

static bool answer_has_records(const gr_ShareFetchResponse_t *rs) {
    for (int32_t i = 0; i < rs->Responses.n; i++)
        for (int32_t k = 0; k < rs->Responses.v[i].Partitions.n; k++)
            if (rs->Responses.v[i].Partitions.v[k].AcquiredRecords.n > 0) return true;
    return false;
}

static void fetch_ahead(gr_share_consumer_t *c, gr__sleader_t *ld);

static void on_share_fetch(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr__sreq_t *req = opaque;
    gr_share_consumer_t *c = req->c;
    (void)cl, (void)ver;
    req->ld->req = NULL;
    const gr_ShareFetchResponse_t *rs = resp;
    if (err || rs->ErrorCode) {
        char msg[300];
        if (!err)
            snprintf(msg, sizeof(msg), "%.*s", rs->ErrorMessage.len > 0 ? (int)rs->ErrorMessage.len : 0,
                     rs->ErrorMessage.ptr ? rs->ErrorMessage.ptr : "");
        request_failed(c, req, err ? err : (gr_err_t)rs->ErrorCode, err ? errmsg : msg);
        req_free(c, req);
        return;
    }
    req->ld->epoch = req->epoch < 0 ? 0 : next_epoch(req->epoch);
    c->lock_timeout_ms = rs->AcquisitionLockTimeoutMs;
    upsert_endpoints(c, rs);
    if (answer_has_records(rs)) fetch_ahead(c, req->ld);
    for (int32_t i = 0; i < rs->Responses.n; i++) {
        const gr_ShareFetchResponse_ShareFetchableTopicResponse_t *tr = &rs->Responses.v[i];
        for (int32_t k = 0; k < tr->Partitions.n; k++) fetch_partition(c, req, &tr->TopicId, &tr->Partitions.v[k]);
    }
    finish_all(c, req, GR_ERR_NETWORK_EXCEPTION, "the broker did not answer for this partition");
    req_free(c, req);
}

static void on_share_ack(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr__sreq_t *req = opaque;
    gr_share_consumer_t *c = req->c;
    (void)cl, (void)ver;
    req->ld->req = NULL;
    const gr_ShareAcknowledgeResponse_t *rs = resp;
    if (err || rs->ErrorCode) {
        char msg[300];
        if (!err)
            snprintf(msg, sizeof(msg), "%.*s", rs->ErrorMessage.len > 0 ? (int)rs->ErrorMessage.len : 0,
                     rs->ErrorMessage.ptr ? rs->ErrorMessage.ptr : "");
        request_failed(c, req, err ? err : (gr_err_t)rs->ErrorCode, err ? errmsg : msg);
        if (req->epoch < 0) req->ld->closed = true;
        req_free(c, req);
        return;
    }
    if (req->epoch < 0) {
        reset_session(c, req->ld);
        req->ld->closed = true;
    } else {
        req->ld->epoch = next_epoch(req->epoch);
    }
    if (ver >= 2 && rs->AcquisitionLockTimeoutMs > 0) c->lock_timeout_ms = rs->AcquisitionLockTimeoutMs;
    for (int32_t i = 0; i < rs->Responses.n; i++) {
        const gr_ShareAcknowledgeResponse_ShareAcknowledgeTopicResponse_t *tr = &rs->Responses.v[i];
        for (int32_t k = 0; k < tr->Partitions.n; k++) {
            const gr_ShareAcknowledgeResponse_PartitionData_t *pd = &tr->Partitions.v[k];
            gr__spart_t *part = gr__share_part_get(c, &tr->TopicId, pd->PartitionIndex, false);
            struct gr__sreq_set *set = part ? find_set(req, part) : NULL;
            if (!set) continue;
            char msg[300];
            snprintf(msg, sizeof(msg), "%.*s", pd->ErrorMessage.len > 0 ? (int)pd->ErrorMessage.len : 0,
                     pd->ErrorMessage.ptr ? pd->ErrorMessage.ptr : "");
            finish_set(c, req, set, (gr_err_t)pd->ErrorCode, msg);
            if (pd->ErrorCode == GR_ERR_NOT_LEADER_OR_FOLLOWER) gr__client_request_metadata(c->cl);
        }
    }
    finish_all(c, req, GR_ERR_NETWORK_EXCEPTION, "the broker did not answer for this partition");
    req_free(c, req);
}

/* ---- building requests ---- */

static gr__sreq_t *req_new(gr_share_consumer_t *c, gr__sleader_t *ld, int16_t api, int32_t epoch, uint64_t commit_id) {
    gr__sreq_t *req = calloc(1, sizeof(*req));
    if (!req) abort();
    req->c = c;
    req->ld = ld;
    req->api = api;
    req->epoch = epoch;
    req->commit_id = commit_id;
    req->sets = calloc(c->n_parts ? c->n_parts : 1, sizeof(*req->sets));
    if (!req->sets) abort();
    return req;
}

/* Move part's pending acks into the request (sorted, as Kafka requires ascending batches). */
static struct gr__sreq_set *take_acks(gr__sreq_t *req, gr__spart_t *part) {
    struct gr__sreq_set *set = &req->sets[req->n++];
    set->part = part;
    set->acks = part->pending;
    memset(&part->pending, 0, sizeof(part->pending));
    gr__acks_sort(&set->acks);
    for (size_t i = 0; i < set->acks.n; i++)
        if (set->acks.type[i] == GR_ACK_RENEW) req->renew = true;
    return set;
}

typedef struct entry {
    gr__spart_t *part;
    struct gr__sreq_set *set; /* acks carried, or NULL */
} entry_t;

/* Group entries by topic id: returns the number of distinct topics; order[i] is the
 * topic index of entry i and tids[] the ids. */
static int32_t group_topics(const entry_t *e, size_t n, gr_uuid_t *tids, int32_t *order) {
    int32_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t k = 0;
        while (k < nt && !gr_uuid_eq(&tids[k], &e[i].part->topic_id)) k++;
        if (k == nt) tids[nt++] = e[i].part->topic_id;
        order[i] = k;
    }
    return nt;
}

#define FILL_BATCHES(dst, set, ar, T)                                          \
    do {                                                                       \
        if (!(set)) break;                                                     \
        int64_t *f_, *l_;                                                      \
        int8_t **t_;                                                           \
        int32_t *nt_;                                                          \
        int32_t nb_ = gr__acks_batches(&(set)->acks, ar, &f_, &l_, &t_, &nt_); \
        (dst).n = nb_;                                                         \
        (dst).v = gr_struct_alloc(ar, &T##_sd, nb_ ? nb_ : 1);                 \
        for (int32_t b_ = 0; b_ < nb_; b_++) {                                 \
            (dst).v[b_].FirstOffset = f_[b_];                                  \
            (dst).v[b_].LastOffset = l_[b_];                                   \
            (dst).v[b_].AcknowledgeTypes.v = t_[b_];                           \
            (dst).v[b_].AcknowledgeTypes.n = nt_[b_];                          \
        }                                                                      \
    } while (0)

static void fill_fetch_topics(gr_ShareFetchRequest_t *rq, const entry_t *e, size_t n, gr_arena_t *ar) {
    gr_uuid_t *tids = gr_arena_alloc(ar, (n ? n : 1) * sizeof(gr_uuid_t));
    int32_t *order = gr_arena_alloc(ar, (n ? n : 1) * sizeof(int32_t));
    int32_t nt = group_topics(e, n, tids, order);
    rq->Topics.n = nt;
    rq->Topics.v = gr_struct_alloc(ar, &gr_ShareFetchRequest_FetchTopic_sd, nt ? nt : 1);
    for (int32_t k = 0; k < nt; k++) {
        gr_ShareFetchRequest_FetchTopic_t *t = &rq->Topics.v[k];
        t->TopicId = tids[k];
        t->Partitions.v = gr_struct_alloc(ar, &gr_ShareFetchRequest_FetchPartition_sd, (int32_t)n);
        for (size_t i = 0; i < n; i++) {
            if (order[i] != k) continue;
            gr_ShareFetchRequest_FetchPartition_t *p = &t->Partitions.v[t->Partitions.n++];
            p->PartitionIndex = e[i].part->partition;
            FILL_BATCHES(p->AcknowledgementBatches, e[i].set, ar, gr_ShareFetchRequest_AcknowledgementBatch);
        }
    }
}

static void fill_ack_topics(gr_ShareAcknowledgeRequest_t *rq, const entry_t *e, size_t n, gr_arena_t *ar) {
    gr_uuid_t *tids = gr_arena_alloc(ar, (n ? n : 1) * sizeof(gr_uuid_t));
    int32_t *order = gr_arena_alloc(ar, (n ? n : 1) * sizeof(int32_t));
    int32_t nt = group_topics(e, n, tids, order);
    rq->Topics.n = nt;
    rq->Topics.v = gr_struct_alloc(ar, &gr_ShareAcknowledgeRequest_AcknowledgeTopic_sd, nt ? nt : 1);
    for (int32_t k = 0; k < nt; k++) {
        gr_ShareAcknowledgeRequest_AcknowledgeTopic_t *t = &rq->Topics.v[k];
        t->TopicId = tids[k];
        t->Partitions.v = gr_struct_alloc(ar, &gr_ShareAcknowledgeRequest_AcknowledgePartition_sd, (int32_t)n);
        for (size_t i = 0; i < n; i++) {
            if (order[i] != k) continue;
            gr_ShareAcknowledgeRequest_AcknowledgePartition_t *p = &t->Partitions.v[t->Partitions.n++];
            p->PartitionIndex = e[i].part->partition;
            FILL_BATCHES(p->AcknowledgementBatches, e[i].set, ar, gr_ShareAcknowledgeRequest_AcknowledgementBatch);
        }
    }
}

/* Send req to ld's node, or fail it (node not ready) with a transport error. */
static bool send_req(gr_share_consumer_t *c, gr__node_t *node, int16_t ver, const void *rq, gr__sreq_t *req) {
    gr__resp_cb *cb = req->api == GR_API_ShareFetch ? on_share_fetch : on_share_ack;
    if (gr__node_send(node, req->api, ver, rq, true, cb, req) != GR_ERR_NONE) {
        request_failed(c, req, GR_ERR__TRANSPORT, "broker connection not ready");
        req_free(c, req);
        return false;
    }
    req->ld->req = req;
    return true;
}

static bool is_wanted(gr_share_consumer_t *c, gr__spart_t *part, gr__sleader_t *ld) {
    return part->assigned && gr__share_part_leader(c, part) == ld->node_id;
}

/* ShareFetch to ld: new session partitions, forgotten ones, piggybacked acks. */
static void send_fetch(gr_share_consumer_t *c, gr__sleader_t *ld, gr__node_t *node, int16_t ver, int32_t max_wait_ms) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    entry_t *e = gr_arena_alloc(&ar, (c->n_parts ? c->n_parts : 1) * sizeof(entry_t));
    size_t n = 0, nf = 0, wanted = 0;
    gr__spart_t **forgot = gr_arena_alloc(&ar, (c->n_parts ? c->n_parts : 1) * sizeof(gr__spart_t *));
    if (ld->epoch == 0) fail_pending(c, ld, "acknowledgements cannot be sent on a new share session", 0);
    gr__sreq_t *req = req_new(c, ld, GR_API_ShareFetch, ld->epoch, 0);
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__spart_t *part = c->parts[i];
        bool want = is_wanted(c, part, ld);
        wanted += want;
        struct gr__sreq_set *set = part->session == ld && part->pending.n ? take_acks(req, part) : NULL;
        if (want && !part->in_session) {
            part->in_session = true;
            part->session = ld;
        } else if (!want && part->in_session && part->session == ld) {
            part->in_session = false;
            if (ld->epoch > 0) forgot[nf++] = part;
            if (!set) continue;
        } else if (!set) {
            continue;
        }
        e[n++] = (entry_t){part, set};
    }
    if (ld->epoch == 0 && !wanted) {
        req_free(c, req);
        gr_arena_free(&ar);
        return;
    }
    gr_ShareFetchRequest_t rq;
    gr_struct_init(&gr_ShareFetchRequest_sd, &rq);
    rq.GroupId = gr_str_c(c->group_id);
    rq.MemberId = gr_str_c(c->member_id);
    rq.ShareSessionEpoch = ld->epoch;
    rq.MaxWaitMs = max_wait_ms;
    rq.MinBytes = c->fetch_min_bytes;
    rq.MaxBytes = c->fetch_max_bytes;
    rq.MaxRecords = c->max_poll_records;
    rq.BatchSize = c->max_poll_records;
    rq.ShareAcquireMode = ver >= 2 ? c->acquire_mode : 0;
    fill_fetch_topics(&rq, e, n, &ar);
    rq.ForgottenTopicsData.v = gr_struct_alloc(&ar, &gr_ShareFetchRequest_ForgottenTopic_sd, (int32_t)(nf ? nf : 1));
    for (size_t i = 0; i < nf; i++) {
        gr_ShareFetchRequest_ForgottenTopic_t *ft = &rq.ForgottenTopicsData.v[rq.ForgottenTopicsData.n++];
        ft->TopicId = forgot[i]->topic_id;
        ft->Partitions.v = gr_arena_alloc(&ar, sizeof(int32_t));
        ft->Partitions.v[0] = forgot[i]->partition;
        ft->Partitions.n = 1;
    }
    send_req(c, node, ver, &rq, req);
    gr_arena_free(&ar);
}

/* ShareAcknowledge to ld with every pending ack routed there (epoch -1 on close). */
static bool send_acks(gr_share_consumer_t *c, gr__sleader_t *ld, gr__node_t *node, uint64_t commit_id, bool close) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    entry_t *e = gr_arena_alloc(&ar, (c->n_parts ? c->n_parts : 1) * sizeof(entry_t));
    size_t n = 0;
    gr__sreq_t *req = req_new(c, ld, GR_API_ShareAcknowledge, close ? -1 : ld->epoch, commit_id);
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__spart_t *part = c->parts[i];
        if (part->session == ld && part->pending.n) e[n++] = (entry_t){part, take_acks(req, part)};
    }
    int16_t ver = gr__node_version(node, GR_API_ShareAcknowledge);
    if ((!n && !close) || ver < 0) {
        if (ver < 0) finish_all(c, req, GR_ERR_UNSUPPORTED_VERSION, "the broker does not support ShareAcknowledge");
        req_free(c, req);
        gr_arena_free(&ar);
        return false;
    }
    gr_ShareAcknowledgeRequest_t rq;
    gr_struct_init(&gr_ShareAcknowledgeRequest_sd, &rq);
    rq.GroupId = gr_str_c(c->group_id);
    rq.MemberId = gr_str_c(c->member_id);
    rq.ShareSessionEpoch = req->epoch;
    rq.IsRenewAck = req->renew && ver >= 2;
    fill_ack_topics(&rq, e, n, &ar);
    bool ok = send_req(c, node, ver, &rq, req);
    gr_arena_free(&ar);
    return ok;
}

static bool has_renew(gr_share_consumer_t *c, gr__sleader_t *ld) {
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__spart_t *part = c->parts[i];
        if (part->session != ld) continue;
        for (size_t k = 0; k < part->pending.n; k++)
            if (part->pending.type[k] == GR_ACK_RENEW) return true;
    }
    return false;
}

/* The node of an idle leader ready for a request, or NULL (connecting / backing off).
 * A leader whose connection is down has lost its share session: the broker ends a
 * session when the TCP connection that carried it closes. */
static gr__node_t *idle_node(gr_share_consumer_t *c, gr__sleader_t *ld, bool backoff) {
    if (ld->req || (backoff && gr__client_now(c->cl) < ld->backoff_until)) return NULL;
    gr__node_t *node = gr__client_node(c->cl, ld->node_id);
    if (!node) return NULL;
    if (!gr__node_ready(node)) {
        if (ld->epoch > 0) reset_session(c, ld);
        gr__node_connect(node);
        return NULL;
    }
    return node;
}

static bool leader_has_acks(gr_share_consumer_t *c, gr__sleader_t *ld) {
    for (size_t k = 0; k < c->n_parts; k++)
        if (c->parts[k]->session == ld && c->parts[k]->pending.n) return true;
    return false;
}

static bool leader_wanted(gr_share_consumer_t *c, gr__sleader_t *ld) {
    for (size_t k = 0; k < c->n_parts; k++)
        if (is_wanted(c, c->parts[k], ld)) return true;
    return false;
}

/* Fetch ahead (implicit mode, gregor.share.fetch.ahead): an answer that carries records sends
 * the leader's next ShareFetch (MaxWaitMs 0) before it is decoded, so the broker acquires and
 * reads the next records while these are decoded and processed. The consumer's record budget
 * is one answer beyond the application's batch: nothing is fetched ahead while records still
 * wait to be handed out, and each answer is bounded by max.poll.records as any fetch. Only
 * for an application that held its previous batch at most GR__FETCH_AHEAD_MAX_GAP_MS: records
 * fetched ahead hold their locks while they wait, so for a slow application they would double
 * the lock time and take records from the other members for nothing. Not in explicit mode,
 * where the application's commit_sync would queue behind the fetch. */
static void fetch_ahead(gr_share_consumer_t *c, gr__sleader_t *ld) {
    if (!c->fetch_ahead || c->explicit_mode || c->fatal || c->fetched.head || c->replay.head) return;
    if (c->app_gap_ms < 0 || c->app_gap_ms > GR__FETCH_AHEAD_MAX_GAP_MS) return;
    if (ld->epoch <= 0 || ld->closed || has_renew(c, ld) || !leader_wanted(c, ld)) return;
    gr__node_t *node = idle_node(c, ld, true);
    int16_t ver = node ? gr__node_version(node, GR_API_ShareFetch) : -1;
    if (ver >= 0) send_fetch(c, ld, node, ver, 0);
}

void gr__share_fetch_run(gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->n_parts; i++) { /* make sure every leader of an assigned partition exists */
        int32_t id = c->parts[i]->assigned ? gr__share_part_leader(c, c->parts[i]) : -1;
        if (id >= 0) gr__share_leader(c, id);
    }
    for (size_t i = 0; i < c->n_leaders; i++) {
        gr__sleader_t *ld = c->leaders[i];
        gr__node_t *node = idle_node(c, ld, true);
        if (!node) continue;
        ld->closed = false;
        int16_t ver = gr__node_version(node, GR_API_ShareFetch);
        if (ver < 0) {
            c->fatal = GR_ERR_UNSUPPORTED_VERSION;
            snprintf(c->fatal_msg, sizeof(c->fatal_msg), "broker %s does not support ShareFetch", gr__node_name(node));
            return;
        }
        if (has_renew(c, ld) && ld->epoch > 0) { /* renewals never ride on a fetch that may wait */
            send_acks(c, ld, node, 0, false);
            continue;
        }
        if (c->fetched.head && !leader_has_acks(c, ld)) continue; /* records are waiting for the application */
        send_fetch(c, ld, node, ver, c->fetched.head || c->replay.head ? 0 : c->fetch_max_wait_ms);
    }
}

int gr__share_ack_run(gr_share_consumer_t *c, uint64_t commit_id, bool close) {
    static const char *why = "no share session with the broker: acknowledgements not sent";
    int sent = 0;
    for (size_t i = 0; i < c->n_leaders; i++) {
        gr__sleader_t *ld = c->leaders[i];
        if (close ? ld->closed : !leader_has_acks(c, ld)) continue;
        if (ld->req) continue; /* wait for the request in flight */
        gr__node_t *node = idle_node(c, ld, false);
        if (!node || ld->epoch == 0) {
            if (node || !gr__client_node(c->cl, ld->node_id) || ld->epoch == 0) {
                fail_pending(c, ld, why, commit_id);
                if (close) ld->closed = true;
            }
            continue;
        }
        sent += send_acks(c, ld, node, commit_id, close);
    }
    return sent;
}
