/* DescribeClientQuotas (48) and AlterClientQuotas (49): the client quotas kafka-configs
 * --entity-type users|clients|ips manages. Kafka's validation and messages
 * (src/auth/quota_alter.c, quota_resolve.c); an answer without errors means the change is
 * on disk. Describing needs DESCRIBE_CONFIGS on the cluster, altering ALTER_CONFIGS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/quotas.h"
#include "proto_msgs.h"

typedef gr_DescribeClientQuotasResponse_EntryData_t d_entry_t;

static const char *cstr_or_null(gr_req_t *req, gr_str_t s) { return s.len < 0 ? NULL : gr_req_cstr(req, s); }
static gr_str_t str_or_null(const char *s) { return s ? gr_str_c(s) : GR_STR_NULL; }

/* Kafka's error answer: the code and message (null when denied), entries null. */
static void describe_error(gr_req_t *req, gr_DescribeClientQuotasResponse_t *resp, int16_t err, const char *msg) {
    resp->ErrorCode = err;
    resp->ErrorMessage = msg ? gr_req_msg(req, "%s", msg) : GR_STR_NULL;
    resp->Entries.v = NULL;
    resp->Entries.n = -1;
    gr_req_respond(req, resp);
}

static void describe_entry(gr_req_t *req, const gr_quota_entry_t *e, d_entry_t *out) {
    gr_quota_pair_t map[3];
    size_t n = gr_quota_entry_pairs(e, map);
    out->Entity.v = gr_req_alloc(req, &gr_DescribeClientQuotasResponse_EntityData_sd, (int32_t)n);
    out->Entity.n = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        out->Entity.v[i].EntityType = gr_str_c(map[i].type);
        out->Entity.v[i].EntityName = str_or_null(map[i].name);
    }
    int32_t nv = 0;
    for (int k = 0; k < GR_QK__N; k++) nv += (e->set >> k) & 1;
    out->Values.v = gr_req_alloc(req, &gr_DescribeClientQuotasResponse_ValueData_sd, nv);
    out->Values.n = 0;
    for (int k = 0; k < GR_QK__N; k++) {
        if (!((e->set >> k) & 1)) continue;
        out->Values.v[out->Values.n].Key = gr_str_c(gr_quota_key_name((gr_quota_key_t)k));
        out->Values.v[out->Values.n++].Value = e->v[k];
    }
}

void gr_h_describe_client_quotas(gr_req_t *req) {
    const gr_DescribeClientQuotasRequest_t *r = req->body;
    gr_DescribeClientQuotasResponse_t *resp = gr_req_resp_new(req);
    if (!gr_req_allowed(req, GR_AZ_DESCRIBE_CLIENT_QUOTAS, NULL)) {
        describe_error(req, resp, GR_ERR_CLUSTER_AUTHORIZATION_FAILED, NULL);
        return;
    }
    size_t n = r->Components.n > 0 ? (size_t)r->Components.n : 0;
    gr_quota_filter_comp_t *c = gr_arena_alloc(&req->arena, (n + 1) * sizeof(*c));
    for (size_t i = 0; i < n; i++) {
        c[i].type = gr_req_cstr(req, r->Components.v[i].EntityType);
        c[i].match_type = r->Components.v[i].MatchType;
        c[i].match = cstr_or_null(req, r->Components.v[i].Match);
    }
    char msg[512];
    int16_t err = gr_quota_filter_check(c, n, msg, sizeof(msg));
    if (err) {
        describe_error(req, resp, err, msg);
        return;
    }
    const gr_quota_store_t *s = gr_broker_quota_store(req->b);
    resp->Entries.v = gr_req_alloc(req, &gr_DescribeClientQuotasResponse_EntryData_sd, (int32_t)s->n);
    resp->Entries.n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (gr_quota_filter_match(c, n, r->Strict, &s->e[i]))
            describe_entry(req, &s->e[i], &resp->Entries.v[resp->Entries.n++]);
    gr_req_respond(req, resp);
}

typedef gr_AlterClientQuotasResponse_EntryData_t a_entry_t;

static gr_quota_alter_t *read_alters(gr_req_t *req, size_t *n_out) {
    const gr_AlterClientQuotasRequest_t *r = req->body;
    size_t n = r->Entries.n > 0 ? (size_t)r->Entries.n : 0;
    gr_quota_alter_t *a = gr_arena_alloc(&req->arena, (n + 1) * sizeof(*a));
    memset(a, 0, (n + 1) * sizeof(*a));
    for (size_t i = 0; i < n; i++) {
        const gr_AlterClientQuotasRequest_EntryData_t *e = &r->Entries.v[i];
        size_t np = e->Entity.n > 0 ? (size_t)e->Entity.n : 0, no = e->Ops.n > 0 ? (size_t)e->Ops.n : 0;
        gr_quota_pair_t *pairs = gr_arena_alloc(&req->arena, (np + 1) * sizeof(*pairs));
        gr_quota_op_t *ops = gr_arena_alloc(&req->arena, (no + 1) * sizeof(*ops));
        for (size_t k = 0; k < np; k++) {
            pairs[k].type = gr_req_cstr(req, e->Entity.v[k].EntityType);
            pairs[k].name = cstr_or_null(req, e->Entity.v[k].EntityName);
        }
        for (size_t k = 0; k < no; k++) {
            ops[k].key = gr_req_cstr(req, e->Ops.v[k].Key);
            ops[k].value = e->Ops.v[k].Value;
            ops[k].remove = e->Ops.v[k].Remove;
        }
        a[i].pairs = pairs;
        a[i].n_pairs = np;
        a[i].ops = ops;
        a[i].n_ops = no;
        a[i].map = gr_arena_alloc(&req->arena, (np + 1) * sizeof(*a[i].map));
    }
    *n_out = n;
    return a;
}

/* Apply to a copy, write it, and only then make it the store: a failed write changes nothing. */
static gr_err_t commit(gr_broker_t *b, const gr_quota_alter_t *a, size_t n, char *why, size_t why_size) {
    gr_quota_store_t next;
    gr_quota_store_copy(&next, gr_broker_quota_store(b));
    gr_quota_alter_apply(&next, a, n);
    gr_err_t err = gr_quota_store_save(&next, b->cfg->log_dir, why, why_size);
    if (err) {
        gr_quota_store_free(&next);
        return err;
    }
    gr_broker_quota_store_replace(b, &next);
    return GR_ERR_NONE;
}

static void entity_out(gr_req_t *req, const gr_quota_pair_t *map, size_t n, a_entry_t *out) {
    out->Entity.v = gr_req_alloc(req, &gr_AlterClientQuotasResponse_EntityData_sd, (int32_t)n);
    out->Entity.n = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        out->Entity.v[i].EntityType = gr_str_c(map[i].type);
        out->Entity.v[i].EntityName = str_or_null(map[i].name);
    }
}

/* Kafka's error answer: every entry as sent, with the error's default message. */
static void alter_denied(gr_req_t *req, gr_AlterClientQuotasResponse_t *resp, const gr_quota_alter_t *a, size_t n) {
    resp->Entries.v = gr_req_alloc(req, &gr_AlterClientQuotasResponse_EntryData_sd, (int32_t)n);
    resp->Entries.n = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        entity_out(req, a[i].pairs, a[i].n_pairs, &resp->Entries.v[i]);
        resp->Entries.v[i].ErrorCode = GR_ERR_CLUSTER_AUTHORIZATION_FAILED;
        resp->Entries.v[i].ErrorMessage = gr_str_c("Cluster authorization failed.");
    }
    gr_req_respond(req, resp);
}

void gr_h_alter_client_quotas(gr_req_t *req) {
    const gr_AlterClientQuotasRequest_t *r = req->body;
    gr_AlterClientQuotasResponse_t *resp = gr_req_resp_new(req);
    size_t n, applied = 0;
    gr_quota_alter_t *a = read_alters(req, &n);
    if (!gr_req_allowed(req, GR_AZ_ALTER_CLIENT_QUOTAS, NULL)) {
        alter_denied(req, resp, a, n);
        return;
    }
    gr_quota_alter_validate(gr_broker_quota_store(req->b), a, n);
    for (size_t i = 0; i < n; i++) applied += a[i].applied;
    char why[512] = "";
    gr_err_t werr = applied && !r->ValidateOnly ? commit(req->b, a, n, why, sizeof(why)) : GR_ERR_NONE;
    if (werr) GR_ERROR("quota", "cannot store client quotas: %s", why);
    resp->Entries.v = gr_req_alloc(req, &gr_AlterClientQuotasResponse_EntryData_sd, (int32_t)n);
    resp->Entries.n = 0;
    for (size_t i = 0; i < n; i++) {
        if (!a[i].first) continue;
        a_entry_t *e = &resp->Entries.v[resp->Entries.n++];
        entity_out(req, a[i].map, a[i].n_map, e);
        bool failed = !a[i].error && werr && a[i].applied;
        e->ErrorCode = failed ? GR_ERR_UNKNOWN_SERVER_ERROR : a[i].error;
        e->ErrorMessage = failed       ? gr_req_msg(req, "%s", why)
                          : a[i].error ? gr_req_msg(req, "%s", a[i].message)
                                       : GR_STR_NULL;
    }
    gr_req_respond(req, resp);
}
