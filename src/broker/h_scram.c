/* DescribeUserScramCredentials (50) and AlterUserScramCredentials (51): the SCRAM
 * credentials kafka-configs --entity-type users manages. Kafka's validation and messages
 * (src/auth/scram_alter.c); an answer without errors means the change is on disk.
 * Describing needs DESCRIBE on the cluster, altering ALTER (Kafka's controller). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

typedef gr_DescribeUserScramCredentialsResponse_DescribeUserScramCredentialsResult_t describe_result_t;

static void describe_user(gr_req_t *req, const char *user, bool dup, describe_result_t *out) {
    const gr_scram_store_t *s = &req->b->scram;
    out->User = gr_str_c(user);
    if (dup) {
        out->ErrorCode = GR_ERR_DUPLICATE_RESOURCE;
        out->ErrorMessage =
            gr_req_msg(req, "Cannot describe SCRAM credentials for the same user twice in a single request: %s", user);
        return;
    }
    out->CredentialInfos.v = gr_req_alloc(req, &gr_DescribeUserScramCredentialsResponse_CredentialInfo_sd, 2);
    out->CredentialInfos.n = 0;
    for (int m = GR_SCRAM_SHA_256; m <= GR_SCRAM_SHA_512; m++) {
        const gr_scram_cred_t *c = gr_scram_store_get(s, user, (gr_scram_mech_t)m);
        if (!c) continue;
        out->CredentialInfos.v[out->CredentialInfos.n].Mechanism = (int8_t)m;
        out->CredentialInfos.v[out->CredentialInfos.n++].Iterations = c->iterations;
    }
    if (out->CredentialInfos.n == 0) {
        out->ErrorCode = GR_ERR_RESOURCE_NOT_FOUND;
        out->ErrorMessage = gr_req_msg(req, "Attempt to describe a user credential that does not exist: %s", user);
    }
}

static bool seen(char **names, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

/* Kafka's error answer: the code at the top and once per user asked for (its name left
 * empty). Kafka 4.4.0 never answers a denied request for every user (users null); we
 * answer it with no results (docs/compatibility.md). */
static void describe_denied(gr_req_t *req, gr_DescribeUserScramCredentialsResponse_t *resp, gr_err_t err) {
    const gr_DescribeUserScramCredentialsRequest_t *r = req->body;
    int32_t n = r->Users.n > 0 ? r->Users.n : 0;
    resp->ErrorCode = (int16_t)err;
    resp->ErrorMessage = GR_STR_NULL;
    resp->Results.v =
        gr_req_alloc(req, &gr_DescribeUserScramCredentialsResponse_DescribeUserScramCredentialsResult_sd, n);
    resp->Results.n = n;
    for (int32_t i = 0; i < n; i++) {
        resp->Results.v[i].User = gr_str_c("");
        resp->Results.v[i].ErrorCode = (int16_t)err;
        resp->Results.v[i].ErrorMessage = GR_STR_NULL;
    }
    gr_req_respond(req, resp);
}

void gr_h_describe_user_scram_credentials(gr_req_t *req) {
    const gr_DescribeUserScramCredentialsRequest_t *r = req->body;
    gr_DescribeUserScramCredentialsResponse_t *resp = gr_req_resp_new(req);
    const gr_scram_store_t *s = &req->b->scram;
    gr_err_t denied = gr_req_authz(req, GR_AZ_DESCRIBE_SCRAM, NULL);
    if (denied) {
        describe_denied(req, resp, denied);
        return;
    }
    bool all = r->Users.n <= 0;
    size_t cap = all ? s->n : (size_t)r->Users.n, n = 0;
    char **names = gr_arena_alloc(&req->arena, (cap + 1) * sizeof(char *));
    bool *dup = gr_arena_alloc(&req->arena, cap + 1);
    /* Unique names in first-seen order; a name asked for twice is answered once, as an error. */
    for (size_t i = 0; i < cap; i++) {
        char *name = all ? s->users[i] : gr_req_cstr(req, r->Users.v[i].Name);
        bool again = seen(names, n, name);
        if (again && !all)
            for (size_t k = 0; k < n; k++) dup[k] |= !strcmp(names[k], name);
        if (!again) dup[n] = false, names[n++] = name;
    }
    resp->Results.v =
        gr_req_alloc(req, &gr_DescribeUserScramCredentialsResponse_DescribeUserScramCredentialsResult_sd, (int32_t)n);
    resp->Results.n = (int32_t)n;
    for (size_t i = 0; i < n; i++) describe_user(req, names[i], dup[i], &resp->Results.v[i]);
    gr_req_respond(req, resp);
}

typedef gr_AlterUserScramCredentialsResponse_AlterUserScramCredentialsResult_t alter_result_t;

static gr_scram_alter_op_t *read_ops(gr_req_t *req, size_t *n) {
    const gr_AlterUserScramCredentialsRequest_t *r = req->body;
    size_t nd = r->Deletions.n > 0 ? (size_t)r->Deletions.n : 0, nu = r->Upsertions.n > 0 ? (size_t)r->Upsertions.n : 0;
    gr_scram_alter_op_t *ops = gr_arena_alloc(&req->arena, (nd + nu + 1) * sizeof(*ops));
    memset(ops, 0, (nd + nu + 1) * sizeof(*ops));
    for (size_t i = 0; i < nd; i++) {
        ops[i].user = gr_req_cstr(req, r->Deletions.v[i].Name);
        ops[i].mech = r->Deletions.v[i].Mechanism;
    }
    for (size_t i = 0; i < nu; i++) {
        const gr_AlterUserScramCredentialsRequest_ScramCredentialUpsertion_t *u = &r->Upsertions.v[i];
        gr_scram_alter_op_t *op = &ops[nd + i];
        op->user = gr_req_cstr(req, u->Name);
        op->mech = u->Mechanism;
        op->upsert = true;
        op->iterations = u->Iterations;
        op->salt = u->Salt.len > 0 ? u->Salt.ptr : NULL;
        op->salt_len = u->Salt.len > 0 ? (size_t)u->Salt.len : 0;
        op->salted = u->SaltedPassword.len > 0 ? u->SaltedPassword.ptr : NULL;
        op->salted_len = u->SaltedPassword.len > 0 ? (size_t)u->SaltedPassword.len : 0;
    }
    *n = nd + nu;
    return ops;
}

/* Apply to a copy, write it, and only then make it the store: a failed write changes nothing. */
static gr_err_t commit(gr_broker_t *b, const gr_scram_alter_op_t *ops, size_t n, char *why, size_t why_size) {
    gr_scram_store_t next;
    gr_scram_store_init(&next);
    for (size_t i = 0; i < b->scram.n; i++) gr_scram_store_put(&next, b->scram.users[i], &b->scram.creds[i]);
    gr_scram_alter_apply(&next, ops, n);
    gr_err_t err = gr_scram_store_save(&next, b->cfg->log_dir, why, why_size);
    if (err) {
        gr_scram_store_free(&next);
        return err;
    }
    gr_scram_store_free(&b->scram);
    b->scram = next;
    return GR_ERR_NONE;
}

static int cmp_user(const void *a, const void *b) {
    return strcmp(((const alter_result_t *)a)->User.ptr, ((const alter_result_t *)b)->User.ptr);
}

/* Kafka's error answer: every user named (once), sorted, with the error. */
static void alter_denied(gr_req_t *req, gr_AlterUserScramCredentialsResponse_t *resp, const gr_scram_alter_op_t *ops,
                         size_t n) {
    gr_str_t msg = gr_req_denied_msg(req, GR_AZ_ALTER_SCRAM);
    resp->Results.v =
        gr_req_alloc(req, &gr_AlterUserScramCredentialsResponse_AlterUserScramCredentialsResult_sd, (int32_t)n);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++) dup = !strcmp(resp->Results.v[j].User.ptr, ops[i].user);
        if (dup) continue;
        resp->Results.v[k].User = gr_str_c(ops[i].user);
        resp->Results.v[k].ErrorCode = GR_ERR_CLUSTER_AUTHORIZATION_FAILED;
        resp->Results.v[k++].ErrorMessage = msg;
    }
    qsort(resp->Results.v, k, sizeof(*resp->Results.v), cmp_user);
    resp->Results.n = (int32_t)k;
    gr_req_respond(req, resp);
}

void gr_h_alter_user_scram_credentials(gr_req_t *req) {
    gr_AlterUserScramCredentialsResponse_t *resp = gr_req_resp_new(req);
    size_t n, n_res = 0, applied = 0;
    gr_scram_alter_op_t *ops = read_ops(req, &n);
    if (!gr_req_allowed(req, GR_AZ_ALTER_SCRAM, NULL)) {
        alter_denied(req, resp, ops, n);
        return;
    }
    gr_scram_alter_validate(&req->b->scram, ops, n);
    for (size_t i = 0; i < n; i++) applied += ops[i].applied;
    char why[512] = "";
    gr_err_t werr = applied ? commit(req->b, ops, n, why, sizeof(why)) : GR_ERR_NONE;
    if (werr) GR_ERROR("sasl", "cannot store SCRAM credentials: %s", why);
    resp->Results.v =
        gr_req_alloc(req, &gr_AlterUserScramCredentialsResponse_AlterUserScramCredentialsResult_sd, (int32_t)n);
    /* Kafka lists deletions, then upsertions, then errors. */
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < n; i++) {
            const gr_scram_alter_op_t *op = &ops[i];
            if (!op->first_of_user || (pass == 2) != !op->applied || (op->applied && (pass == 1) != op->upsert))
                continue;
            alter_result_t *res = &resp->Results.v[n_res++];
            res->User = gr_str_c(op->user);
            res->ErrorCode = op->applied ? (int16_t)(werr ? GR_ERR_UNKNOWN_SERVER_ERROR : 0) : op->error;
            res->ErrorMessage = op->applied ? (werr ? gr_req_msg(req, "%s", why) : GR_STR_NULL)
                                            : (op->message ? gr_str_c(op->message) : GR_STR_NULL);
        }
    resp->Results.n = (int32_t)n_res;
    gr_req_respond(req, resp);
}
