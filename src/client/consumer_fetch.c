/* The consumer's fetching (consumer_int.h): one sessionless Fetch (epoch -1) per leader
 * for the partitions whose previous answer has been read (and that are not paused),
 * and handing out records one at a time from the copied answer: batches are walked
 * with the records module (decompressing into a per-partition scratch buffer),
 * control batches and records before the position are skipped, and with
 * isolation.level=read_committed the batches of aborted transactions (the answer's
 * AbortedTransactions, as Kafka's consumer reads them). An answer is kept
 * only if the partition's position is still the one it was fetched from (a seek or a
 * new assignment in between drops it). With gregor.consumer.fetch.ahead, an answer being
 * read sends the partition's next Fetch from where the answer ends, so the broker works
 * while the application does; that answer waits beside the first (two per partition at
 * most, each bounded by max.partition.fetch.bytes and fetch.max.bytes).
 * @locality: the thread that owns the handle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/consumer_int.h"
#include "proto_msgs.h"

/* One Fetch in flight: which consumer, the broker, and the request's number (the
 * partitions it covers have it as fetch_seq). */
typedef struct fetch_ctx {
    gr_consumer_t *c;
    int32_t node;
    uint64_t seq;
} fetch_ctx_t;

static bool node_fetching(const gr_consumer_t *c, int32_t node) {
    for (size_t i = 0; i < c->n_fetching; i++)
        if (c->fetching[i] == node) return true;
    return false;
}

static void set_fetching(gr_consumer_t *c, int32_t node, bool on) {
    for (size_t i = 0; i < c->n_fetching; i++)
        if (c->fetching[i] == node) {
            if (!on) c->fetching[i] = c->fetching[--c->n_fetching];
            return;
        }
    if (!on) return;
    int32_t *f = realloc(c->fetching, (c->n_fetching + 1) * sizeof(*f));
    if (!f) abort();
    c->fetching = f;
    c->fetching[c->n_fetching++] = node;
}

/* ---- fetching ---- */

/* An error for one partition of a Fetch answer. */
static void on_part_error(gr_consumer_t *c, gr__cpart_t *p, const gr_FetchResponse_PartitionData_t *pd) {
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

static int cmp_first(const void *a, const void *b) {
    int64_t x = ((const struct gr__caborted *)a)->first, y = ((const struct gr__caborted *)b)->first;
    return x < y ? -1 : x > y;
}

/* read_committed (Kafka's consumer does the same): before a batch, the aborted
 * transactions that start at or before its last offset put their producer on the skip
 * list; a transactional batch of a skipped producer is not delivered; that producer's
 * ABORT marker takes it off the list. */
static bool skip_pid_at(gr__cpart_t *p, int64_t pid, bool remove) {
    for (size_t i = 0; i < p->n_skip; i++)
        if (p->skip_pids[i] == pid) {
            if (remove) p->skip_pids[i] = p->skip_pids[--p->n_skip];
            return true;
        }
    return false;
}

/* Is this (non-control) batch part of an aborted transaction? Control batches update the
 * skip list. Only called with read_committed. */
static bool aborted_batch(gr__cpart_t *p, const gr_batch_view_t *bv, int64_t last) {
    while (p->next_aborted < p->n_aborted && p->aborted[p->next_aborted].first <= last) {
        int64_t pid = p->aborted[p->next_aborted++].pid;
        if (!skip_pid_at(p, pid, false)) p->skip_pids[p->n_skip++] = pid;
    }
    if (!(bv->attributes & GR_BATCH_ATTR_TRANSACTIONAL)) return false;
    if (bv->attributes & GR_BATCH_ATTR_CONTROL) {
        /* The marker's key: int16 version, int16 type (0 = ABORT). */
        gr_record_iter_t ri;
        gr_wbuf_t scratch;
        gr_record_t rec;
        char why[128];
        gr_wbuf_init(&scratch);
        if (!gr_record_iter_init(&ri, bv, &scratch, 0, why, sizeof(why)) &&
            !gr_record_iter_next(&ri, &rec, why, sizeof(why)) && rec.key_len >= 4 && rec.key[2] == 0 && rec.key[3] == 0)
            skip_pid_at(p, bv->producer_id, true);
        gr_wbuf_free(&scratch);
        return false;
    }
    return skip_pid_at(p, bv->producer_id, false);
}

/* The offset after the last whole batch of an answer's Records; -1 if there is none or a
 * batch is of an old format (whose offsets say less): no fetch ahead of such an answer. */
static int64_t records_end(const uint8_t *blob, size_t len) {
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    char why[128];
    int64_t end = -1;
    gr_batch_iter_init(&it, blob, len);
    while (gr_batch_iter_next(&it, &bv, why, sizeof(why)) == GR_ERR_NONE) {
        if (bv.magic != 2 || !bv.has_header) return -1;
        end = bv.base_offset + bv.last_offset_delta + 1;
    }
    return end;
}

/* Start reading answer a (its buffers now belong to p). */
static void install(gr__cpart_t *p, const gr__canswer_t *a) {
    p->blob = a->blob;
    p->blob_end = a->end;
    p->ahead_sent = false;
    gr_batch_iter_init(&p->it, a->blob, a->len);
    p->in_batch = false;
    p->aborted = a->aborted;
    p->n_aborted = a->n_aborted;
    p->next_aborted = p->n_skip = 0;
    p->skip_pids = NULL;
    if (a->n_aborted && !(p->skip_pids = malloc(a->n_aborted * sizeof(*p->skip_pids)))) abort();
}

static void on_part_data(gr_consumer_t *c, uint64_t seq, gr_str_t topic, const gr_FetchResponse_PartitionData_t *pd) {
    gr__cpart_t *p = gr__cons_find(c, topic.ptr, (size_t)(topic.len < 0 ? 0 : topic.len), pd->PartitionIndex);
    if (!p || !p->inflight || p->fetch_seq != seq || p->paused) return;
    /* Only the answer to this partition's own request: from the position still held, or
     * ahead of the answer being read, from where that one ends. */
    bool now = !p->blob && p->fetch_pos == p->next;
    bool ahead = p->blob && !p->ahead.blob && p->fetch_pos == p->blob_end;
    if (!now && !ahead) return;
    if (pd->ErrorCode) {
        if (now) on_part_error(c, p, pd); /* ahead: met again when fetched from the position */
        return;
    }
    if (pd->Records.len <= 0 || !pd->Records.ptr) return;
    gr__canswer_t a = {.len = (size_t)pd->Records.len, .pos = p->fetch_pos};
    if (!(a.blob = malloc(a.len))) abort();
    memcpy(a.blob, pd->Records.ptr, a.len);
    a.end = c->fetch_ahead ? records_end(a.blob, a.len) : -1; /* only fetch ahead needs it */
    if (c->isolation && pd->AbortedTransactions.n > 0) {
        a.n_aborted = (size_t)pd->AbortedTransactions.n;
        if (!(a.aborted = malloc(a.n_aborted * sizeof(*a.aborted)))) abort();
        for (size_t i = 0; i < a.n_aborted; i++)
            a.aborted[i].pid = pd->AbortedTransactions.v[i].ProducerId,
            a.aborted[i].first = pd->AbortedTransactions.v[i].FirstOffset;
        qsort(a.aborted, a.n_aborted, sizeof(*a.aborted), cmp_first);
    }
    if (now)
        install(p, &a);
    else
        p->ahead = a;
}

static void on_fetch(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    (void)cl, (void)errmsg, (void)ver;
    fetch_ctx_t *fc = opaque;
    gr_consumer_t *c = fc->c;
    uint64_t seq = fc->seq;
    set_fetching(c, fc->node, false);
    free(fc);
    if (err) {
        gr__client_request_metadata(c->cl);
    } else {
        const gr_FetchResponse_t *rs = resp;
        if (rs->ErrorCode && !c->fatal)
            c->fatal = gr__fmt(rs->ErrorCode, c->errbuf, sizeof(c->errbuf), "Fetch: %s", gr_err_str(rs->ErrorCode));
        for (int32_t i = 0; i < rs->Responses.n; i++)
            for (int32_t k = 0; k < rs->Responses.v[i].Partitions.n; k++)
                on_part_data(c, seq, rs->Responses.v[i].Topic, &rs->Responses.v[i].Partitions.v[k]);
    }
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i]->inflight && c->parts[i]->fetch_seq == seq) c->parts[i]->inflight = false;
    /* The broker reads the next records while the application works on these. */
    if (!err && c->fetch_ahead && !c->fatal && !c->g.closing) gr__cons_send_fetches(c, true);
}

/* Can p be fetched now, and from where: its position, or, while an answer is being read,
 * the end of that answer (gregor.consumer.fetch.ahead; one fetch ahead per answer, so an
 * empty one is not repeated). */
static bool fetchable(gr_consumer_t *c, gr__cpart_t *p, int32_t *leader, int64_t *pos) {
    if (p->next < 0 || p->paused || p->inflight || p->retry_at > gr__client_now(c->cl)) return false;
    if (p->blob) {
        if (!c->fetch_ahead || p->ahead_sent || p->ahead.blob || p->blob_end < 0) return false;
        *pos = p->blob_end;
    } else {
        *pos = p->next;
    }
    gr__mtopic_t *t = gr__client_topic(c->cl, p->topic);
    if (!t || p->partition >= t->n_parts || t->parts[p->partition].leader < 0) {
        gr__client_request_metadata(c->cl);
        p->retry_at = gr__client_now(c->cl) + 100;
        return false;
    }
    *leader = t->parts[p->partition].leader;
    return true;
}

/* Add p to the request from pos, in the entry of its topic. */
static void add_to_fetch(gr_FetchRequest_t *rq, gr_arena_t *ar, size_t cap, const gr__cpart_t *p, int64_t pos,
                         int32_t max_bytes) {
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
    fp->FetchOffset = pos;
    fp->LastFetchedEpoch = -1;
    fp->LogStartOffset = -1;
    fp->PartitionMaxBytes = max_bytes;
}

/* Send one Fetch to leader for every fetchable partition it leads (marking them taken for
 * this round, and in flight if the request went out). A broker has one Fetch at a time from the consumer, so a Fetch waiting
 * at the broker never holds up another. While records wait to be handed out, the Fetch
 * does not wait at the broker (MaxWaitMs 0): a partition with nothing new comes back empty
 * and rides along with the next fetch ahead; the Fetch sent once everything is handed out
 * is the one that waits. */
static void fetch_from(gr_consumer_t *c, int32_t leader, bool *taken) {
    gr__node_t *node = gr__client_node(c->cl, leader);
    bool ready = node && gr__node_ready(node);
    if (node && !ready) gr__node_connect(node);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_FetchRequest_t rq;
    gr_struct_init(&gr_FetchRequest_sd, &rq);
    rq.ReplicaId = -1, rq.MaxWaitMs = c->max_wait, rq.MinBytes = c->min_bytes, rq.MaxBytes = c->max_bytes;
    rq.IsolationLevel = c->isolation, rq.SessionId = 0, rq.SessionEpoch = -1;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_FetchRequest_FetchTopic_sd, (int32_t)c->n_parts);
    int64_t *pos = malloc(c->n_parts * sizeof(*pos)); /* -1: not in this request */
    if (!pos) abort();
    for (size_t i = 0; i < c->n_parts; i++) {
        int32_t l;
        int64_t at;
        pos[i] = -1;
        if (c->parts[i]->blob) rq.MaxWaitMs = 0; /* (a paused partition has no answer) */
        if (taken[i] || !fetchable(c, c->parts[i], &l, &at) || l != leader) continue;
        taken[i] = true;
        pos[i] = at;
        add_to_fetch(&rq, &ar, c->n_parts, c->parts[i], at, c->part_max_bytes);
    }
    int16_t ver = ready ? gr__node_version(node, GR_API_Fetch) : -1;
    if (ver >= 0 && rq.Topics.n) {
        fetch_ctx_t *fc = malloc(sizeof(*fc));
        if (!fc) abort();
        *fc = (fetch_ctx_t){c, leader, ++c->fetch_seq};
        bool sent = gr__node_send(node, GR_API_Fetch, ver, &rq, true, on_fetch, fc) == GR_ERR_NONE;
        if (sent) set_fetching(c, leader, true);
        for (size_t i = 0; sent && i < c->n_parts; i++) {
            gr__cpart_t *p = c->parts[i];
            if (pos[i] < 0) continue;
            p->inflight = true, p->fetch_seq = fc->seq, p->fetch_pos = pos[i];
            if (p->blob) p->ahead_sent = true;
        }
        if (!sent) free(fc);
    } else if (ready && ver < 0 && !c->fatal) {
        c->fatal = gr__fmt(GR_ERR_UNSUPPORTED_VERSION, c->errbuf, sizeof(c->errbuf),
                           "broker %s does not support FetchRequest", gr__node_name(node));
    }
    free(pos);
    gr_arena_free(&ar);
}

void gr__cons_send_fetches(gr_consumer_t *c, bool ahead_only) {
    bool *taken = calloc(c->n_parts ? c->n_parts : 1, sizeof(*taken));
    if (!taken) abort();
    for (size_t i = 0; i < c->n_parts; i++) {
        int32_t leader;
        int64_t pos;
        /* ahead_only: a leader's Fetch starts only from a partition fetched ahead (it takes
         * the leader's other fetchable partitions along) */
        if (taken[i] || (ahead_only && !c->parts[i]->blob) || !fetchable(c, c->parts[i], &leader, &pos)) continue;
        if (node_fetching(c, leader))
            taken[i] = true;
        else
            fetch_from(c, leader, taken);
    }
    free(taken);
}

/* ---- reading answers ---- */

static const gr_consumer_msg_t *serve(gr_consumer_t *c, gr__cpart_t *p, const gr_record_t *rec) {
    p->next = rec->offset + 1;
    c->msg.topic = p->topic;
    c->msg.partition = p->partition;
    c->msg.rec = *rec;
    c->msg.ts_type = (p->bv.attributes & GR_BATCH_ATTR_LOG_APPEND_TIME) ? 1 : 0;
    return &c->msg;
}

/* The next record of p's answer at or after its position, or NULL when drained
 * (the answer is then freed). A corrupt answer sets c->fatal. */
static const gr_consumer_msg_t *next_in_part(gr_consumer_t *c, gr__cpart_t *p) {
    char why[256];
    while (p->blob) {
        if (!p->in_batch) {
            if (gr_batch_iter_next(&p->it, &p->bv, why, sizeof(why)) != GR_ERR_NONE) {
                /* drained: go on with the answer fetched ahead if it starts here */
                gr__canswer_t a = p->ahead;
                if (!a.blob || a.pos != p->next) break;
                memset(&p->ahead, 0, sizeof(p->ahead));
                gr__cons_drop_current(p);
                install(p, &a);
                continue;
            }
            int64_t end = p->bv.base_offset + (p->bv.has_header ? p->bv.last_offset_delta : 0) + 1;
            bool aborted = c->isolation && p->bv.magic == 2 && aborted_batch(p, &p->bv, end - 1);
            if (p->bv.magic != 2 || (p->bv.attributes & GR_BATCH_ATTR_CONTROL) || end <= p->next || aborted) {
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
    gr__cons_drop_blob(p);
    return NULL;
}

const gr_consumer_msg_t *gr__cons_next_buffered(gr_consumer_t *c) {
    for (size_t k = 0; k < c->n_parts; k++) {
        size_t i = (c->rr + k) % c->n_parts;
        if (c->parts[i]->paused) continue;
        const gr_consumer_msg_t *m = next_in_part(c, c->parts[i]);
        if (m) {
            c->rr = i;
            return m;
        }
        if (c->fatal) return NULL;
    }
    return NULL;
}
