/* Metadata (3), DescribeCluster (60) and DescribeTopicPartitions (75): one
 * broker that leads every partition, is its only replica and the controller. */
#include <limits.h>
#include <string.h>

#include "base/uuid.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

/* Kafka: the cluster's authorized operations only for a principal that may DESCRIBE it, else 0. */
static int32_t cluster_ops(gr_req_t *req, bool include) {
    if (!include) return INT32_MIN;
    return gr_req_allowed(req, GR_AZ_DESCRIBE_CLUSTER, NULL) ? gr_req_authz_ops(req, GR_ACL_RT_CLUSTER, NULL) : 0;
}

/* An unauthorized topic: no id, no partitions, nothing that tells whether it exists. */
static void denied_topic(gr_MetadataResponse_MetadataResponseTopic_t *rt, bool internal) {
    rt->ErrorCode = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
    memset(&rt->TopicId, 0, sizeof(rt->TopicId));
    rt->IsInternal = internal;
    rt->Partitions.n = 0;
}

static bool is_internal(const char *name) {
    return !strcmp(name, "__consumer_offsets") || !strcmp(name, "__transaction_state") ||
           !strcmp(name, "__share_group_state");
}

/* Every []int32 field has the gr_array_t layout. */
static void one_node(gr_req_t *req, void *field, int32_t node) {
    gr_array_t *arr = field;
    int32_t *v = gr_arena_alloc(&req->arena, sizeof(int32_t));
    v[0] = node;
    arr->v = v;
    arr->n = 1;
}

void gr__one_node(gr_req_t *req, void *field, int32_t node) { one_node(req, field, node); }

static void fill_partitions(gr_req_t *req, gr_MetadataResponse_MetadataResponseTopic_t *rt, const gr_meta_topic_t *t) {
    int32_t node = gr_broker_node_id(req->b);
    rt->Partitions.v = gr_req_alloc(req, &gr_MetadataResponse_MetadataResponsePartition_sd, t->partitions);
    rt->Partitions.n = t->partitions;
    for (int32_t i = 0; i < t->partitions; i++) {
        gr_MetadataResponse_MetadataResponsePartition_t *p = &rt->Partitions.v[i];
        gr_partition_t *part = gr_parts_find(req->b->parts, t->name, i);
        p->PartitionIndex = i;
        p->LeaderId = node;
        p->LeaderEpoch = part ? part->leader_epoch : 0;
        /* No log yet: the topic is being created (topic_open.c); Kafka says the same until a leader is up. */
        p->ErrorCode = !part ? GR_ERR_LEADER_NOT_AVAILABLE : part->offline ? GR_ERR_KAFKA_STORAGE_ERROR : GR_ERR_NONE;
        one_node(req, &p->ReplicaNodes, node);
        one_node(req, &p->IsrNodes, node);
        p->OfflineReplicas.n = 0;
    }
}

static void fill_topic(gr_req_t *req, gr_MetadataResponse_MetadataResponseTopic_t *rt, const gr_meta_topic_t *t,
                       bool with_ops) {
    rt->ErrorCode = GR_ERR_NONE;
    rt->Name = gr_str_c(t->name);
    rt->TopicId = t->id;
    rt->IsInternal = is_internal(t->name);
    rt->TopicAuthorizedOperations = with_ops ? gr_req_authz_ops(req, GR_ACL_RT_TOPIC, t->name) : INT32_MIN;
    fill_partitions(req, rt, t);
}

/* One requested topic: by id (v10+) or by name, auto-created when allowed. */
static void lookup_topic(gr_req_t *req, const gr_MetadataRequest_MetadataRequestTopic_t *qt,
                         gr_MetadataResponse_MetadataResponseTopic_t *rt, bool allow_auto, bool with_ops) {
    gr_MetadataRequest_t *mreq = req->body;
    const gr_meta_topic_t *t = NULL;
    rt->Name = qt->Name;
    rt->TopicAuthorizedOperations = INT32_MIN;
    /* By id when the name is null, or empty with a non-zero id; an empty name with the zero
     * id is a name lookup, which Kafka answers INVALID_TOPIC_EXCEPTION named "". */
    if (gr_str_is_null(qt->Name) || (qt->Name.len == 0 && !gr_uuid_is_zero(&qt->TopicId))) {
        t = gr_meta_topic_find_id(req->b->meta, &qt->TopicId);
        if (!t || !gr_req_allowed(req, GR_AZ_METADATA, t->name)) { /* ids are not secret: Kafka says which */
            rt->ErrorCode = t ? GR_ERR_TOPIC_AUTHORIZATION_FAILED : GR_ERR_UNKNOWN_TOPIC_ID;
            rt->TopicId = qt->TopicId;
            rt->Name = GR_STR_NULL;
            return;
        }
    } else {
        char *name = gr_req_cstr(req, qt->Name);
        char errstr[256];
        if (!gr_req_allowed(req, GR_AZ_METADATA, name)) {
            denied_topic(rt, false);
            return;
        }
        t = gr_meta_topic_find(req->b->meta, name);
        /* Auto-creation needs CREATE on the cluster or on the topic. */
        if (!t && allow_auto && req->b->cfg->auto_create_topics_enable &&
            !gr_req_allowed(req, GR_AZ_AUTO_CREATE_CLUSTER, NULL) && !gr_req_allowed(req, GR_AZ_AUTO_CREATE, name)) {
            denied_topic(rt, is_internal(name));
            return;
        }
        if (!t && gr_meta_topic_name_validate(name, errstr, sizeof(errstr))) {
            rt->ErrorCode = GR_ERR_INVALID_TOPIC_EXCEPTION;
            return;
        }
        if (!t && allow_auto && !is_internal(name)) {
            gr_err_t err;
            t = gr_broker_auto_create(req->b, name, &err);
            if (!t) {
                rt->ErrorCode = err;
                return;
            }
        }
        if (!t) {
            rt->ErrorCode = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
            return;
        }
    }
    (void)mreq;
    fill_topic(req, rt, t, with_ops);
}

static void fill_brokers(gr_req_t *req, gr_MetadataResponse_t *resp) {
    resp->Brokers.v = gr_req_alloc(req, &gr_MetadataResponse_MetadataResponseBroker_sd, 1);
    resp->Brokers.n = 1;
    resp->Brokers.v[0].NodeId = gr_broker_node_id(req->b);
    resp->Brokers.v[0].Host = gr_str_c(gr_broker_host(req->b, req->conn));
    resp->Brokers.v[0].Port = gr_broker_adv_port(req->b, req->conn);
    resp->Brokers.v[0].Rack = GR_STR_NULL;
    resp->ClusterId = gr_str_c(gr_meta_cluster_id(req->b->meta));
    resp->ControllerId = gr_broker_node_id(req->b);
}

void gr_h_metadata(gr_req_t *req) {
    gr_MetadataRequest_t *mreq = req->body;
    gr_MetadataResponse_t *resp = gr_req_resp_new(req);
    int16_t ver = req->hdr.api_version;
    bool with_ops = mreq->IncludeTopicAuthorizedOperations && ver >= 8;
    fill_brokers(req, resp);
    resp->ClusterAuthorizedOperations = cluster_ops(req, mreq->IncludeClusterAuthorizedOperations);
    bool all = mreq->Topics.n < 0 || (ver == 0 && mreq->Topics.n == 0);
    if (all) { /* only the topics the principal may DESCRIBE */
        size_t n = gr_meta_topic_count(req->b->meta);
        resp->Topics.v = gr_req_alloc(req, &gr_MetadataResponse_MetadataResponseTopic_sd, (int32_t)n);
        resp->Topics.n = 0;
        for (size_t i = 0; i < n; i++) {
            const gr_meta_topic_t *t = gr_meta_topic_at(req->b->meta, i);
            if (gr_req_allowed(req, GR_AZ_METADATA, t->name))
                fill_topic(req, &resp->Topics.v[resp->Topics.n++], t, with_ops);
        }
    } else {
        bool allow_auto = ver < 4 || mreq->AllowAutoTopicCreation;
        resp->Topics.v = gr_req_alloc(req, &gr_MetadataResponse_MetadataResponseTopic_sd, mreq->Topics.n);
        resp->Topics.n = 0;
        for (int32_t i = 0; i < mreq->Topics.n; i++) {
            const gr_MetadataRequest_MetadataRequestTopic_t *qt = &mreq->Topics.v[i];
            bool dup = false; /* Kafka answers each distinct topic once */
            /* A lookup by id (empty name, non-zero id: the Java consumer's) is distinct by id. */
            bool by_id = qt->Name.len == 0 && !gr_uuid_is_zero(&qt->TopicId);
            for (int32_t j = 0; j < i && !dup; j++)
                dup = by_id ? !memcmp(&mreq->Topics.v[j].TopicId, &qt->TopicId, sizeof(qt->TopicId)) &&
                                  mreq->Topics.v[j].Name.len == 0
                            : !gr_str_is_null(qt->Name) && gr_str_eq(mreq->Topics.v[j].Name, qt->Name);
            if (!dup) lookup_topic(req, qt, &resp->Topics.v[resp->Topics.n++], allow_auto, with_ops);
        }
    }
    gr_req_respond(req, resp);
}

void gr_h_describe_cluster(gr_req_t *req) {
    gr_DescribeClusterRequest_t *dreq = req->body;
    gr_DescribeClusterResponse_t *resp = gr_req_resp_new(req);
    if (dreq->EndpointType != 1) { /* 1 = brokers; 2 = controllers, which we do not expose separately */
        resp->ErrorCode = GR_ERR_UNSUPPORTED_ENDPOINT_TYPE;
        resp->ErrorMessage = GR_STR("Only endpoint type 1 (brokers) is supported by this node");
        gr_req_respond(req, resp);
        return;
    }
    resp->EndpointType = 1;
    resp->ClusterId = gr_str_c(gr_meta_cluster_id(req->b->meta));
    resp->ControllerId = gr_broker_node_id(req->b);
    resp->Brokers.v = gr_req_alloc(req, &gr_DescribeClusterResponse_DescribeClusterBroker_sd, 1);
    resp->Brokers.n = 1;
    resp->Brokers.v[0].BrokerId = gr_broker_node_id(req->b);
    resp->Brokers.v[0].Host = gr_str_c(gr_broker_host(req->b, req->conn));
    resp->Brokers.v[0].Port = gr_broker_adv_port(req->b, req->conn);
    resp->Brokers.v[0].Rack = GR_STR_NULL;
    resp->ClusterAuthorizedOperations = cluster_ops(req, dreq->IncludeClusterAuthorizedOperations);
    gr_req_respond(req, resp);
}
