/* Authorization for the handlers: the connection's principal and host against the
 * authorizer (NULL when authorizer.class.name is empty: everything allowed, as before).
 * The decisions themselves are src/auth (acl_authz.c, authz_rules.c). */
#include <stdio.h>
#include <string.h>

#include "auth/acl_file.h"
#include "base/log.h"
#include "broker/broker_int.h"

gr_err_t gr_broker_acls_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    if (!b->cfg->authorizer_enabled) return GR_ERR_NONE;
    b->authz = gr_acl_authz_new(b->cfg->super_users, b->cfg->allow_everyone_if_no_acl_found);
    gr_err_t err = gr_acl_file_load(b->authz, b->cfg->log_dir, errstr, errstr_size);
    if (!err)
        GR_INFO("broker", "authorizer on: %zu ACL(s), super.users=%s, allow.everyone.if.no.acl.found=%s",
                gr_acl_authz_count(b->authz), b->cfg->super_users,
                b->cfg->allow_everyone_if_no_acl_found ? "true" : "false");
    return err;
}

void gr_broker_acls_close(gr_broker_t *b) {
    gr_acl_authz_free(b->authz);
    b->authz = NULL;
}

static void host_of(const gr_req_t *req, char *host, size_t n) { gr_az_host_of(gr_conn_peer(req->conn), host, n); }

static bool allowed(gr_req_t *req, int8_t op, int8_t rtype, const char *name) {
    if (!req->b->authz) return true;
    char host[64];
    host_of(req, host, sizeof(host));
    if (rtype == GR_ACL_RT_CLUSTER) name = GR_ACL_CLUSTER_NAME;
    return gr_acl_authorize(req->b->authz, gr_conn_principal(req->conn), host, op, rtype, name);
}

bool gr_req_allowed(gr_req_t *req, gr_az_t check, const char *name) {
    const gr_az_rule_t *r = gr_az_rule(check);
    return allowed(req, r->op, r->rtype, name);
}

gr_err_t gr_req_authz(gr_req_t *req, gr_az_t check, const char *name) {
    return gr_req_allowed(req, check, name) ? GR_ERR_NONE : gr_az_rule(check)->err;
}

gr_err_t gr_req_authz_s(gr_req_t *req, gr_az_t check, gr_str_t name) {
    if (!req->b->authz) return GR_ERR_NONE;
    return gr_req_authz(req, check, gr_req_cstr(req, name));
}

bool gr_req_allowed_any(gr_req_t *req, int8_t op, int8_t rtype) {
    if (!req->b->authz) return true;
    char host[64];
    host_of(req, host, sizeof(host));
    return gr_acl_authorize_any(req->b->authz, gr_conn_principal(req->conn), host, op, rtype);
}

int32_t gr_req_authz_ops(gr_req_t *req, int8_t rtype, const char *name) {
    int32_t sup = gr_az_supported_ops(rtype), out = 0;
    if (!req->b->authz) return sup;
    for (int8_t op = 0; op < GR_ACL_OP_N; op++)
        if ((sup & (1 << op)) && allowed(req, op, rtype, name)) out |= 1 << op;
    return out;
}

gr_str_t gr_req_denied_msg(gr_req_t *req, gr_az_t check) {
    const gr_az_rule_t *r = gr_az_rule(check);
    char host[64];
    host_of(req, host, sizeof(host));
    return gr_req_msg(req, "Request Request(apiKey=%d, principal=%s, host=%s) needs %s permission.", r->api_key,
                      gr_conn_principal(req->conn), host, gr_acl_op_name(r->op));
}
