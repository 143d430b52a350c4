/* ListGroups (16, v0-5), DescribeGroups (15, v0-6) and DeleteGroups (42, v0-3)
 * as far as share groups go (spec §6.1, §6.6): gregord has no classic or
 * consumer groups, so every group here is a share group.
 * @locality loop thread. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

/* ------------------------------------------------------------------ ListGroups */

/* TypesFilter: empty = every type; Kafka parses the names case-insensitively. */
static bool share_type_wanted(const gr_ListGroupsRequest_t *r) {
    if (r->TypesFilter.n <= 0) return true;
    for (int32_t i = 0; i < r->TypesFilter.n; i++) {
        gr_str_t t = r->TypesFilter.v[i];
        if (t.len == 5 && !strncasecmp(t.ptr, "share", 5)) return true;
    }
    return false;
}

void gr_h_list_groups(gr_req_t *req) {
    gr_ListGroupsRequest_t *r = req->body;
    gr_ListGroupsResponse_t *resp = gr_req_resp_new(req);
    int32_t ns = r->StatesFilter.n > 0 ? r->StatesFilter.n : 0;
    const char **states = gr_arena_alloc(&req->arena, (size_t)ns * sizeof(*states) + 1);
    for (int32_t i = 0; i < ns; i++) states[i] = gr_req_cstr(req, r->StatesFilter.v[i]);
    gr_sg_list_entry_t *es = NULL;
    int32_t n = share_type_wanted(r) ? gr_share_group_list(req->b->share.groups, states, ns, &es) : 0;
    resp->Groups.v = gr_req_alloc(req, &gr_ListGroupsResponse_ListedGroup_sd, n);
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
    free(es);
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ DescribeGroups */

/* The classic-group API on share groups and unknown ids (GroupMetadataManager.describeGroups):
 * v6+ answers GROUP_ID_NOT_FOUND, older versions a Dead group with no error. */
static void describe_one(gr_req_t *req, gr_str_t id, gr_DescribeGroupsResponse_DescribedGroup_t *o) {
    char *gid = gr_req_cstr(req, id);
    bool v6 = req->hdr.api_version >= 6;
    bool share = gr_share_group_exists(req->b->share.groups, gid);
    o->GroupId = id;
    o->ProtocolType = gr_str_c("");
    o->ProtocolData = gr_str_c("");
    o->GroupState = gr_str_c("Dead");
    o->Members.n = 0;
    if (!gr_req_allowed(req, GR_AZ_DESCRIBE_GROUPS, gid)) { /* Kafka's groupError shape */
        o->ErrorCode = GR_ERR_GROUP_AUTHORIZATION_FAILED;
        o->GroupState = gr_str_c("");
        o->ErrorMessage = gr_str_c("Group authorization failed.");
        return;
    }
    if (!*gid) {
        o->ErrorCode = GR_ERR_INVALID_GROUP_ID;
        return;
    }
    if (!v6) { /* Kafka fills the authorized operations of every group answered without error */
        if (((gr_DescribeGroupsRequest_t *)req->body)->IncludeAuthorizedOperations)
            o->AuthorizedOperations = gr_req_authz_ops(req, GR_ACL_RT_GROUP, gid);
        return;
    }
    o->ErrorCode = GR_ERR_GROUP_ID_NOT_FOUND;
    o->ErrorMessage =
        share ? gr_req_msg(req, "Group %s is not a classic group.", gid) : gr_req_msg(req, "Group %s not found.", gid);
}

void gr_h_describe_groups(gr_req_t *req) {
    gr_DescribeGroupsRequest_t *r = req->body;
    gr_DescribeGroupsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Groups.n > 0 ? r->Groups.n : 0;
    resp->Groups.v = gr_req_alloc(req, &gr_DescribeGroupsResponse_DescribedGroup_sd, n);
    resp->Groups.n = n;
    for (int32_t i = 0; i < n; i++) describe_one(req, r->Groups.v[i], &resp->Groups.v[i]);
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
    for (int32_t i = 0; i < n; i++) {
        dgr_t *o = &resp->Results.v[i];
        o->GroupId = r->GroupsNames.v[i];
        gr_err_t denied = gr_req_authz_s(req, GR_AZ_DELETE_GROUPS, o->GroupId); /* DELETE on the group */
        o->ErrorCode = (int16_t)(denied ? denied : delete_one(req, gr_req_cstr(req, o->GroupId), w));
    }
    gr_share_rearm_expiry(req->b);
    gr_share_wait_arm(w);
}
