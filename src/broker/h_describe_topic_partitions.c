/* DescribeTopicPartitions (75): topic metadata in name order, paged by a
 * partition limit and a cursor, as KIP-966 defines it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

typedef gr_DescribeTopicPartitionsResponse_DescribeTopicPartitionsResponseTopic_t dtp_topic_t;
typedef gr_DescribeTopicPartitionsResponse_DescribeTopicPartitionsResponsePartition_t dtp_part_t;

void gr__one_node(gr_req_t *req, void *field, int32_t node);

/* Emit partitions [from, end) of t; returns how many were emitted. */
static int32_t fill_topic(gr_req_t *req, dtp_topic_t *rt, const gr_meta_topic_t *t, int32_t from, int32_t budget) {
    int32_t node = gr_broker_node_id(req->b);
    int32_t n = t->partitions - from;
    if (n > budget) n = budget;
    if (n < 0) n = 0;
    rt->Name = gr_str_c(t->name);
    rt->TopicId = t->id;
    rt->IsInternal = t->name[0] == '_' && t->name[1] == '_';
    /* Kafka always fills it here (there is no Include flag in this API). */
    rt->TopicAuthorizedOperations = gr_req_authz_ops(req, GR_ACL_RT_TOPIC, t->name);
    rt->Partitions.v =
        gr_req_alloc(req, &gr_DescribeTopicPartitionsResponse_DescribeTopicPartitionsResponsePartition_sd, n);
    rt->Partitions.n = n;
    for (int32_t i = 0; i < n; i++) {
        dtp_part_t *p = &rt->Partitions.v[i];
        p->PartitionIndex = from + i;
        p->LeaderId = node;
        p->LeaderEpoch = 0;
        gr__one_node(req, &p->ReplicaNodes, node);
        gr__one_node(req, &p->IsrNodes, node);
        p->EligibleLeaderReplicas.n = 0;
        p->LastKnownElr.n = 0;
        p->OfflineReplicas.n = 0;
    }
    return n;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void gr_h_describe_topic_partitions(gr_req_t *req) {
    gr_DescribeTopicPartitionsRequest_t *dreq = req->body;
    gr_DescribeTopicPartitionsResponse_t *resp = gr_req_resp_new(req);
    gr_meta_t *meta = req->b->meta;
    bool all = dreq->Topics.n <= 0;
    int32_t n_names = all ? (int32_t)gr_meta_topic_count(meta) : dreq->Topics.n;
    const char **names = gr_arena_alloc(&req->arena, sizeof(char *) * (size_t)(n_names + 1));
    for (int32_t i = 0; i < n_names; i++)
        names[i] = all ? gr_meta_topic_at(meta, (size_t)i)->name : gr_req_cstr(req, dreq->Topics.v[i].Name);
    qsort(names, (size_t)n_names, sizeof(char *), cmp_names);
    const char *cur_topic = dreq->Cursor ? gr_req_cstr(req, dreq->Cursor->TopicName) : NULL;
    int32_t cur_part = dreq->Cursor ? dreq->Cursor->PartitionIndex : 0;
    int32_t budget = dreq->ResponsePartitionLimit > 0 ? dreq->ResponsePartitionLimit : 2000;
    resp->Topics.v =
        gr_req_alloc(req, &gr_DescribeTopicPartitionsResponse_DescribeTopicPartitionsResponseTopic_sd, n_names);
    resp->Topics.n = 0;
    for (int32_t i = 0; i < n_names; i++) {
        if (i > 0 && !strcmp(names[i], names[i - 1])) continue;
        if (cur_topic && strcmp(names[i], cur_topic) < 0) continue;
        int32_t from = cur_topic && !strcmp(names[i], cur_topic) ? cur_part : 0;
        bool allowed = gr_req_allowed(req, GR_AZ_DESCRIBE_TOPIC_PARTITIONS, names[i]);
        if (all && !allowed) continue; /* listing: topics without DESCRIBE are left out */
        const gr_meta_topic_t *t = allowed ? gr_meta_topic_find(meta, names[i]) : NULL;
        dtp_topic_t *rt = &resp->Topics.v[resp->Topics.n++];
        if (!t) {
            rt->ErrorCode = allowed ? GR_ERR_UNKNOWN_TOPIC_OR_PARTITION : GR_ERR_TOPIC_AUTHORIZATION_FAILED;
            rt->Name = gr_str_c(names[i]);
            rt->TopicAuthorizedOperations = INT32_MIN;
            continue;
        }
        if (budget == 0) {
            resp->Topics.n--;
            resp->NextCursor = gr_req_alloc(req, &gr_DescribeTopicPartitionsResponse_Cursor_sd, 1);
            resp->NextCursor->TopicName = gr_str_c(t->name);
            resp->NextCursor->PartitionIndex = from;
            break;
        }
        int32_t emitted = fill_topic(req, rt, t, from, budget);
        budget -= emitted;
        if (from + emitted < t->partitions) {
            resp->NextCursor = gr_req_alloc(req, &gr_DescribeTopicPartitionsResponse_Cursor_sd, 1);
            resp->NextCursor->TopicName = gr_str_c(t->name);
            resp->NextCursor->PartitionIndex = from + emitted;
            break;
        }
    }
    gr_req_respond(req, resp);
}
