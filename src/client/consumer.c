/* The consumer's public calls (gregor/consumer.h): assignment, positions, poll.
 *
 * Each assigned partition (gr__cpart_t) has a position (`next`, -1 until resolved), and
 * at most one Fetch in flight (consumer_fetch.c). Positions given as BEGINNING / END /
 * a timestamp are resolved with ListOffsets to the partition leader; a group's
 * partitions first ask for the committed offset (consumer_offsets.c). A record handed
 * out points into the fetch buffers, so it stays valid until the next call, when a
 * drained answer is freed. With a subscription, every poll iteration also runs the
 * group membership (consumer_group.c).
 * @locality: the thread that owns the handle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/consumer_int.h"
#include "proto_msgs.h"

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
    c->max_wait = (int32_t)gr__conf_int(conf, GR__CP_FETCH_MAX_WAIT_MS);
    c->min_bytes = (int32_t)gr__conf_int(conf, GR__CP_FETCH_MIN_BYTES);
    c->max_bytes = (int32_t)gr__conf_int(conf, GR__CP_FETCH_MAX_BYTES);
    c->part_max_bytes = (int32_t)gr__conf_int(conf, GR__CP_MAX_PARTITION_FETCH_BYTES);
    const char *iso = gr_conf_get(conf, "isolation.level");
    c->isolation = iso && !strcmp(iso, "read_committed") ? 1 : 0;
    c->fetch_ahead = gr__conf_int(conf, GR__CP_CONSUMER_FETCH_AHEAD) != 0;
    if ((err = gr__cg_init(c, conf, errstr, errstr_size)) != GR_ERR_NONE) {
        gr_consumer_destroy(c);
        return err;
    }
    *out = c;
    return GR_ERR_NONE;
}

void gr__cons_drop_current(gr__cpart_t *p) {
    free(p->blob);
    p->blob = NULL;
    p->blob_end = -1;
    p->in_batch = false;
    p->ahead_sent = false;
    free(p->aborted);
    free(p->skip_pids);
    p->aborted = NULL, p->skip_pids = NULL;
    p->n_aborted = p->next_aborted = p->n_skip = 0;
}

void gr__cons_drop_blob(gr__cpart_t *p) {
    gr__cons_drop_current(p);
    free(p->ahead.blob);
    free(p->ahead.aborted);
    memset(&p->ahead, 0, sizeof(p->ahead));
}

void gr_consumer_destroy(gr_consumer_t *c) {
    if (!c) return;
    gr__client_destroy(c->cl); /* fails pending requests: their callbacks still see c */
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__cons_drop_blob(c->parts[i]);
        gr_wbuf_free(&c->parts[i]->scratch);
        free(c->parts[i]->topic);
        free(c->parts[i]);
    }
    gr__cg_free(c);
    free(c->fetching);
    for (size_t i = 0; i < c->n_wild; i++) free(c->wild[i].topic);
    free(c->wild);
    free(c->parts);
    free(c);
}

const char *gr_consumer_last_error(const gr_consumer_t *c) { return c->errbuf; }

gr__cpart_t *gr__cons_find(gr_consumer_t *c, const char *topic, size_t tlen, int32_t partition) {
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__cpart_t *p = c->parts[i];
        if (p->partition == partition && strlen(p->topic) == tlen && !memcmp(p->topic, topic, tlen)) return p;
    }
    return NULL;
}

gr__cpart_t *gr__cons_add(gr_consumer_t *c, const char *topic, int32_t partition, bool by_time, int64_t start) {
    gr__cpart_t *p = gr__cons_find(c, topic, strlen(topic), partition);
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
    p->committed = -1;
    p->need_committed = false;
    gr__cons_drop_blob(p);
    gr__client_want_topic(c->cl, topic);
    return p;
}

void gr__cons_remove(gr_consumer_t *c, const char *topic, int32_t partition) {
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__cpart_t *p = c->parts[i];
        if (p->partition != partition || strcmp(p->topic, topic)) continue;
        gr__cons_drop_blob(p);
        gr_wbuf_free(&p->scratch);
        free(p->topic);
        free(p);
        c->parts[i] = c->parts[--c->n_parts];
        c->rr = 0;
        return;
    }
}

static gr_err_t assign(gr_consumer_t *c, const char *topic, int32_t partition, bool by_time, int64_t start) {
    c->errbuf[0] = 0;
    if (c->g.on)
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf),
                       "Subscription to topics and manual partition assignment are mutually exclusive");
    if (!topic || !*topic || partition < GR_PARTITION_ALL || (by_time ? start < 0 : start < GR_OFFSET_BEGINNING))
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "invalid topic, partition or start");
    if (partition >= 0) {
        gr__cons_add(c, topic, partition, by_time, start);
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

int64_t gr__cons_deadline(gr_consumer_t *c, int timeout_ms) {
    int64_t t = timeout_ms >= 0 ? timeout_ms : conf_int(gr__client_conf(c->cl), "default.api.timeout.ms", 60000);
    return gr__client_tick(c->cl) + t;
}

int gr__cons_io_wait(gr_consumer_t *c, int64_t deadline) {
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
        gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
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
    gr_err_t err = wait_topic(c, topic, gr__cons_deadline(c, timeout_ms), &t);
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
    rq.IsolationLevel = c->isolation; /* read_committed: "latest" is the last stable offset */
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
    return resolve(c, topic, partition, spec, gr__cons_deadline(c, timeout_ms), offset);
}

/* Expand whole-topic assignments and resolve start positions. Returns a
 * non-retriable error (unknown topic or partition), else GR_ERR_NONE; parts whose
 * position could not be resolved yet are retried on the next round. */
static gr_err_t prepare(gr_consumer_t *c, int64_t deadline) {
    while (c->n_wild) {
        gr__cwild_t *w = &c->wild[c->n_wild - 1];
        gr__mtopic_t *t;
        gr_err_t err = wait_topic(c, w->topic, deadline, &t);
        if (err) return err == GR_ERR__TIMED_OUT ? GR_ERR_NONE : err;
        for (int32_t i = 0; i < t->n_parts; i++) gr__cons_add(c, w->topic, i, w->by_time, w->start);
        free(w->topic);
        c->n_wild--;
    }
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__cpart_t *p = c->parts[i];
        if (p->next >= 0 || p->need_committed) continue;
        int64_t off = -1;
        gr_err_t err = resolve(c, p->topic, p->partition, p->start, deadline, &off);
        if (!err && off < 0 && p->by_time) err = resolve(c, p->topic, p->partition, GR_OFFSET_END, deadline, &off);
        if (!err && p->oor >= 0 && off <= p->oor) /* not before the log start: past the end */
            err = resolve(c, p->topic, p->partition, GR_OFFSET_END, deadline, &off);
        if (err && (!gr__err_retriable(err) || err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)) return err;
        if (!err) p->next = off, p->oor = -1;
        if (err) break; /* p may be gone: a rebalance can run during the wait */
    }
    return GR_ERR_NONE;
}

static gr_err_t poll_once(gr_consumer_t *c, int timeout_ms, int64_t now, const gr_consumer_msg_t **msg) {
    *msg = NULL;
    c->errbuf[0] = 0;
    if (!c->n_parts && !c->n_wild && !c->g.on)
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "no partition is assigned");
    if (c->g.closing) return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "the consumer is closed");
    int64_t deadline = timeout_ms < 0 ? INT64_MAX / 2 : now + timeout_ms;
    for (;;) {
        if (c->g.on) gr__cg_run(c);
        if (c->fatal) {
            gr_err_t err = c->fatal;
            c->fatal = GR_ERR_NONE;
            return err;
        }
        if ((*msg = gr__cons_next_buffered(c)) != NULL) return GR_ERR_NONE;
        if (c->fatal) continue;
        if (c->g.on) gr__co_fetch_committed(c, deadline);
        gr_err_t err = prepare(c, deadline);
        if (err) return err;
        gr__cons_send_fetches(c, false);
        if (gr__client_tick(c->cl) >= deadline) return GR_ERR_NONE;
        gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
    }
}

gr_err_t gr_consumer_poll(gr_consumer_t *c, int timeout_ms, const gr_consumer_msg_t **msg) {
    int64_t now = gr__client_tick(c->cl); /* once: a poll that hands out a buffered record is short */
    if (c->g.on) gr__cg_poll_begin(c, now);
    gr_err_t err = poll_once(c, timeout_ms, now, msg);
    c->g.last_poll = gr__client_now(c->cl); /* ticked again by any wait for I/O */
    return err;
}

/* ---- positions, pause ---- */

gr_err_t gr_consumer_seek(gr_consumer_t *c, const char *topic, int32_t partition, int64_t offset) {
    c->errbuf[0] = 0;
    gr__cpart_t *p = topic ? gr__cons_find(c, topic, strlen(topic), partition) : NULL;
    if (!p)
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "No current assignment for partition %s-%d",
                       topic ? topic : "(null)", (int)partition);
    if (offset < GR_OFFSET_BEGINNING)
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "invalid offset %lld", (long long)offset);
    gr__cons_drop_blob(p);
    p->need_committed = false;
    p->by_time = false;
    p->start = offset;
    p->next = offset >= 0 ? offset : -1;
    p->oor = -1;
    return GR_ERR_NONE;
}

gr_err_t gr_consumer_position(gr_consumer_t *c, const char *topic, int32_t partition, int64_t *offset) {
    c->errbuf[0] = 0;
    gr__cpart_t *p = topic ? gr__cons_find(c, topic, strlen(topic), partition) : NULL;
    if (!p)
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "No current assignment for partition %s-%d",
                       topic ? topic : "(null)", (int)partition);
    *offset = p->next;
    return GR_ERR_NONE;
}

static gr_err_t set_paused(gr_consumer_t *c, const char *topic, int32_t partition, bool paused) {
    c->errbuf[0] = 0;
    size_t hit = 0;
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__cpart_t *p = c->parts[i];
        if ((topic && strcmp(p->topic, topic)) || (partition != GR_PARTITION_ALL && p->partition != partition))
            continue;
        if (paused) gr__cons_drop_blob(p); /* the position stays at the first record not handed out */
        p->paused = paused;
        hit++;
    }
    if (!hit && (topic || partition != GR_PARTITION_ALL))
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "No current assignment for partition %s-%d",
                       topic ? topic : "*", (int)partition);
    return GR_ERR_NONE;
}

gr_err_t gr_consumer_pause(gr_consumer_t *c, const char *topic, int32_t partition) {
    return set_paused(c, topic, partition, true);
}

gr_err_t gr_consumer_resume(gr_consumer_t *c, const char *topic, int32_t partition) {
    return set_paused(c, topic, partition, false);
}

size_t gr_consumer_assignment(gr_consumer_t *c, gr_topic_partition_t *out, size_t max) {
    for (size_t i = 0; i < c->n_parts && i < max; i++)
        out[i] = (gr_topic_partition_t){c->parts[i]->topic, c->parts[i]->partition, c->parts[i]->next};
    return c->n_parts;
}

gr_topic_partition_t *gr__cons_tps(gr_consumer_t *c, const gr__tplist_t *l) {
    gr_topic_partition_t *v = calloc(l->n ? l->n : 1, sizeof(*v));
    if (!v) abort();
    for (size_t i = 0; i < l->n; i++) {
        gr__cpart_t *p = gr__cons_find(c, l->v[i].topic, strlen(l->v[i].topic), l->v[i].partition);
        v[i] = (gr_topic_partition_t){l->v[i].topic, l->v[i].partition, p ? p->next : -1};
    }
    return v;
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
