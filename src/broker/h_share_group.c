/* ShareGroupHeartbeat (76, v1) and ShareGroupDescribe (77, v1): spec §4, §6.2.
 *
 * The membership logic is the pure coordinator (share/group.h); this file turns
 * the wire request into its call, initializes the share state of the partitions
 * it asks for (§4.5), persists the group and answers once that is durable.
 *
 * Initialization on a single node: the partitions a heartbeat wants initialized
 * get their share state at once (the store applies it in memory immediately) and
 * are marked initialized, which bumps the group epoch; the heartbeat is then run a
 * second time (as a plain heartbeat of the same member) so the member receives
 * the partitions in this answer instead of one heartbeat interval later, as Kafka
 * does. Only initialized partitions are ever assigned. docs/compatibility.md.
 * @locality loop thread. */
#include <string.h>

#include "base/log.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

typedef gr_ShareGroupHeartbeatResponse_t hb_resp_t;

static void hb_fix(gr_req_t *req, void *resp, gr_err_t err) {
    hb_resp_t *r = resp;
    if (!err || r->ErrorCode) return;
    /* The group change is not durable: the member must retry. */
    r->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
    r->ErrorMessage = gr_req_msg(req, "The share group could not be persisted: %s", gr_err_str(err));
    r->MemberId = GR_STR_NULL; /* as every heartbeat error answer (Kafka: MemberId null) */
    r->Assignment = NULL;
}

static void put_assignment(gr_req_t *req, hb_resp_t *resp, const gr_sg_assignment_t *a) {
    if (!a) return;
    resp->Assignment = gr_req_alloc(req, &gr_ShareGroupHeartbeatResponse_Assignment_sd, 1);
    resp->Assignment->TopicPartitions.v =
        gr_req_alloc(req, &gr_ShareGroupHeartbeatResponse_TopicPartitions_sd, a->n_topics);
    resp->Assignment->TopicPartitions.n = a->n_topics;
    for (int32_t i = 0; i < a->n_topics; i++) {
        gr_ShareGroupHeartbeatResponse_TopicPartitions_t *tp = &resp->Assignment->TopicPartitions.v[i];
        int32_t n = a->topics[i].n_partitions;
        tp->TopicId = a->topics[i].topic_id;
        tp->Partitions.v = gr_arena_alloc(&req->arena, (size_t)n * sizeof(int32_t) + 1);
        memcpy(tp->Partitions.v, a->topics[i].partitions, (size_t)n * sizeof(int32_t));
        tp->Partitions.n = n;
    }
}

static void hb_request(gr_req_t *req, gr_sg_heartbeat_req_t *h) {
    gr_ShareGroupHeartbeatRequest_t *r = req->body;
    memset(h, 0, sizeof(*h));
    h->group_id = gr_req_cstr(req, r->GroupId);
    h->member_id = gr_req_cstr(req, r->MemberId);
    h->member_epoch = r->MemberEpoch;
    h->rack_id = gr_str_is_null(r->RackId) ? NULL : gr_req_cstr(req, r->RackId);
    h->n_subscribed = r->SubscribedTopicNames.n;
    if (h->n_subscribed > 0) {
        const char **names = gr_arena_alloc(&req->arena, (size_t)h->n_subscribed * sizeof(*names));
        for (int32_t i = 0; i < h->n_subscribed; i++) names[i] = gr_req_cstr(req, r->SubscribedTopicNames.v[i]);
        h->subscribed = names;
    }
    h->client_id = gr_req_cstr(req, req->hdr.client_id);
    h->client_host = gr_share_client_host(req);
    h->id_used_by_other_type = gr_share_id_used_by_other_type(req->b, h->group_id);
}

/* The member's current assignment (after a second pass that reported "unchanged"). */
static const gr_sg_assignment_t *member_assignment(gr_broker_t *b, const char *group_id, const char *member_id) {
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char e[64];
    if (gr_share_group_describe(b->share.groups, group_id, false, &g, &st, e, sizeof(e))) return NULL;
    for (int32_t i = 0; i < g->n_members; i++)
        if (!strcmp(g->members[i].member_id, member_id)) return &g->members[i].assignment;
    return NULL;
}

/* Second pass after initialization: same member at its new epoch, nothing else changed. */
static void hb_second_pass(gr_req_t *req, const gr_sg_heartbeat_req_t *h, gr_sg_heartbeat_res_t *res, hb_resp_t *resp,
                           bool *persist) {
    gr_broker_t *b = req->b;
    bool had_assignment = res->assignment != NULL;
    gr_sg_heartbeat_req_t h2 = *h;
    h2.member_epoch = res->member_epoch;
    h2.rack_id = NULL;
    h2.subscribed = NULL;
    h2.n_subscribed = -1;
    gr_sgc_values_t cfg;
    gr_share_group_values(b, h->group_id, &cfg);
    gr_sg_topic_view_t view = gr_share_topic_view(b);
    gr_sg_heartbeat_res_t res2;
    gr_share_group_heartbeat(b->share.groups, &h2, &cfg, &view, gr_loop_now(b->loop), &res2);
    if (!res2.err) {
        resp->MemberEpoch = res2.member_epoch;
        const gr_sg_assignment_t *a = res2.assignment;
        if (!a && had_assignment) a = member_assignment(b, h->group_id, h->member_id);
        resp->Assignment = NULL;
        put_assignment(req, resp, a);
        *persist |= res2.group_changed;
    }
    gr_sg_heartbeat_res_free(&res2);
}

/* Java's String.length() of a UTF-8 string: UTF-16 code units. */
static int32_t java_length(gr_str_t s) {
    int32_t n = 0;
    for (int32_t i = 0; i < s.len; i++) {
        uint8_t c = (uint8_t)s.ptr[i];
        if ((c & 0xc0) != 0x80) n += c >= 0xf0 ? 2 : 1;
    }
    return n;
}

/* KafkaApis, in its order: READ on the group; a member id of 1 to 36 characters
 * (INVALID_REQUEST; the coordinator later refuses a blank one with its own message);
 * DESCRIBE on every subscribed topic (a member may not subscribe to topics it cannot
 * see). Kafka's answers carry the code only. */
static gr_err_t hb_precheck(gr_req_t *req) {
    const gr_ShareGroupHeartbeatRequest_t *r = req->body;
    gr_err_t denied = gr_req_authz_s(req, GR_AZ_SHARE_HEARTBEAT, r->GroupId);
    if (denied) return denied;
    if (gr_str_is_null(r->MemberId) || r->MemberId.len == 0 || java_length(r->MemberId) > 36)
        return GR_ERR_INVALID_REQUEST;
    for (int32_t i = 0; i < r->SubscribedTopicNames.n; i++)
        if ((denied = gr_req_authz_s(req, GR_AZ_SHARE_HEARTBEAT_TOPIC, r->SubscribedTopicNames.v[i]))) return denied;
    return GR_ERR_NONE;
}

void gr_h_share_group_heartbeat(gr_req_t *req) {
    gr_broker_t *b = req->b;
    hb_resp_t *resp = gr_req_resp_new(req);
    gr_err_t denied = hb_precheck(req);
    if (denied) {
        resp->ErrorCode = (int16_t)denied;
        resp->ErrorMessage = GR_STR_NULL;
        resp->MemberId = GR_STR_NULL;
        gr_req_respond(req, resp);
        return;
    }
    gr_sg_heartbeat_req_t h;
    hb_request(req, &h);
    char capmsg[256];
    if (h.member_epoch == 0 && !gr_share_group_may_create(b, h.group_id, capmsg, sizeof(capmsg))) {
        /* Kafka's error for a group that cannot take more: the client stops with it. */
        resp->ErrorCode = GR_ERR_GROUP_MAX_SIZE_REACHED;
        resp->ErrorMessage = gr_req_msg(req, "%s", capmsg);
        resp->MemberId = GR_STR_NULL;
        gr_req_respond(req, resp);
        return;
    }
    gr_sgc_values_t cfg;
    gr_share_group_values(b, h.group_id, &cfg);
    gr_sg_topic_view_t view = gr_share_topic_view(b);
    gr_sg_heartbeat_res_t res;
    gr_share_group_heartbeat(b->share.groups, &h, &cfg, &view, gr_loop_now(b->loop), &res);
    resp->ErrorCode = (int16_t)res.err;
    resp->ErrorMessage = res.errmsg[0] ? gr_req_msg(req, "%s", res.errmsg) : GR_STR_NULL;
    /* Kafka 4.4.0 answers every heartbeat error (25, 110, ...) with MemberId null. */
    resp->MemberId = res.member_id && !res.err
                         ? gr_str_c(gr_arena_strndup(&req->arena, res.member_id, strlen(res.member_id)))
                         : GR_STR_NULL;
    resp->MemberEpoch = res.member_epoch;
    resp->HeartbeatIntervalMs = res.err ? 0 : res.heartbeat_interval_ms;
    put_assignment(req, resp, res.err ? NULL : res.assignment);
    gr_share_wait_t *w = gr_share_wait_new(req, resp, hb_fix);
    bool persist = res.group_changed;
    if (!res.err && res.to_initialize.n_topics > 0) {
        bool inited = false;
        gr_share_initialize(b, h.group_id, &res.to_initialize, w, &inited);
        persist |= inited;
        if (inited && h.member_epoch != -1) hb_second_pass(req, &h, &res, resp, &persist);
    }
    if (persist) gr_share_persist(b, h.group_id, w);
    gr_sg_heartbeat_res_free(&res);
    gr_share_rearm_expiry(b);
    gr_share_wait_arm(w);
}

/* ------------------------------------------------------------------ ShareGroupDescribe */

typedef gr_ShareGroupDescribeResponse_DescribedGroup_t dg_t;

static void describe_member(gr_req_t *req, const gr_sg_member_t *m, gr_ShareGroupDescribeResponse_Member_t *o) {
    o->MemberId = gr_str_c(m->member_id);
    o->RackId = m->rack_id ? gr_str_c(m->rack_id) : GR_STR_NULL;
    o->MemberEpoch = m->member_epoch;
    o->ClientId = gr_str_c(m->client_id);
    o->ClientHost = gr_str_c(m->client_host);
    o->SubscribedTopicNames.v = gr_arena_alloc(&req->arena, (size_t)m->n_subscribed * sizeof(gr_str_t) + 1);
    o->SubscribedTopicNames.n = m->n_subscribed;
    for (int32_t i = 0; i < m->n_subscribed; i++) o->SubscribedTopicNames.v[i] = gr_str_c(m->subscribed[i]);
    const gr_sg_assignment_t *a = &m->assignment;
    o->Assignment = gr_req_alloc(req, &gr_ShareGroupDescribeResponse_Assignment_sd, 1);
    o->Assignment->TopicPartitions.v =
        gr_req_alloc(req, &gr_ShareGroupDescribeResponse_TopicPartitions_sd, a->n_topics);
    int32_t n = 0;
    for (int32_t i = 0; i < a->n_topics; i++) {
        const gr_meta_topic_t *t = gr_meta_topic_find_id(req->b->meta, &a->topics[i].topic_id);
        if (!t) continue; /* deleted since; the next heartbeat drops it */
        gr_ShareGroupDescribeResponse_TopicPartitions_t *tp = &o->Assignment->TopicPartitions.v[n++];
        tp->TopicId = a->topics[i].topic_id;
        tp->TopicName = gr_str_c(gr_arena_strndup(&req->arena, t->name, strlen(t->name)));
        tp->Partitions.v = gr_arena_alloc(&req->arena, (size_t)a->topics[i].n_partitions * sizeof(int32_t) + 1);
        memcpy(tp->Partitions.v, a->topics[i].partitions, (size_t)a->topics[i].n_partitions * sizeof(int32_t));
        tp->Partitions.n = a->topics[i].n_partitions;
    }
    o->Assignment->TopicPartitions.n = n;
}

/* Kafka: a group whose assignment names a topic the principal may not DESCRIBE is
 * answered TOPIC_AUTHORIZATION_FAILED with no members. */
static void hide_if_topic_denied(gr_req_t *req, dg_t *o) {
    for (int32_t i = 0; i < o->Members.n; i++) {
        const gr_ShareGroupDescribeResponse_Assignment_t *a = o->Members.v[i].Assignment;
        for (int32_t j = 0; a && j < a->TopicPartitions.n; j++) {
            if (gr_req_allowed(req, GR_AZ_SHARE_DESCRIBE_TOPIC, gr_req_cstr(req, a->TopicPartitions.v[j].TopicName)))
                continue;
            gr_str_t id = o->GroupId;
            memset(o, 0, sizeof(*o));
            *o = *(dg_t *)gr_req_alloc(req, &gr_ShareGroupDescribeResponse_DescribedGroup_sd, 1);
            o->GroupId = id;
            o->ErrorCode = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
            o->ErrorMessage =
                gr_str_c("The group has described topic(s) that the client is not authorized to describe.");
            o->Members.n = 0;
            return;
        }
    }
}

/* Strings in the answer point into the registry: nothing mutates it before we respond. */
static void describe_group(gr_req_t *req, gr_str_t id, dg_t *o) {
    char errstr[256] = "";
    char *gid = gr_req_cstr(req, id);
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    o->GroupId = id;
    gr_err_t err = gr_share_group_describe(req->b->share.groups, gid, gr_share_id_used_by_other_type(req->b, gid), &g,
                                           &st, errstr, sizeof(errstr));
    o->ErrorCode = (int16_t)err;
    if (err) {
        o->ErrorMessage = errstr[0] ? gr_req_msg(req, "%s", errstr) : GR_STR_NULL;
        return;
    }
    o->GroupState = gr_str_c(gr_share_group_state_name(st));
    o->GroupEpoch = g->group_epoch;
    o->AssignmentEpoch = g->assignment_epoch;
    o->AssignorName = gr_str_c("simple");
    o->Members.v = gr_req_alloc(req, &gr_ShareGroupDescribeResponse_Member_sd, g->n_members);
    o->Members.n = g->n_members;
    for (int32_t i = 0; i < g->n_members; i++) describe_member(req, &g->members[i], &o->Members.v[i]);
    if (((gr_ShareGroupDescribeRequest_t *)req->body)->IncludeAuthorizedOperations)
        o->AuthorizedOperations = gr_req_authz_ops(req, GR_ACL_RT_GROUP, gid);
    hide_if_topic_denied(req, o);
}

void gr_h_share_group_describe(gr_req_t *req) {
    gr_ShareGroupDescribeRequest_t *r = req->body;
    gr_ShareGroupDescribeResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->GroupIds.n > 0 ? r->GroupIds.n : 0;
    resp->Groups.v = gr_req_alloc(req, &gr_ShareGroupDescribeResponse_DescribedGroup_sd, n);
    resp->Groups.n = n;
    /* DESCRIBE on each group: KafkaApis answers the denied ones first, the code alone. */
    int32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < n; i++) {
            bool allowed = gr_req_allowed(req, GR_AZ_SHARE_DESCRIBE, gr_req_cstr(req, r->GroupIds.v[i]));
            if (allowed != (pass == 1)) continue;
            dg_t *o = &resp->Groups.v[k++];
            if (allowed) {
                describe_group(req, r->GroupIds.v[i], o);
            } else {
                o->GroupId = r->GroupIds.v[i];
                o->ErrorCode = GR_ERR_GROUP_AUTHORIZATION_FAILED;
            }
        }
    gr_req_respond(req, resp);
}
