/* A group consumer's committed offsets (consumer_int.h): OffsetFetch for the start of
 * newly assigned partitions (the committed offset, else auto.offset.reset), and
 * OffsetCommit (sync, async, automatic every auto.commit.interval.ms) with the member
 * id and its generation (classic) or member epoch (consumer protocol), so that the
 * coordinator refuses commits of a member that is no longer in the group. Topics are
 * named (OffsetFetch <= 9, OffsetCommit <= 9). Coordinator errors make the coordinator
 * be looked up again; a sync commit retries them until its deadline. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/consumer_int.h"
#include "proto_msgs.h"

/* ---- OffsetFetch ---- */

static void fill_fetch(gr_consumer_t *c, gr_arena_t *ar, gr_OffsetFetchRequest_t *rq, const gr__tplist_t *l) {
    size_t nt = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!i || strcmp(l->v[i].topic, l->v[i - 1].topic)) nt++;
    rq->GroupId = gr_str_c(c->g.group_id);
    rq->Topics.v = gr_struct_alloc(ar, &gr_OffsetFetchRequest_OffsetFetchRequestTopic_sd, (int32_t)nt);
    rq->Groups.n = 1;
    rq->Groups.v = gr_struct_alloc(ar, &gr_OffsetFetchRequest_OffsetFetchRequestGroup_sd, 1);
    gr_OffsetFetchRequest_OffsetFetchRequestGroup_t *g = &rq->Groups.v[0];
    g->GroupId = rq->GroupId;
    g->MemberEpoch = -1;
    g->Topics.v = gr_struct_alloc(ar, &gr_OffsetFetchRequest_OffsetFetchRequestTopics_sd, (int32_t)nt);
    for (size_t i = 0; i < l->n;) {
        size_t k = i;
        while (k < l->n && !strcmp(l->v[k].topic, l->v[i].topic)) k++;
        int32_t *parts = gr_arena_alloc(ar, (k - i) * sizeof(int32_t));
        for (size_t j = i; j < k; j++) parts[j - i] = l->v[j].partition;
        int32_t t = rq->Topics.n++;
        g->Topics.n++;
        rq->Topics.v[t].Name = g->Topics.v[t].Name = gr_str_c(l->v[i].topic);
        rq->Topics.v[t].PartitionIndexes.v = g->Topics.v[t].PartitionIndexes.v = parts;
        rq->Topics.v[t].PartitionIndexes.n = g->Topics.v[t].PartitionIndexes.n = (int32_t)(k - i);
        i = k;
    }
}

/* One partition's answer: its start, or an error. */
static gr_err_t on_committed(gr_consumer_t *c, gr_str_t topic, int32_t partition, int64_t off, int16_t code) {
    if (code) return (gr_err_t)code;
    gr__cpart_t *p = gr__cons_find(c, topic.ptr, (size_t)(topic.len < 0 ? 0 : topic.len), partition);
    if (!p || !p->need_committed) return GR_ERR_NONE;
    p->need_committed = false;
    if (off >= 0) {
        p->next = p->committed = off;
    } else if (c->g.reset == 2) {
        gr__cg_fail(c, GR_ERR_OFFSET_OUT_OF_RANGE, "Undefined offset with no reset policy for partitions: [%.*s-%d]",
                    (int)topic.len, topic.ptr, (int)partition);
    }
    return GR_ERR_NONE;
}

/* Apply an answer; the first error (of the group or a partition). */
static gr_err_t apply_fetch(gr_consumer_t *c, int16_t ver, const gr_OffsetFetchResponse_t *rs) {
    gr_err_t first = GR_ERR_NONE, e;
    if (ver < 8) {
        if (rs->ErrorCode) return (gr_err_t)rs->ErrorCode;
        for (int32_t t = 0; t < rs->Topics.n; t++)
            for (int32_t i = 0; i < rs->Topics.v[t].Partitions.n; i++) {
                const gr_OffsetFetchResponse_OffsetFetchResponsePartition_t *pp = &rs->Topics.v[t].Partitions.v[i];
                e = on_committed(c, rs->Topics.v[t].Name, pp->PartitionIndex, pp->CommittedOffset, pp->ErrorCode);
                if (!first) first = e;
            }
        return first;
    }
    for (int32_t g = 0; g < rs->Groups.n; g++) {
        const gr_OffsetFetchResponse_OffsetFetchResponseGroup_t *gr = &rs->Groups.v[g];
        if (gr->ErrorCode) return (gr_err_t)gr->ErrorCode;
        for (int32_t t = 0; t < gr->Topics.n; t++)
            for (int32_t i = 0; i < gr->Topics.v[t].Partitions.n; i++) {
                const gr_OffsetFetchResponse_OffsetFetchResponsePartitions_t *pp = &gr->Topics.v[t].Partitions.v[i];
                e = on_committed(c, gr->Topics.v[t].Name, pp->PartitionIndex, pp->CommittedOffset, pp->ErrorCode);
                if (!first) first = e;
            }
    }
    return first;
}

static gr_err_t offset_fetch(gr_consumer_t *c, const gr__tplist_t *l, int64_t deadline, gr_arena_t *ar, void **resp,
                             int16_t *ver) {
    gr_OffsetFetchRequest_t rq;
    gr_struct_init(&gr_OffsetFetchRequest_sd, &rq);
    fill_fetch(c, ar, &rq, l);
    return gr__client_call(c->cl, c->g.coord_id, GR_API_OffsetFetch, &rq, deadline, ar, resp, ver, c->errbuf,
                           sizeof(c->errbuf));
}

void gr__co_fetch_committed(gr_consumer_t *c, int64_t deadline) {
    gr__tplist_t want = {0};
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i]->need_committed)
            gr__tplist_add(&want, c->parts[i]->topic, strlen(c->parts[i]->topic), c->parts[i]->partition);
    if (!want.n || !gr__cg_coord(c)) {
        gr__tplist_free(&want);
        return;
    }
    gr__tplist_sort(&want);
    int64_t min = gr__client_tick(c->cl) + gr__conf_int(gr__client_conf(c->cl), GR__CP_REQUEST_TIMEOUT_MS);
    gr_arena_t ar;
    gr_arena_init(&ar);
    void *resp;
    int16_t ver;
    gr_err_t err = offset_fetch(c, &want, deadline > min ? deadline : min, &ar, &resp, &ver);
    if (!err) err = apply_fetch(c, ver, resp);
    if (gr__cg_coord_error(err) || err == GR_ERR__TRANSPORT || err == GR_ERR__CLOSED) gr__cg_coord_lost(c);
    if (err == GR_ERR_GROUP_AUTHORIZATION_FAILED || err == GR_ERR_TOPIC_AUTHORIZATION_FAILED)
        gr__cg_fail(c, err, "OffsetFetch for group %s: %s", c->g.group_id, gr_err_str(err));
    c->errbuf[0] = 0;
    gr_arena_free(&ar);
    gr__tplist_free(&want);
}

gr_err_t gr_consumer_committed(gr_consumer_t *c, const char *topic, int32_t partition, int timeout_ms,
                               int64_t *offset) {
    c->errbuf[0] = 0;
    *offset = -1;
    if (!c->g.group_id)
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "no group.id in the configuration");
    int64_t deadline = gr__cons_deadline(c, timeout_ms);
    gr__tplist_t l = {0};
    gr__tplist_add(&l, topic, strlen(topic), partition);
    gr_err_t err;
    for (;;) {
        if (gr__cg_wait_coord(c, deadline) < 0) {
            err = c->fatal ? c->fatal
                           : gr__fmt(GR_ERR__TIMED_OUT, c->errbuf, sizeof(c->errbuf),
                                     "no coordinator for group %s in time", c->g.group_id);
            break;
        }
        gr_arena_t ar;
        gr_arena_init(&ar);
        void *resp;
        int16_t ver;
        err = offset_fetch(c, &l, deadline, &ar, &resp, &ver);
        if (!err) {
            const gr_OffsetFetchResponse_t *rs = resp;
            err = ver < 8 ? rs->ErrorCode : rs->Groups.n ? rs->Groups.v[0].ErrorCode : GR_ERR__MALFORMED;
            int32_t nt = ver < 8 ? rs->Topics.n : rs->Groups.n ? rs->Groups.v[0].Topics.n : 0;
            if (!err && nt > 0) {
                if (ver < 8 && rs->Topics.v[0].Partitions.n > 0)
                    *offset = rs->Topics.v[0].Partitions.v[0].CommittedOffset,
                    err = rs->Topics.v[0].Partitions.v[0].ErrorCode;
                else if (ver >= 8 && rs->Groups.v[0].Topics.v[0].Partitions.n > 0)
                    *offset = rs->Groups.v[0].Topics.v[0].Partitions.v[0].CommittedOffset,
                    err = rs->Groups.v[0].Topics.v[0].Partitions.v[0].ErrorCode;
            }
        }
        gr_arena_free(&ar);
        if (!gr__cg_coord_error(err) || gr__client_tick(c->cl) >= deadline) break;
        gr__cg_coord_lost(c);
    }
    gr__tplist_free(&l);
    if (err && !c->errbuf[0]) gr__fmt(err, c->errbuf, sizeof(c->errbuf), "OffsetFetch: %s", gr_err_str(err));
    return err;
}

/* ---- OffsetCommit ---- */

/* The offsets to commit: tps, or every assigned partition whose position moved. */
static gr_topic_partition_t *commit_set(gr_consumer_t *c, const gr_topic_partition_t *tps, size_t *n) {
    gr_topic_partition_t *v = calloc((tps ? *n : c->n_parts) + 1, sizeof(*v));
    if (!v) abort();
    if (tps) {
        for (size_t i = 0; i < *n; i++) {
            v[i] = tps[i];
            if (!(v[i].topic = strdup(tps[i].topic))) abort();
        }
        return v;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__cpart_t *p = c->parts[i];
        if (p->next < 0 || p->next == p->committed) continue;
        v[k] = (gr_topic_partition_t){strdup(p->topic), p->partition, p->next};
        if (!v[k++].topic) abort();
    }
    *n = k;
    return v;
}

static void free_set(gr_topic_partition_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) free((char *)v[i].topic);
    free(v);
}

static void fill_commit(gr_consumer_t *c, gr_arena_t *ar, gr_OffsetCommitRequest_t *rq, const gr_topic_partition_t *v,
                        size_t n) {
    rq->GroupId = gr_str_c(c->g.group_id);
    rq->GenerationIdOrMemberEpoch = c->g.epoch;
    rq->MemberId = gr_str_c(c->g.epoch >= 0 && c->g.member_id ? c->g.member_id : "");
    rq->GroupInstanceId = gr_str_c(c->g.instance_id);
    rq->RetentionTimeMs = -1;
    rq->Topics.v = gr_struct_alloc(ar, &gr_OffsetCommitRequest_OffsetCommitRequestTopic_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        gr_OffsetCommitRequest_OffsetCommitRequestTopic_t *t = NULL;
        for (int32_t k = 0; k < rq->Topics.n && !t; k++)
            if (gr_str_eq_c(rq->Topics.v[k].Name, v[i].topic)) t = &rq->Topics.v[k];
        if (!t) {
            t = &rq->Topics.v[rq->Topics.n++];
            t->Name = gr_str_c(v[i].topic);
            t->Partitions.v = gr_struct_alloc(ar, &gr_OffsetCommitRequest_OffsetCommitRequestPartition_sd, (int32_t)n);
        }
        gr_OffsetCommitRequest_OffsetCommitRequestPartition_t *p = &t->Partitions.v[t->Partitions.n++];
        p->PartitionIndex = v[i].partition;
        p->CommittedOffset = v[i].offset;
        p->CommittedLeaderEpoch = -1;
        p->CommittedMetadata = GR_STR("");
    }
}

/* The first error of an answer; remembers what was committed. */
static gr_err_t commit_result(gr_consumer_t *c, const gr_OffsetCommitResponse_t *rs, const gr_topic_partition_t *v,
                              size_t n) {
    gr_err_t first = GR_ERR_NONE;
    for (int32_t t = 0; t < rs->Topics.n; t++)
        for (int32_t i = 0; i < rs->Topics.v[t].Partitions.n; i++) {
            const gr_OffsetCommitResponse_OffsetCommitResponsePartition_t *pp = &rs->Topics.v[t].Partitions.v[i];
            if (pp->ErrorCode) {
                if (!first) first = (gr_err_t)pp->ErrorCode;
                continue;
            }
            for (size_t k = 0; k < n; k++) {
                if (v[k].partition != pp->PartitionIndex || !gr_str_eq_c(rs->Topics.v[t].Name, v[k].topic)) continue;
                gr__cpart_t *p = gr__cons_find(c, v[k].topic, strlen(v[k].topic), v[k].partition);
                if (p) p->committed = v[k].offset;
            }
        }
    if (gr__cg_coord_error(first)) gr__cg_coord_lost(c);
    return first;
}

gr_err_t gr__co_commit_sync(gr_consumer_t *c, const gr_topic_partition_t *tps, size_t n, int64_t deadline) {
    gr_topic_partition_t *v = commit_set(c, tps, &n);
    gr_err_t err = GR_ERR_NONE;
    while (n) {
        if (gr__cg_wait_coord(c, deadline) < 0) {
            err = gr__fmt(GR_ERR__TIMED_OUT, c->errbuf, sizeof(c->errbuf), "no coordinator for group %s in time",
                          c->g.group_id);
            break;
        }
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_OffsetCommitRequest_t rq;
        gr_struct_init(&gr_OffsetCommitRequest_sd, &rq);
        fill_commit(c, &ar, &rq, v, n);
        void *resp;
        int16_t ver;
        err = gr__client_call(c->cl, c->g.coord_id, GR_API_OffsetCommit, &rq, deadline, &ar, &resp, &ver, c->errbuf,
                              sizeof(c->errbuf));
        if (!err) err = commit_result(c, resp, v, n);
        gr_arena_free(&ar);
        if (err == GR_ERR__TRANSPORT || err == GR_ERR__CLOSED) gr__cg_coord_lost(c);
        bool retry = gr__cg_coord_error(err) || err == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
                     err == GR_ERR__TRANSPORT || err == GR_ERR__CLOSED;
        if (!retry || gr__client_tick(c->cl) >= deadline) break;
        gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
    }
    if (err && !c->errbuf[0])
        gr__fmt(err, c->errbuf, sizeof(c->errbuf), "OffsetCommit for group %s: %s", c->g.group_id, gr_err_str(err));
    free_set(v, n);
    return err;
}

gr_err_t gr_consumer_commit(gr_consumer_t *c, const gr_topic_partition_t *offsets, size_t n, int timeout_ms) {
    c->errbuf[0] = 0;
    if (!c->g.group_id)
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "no group.id in the configuration");
    return gr__co_commit_sync(c, offsets && n ? offsets : NULL, offsets ? n : 0, gr__cons_deadline(c, timeout_ms));
}

typedef struct commit_ctx {
    gr_consumer_t *c;
    gr_topic_partition_t *v;
    size_t n;
    gr_commit_cb *cb;
    void *opaque;
} commit_ctx_t;

static void on_commit(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    commit_ctx_t *x = opaque;
    (void)cl, (void)errmsg, (void)ver;
    x->c->g.commits_inflight--;
    if (!err)
        err = commit_result(x->c, resp, x->v, x->n);
    else if (err != GR_ERR__CLOSED) /* _CLOSED: the consumer is being destroyed */
        gr__cg_coord_lost(x->c);
    if (x->cb) x->cb(x->c, err, x->v, x->n, x->opaque);
    free_set(x->v, x->n);
    free(x);
}

gr_err_t gr__co_commit_async(gr_consumer_t *c, const gr_topic_partition_t *tps, size_t n, gr_commit_cb *cb,
                             void *opaque) {
    gr__node_t *node = gr__cg_coord(c);
    int16_t ver = node ? gr__node_version(node, GR_API_OffsetCommit) : -1;
    if (ver < 0)
        return gr__fmt(GR_ERR_COORDINATOR_NOT_AVAILABLE, c->errbuf, sizeof(c->errbuf),
                       "the coordinator of group %s is not known yet", c->g.group_id);
    commit_ctx_t *x = calloc(1, sizeof(*x));
    if (!x) abort();
    *x = (commit_ctx_t){c, commit_set(c, tps, &n), n, cb, opaque};
    if (!n) {
        if (cb) cb(c, GR_ERR_NONE, x->v, 0, opaque);
        free_set(x->v, 0);
        free(x);
        return GR_ERR_NONE;
    }
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_OffsetCommitRequest_t rq;
    gr_struct_init(&gr_OffsetCommitRequest_sd, &rq);
    fill_commit(c, &ar, &rq, x->v, n);
    gr_err_t err = gr__node_send(node, GR_API_OffsetCommit, ver, &rq, true, on_commit, x);
    gr_arena_free(&ar);
    if (err) {
        free_set(x->v, x->n);
        free(x);
        return gr__fmt(err, c->errbuf, sizeof(c->errbuf), "OffsetCommit not sent: %s", gr_err_str(err));
    }
    c->g.commits_inflight++;
    return GR_ERR_NONE;
}

gr_err_t gr_consumer_commit_async(gr_consumer_t *c, const gr_topic_partition_t *offsets, size_t n, gr_commit_cb *cb,
                                  void *opaque) {
    c->errbuf[0] = 0;
    if (!c->g.group_id)
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "no group.id in the configuration");
    if (!gr__cg_coord(c)) gr__cg_wait_coord(c, gr__cons_deadline(c, -1));
    return gr__co_commit_async(c, offsets && n ? offsets : NULL, offsets ? n : 0, cb, opaque);
}

void gr__co_auto_commit(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    int64_t now = gr__client_now(c->cl);
    if (!g->auto_commit || now < g->next_commit || g->epoch < 0) return;
    if (!gr__cg_coord(c)) return;
    g->next_commit = now + g->auto_commit_ms;
    if (gr__co_commit_async(c, NULL, 0, g->commit_cb, g->commit_opaque)) c->errbuf[0] = 0;
}
