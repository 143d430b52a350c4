/* ConsumerGroupHeartbeat (68, v0-1) and ConsumerGroupDescribe (69, v0-1): the KIP-848
 * consumer protocol. The logic is the pure coordinator (cgroup/consumer.h); this file
 * turns the wire request into its call and the result into the answer.
 *
 * Checks in KafkaApis' order: READ on the group, DESCRIBE on every subscribed topic name;
 * a group id that is a share group answers GROUP_ID_NOT_FOUND ("Group X is not a consumer
 * group.") as Kafka 4.4.0.
 * @locality loop thread. */
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "broker/cgroup_coord.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

typedef gr_ConsumerGroupHeartbeatResponse_t hb_resp_t;

static void put_assignment(gr_req_t *req, hb_resp_t *resp, const gr_cgc_assignment_t *a) {
    resp->Assignment = gr_req_alloc(req, &gr_ConsumerGroupHeartbeatResponse_Assignment_sd, 1);
    resp->Assignment->TopicPartitions.v =
        gr_req_alloc(req, &gr_ConsumerGroupHeartbeatResponse_TopicPartitions_sd, a->n_topics);
    resp->Assignment->TopicPartitions.n = a->n_topics;
    for (int32_t i = 0; i < a->n_topics; i++) {
        gr_ConsumerGroupHeartbeatResponse_TopicPartitions_t *tp = &resp->Assignment->TopicPartitions.v[i];
        tp->TopicId = a->topics[i].topic_id;
        tp->Partitions.v = gr_arena_alloc(&req->arena, (size_t)a->topics[i].n * sizeof(int32_t) + 1);
        memcpy(tp->Partitions.v, a->topics[i].partitions, (size_t)a->topics[i].n * sizeof(int32_t));
        tp->Partitions.n = a->topics[i].n;
    }
}

/* The group change is not durable: the member must retry. */
static void hb_fix(gr_req_t *req, void *resp, gr_err_t err) {
    hb_resp_t *r = resp;
    if (!err || r->ErrorCode) return;
    r->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
    r->ErrorMessage = gr_req_msg(req, "The consumer group could not be persisted: %s", gr_err_str(err));
    r->MemberId = GR_STR_NULL;
    r->Assignment = NULL;
}

static const char *opt(gr_req_t *req, gr_str_t s) { return gr_str_is_null(s) ? NULL : gr_req_cstr(req, s); }

static void hb_request(gr_req_t *req, gr_cgc_hb_req_t *h) {
    gr_ConsumerGroupHeartbeatRequest_t *r = req->body;
    memset(h, 0, sizeof(*h));
    h->group_id = gr_req_cstr(req, r->GroupId);
    h->member_id = gr_req_cstr(req, r->MemberId);
    h->member_epoch = r->MemberEpoch;
    h->instance_id = opt(req, r->InstanceId);
    h->rack_id = opt(req, r->RackId);
    h->rebalance_timeout_ms = r->RebalanceTimeoutMs;
    h->n_topics = r->SubscribedTopicNames.n;
    if (h->n_topics >= 0) {
        const char **t = gr_arena_alloc(&req->arena, (size_t)h->n_topics * sizeof(*t) + 1);
        for (int32_t i = 0; i < h->n_topics; i++) t[i] = gr_req_cstr(req, r->SubscribedTopicNames.v[i]);
        h->topics = t;
    }
    h->regex = req->hdr.api_version >= 1 ? opt(req, r->SubscribedTopicRegex) : NULL;
    h->server_assignor = opt(req, r->ServerAssignor);
    h->n_owned = r->TopicPartitions.n;
    if (h->n_owned >= 0) {
        gr_cgc_tparts_t *o = gr_arena_alloc(&req->arena, (size_t)h->n_owned * sizeof(*o) + 1);
        for (int32_t i = 0; i < h->n_owned; i++)
            o[i] =
                (gr_cgc_tparts_t){r->TopicPartitions.v[i].TopicId, r->TopicPartitions.v[i].Partitions.v,
                                  r->TopicPartitions.v[i].Partitions.n > 0 ? r->TopicPartitions.v[i].Partitions.n : 0};
        h->owned = o;
    }
    h->client_id = gr_req_cstr(req, req->hdr.client_id);
    h->client_host = gr_share_client_host(req);
    h->version = req->hdr.api_version;
}

static gr_err_t hb_precheck(gr_req_t *req) {
    const gr_ConsumerGroupHeartbeatRequest_t *r = req->body;
    gr_err_t denied = gr_req_authz_s(req, GR_AZ_CONSUMER_HEARTBEAT, r->GroupId);
    for (int32_t i = 0; !denied && i < r->SubscribedTopicNames.n; i++)
        denied = gr_req_authz_s(req, GR_AZ_CONSUMER_HEARTBEAT_TOPIC, r->SubscribedTopicNames.v[i]);
    return denied;
}

void gr_h_consumer_group_heartbeat(gr_req_t *req) {
    gr_broker_t *b = req->b;
    hb_resp_t *resp = gr_req_resp_new(req);
    resp->MemberId = GR_STR_NULL;
    resp->ErrorMessage = GR_STR_NULL;
    gr_err_t denied = hb_precheck(req);
    if (denied) {
        resp->ErrorCode = (int16_t)denied;
        gr_req_respond(req, resp);
        return;
    }
    gr_cgc_hb_req_t h;
    hb_request(req, &h);
    gr_cgc_cfg_t cfg;
    gr_cgroup_consumer_cfg(b, h.group_id, &cfg);
    gr_cgc_hb_res_t res;
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    if (*h.group_id && gr_share_group_exists(b->share.groups, h.group_id) && h.member_epoch >= 0) {
        memset(&res, 0, sizeof(res));
        res.error = GR_ERR_GROUP_ID_NOT_FOUND;
        snprintf(res.errmsg, sizeof(res.errmsg), "Group %s is not a consumer group.", h.group_id);
    } else {
        gr_cgc_topics_t topics = gr_cgroup_topics(b);
        gr_cgc_heartbeat(b->cgroup->reg, &h, &cfg, &topics, gr_clock_wall_ms(), &res, &out);
    }
    resp->ErrorCode = res.error;
    if (res.error) {
        resp->ErrorMessage = res.errmsg[0] ? gr_req_msg(req, "%s", res.errmsg) : GR_STR_NULL;
    } else {
        resp->MemberId = gr_str_c(gr_arena_strndup(&req->arena, res.member_id, strlen(res.member_id)));
        resp->MemberEpoch = res.member_epoch;
        resp->HeartbeatIntervalMs = res.heartbeat_interval_ms;
        if (res.has_assignment) put_assignment(req, resp, &res.assignment);
    }
    gr_cgc_hb_res_free(&res);
    gr_cgroup_respond_after_persist(b, req, resp, hb_fix, &out);
}

/* ------------------------------------------------------------------ ConsumerGroupDescribe */

typedef gr_ConsumerGroupDescribeResponse_DescribedGroup_t dg_t;
typedef gr_ConsumerGroupDescribeResponse_Assignment_t da_t;

static da_t *describe_assignment(gr_req_t *req, const gr_cgc_assignment_t *a, bool *denied) {
    da_t *o = gr_req_alloc(req, &gr_ConsumerGroupDescribeResponse_Assignment_sd, 1);
    o->TopicPartitions.v = gr_req_alloc(req, &gr_ConsumerGroupDescribeResponse_TopicPartitions_sd, a->n_topics);
    int32_t n = 0;
    for (int32_t i = 0; i < a->n_topics; i++) {
        const gr_meta_topic_t *t = gr_meta_topic_find_id(req->b->meta, &a->topics[i].topic_id);
        if (!t) continue;
        if (!gr_req_allowed(req, GR_AZ_CONSUMER_DESCRIBE_TOPIC, t->name)) *denied = true;
        gr_ConsumerGroupDescribeResponse_TopicPartitions_t *tp = &o->TopicPartitions.v[n++];
        tp->TopicId = a->topics[i].topic_id;
        tp->TopicName = gr_str_c(gr_arena_strndup(&req->arena, t->name, strlen(t->name)));
        tp->Partitions.v = gr_arena_alloc(&req->arena, (size_t)a->topics[i].n * sizeof(int32_t) + 1);
        memcpy(tp->Partitions.v, a->topics[i].partitions, (size_t)a->topics[i].n * sizeof(int32_t));
        tp->Partitions.n = a->topics[i].n;
    }
    o->TopicPartitions.n = n;
    return o;
}

static gr_str_t sdup(gr_req_t *req, const char *s) {
    return s ? gr_str_c(gr_arena_strndup(&req->arena, s, strlen(s))) : GR_STR_NULL;
}

static void describe_member(gr_req_t *req, const gr_cgc_member_view_t *m, gr_ConsumerGroupDescribeResponse_Member_t *o,
                            bool *denied) {
    o->MemberId = sdup(req, m->member_id);
    o->InstanceId = sdup(req, m->instance_id);
    o->RackId = sdup(req, m->rack_id);
    o->MemberEpoch = m->member_epoch;
    o->ClientId = sdup(req, m->client_id);
    o->ClientHost = sdup(req, m->client_host);
    o->SubscribedTopicNames.v = gr_arena_alloc(&req->arena, (size_t)m->n_topics * sizeof(gr_str_t) + 1);
    o->SubscribedTopicNames.n = m->n_topics;
    for (int32_t i = 0; i < m->n_topics; i++) o->SubscribedTopicNames.v[i] = sdup(req, m->topics[i]);
    o->SubscribedTopicRegex = sdup(req, m->regex ? m->regex : ""); /* Kafka: "" when none */
    o->Assignment = describe_assignment(req, &m->assigned, denied);
    o->TargetAssignment = describe_assignment(req, &m->target, denied);
    o->MemberType = 1; /* consumer protocol */
}

static void describe_group(gr_req_t *req, gr_str_t id, dg_t *o) {
    char *gid = gr_req_cstr(req, id);
    o->GroupId = id;
    o->GroupState = gr_str_c("");
    o->AssignorName = gr_str_c("");
    if (!*gid) {
        o->ErrorCode = GR_ERR_INVALID_GROUP_ID;
        return;
    }
    if (gr_req_authz(req, GR_AZ_CONSUMER_DESCRIBE, gid)) {
        o->ErrorCode = GR_ERR_GROUP_AUTHORIZATION_FAILED;
        return;
    }
    gr_cgc_group_view_t v;
    char msg[300];
    const struct gr_cgroup_ctx *cc = req->b->cgroup;
    o->ErrorCode = gr_cgc_describe(cc->reg, gid, cc->cgc.assignors[0], &v, msg, sizeof(msg));
    if (o->ErrorCode) {
        if (gr_share_group_exists(req->b->share.groups, gid))
            snprintf(msg, sizeof(msg), "Group %s is not a consumer group.", gid);
        o->ErrorMessage = gr_req_msg(req, "%s", msg);
        return;
    }
    o->GroupState = gr_str_c(gr_cg_state_name(v.state));
    o->GroupEpoch = v.group_epoch;
    o->AssignmentEpoch = v.assignment_epoch;
    o->AssignorName = sdup(req, v.assignor);
    o->Members.v = gr_req_alloc(req, &gr_ConsumerGroupDescribeResponse_Member_sd, v.n_members);
    o->Members.n = v.n_members;
    bool denied = false;
    for (int32_t i = 0; i < v.n_members; i++) describe_member(req, &v.members[i], &o->Members.v[i], &denied);
    gr_cgc_view_free(&v);
    if (denied) {
        o->ErrorCode = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
        o->ErrorMessage = gr_str_c("The group has described topic(s) that the client is not authorized to describe.");
        o->Members.n = 0;
        return;
    }
    if (((gr_ConsumerGroupDescribeRequest_t *)req->body)->IncludeAuthorizedOperations)
        o->AuthorizedOperations = gr_req_authz_ops(req, GR_ACL_RT_GROUP, gid);
}

void gr_h_consumer_group_describe(gr_req_t *req) {
    gr_ConsumerGroupDescribeRequest_t *r = req->body;
    gr_ConsumerGroupDescribeResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->GroupIds.n > 0 ? r->GroupIds.n : 0;
    resp->Groups.v = gr_req_alloc(req, &gr_ConsumerGroupDescribeResponse_DescribedGroup_sd, n);
    resp->Groups.n = n;
    /* Kafka answers the empty ids (INVALID_GROUP_ID) before the others. */
    int32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < n; i++)
            if ((r->GroupIds.v[i].len <= 0) == (pass == 0)) describe_group(req, r->GroupIds.v[i], &resp->Groups.v[k++]);
    gr_req_respond(req, resp);
}
