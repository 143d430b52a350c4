/* JoinGroup (11, v0-9), SyncGroup (14, v0-5), Heartbeat (12, v0-4) and LeaveGroup
 * (13, v0-5): the classic group protocol. The logic is the pure coordinator
 * (cgroup/cgroup.h); JoinGroup and SyncGroup are parked before it runs and are
 * answered from gr_cgroup_run_out, now or when the join/sync phase completes.
 *
 * A group id that is a share group answers as Kafka 4.4.0 does (GroupMetadataManager):
 * JoinGroup INCONSISTENT_GROUP_PROTOCOL, the other three UNKNOWN_MEMBER_ID.
 *
 * Authorization as KafkaApis: READ on the group before anything else (for SyncGroup
 * after its v5 protocol check), answered with Kafka's error shapes (LeaveGroup: a
 * top-level GROUP_AUTHORIZATION_FAILED and no members).
 * @locality loop thread. */
#include <string.h>

#include "base/clock.h"
#include "broker/cgroup_coord.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

static bool is_share_group(gr_req_t *req, const char *gid) { return gr_share_group_exists(req->b->share.groups, gid); }

static bool is_consumer_group(gr_req_t *req, const char *gid) {
    return gr_cg_type(req->b->cgroup->reg, gid) == GR_CG_TYPE_CONSUMER;
}

static gr_str_t nstr(const char *s) { return s ? gr_str_c(s) : GR_STR_NULL; }

void gr_cgroup_answer_join(gr_req_t *req, const gr_cg_answer_t *a) {
    gr_JoinGroupResponse_t *resp = gr_req_resp_new(req);
    int16_t v = req->hdr.api_version;
    resp->ErrorCode = a->error;
    resp->GenerationId = a->generation;
    resp->ProtocolType = nstr(a->protocol_type);
    /* Below v7 the name is not nullable: Kafka sends "" for none. */
    resp->ProtocolName = a->protocol_name ? gr_str_c(a->protocol_name) : v >= 7 ? GR_STR_NULL : gr_str_c("");
    resp->Leader = gr_str_c(a->leader);
    resp->SkipAssignment = a->skip_assignment;
    resp->MemberId = gr_str_c(a->member_id);
    resp->Members.v = gr_req_alloc(req, &gr_JoinGroupResponse_JoinGroupResponseMember_sd, a->n_members);
    resp->Members.n = a->n_members;
    for (int32_t i = 0; i < a->n_members; i++) {
        gr_JoinGroupResponse_JoinGroupResponseMember_t *m = &resp->Members.v[i];
        m->MemberId = gr_str_c(a->members[i].member_id);
        m->GroupInstanceId = nstr(a->members[i].instance_id);
        m->Metadata.ptr = a->members[i].metadata;
        m->Metadata.len = a->members[i].metadata_len;
    }
    gr_req_respond(req, resp);
}

void gr_cgroup_answer_sync(gr_req_t *req, const gr_cg_answer_t *a) {
    gr_SyncGroupResponse_t *resp = gr_req_resp_new(req);
    resp->ErrorCode = a->error;
    resp->ProtocolType = nstr(a->protocol_type);
    resp->ProtocolName = nstr(a->protocol_name);
    resp->Assignment.ptr = a->assignment ? a->assignment : (const uint8_t *)"";
    resp->Assignment.len = a->assignment_len;
    gr_req_respond(req, resp);
}

/* Connection gone or shutdown: forget the waiter, answer (the answer is dropped). */
static void cancel_parked(gr_req_t *req) {
    gr_cg_forget_waiter(req->b->cgroup->reg, req->park, req);
    gr_cg_answer_t a = {.waiter = req, .error = GR_ERR_COORDINATOR_NOT_AVAILABLE, .generation = -1};
    a.leader = a.member_id = "";
    if (req->hdr.api_key == GR_API_JoinGroup)
        gr_cgroup_answer_join(req, &a);
    else
        gr_cgroup_answer_sync(req, &a);
}

void gr_h_join_group(gr_req_t *req) {
    gr_JoinGroupRequest_t *r = req->body;
    gr_broker_t *b = req->b;
    char *gid = gr_req_cstr(req, r->GroupId);
    gr_err_t denied = gr_req_authz(req, GR_AZ_JOIN_GROUP, gid);
    if (denied || (*gid && is_share_group(req, gid))) {
        gr_cg_answer_t a = {.error = denied ? denied : GR_ERR_INCONSISTENT_GROUP_PROTOCOL, .generation = -1};
        a.leader = a.member_id = "";
        gr_cgroup_answer_join(req, &a);
        return;
    }
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    /* A consumer-protocol group: an empty one becomes classic (Kafka's downgrade; its
     * offsets stay); classic members joining a non-empty one are not supported. */
    if (*gid && is_consumer_group(req, gid) && !gr_cgc_downgrade_if_empty(b->cgroup->reg, gid, &out)) {
        gr_cg_answer_t a = {.error = GR_ERR_INCONSISTENT_GROUP_PROTOCOL, .generation = -1};
        a.leader = a.member_id = "";
        gr_cgroup_answer_join(req, &a);
        gr_cg_out_free(&out);
        return;
    }
    int32_t n = r->Protocols.n > 0 ? r->Protocols.n : 0;
    gr_cg_protocol_t *ps = gr_arena_alloc(&req->arena, sizeof(*ps) * ((size_t)n + 1));
    for (int32_t i = 0; i < n; i++) {
        ps[i].name = gr_req_cstr(req, r->Protocols.v[i].Name);
        ps[i].metadata = r->Protocols.v[i].Metadata.ptr;
        ps[i].metadata_len = r->Protocols.v[i].Metadata.len > 0 ? r->Protocols.v[i].Metadata.len : 0;
    }
    gr_cg_join_req_t jr = {
        .group_id = gid,
        .member_id = gr_req_cstr(req, r->MemberId),
        .instance_id = gr_str_is_null(r->GroupInstanceId) ? NULL : gr_req_cstr(req, r->GroupInstanceId),
        .protocol_type = gr_req_cstr(req, r->ProtocolType),
        .client_id = gr_req_cstr(req, req->hdr.client_id),
        .client_host = gr_share_client_host(req),
        .session_timeout_ms = r->SessionTimeoutMs,
        /* v0 has no rebalance timeout: the session timeout serves. */
        .rebalance_timeout_ms = req->hdr.api_version == 0 ? r->SessionTimeoutMs : r->RebalanceTimeoutMs,
        .protocols = ps,
        .n_protocols = n,
        .version = req->hdr.api_version,
        .waiter = req,
    };
    req->park = gid;
    gr_broker_park(b, req, cancel_parked);
    gr_cg_join(b->cgroup->reg, &jr, gr_clock_wall_ms(), &out);
    gr_cgroup_run_out(b, &out);
}

void gr_h_sync_group(gr_req_t *req) {
    gr_SyncGroupRequest_t *r = req->body;
    gr_broker_t *b = req->b;
    char *gid = gr_req_cstr(req, r->GroupId);
    gr_cg_answer_t err = {.generation = -1};
    err.leader = err.member_id = "";
    /* From v5 the protocol type and name are mandatory (Kafka's KafkaApis check). */
    if (req->hdr.api_version >= 5 && (gr_str_is_null(r->ProtocolType) || gr_str_is_null(r->ProtocolName)))
        err.error = GR_ERR_INCONSISTENT_GROUP_PROTOCOL;
    else
        err.error = (int16_t)gr_req_authz(req, GR_AZ_SYNC_GROUP, gid);
    if (!err.error && *gid && (is_share_group(req, gid) || is_consumer_group(req, gid)))
        err.error = GR_ERR_UNKNOWN_MEMBER_ID;
    if (err.error) return gr_cgroup_answer_sync(req, &err);
    int32_t n = r->Assignments.n > 0 ? r->Assignments.n : 0;
    gr_cg_assignment_t *as = gr_arena_alloc(&req->arena, sizeof(*as) * ((size_t)n + 1));
    for (int32_t i = 0; i < n; i++) {
        as[i].member_id = gr_req_cstr(req, r->Assignments.v[i].MemberId);
        as[i].assignment = r->Assignments.v[i].Assignment.ptr;
        as[i].len = r->Assignments.v[i].Assignment.len > 0 ? r->Assignments.v[i].Assignment.len : 0;
    }
    gr_cg_sync_req_t sr = {
        .group_id = gid,
        .member_id = gr_req_cstr(req, r->MemberId),
        .instance_id = gr_str_is_null(r->GroupInstanceId) ? NULL : gr_req_cstr(req, r->GroupInstanceId),
        .protocol_type = gr_str_is_null(r->ProtocolType) ? NULL : gr_req_cstr(req, r->ProtocolType),
        .protocol_name = gr_str_is_null(r->ProtocolName) ? NULL : gr_req_cstr(req, r->ProtocolName),
        .generation = r->GenerationId,
        .assignments = as,
        .n_assignments = n,
        .waiter = req,
    };
    req->park = gid;
    gr_broker_park(b, req, cancel_parked);
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    gr_cg_sync(b->cgroup->reg, &sr, gr_clock_wall_ms(), &out);
    gr_cgroup_run_out(b, &out);
}

void gr_h_heartbeat(gr_req_t *req) {
    gr_HeartbeatRequest_t *r = req->body;
    gr_broker_t *b = req->b;
    gr_HeartbeatResponse_t *resp = gr_req_resp_new(req);
    char *gid = gr_req_cstr(req, r->GroupId);
    gr_err_t denied = gr_req_authz(req, GR_AZ_HEARTBEAT, gid);
    if (denied || (*gid && (is_share_group(req, gid) || is_consumer_group(req, gid)))) {
        resp->ErrorCode = (int16_t)(denied ? denied : GR_ERR_UNKNOWN_MEMBER_ID);
        gr_req_respond(req, resp);
        return;
    }
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    resp->ErrorCode = gr_cg_heartbeat(b->cgroup->reg, gid, gr_req_cstr(req, r->MemberId),
                                      gr_str_is_null(r->GroupInstanceId) ? NULL : gr_req_cstr(req, r->GroupInstanceId),
                                      r->GenerationId, gr_clock_wall_ms(), &out);
    gr_req_respond(req, resp);
    /* A heartbeat only moves a deadline later: the armed timer may fire early (the
     * tick then finds nothing due and re-arms), so no re-arm scan per heartbeat. */
    gr_cg_out_free(&out);
}

void gr_h_leave_group(gr_req_t *req) {
    gr_LeaveGroupRequest_t *r = req->body;
    gr_broker_t *b = req->b;
    gr_LeaveGroupResponse_t *resp = gr_req_resp_new(req);
    char *gid = gr_req_cstr(req, r->GroupId);
    if ((resp->ErrorCode = (int16_t)gr_req_authz(req, GR_AZ_LEAVE_GROUP, gid))) {
        gr_req_respond(req, resp);
        return;
    }
    bool v3 = req->hdr.api_version >= 3;
    /* v0-2 name one member by id; v3+ a batch by member id and/or instance id. */
    int32_t n = v3 ? (r->Members.n > 0 ? r->Members.n : 0) : 1;
    gr_cg_leave_member_t *ms = gr_arena_alloc(&req->arena, sizeof(*ms) * ((size_t)n + 1));
    for (int32_t i = 0; i < n; i++) {
        ms[i].member_id = gr_req_cstr(req, v3 ? r->Members.v[i].MemberId : r->MemberId);
        ms[i].instance_id = v3 && !gr_str_is_null(r->Members.v[i].GroupInstanceId)
                                ? gr_req_cstr(req, r->Members.v[i].GroupInstanceId)
                                : NULL;
    }
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    int16_t top = 0;
    if (*gid && is_share_group(req, gid))
        top = GR_ERR_UNKNOWN_MEMBER_ID;
    else if (*gid && is_consumer_group(req, gid))
        gr_cgc_classic_leave(b->cgroup->reg, gid, ms, n, gr_clock_wall_ms(), &out); /* as Kafka: members leave */
    else
        top = gr_cg_leave(b->cgroup->reg, gid, ms, n, gr_clock_wall_ms(), &out);
    if (top == GR_ERR_UNKNOWN_MEMBER_ID) {
        /* No such classic group (or a share group): Kafka answers every member
         * UNKNOWN_MEMBER_ID under a top-level NONE. */
        for (int32_t i = 0; i < n; i++) ms[i].error = GR_ERR_UNKNOWN_MEMBER_ID;
        top = 0;
    }
    resp->ErrorCode = top;
    if (v3 && !top) {
        resp->Members.v = gr_req_alloc(req, &gr_LeaveGroupResponse_MemberResponse_sd, n);
        resp->Members.n = n;
        for (int32_t i = 0; i < n; i++) {
            resp->Members.v[i].MemberId = r->Members.v[i].MemberId;
            resp->Members.v[i].GroupInstanceId = r->Members.v[i].GroupInstanceId;
            resp->Members.v[i].ErrorCode = ms[i].error;
        }
    } else if (!v3 && !top) {
        resp->ErrorCode = ms[0].error; /* the single member's error is the answer's */
    }
    gr_req_respond(req, resp);
    gr_cgroup_run_out(b, &out);
}
