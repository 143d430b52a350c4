/* ListOffsets (2), v1-11, and DeleteRecords (21), v0-2.
 *
 * ListOffsets follows KafkaApis.handleListOffsetRequest and
 * UnifiedLog.fetchOffsetByTimestamp: a partition named twice in one request
 * is answered once, with INVALID_REQUEST; a special timestamp below the
 * version that introduced it gets UNSUPPORTED_VERSION; -2 EARLIEST and -4 EARLIEST_LOCAL
 * (no tiered storage) give the log start offset; -1 LATEST the high watermark
 * (= log end offset on a single replica), or with IsolationLevel 1
 * (read_committed) the last stable offset; -3
 * MAX_TIMESTAMP the first record carrying the largest timestamp; -5
 * EARLIEST_PENDING_UPLOAD and -6 LATEST_TIERED give offset -1 and leader epoch
 * -1 without tiered storage; any other value is a timestamp: the first record
 * at or after the log start whose timestamp is >= it, or offset -1 and
 * timestamp -1 when there is none. The leader epoch is the epoch stored in the
 * batch that holds the record (or ours for earliest/latest). As Kafka's
 * Partition.fetchOffsetForTimestamp, a timestamp (or MAX_TIMESTAMP) hit at or past
 * the last fetchable offset (the high watermark, or the last stable offset for
 * read_committed) is answered as none found.
 *
 * DeleteRecords follows Partition.deleteRecordsOnLeader: -1 means the high
 * watermark, other negative offsets and offsets above the high watermark are
 * OFFSET_OUT_OF_RANGE, a topic whose cleanup.policy lacks "delete" gets
 * POLICY_VIOLATION, and the answer is the new low watermark (log start offset).
 * Parked fetches of the partition are woken: their offsets may now be out of range.
 *
 * @locality loop thread. */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto/records.h"
#include "proto_msgs.h"

#define TS_LATEST                  (-1)
#define TS_EARLIEST                (-2)
#define TS_MAX_TIMESTAMP           (-3)
#define TS_EARLIEST_LOCAL          (-4)
#define TS_EARLIEST_PENDING_UPLOAD (-5)
#define TS_LATEST_TIERED           (-6)

/* How many batches a timestamp lookup may walk past the one the time index
 * pointed to (only needed when DeleteRecords moved the log start into a batch). */
#define LOOKUP_MAX_BATCHES 64

typedef gr_ListOffsetsResponse_ListOffsetsPartitionResponse_t lo_out_t;

/* ---------------------------------------------------------------- record lookup */

typedef struct ts_hit {
    int64_t offset, timestamp;
    int32_t epoch;
} ts_hit_t;

/* Scan the records of one batch: with exact, the first record whose timestamp
 * equals ts (MAX_TIMESTAMP), else the first with timestamp >= ts; only offsets
 * >= min_offset count. Returns GR_ERR__NOENT when no record matches. */
static gr_err_t scan_batch(const gr_batch_view_t *bv, int64_t ts, bool exact, int64_t min_offset, ts_hit_t *hit) {
    gr_wbuf_t scratch;
    gr_wbuf_init(&scratch);
    gr_record_iter_t ri;
    gr_err_t err = gr_record_iter_init(&ri, bv, &scratch, 0, NULL, 0);
    gr_record_t rec;
    while (!err && (err = gr_record_iter_next(&ri, &rec, NULL, 0)) == GR_ERR_NONE) {
        if (rec.offset < min_offset || (exact ? rec.timestamp != ts : rec.timestamp < ts)) continue;
        hit->offset = rec.offset;
        hit->timestamp = rec.timestamp;
        hit->epoch = bv->partition_leader_epoch >= 0 ? bv->partition_leader_epoch : -1;
        break;
    }
    gr_wbuf_free(&scratch);
    return err == GR_ERR_NONE ? GR_ERR_NONE : err == GR_ERR__NOENT ? GR_ERR__NOENT : err;
}

/* Find the record from offset `from` on (batch granularity start, as the time
 * index gives it). Reads one batch at a time with a copying read. */
static gr_err_t lookup_records(gr_partition_t *p, int64_t from, int64_t ts, bool exact, ts_hit_t *hit) {
    int64_t start = gr_plog_start_offset(p->plog), end = gr_plog_end_offset(p->plog);
    char errstr[256];
    for (int n = 0; n < LOOKUP_MAX_BATCHES && from < end; n++) {
        gr_wbuf_t wb;
        gr_wbuf_init(&wb);
        gr_plog_slice_t sl;
        gr_err_t err =
            gr_plog_read_copy(p->plog, from < start ? start : from, 1, end, &wb, &sl, errstr, sizeof(errstr));
        if (err || sl.len == 0) {
            gr_wbuf_free(&wb);
            return err ? err : GR_ERR__NOENT;
        }
        const uint8_t *data = wb.mem;
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, data, sl.len);
        err = gr_batch_iter_next(&it, &bv, NULL, 0);
        if (!err && bv.max_timestamp >= ts)
            err = scan_batch(&bv, ts, exact, start, hit);
        else if (!err)
            err = GR_ERR__NOENT;
        gr_wbuf_free(&wb);
        if (err != GR_ERR__NOENT || exact) return err;
        from = sl.last_offset + 1;
    }
    return GR_ERR__NOENT;
}

/* ---------------------------------------------------------------- ListOffsets */

static void lo_fill(lo_out_t *out, int64_t offset, int64_t timestamp, int32_t epoch) {
    out->Offset = offset;
    out->Timestamp = timestamp;
    out->LeaderEpoch = epoch;
}

static gr_err_t lo_by_time(gr_partition_t *p, int64_t ts, lo_out_t *out) {
    int64_t off, batch_ts;
    ts_hit_t hit;
    bool exact = ts == TS_MAX_TIMESTAMP;
    gr_err_t err = exact ? gr_plog_max_timestamp(p->plog, &off, &batch_ts)
                         : gr_plog_offset_for_timestamp(p->plog, ts, &off, &batch_ts);
    if (!err) err = lookup_records(p, off, exact ? batch_ts : ts, exact, &hit);
    if (err == GR_ERR__NOENT) {
        lo_fill(out, -1, -1, -1);
        return GR_ERR_NONE;
    }
    if (err) {
        GR_WARN("list_offsets", "timestamp lookup in %s-%d failed: %s", p->topic, p->index, gr_err_str(err));
        return err == GR_ERR_KAFKA_STORAGE_ERROR ? err : GR_ERR_UNKNOWN_SERVER_ERROR;
    }
    lo_fill(out, hit.offset, hit.timestamp, hit.epoch);
    return GR_ERR_NONE;
}

static gr_err_t lo_partition(gr_partition_t *p, int32_t current_leader_epoch, int64_t ts, bool committed,
                             lo_out_t *out) {
    int64_t fetchable = committed ? gr_partition_lso(p) : gr_plog_end_offset(p->plog);
    if (p->offline) return GR_ERR_KAFKA_STORAGE_ERROR;
    if (current_leader_epoch >= 0 && current_leader_epoch != p->leader_epoch)
        return current_leader_epoch < p->leader_epoch ? GR_ERR_FENCED_LEADER_EPOCH : GR_ERR_UNKNOWN_LEADER_EPOCH;
    switch (ts) {
    case TS_EARLIEST:
    case TS_EARLIEST_LOCAL: lo_fill(out, gr_plog_start_offset(p->plog), -1, p->leader_epoch); return GR_ERR_NONE;
    case TS_LATEST: lo_fill(out, fetchable, -1, p->leader_epoch); return GR_ERR_NONE;
    case TS_EARLIEST_PENDING_UPLOAD:
    case TS_LATEST_TIERED: lo_fill(out, -1, -1, -1); return GR_ERR_NONE;
    default: {
        gr_err_t err = lo_by_time(p, ts, out);
        if (!err && out->Offset >= fetchable) lo_fill(out, -1, -1, -1);
        return err;
    }
    }
}

/* Kafka's minimum ListOffsets version per special timestamp
 * (ReplicaManager.timestampMinSupportedVersion); other negative values are
 * never supported. */
static bool ts_unsupported(int64_t ts, int16_t version) {
    switch (ts) {
    case TS_LATEST:
    case TS_EARLIEST: return false;
    case TS_MAX_TIMESTAMP: return version < 7;
    case TS_EARLIEST_LOCAL: return version < 8;
    case TS_LATEST_TIERED: return version < 9;
    case TS_EARLIEST_PENDING_UPLOAD: return version < 11;
    default: return ts < 0;
    }
}

/* Partitions named more than once (by topic name and index), Kafka's
 * ListOffsetsRequest.duplicatePartitions. Kafka collects the answers in a map
 * keyed by partition, so a duplicated partition is answered once, with
 * INVALID_REQUEST. Sorting keeps this O(n log n). */
enum { LO_NORMAL, LO_DUP, LO_DROP };

typedef struct tp_key {
    gr_str_t name;
    int32_t index;
    size_t seq; /* position in the request */
} tp_key_t;

static int tp_cmp(const void *a, const void *b) {
    const tp_key_t *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    if (x->name.len != y->name.len) return x->name.len < y->name.len ? -1 : 1;
    return x->name.len > 0 ? memcmp(x->name.ptr, y->name.ptr, (size_t)x->name.len) : 0;
}

static int tp_cmp_seq(const void *a, const void *b) {
    int c = tp_cmp(a, b);
    if (c) return c;
    return ((const tp_key_t *)a)->seq < ((const tp_key_t *)b)->seq ? -1 : 1;
}

/* state[seq] for every requested partition, in request order. */
static uint8_t *find_duplicates(gr_req_t *req, size_t *total_out) {
    const gr_ListOffsetsRequest_t *rq = req->body;
    size_t total = 0, k = 0;
    for (int32_t t = 0; t < rq->Topics.n; t++)
        total += rq->Topics.v[t].Partitions.n > 0 ? (size_t)rq->Topics.v[t].Partitions.n : 0;
    /* total is bounded by the frame size (each partition took bytes of it). */
    tp_key_t *keys = gr_arena_alloc(&req->arena, (total ? total : 1) * sizeof(*keys));
    uint8_t *state = gr_arena_alloc(&req->arena, total ? total : 1);
    memset(state, LO_NORMAL, total ? total : 1);
    for (int32_t t = 0; t < rq->Topics.n; t++)
        for (int32_t i = 0; i < rq->Topics.v[t].Partitions.n; i++, k++)
            keys[k] = (tp_key_t){rq->Topics.v[t].Name, rq->Topics.v[t].Partitions.v[i].PartitionIndex, k};
    qsort(keys, total, sizeof(*keys), tp_cmp_seq);
    for (size_t i = 1; i < total; i++) {
        if (tp_cmp(&keys[i - 1], &keys[i])) continue;
        if (state[keys[i - 1].seq] == LO_NORMAL) state[keys[i - 1].seq] = LO_DUP; /* first occurrence answers */
        state[keys[i].seq] = LO_DROP;
    }
    *total_out = total;
    return state;
}

static gr_err_t lo_one(gr_req_t *req, const char *name, const gr_ListOffsetsRequest_ListOffsetsPartition_t *qp,
                       uint8_t state, gr_err_t denied, lo_out_t *out) {
    lo_fill(out, -1, -1, -1);
    out->PartitionIndex = qp->PartitionIndex;
    if (denied) return denied;
    if (state == LO_DUP) return GR_ERR_INVALID_REQUEST;
    if (ts_unsupported(qp->Timestamp, req->hdr.api_version)) return GR_ERR_UNSUPPORTED_VERSION;
    gr_partition_t *p = gr_parts_find(req->b->parts, name, qp->PartitionIndex);
    if (!p) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    const gr_ListOffsetsRequest_t *rq = req->body;
    gr_err_t err = lo_partition(p, qp->CurrentLeaderEpoch, qp->Timestamp, rq->IsolationLevel == 1, out);
    if (err) lo_fill(out, -1, -1, -1);
    return err;
}

void gr_h_list_offsets(gr_req_t *req) {
    const gr_ListOffsetsRequest_t *rq = req->body;
    gr_ListOffsetsResponse_t *resp = gr_req_resp_new(req);
    size_t total, seq = 0;
    uint8_t *state = find_duplicates(req, &total);
    int32_t nt = rq->Topics.n > 0 ? rq->Topics.n : 0;
    resp->Topics.v = gr_req_alloc(req, &gr_ListOffsetsResponse_ListOffsetsTopicResponse_sd, nt);
    resp->Topics.n = 0;
    for (int32_t t = 0; t < nt; t++) {
        const gr_ListOffsetsRequest_ListOffsetsTopic_t *qt = &rq->Topics.v[t];
        int32_t np = qt->Partitions.n > 0 ? qt->Partitions.n : 0;
        gr_ListOffsetsResponse_ListOffsetsTopicResponse_t *rt = &resp->Topics.v[resp->Topics.n];
        const char *name = gr_req_cstr(req, qt->Name);
        rt->Name = qt->Name;
        gr_err_t denied = gr_req_authz(req, GR_AZ_LIST_OFFSETS, name);
        rt->Partitions.v = gr_req_alloc(req, &gr_ListOffsetsResponse_ListOffsetsPartitionResponse_sd, np);
        rt->Partitions.n = 0;
        for (int32_t i = 0; i < np; i++, seq++) {
            if (state[seq] == LO_DROP) continue;
            lo_out_t *out = &rt->Partitions.v[rt->Partitions.n++];
            out->ErrorCode = (int16_t)lo_one(req, name, &qt->Partitions.v[i], state[seq], denied, out);
        }
        if (rt->Partitions.n > 0) resp->Topics.n++; /* Kafka lists only topics with answers */
    }
    gr_req_respond(req, resp);
}

/* ---------------------------------------------------------------- DeleteRecords */

static gr_err_t delete_partition(gr_req_t *req, const char *topic, int32_t index, int64_t offset, int64_t *low) {
    gr_partition_t *p = gr_parts_find(req->b->parts, topic, index);
    if (!p) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (p->offline) return GR_ERR_KAFKA_STORAGE_ERROR;
    char buf[128];
    const gr_meta_topic_t *mt = gr_meta_topic_find(req->b->meta, topic);
    const char *policy = mt ? gr_meta_topic_config(req->b->meta, mt, "cleanup.policy", buf, sizeof(buf)) : NULL;
    if (policy && !strstr(policy, "delete")) return GR_ERR_POLICY_VIOLATION;
    int64_t hwm = gr_plog_end_offset(p->plog);
    if (offset == -1) offset = hwm;
    if (offset < 0 || offset > hwm) return GR_ERR_OFFSET_OUT_OF_RANGE;
    char errstr[256];
    gr_err_t err = gr_plog_delete_records(p->plog, offset, errstr, sizeof(errstr));
    if (err) {
        GR_ERROR("delete_records", "%s-%d up to %lld: %s", topic, index, (long long)offset, errstr);
        if (gr_plog_offline(p->plog)) p->offline = true; /* a full disk alone leaves it online */
        return err;
    }
    *low = gr_plog_start_offset(p->plog);
    gr_partition_notify(p);
    return GR_ERR_NONE;
}

void gr_h_delete_records(gr_req_t *req) {
    const gr_DeleteRecordsRequest_t *rq = req->body;
    gr_DeleteRecordsResponse_t *resp = gr_req_resp_new(req);
    int32_t nt = rq->Topics.n > 0 ? rq->Topics.n : 0;
    resp->Topics.v = gr_req_alloc(req, &gr_DeleteRecordsResponse_DeleteRecordsTopicResult_sd, nt);
    resp->Topics.n = nt;
    for (int32_t t = 0; t < nt; t++) {
        const gr_DeleteRecordsRequest_DeleteRecordsTopic_t *qt = &rq->Topics.v[t];
        gr_DeleteRecordsResponse_DeleteRecordsTopicResult_t *rt = &resp->Topics.v[t];
        const char *name = gr_req_cstr(req, qt->Name);
        int32_t np = qt->Partitions.n > 0 ? qt->Partitions.n : 0;
        rt->Name = qt->Name;
        gr_err_t denied = gr_req_authz(req, GR_AZ_DELETE_RECORDS, name);
        rt->Partitions.v = gr_req_alloc(req, &gr_DeleteRecordsResponse_DeleteRecordsPartitionResult_sd, np);
        rt->Partitions.n = np;
        for (int32_t i = 0; i < np; i++) {
            const gr_DeleteRecordsRequest_DeleteRecordsPartition_t *qp = &qt->Partitions.v[i];
            gr_DeleteRecordsResponse_DeleteRecordsPartitionResult_t *out = &rt->Partitions.v[i];
            int64_t low = -1;
            out->PartitionIndex = qp->PartitionIndex;
            out->ErrorCode =
                (int16_t)(denied ? denied : delete_partition(req, name, qp->PartitionIndex, qp->Offset, &low));
            out->LowWatermark = out->ErrorCode ? -1 : low;
        }
    }
    gr_req_respond(req, resp);
}
