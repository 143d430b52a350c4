/* The admin client: committed offsets of consumer groups, at the group's coordinator.
 * OffsetFetch (v8+ in its multi-group form, one group here), OffsetCommit as an admin
 * (generation -1, no member: Kafka's alterConsumerGroupOffsets) and OffsetDelete. Topics
 * are named (versions before the topic-id forms: OffsetFetch <= 9, OffsetCommit <= 9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_int.h"
#include "proto_msgs.h"

#define CALL(a, node, api, rq, deadline, ar, resp, ver) \
    gr__client_call((a)->cl, node, api, rq, deadline, ar, resp, ver, (a)->errbuf, sizeof((a)->errbuf))

static bool coord_retriable(int16_t code) {
    return code == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS || code == GR_ERR_COORDINATOR_NOT_AVAILABLE ||
           code == GR_ERR_NOT_COORDINATOR;
}

static bool backoff(gr_admin_t *a, int64_t deadline) {
    if (gr__client_tick(a->cl) + 100 >= deadline) return false;
    gr__client_io(a->cl, 100);
    return true;
}

/* ---- list (OffsetFetch) ---- */

static const char *const fetch_cols[] = {"group",    "topic", "partition",     "offset", "leader_epoch",
                                         "metadata", "error", "error_message", NULL};

static void fetch_row(gr_admin_result_t *r, const char *group, gr_str_t topic, int32_t p, int64_t off, int32_t epoch,
                      gr_str_t md, int16_t code) {
    size_t row = gr__result_add_row(r);
    gr__result_set_cstr(r, row, "group", group);
    gr__result_set_str(r, row, "topic", topic);
    gr__result_set_int(r, row, "partition", p);
    gr__result_set_int(r, row, "offset", off);
    gr__result_set_int(r, row, "leader_epoch", epoch);
    gr__result_set_str(r, row, "metadata", md);
    gr__result_set_error(r, row, code, GR_STR_NULL);
}

static void group_error_row(gr_admin_result_t *r, const char *group, int16_t code) {
    size_t row = gr__result_add_row(r);
    gr__result_set_cstr(r, row, "group", group);
    gr__result_set_error(r, row, code, GR_STR_NULL);
}

/* The request's topics with all their partitions (from metadata); NULL topics = all. */
static gr_err_t fetch_topics(gr_admin_t *a, const char *const *topics, size_t n, int64_t deadline, gr_arena_t *ar,
                             gr_str_t **names, int32_t **counts, int32_t ***parts) {
    gr_admin_result_t *d = NULL;
    gr_err_t err = gr_admin_describe_topics(a, topics, n, (int)(deadline - gr__client_tick(a->cl)), &d);
    if (err && !d) return err;
    *names = gr_arena_alloc(ar, n * sizeof(gr_str_t));
    *counts = gr_arena_alloc(ar, n * sizeof(int32_t));
    *parts = gr_arena_alloc(ar, n * sizeof(int32_t *));
    for (size_t i = 0; i < n; i++) {
        (*names)[i] = gr_str_c(topics[i]);
        (*counts)[i] = 0;
        (*parts)[i] = gr_arena_alloc(ar, gr_admin_result_rows(d) * sizeof(int32_t) + 4);
        for (size_t row = 0; row < gr_admin_result_rows(d); row++) {
            const char *t = gr_admin_result_str(d, row, "topic");
            int64_t p = gr_admin_result_int(d, row, "partition", -1);
            if (t && !strcmp(t, topics[i]) && p >= 0) (*parts)[i][(*counts)[i]++] = (int32_t)p;
        }
    }
    gr_admin_result_destroy(d);
    return GR_ERR_NONE;
}

static void fill_fetch_request(gr_arena_t *ar, gr_OffsetFetchRequest_t *rq, const char *group, size_t n,
                               const gr_str_t *names, const int32_t *counts, int32_t *const *parts) {
    rq->GroupId = gr_str_c(group);
    rq->Topics.n = n ? (int32_t)n : -1;
    rq->Topics.v = gr_struct_alloc(ar, &gr_OffsetFetchRequest_OffsetFetchRequestTopic_sd, (int32_t)n);
    rq->Groups.n = 1;
    rq->Groups.v = gr_struct_alloc(ar, &gr_OffsetFetchRequest_OffsetFetchRequestGroup_sd, 1);
    gr_OffsetFetchRequest_OffsetFetchRequestGroup_t *g = &rq->Groups.v[0];
    g->GroupId = gr_str_c(group);
    g->MemberEpoch = -1;
    g->Topics.n = n ? (int32_t)n : -1;
    g->Topics.v = gr_struct_alloc(ar, &gr_OffsetFetchRequest_OffsetFetchRequestTopics_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        rq->Topics.v[i].Name = g->Topics.v[i].Name = names[i];
        rq->Topics.v[i].PartitionIndexes.v = g->Topics.v[i].PartitionIndexes.v = parts[i];
        rq->Topics.v[i].PartitionIndexes.n = g->Topics.v[i].PartitionIndexes.n = counts[i];
    }
}

/* Rows from an answer; *retry when the coordinator asks to retry. */
static void fetch_rows(gr_admin_result_t *r, const char *group, int16_t ver, const gr_OffsetFetchResponse_t *rs,
                       bool *retry) {
    if (ver < 8) {
        if (coord_retriable(rs->ErrorCode)) *retry = true;
        if (rs->ErrorCode) {
            if (!*retry) group_error_row(r, group, rs->ErrorCode);
            return;
        }
        for (int32_t t = 0; t < rs->Topics.n; t++)
            for (int32_t p = 0; p < rs->Topics.v[t].Partitions.n; p++) {
                const gr_OffsetFetchResponse_OffsetFetchResponsePartition_t *pp = &rs->Topics.v[t].Partitions.v[p];
                fetch_row(r, group, rs->Topics.v[t].Name, pp->PartitionIndex, pp->CommittedOffset,
                          pp->CommittedLeaderEpoch, pp->Metadata, pp->ErrorCode);
            }
        return;
    }
    for (int32_t i = 0; i < rs->Groups.n; i++) {
        const gr_OffsetFetchResponse_OffsetFetchResponseGroup_t *g = &rs->Groups.v[i];
        if (coord_retriable(g->ErrorCode)) *retry = true;
        if (g->ErrorCode) {
            if (!*retry) group_error_row(r, group, g->ErrorCode);
            continue;
        }
        for (int32_t t = 0; t < g->Topics.n; t++)
            for (int32_t p = 0; p < g->Topics.v[t].Partitions.n; p++) {
                const gr_OffsetFetchResponse_OffsetFetchResponsePartitions_t *pp = &g->Topics.v[t].Partitions.v[p];
                fetch_row(r, group, g->Topics.v[t].Name, pp->PartitionIndex, pp->CommittedOffset,
                          pp->CommittedLeaderEpoch, pp->Metadata, pp->ErrorCode);
            }
    }
}

gr_err_t gr_admin_list_consumer_group_offsets(gr_admin_t *a, const char *group, const char *const *topics,
                                              size_t n_topics, int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!group || (n_topics && !topics))
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "no group given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_str_t *names = NULL;
    int32_t *counts = NULL, **parts = NULL;
    gr_err_t err = n_topics ? fetch_topics(a, topics, n_topics, deadline, &ar, &names, &counts, &parts) : 0;
    gr_admin_result_t *r = err ? NULL : gr__result_new(fetch_cols);
    for (bool retry = true; !err && retry;) {
        retry = false;
        int32_t node;
        if ((err = gr__admin_coordinator(a, group, deadline, &node))) break;
        gr_OffsetFetchRequest_t rq;
        gr_struct_init(&gr_OffsetFetchRequest_sd, &rq);
        fill_fetch_request(&ar, &rq, group, n_topics, names, counts, parts);
        void *resp;
        int16_t ver;
        if ((err = CALL(a, node, GR_API_OffsetFetch, &rq, deadline, &ar, &resp, &ver))) break;
        fetch_rows(r, group, ver, resp, &retry);
        if (retry && !backoff(a, deadline))
            err = gr__fmt(GR_ERR__TIMED_OUT, a->errbuf, sizeof(a->errbuf),
                          "OffsetFetch for group %s: the coordinator is not available", group);
    }
    gr_arena_free(&ar);
    if (err) {
        gr_admin_result_destroy(r);
        return err;
    }
    *res = r;
    return gr__result_first_error(r, "group", a->errbuf, sizeof(a->errbuf));
}

/* ---- alter (OffsetCommit) and delete (OffsetDelete) ---- */

static const char *const part_cols[] = {"topic", "partition", "error", "error_message", NULL};

/* Index of the distinct topics: topic_of[i] is the slot of entry i; returns the count. */
static size_t distinct_topics(const char *const *topics, size_t n, size_t *topic_of, const char **uniq) {
    size_t nu = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nu && strcmp(uniq[k], topics[i])) k++;
        if (k == nu) uniq[nu++] = topics[i];
        topic_of[i] = k;
    }
    return nu;
}

static void part_row(gr_admin_result_t *r, gr_str_t topic, int32_t p, int16_t code) {
    size_t row = gr__result_add_row(r);
    gr__result_set_str(r, row, "topic", topic);
    gr__result_set_int(r, row, "partition", p);
    gr__result_set_error(r, row, code, GR_STR_NULL);
}

static void fill_commit(gr_arena_t *ar, gr_OffsetCommitRequest_t *rq, const char *group, const char *const *topics,
                        const int32_t *partitions, const int64_t *offsets, size_t n) {
    size_t *topic_of = gr_arena_alloc(ar, n * sizeof(size_t));
    const char **uniq = gr_arena_alloc(ar, n * sizeof(char *));
    size_t nu = distinct_topics(topics, n, topic_of, uniq);
    rq->GroupId = gr_str_c(group);
    rq->GenerationIdOrMemberEpoch = -1;
    rq->MemberId = GR_STR("");
    rq->GroupInstanceId = GR_STR_NULL;
    rq->RetentionTimeMs = -1;
    rq->Topics.n = (int32_t)nu;
    rq->Topics.v = gr_struct_alloc(ar, &gr_OffsetCommitRequest_OffsetCommitRequestTopic_sd, (int32_t)nu);
    for (size_t k = 0; k < nu; k++) {
        gr_OffsetCommitRequest_OffsetCommitRequestTopic_t *t = &rq->Topics.v[k];
        t->Name = gr_str_c(uniq[k]);
        t->Partitions.v = gr_struct_alloc(ar, &gr_OffsetCommitRequest_OffsetCommitRequestPartition_sd, (int32_t)n);
        for (size_t i = 0; i < n; i++) {
            if (topic_of[i] != k) continue;
            gr_OffsetCommitRequest_OffsetCommitRequestPartition_t *p = &t->Partitions.v[t->Partitions.n++];
            p->PartitionIndex = partitions[i];
            p->CommittedOffset = offsets[i];
            p->CommittedLeaderEpoch = -1;
            p->CommittedMetadata = GR_STR("");
        }
    }
}

gr_err_t gr_admin_alter_consumer_group_offsets(gr_admin_t *a, const char *group, const char *const *topics,
                                               const int32_t *partitions, const int64_t *offsets, size_t n,
                                               int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!group || !n || !topics || !partitions || !offsets)
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "group and offsets must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_err_t err;
    for (;;) {
        int32_t node;
        if ((err = gr__admin_coordinator(a, group, deadline, &node))) return err;
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_OffsetCommitRequest_t rq;
        gr_struct_init(&gr_OffsetCommitRequest_sd, &rq);
        fill_commit(&ar, &rq, group, topics, partitions, offsets, n);
        void *resp;
        int16_t ver;
        bool retry = false;
        if (!(err = CALL(a, node, GR_API_OffsetCommit, &rq, deadline, &ar, &resp, &ver))) {
            const gr_OffsetCommitResponse_t *rs = resp;
            gr_admin_result_t *r = gr__result_new(part_cols);
            for (int32_t t = 0; t < rs->Topics.n; t++)
                for (int32_t p = 0; p < rs->Topics.v[t].Partitions.n; p++) {
                    int16_t code = rs->Topics.v[t].Partitions.v[p].ErrorCode;
                    retry = retry || coord_retriable(code);
                    part_row(r, rs->Topics.v[t].Name, rs->Topics.v[t].Partitions.v[p].PartitionIndex, code);
                }
            if (retry && backoff(a, deadline)) {
                gr_admin_result_destroy(r);
            } else {
                retry = false;
                *res = r;
                err = gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
            }
        }
        gr_arena_free(&ar);
        if (!retry) return err;
    }
}

static void fill_delete(gr_arena_t *ar, gr_OffsetDeleteRequest_t *rq, const char *group, const char *const *topics,
                        const int32_t *partitions, size_t n) {
    size_t *topic_of = gr_arena_alloc(ar, n * sizeof(size_t));
    const char **uniq = gr_arena_alloc(ar, n * sizeof(char *));
    size_t nu = distinct_topics(topics, n, topic_of, uniq);
    rq->GroupId = gr_str_c(group);
    rq->Topics.n = (int32_t)nu;
    rq->Topics.v = gr_struct_alloc(ar, &gr_OffsetDeleteRequest_OffsetDeleteRequestTopic_sd, (int32_t)nu);
    for (size_t k = 0; k < nu; k++) {
        gr_OffsetDeleteRequest_OffsetDeleteRequestTopic_t *t = &rq->Topics.v[k];
        t->Name = gr_str_c(uniq[k]);
        t->Partitions.v = gr_struct_alloc(ar, &gr_OffsetDeleteRequest_OffsetDeleteRequestPartition_sd, (int32_t)n);
        for (size_t i = 0; i < n; i++)
            if (topic_of[i] == k) t->Partitions.v[t->Partitions.n++].PartitionIndex = partitions[i];
    }
}

static gr_err_t delete_result(gr_admin_t *a, const char *group, const gr_OffsetDeleteResponse_t *rs,
                              const char *const *topics, const int32_t *partitions, size_t n, gr_admin_result_t *r) {
    if (rs->ErrorCode) { /* the group-level error is every partition's */
        for (size_t i = 0; i < n; i++) part_row(r, gr_str_c(topics[i]), partitions[i], rs->ErrorCode);
        return gr__fmt((gr_err_t)rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "OffsetDelete for group %s: %s", group,
                       gr_err_str((gr_err_t)rs->ErrorCode));
    }
    for (int32_t t = 0; t < rs->Topics.n; t++)
        for (int32_t p = 0; p < rs->Topics.v[t].Partitions.n; p++)
            part_row(r, rs->Topics.v[t].Name, rs->Topics.v[t].Partitions.v[p].PartitionIndex,
                     rs->Topics.v[t].Partitions.v[p].ErrorCode);
    return gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
}

gr_err_t gr_admin_delete_consumer_group_offsets(gr_admin_t *a, const char *group, const char *const *topics,
                                                const int32_t *partitions, size_t n, int timeout_ms,
                                                gr_admin_result_t **res) {
    *res = NULL;
    if (!group || (n && (!topics || !partitions)))
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "group and partitions must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    for (;;) {
        int32_t node;
        gr_err_t err = gr__admin_coordinator(a, group, deadline, &node);
        if (err) return err;
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_OffsetDeleteRequest_t rq;
        gr_struct_init(&gr_OffsetDeleteRequest_sd, &rq);
        fill_delete(&ar, &rq, group, topics, partitions, n);
        void *resp;
        int16_t ver;
        bool retry = false;
        if (!(err = CALL(a, node, GR_API_OffsetDelete, &rq, deadline, &ar, &resp, &ver))) {
            const gr_OffsetDeleteResponse_t *rs = resp;
            retry = coord_retriable(rs->ErrorCode) && backoff(a, deadline);
            if (!retry) {
                *res = gr__result_new(part_cols);
                err = delete_result(a, group, rs, topics, partitions, n, *res);
            }
        }
        gr_arena_free(&ar);
        if (!retry) return err;
    }
}
