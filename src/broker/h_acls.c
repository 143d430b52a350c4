/* CreateAcls (30), DescribeAcls (29), DeleteAcls (31), v1-3: Kafka's ACL management.
 * Without an authorizer they answer SECURITY_DISABLED. A success is on disk: the whole
 * ACL set is rewritten and fsync'd (auth/acl_file.c) before answering; if that fails the
 * in-memory change is undone and the answer is an error. */
#include <stdlib.h>
#include <string.h>

#include "auth/acl_file.h"
#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

#define NO_AUTHORIZER "No Authorizer is configured."

static const char *opt_cstr(gr_req_t *req, gr_str_t s) { return gr_str_is_null(s) ? NULL : gr_req_cstr(req, s); }

/* DescribeAcls' request and DeleteAcls' filters name the filter fields alike. */
#define FILTER_OF(req, q)                                                                                       \
    ((gr_acl_filter_t){(q)->ResourceTypeFilter, (q)->PatternTypeFilter, opt_cstr(req, (q)->ResourceNameFilter), \
                       opt_cstr(req, (q)->PrincipalFilter), opt_cstr(req, (q)->HostFilter), (q)->Operation,     \
                       (q)->PermissionType})

/* Room for one more element after n in an arena array of capacity *cap (doubling). */
static void *room_for_one(gr_req_t *req, const gr_struct_desc_t *sd, void *v, int32_t n, int32_t *cap) {
    if (n < *cap) return v;
    *cap = *cap ? *cap * 2 : 8;
    void *grown = gr_req_alloc(req, sd, *cap);
    if (n) memcpy(grown, v, (size_t)n * sd->size);
    return grown;
}

static gr_err_t persist(gr_req_t *req, char *errstr, size_t n) {
    gr_err_t err = gr_acl_file_save(req->b->authz, req->b->cfg->log_dir, errstr, n);
    if (err) GR_ERROR("acl", "cannot persist ACLs: %s", errstr);
    return err;
}

void gr_h_create_acls(gr_req_t *req) {
    gr_CreateAclsRequest_t *creq = req->body;
    gr_CreateAclsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = creq->Creations.n > 0 ? creq->Creations.n : 0;
    resp->Results.v = gr_req_alloc(req, &gr_CreateAclsResponse_AclCreationResult_sd, n);
    resp->Results.n = n;
    gr_err_t all = gr_req_authz(req, GR_AZ_CREATE_ACLS, NULL);
    if (!req->b->authz) all = GR_ERR_SECURITY_DISABLED;
    gr_acl_binding_t *added = calloc((size_t)n + 1, sizeof(*added));
    int32_t *added_at = calloc((size_t)n + 1, sizeof(int32_t));
    if (!added || !added_at) abort();
    int32_t n_added = 0;
    for (int32_t i = 0; i < n; i++) {
        gr_CreateAclsResponse_AclCreationResult_t *r = &resp->Results.v[i];
        const gr_CreateAclsRequest_AclCreation_t *c = &creq->Creations.v[i];
        r->ErrorMessage = GR_STR_NULL;
        if (all) {
            r->ErrorCode = (int16_t)all;
            r->ErrorMessage = all == GR_ERR_SECURITY_DISABLED ? GR_STR(NO_AUTHORIZER) : GR_STR_NULL;
            continue;
        }
        gr_acl_binding_t b = {gr_acl_rtype_norm(c->ResourceType), gr_acl_ptype_norm(c->ResourcePatternType),
                              gr_req_cstr(req, c->ResourceName),  gr_req_cstr(req, c->Principal),
                              gr_req_cstr(req, c->Host),          gr_acl_op_norm(c->Operation),
                              gr_acl_perm_norm(c->PermissionType)};
        char msg[512];
        gr_err_t err = gr_acl_validate_new(&b, msg, sizeof(msg));
        r->ErrorCode = (int16_t)err;
        r->ErrorMessage = err && !msg[0] ? GR_STR_NULL : gr_req_msg(req, "%s", msg); /* Kafka: "" on success */
        if (err) continue;
        if (gr_acl_authz_add(req->b->authz, &b)) {
            added[n_added] = b;
            added_at[n_added++] = i;
        }
    }
    char errstr[512];
    if (n_added && persist(req, errstr, sizeof(errstr))) {
        for (int32_t k = 0; k < n_added; k++) {
            gr_acl_authz_remove(req->b->authz, &added[k]);
            resp->Results.v[added_at[k]].ErrorCode = GR_ERR_UNKNOWN_SERVER_ERROR;
            resp->Results.v[added_at[k]].ErrorMessage = gr_req_msg(req, "ACLs not stored: %s", errstr);
        }
    }
    free(added);
    free(added_at);
    gr_req_respond(req, resp);
}

/* Kafka cannot parse a filter with an UNKNOWN code (its request constructor throws) and
 * closes the connection, as for any malformed request. Returns true when it closed (req
 * is then gone). */
static bool refuse_unknown(gr_req_t *req, const gr_acl_filter_t *f) {
    char msg[128];
    if (!gr_acl_validate_filter(f, msg, sizeof(msg))) return false;
    GR_INFO("acl", "closing connection from %s: %s (an UNKNOWN code in an ACL filter)", gr_conn_peer(req->conn), msg);
    gr_conn_close(req->conn);
    gr_req_respond_none(req);
    return true;
}

/* What the gr_acl_authz_list callbacks fill, in the request arena. */
typedef struct list_ctx {
    gr_req_t *req;
    void *out;   /* the DescribeAcls response, or one DeleteAcls filter result */
    int32_t cap; /* capacity of the array being filled */
} list_ctx_t;

/* DescribeAcls groups the matching ACLs by resource pattern. */
static void describe_one(void *arg, const gr_acl_binding_t *b) {
    list_ctx_t *d = arg;
    gr_DescribeAclsResponse_t *resp = d->out;
    gr_DescribeAclsResponse_DescribeAclsResource_t *res = NULL;
    for (int32_t i = 0; i < resp->Resources.n && !res; i++) {
        gr_DescribeAclsResponse_DescribeAclsResource_t *r = &resp->Resources.v[i];
        if (r->ResourceType == b->rtype && r->PatternType == b->ptype && gr_str_eq(r->ResourceName, gr_str_c(b->name)))
            res = r;
    }
    if (!res) {
        resp->Resources.v = room_for_one(d->req, &gr_DescribeAclsResponse_DescribeAclsResource_sd, resp->Resources.v,
                                         resp->Resources.n, &d->cap);
        res = &resp->Resources.v[resp->Resources.n++];
        res->ResourceType = b->rtype;
        res->PatternType = b->ptype;
        res->ResourceName = gr_req_msg(d->req, "%s", b->name);
        res->Acls.n = 0;
    }
    /* Few ACLs per pattern: grow the array one at a time, in the arena. */
    gr_DescribeAclsResponse_AclDescription_t *v =
        gr_req_alloc(d->req, &gr_DescribeAclsResponse_AclDescription_sd, res->Acls.n + 1);
    if (res->Acls.n) memcpy(v, res->Acls.v, (size_t)res->Acls.n * sizeof(*v));
    v[res->Acls.n] = (gr_DescribeAclsResponse_AclDescription_t){.Principal = gr_req_msg(d->req, "%s", b->principal),
                                                                .Host = gr_req_msg(d->req, "%s", b->host),
                                                                .Operation = b->op,
                                                                .PermissionType = b->perm};
    res->Acls.v = v;
    res->Acls.n++;
}

void gr_h_describe_acls(gr_req_t *req) {
    gr_DescribeAclsRequest_t *dreq = req->body;
    gr_acl_filter_t f = FILTER_OF(req, dreq);
    if (refuse_unknown(req, &f)) return;
    gr_DescribeAclsResponse_t *resp = gr_req_resp_new(req);
    resp->ErrorMessage = GR_STR_NULL;
    resp->Resources.n = 0;
    gr_err_t err = gr_req_authz(req, GR_AZ_DESCRIBE_ACLS, NULL);
    if (!req->b->authz) {
        resp->ErrorCode = GR_ERR_SECURITY_DISABLED;
        resp->ErrorMessage = GR_STR("No Authorizer is configured on the broker");
    } else if (err) {
        resp->ErrorCode = (int16_t)err;
    } else {
        list_ctx_t d = {req, resp, 0};
        gr_acl_authz_list(req->b->authz, &f, describe_one, &d);
    }
    gr_req_respond(req, resp);
}

/* The bindings one DeleteAcls filter matched, copied into the request arena. */
static void delete_match(void *arg, const gr_acl_binding_t *b) {
    list_ctx_t *d = arg;
    gr_DeleteAclsResponse_DeleteAclsFilterResult_t *fr = d->out;
    fr->MatchingAcls.v = room_for_one(d->req, &gr_DeleteAclsResponse_DeleteAclsMatchingAcl_sd, fr->MatchingAcls.v,
                                      fr->MatchingAcls.n, &d->cap);
    fr->MatchingAcls.v[fr->MatchingAcls.n++] =
        (gr_DeleteAclsResponse_DeleteAclsMatchingAcl_t){.ErrorMessage = GR_STR_NULL,
                                                        .ResourceType = b->rtype,
                                                        .ResourceName = gr_req_msg(d->req, "%s", b->name),
                                                        .PatternType = b->ptype,
                                                        .Principal = gr_req_msg(d->req, "%s", b->principal),
                                                        .Host = gr_req_msg(d->req, "%s", b->host),
                                                        .Operation = b->op,
                                                        .PermissionType = b->perm};
}

static gr_acl_binding_t binding_of(gr_req_t *req, const gr_DeleteAclsResponse_DeleteAclsMatchingAcl_t *m) {
    return (gr_acl_binding_t){m->ResourceType,
                              m->PatternType,
                              gr_req_cstr(req, m->ResourceName),
                              gr_req_cstr(req, m->Principal),
                              gr_req_cstr(req, m->Host),
                              m->Operation,
                              m->PermissionType};
}

/* Remove every matched binding (add back when undo); returns how many changed. */
static int32_t apply_deletes(gr_req_t *req, gr_DeleteAclsResponse_t *resp, bool undo) {
    int32_t changed = 0;
    for (int32_t i = 0; i < resp->FilterResults.n; i++)
        for (int32_t j = 0; j < resp->FilterResults.v[i].MatchingAcls.n; j++) {
            gr_acl_binding_t b = binding_of(req, &resp->FilterResults.v[i].MatchingAcls.v[j]);
            changed += undo ? gr_acl_authz_add(req->b->authz, &b) : gr_acl_authz_remove(req->b->authz, &b);
        }
    return changed;
}

void gr_h_delete_acls(gr_req_t *req) {
    gr_DeleteAclsRequest_t *dreq = req->body;
    int32_t n = dreq->Filters.n > 0 ? dreq->Filters.n : 0;
    gr_acl_filter_t *fs = gr_arena_alloc(&req->arena, ((size_t)n + 1) * sizeof(*fs));
    for (int32_t i = 0; i < n; i++) {
        fs[i] = FILTER_OF(req, &dreq->Filters.v[i]);
        if (refuse_unknown(req, &fs[i])) return;
    }
    gr_DeleteAclsResponse_t *resp = gr_req_resp_new(req);
    resp->FilterResults.v = gr_req_alloc(req, &gr_DeleteAclsResponse_DeleteAclsFilterResult_sd, n);
    resp->FilterResults.n = n;
    gr_err_t all = gr_req_authz(req, GR_AZ_DELETE_ACLS, NULL);
    if (!req->b->authz) all = GR_ERR_SECURITY_DISABLED;
    for (int32_t i = 0; i < n; i++) {
        gr_DeleteAclsResponse_DeleteAclsFilterResult_t *fr = &resp->FilterResults.v[i];
        fr->ErrorMessage = GR_STR_NULL;
        fr->MatchingAcls.n = 0;
        if (all) {
            fr->ErrorCode = (int16_t)all;
            if (all == GR_ERR_SECURITY_DISABLED) fr->ErrorMessage = GR_STR(NO_AUTHORIZER);
            continue;
        }
        list_ctx_t d = {req, fr, 0};
        gr_acl_authz_list(req->b->authz, &fs[i], delete_match, &d);
    }
    char errstr[512];
    if (!all && apply_deletes(req, resp, false) && persist(req, errstr, sizeof(errstr))) {
        apply_deletes(req, resp, true);
        for (int32_t i = 0; i < n; i++) {
            if (resp->FilterResults.v[i].ErrorCode) continue;
            resp->FilterResults.v[i].ErrorCode = GR_ERR_UNKNOWN_SERVER_ERROR;
            resp->FilterResults.v[i].ErrorMessage = gr_req_msg(req, "ACLs not stored: %s", errstr);
            resp->FilterResults.v[i].MatchingAcls.n = 0;
        }
    }
    gr_req_respond(req, resp);
}
