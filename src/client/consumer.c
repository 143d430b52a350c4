/* The plain consumer: assigned partitions, no group, no commits (gregor/consumer.h).
 *
 * Each assigned partition (cpart_t) has a position (`next`, -1 until resolved), and
 * at most one Fetch in flight. Positions given as BEGINNING / END / a timestamp are
 * resolved with ListOffsets to the partition leader. gr_consumer_poll sends one
 * sessionless Fetch (epoch -1) per leader for the partitions whose previous answer
 * has been read, and hands out records one at a time from the copied answer:
 * batches are walked with the records module (decompressing into a per-partition
 * scratch buffer), control batches and records before the position are skipped.
 * A record handed out points into those buffers, so it stays valid until the next
 * call, when a drained answer is freed.
 * @locality: the thread that owns the handle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "gregor/consumer.h"
#include "proto/records.h"
#include "proto_msgs.h"

typedef struct cpart {
    char *topic;
    int32_t partition;
    bool by_time;  /* start is a timestamp to resolve */
    int64_t start; /* offset, GR_OFFSET_BEGINNING/END, or a timestamp */
    int64_t next;  /* position; -1 while unresolved */
    int64_t oor;   /* position refused with OFFSET_OUT_OF_RANGE, to re-resolve; -1 none */
    bool inflight; /* a Fetch for it is out, to fetch_node */
    int32_t fetch_node;
    int64_t retry_at;
    uint8_t *blob; /* the Records of the last answer, being read */
    gr_batch_iter_t it;
    bool in_batch;
    gr_batch_view_t bv;
    gr_record_iter_t ri;
    gr_wbuf_t scratch;
} cpart_t;

/* An assignment of every partition of a topic, expanded once metadata is known. */
typedef struct cwild {
    char *topic;
    bool by_time;
    int64_t start;
} cwild_t;

struct gr_consumer_msg {
    const char *topic;
    int32_t partition;
    gr_record_t rec;
    int ts_type;
};

struct gr_consumer {
    gr__client_t *cl;
    cpart_t **parts;
    size_t n_parts, cap_parts;
    cwild_t *wild;
    size_t n_wild;
    size_t rr; /* the partition records were last served from */
    int32_t max_wait, min_bytes, max_bytes, part_max_bytes;
    gr_err_t fatal; /* a non-retriable error from a Fetch callback, returned by poll */
    gr_consumer_msg_t msg;
    char errbuf[1024];
};

/* One Fetch in flight to a broker: which consumer, to clear the inflight flags. */
typedef struct fetch_ctx {
    gr_consumer_t *c;
    int32_t node_id;
} fetch_ctx_t;

static int32_t conf_int(const gr_conf_t *conf, const char *name, int32_t dflt) {
    const char *v = gr_conf_get(conf, name);
    if (!v || !*v) return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    return *end || x < 0 || x > INT32_MAX ? dflt : (int32_t)x;
}

gr_err_t gr_consumer_new(const gr_conf_t *conf, gr_consumer_t **out, char *errstr, size_t errstr_size) {
    if (!conf || !out) return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size, "conf and out must not be NULL");
    *out = NULL;
    if (gr_conf_scope(conf) != GR_CONF_CONSUMER)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size,
                       "gr_consumer_new needs a GR_CONF_CONSUMER configuration");
    gr_consumer_t *c = calloc(1, sizeof(*c));
    if (!c) abort();
    gr_err_t err = gr__client_new(conf, &c->cl, errstr, errstr_size);
    if (err) {
        free(c);
        return err;
    }
    c->max_wait = conf_int(conf, "fetch.max.wait.ms", 500);
    c->min_bytes = conf_int(conf, "fetch.min.bytes", 1);
    c->max_bytes = conf_int(conf, "fetch.max.bytes", 52428800);
    c->part_max_bytes = conf_int(conf, "max.partition.fetch.bytes", 1048576);
    *out = c;
    return GR_ERR_NONE;
}

static void part_drop_blob(cpart_t *p) {
    free(p->blob);
    p->blob = NULL;
    p->in_batch = false;
}

void gr_consumer_destroy(gr_consumer_t *c) {
    if (!c) return;
    gr__client_destroy(c->cl); /* fails pending Fetches: their callbacks still see c */
    for (size_t i = 0; i < c->n_parts; i++) {
        part_drop_blob(c->parts[i]);
        gr_wbuf_free(&c->parts[i]->scratch);
        free(c->parts[i]->topic);
        free(c->parts[i]);
    }
    for (size_t i = 0; i < c->n_wild; i++) free(c->wild[i].topic);
    free(c->wild);
    free(c->parts);
    free(c);
}

const char *gr_consumer_last_error(const gr_consumer_t *c) { return c->errbuf; }

static cpart_t *find_part(gr_consumer_t *c, const char *topic, size_t tlen, int32_t partition) {
    for (size_t i = 0; i < c->n_parts; i++) {
        cpart_t *p = c->parts[i];
        if (p->partition == partition && strlen(p->topic) == tlen && !memcmp(p->topic, topic, tlen)) return p;
    }
    return NULL;
}

static void add_part(gr_consumer_t *c, const char *topic, int32_t partition, bool by_time, int64_t start) {
    cpart_t *p = find_part(c, topic, strlen(topic), partition);
    if (!p) {
        if (c->n_parts == c->cap_parts) {
            c->cap_parts = c->cap_parts ? c->cap_parts * 2 : 8;
            c->parts = realloc(c->parts, c->cap_parts * sizeof(*c->parts));
            if (!c->parts) abort();
        }
        p = calloc(1, sizeof(*p));
        if (!p || !(p->topic = strdup(topic))) abort();
        p->partition = partition;
        gr_wbuf_init(&p->scratch);
        c->parts[c->n_parts++] = p;
    }
    p->by_time = by_time;
    p->start = start;
    p->next = (!by_time && start >= 0) ? start : -1;
    p->oor = -1;
    part_drop_blob(p);
    gr__client_want_topic(c->cl, topic);
}

static gr_err_t assign(gr_consumer_t *c, const char *topic, int32_t partition, bool by_time, int64_t start) {
    c->errbuf[0] = 0;
    if (!topic || !*topic || partition < GR_PARTITION_ALL || (by_time ? start < 0 : start < GR_OFFSET_BEGINNING))
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "invalid topic, partition or start");
    if (partition >= 0) {
        add_part(c, topic, partition, by_time, start);
        return GR_ERR_NONE;
    }
    c->wild = realloc(c->wild, (c->n_wild + 1) * sizeof(*c->wild));
    if (!c->wild || !(c->wild[c->n_wild].topic = strdup(topic))) abort();
    c->wild[c->n_wild].by_time = by_time;
    c->wild[c->n_wild].start = start;
    c->n_wild++;
    gr__client_want_topic(c->cl, topic);
    return GR_ERR_NONE;
}

gr_err_t gr_consumer_assign(gr_consumer_t *c, const char *topic, int32_t partition, int64_t start) {
    return assign(c, topic, partition, false, start);
}

gr_err_t gr_consumer_assign_timestamp(gr_consumer_t *c, const char *topic, int32_t partition, int64_t ts) {
    return assign(c, topic, partition, true, ts);
}

/* ---- metadata and offsets ---- */

static int64_t deadline_of(gr_consumer_t *c, int timeout_ms) {
    int64_t t = timeout_ms >= 0 ? timeout_ms : conf_int(gr__client_conf(c->cl), "default.api.timeout.ms", 60000);
    return gr__client_tick(c->cl) + t;
}

static int io_wait(gr_consumer_t *c, int64_t deadline) {
    int64_t r = deadline - gr__client_now(c->cl);
    return r < 0 ? 0 : r > 100 ? 100 : (int)r;
}

/* Wait until metadata has answered for topic; unknown topics are an error. */
static gr_err_t wait_topic(gr_consumer_t *c, const char *topic, int64_t deadline, gr__mtopic_t **out) {
    gr__mtopic_t *t = gr__client_want_topic(c->cl, topic);
    while (!t->updated_ms || (t->err && !t->n_parts && t->err != GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)) {
        if (gr__client_unreachable(c->cl)) {
            char why[512];
            return gr__fmt(GR_ERR__ALL_BROKERS_DOWN, c->errbuf, sizeof(c->errbuf),
                           "Topic %s not present in metadata: no broker reachable (%s)", topic,
                           gr__client_unreachable_reason(c->cl, why, sizeof(why)));
        }
        if (gr__client_tick(c->cl) >= deadline) {
            char why[512];
            return gr__fmt(GR_ERR__TIMED_OUT, c->errbuf, sizeof(c->errbuf),
                           "Topic %s not present in metadata in time (%s)", topic,
                           gr__client_unreachable_reason(c->cl, why, sizeof(why)));
        }
        gr__client_request_metadata(c->cl);
        gr__client_io(c->cl, io_wait(c, deadline));
    }
    if (!t->n_parts)
        return gr__fmt(GR_ERR_UNKNOWN_TOPIC_OR_PARTITION, c->errbuf, sizeof(c->errbuf), "Topic '%s' does not exist",
                       topic);
    *out = t;
    return GR_ERR_NONE;
}

gr_err_t gr_consumer_partition_count(gr_consumer_t *c, const char *topic, int timeout_ms, int32_t *count) {
    c->errbuf[0] = 0;
    gr__mtopic_t *t;
    gr_err_t err = wait_topic(c, topic, deadline_of(c, timeout_ms), &t);
    if (!err) *count = t->n_parts;
    return err;
}

/* The leader of topic/partition from metadata (waiting for it). Unknown topics and
 * partitions are final answers: the caller does not retry them. */
static gr_err_t leader_of(gr_consumer_t *c, const char *topic, int32_t partition, int64_t deadline, int32_t *leader) {
    gr__mtopic_t *t;
    gr_err_t err = wait_topic(c, topic, deadline, &t);
    if (err) return err;
    if (partition < 0 || partition >= t->n_parts)
        return gr__fmt(GR_ERR_UNKNOWN_TOPIC_OR_PARTITION, c->errbuf, sizeof(c->errbuf),
                       "Partition %" PRId32 " of topic '%s' does not exist", partition, topic);
    *leader = t->parts[partition].leader;
    return GR_ERR_NONE;
}

/* One ListOffsets to the leader. Errors are retriable unless they say otherwise. */
static gr_err_t list_offset(gr_consumer_t *c, const char *topic, int32_t partition, int32_t leader, int64_t spec,
                            int64_t deadline, int64_t *offset) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_ListOffsetsRequest_t rq;
    gr_struct_init(&gr_ListOffsetsRequest_sd, &rq);
    rq.ReplicaId = -1;
    rq.Topics.n = 1;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_ListOffsetsRequest_ListOffsetsTopic_sd, 1);
    rq.Topics.v[0].Name = gr_str_c(topic);
    rq.Topics.v[0].Partitions.n = 1;
    rq.Topics.v[0].Partitions.v = gr_struct_alloc(&ar, &gr_ListOffsetsRequest_ListOffsetsPartition_sd, 1);
    rq.Topics.v[0].Partitions.v[0].PartitionIndex = partition;
    rq.Topics.v[0].Partitions.v[0].CurrentLeaderEpoch = -1;
    rq.Topics.v[0].Partitions.v[0].Timestamp = spec;
    void *resp;
    int16_t ver;
    gr_err_t err = gr__client_call(c->cl, leader < 0 ? INT32_MIN : leader, GR_API_ListOffsets, &rq, deadline, &ar,
                                   &resp, &ver, c->errbuf, sizeof(c->errbuf));
    if (!err) {
        const gr_ListOffsetsResponse_t *rs = resp;
        if (rs->Topics.n < 1 || rs->Topics.v[0].Partitions.n < 1) {
            err = gr__fmt(GR_ERR__MALFORMED, c->errbuf, sizeof(c->errbuf), "empty ListOffsets answer");
        } else {
            const gr_ListOffsetsResponse_ListOffsetsPartitionResponse_t *pr = &rs->Topics.v[0].Partitions.v[0];
            err = pr->ErrorCode;
            if (err)
                gr__fmt(err, c->errbuf, sizeof(c->errbuf), "ListOffsets %s-%" PRId32 ": %s", topic, partition,
                        gr_err_str(err));
            *offset = pr->Offset;
        }
    }
    gr_arena_free(&ar);
    if (gr__err_retriable(err)) gr__client_request_metadata(c->cl);
    return err;
}

/* Resolve spec for a partition, retrying retriable errors until deadline. */
static gr_err_t resolve(gr_consumer_t *c, const char *topic, int32_t partition, int64_t spec, int64_t deadline,
                        int64_t *offset) {
    for (;;) {
        int32_t leader = -1;
        gr_err_t err = leader_of(c, topic, partition, deadline, &leader);
        if (err) return err;
        err = list_offset(c, topic, partition, leader, spec, deadline, offset);
        if (!err || !gr__err_retriable(err) || gr__client_tick(c->cl) >= deadline) return err;
        gr__client_io(c->cl, 100);
    }
}

gr_err_t gr_consumer_query_offset(gr_consumer_t *c, const char *topic, int32_t partition, int64_t spec, int timeout_ms,
                                  int64_t *offset) {
    c->errbuf[0] = 0;
    if (!topic || spec < GR_OFFSET_BEGINNING || !offset)
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "invalid topic or offset spec");
    return resolve(c, topic, partition, spec, deadline_of(c, timeout_ms), offset);
}

/* Expand whole-topic assignments and resolve start positions. Returns a
 * non-retriable error (unknown topic or partition), else GR_ERR_NONE; parts whose
 * position could not be resolved yet are retried on the next round. */
static gr_err_t prepare(gr_consumer_t *c, int64_t deadline) {
    while (c->n_wild) {
        cwild_t *w = &c->wild[c->n_wild - 1];
        gr__mtopic_t *t;
        gr_err_t err = wait_topic(c, w->topic, deadline, &t);
        if (err) return err == GR_ERR__TIMED_OUT ? GR_ERR_NONE : err;
        for (int32_t i = 0; i < t->n_parts; i++) add_part(c, w->topic, i, w->by_time, w->start);
        free(w->topic);
        c->n_wild--;
    }
    for (size_t i = 0; i < c->n_parts; i++) {
        cpart_t *p = c->parts[i];
        if (p->next >= 0) continue;
        int64_t off = -1;
        gr_err_t err = resolve(c, p->topic, p->partition, p->start, deadline, &off);
        if (!err && off < 0 && p->by_time) err = resolve(c, p->topic, p->partition, GR_OFFSET_END, deadline, &off);
        if (!err && p->oor >= 0 && off <= p->oor) /* not before the log start: past the end */
            err = resolve(c, p->topic, p->partition, GR_OFFSET_END, deadline, &off);
        if (err && (!gr__err_retriable(err) || err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)) return err;
        if (!err) p->next = off, p->oor = -1;
    }
    return GR_ERR_NONE;
}

/* ---- fetching ---- */

/* An error for one partition of a Fetch answer. */
static void on_part_error(gr_consumer_t *c, cpart_t *p, const gr_FetchResponse_PartitionData_t *pd) {
    gr_err_t err = pd->ErrorCode;
    if (err == GR_ERR_OFFSET_OUT_OF_RANGE) {
        /* Before the log start: go to it; past the end: wait at the end. Kafka answers
         * the offsets as -1 here, so they are asked for with ListOffsets (prepare). */
        int64_t refused = p->next;
        p->next = (pd->LogStartOffset >= 0 && p->next < pd->LogStartOffset) ? pd->LogStartOffset
                  : pd->HighWatermark >= 0                                  ? pd->HighWatermark
                                                                            : -1;
        if (p->next < 0) p->start = GR_OFFSET_BEGINNING, p->by_time = false, p->oor = refused;
    } else if (gr__err_retriable(err)) {
        gr__client_request_metadata(c->cl);
        p->retry_at = gr__client_now(c->cl) + 100;
    } else if (!c->fatal) {
        c->fatal = gr__fmt(err, c->errbuf, sizeof(c->errbuf), "Fetch %s-%" PRId32 ": %s", p->topic, p->partition,
                           gr_err_str(err));
    }
}

static void on_part_data(gr_consumer_t *c, gr_str_t topic, const gr_FetchResponse_PartitionData_t *pd) {
    cpart_t *p = find_part(c, topic.ptr, (size_t)(topic.len < 0 ? 0 : topic.len), pd->PartitionIndex);
    if (!p || p->blob) return;
    if (pd->ErrorCode) {
        on_part_error(c, p, pd);
        return;
    }
    if (pd->Records.len <= 0 || !pd->Records.ptr) return;
    p->blob = malloc((size_t)pd->Records.len);
    if (!p->blob) abort();
    memcpy(p->blob, pd->Records.ptr, (size_t)pd->Records.len);
    gr_batch_iter_init(&p->it, p->blob, (size_t)pd->Records.len);
    p->in_batch = false;
}

static void on_fetch(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    (void)cl, (void)errmsg, (void)ver;
    fetch_ctx_t *fc = opaque;
    gr_consumer_t *c = fc->c;
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i]->inflight && c->parts[i]->fetch_node == fc->node_id) c->parts[i]->inflight = false;
    free(fc);
    if (err) {
        gr__client_request_metadata(c->cl);
        return;
    }
    const gr_FetchResponse_t *rs = resp;
    if (rs->ErrorCode && !c->fatal)
        c->fatal = gr__fmt(rs->ErrorCode, c->errbuf, sizeof(c->errbuf), "Fetch: %s", gr_err_str(rs->ErrorCode));
    for (int32_t i = 0; i < rs->Responses.n; i++)
        for (int32_t k = 0; k < rs->Responses.v[i].Partitions.n; k++)
            on_part_data(c, rs->Responses.v[i].Topic, &rs->Responses.v[i].Partitions.v[k]);
}

static bool fetchable(gr_consumer_t *c, cpart_t *p, int32_t *leader) {
    if (p->next < 0 || p->inflight || p->blob || p->retry_at > gr__client_now(c->cl)) return false;
    gr__mtopic_t *t = gr__client_topic(c->cl, p->topic);
    if (!t || p->partition >= t->n_parts || t->parts[p->partition].leader < 0) {
        gr__client_request_metadata(c->cl);
        p->retry_at = gr__client_now(c->cl) + 100;
        return false;
    }
    *leader = t->parts[p->partition].leader;
    return true;
}

/* Add p to the request, in the entry of its topic. */
static void add_to_fetch(gr_FetchRequest_t *rq, gr_arena_t *ar, size_t cap, const cpart_t *p, int32_t max_bytes) {
    gr_FetchRequest_FetchTopic_t *ft = NULL;
    for (int32_t i = 0; i < rq->Topics.n && !ft; i++)
        if (gr_str_eq_c(rq->Topics.v[i].Topic, p->topic)) ft = &rq->Topics.v[i];
    if (!ft) {
        ft = &rq->Topics.v[rq->Topics.n++];
        ft->Topic = gr_str_c(p->topic);
        ft->Partitions.v = gr_struct_alloc(ar, &gr_FetchRequest_FetchPartition_sd, (int32_t)cap);
    }
    gr_FetchRequest_FetchPartition_t *fp = &ft->Partitions.v[ft->Partitions.n++];
    fp->Partition = p->partition;
    fp->CurrentLeaderEpoch = -1;
    fp->FetchOffset = p->next;
    fp->LastFetchedEpoch = -1;
    fp->LogStartOffset = -1;
    fp->PartitionMaxBytes = max_bytes;
}

/* Send one Fetch to leader for every fetchable partition it leads (marking them
 * taken for this round, and in flight if the request went out). */
static void fetch_from(gr_consumer_t *c, int32_t leader, bool *taken) {
    gr__node_t *node = gr__client_node(c->cl, leader);
    bool ready = node && gr__node_ready(node);
    if (node && !ready) gr__node_connect(node);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_FetchRequest_t rq;
    gr_struct_init(&gr_FetchRequest_sd, &rq);
    rq.ReplicaId = -1, rq.MaxWaitMs = c->max_wait, rq.MinBytes = c->min_bytes, rq.MaxBytes = c->max_bytes;
    rq.IsolationLevel = 0, rq.SessionId = 0, rq.SessionEpoch = -1;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_FetchRequest_FetchTopic_sd, (int32_t)c->n_parts);
    bool *mine = calloc(c->n_parts, sizeof(*mine));
    if (!mine) abort();
    for (size_t i = 0; i < c->n_parts; i++) {
        int32_t l;
        if (taken[i] || !fetchable(c, c->parts[i], &l) || l != leader) continue;
        taken[i] = mine[i] = true;
        add_to_fetch(&rq, &ar, c->n_parts, c->parts[i], c->part_max_bytes);
    }
    int16_t ver = ready ? gr__node_version(node, GR_API_Fetch) : -1;
    if (ver >= 0 && rq.Topics.n) {
        fetch_ctx_t *fc = malloc(sizeof(*fc));
        if (!fc) abort();
        *fc = (fetch_ctx_t){c, leader};
        bool sent = gr__node_send(node, GR_API_Fetch, ver, &rq, true, on_fetch, fc) == GR_ERR_NONE;
        if (!sent) free(fc);
        for (size_t i = 0; sent && i < c->n_parts; i++)
            if (mine[i]) c->parts[i]->inflight = true, c->parts[i]->fetch_node = leader;
    } else if (ready && ver < 0 && !c->fatal) {
        c->fatal = gr__fmt(GR_ERR_UNSUPPORTED_VERSION, c->errbuf, sizeof(c->errbuf),
                           "broker %s does not support FetchRequest", gr__node_name(node));
    }
    free(mine);
    gr_arena_free(&ar);
}

static void send_fetches(gr_consumer_t *c) {
    bool *taken = calloc(c->n_parts ? c->n_parts : 1, sizeof(*taken));
    if (!taken) abort();
    for (size_t i = 0; i < c->n_parts; i++) {
        int32_t leader;
        if (!taken[i] && fetchable(c, c->parts[i], &leader)) fetch_from(c, leader, taken);
    }
    free(taken);
}

/* ---- reading answers ---- */

static const gr_consumer_msg_t *serve(gr_consumer_t *c, cpart_t *p, const gr_record_t *rec) {
    p->next = rec->offset + 1;
    c->msg.topic = p->topic;
    c->msg.partition = p->partition;
    c->msg.rec = *rec;
    c->msg.ts_type = (p->bv.attributes & GR_BATCH_ATTR_LOG_APPEND_TIME) ? 1 : 0;
    return &c->msg;
}

/* The next record of p's answer at or after its position, or NULL when drained
 * (the answer is then freed). A corrupt answer sets c->fatal. */
static const gr_consumer_msg_t *next_in_part(gr_consumer_t *c, cpart_t *p) {
    char why[256];
    while (p->blob) {
        if (!p->in_batch) {
            if (gr_batch_iter_next(&p->it, &p->bv, why, sizeof(why)) != GR_ERR_NONE) break;
            int64_t end = p->bv.base_offset + (p->bv.has_header ? p->bv.last_offset_delta : 0) + 1;
            if (p->bv.magic != 2 || (p->bv.attributes & GR_BATCH_ATTR_CONTROL) || end <= p->next) {
                if (end > p->next && p->bv.magic == 2) p->next = end;
                continue;
            }
            gr_err_t err = gr_record_iter_init(&p->ri, &p->bv, &p->scratch, 0, why, sizeof(why));
            if (err) {
                c->fatal = gr__fmt(err, c->errbuf, sizeof(c->errbuf), "%s-%" PRId32 " at offset %" PRId64 ": %s",
                                   p->topic, p->partition, p->bv.base_offset, why);
                break;
            }
            p->in_batch = true;
        }
        gr_record_t rec;
        gr_err_t err = gr_record_iter_next(&p->ri, &rec, why, sizeof(why));
        if (err) {
            int64_t end = p->bv.base_offset + p->bv.last_offset_delta + 1;
            if (end > p->next) p->next = end;
            p->in_batch = false;
            continue;
        }
        if (rec.offset >= p->next) return serve(c, p, &rec);
    }
    part_drop_blob(p);
    return NULL;
}

static const gr_consumer_msg_t *next_buffered(gr_consumer_t *c) {
    for (size_t k = 0; k < c->n_parts; k++) {
        size_t i = (c->rr + k) % c->n_parts;
        const gr_consumer_msg_t *m = next_in_part(c, c->parts[i]);
        if (m) {
            c->rr = i;
            return m;
        }
        if (c->fatal) return NULL;
    }
    return NULL;
}

gr_err_t gr_consumer_poll(gr_consumer_t *c, int timeout_ms, const gr_consumer_msg_t **msg) {
    *msg = NULL;
    c->errbuf[0] = 0;
    if (!c->n_parts && !c->n_wild)
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "no partition is assigned");
    int64_t now = gr__client_tick(c->cl);
    int64_t deadline = timeout_ms < 0 ? INT64_MAX / 2 : now + timeout_ms;
    for (;;) {
        if ((*msg = next_buffered(c)) != NULL) return GR_ERR_NONE;
        if (c->fatal) {
            gr_err_t err = c->fatal;
            c->fatal = GR_ERR_NONE;
            return err;
        }
        gr_err_t err = prepare(c, deadline);
        if (err) return err;
        send_fetches(c);
        if (gr__client_tick(c->cl) >= deadline) return GR_ERR_NONE;
        gr__client_io(c->cl, io_wait(c, deadline));
    }
}

/* ---- records ---- */

const char *gr_consumer_msg_topic(const gr_consumer_msg_t *m) { return m->topic; }
int32_t gr_consumer_msg_partition(const gr_consumer_msg_t *m) { return m->partition; }
int64_t gr_consumer_msg_offset(const gr_consumer_msg_t *m) { return m->rec.offset; }

int64_t gr_consumer_msg_timestamp(const gr_consumer_msg_t *m, int *type) {
    if (type) *type = m->ts_type;
    return m->rec.timestamp;
}

const void *gr_consumer_msg_key(const gr_consumer_msg_t *m, size_t *len) {
    *len = m->rec.key_len > 0 ? (size_t)m->rec.key_len : 0;
    return m->rec.key_len < 0 ? NULL : m->rec.key ? (const void *)m->rec.key : "";
}

const void *gr_consumer_msg_value(const gr_consumer_msg_t *m, size_t *len) {
    *len = m->rec.value_len > 0 ? (size_t)m->rec.value_len : 0;
    return m->rec.value_len < 0 ? NULL : m->rec.value ? (const void *)m->rec.value : "";
}

size_t gr_consumer_msg_header_count(const gr_consumer_msg_t *m) {
    return m->rec.header_count > 0 ? (size_t)m->rec.header_count : 0;
}

gr_err_t gr_consumer_msg_header(const gr_consumer_msg_t *m, size_t i, const char **key, size_t *key_len,
                                const void **value, size_t *value_len) {
    gr_header_iter_t hi;
    gr_header_t h;
    gr_header_iter_init(&hi, &m->rec);
    for (size_t k = 0; gr_header_iter_next(&hi, &h); k++) {
        if (k != i) continue;
        *key = (const char *)h.key;
        *key_len = (size_t)h.key_len;
        *value = h.value_len < 0 ? NULL : h.value;
        *value_len = h.value_len < 0 ? 0 : (size_t)h.value_len;
        return GR_ERR_NONE;
    }
    return GR_ERR__NOENT;
}
