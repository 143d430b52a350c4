/* The admin client: ACLs (CreateAcls, DescribeAcls, DeleteAcls) to any broker. */
#include <stdlib.h>
#include <string.h>

#include "client/admin_int.h"
#include "proto_msgs.h"

static const char *const create_cols[] = {"principal", "operation", "error", "error_message", NULL};
static const char *const acl_cols[] = {"resource_type", "resource_name", "pattern_type", "principal",
                                       "host",          "operation",     "permission",   NULL};
static const char *const delete_cols[] = {"resource_type", "resource_name", "pattern_type", "principal",     "host",
                                          "operation",     "permission",    "error",        "error_message", NULL};

static gr_str_t opt(const char *s) { return s ? gr_str_c(s) : GR_STR_NULL; }

#define CALL(a, api, rq, deadline, ar, resp, ver) \
    gr__client_call((a)->cl, INT32_MIN, api, rq, deadline, ar, resp, ver, (a)->errbuf, sizeof((a)->errbuf))

gr_err_t gr_admin_create_acl(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                             const char *principal, const char *host, int8_t operation, int8_t permission,
                             int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!resource_name || !principal || !host)
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                       "an ACL needs a resource, principal and host");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_CreateAclsRequest_t rq;
    gr_struct_init(&gr_CreateAclsRequest_sd, &rq);
    rq.Creations.n = 1;
    rq.Creations.v = gr_struct_alloc(&ar, &gr_CreateAclsRequest_AclCreation_sd, 1);
    gr_CreateAclsRequest_AclCreation_t *c = &rq.Creations.v[0];
    c->ResourceType = resource_type;
    c->ResourceName = gr_str_c(resource_name);
    c->ResourcePatternType = pattern_type;
    c->Principal = gr_str_c(principal);
    c->Host = gr_str_c(host);
    c->Operation = operation;
    c->PermissionType = permission;
    void *resp;
    int16_t ver;
    gr_err_t err = CALL(a, GR_API_CreateAcls, &rq, deadline, &ar, &resp, &ver);
    if (!err) {
        const gr_CreateAclsResponse_t *rs = resp;
        gr_admin_result_t *r = gr__result_new(create_cols);
        for (int32_t i = 0; i < rs->Results.n; i++) {
            size_t row = gr__result_add_row(r);
            gr__result_set_cstr(r, row, "principal", principal);
            gr__result_set_int(r, row, "operation", operation);
            gr__result_set_error(r, row, rs->Results.v[i].ErrorCode, rs->Results.v[i].ErrorMessage);
        }
        *res = r;
        err = gr__result_first_error(r, "principal", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

static void acl_row(gr_admin_result_t *r, size_t row, int8_t rt, gr_str_t name, int8_t pt, gr_str_t principal,
                    gr_str_t host, int8_t op, int8_t perm) {
    gr__result_set_int(r, row, "resource_type", rt);
    gr__result_set_str(r, row, "resource_name", name);
    gr__result_set_int(r, row, "pattern_type", pt);
    gr__result_set_str(r, row, "principal", principal);
    gr__result_set_str(r, row, "host", host);
    gr__result_set_int(r, row, "operation", op);
    gr__result_set_int(r, row, "permission", perm);
}

gr_err_t gr_admin_describe_acls(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                                const char *principal, const char *host, int8_t operation, int8_t permission,
                                int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DescribeAclsRequest_t rq;
    gr_struct_init(&gr_DescribeAclsRequest_sd, &rq);
    rq.ResourceTypeFilter = resource_type;
    rq.ResourceNameFilter = opt(resource_name);
    rq.PatternTypeFilter = pattern_type;
    rq.PrincipalFilter = opt(principal);
    rq.HostFilter = opt(host);
    rq.Operation = operation;
    rq.PermissionType = permission;
    void *resp;
    int16_t ver;
    gr_err_t err = CALL(a, GR_API_DescribeAcls, &rq, deadline, &ar, &resp, &ver);
    const gr_DescribeAclsResponse_t *rs = resp;
    if (!err && rs->ErrorCode) {
        err = gr__fmt((gr_err_t)rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "%.*s",
                      rs->ErrorMessage.len > 0 ? (int)rs->ErrorMessage.len : 0,
                      rs->ErrorMessage.len > 0 ? rs->ErrorMessage.ptr : "");
        if (!a->errbuf[0]) gr__fmt(err, a->errbuf, sizeof(a->errbuf), "%s", gr_err_str(err));
    } else if (!err) {
        gr_admin_result_t *r = gr__result_new(acl_cols);
        for (int32_t i = 0; i < rs->Resources.n; i++) {
            const gr_DescribeAclsResponse_DescribeAclsResource_t *x = &rs->Resources.v[i];
            for (int32_t k = 0; k < x->Acls.n; k++)
                acl_row(r, gr__result_add_row(r), x->ResourceType, x->ResourceName, x->PatternType,
                        x->Acls.v[k].Principal, x->Acls.v[k].Host, x->Acls.v[k].Operation, x->Acls.v[k].PermissionType);
        }
        *res = r;
    }
    gr_arena_free(&ar);
    return err;
}

gr_err_t gr_admin_delete_acls(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                              const char *principal, const char *host, int8_t operation, int8_t permission,
                              int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DeleteAclsRequest_t rq;
    gr_struct_init(&gr_DeleteAclsRequest_sd, &rq);
    rq.Filters.n = 1;
    rq.Filters.v = gr_struct_alloc(&ar, &gr_DeleteAclsRequest_DeleteAclsFilter_sd, 1);
    gr_DeleteAclsRequest_DeleteAclsFilter_t *f0 = &rq.Filters.v[0];
    f0->ResourceTypeFilter = resource_type;
    f0->ResourceNameFilter = opt(resource_name);
    f0->PatternTypeFilter = pattern_type;
    f0->PrincipalFilter = opt(principal);
    f0->HostFilter = opt(host);
    f0->Operation = operation;
    f0->PermissionType = permission;
    void *resp;
    int16_t ver;
    gr_err_t err = CALL(a, GR_API_DeleteAcls, &rq, deadline, &ar, &resp, &ver);
    if (!err) {
        const gr_DeleteAclsResponse_t *rs = resp;
        gr_admin_result_t *r = gr__result_new(delete_cols);
        for (int32_t i = 0; i < rs->FilterResults.n; i++) {
            const gr_DeleteAclsResponse_DeleteAclsFilterResult_t *f = &rs->FilterResults.v[i];
            if (f->ErrorCode) {
                gr__result_set_error(r, gr__result_add_row(r), f->ErrorCode, f->ErrorMessage);
                continue;
            }
            for (int32_t k = 0; k < f->MatchingAcls.n; k++) {
                const gr_DeleteAclsResponse_DeleteAclsMatchingAcl_t *m = &f->MatchingAcls.v[k];
                size_t row = gr__result_add_row(r);
                acl_row(r, row, m->ResourceType, m->ResourceName, m->PatternType, m->Principal, m->Host, m->Operation,
                        m->PermissionType);
                gr__result_set_error(r, row, m->ErrorCode, m->ErrorMessage);
            }
        }
        *res = r;
        err = gr__result_first_error(r, "principal", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}
