/* ShareFetch (78), v1-2: share sessions, piggybacked acknowledgements,
 * acquisition and long polls (spec §2).
 *
 * Order (§2.2): request checks (MemberId, GroupId, IsRenewAck limits,
 * ShareAcquireMode) -> session by epoch (§2.3; 122/123/133, acks on epoch 0
 * -> INVALID_REQUEST) -> acknowledgements per partition (§2.4, result in
 * AcknowledgeErrorCode) -> fetch over the session's partitions (§2.5-2.7)
 * -> response when the acks are durable and the fetch is complete.
 *
 * Long poll: like h_fetch.c, a request that acquires nothing is parked with
 * a timer (MaxWaitMs), a waiter on each partition log (new data) and one on
 * each SP (acks, releases, lock expiry, removal). Wake-ups only re-arm the
 * timer at 0; the timer re-evaluates outside the notifier's loop. Every
 * evaluation resolves partitions and SPs afresh, so nothing held across a
 * park can dangle. An evaluation that acquires anything completes the
 * request: acquired records are never put back.
 *
 * Records are never null (librdkafka cannot parse a null ShareFetch Records):
 * partitions without data carry an empty record set.
 *
 * @locality loop thread. */
#include <string.h>

#include "base/log.h"
#include "base/uuid.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/quotas.h"
#include "broker/share_acquire.h"
#include "broker/share_parts.h"
#include "broker/share_sessions.h"
#include "proto_msgs.h"

typedef gr_ShareFetchResponse_PartitionData_t part_out_t;
typedef gr_ShareFetchRequest_FetchPartition_t part_in_t;

struct sf_state;

typedef struct sf_part {
    struct sf_state *st;
    gr_uuid_t topic_id;
    int32_t partition;
    bool fetch;   /* a session partition to fetch */
    bool acked;   /* carried acknowledgements */
    bool fresh;   /* newly added to the session */
    bool loading; /* its share-partition was still loading at the last evaluation */
    part_out_t out;
    gr_partition_t *p;     /* resolved by the last evaluation */
    gr_share_part_t *part; /* idem */
    gr_partition_waiter_t pw;
    gr_share_waiter_t sw;
} sf_part_t;

typedef struct sf_state {
    gr_req_t *req;
    gr_ShareFetchResponse_t *resp;
    const char *group, *member;
    sf_part_t *parts;
    int32_t n;
    int32_t epoch; /* request epoch */
    bool do_fetch; /* not final, not renew, limits > 0 */
    bool fetch_done;
    bool parked;
    int64_t max_bytes;
    gr_share_ackwait_t *w; /* acks not yet durable */
    int64_t deadline;
    gr_timer_t timer;
} sf_state_t;

static void sf_respond(sf_state_t *st);

/* ---------------------------------------------------------------- layout */

static sf_part_t *find_part(sf_state_t *st, const gr_uuid_t *topic_id, int32_t partition) {
    for (int32_t i = 0; i < st->n; i++)
        if (st->parts[i].partition == partition && gr_uuid_eq(&st->parts[i].topic_id, topic_id)) return &st->parts[i];
    return NULL;
}

static sf_part_t *add_part(sf_state_t *st, const gr_uuid_t *topic_id, int32_t partition) {
    sf_part_t *fp = find_part(st, topic_id, partition);
    if (fp) return fp;
    fp = &st->parts[st->n++];
    memset(fp, 0, sizeof(*fp));
    fp->st = st;
    fp->topic_id = *topic_id;
    fp->partition = partition;
    gr_struct_init(&gr_ShareFetchResponse_PartitionData_sd, &fp->out);
    fp->out.PartitionIndex = partition;
    return fp;
}

static int64_t count_req_parts(const gr_ShareFetchRequest_t *rq) {
    int64_t n = 0;
    for (int32_t t = 0; t < rq->Topics.n; t++) n += rq->Topics.v[t].Partitions.n > 0 ? rq->Topics.v[t].Partitions.n : 0;
    return n;
}

static void add_session_part(sf_state_t *st, const gr_share_sess_part_t *sp) {
    sf_part_t *fp = add_part(st, &sp->topic_id, sp->partition);
    fp->fetch = st->do_fetch;
    fp->fresh = sp->fresh;
}

/* Kafka 4.4.0 rotates the session's partitions by the request epoch before it fetches
 * (PartitionRotateStrategy ROUND_ROBIN: epoch e >= 1 starts at index e mod n of the
 * partitions whose topic it knows); the unknown ones follow (they only carry errors). */
static void add_session_parts(sf_state_t *st, const gr_share_session_t *sess) {
    gr_meta_t *meta = st->req->b->meta;
    int32_t *valid = gr_arena_alloc(&st->req->arena, (size_t)(sess->n ? sess->n : 1) * sizeof(int32_t));
    int32_t n_valid = 0;
    for (int32_t i = 0; i < sess->n; i++)
        if (gr_meta_topic_find_id(meta, &sess->parts[i].topic_id)) valid[n_valid++] = i;
    int32_t start = st->epoch >= 1 && n_valid > 1 ? st->epoch % n_valid : 0;
    for (int32_t k = 0; k < n_valid; k++) add_session_part(st, &sess->parts[valid[(start + k) % n_valid]]);
    for (int32_t i = 0; i < sess->n; i++)
        if (!gr_meta_topic_find_id(meta, &sess->parts[i].topic_id)) add_session_part(st, &sess->parts[i]);
}

/* Session partitions first (fetch order), then partitions that only carry acks. */
static void layout(sf_state_t *st, const gr_share_session_t *sess) {
    const gr_ShareFetchRequest_t *rq = st->req->body;
    int64_t cap = count_req_parts(rq) + (sess ? sess->n : 0);
    st->parts = gr_arena_alloc(&st->req->arena, (size_t)(cap ? cap : 1) * sizeof(sf_part_t));
    if (sess) add_session_parts(st, sess);
    for (int32_t t = 0; t < rq->Topics.n; t++) {
        const gr_ShareFetchRequest_FetchTopic_t *ft = &rq->Topics.v[t];
        for (int32_t i = 0; i < ft->Partitions.n; i++)
            if (ft->Partitions.v[i].AcknowledgementBatches.n > 0 || rq->IsRenewAck)
                add_part(st, &ft->TopicId, ft->Partitions.v[i].PartitionIndex);
    }
}

/* ---------------------------------------------------------------- acknowledgements */

static void acks_durable(void *arg) {
    sf_state_t *st = arg;
    st->w = NULL;
    if (st->fetch_done) {
        gr_broker_unpark(st->req->b, st->req);
        sf_respond(st);
    }
}

static void ack_one(sf_state_t *st, const gr_uuid_t *topic_id, const part_in_t *pi) {
    gr_req_t *req = st->req;
    const gr_ShareFetchRequest_t *rq = req->body;
    sf_part_t *fp = find_part(st, topic_id, pi->PartitionIndex);
    bool renew = req->hdr.api_version >= 2 && rq->IsRenewAck;
    if (pi->AcknowledgementBatches.n <= 0) {
        /* §2.8: every partition of a renew request must carry acks. */
        if (renew) fp->out.ErrorCode = GR_ERR_INVALID_REQUEST;
        return;
    }
    int32_t n = pi->AcknowledgementBatches.n;
    gr_sp_ack_batch_t *bt = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*bt));
    for (int32_t i = 0; i < n; i++) {
        const gr_ShareFetchRequest_AcknowledgementBatch_t *a = &pi->AcknowledgementBatches.v[i];
        bt[i] = (gr_sp_ack_batch_t){a->FirstOffset, a->LastOffset, (const int8_t *)a->AcknowledgeTypes.v,
                                    a->AcknowledgeTypes.n > 0 ? (size_t)a->AcknowledgeTypes.n : 0};
    }
    char errstr[256];
    fp->acked = true;
    const gr_meta_topic_t *mt = gr_meta_topic_find_id(req->b->meta, topic_id);
    gr_err_t denied = mt ? gr_req_authz(req, GR_AZ_SHARE_FETCH_TOPIC, mt->name) : GR_ERR_NONE;
    if (denied) { /* no READ on the topic: the acknowledgements are refused */
        fp->out.AcknowledgeErrorCode = (int16_t)denied;
        return;
    }
    gr_err_t err = gr_share_ack_partition(req->b, st->group, st->member, topic_id, pi->PartitionIndex, bt, (size_t)n,
                                          renew, st->w, &fp->out.AcknowledgeErrorCode, errstr, sizeof(errstr));
    fp->out.AcknowledgeErrorCode = (int16_t)err;
    if (err && errstr[0]) fp->out.AcknowledgeErrorMessage = gr_req_msg(req, "%s", errstr);
}

static void apply_acks(sf_state_t *st) {
    const gr_ShareFetchRequest_t *rq = st->req->body;
    st->w = gr_share_ackwait_new(acks_durable, st);
    for (int32_t t = 0; t < rq->Topics.n; t++)
        for (int32_t i = 0; i < rq->Topics.v[t].Partitions.n; i++)
            ack_one(st, &rq->Topics.v[t].TopicId, &rq->Topics.v[t].Partitions.v[i]);
    if (gr_share_ackwait_arm(st->w)) st->w = NULL;
}

/* ---------------------------------------------------------------- fetch */

static void empty_records(part_out_t *out) {
    memset(&out->Records, 0, sizeof(out->Records));
    out->Records.ptr = (const uint8_t *)"";
    out->Records.len = 0;
    out->Records.fd = -1;
}

/* Resolve the partition and its SP; sets fp->out.ErrorCode. */
static bool resolve(sf_state_t *st, sf_part_t *fp) {
    gr_broker_t *b = st->req->b;
    fp->p = NULL;
    fp->part = NULL;
    gr_err_t err = GR_ERR_NONE;
    const gr_meta_topic_t *mt = gr_meta_topic_find_id(b->meta, &fp->topic_id);
    if (!mt)
        err = GR_ERR_UNKNOWN_TOPIC_ID;
    else if ((err = gr_req_authz(st->req, GR_AZ_SHARE_FETCH_TOPIC, mt->name))) /* READ on the topic */
        ;
    else if (!(fp->p = gr_parts_find_id(b->parts, &fp->topic_id, fp->partition)))
        err = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    else if (fp->p->offline)
        err = GR_ERR_KAFKA_STORAGE_ERROR;
    else
        err = gr_share_part_get(b, st->group, fp->p, &fp->part);
    if (err) fp->p = NULL, fp->part = NULL;
    fp->out.ErrorCode = (int16_t)err;
    return !err;
}

static int64_t probe(sf_state_t *st, int64_t want) {
    int64_t bytes = 0;
    for (int32_t i = 0; i < st->n && bytes < want; i++) {
        sf_part_t *fp = &st->parts[i];
        if (!fp->fetch || !fp->part) continue;
        gr_sp_conf_t conf;
        gr_share_part_conf(fp->part, &conf, NULL);
        bytes += gr_share_probe_bytes(fp->part, fp->p, &conf, want - bytes);
    }
    return bytes;
}

/* Acquire from fp within aq's budget and *limit bytes (per at most); returns the records. */
static int64_t acquire_one(sf_state_t *st, sf_part_t *fp, gr_share_acq_t *aq, int64_t per, int64_t *limit) {
    gr_sp_conf_t conf;
    gr_share_part_conf(fp->part, &conf, NULL);
    aq->p = fp->p;
    aq->part = fp->part;
    aq->conf = &conf;
    aq->max_bytes = per < *limit ? per : *limit;
    gr_share_acq_out_t ao = {.records = &fp->out.Records};
    gr_err_t err = gr_share_acquire(aq, &ao);
    if (err) fp->out.ErrorCode = (int16_t)err;
    if (!ao.n_records) return 0;
    GR_METRIC(fp->p->bytes_out += (uint64_t)ao.bytes);
    GR_METRIC(fp->p->records_out += (uint64_t)ao.n_records);
    fp->out.AcquiredRecords.v = gr_req_alloc(st->req, &gr_ShareFetchResponse_AcquiredRecords_sd, (int32_t)ao.n_ranges);
    fp->out.AcquiredRecords.n = (int32_t)ao.n_ranges;
    for (size_t k = 0; k < ao.n_ranges; k++) {
        fp->out.AcquiredRecords.v[k].FirstOffset = ao.ranges[k].first_offset;
        fp->out.AcquiredRecords.v[k].LastOffset = ao.ranges[k].last_offset;
        fp->out.AcquiredRecords.v[k].DeliveryCount = ao.ranges[k].delivery_count;
    }
    aq->budget -= ao.n_records;
    *limit -= ao.bytes;
    aq->min_one = false;
    return ao.n_records;
}

/* As Kafka 4.4.0 (DelayedShareFetch): the loaded share-partitions first, in fetch order, with
 * MaxRecords spent in that order and MaxBytes shared evenly. Only if they give nothing does a
 * share-partition this fetch loads count, one after the other until one gives records: that
 * one answers alone among them (Kafka answers as soon as the first state read completes, and
 * the first one it sends completes first); the rest are left out of this answer and are
 * loaded for the next fetch of any member (Kafka's later reads complete within milliseconds:
 * whether its next fetch sees all of them or not yet is timing, docs/compatibility.md). */
static int64_t acquire_all(sf_state_t *st) {
    const gr_ShareFetchRequest_t *rq = st->req->body;
    gr_share_acq_t aq = {.req = st->req,
                         .member = st->member,
                         .now = gr_loop_now(st->req->b->loop),
                         .budget = rq->MaxRecords,
                         .batch_size = rq->BatchSize,
                         .mode = rq->ShareAcquireMode,
                         .min_one = true};
    int32_t n_loaded = 0;
    for (int32_t i = 0; i < st->n; i++)
        n_loaded += st->parts[i].fetch && st->parts[i].part && !st->parts[i].part->loading;
    int64_t limit = st->max_bytes, got = 0;
    int64_t per = st->max_bytes / (n_loaded > 0 ? n_loaded : 1);
    for (int32_t i = 0; i < st->n && aq.budget > 0; i++) {
        sf_part_t *fp = &st->parts[i];
        if (fp->fetch && fp->part && !fp->part->loading) got += acquire_one(st, fp, &aq, per, &limit);
    }
    per = st->max_bytes / (n_loaded + 1);
    for (int32_t i = 0; i < st->n; i++) {
        sf_part_t *fp = &st->parts[i];
        fp->loading = false;
        if (!fp->fetch || !fp->part || !fp->part->loading) continue;
        if (got > 0) {
            fp->loading = true; /* left out of this answer */
            fp->part->loading = false;
            continue;
        }
        fp->part->loading = false;
        got += acquire_one(st, fp, &aq, per, &limit);
    }
    return got;
}

/* Resolve every share-partition to fetch from; returns how many resolved. */
static int32_t resolve_all(sf_state_t *st) {
    int32_t n_ok = 0;
    for (int32_t i = 0; i < st->n; i++)
        if (st->parts[i].fetch) n_ok += resolve(st, &st->parts[i]);
    return n_ok;
}

/* One evaluation (§2.7) after resolve_all gave n_ok. Returns true when the fetch is complete. */
static bool evaluate_resolved(sf_state_t *st, int32_t n_ok, bool final) {
    const gr_ShareFetchRequest_t *rq = st->req->body;
    if (n_ok == 0 || rq->MaxRecords <= 0 || st->max_bytes <= 0) return true;
    if (!final && rq->MinBytes > 1 && probe(st, rq->MinBytes) < rq->MinBytes) return false;
    int64_t got = acquire_all(st);
    return got > 0 || final || rq->MaxWaitMs <= 0;
}

static bool evaluate(sf_state_t *st, bool final) { return evaluate_resolved(st, resolve_all(st), final); }

/* ---------------------------------------------------------------- long poll */

static void unwait_all(sf_state_t *st) {
    for (int32_t i = 0; i < st->n; i++) {
        gr_partition_unwait(&st->parts[i].pw);
        gr_share_waiter_unlink(&st->parts[i].sw);
    }
}

static void on_wake(void *arg) {
    sf_part_t *fp = arg;
    gr_timer_start(&fp->st->timer, 0, 0);
}

static void wait_all(sf_state_t *st) {
    for (int32_t i = 0; i < st->n; i++) {
        sf_part_t *fp = &st->parts[i];
        if (!fp->fetch || !fp->part) continue;
        gr_partition_wait(fp->p, &fp->pw, on_wake, fp);
        gr_share_part_wait(fp->part, &fp->sw, on_wake, fp);
    }
}

static void fetch_complete(sf_state_t *st) {
    st->fetch_done = true;
    unwait_all(st);
    gr_timer_stop(&st->timer);
    if (st->w) return; /* acks_durable answers */
    if (st->parked) gr_broker_unpark(st->req->b, st->req);
    sf_respond(st);
}

static void on_timer(gr_timer_t *t, int64_t now) {
    sf_state_t *st = t->data;
    unwait_all(st);
    if (st->fetch_done || evaluate(st, now >= st->deadline)) {
        fetch_complete(st);
        return;
    }
    wait_all(st);
    gr_timer_start(&st->timer, st->deadline - now, 0);
}

/* Client gone or shutdown: answer now (dropped); pending writes only count down. */
static void sf_cancel(gr_req_t *req) {
    sf_state_t *st = req->park;
    unwait_all(st);
    gr_timer_stop(&st->timer);
    if (st->w) gr_share_ackwait_detach(st->w);
    st->w = NULL;
    sf_respond(st);
}

static void park(sf_state_t *st, int32_t wait_ms, bool waiters) {
    gr_req_t *req = st->req;
    st->deadline = gr_loop_now(req->b->loop) + wait_ms;
    if (waiters) {
        gr_timer_start(&st->timer, wait_ms, 0);
        wait_all(st);
    }
    st->parked = true;
    req->park = st;
    gr_broker_park(req->b, req, sf_cancel);
}

/* Fairness among the members of one share-partition: what this request's acknowledgements
 * freed (and anything else acquirable) goes first to the fetches already waiting for it, in
 * the order they were woken, not to the fetch that freed it. Without this, with the record-lock
 * cap binding, the members that acknowledge keep re-acquiring and the waiting ones starve
 * (16 consumers on one partition: 0 to 82,657 records each). Queued fetches evaluate from a
 * 0 ms timer, after the woken waiters' own (timers of one due time run in start order). */
static bool queue_behind_waiters(const sf_state_t *st) {
    for (int32_t i = 0; i < st->n; i++) {
        const sf_part_t *fp = &st->parts[i];
        if (fp->fetch && fp->part && gr_share_part_has_waiters(fp->part)) return true;
    }
    return false;
}

/* ---------------------------------------------------------------- entry */

/* §2.2 steps 3-4 and the acquire mode (§2.5). */
static gr_err_t check_request(sf_state_t *st) {
    gr_req_t *req = st->req;
    const gr_ShareFetchRequest_t *rq = req->body;
    /* Kafka 4.4.0 answers these top-level errors with a null ErrorMessage (share
     * divergences test, request_texts); an empty GroupId is refused here (Kafka opens a
     * share session for it, docs/compatibility.md). */
    if (rq->GroupId.len <= 0) return GR_ERR_INVALID_REQUEST;
    gr_err_t denied = gr_req_authz_s(req, GR_AZ_SHARE_FETCH, rq->GroupId); /* READ on the group */
    if (denied) return denied;
    if (rq->MemberId.len <= 0 || rq->MemberId.len > 36) return GR_ERR_INVALID_REQUEST;
    bool v2 = req->hdr.api_version >= 2;
    if (v2 && rq->IsRenewAck && (rq->MaxBytes || rq->MinBytes || rq->MaxRecords || rq->MaxWaitMs))
        return GR_ERR_INVALID_REQUEST;
    /* Kafka 4.4.0 answers -1 (an unhandled exception) for an unknown mode; 42 is deliberate. */
    if (v2 && rq->ShareAcquireMode != GR_SP_MODE_BATCH_OPTIMIZED && rq->ShareAcquireMode != GR_SP_MODE_RECORD_LIMIT)
        return GR_ERR_INVALID_REQUEST;
    int64_t cap = req->b->cfg->fetch_max_bytes > 0 ? req->b->cfg->fetch_max_bytes : INT32_MAX;
    st->max_bytes = rq->MaxBytes < cap ? rq->MaxBytes : cap;
    int64_t qcap = gr_broker_quota_fetch_cap(req); /* what the fetch quota lets one window carry */
    if (qcap < st->max_bytes) st->max_bytes = qcap;
    st->do_fetch = rq->ShareSessionEpoch != -1 && !(v2 && rq->IsRenewAck);
    return GR_ERR_NONE;
}

static bool has_acks(const gr_ShareFetchRequest_t *rq) {
    for (int32_t t = 0; t < rq->Topics.n; t++)
        for (int32_t i = 0; i < rq->Topics.v[t].Partitions.n; i++)
            if (rq->Topics.v[t].Partitions.v[i].AcknowledgementBatches.n > 0) return true;
    return false;
}

static void session_update(const gr_ShareFetchRequest_t *rq, gr_share_session_t *sess) {
    for (int32_t t = 0; t < rq->Topics.n; t++)
        for (int32_t i = 0; i < rq->Topics.v[t].Partitions.n; i++)
            gr_share_session_add(sess, &rq->Topics.v[t].TopicId, rq->Topics.v[t].Partitions.v[i].PartitionIndex);
    for (int32_t t = 0; t < rq->ForgottenTopicsData.n; t++) {
        const gr_ShareFetchRequest_ForgottenTopic_t *ft = &rq->ForgottenTopicsData.v[t];
        for (int32_t i = 0; i < ft->Partitions.n; i++) gr_share_session_forget(sess, &ft->TopicId, ft->Partitions.v[i]);
    }
}

/* §2.3: the session context (share/share_session.h); errors are top-level. */
static gr_err_t session_step(sf_state_t *st, gr_share_session_t **out) {
    const gr_ShareFetchRequest_t *rq = st->req->body;
    const gr_ss_request_t sr = {GR_SS_FETCH, st->group, st->member, st->epoch, has_acks(rq), st->req->conn};
    gr_err_t err = gr_share_session_step(st->req->b, &sr, out);
    if (!err && !gr_share_session_epoch_final(st->epoch)) session_update(rq, *out);
    return err;
}

static void top_error(sf_state_t *st, gr_err_t err) {
    const gr_ShareFetchRequest_t *rq = st->req->body;
    st->resp->ErrorCode = (int16_t)err;
    st->resp->AcquisitionLockTimeoutMs = 0; /* Kafka 4.4.0's error answers carry 0 */
    st->n = 0;
    st->fetch_done = true;
    if (err == GR_ERR_SHARE_SESSION_LIMIT_REACHED && rq->MaxWaitMs > 0) {
        /* Kafka delays this answer by MaxWaitMs to throttle retries (§2.3). */
        park(st, rq->MaxWaitMs, false);
        gr_timer_start(&st->timer, rq->MaxWaitMs, 0);
        return;
    }
    sf_respond(st);
}

/* ---------------------------------------------------------------- response */

/* §2.3 response contents for a subsequent epoch. */
static bool include(const sf_state_t *st, const sf_part_t *fp, const gr_share_sess_part_t *sp) {
    if (!fp->fetch) return fp->acked || fp->out.ErrorCode;
    /* Kafka 4.4.0 answers only the partitions the fetch read; one still loading waits for a later answer */
    if (fp->loading && !fp->acked && !fp->out.ErrorCode) return false;
    if (st->epoch == 0) return true;
    bool recovered = sp && sp->last_err && !fp->out.ErrorCode;
    return fp->out.AcquiredRecords.n > 0 || fp->out.ErrorCode || fp->fresh || fp->acked || recovered;
}

/* Session bookkeeping for this answer; returns whether fp goes out. */
static bool note_session(sf_state_t *st, sf_part_t *fp, gr_share_session_t *sess, int32_t *moved, int32_t *n_moved) {
    int32_t si = sess && fp->fetch ? gr_share_session_index(sess, &fp->topic_id, fp->partition) : -1;
    gr_share_sess_part_t *sp = si >= 0 ? &sess->parts[si] : NULL;
    bool in = include(st, fp, sp);
    /* One left out while loading stays fresh for a later answer, except from the answer that
     * opens the session (Kafka 4.4.0 marks no partition of a new session as to be sent). */
    if (sp && (in || st->epoch == 0)) {
        sp->last_err = fp->out.ErrorCode;
        sp->fresh = false;
        if (fp->out.AcquiredRecords.n > 0) { /* insertion keeps the indexes ascending */
            int32_t k = (*n_moved)++;
            while (k > 0 && moved[k - 1] > si) moved[k] = moved[k - 1], k--;
            moved[k] = si;
        }
    }
    return in;
}

static void leader_hints(sf_state_t *st, part_out_t *out) {
    gr_req_t *req = st->req;
    if (out->ErrorCode != GR_ERR_NOT_LEADER_OR_FOLLOWER && out->ErrorCode != GR_ERR_FENCED_LEADER_EPOCH) return;
    out->CurrentLeader = gr_req_alloc(req, &gr_ShareFetchResponse_LeaderIdAndEpoch_sd, 1);
    out->CurrentLeader->LeaderId = gr_broker_node_id(req->b);
    out->CurrentLeader->LeaderEpoch = 0;
    if (st->resp->NodeEndpoints.n > 0) return;
    gr_ShareFetchResponse_NodeEndpoint_t *ne = gr_req_alloc(req, &gr_ShareFetchResponse_NodeEndpoint_sd, 1);
    ne->NodeId = gr_broker_node_id(req->b);
    ne->Host = gr_str_c(gr_broker_host(req->b, req->conn));
    ne->Port = gr_broker_adv_port(req->b, req->conn);
    ne->Rack = GR_STR_NULL;
    st->resp->NodeEndpoints.v = ne;
    st->resp->NodeEndpoints.n = 1;
}

/* Append fp's output to the response, grouped by topic in first-seen order. */
static void emit(sf_state_t *st, sf_part_t *fp, int32_t *n_topics, const bool *in) {
    gr_ShareFetchResponse_t *resp = st->resp;
    gr_ShareFetchResponse_ShareFetchableTopicResponse_t *rt = NULL;
    for (int32_t t = 0; t < *n_topics && !rt; t++)
        if (gr_uuid_eq(&resp->Responses.v[t].TopicId, &fp->topic_id)) rt = &resp->Responses.v[t];
    if (!rt) {
        rt = &resp->Responses.v[(*n_topics)++];
        rt->TopicId = fp->topic_id;
        int32_t cap = 0;
        for (int32_t i = 0; i < st->n; i++) cap += in[i] && gr_uuid_eq(&st->parts[i].topic_id, &fp->topic_id);
        rt->Partitions.v = gr_req_alloc(st->req, &gr_ShareFetchResponse_PartitionData_sd, cap);
        rt->Partitions.n = 0;
    }
    if (!fp->out.Records.file_backed) empty_records(&fp->out);
    leader_hints(st, &fp->out);
    rt->Partitions.v[rt->Partitions.n++] = fp->out;
}

static void sf_respond(sf_state_t *st) {
    gr_req_t *req = st->req;
    gr_ShareFetchResponse_t *resp = st->resp;
    gr_share_session_t *sess = gr_share_session_find(req->b, st->group, st->member);
    bool *in = gr_arena_alloc(&req->arena, (size_t)(st->n ? st->n : 1) * sizeof(bool));
    int32_t *moved = gr_arena_alloc(&req->arena, (size_t)(st->n ? st->n : 1) * sizeof(int32_t));
    int32_t n_in = 0, n_moved = 0, n_topics = 0;
    for (int32_t i = 0; i < st->n; i++) {
        sf_part_t *fp = &st->parts[i];
        in[i] = note_session(st, fp, sess, moved, &n_moved);
        if (!in[i] && fp->out.Records.file_backed) gr_plog_slice_release(fp->out.Records.owner);
        n_in += in[i];
    }
    /* A subsequent epoch moves the partitions that returned records to the end of the session
     * (Kafka 4.4.0's ShareSessionContext); the answer that opens the session keeps the order. */
    if (sess && st->epoch > 0) gr_share_session_to_end(sess, moved, n_moved);
    resp->Responses.v = gr_req_alloc(req, &gr_ShareFetchResponse_ShareFetchableTopicResponse_sd, n_in);
    for (int32_t i = 0; i < st->n; i++)
        if (in[i]) emit(st, &st->parts[i], &n_topics, in);
    resp->Responses.n = n_topics;
    gr_req_respond(req, resp);
}

void gr_h_share_fetch(gr_req_t *req) {
    const gr_ShareFetchRequest_t *rq = req->body;
    sf_state_t *st = gr_arena_alloc(&req->arena, sizeof(*st));
    memset(st, 0, sizeof(*st));
    st->req = req;
    st->resp = gr_req_resp_new(req);
    st->group = gr_req_cstr(req, rq->GroupId);
    st->member = gr_req_cstr(req, rq->MemberId);
    st->epoch = rq->ShareSessionEpoch;
    gr_timer_init(req->b->loop, &st->timer, on_timer, st);
    gr_sgc_values_t vals;
    gr_share_group_values(req->b, st->group, &vals);
    st->resp->AcquisitionLockTimeoutMs = vals.record_lock_duration_ms;
    gr_share_session_t *sess = NULL;
    gr_err_t err = check_request(st);
    if (!err) err = session_step(st, &sess);
    if (err) {
        top_error(st, err);
        return;
    }
    layout(st, sess);
    apply_acks(st);
    if (gr_share_session_epoch_final(st->epoch)) gr_share_session_close(req->b, sess); /* after the acks (§2.3) */
    int32_t n_ok = st->do_fetch ? resolve_all(st) : 0;
    if (st->do_fetch && queue_behind_waiters(st)) {
        park(st, rq->MaxWaitMs, true);
        gr_timer_start(&st->timer, 0, 0);
        return;
    }
    if (!st->do_fetch || evaluate_resolved(st, n_ok, false)) {
        st->fetch_done = true;
        if (!st->w) {
            sf_respond(st);
            return;
        }
        park(st, 0, false);
        return;
    }
    park(st, rq->MaxWaitMs, true);
}
