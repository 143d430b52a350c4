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

/* An ACL or an ACL filter, as every public call here takes it. */
typedef struct acl_args {
    int8_t rt;
    const char *name;
    int8_t pt;
    const char *principal, *host;
    int8_t op, perm;
} acl_args_t;

static gr_str_t opt(const char *s) { return s ? gr_str_c(s) : GR_STR_NULL; }

/* DescribeAcls' request and DeleteAcls' filters name the filter fields alike. */
#define SET_FILTER(f, x)                            \
    do {                                            \
        (f)->ResourceTypeFilter = (x)->rt;          \
        (f)->ResourceNameFilter = opt((x)->name);   \
        (f)->PatternTypeFilter = (x)->pt;           \
        (f)->PrincipalFilter = opt((x)->principal); \
        (f)->HostFilter = opt((x)->host);           \
        (f)->Operation = (x)->op;                   \
        (f)->PermissionType = (x)->perm;            \
    } while (0)

/* Per API: the request built in the arena, and the result made of the decoded answer. */
typedef void *acl_req_fn(gr_arena_t *ar, const acl_args_t *x);
typedef gr_err_t acl_res_fn(gr_admin_t *a, const void *resp, const acl_args_t *x, gr_admin_result_t **res);

/* One ACL call to any broker: the request, the answer, the result (*res NULL on error). */
static gr_err_t acl_call(gr_admin_t *a, int16_t api, acl_req_fn *req, acl_res_fn *result, const acl_args_t *x,
                         int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    void *resp;
    int16_t ver;
    gr_err_t err =
        gr__client_call(a->cl, INT32_MIN, api, req(&ar, x), deadline, &ar, &resp, &ver, a->errbuf, sizeof(a->errbuf));
    if (!err) err = result(a, resp, x, res);
    gr_arena_free(&ar);
    return err;
}

static void *create_req(gr_arena_t *ar, const acl_args_t *x) {
    gr_CreateAclsRequest_t *rq = gr_struct_alloc(ar, &gr_CreateAclsRequest_sd, 1);
    rq->Creations.n = 1;
    rq->Creations.v = gr_struct_alloc(ar, &gr_CreateAclsRequest_AclCreation_sd, 1);
    gr_CreateAclsRequest_AclCreation_t *c = &rq->Creations.v[0];
    c->ResourceType = x->rt;
    c->ResourceName = gr_str_c(x->name);
    c->ResourcePatternType = x->pt;
    c->Principal = gr_str_c(x->principal);
    c->Host = gr_str_c(x->host);
    c->Operation = x->op;
    c->PermissionType = x->perm;
    return rq;
}

static gr_err_t create_res(gr_admin_t *a, const void *resp, const acl_args_t *x, gr_admin_result_t **res) {
    const gr_CreateAclsResponse_t *rs = resp;
    gr_admin_result_t *r = gr__result_new(create_cols);
    for (int32_t i = 0; i < rs->Results.n; i++) {
        size_t row = gr__result_add_row(r);
        gr__result_set_cstr(r, row, "principal", x->principal);
        gr__result_set_int(r, row, "operation", x->op);
        gr__result_set_error(r, row, rs->Results.v[i].ErrorCode, rs->Results.v[i].ErrorMessage);
    }
    *res = r;
    return gr__result_first_error(r, "principal", a->errbuf, sizeof(a->errbuf));
}

gr_err_t gr_admin_create_acl(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                             const char *principal, const char *host, int8_t operation, int8_t permission,
                             int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!resource_name || !principal || !host)
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                       "an ACL needs a resource, principal and host");
    acl_args_t x = {resource_type, resource_name, pattern_type, principal, host, operation, permission};
    return acl_call(a, GR_API_CreateAcls, create_req, create_res, &x, timeout_ms, res);
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

static void *describe_req(gr_arena_t *ar, const acl_args_t *x) {
    gr_DescribeAclsRequest_t *rq = gr_struct_alloc(ar, &gr_DescribeAclsRequest_sd, 1);
    SET_FILTER(rq, x);
    return rq;
}

static gr_err_t describe_res(gr_admin_t *a, const void *resp, const acl_args_t *x, gr_admin_result_t **res) {
    const gr_DescribeAclsResponse_t *rs = resp;
    (void)x;
    if (rs->ErrorCode) {
        gr_err_t err = gr__fmt((gr_err_t)rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "%.*s",
                               rs->ErrorMessage.len > 0 ? (int)rs->ErrorMessage.len : 0,
                               rs->ErrorMessage.len > 0 ? rs->ErrorMessage.ptr : "");
        if (!a->errbuf[0]) gr__fmt(err, a->errbuf, sizeof(a->errbuf), "%s", gr_err_str(err));
        return err;
    }
    gr_admin_result_t *r = gr__result_new(acl_cols);
    for (int32_t i = 0; i < rs->Resources.n; i++) {
        const gr_DescribeAclsResponse_DescribeAclsResource_t *d = &rs->Resources.v[i];
        for (int32_t k = 0; k < d->Acls.n; k++)
            acl_row(r, gr__result_add_row(r), d->ResourceType, d->ResourceName, d->PatternType, d->Acls.v[k].Principal,
                    d->Acls.v[k].Host, d->Acls.v[k].Operation, d->Acls.v[k].PermissionType);
    }
    *res = r;
    return GR_ERR_NONE;
}

gr_err_t gr_admin_describe_acls(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                                const char *principal, const char *host, int8_t operation, int8_t permission,
                                int timeout_ms, gr_admin_result_t **res) {
    acl_args_t x = {resource_type, resource_name, pattern_type, principal, host, operation, permission};
    return acl_call(a, GR_API_DescribeAcls, describe_req, describe_res, &x, timeout_ms, res);
}

static void *delete_req(gr_arena_t *ar, const acl_args_t *x) {
    gr_DeleteAclsRequest_t *rq = gr_struct_alloc(ar, &gr_DeleteAclsRequest_sd, 1);
    rq->Filters.n = 1;
    rq->Filters.v = gr_struct_alloc(ar, &gr_DeleteAclsRequest_DeleteAclsFilter_sd, 1);
    SET_FILTER(&rq->Filters.v[0], x);
    return rq;
}

static gr_err_t delete_res(gr_admin_t *a, const void *resp, const acl_args_t *x, gr_admin_result_t **res) {
    const gr_DeleteAclsResponse_t *rs = resp;
    (void)x;
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
    return gr__result_first_error(r, "principal", a->errbuf, sizeof(a->errbuf));
}

gr_err_t gr_admin_delete_acls(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                              const char *principal, const char *host, int8_t operation, int8_t permission,
                              int timeout_ms, gr_admin_result_t **res) {
    acl_args_t x = {resource_type, resource_name, pattern_type, principal, host, operation, permission};
    return acl_call(a, GR_API_DeleteAcls, delete_req, delete_res, &x, timeout_ms, res);
}
