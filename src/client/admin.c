/* The admin client: construction, topics and partitions. Configs are in
 * admin_configs.c, groups in admin_groups.c. Every call is one or more blocking
 * request/response exchanges through gr__client_call. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/uuid.h"
#include "client/admin_int.h"
#include "proto_msgs.h"

gr_err_t gr_admin_new(const gr_conf_t *conf, gr_admin_t **out, char *errstr, size_t errstr_size) {
    if (!conf || !out) return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size, "conf and out must not be NULL");
    *out = NULL;
    if (gr_conf_scope(conf) != GR_CONF_ADMIN)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size, "gr_admin_new needs a GR_CONF_ADMIN configuration");
    gr_admin_t *a = calloc(1, sizeof(*a));
    if (!a) abort();
    gr_err_t err = gr__client_new(conf, &a->cl, errstr, errstr_size);
    if (err) {
        free(a);
        return err;
    }
    *out = a;
    return GR_ERR_NONE;
}

void gr_admin_destroy(gr_admin_t *a) {
    if (!a) return;
    gr__client_destroy(a->cl);
    free(a);
}

const char *gr_admin_last_error(const gr_admin_t *a) { return a->errbuf; }

int64_t gr__admin_deadline(gr_admin_t *a, int timeout_ms) {
    int64_t t = timeout_ms >= 0 ? timeout_ms : gr__conf_int(gr__client_conf(a->cl), GR__CP_DEFAULT_API_TIMEOUT_MS);
    return gr__client_tick(a->cl) + t;
}

static int32_t remaining_ms(gr_admin_t *a, int64_t deadline) {
    int64_t r = deadline - gr__client_tick(a->cl);
    return r < 0 ? 0 : r > INT32_MAX ? INT32_MAX : (int32_t)r;
}

/* Learn the brokers (Metadata without topics). */
gr_err_t gr__admin_learn_brokers(gr_admin_t *a, int64_t deadline) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_MetadataRequest_t rq;
    gr_struct_init(&gr_MetadataRequest_sd, &rq);
    rq.AllowAutoTopicCreation = false;
    void *resp;
    int16_t ver;
    gr_err_t err = gr__client_call(a->cl, INT32_MIN, GR_API_Metadata, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                                   sizeof(a->errbuf));
    if (!err) gr__meta_on_response(a->cl, ver, resp);
    gr_arena_free(&ar);
    return err;
}

static gr_err_t bad_args(gr_admin_t *a, const char *what) {
    return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "%s", what);
}

static const char *const topic_cols[] = {"topic", "error", "error_message", NULL};

/* ---- create topics ---- */

static const char *const create_cols[] = {"topic", "topic_id",      "partitions", "replication_factor",
                                          "error", "error_message", NULL};

static gr_admin_result_t *create_result(const gr_CreateTopicsResponse_t *rs) {
    gr_admin_result_t *r = gr__result_new(create_cols);
    for (int32_t i = 0; i < rs->Topics.n; i++) {
        const gr_CreateTopicsResponse_CreatableTopicResult_t *t = &rs->Topics.v[i];
        size_t row = gr__result_add_row(r);
        char id[23];
        gr_uuid_to_base64(&t->TopicId, id);
        gr__result_set_str(r, row, "topic", t->Name);
        gr__result_set_cstr(r, row, "topic_id", gr_uuid_is_zero(&t->TopicId) ? NULL : id);
        gr__result_set_int(r, row, "partitions", t->NumPartitions);
        gr__result_set_int(r, row, "replication_factor", t->ReplicationFactor);
        gr__result_set_error(r, row, t->ErrorCode, t->ErrorMessage);
    }
    return r;
}

gr_err_t gr_admin_create_topics(gr_admin_t *a, const char *const *names, size_t n, int32_t partitions, int16_t rf,
                                const char *const *configs, size_t n_configs, int flags, int timeout_ms,
                                gr_admin_result_t **res) {
    *res = NULL;
    if (!names || !n || (n_configs && !configs)) return bad_args(a, "create_topics: names (and configs) must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_CreateTopicsRequest_t rq;
    gr_struct_init(&gr_CreateTopicsRequest_sd, &rq);
    rq.Topics.n = (int32_t)n;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_CreateTopicsRequest_CreatableTopic_sd, rq.Topics.n);
    for (size_t i = 0; i < n; i++) {
        gr_CreateTopicsRequest_CreatableTopic_t *t = &rq.Topics.v[i];
        t->Name = gr_str_c(names[i]);
        t->NumPartitions = partitions;
        t->ReplicationFactor = rf;
        t->Configs.n = (int32_t)n_configs;
        t->Configs.v = gr_struct_alloc(&ar, &gr_CreateTopicsRequest_CreatableTopicConfig_sd, t->Configs.n);
        for (size_t k = 0; k < n_configs; k++) {
            t->Configs.v[k].Name = gr_str_c(configs[2 * k]);
            t->Configs.v[k].Value = gr_str_c(configs[2 * k + 1]);
        }
    }
    rq.timeoutMs = remaining_ms(a, deadline);
    rq.validateOnly = (flags & GR_ADMIN_VALIDATE_ONLY) != 0;
    void *resp;
    int16_t ver;
    gr_err_t err = gr__client_call(a->cl, INT32_MIN, GR_API_CreateTopics, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                                   sizeof(a->errbuf));
    if (!err) {
        *res = create_result(resp);
        err = gr__result_first_error(*res, "topic", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

/* ---- delete topics ---- */

gr_err_t gr_admin_delete_topics(gr_admin_t *a, const char *const *names, size_t n, int timeout_ms,
                                gr_admin_result_t **res) {
    *res = NULL;
    if (!names || !n) return bad_args(a, "delete_topics: names must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DeleteTopicsRequest_t rq;
    gr_struct_init(&gr_DeleteTopicsRequest_sd, &rq);
    rq.Topics.n = rq.TopicNames.n = (int32_t)n;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_DeleteTopicsRequest_DeleteTopicState_sd, (int32_t)n);
    rq.TopicNames.v = gr_arena_alloc(&ar, n * sizeof(gr_str_t));
    for (size_t i = 0; i < n; i++) rq.Topics.v[i].Name = rq.TopicNames.v[i] = gr_str_c(names[i]);
    rq.TimeoutMs = remaining_ms(a, deadline);
    void *resp;
    int16_t ver;
    gr_err_t err = gr__client_call(a->cl, INT32_MIN, GR_API_DeleteTopics, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                                   sizeof(a->errbuf));
    if (!err) {
        const gr_DeleteTopicsResponse_t *rs = resp;
        gr_admin_result_t *r = *res = gr__result_new(topic_cols);
        for (int32_t i = 0; i < rs->Responses.n; i++) {
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "topic", rs->Responses.v[i].Name);
            gr__result_set_error(r, row, rs->Responses.v[i].ErrorCode, rs->Responses.v[i].ErrorMessage);
        }
        err = gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

/* ---- create partitions ---- */

gr_err_t gr_admin_create_partitions(gr_admin_t *a, const char *const *names, size_t n, int32_t total_count, int flags,
                                    int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!names || !n) return bad_args(a, "create_partitions: names must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_CreatePartitionsRequest_t rq;
    gr_struct_init(&gr_CreatePartitionsRequest_sd, &rq);
    rq.Topics.n = (int32_t)n;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_CreatePartitionsRequest_CreatePartitionsTopic_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        rq.Topics.v[i].Name = gr_str_c(names[i]);
        rq.Topics.v[i].Count = total_count;
        rq.Topics.v[i].Assignments.n = -1;
    }
    rq.TimeoutMs = remaining_ms(a, deadline);
    rq.ValidateOnly = (flags & GR_ADMIN_VALIDATE_ONLY) != 0;
    void *resp;
    int16_t ver;
    gr_err_t err = gr__client_call(a->cl, INT32_MIN, GR_API_CreatePartitions, &rq, deadline, &ar, &resp, &ver,
                                   a->errbuf, sizeof(a->errbuf));
    if (!err) {
        const gr_CreatePartitionsResponse_t *rs = resp;
        gr_admin_result_t *r = *res = gr__result_new(topic_cols);
        for (int32_t i = 0; i < rs->Results.n; i++) {
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "topic", rs->Results.v[i].Name);
            gr__result_set_error(r, row, rs->Results.v[i].ErrorCode, rs->Results.v[i].ErrorMessage);
        }
        err = gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

/* ---- describe topics ---- */

static const char *const describe_cols[] = {"topic",  "topic_id",      "internal", "partition",
                                            "leader", "leader_epoch",  "replicas", "isr",
                                            "error",  "error_message", NULL};

static const char *id_list(gr_arena_t *ar, const int32_t *v, int32_t n) {
    char *s = gr_arena_alloc(ar, (size_t)(n > 0 ? n : 1) * 12 + 1);
    size_t off = 0;
    for (int32_t i = 0; i < n; i++) off += (size_t)sprintf(s + off, "%s%d", i ? "," : "", v[i]);
    return s;
}

static void describe_topic_rows(gr_admin_result_t *r, gr_arena_t *ar,
                                const gr_MetadataResponse_MetadataResponseTopic_t *t) {
    char id[23];
    gr_uuid_to_base64(&t->TopicId, id);
    int32_t n = t->Partitions.n > 0 ? t->Partitions.n : 1;
    for (int32_t i = 0; i < n; i++) {
        size_t row = gr__result_add_row(r);
        gr__result_set_str(r, row, "topic", t->Name);
        gr__result_set_cstr(r, row, "topic_id", gr_uuid_is_zero(&t->TopicId) ? NULL : id);
        gr__result_set_int(r, row, "internal", t->IsInternal);
        if (t->Partitions.n <= 0) {
            gr__result_set_int(r, row, "partition", -1);
            gr__result_set_error(r, row, t->ErrorCode, GR_STR_NULL);
            continue;
        }
        const gr_MetadataResponse_MetadataResponsePartition_t *p = &t->Partitions.v[i];
        gr__result_set_int(r, row, "partition", p->PartitionIndex);
        gr__result_set_int(r, row, "leader", p->LeaderId);
        gr__result_set_int(r, row, "leader_epoch", p->LeaderEpoch);
        gr__result_set_cstr(r, row, "replicas", id_list(ar, p->ReplicaNodes.v, p->ReplicaNodes.n));
        gr__result_set_cstr(r, row, "isr", id_list(ar, p->IsrNodes.v, p->IsrNodes.n));
        gr__result_set_error(r, row, t->ErrorCode ? t->ErrorCode : p->ErrorCode, GR_STR_NULL);
    }
}

gr_err_t gr_admin_describe_topics(gr_admin_t *a, const char *const *names, size_t n, int timeout_ms,
                                  gr_admin_result_t **res) {
    *res = NULL;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_MetadataRequest_t rq;
    gr_struct_init(&gr_MetadataRequest_sd, &rq);
    rq.AllowAutoTopicCreation = false;
    rq.Topics.n = n ? (int32_t)n : -1;
    rq.Topics.v = n ? gr_struct_alloc(&ar, &gr_MetadataRequest_MetadataRequestTopic_sd, (int32_t)n) : NULL;
    for (size_t i = 0; i < n; i++) rq.Topics.v[i].Name = gr_str_c(names[i]);
    void *resp;
    int16_t ver;
    gr_err_t err = gr__client_call(a->cl, INT32_MIN, GR_API_Metadata, &rq, deadline, &ar, &resp, &ver, a->errbuf,
                                   sizeof(a->errbuf));
    if (!err) {
        const gr_MetadataResponse_t *rs = resp;
        gr__meta_on_response(a->cl, ver, rs); /* learn the brokers */
        gr_admin_result_t *r = *res = gr__result_new(describe_cols);
        for (int32_t i = 0; i < rs->Topics.n; i++) describe_topic_rows(r, &ar, &rs->Topics.v[i]);
        err = gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}
