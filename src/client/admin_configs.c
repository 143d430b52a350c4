/* The admin client: describe / alter / incremental-alter configs of topics,
 * brokers and groups. Broker resources go to that broker (as the Java Admin does);
 * the others to any broker. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/admin_int.h"
#include "proto_msgs.h"

static const char *const describe_cols[] = {"resource_type", "resource",  "name",  "value",         "source",
                                            "read_only",     "sensitive", "error", "error_message", NULL};
static const char *const alter_cols[] = {"resource_type", "resource", "error", "error_message", NULL};

/* Where a request about a resource goes: the broker itself, or any broker. */
static gr_err_t target_node(gr_admin_t *a, gr_resource_type_t type, const char *name, int64_t deadline, int32_t *node) {
    *node = INT32_MIN;
    if (type != GR_RESOURCE_BROKER || !*name) return GR_ERR_NONE;
    char *end;
    long id = strtol(name, &end, 10);
    if (*end || id < 0) return GR_ERR_NONE; /* let the broker say what is wrong */
    if (!gr__client_node(a->cl, (int32_t)id)) {
        gr_err_t err = gr__admin_learn_brokers(a, deadline);
        if (err) return err;
    }
    if (gr__client_node(a->cl, (int32_t)id)) *node = (int32_t)id;
    return GR_ERR_NONE;
}

static gr_err_t check_resource(gr_admin_t *a, gr_resource_type_t type, const char *name) {
    if (!name || (type != GR_RESOURCE_TOPIC && type != GR_RESOURCE_BROKER && type != GR_RESOURCE_GROUP))
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                       "a config resource needs a type (topic, broker or group) and a name");
    return GR_ERR_NONE;
}

static void describe_rows(gr_admin_result_t *r, const gr_DescribeConfigsResponse_DescribeConfigsResult_t *res) {
    int32_t n = res->ErrorCode || res->Configs.n <= 0 ? 1 : res->Configs.n;
    for (int32_t i = 0; i < n; i++) {
        size_t row = gr__result_add_row(r);
        gr__result_set_int(r, row, "resource_type", res->ResourceType);
        gr__result_set_str(r, row, "resource", res->ResourceName);
        gr__result_set_error(r, row, res->ErrorCode, res->ErrorMessage);
        if (res->ErrorCode || res->Configs.n <= 0) continue;
        const gr_DescribeConfigsResponse_DescribeConfigsResourceResult_t *c = &res->Configs.v[i];
        gr__result_set_str(r, row, "name", c->Name);
        gr__result_set_str(r, row, "value", c->Value);
        gr__result_set_int(r, row, "source", c->ConfigSource);
        gr__result_set_int(r, row, "read_only", c->ReadOnly);
        gr__result_set_int(r, row, "sensitive", c->IsSensitive);
    }
}

gr_err_t gr_admin_describe_configs(gr_admin_t *a, gr_resource_type_t type, const char *name, const char *const *keys,
                                   size_t n_keys, int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    gr_err_t err = check_resource(a, type, name);
    if (err) return err;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    int32_t node;
    if ((err = target_node(a, type, name, deadline, &node))) return err;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DescribeConfigsRequest_t rq;
    gr_struct_init(&gr_DescribeConfigsRequest_sd, &rq);
    rq.Resources.n = 1;
    rq.Resources.v = gr_struct_alloc(&ar, &gr_DescribeConfigsRequest_DescribeConfigsResource_sd, 1);
    rq.Resources.v[0].ResourceType = (int8_t)type;
    rq.Resources.v[0].ResourceName = gr_str_c(name);
    rq.Resources.v[0].ConfigurationKeys.n = keys && n_keys ? (int32_t)n_keys : -1;
    rq.Resources.v[0].ConfigurationKeys.v = keys && n_keys ? gr_arena_alloc(&ar, n_keys * sizeof(gr_str_t)) : NULL;
    for (size_t i = 0; keys && i < n_keys; i++) rq.Resources.v[0].ConfigurationKeys.v[i] = gr_str_c(keys[i]);
    void *resp;
    int16_t ver;
    err = gr__client_call(a->cl, node, GR_API_DescribeConfigs, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                          sizeof(a->errbuf));
    if (!err) {
        const gr_DescribeConfigsResponse_t *rs = resp;
        *res = gr__result_new(describe_cols);
        for (int32_t i = 0; i < rs->Results.n; i++) describe_rows(*res, &rs->Results.v[i]);
        err = gr__result_first_error(*res, "resource", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

static void alter_row(gr_admin_result_t *r, int8_t type, gr_str_t name, int16_t code, gr_str_t msg) {
    size_t row = gr__result_add_row(r);
    gr__result_set_int(r, row, "resource_type", type);
    gr__result_set_str(r, row, "resource", name);
    gr__result_set_error(r, row, code, msg);
}

gr_err_t gr_admin_alter_configs(gr_admin_t *a, gr_resource_type_t type, const char *name, const char *const *configs,
                                size_t n_configs, int flags, int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    gr_err_t err = check_resource(a, type, name);
    if (err) return err;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    int32_t node;
    if ((err = target_node(a, type, name, deadline, &node))) return err;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_AlterConfigsRequest_t rq;
    gr_struct_init(&gr_AlterConfigsRequest_sd, &rq);
    rq.Resources.n = 1;
    rq.Resources.v = gr_struct_alloc(&ar, &gr_AlterConfigsRequest_AlterConfigsResource_sd, 1);
    rq.Resources.v[0].ResourceType = (int8_t)type;
    rq.Resources.v[0].ResourceName = gr_str_c(name);
    rq.Resources.v[0].Configs.n = (int32_t)n_configs;
    rq.Resources.v[0].Configs.v = gr_struct_alloc(&ar, &gr_AlterConfigsRequest_AlterableConfig_sd, (int32_t)n_configs);
    for (size_t i = 0; i < n_configs; i++) {
        rq.Resources.v[0].Configs.v[i].Name = gr_str_c(configs[2 * i]);
        rq.Resources.v[0].Configs.v[i].Value = gr_str_c(configs[2 * i + 1]);
    }
    rq.ValidateOnly = (flags & GR_ADMIN_VALIDATE_ONLY) != 0;
    void *resp;
    int16_t ver;
    err = gr__client_call(a->cl, node, GR_API_AlterConfigs, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                          sizeof(a->errbuf));
    if (!err) {
        const gr_AlterConfigsResponse_t *rs = resp;
        *res = gr__result_new(alter_cols);
        for (int32_t i = 0; i < rs->Responses.n; i++)
            alter_row(*res, rs->Responses.v[i].ResourceType, rs->Responses.v[i].ResourceName,
                      rs->Responses.v[i].ErrorCode, rs->Responses.v[i].ErrorMessage);
        err = gr__result_first_error(*res, "resource", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

static int op_code(const char *op) {
    static const char *const ops[] = {"set", "delete", "append", "subtract"};
    for (int i = 0; i < 4; i++)
        if (op && !strcasecmp(op, ops[i])) return i;
    return -1;
}

gr_err_t gr_admin_incremental_alter_configs(gr_admin_t *a, gr_resource_type_t type, const char *name,
                                            const char *const *ops, size_t n_ops, int flags, int timeout_ms,
                                            gr_admin_result_t **res) {
    *res = NULL;
    gr_err_t err = check_resource(a, type, name);
    if (err) return err;
    for (size_t i = 0; i < n_ops; i++)
        if (op_code(ops[3 * i]) < 0 || !ops[3 * i + 1])
            return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf),
                           "operation %zu: expected set, delete, append or subtract with a config name", i);
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    int32_t node;
    if ((err = target_node(a, type, name, deadline, &node))) return err;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_IncrementalAlterConfigsRequest_t rq;
    gr_struct_init(&gr_IncrementalAlterConfigsRequest_sd, &rq);
    rq.Resources.n = 1;
    rq.Resources.v = gr_struct_alloc(&ar, &gr_IncrementalAlterConfigsRequest_AlterConfigsResource_sd, 1);
    rq.Resources.v[0].ResourceType = (int8_t)type;
    rq.Resources.v[0].ResourceName = gr_str_c(name);
    rq.Resources.v[0].Configs.n = (int32_t)n_ops;
    rq.Resources.v[0].Configs.v =
        gr_struct_alloc(&ar, &gr_IncrementalAlterConfigsRequest_AlterableConfig_sd, (int32_t)n_ops);
    for (size_t i = 0; i < n_ops; i++) {
        rq.Resources.v[0].Configs.v[i].ConfigOperation = (int8_t)op_code(ops[3 * i]);
        rq.Resources.v[0].Configs.v[i].Name = gr_str_c(ops[3 * i + 1]);
        rq.Resources.v[0].Configs.v[i].Value = ops[3 * i + 2] ? gr_str_c(ops[3 * i + 2]) : GR_STR_NULL;
    }
    rq.ValidateOnly = (flags & GR_ADMIN_VALIDATE_ONLY) != 0;
    void *resp;
    int16_t ver;
    err = gr__client_call(a->cl, node, GR_API_IncrementalAlterConfigs, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                          sizeof(a->errbuf));
    if (!err) {
        const gr_IncrementalAlterConfigsResponse_t *rs = resp;
        *res = gr__result_new(alter_cols);
        for (int32_t i = 0; i < rs->Responses.n; i++)
            alter_row(*res, rs->Responses.v[i].ResourceType, rs->Responses.v[i].ResourceName,
                      rs->Responses.v[i].ErrorCode, rs->Responses.v[i].ErrorMessage);
        err = gr__result_first_error(*res, "resource", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}
