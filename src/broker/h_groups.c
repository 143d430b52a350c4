/* ListGroups (16, v0-5), DescribeGroups (15, v0-6) and DeleteGroups (42, v0-3)
 * over the one group-id namespace: share groups (spec §6.1, §6.6) and classic
 * consumer groups (cgroup/cgroup.h), as Kafka 4.4.0 answers them.
 * @locality loop thread. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "broker/cgroup_coord.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

/* ------------------------------------------------------------------ ListGroups */

/* TypesFilter: empty = every type; Kafka parses the names case-insensitively. */
static bool type_wanted(const gr_ListGroupsRequest_t *r, const char *type) {
    if (r->TypesFilter.n <= 0) return true;
    for (int32_t i = 0; i < r->TypesFilter.n; i++) {
        gr_str_t t = r->TypesFilter.v[i];
        if ((size_t)t.len == strlen(type) && !strncasecmp(t.ptr, type, (size_t)t.len)) return true;
    }
    return false;
}

static bool state_wanted(const gr_ListGroupsRequest_t *r, const char *state) {
    if (r->StatesFilter.n <= 0) return true;
    for (int32_t i = 0; i < r->StatesFilter.n; i++) {
        gr_str_t t = r->StatesFilter.v[i];
        if ((size_t)t.len == strlen(state) && !strncasecmp(t.ptr, state, (size_t)t.len)) return true;
    }
    return false;
}

/* Classic groups: GroupType "classic", ProtocolType as joined ("" for a simple group);
 * consumer-protocol groups: GroupType and ProtocolType "consumer". */
static int32_t list_classic(gr_req_t *req, const gr_ListGroupsRequest_t *r, bool every,
                            gr_ListGroupsResponse_ListedGroup_t *out) {
    bool classic = type_wanted(r, "classic"), consumer = type_wanted(r, "consumer");
    gr_cg_registry_t *reg = req->b->cgroup->reg;
    const char **ids;
    gr_cg_state_t *states;
    int32_t n = gr_cg_list(reg, &ids, &states), k = 0;
    for (int32_t i = 0; i < n; i++) {
        const char *st = gr_cg_state_name(states[i]);
        bool is_consumer = gr_cg_type(reg, ids[i]) == GR_CG_TYPE_CONSUMER;
        if (!state_wanted(r, st) || !(is_consumer ? consumer : classic)) continue;
        if (!every && !gr_req_allowed(req, GR_AZ_LIST_GROUPS, ids[i])) continue;
        gr_cg_group_view_t v;
        if (gr_cg_describe(reg, ids[i], &v)) continue;
        gr_ListGroupsResponse_ListedGroup_t *g = &out[k++];
        g->GroupId = gr_str_c(gr_arena_strndup(&req->arena, ids[i], strlen(ids[i])));
        g->ProtocolType = is_consumer
                              ? gr_str_c("consumer")
                              : gr_str_c(gr_arena_strndup(&req->arena, v.protocol_type, strlen(v.protocol_type)));
        g->GroupState = gr_str_c(st);
        g->GroupType = gr_str_c(is_consumer ? "consumer" : "classic");
        gr_cg_view_free(&v);
    }
    free(ids);
    free(states);
    return k;
}

void gr_h_list_groups(gr_req_t *req) {
    gr_ListGroupsRequest_t *r = req->body;
    gr_ListGroupsResponse_t *resp = gr_req_resp_new(req);
    int32_t ns = r->StatesFilter.n > 0 ? r->StatesFilter.n : 0;
    const char **states = gr_arena_alloc(&req->arena, (size_t)ns * sizeof(*states) + 1);
    for (int32_t i = 0; i < ns; i++) states[i] = gr_req_cstr(req, r->StatesFilter.v[i]);
    gr_sg_list_entry_t *es = NULL;
    int32_t n = type_wanted(r, "share") ? gr_share_group_list(req->b->share.groups, states, ns, &es) : 0;
    int32_t nc = type_wanted(r, "classic") || type_wanted(r, "consumer") ? gr_cg_count(req->b->cgroup->reg) : 0;
    resp->Groups.v = gr_req_alloc(req, &gr_ListGroupsResponse_ListedGroup_sd, n + nc);
    resp->Groups.n = 0;
    /* DESCRIBE on the cluster lists every group, else the groups with DESCRIBE. */
    bool every = gr_req_allowed(req, GR_AZ_LIST_GROUPS_CLUSTER, NULL);
    for (int32_t i = 0; i < n; i++) {
        if (!every && !gr_req_allowed(req, GR_AZ_LIST_GROUPS, es[i].group_id)) continue;
        gr_ListGroupsResponse_ListedGroup_t *g = &resp->Groups.v[resp->Groups.n++];
        g->GroupId = gr_str_c(gr_arena_strndup(&req->arena, es[i].group_id, strlen(es[i].group_id)));
        g->ProtocolType = gr_str_c("share");
        g->GroupState = gr_str_c(es[i].state);
        g->GroupType = gr_str_c("share");
    }
    if (nc) resp->Groups.n += list_classic(req, r, every, &resp->Groups.v[resp->Groups.n]);
    free(es);
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ DescribeGroups */

static gr_bytes_t bytes_of(gr_req_t *req, const uint8_t *p, int32_t n) {
    gr_bytes_t b = {0};
    uint8_t *c = gr_arena_alloc(&req->arena, (size_t)n + 1);
    if (n) memcpy(c, p, (size_t)n);
    b.ptr = c;
    b.len = n;
    return b;
}

/* A classic group as ClassicGroup describes it: metadata and assignments only when
 * Stable (ProtocolData is then the selected protocol), else members without them. */
static bool describe_classic(gr_req_t *req, const char *gid, gr_DescribeGroupsResponse_DescribedGroup_t *o) {
    gr_cg_group_view_t v;
    if (gr_cg_describe(req->b->cgroup->reg, gid, &v)) return false;
    bool stable = v.state == GR_CG_STABLE;
    o->ErrorCode = 0;
    o->GroupState = gr_str_c(gr_cg_state_name(v.state));
    o->ProtocolType = gr_str_c(gr_arena_strndup(&req->arena, v.protocol_type, strlen(v.protocol_type)));
    o->ProtocolData =
        stable ? gr_str_c(gr_arena_strndup(&req->arena, v.protocol_name, strlen(v.protocol_name))) : gr_str_c("");
    o->Members.v = gr_req_alloc(req, &gr_DescribeGroupsResponse_DescribedGroupMember_sd, v.n_members);
    o->Members.n = v.n_members;
    for (int32_t i = 0; i < v.n_members; i++) {
        const gr_cg_member_view_t *m = &v.members[i];
        gr_DescribeGroupsResponse_DescribedGroupMember_t *d = &o->Members.v[i];
        d->MemberId = gr_str_c(gr_arena_strndup(&req->arena, m->member_id, strlen(m->member_id)));
        d->GroupInstanceId = m->instance_id
                                 ? gr_str_c(gr_arena_strndup(&req->arena, m->instance_id, strlen(m->instance_id)))
                                 : GR_STR_NULL;
        d->ClientId = gr_str_c(gr_arena_strndup(&req->arena, m->client_id, strlen(m->client_id)));
        d->ClientHost = gr_str_c(gr_arena_strndup(&req->arena, m->client_host, strlen(m->client_host)));
        d->MemberMetadata = bytes_of(req, m->metadata, stable ? m->metadata_len : 0);
        d->MemberAssignment = bytes_of(req, m->assignment, stable ? m->assignment_len : 0);
    }
    gr_cg_view_free(&v);
    return true;
}

/* Kafka's groupError for a group the principal may not DESCRIBE. */
static void describe_denied(gr_str_t id, gr_DescribeGroupsResponse_DescribedGroup_t *o) {
    o->GroupId = id;
    o->ErrorCode = GR_ERR_GROUP_AUTHORIZATION_FAILED;
    o->ErrorMessage = gr_str_c("Group authorization failed.");
    o->GroupState = gr_str_c("");
    o->ProtocolType = gr_str_c("");
    o->ProtocolData = gr_str_c("");
    o->Members.n = 0;
}

/* An authorized group. The classic-group API on share groups and unknown ids
 * (GroupMetadataManager.describeGroups): v6+ answers GROUP_ID_NOT_FOUND, older versions a
 * Dead group with no error. Kafka fills the authorized operations of every group answered
 * without error. */
static void describe_one(gr_req_t *req, gr_str_t id, gr_DescribeGroupsResponse_DescribedGroup_t *o) {
    char *gid = gr_req_cstr(req, id);
    bool v6 = req->hdr.api_version >= 6;
    /* A share group or a consumer-protocol group: not a classic group. */
    bool share =
        gr_share_group_exists(req->b->share.groups, gid) || gr_cg_type(req->b->cgroup->reg, gid) == GR_CG_TYPE_CONSUMER;
    o->GroupId = id;
    if (!*gid || share || !describe_classic(req, gid, o)) {
        o->ProtocolType = gr_str_c("");
        o->ProtocolData = gr_str_c("");
        o->GroupState = gr_str_c("Dead");
        o->Members.n = 0;
        if (!*gid) {
            o->ErrorCode = GR_ERR_INVALID_GROUP_ID;
            return;
        }
        if (v6) {
            o->ErrorCode = GR_ERR_GROUP_ID_NOT_FOUND;
            o->ErrorMessage = share ? gr_req_msg(req, "Group %s is not a classic group.", gid)
                                    : gr_req_msg(req, "Group %s not found.", gid);
            return;
        }
    }
    if (((gr_DescribeGroupsRequest_t *)req->body)->IncludeAuthorizedOperations)
        o->AuthorizedOperations = gr_req_authz_ops(req, GR_ACL_RT_GROUP, gid);
}

/* KafkaApis answers the groups the principal may not DESCRIBE first, then the others. */
void gr_h_describe_groups(gr_req_t *req) {
    gr_DescribeGroupsRequest_t *r = req->body;
    gr_DescribeGroupsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Groups.n > 0 ? r->Groups.n : 0, k = 0;
    resp->Groups.v = gr_req_alloc(req, &gr_DescribeGroupsResponse_DescribedGroup_sd, n);
    resp->Groups.n = n;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < n; i++) {
            bool allowed = gr_req_allowed(req, GR_AZ_DESCRIBE_GROUPS, gr_req_cstr(req, r->Groups.v[i]));
            if (allowed != (pass == 1)) continue;
            if (allowed)
                describe_one(req, r->Groups.v[i], &resp->Groups.v[k++]);
            else
                describe_denied(r->Groups.v[i], &resp->Groups.v[k++]);
        }
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ DeleteGroups */

typedef gr_DeleteGroupsResponse_DeletableGroupResult_t dgr_t;

static void delete_fix(gr_req_t *req, void *resp, gr_err_t err) {
    gr_DeleteGroupsResponse_t *r = resp;
    if (!err) return;
    for (int32_t i = 0; i < r->Results.n; i++)
        if (!r->Results.v[i].ErrorCode) r->Results.v[i].ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
}

/* Delete one share group: its share state (every partition), its in-memory
 * share-partitions, then the group itself; the configs stay (they are independent
 * of the group in Kafka too). */
static gr_err_t delete_one(gr_req_t *req, const char *gid, gr_share_wait_t *w) {
    gr_broker_t *b = req->b;
    /* Kafka routes "" like any other id: not found (share differential, DeleteGroups v3). */
    if (!*gid) return GR_ERR_GROUP_ID_NOT_FOUND;
    if (gr_cg_exists(b->cgroup->reg, gid)) {
        /* A classic group: only when Empty; its offsets go with it. */
        gr_err_t cerr = gr_cg_delete_check(b->cgroup->reg, gid);
        if (cerr) return cerr;
        gr_share_wait_add(w);
        if (gr_cgroup_delete_group(b, gid, gr_share_wait_cb, w)) {
            gr_share_wait_cb(w, GR_ERR_KAFKA_STORAGE_ERROR);
            return GR_ERR_COORDINATOR_NOT_AVAILABLE;
        }
        return GR_ERR_NONE;
    }
    gr_err_t err = gr_share_group_delete_check(b->share.groups, gid);
    if (err) return err;
    size_t n = 0;
    gr_share_wait_add(w);
    err = gr_sstore_delete_group(b->share.sstore, gid, strlen(gid), &n, gr_share_wait_cb, w);
    if (err) {
        gr_share_wait_cb(w, err);
        return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    }
    gr_share_drop_partitions(b, gid, NULL, -1);
    gr_share_group_delete(b->share.groups, gid, NULL);
    gr_share_persist(b, gid, w);
    GR_INFO("share", "deleted share group %s and %zu share-partition state(s)", gid, n);
    return GR_ERR_NONE;
}

void gr_h_delete_groups(gr_req_t *req) {
    gr_DeleteGroupsRequest_t *r = req->body;
    gr_DeleteGroupsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->GroupsNames.n > 0 ? r->GroupsNames.n : 0;
    resp->Results.v = gr_req_alloc(req, &gr_DeleteGroupsResponse_DeletableGroupResult_sd, n);
    resp->Results.n = n;
    gr_share_wait_t *w = gr_share_wait_new(req, resp, delete_fix);
    /* DELETE on each group; KafkaApis answers the denied groups after the others. */
    int32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < n; i++) {
            gr_err_t denied = gr_req_authz_s(req, GR_AZ_DELETE_GROUPS, r->GroupsNames.v[i]);
            if ((pass == 0) != !denied) continue;
            dgr_t *o = &resp->Results.v[k++];
            o->GroupId = r->GroupsNames.v[i];
            o->ErrorCode = (int16_t)(denied ? denied : delete_one(req, gr_req_cstr(req, o->GroupId), w));
        }
    gr_share_rearm_expiry(req->b);
    gr_share_wait_arm(w);
}
