/* Fetch (1), v4-18, for consumers: sessionless fetch, reads that go out with
 * sendfile, and long polls.
 *
 * Fetch sessions (KIP-227): this broker never creates one, which Kafka also
 * does when its session cache is full. Following Kafka's FetchManager.newContext:
 * a request with SessionEpoch 0 (INITIAL) or -1 (FINAL) is a full fetch and is
 * answered with SessionId 0 (any session it names is closed, so none exists);
 * any other epoch is an incremental fetch of a session we do not have, which
 * Kafka answers with the top-level error FETCH_SESSION_ID_NOT_FOUND (even when
 * the SessionId is 0). ForgottenTopicsData only matters for incremental fetches.
 *
 * Per partition, as ReplicaManager.readFromLog / Partition.fetchRecords: an
 * unknown topic gives UNKNOWN_TOPIC_OR_PARTITION (by name, v4-12) or
 * UNKNOWN_TOPIC_ID (v13+); CurrentLeaderEpoch below / above ours gives
 * FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH; a follower fetch (replica id >= 0)
 * is refused as Kafka refuses a replica outside the assignment (UNKNOWN_LEADER_EPOCH
 * when it sent a leader epoch, else NOT_LEADER_OR_FOLLOWER); a fetch offset outside
 * [log start, high watermark] gives OFFSET_OUT_OF_RANGE with the offsets at -1,
 * as Kafka. The high watermark of a single replica is its log end offset; the
 * last stable offset (gr_partition_lso) is the first offset of the earliest
 * ongoing transaction, else the high watermark, and goes out in every answer.
 *
 * read_committed (IsolationLevel 1): only batches below the last stable offset
 * are returned (a fetch offset between it and the high watermark is valid and
 * gets no records), with the aborted transactions that overlap the range read
 * (Kafka's collectAbortedTxns over [fetch offset, offset after the last batch
 * read)). A parked read_committed fetch is woken when the last stable offset
 * moves (transaction markers notify the partition's waiters).
 *
 * Size limits (KIP-74): the request's MaxBytes (capped by fetch.max.bytes) is
 * shared by the partitions in request order, each also bounded by its
 * PartitionMaxBytes, but the first partition that has data always gets at
 * least one whole batch. A later partition whose next batch does not fit gets
 * the bytes that fit, a partial batch, as Kafka sends it (clients drop it).
 *
 * Long poll: when fewer than MinBytes are available, the request is parked with
 * a timer (MaxWaitMs) and a waiter on each partition. A produce wakes the
 * waiter, which only re-arms the timer to fire at once; the timer callback
 * re-evaluates the request outside the partition's notify loop, so answering
 * (which may close connections and cancel other parked requests) never runs
 * while that loop walks the waiter list. An evaluation that does not complete
 * the request releases its reads; the evaluation that completes it puts its
 * slices straight into the response, so no data is read twice.
 *
 * @locality loop thread. */
#include <limits.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/producers.h"
#include "broker/quotas.h"
#include "proto_msgs.h"

typedef gr_FetchResponse_PartitionData_t part_out_t;
typedef gr_FetchRequest_FetchPartition_t part_in_t;

struct fetch_state;

typedef struct fetch_part {
    struct fetch_state *st;
    gr_partition_t *p; /* NULL: answered with the error set at resolution */
    const part_in_t *in;
    part_out_t *out;
    gr_partition_waiter_t w;
    int64_t records; /* records in the whole batches of out->Records (metrics) */
} fetch_part_t;

typedef struct fetch_state {
    gr_req_t *req;
    gr_FetchResponse_t *resp;
    fetch_part_t *parts;
    int32_t n;
    int32_t n_read;    /* partitions that are read (resolved without error) */
    int64_t max_bytes; /* min(MaxBytes, fetch.max.bytes) */
    bool follower;
    gr_err_t follower_denied; /* CLUSTER_ACTION on the cluster, checked once */
    bool read_committed;
    bool urgent;      /* a partition went away while parked: answer now */
    int64_t deadline; /* loop time when a parked request must answer */
    gr_timer_t timer;
} fetch_state_t;

/* ---------------------------------------------------------------- one partition */

static void out_reset(fetch_state_t *st, part_out_t *out, gr_err_t err) {
    out->ErrorCode = (int16_t)err;
    out->HighWatermark = -1;
    out->LastStableOffset = -1;
    out->LogStartOffset = -1;
    out->DivergingEpoch = NULL;
    out->PreferredReadReplica = -1;
    out->AbortedTransactions.v = NULL;
    out->AbortedTransactions.n = -1; /* null unless read_committed without error */
    memset(&out->Records, 0, sizeof(out->Records));
    out->Records.fd = -1;
}

static void out_release(part_out_t *out) {
    if (out->Records.file_backed) gr_plog_slice_release(out->Records.owner);
    memset(&out->Records, 0, sizeof(out->Records));
    out->Records.fd = -1;
}

/* Partition.localLogWithEpochOrThrow; -1 means "not sent". */
static gr_err_t epoch_check(const gr_partition_t *p, int32_t current_leader_epoch) {
    if (current_leader_epoch < 0 || current_leader_epoch == p->leader_epoch) return GR_ERR_NONE;
    return current_leader_epoch < p->leader_epoch ? GR_ERR_FENCED_LEADER_EPOCH : GR_ERR_UNKNOWN_LEADER_EPOCH;
}

/* Errors that Kafka raises before reading (fetchRecords). */
static gr_err_t pre_read_error(const fetch_state_t *st, const fetch_part_t *fp) {
    if (fp->p->offline || gr_plog_offline(fp->p->plog)) return GR_ERR_KAFKA_STORAGE_ERROR;
    gr_err_t err = epoch_check(fp->p, fp->in->CurrentLeaderEpoch);
    if (err) return err;
    if (st->follower)
        return fp->in->CurrentLeaderEpoch >= 0 ? GR_ERR_UNKNOWN_LEADER_EPOCH : GR_ERR_NOT_LEADER_OR_FOLLOWER;
    return GR_ERR_NONE;
}

/* LastFetchedEpoch (v12+), Partition.readRecords with a single leader epoch
 * that covers the whole log: an epoch above ours is unknown (out of range); our
 * epoch ends at the log end offset, so a fetch offset beyond it diverges. An
 * older epoch cannot occur (the epoch never changes) and is treated as ours.
 * Returns true when the answer for this partition is decided here. */
static bool last_fetched_epoch(fetch_part_t *fp, int64_t log_start, int64_t hwm) {
    int32_t e = fp->in->LastFetchedEpoch;
    if (e < 0) return false;
    if (e > fp->p->leader_epoch || fp->in->FetchOffset < log_start) {
        fp->out->ErrorCode = GR_ERR_OFFSET_OUT_OF_RANGE;
        return true;
    }
    if (fp->in->FetchOffset <= hwm) return false;
    fp->out->DivergingEpoch = gr_req_alloc(fp->st->req, &gr_FetchResponse_EpochEndOffset_sd, 1);
    fp->out->DivergingEpoch->Epoch = fp->p->leader_epoch;
    fp->out->DivergingEpoch->EndOffset = hwm;
    fp->out->HighWatermark = hwm;
    fp->out->LastStableOffset = gr_partition_lso(fp->p);
    fp->out->LogStartOffset = log_start;
    return true;
}

static void put_slice(part_out_t *out, const gr_plog_slice_t *sl, size_t len) {
    out->Records.file_backed = true;
    out->Records.fd = sl->fd;
    out->Records.off = sl->pos;
    out->Records.len = (int32_t)len;
    out->Records.release = gr_plog_slice_release;
    out->Records.owner = sl->owner;
}

/* The aborted transactions overlapping [from, upper) (Kafka's FetchResponse.AbortedTransaction). */
static void aborted_txns(fetch_state_t *st, fetch_part_t *fp, int64_t from, int64_t upper) {
    size_t n = gr_producers_aborted(fp->p->producers, from, upper, NULL, 0);
    if (n == 0) return;
    gr_aborted_txn_t *a = gr_arena_alloc(&st->req->arena, n * sizeof(*a));
    gr_producers_aborted(fp->p->producers, from, upper, a, n);
    gr_FetchResponse_AbortedTransaction_t *v =
        gr_req_alloc(st->req, &gr_FetchResponse_AbortedTransaction_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        v[i].ProducerId = a[i].pid;
        v[i].FirstOffset = a[i].first_offset;
    }
    fp->out->AbortedTransactions.v = v;
    fp->out->AbortedTransactions.n = (int32_t)n;
}

/* Read one partition within *limit bytes. Returns true when the request must be
 * answered now (an error or a diverging epoch, as ReplicaManager.fetchMessages). */
static bool read_part(fetch_state_t *st, fetch_part_t *fp, int64_t *limit, bool *min_one) {
    part_out_t *out = fp->out;
    fp->records = 0;
    out_reset(st, out, pre_read_error(st, fp));
    if (out->ErrorCode) return true;
    gr_plog_t *plog = fp->p->plog;
    int64_t start = gr_plog_start_offset(plog), hwm = gr_plog_end_offset(plog);
    int64_t off = fp->in->FetchOffset;
    if (last_fetched_epoch(fp, start, hwm)) return true;
    if (off < start || off > hwm) {
        out->ErrorCode = GR_ERR_OFFSET_OUT_OF_RANGE;
        return true;
    }
    int64_t lso = gr_partition_lso(fp->p), bound = st->read_committed ? lso : hwm;
    out->HighWatermark = hwm;
    out->LastStableOffset = lso;
    out->LogStartOffset = start;
    if (st->read_committed) out->AbortedTransactions.n = 0;
    if (off >= bound) return false;
    int64_t max = fp->in->PartitionMaxBytes < *limit ? fp->in->PartitionMaxBytes : *limit;
    if (max < 0) { /* LogSegment.read refuses a negative size */
        out_reset(st, out, GR_ERR_UNKNOWN_SERVER_ERROR);
        return true;
    }
    if (max == 0 && !*min_one) return false;
    gr_plog_slice_t sl;
    char errstr[256];
    gr_err_t err = gr_plog_read(plog, off, (size_t)max, bound, &sl, errstr, sizeof(errstr));
    if (err) {
        if (err == GR_ERR_KAFKA_STORAGE_ERROR) {
            GR_ERROR("fetch", "read of %s-%d at %lld failed: %s", fp->p->topic, fp->p->index, (long long)off, errstr);
            fp->p->offline = true;
        }
        out_reset(st, out, err);
        return true;
    }
    if (sl.len == 0) return false;
    size_t len = !*min_one && (int64_t)sl.len > max ? (size_t)max : sl.len;
    put_slice(out, &sl, len);
    if (st->read_committed) aborted_txns(st, fp, off, sl.last_offset + 1);
    /* A cut batch (a later partition's first batch that does not fit) is dropped by clients. */
    if (len == sl.len) fp->records = sl.last_offset - sl.first_offset + 1;
    *min_one = false;
    *limit = *limit > (int64_t)len ? *limit - (int64_t)len : 0;
    return false;
}

/* ---------------------------------------------------------------- evaluation */

static void release_reads(fetch_state_t *st) {
    for (int32_t i = 0; i < st->n; i++)
        if (st->parts[i].p) out_release(st->parts[i].out);
}

/* Read every partition. Returns true when the request is complete: final,
 * no wait wanted, MinBytes reached or an error; otherwise the reads are
 * released again. */
static bool evaluate(fetch_state_t *st, bool final) {
    const gr_FetchRequest_t *rq = st->req->body;
    int64_t limit = st->max_bytes, bytes = 0;
    bool min_one = true, urgent = st->urgent;
    for (int32_t i = 0; i < st->n; i++) {
        fetch_part_t *fp = &st->parts[i];
        if (!fp->p) continue;
        urgent |= read_part(st, fp, &limit, &min_one);
        bytes += fp->out->Records.len > 0 ? fp->out->Records.len : 0;
    }
    if (final || urgent || st->n_read == 0 || rq->MaxWaitMs <= 0 || bytes >= rq->MinBytes) return true;
    release_reads(st);
    return false;
}

/* KIP-951: with NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, Kafka tells the
 * client who leads (CurrentLeader, v12+) and how to reach it (NodeEndpoints,
 * v16+). Here that is always this broker. */
static void leader_hints(fetch_state_t *st) {
    gr_req_t *req = st->req;
    bool any = false;
    for (int32_t i = 0; i < st->n; i++) {
        fetch_part_t *fp = &st->parts[i];
        int16_t e = fp->out->ErrorCode;
        if (!fp->p || (e != GR_ERR_NOT_LEADER_OR_FOLLOWER && e != GR_ERR_FENCED_LEADER_EPOCH)) continue;
        fp->out->CurrentLeader = gr_req_alloc(req, &gr_FetchResponse_LeaderIdAndEpoch_sd, 1);
        fp->out->CurrentLeader->LeaderId = gr_broker_node_id(req->b);
        fp->out->CurrentLeader->LeaderEpoch = fp->p->leader_epoch;
        any = true;
    }
    if (!any || req->hdr.api_version < 16) return;
    gr_FetchResponse_NodeEndpoint_t *ne = gr_req_alloc(req, &gr_FetchResponse_NodeEndpoint_sd, 1);
    ne->NodeId = gr_broker_node_id(req->b);
    ne->Host = gr_str_c(gr_broker_host(req->b, req->conn));
    ne->Port = gr_broker_adv_port(req->b, req->conn);
    ne->Rack = GR_STR_NULL;
    st->resp->NodeEndpoints.v = ne;
    st->resp->NodeEndpoints.n = 1;
}

#ifndef GR_NO_METRICS
/* What goes out counts as sent (metrics), also when the client is gone by then. */
static void count_out(fetch_state_t *st) {
    for (int32_t i = 0; i < st->n; i++) {
        fetch_part_t *fp = &st->parts[i];
        if (!fp->p || fp->out->Records.len <= 0) continue;
        fp->p->bytes_out += (uint64_t)fp->out->Records.len;
        fp->p->records_out += (uint64_t)fp->records;
    }
}
#endif

static void respond(fetch_state_t *st) {
    GR_METRIC(count_out(st));
    leader_hints(st);
    gr_req_respond(st->req, st->resp);
}

static void unwait_all(fetch_state_t *st) {
    for (int32_t i = 0; i < st->n; i++) gr_partition_unwait(&st->parts[i].w);
    gr_timer_stop(&st->timer);
}

static void finish(fetch_state_t *st) {
    unwait_all(st);
    gr_broker_unpark(st->req->b, st->req);
    respond(st);
}

static void on_timer(gr_timer_t *t, int64_t now) {
    fetch_state_t *st = t->data;
    if (evaluate(st, now >= st->deadline))
        finish(st);
    else
        gr_timer_start(&st->timer, st->deadline - now, 0);
}

/* New data (or the partition is going away: partitions.c unlinks the waiter
 * before calling us then). Never answer from here; see the file comment. */
static void on_wake(void *arg) {
    fetch_part_t *fp = arg;
    fetch_state_t *st = fp->st;
    if (!fp->w.linked) {
        gr_partition_t *gone = fp->p;
        for (int32_t i = 0; i < st->n; i++) {
            if (st->parts[i].p != gone) continue;
            gr_partition_unwait(&st->parts[i].w);
            st->parts[i].p = NULL;
            out_reset(st, st->parts[i].out, GR_ERR_NOT_LEADER_OR_FOLLOWER);
        }
        st->urgent = true;
    }
    gr_timer_start(&st->timer, 0, 0);
}

/* Client gone or shutdown: answer now without reading (the answer is dropped). */
static void fetch_cancel(gr_req_t *req) {
    fetch_state_t *st = req->park;
    unwait_all(st);
    respond(st);
}

static void park(fetch_state_t *st) {
    gr_req_t *req = st->req;
    const gr_FetchRequest_t *rq = req->body;
    gr_loop_t *loop = req->b->loop;
    st->deadline = gr_loop_now(loop) + rq->MaxWaitMs;
    gr_timer_init(loop, &st->timer, on_timer, st);
    gr_timer_start(&st->timer, rq->MaxWaitMs, 0);
    for (int32_t i = 0; i < st->n; i++) {
        fetch_part_t *fp = &st->parts[i];
        if (!fp->p) continue;
        bool dup = false; /* one waiter per partition: see on_wake */
        for (int32_t j = 0; j < i && !dup; j++) dup = st->parts[j].p == fp->p && st->parts[j].w.linked;
        if (!dup) gr_partition_wait(fp->p, &fp->w, on_wake, fp);
    }
    req->park = st;
    gr_broker_park(req->b, req, fetch_cancel);
}

/* ---------------------------------------------------------------- request */

static int32_t replica_id(const gr_req_t *req) {
    const gr_FetchRequest_t *rq = req->body;
    if (req->hdr.api_version >= 15) return rq->ReplicaState ? rq->ReplicaState->ReplicaId : -1;
    return rq->ReplicaId;
}

/* Resolve one requested topic and lay out its response entries. */
static void resolve_topic(fetch_state_t *st, const gr_FetchRequest_FetchTopic_t *ft,
                          gr_FetchResponse_FetchableTopicResponse_t *rt) {
    gr_req_t *req = st->req;
    bool by_id = req->hdr.api_version >= 13;
    const gr_meta_topic_t *mt = by_id ? gr_meta_topic_find_id(req->b->meta, &ft->TopicId)
                                      : gr_meta_topic_find(req->b->meta, gr_req_cstr(req, ft->Topic));
    rt->Topic = ft->Topic;
    rt->TopicId = ft->TopicId;
    /* A consumer needs READ on the topic (an unknown id is UNKNOWN_TOPIC_ID before any
     * authorization); a follower CLUSTER_ACTION on the cluster instead, else every
     * partition is denied (KafkaApis.handleFetchRequest). */
    gr_err_t denied = st->follower ? st->follower_denied
                      : by_id      ? (mt ? gr_req_authz(req, GR_AZ_FETCH, mt->name) : GR_ERR_NONE)
                                   : gr_req_authz_s(req, GR_AZ_FETCH, ft->Topic);
    int32_t n = ft->Partitions.n > 0 ? ft->Partitions.n : 0;
    rt->Partitions.v = gr_req_alloc(req, &gr_FetchResponse_PartitionData_sd, n);
    rt->Partitions.n = n;
    for (int32_t i = 0; i < n; i++) {
        fetch_part_t *fp = &st->parts[st->n++];
        fp->st = st;
        fp->in = &ft->Partitions.v[i];
        fp->out = &rt->Partitions.v[i];
        fp->out->PartitionIndex = fp->in->Partition;
        fp->p = mt && !denied ? gr_parts_find(req->b->parts, mt->name, fp->in->Partition) : NULL;
        if (denied) {
            out_reset(st, fp->out, denied);
            continue;
        }
        if (fp->p) {
            st->n_read++;
            continue;
        }
        out_reset(st, fp->out, !mt && by_id ? GR_ERR_UNKNOWN_TOPIC_ID : GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    }
}

static fetch_state_t *state_new(gr_req_t *req, gr_FetchResponse_t *resp) {
    const gr_FetchRequest_t *rq = req->body;
    fetch_state_t *st = gr_arena_alloc(&req->arena, sizeof(*st));
    memset(st, 0, sizeof(*st));
    st->req = req;
    st->resp = resp;
    int64_t total = 0;
    for (int32_t t = 0; t < rq->Topics.n; t++)
        total += rq->Topics.v[t].Partitions.n > 0 ? rq->Topics.v[t].Partitions.n : 0;
    /* total is bounded by the frame: every partition took at least one byte of it. */
    st->parts = gr_arena_alloc(&req->arena, (size_t)(total ? total : 1) * sizeof(fetch_part_t));
    memset(st->parts, 0, (size_t)(total ? total : 1) * sizeof(fetch_part_t));
    int64_t cap = req->b->cfg->fetch_max_bytes > 0 ? req->b->cfg->fetch_max_bytes : INT32_MAX;
    st->max_bytes = rq->MaxBytes < cap ? rq->MaxBytes : cap;
    int64_t qcap = gr_broker_quota_fetch_cap(req); /* what the fetch quota lets one window carry */
    if (qcap < st->max_bytes) st->max_bytes = qcap;
    st->follower = replica_id(req) >= 0;
    if (st->follower) st->follower_denied = gr_req_authz(req, GR_AZ_FETCH_FOLLOWER, NULL);
    st->read_committed = rq->IsolationLevel == 1;
    return st;
}

void gr_h_fetch(gr_req_t *req) {
    const gr_FetchRequest_t *rq = req->body;
    gr_FetchResponse_t *resp = gr_req_resp_new(req);
    resp->SessionId = 0;
    if (rq->SessionEpoch != 0 && rq->SessionEpoch != -1) {
        resp->ErrorCode = GR_ERR_FETCH_SESSION_ID_NOT_FOUND;
        gr_req_respond(req, resp);
        return;
    }
    if (rq->IsolationLevel != 0 && rq->IsolationLevel != 1) {
        resp->ErrorCode = GR_ERR_INVALID_REQUEST;
        gr_req_respond(req, resp);
        return;
    }
    fetch_state_t *st = state_new(req, resp);
    int32_t nt = rq->Topics.n > 0 ? rq->Topics.n : 0;
    resp->Responses.v = gr_req_alloc(req, &gr_FetchResponse_FetchableTopicResponse_sd, nt);
    resp->Responses.n = nt;
    for (int32_t t = 0; t < nt; t++) resolve_topic(st, &rq->Topics.v[t], &resp->Responses.v[t]);
    if (evaluate(st, false)) {
        respond(st);
        return;
    }
    park(st);
}
