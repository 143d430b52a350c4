/* The admin client: client quotas (DescribeClientQuotas, AlterClientQuotas) and
 * SCRAM credentials (DescribeUserScramCredentials, AlterUserScramCredentials), to
 * any broker, as Kafka's Admin sends them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "auth/scram.h"
#include "client/admin_int.h"
#include "proto_msgs.h"

static const char *const quota_cols[] = {"user", "client_id", "ip", "user_default", "client_id_default", "ip_default",
                                         "key",  "value",     NULL};
static const char *const alter_cols[] = {
    "user", "client_id", "ip", "user_default", "client_id_default", "ip_default", "error", "error_message", NULL};
static const char *const scram_cols[] = {"user", "mechanism", "iterations", "error", "error_message", NULL};
static const char *const scram_alter_cols[] = {"user", "error", "error_message", NULL};

/* One call to any broker; *resp lives in ar. */
static gr_err_t call_any(gr_admin_t *a, int16_t api, void *rq, int timeout_ms, gr_arena_t *ar, void **resp) {
    int16_t ver;
    return gr__client_call(a->cl, INT32_MIN, api, rq, gr__admin_deadline(a, timeout_ms), ar, resp, &ver, a->errbuf,
                           sizeof(a->errbuf));
}

/* The shortest decimal text that reads back as v (Kafka's values are doubles). */
static void shortest_double(double v, char *out, size_t size) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

static const char *part_col(gr_str_t type, bool dflt) {
    static const char *const types[] = {"user", "client-id", "ip"};
    static const char *const names[] = {"user", "client_id", "ip"};
    static const char *const defaults[] = {"user_default", "client_id_default", "ip_default"};
    for (int i = 0; i < 3; i++)
        if (type.len == (int32_t)strlen(types[i]) && !memcmp(type.ptr, types[i], (size_t)type.len))
            return dflt ? defaults[i] : names[i];
    return NULL; /* a type this client does not know: left out */
}

static int8_t match_kind(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "exact")) return 0;
    if (!strcmp(s, "default")) return 1;
    if (!strcmp(s, "any")) return 2;
    return -1;
}

/* A new row for one entity, its *_default columns 0 until entity_part says otherwise. */
static size_t entity_row(gr_admin_result_t *r) {
    size_t row = gr__result_add_row(r);
    gr__result_set_int(r, row, "user_default", 0);
    gr__result_set_int(r, row, "client_id_default", 0);
    gr__result_set_int(r, row, "ip_default", 0);
    return row;
}

/* One part of an entity (user, client-id or ip): its name, or its *_default column for null. */
static void entity_part(gr_admin_result_t *r, size_t row, gr_str_t type, gr_str_t name) {
    const char *col = part_col(type, gr_str_is_null(name));
    if (!col) return;
    if (gr_str_is_null(name))
        gr__result_set_int(r, row, col, 1);
    else
        gr__result_set_str(r, row, col, name);
}

static void quota_rows(gr_admin_result_t *r, const gr_DescribeClientQuotasResponse_t *rs) {
    for (int32_t e = 0; e < rs->Entries.n; e++) {
        const gr_DescribeClientQuotasResponse_EntryData_t *en = &rs->Entries.v[e];
        for (int32_t k = 0; k < en->Values.n; k++) {
            size_t row = entity_row(r);
            for (int32_t p = 0; p < en->Entity.n; p++)
                entity_part(r, row, en->Entity.v[p].EntityType, en->Entity.v[p].EntityName);
            char num[40];
            shortest_double(en->Values.v[k].Value, num, sizeof(num));
            gr__result_set_str(r, row, "key", en->Values.v[k].Key);
            gr__result_set_cstr(r, row, "value", num);
        }
    }
}

gr_err_t gr_admin_describe_client_quotas(gr_admin_t *a, const char *const *filter, size_t n_filter, bool strict,
                                         int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    for (size_t i = 0; i < n_filter; i++)
        if (!filter[3 * i] || match_kind(filter[3 * i + 1]) < 0 ||
            (match_kind(filter[3 * i + 1]) == 0) != !!filter[3 * i + 2])
            return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                           "filter component %zu: expected an entity type, exact|default|any, and a name only "
                           "for exact",
                           i);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DescribeClientQuotasRequest_t rq;
    gr_struct_init(&gr_DescribeClientQuotasRequest_sd, &rq);
    rq.Components.n = (int32_t)n_filter;
    rq.Components.v = gr_struct_alloc(&ar, &gr_DescribeClientQuotasRequest_ComponentData_sd, (int32_t)n_filter);
    for (size_t i = 0; i < n_filter; i++) {
        rq.Components.v[i].EntityType = gr_str_c(filter[3 * i]);
        rq.Components.v[i].MatchType = match_kind(filter[3 * i + 1]);
        rq.Components.v[i].Match = filter[3 * i + 2] ? gr_str_c(filter[3 * i + 2]) : GR_STR_NULL;
    }
    rq.Strict = strict;
    void *resp;
    gr_err_t err = call_any(a, GR_API_DescribeClientQuotas, &rq, timeout_ms, &ar, &resp);
    if (!err) {
        const gr_DescribeClientQuotasResponse_t *rs = resp;
        if (rs->ErrorCode) {
            err = gr__fmt(rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "%.*s",
                          gr_str_is_null(rs->ErrorMessage) ? 0 : (int)rs->ErrorMessage.len, rs->ErrorMessage.ptr);
            if (!a->errbuf[0]) snprintf(a->errbuf, sizeof(a->errbuf), "%s", gr_err_str(rs->ErrorCode));
        } else {
            *res = gr__result_new(quota_cols);
            quota_rows(*res, rs);
        }
    }
    gr_arena_free(&ar);
    return err;
}

/* A quota value: a decimal number; NaN and infinities ("nan", "inf") go to the broker,
 * which judges them, as Kafka's Admin sends whatever double it is given. */
static bool parse_value(const char *s, double *out) {
    char *end;
    *out = strtod(s, &end);
    return *s && !*end;
}

/* The parts of the entity of one alteration into en (a part without a type: ""). */
static void fill_entity(gr_arena_t *ar, const gr_client_quota_alteration_t *x,
                        gr_AlterClientQuotasRequest_EntryData_t *en) {
    en->Entity.n = (int32_t)x->n_parts;
    en->Entity.v = gr_struct_alloc(ar, &gr_AlterClientQuotasRequest_EntityData_sd, (int32_t)x->n_parts);
    for (size_t i = 0; i < x->n_parts; i++) {
        en->Entity.v[i].EntityType = gr_str_c(x->parts[2 * i] ? x->parts[2 * i] : "");
        en->Entity.v[i].EntityName = x->parts[2 * i + 1] ? gr_str_c(x->parts[2 * i + 1]) : GR_STR_NULL;
    }
}

/* The operations of one alteration into en; an unparsable value is an error. */
static gr_err_t fill_ops(gr_admin_t *a, gr_arena_t *ar, const gr_client_quota_alteration_t *x,
                         gr_AlterClientQuotasRequest_EntryData_t *en) {
    en->Ops.n = (int32_t)x->n_ops;
    en->Ops.v = gr_struct_alloc(ar, &gr_AlterClientQuotasRequest_OpData_sd, (int32_t)x->n_ops);
    for (size_t i = 0; i < x->n_ops; i++) {
        const char *key = x->ops[2 * i] ? x->ops[2 * i] : "", *val = x->ops[2 * i + 1];
        en->Ops.v[i].Key = gr_str_c(key);
        en->Ops.v[i].Remove = val == NULL;
        if (val && !parse_value(val, &en->Ops.v[i].Value))
            return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                           "Cannot parse quota configuration value for %s: %s", key, val);
    }
    return GR_ERR_NONE;
}

/* One row per entity of the response: its parts (as describe's columns) and error. */
static gr_admin_result_t *alter_rows(const gr_AlterClientQuotasResponse_t *rs) {
    gr_admin_result_t *r = gr__result_new(alter_cols);
    for (int32_t e = 0; e < rs->Entries.n; e++) {
        const gr_AlterClientQuotasResponse_EntryData_t *en = &rs->Entries.v[e];
        size_t row = entity_row(r);
        for (int32_t p = 0; p < en->Entity.n; p++)
            entity_part(r, row, en->Entity.v[p].EntityType, en->Entity.v[p].EntityName);
        gr__result_set_error(r, row, en->ErrorCode, en->ErrorMessage);
    }
    return r;
}

gr_err_t gr_admin_alter_client_quotas_n(gr_admin_t *a, const gr_client_quota_alteration_t *alts, size_t n, int flags,
                                        int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_AlterClientQuotasRequest_t rq;
    gr_struct_init(&gr_AlterClientQuotasRequest_sd, &rq);
    rq.Entries.n = (int32_t)n;
    rq.Entries.v = gr_struct_alloc(&ar, &gr_AlterClientQuotasRequest_EntryData_sd, (int32_t)n);
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; i < n && !err; i++) {
        fill_entity(&ar, &alts[i], &rq.Entries.v[i]);
        err = fill_ops(a, &ar, &alts[i], &rq.Entries.v[i]);
    }
    rq.ValidateOnly = (flags & GR_ADMIN_VALIDATE_ONLY) != 0;
    void *resp;
    if (!err) err = call_any(a, GR_API_AlterClientQuotas, &rq, timeout_ms, &ar, &resp);
    if (!err) {
        *res = alter_rows(resp);
        for (size_t r = 0; r < gr_admin_result_rows(*res) && !err; r++)
            if ((err = gr_admin_result_error(*res, r))) {
                const char *m = gr_admin_result_str(*res, r, "error_message");
                snprintf(a->errbuf, sizeof(a->errbuf), "%s", m ? m : gr_err_str(err));
            }
    }
    gr_arena_free(&ar);
    return err;
}

gr_err_t gr_admin_alter_client_quotas(gr_admin_t *a, const char *const *parts, size_t n_parts, const char *const *ops,
                                      size_t n_ops, int flags, int timeout_ms, gr_admin_result_t **res) {
    gr_client_quota_alteration_t x = {parts, n_parts, ops, n_ops};
    return gr_admin_alter_client_quotas_n(a, &x, 1, flags, timeout_ms, res);
}

gr_err_t gr_admin_describe_user_scram_credentials(gr_admin_t *a, const char *const *users, size_t n, int timeout_ms,
                                                  gr_admin_result_t **res) {
    *res = NULL;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DescribeUserScramCredentialsRequest_t rq;
    gr_struct_init(&gr_DescribeUserScramCredentialsRequest_sd, &rq);
    rq.Users.n = n ? (int32_t)n : -1; /* null: every user */
    rq.Users.v = n ? gr_struct_alloc(&ar, &gr_DescribeUserScramCredentialsRequest_UserName_sd, (int32_t)n) : NULL;
    for (size_t i = 0; i < n; i++) rq.Users.v[i].Name = gr_str_c(users[i]);
    void *resp;
    gr_err_t err = call_any(a, GR_API_DescribeUserScramCredentials, &rq, timeout_ms, &ar, &resp);
    if (!err) {
        const gr_DescribeUserScramCredentialsResponse_t *rs = resp;
        if (rs->ErrorCode) {
            err = gr__fmt(rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "%s", gr_err_str(rs->ErrorCode));
        } else {
            gr_admin_result_t *r = *res = gr__result_new(scram_cols);
            for (int32_t i = 0; i < rs->Results.n; i++) {
                const gr_DescribeUserScramCredentialsResponse_DescribeUserScramCredentialsResult_t *u =
                    &rs->Results.v[i];
                int32_t rows = u->ErrorCode || u->CredentialInfos.n <= 0 ? 1 : u->CredentialInfos.n;
                for (int32_t k = 0; k < rows; k++) {
                    size_t row = gr__result_add_row(r);
                    gr__result_set_str(r, row, "user", u->User);
                    gr__result_set_error(r, row, u->ErrorCode, u->ErrorMessage);
                    if (u->ErrorCode || u->CredentialInfos.n <= 0) continue;
                    gr__result_set_cstr(r, row, "mechanism",
                                        gr_scram_mech_name((gr_scram_mech_t)u->CredentialInfos.v[k].Mechanism));
                    gr__result_set_int(r, row, "iterations", u->CredentialInfos.v[k].Iterations);
                }
            }
            err = gr__result_first_error(r, "user", a->errbuf, sizeof(a->errbuf));
        }
    }
    gr_arena_free(&ar);
    return err;
}

/* Fill one upsertion: a random salt and the salted password, both in the arena. */
static gr_err_t upsertion(gr_admin_t *a, gr_arena_t *ar, const gr_scram_alteration_t *x, gr_scram_mech_t m,
                          gr_AlterUserScramCredentialsRequest_ScramCredentialUpsertion_t *u) {
    int32_t it = x->iterations == -1 ? 4096 : x->iterations;
    uint8_t *salt = gr_arena_alloc(ar, 32), *salted = gr_arena_alloc(ar, GR_SCRAM_MAX_HASH);
    if (getrandom(salt, 32, 0) != 32)
        return gr__fmt(GR_ERR__IO, a->errbuf, sizeof(a->errbuf), "no random bytes for the salt");
    gr_scram_salted_password(m, x->password, strlen(x->password), salt, 32, it, salted);
    u->Name = gr_str_c(x->user);
    u->Mechanism = (int8_t)m;
    u->Iterations = it;
    u->Salt.ptr = salt;
    u->Salt.len = 32;
    u->SaltedPassword.ptr = salted;
    u->SaltedPassword.len = (int32_t)gr_scram_hash_len(m);
    return GR_ERR_NONE;
}

gr_err_t gr_admin_alter_user_scram_credentials(gr_admin_t *a, const gr_scram_alteration_t *alts, size_t n,
                                               int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_AlterUserScramCredentialsRequest_t rq;
    gr_struct_init(&gr_AlterUserScramCredentialsRequest_sd, &rq);
    rq.Upsertions.v =
        gr_struct_alloc(&ar, &gr_AlterUserScramCredentialsRequest_ScramCredentialUpsertion_sd, (int32_t)n);
    rq.Deletions.v = gr_struct_alloc(&ar, &gr_AlterUserScramCredentialsRequest_ScramCredentialDeletion_sd, (int32_t)n);
    rq.Upsertions.n = rq.Deletions.n = 0;
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; i < n && !err; i++) {
        const gr_scram_alteration_t *x = &alts[i];
        gr_scram_mech_t m = x->mechanism ? gr_scram_mech_from_name(x->mechanism) : GR_SCRAM_UNKNOWN;
        if (!x->user || m == GR_SCRAM_UNKNOWN)
            err = gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                          "a SCRAM credential needs a user and a mechanism (SCRAM-SHA-256 or SCRAM-SHA-512)");
        else if (x->password)
            err = upsertion(a, &ar, x, m, &rq.Upsertions.v[rq.Upsertions.n++]);
        else
            rq.Deletions.v[rq.Deletions.n].Name = gr_str_c(x->user),
            rq.Deletions.v[rq.Deletions.n++].Mechanism = (int8_t)m;
    }
    void *resp;
    if (!err) err = call_any(a, GR_API_AlterUserScramCredentials, &rq, timeout_ms, &ar, &resp);
    if (!err) {
        const gr_AlterUserScramCredentialsResponse_t *rs = resp;
        *res = gr__result_new(scram_alter_cols);
        for (int32_t i = 0; i < rs->Results.n; i++) {
            size_t row = gr__result_add_row(*res);
            gr__result_set_str(*res, row, "user", rs->Results.v[i].User);
            gr__result_set_error(*res, row, rs->Results.v[i].ErrorCode, rs->Results.v[i].ErrorMessage);
        }
        err = gr__result_first_error(*res, "user", a->errbuf, sizeof(a->errbuf));
    }
    for (int32_t i = 0; i < rq.Upsertions.n; i++) /* the salted passwords are secrets */
        memset((void *)rq.Upsertions.v[i].SaltedPassword.ptr, 0, GR_SCRAM_MAX_HASH);
    gr_arena_free(&ar);
    return err;
}
