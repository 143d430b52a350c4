/* Topic administration: CreateTopics (19), DeleteTopics (20), CreatePartitions (37),
 * and topic creation for auto-creation (Metadata, Produce).
 *
 * Errors, their order and their messages follow Apache Kafka's KRaft controller
 * (ControllerApis + ReplicationControlManager, 4.3): per topic, the name is checked,
 * then existence, then the configs, then the partition count and replication factor
 * (or the manual assignment). This is a single node: the only valid replica list is
 * [node.id], and any replication factor above 1 gets Kafka's "cannot be reached"
 * answer. @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/uuid.h"
#include "broker/broker_int.h"
#include "broker/cgroup_coord.h"
#include "broker/dups.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

/* Kafka treats these as the coordinators' own topics: they are never auto-created
 * as plain topics. Their state lives in our coordinators, not in such topics. */
static bool is_internal(const char *name) {
    return !strcmp(name, "__consumer_offsets") || !strcmp(name, "__transaction_state") ||
           !strcmp(name, "__share_group_state");
}

/* The metadata half of a topic creation (no logs opened yet). */
static gr_err_t topic_create_meta(gr_broker_t *b, const char *name, int32_t partitions, const gr_props_t *configs,
                                  bool validate_only, const gr_meta_topic_t **out, char *errstr, size_t errstr_size) {
    *out = NULL;
    /* These names are the directories of the internal share-state and group stores. */
    if (!strcmp(name, "__share_group_state") || !strcmp(name, "__share_group_metadata") ||
        !strcmp(name, "__consumer_offsets")) {
        snprintf(errstr, errstr_size, "Topic name %s is reserved for internal use.", name);
        return GR_ERR_INVALID_TOPIC_EXCEPTION;
    }
    return gr_meta_topic_create(b->meta, name, partitions, configs, gr_clock_wall_ms(), validate_only, out, errstr,
                                errstr_size);
}

gr_err_t gr_broker_topic_create(gr_broker_t *b, const char *name, int32_t partitions, const gr_props_t *configs,
                                bool validate_only, const gr_meta_topic_t **out, char *errstr, size_t errstr_size) {
    const gr_meta_topic_t *t = NULL;
    if (out) *out = NULL;
    gr_err_t err = topic_create_meta(b, name, partitions, configs, validate_only, &t, errstr, errstr_size);
    if (err || validate_only) return err;
    err = gr_parts_add_topic(b->parts, t, gr_clock_wall_ms(), errstr, errstr_size);
    if (err) {
        /* No half-created topic: drop the logs opened so far and the meta entry. */
        GR_ERROR("topics", "creating the logs of topic %s failed: %s", name, errstr);
        char tmp[256];
        gr_uuid_t id = t->id;
        if (gr_parts_delete_topic(b->parts, &id, tmp, sizeof(tmp)))
            GR_ERROR("topics", "rolling back topic %s: %s", name, tmp);
        else if (gr_meta_topic_delete(b->meta, name, tmp, sizeof(tmp)))
            GR_ERROR("topics", "rolling back topic %s failed: %s", name, tmp);
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    GR_INFO("topics", "created topic %s with %d partition(s)", name, t->partitions);
    if (out) *out = t;
    return GR_ERR_NONE;
}

const gr_meta_topic_t *gr_broker_auto_create(gr_broker_t *b, const char *name, gr_err_t *err) {
    char errstr[256];
    const gr_meta_topic_t *t = gr_meta_topic_find(b->meta, name);
    *err = GR_ERR_NONE;
    if (t) return t;
    if (!b->cfg->auto_create_topics_enable || is_internal(name)) {
        *err = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        return NULL;
    }
    if ((*err = gr_meta_topic_name_validate(name, errstr, sizeof(errstr)))) return NULL;
    int64_t rf = gr_meta_broker_config_i64(b->meta, "default.replication.factor");
    if (rf != 1) {
        GR_WARN("topics", "cannot auto-create %s: default.replication.factor=%lld on a single node", name,
                (long long)rf);
        *err = GR_ERR_INVALID_REPLICATION_FACTOR;
        return NULL;
    }
    if (gr_parts_name_deleting(b->parts, name)) {
        /* A deleted topic of this name still has directories to remove: creating it now
         * would wait for all of them on the loop thread. Retriable, as for a topic whose
         * leader is not elected yet; the client asks again. */
        *err = GR_ERR_LEADER_NOT_AVAILABLE;
        return NULL;
    }
    *err = gr_broker_topic_create(b, name, -1, NULL, false, &t, errstr, sizeof(errstr));
    if (*err) {
        GR_WARN("topics", "auto-creating %s failed: %s", name, errstr);
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------------------ CreateTopics */

typedef gr_CreateTopicsRequest_CreatableTopic_t ct_t;
typedef gr_CreateTopicsResponse_CreatableTopicResult_t ctr_t;

static int i32_cmp(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Kafka's validateManualPartitionAssignment for one partition on a one-node cluster:
 * walking the sorted replica list, every id must be ours and appear once. */
static gr_err_t check_replicas(gr_req_t *req, const int32_t *ids, int32_t n, char *errstr, size_t sz) {
    int32_t node_id = gr_broker_node_id(req->b);
    if (n <= 0) {
        snprintf(errstr, sz, "The manual partition assignment includes an empty replica list.");
        return GR_ERR_INVALID_REPLICA_ASSIGNMENT;
    }
    int32_t *sorted = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*sorted));
    memcpy(sorted, ids, (size_t)n * sizeof(*sorted));
    qsort(sorted, (size_t)n, sizeof(*sorted), i32_cmp);
    for (int32_t i = 0; i < n; i++) {
        if (sorted[i] != node_id) {
            snprintf(errstr, sz,
                     "The manual partition assignment includes broker %d, but no such broker is "
                     "registered.",
                     sorted[i]);
            return GR_ERR_INVALID_REPLICA_ASSIGNMENT;
        }
        if (i > 0 && sorted[i] == sorted[i - 1]) {
            snprintf(errstr, sz, "The manual partition assignment includes the broker %d more than once.", node_id);
            return GR_ERR_INVALID_REPLICA_ASSIGNMENT;
        }
    }
    return GR_ERR_NONE;
}

/* A manual assignment: NumPartitions and ReplicationFactor must be -1, partition indexes
 * 0..n-1 each exactly once, each replica list [node id]. *count is the partition count. */
static gr_err_t check_assignment(gr_req_t *req, const ct_t *ct, int32_t *count, char *errstr, size_t sz) {
    int32_t n = ct->Assignments.n;
    if (ct->NumPartitions != -1) {
        snprintf(errstr, sz, "A manual partition assignment was specified, but numPartitions was not set to -1.");
        return GR_ERR_INVALID_REQUEST;
    }
    if (ct->ReplicationFactor != -1) {
        snprintf(errstr, sz, "A manual partition assignment was specified, but replicationFactor was not set to -1.");
        return GR_ERR_INVALID_REQUEST;
    }
    if (n > GR_META_MAX_PARTITIONS) {
        snprintf(errstr, sz, "Number of partitions %d exceeds the maximum of %d.", n, GR_META_MAX_PARTITIONS);
        return GR_ERR_INVALID_PARTITIONS;
    }
    uint8_t *seen = gr_arena_alloc(&req->arena, (size_t)n + 1);
    memset(seen, 0, (size_t)n + 1);
    for (int32_t i = 0; i < n; i++) {
        const gr_CreateTopicsRequest_CreatableReplicaAssignment_t *a = &ct->Assignments.v[i];
        int32_t p = a->PartitionIndex;
        if (p >= 0 && p < n && seen[p]) {
            snprintf(errstr, sz, "Found multiple manual partition assignments for partition %d", p);
            return GR_ERR_INVALID_REPLICA_ASSIGNMENT;
        }
        gr_err_t err = check_replicas(req, a->BrokerIds.v, a->BrokerIds.n, errstr, sz);
        if (err) return err;
        if (p < 0 || p >= n) {
            snprintf(errstr, sz, "partitions should be a consecutive 0-based integer sequence");
            return GR_ERR_INVALID_REPLICA_ASSIGNMENT;
        }
        seen[p] = 1;
    }
    *count = n;
    return GR_ERR_NONE;
}

/* Partition count and replication factor without a manual assignment. */
static gr_err_t check_counts(gr_req_t *req, const ct_t *ct, int32_t *count, char *errstr, size_t sz) {
    int32_t rf = ct->ReplicationFactor;
    if (rf < -1 || rf == 0) {
        snprintf(errstr, sz, "Replication factor must be larger than 0, or -1 to use the default value.");
        return GR_ERR_INVALID_REPLICATION_FACTOR;
    }
    if (ct->NumPartitions < -1 || ct->NumPartitions == 0) {
        snprintf(errstr, sz, "Number of partitions was set to an invalid non-positive value.");
        return GR_ERR_INVALID_PARTITIONS;
    }
    *count = ct->NumPartitions == -1 ? (int32_t)gr_meta_broker_config_i64(req->b->meta, "num.partitions")
                                     : ct->NumPartitions;
    if (rf == -1) rf = (int32_t)gr_meta_broker_config_i64(req->b->meta, "default.replication.factor");
    if (rf > 1) {
        snprintf(errstr, sz,
                 "Unable to replicate the partition %d time(s): The target replication factor of %d cannot be "
                 "reached because only 1 broker(s) are registered or some brokers have all their log directories "
                 "cordoned.",
                 rf, rf);
        return GR_ERR_INVALID_REPLICATION_FACTOR;
    }
    return GR_ERR_NONE;
}

/* The effective configs of a topic with these overrides, sorted by name, as Kafka's
 * controller lists them in a CreateTopics v5+ response. */
static int cfgdef_cmp(const void *a, const void *b) {
    return strcmp((*(const gr_cfgdef_t *const *)a)->name, (*(const gr_cfgdef_t *const *)b)->name);
}

static void fill_topic_configs(gr_req_t *req, ctr_t *res, const gr_props_t *overrides) {
    const gr_cfgdef_t *defs[512];
    size_t n = 0;
    for (size_t i = 0; i < gr_cfgdef_count() && n < sizeof(defs) / sizeof(defs[0]); i++)
        if (gr_cfgdef_at(i)->scope == GR_CFG_SCOPE_TOPIC) defs[n++] = gr_cfgdef_at(i);
    qsort(defs, n, sizeof(defs[0]), cfgdef_cmp);
    gr_cfg_layers_t layers;
    gr_meta_config_layers(req->b->meta, NULL, &layers);
    layers.topic = overrides;
    res->Configs.v = gr_req_alloc(req, &gr_CreateTopicsResponse_CreatableTopicConfigs_sd, (int32_t)n);
    res->Configs.n = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        gr_cfg_entry_t e;
        gr_cfg_describe(defs[i], &layers, &req->arena, &e);
        gr_CreateTopicsResponse_CreatableTopicConfigs_t *c = &res->Configs.v[i];
        c->Name = gr_str_c(defs[i]->name);
        c->Value = gr_req_str_copy(req, e.value);
        c->ReadOnly = e.read_only;
        c->ConfigSource = (int8_t)e.source;
        c->IsSensitive = e.is_sensitive;
    }
}

/* The request's configs as a map (null values were refused by create_one already). */
static void collect_configs(gr_req_t *req, const ct_t *ct, gr_props_t *props) {
    for (int32_t i = 0; i < ct->Configs.n; i++) {
        const gr_CreateTopicsRequest_CreatableTopicConfig_t *c = &ct->Configs.v[i];
        char *k = gr_req_cstr(req, c->Name);
        if (gr_str_is_null(c->Value))
            gr_props_unset(props, k);
        else
            gr_props_set(props, k, gr_req_cstr(req, c->Value), 0);
    }
}

static gr_err_t create_one(gr_req_t *req, const ct_t *ct, const char *name, bool validate_only, ctr_t *res,
                           char *errstr, size_t sz) {
    gr_broker_t *b = req->b;
    gr_err_t err = gr_meta_topic_name_validate(name, errstr, sz);
    if (err) return err;
    /* Kafka's controller refuses a null config value before it looks the topic up. */
    for (int32_t i = 0; i < ct->Configs.n; i++) {
        if (!gr_str_is_null(ct->Configs.v[i].Value)) continue;
        snprintf(errstr, sz, "Null value not supported for topic configs: %.*s", (int)ct->Configs.v[i].Name.len,
                 ct->Configs.v[i].Name.len > 0 ? ct->Configs.v[i].Name.ptr : "");
        return GR_ERR_INVALID_CONFIG;
    }
    if (gr_meta_topic_find(b->meta, name)) {
        snprintf(errstr, sz, "Topic '%s' already exists.", name);
        return GR_ERR_TOPIC_ALREADY_EXISTS;
    }
    gr_props_t props;
    gr_props_init(&props);
    collect_configs(req, ct, &props);
    int32_t count = 0;
    err = gr_cfg_validate_all(GR_CFG_SCOPE_TOPIC, &props, errstr, sz);
    if (!err && ct->Assignments.n > 0)
        err = check_assignment(req, ct, &count, errstr, sz);
    else if (!err)
        err = check_counts(req, ct, &count, errstr, sz);
    const gr_meta_topic_t *t = NULL;
    /* The logs are opened a few per loop iteration (topic_open.c); the answer waits for them. */
    if (!err) err = topic_create_meta(b, name, count, &props, validate_only, &t, errstr, sz);
    if (!err && t) {
        GR_INFO("topics", "created topic %s with %d partition(s)", name, t->partitions);
        gr_broker_topic_open_later(b, req, t, true, &res->ErrorCode, &res->ErrorMessage);
    }
    if (!err) {
        /* validate_only: Kafka answers a fresh random id that no topic gets. */
        res->TopicId = t ? t->id : gr_uuid_random();
        res->NumPartitions = count;
        res->ReplicationFactor = 1;
        /* The configs only for a principal that may DESCRIBE_CONFIGS the topic. */
        if (gr_req_allowed(req, GR_AZ_CREATE_TOPICS_CONFIGS, name))
            fill_topic_configs(req, res, &props);
        else
            res->TopicConfigErrorCode = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
    }
    gr_props_free(&props);
    return err;
}

/* Flags per entry: dup (the name appears more than once: Kafka answers such a name once,
 * with INVALID_REQUEST, and creates none of them) and later (not its first occurrence). */
static void name_dups(gr_req_t *req, const gr_str_t *names, size_t stride, int32_t n, bool **dup, bool **later) {
    gr_keyed_t *keys = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*keys) + 1);
    *dup = gr_arena_alloc(&req->arena, (size_t)n + 1);
    *later = gr_arena_alloc(&req->arena, (size_t)n + 1);
    for (int32_t i = 0; i < n; i++)
        keys[i] = (gr_keyed_t){0, *(const gr_str_t *)((const char *)names + (size_t)i * stride), i};
    gr_find_dups(keys, n, *dup, *later);
}

void gr_h_create_topics(gr_req_t *req) {
    gr_CreateTopicsRequest_t *r = req->body;
    gr_CreateTopicsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Topics.n > 0 ? r->Topics.n : 0;
    resp->Topics.v = gr_req_alloc(req, &gr_CreateTopicsResponse_CreatableTopicResult_sd, n);
    resp->Topics.n = 0;
    bool *dup, *later;
    name_dups(req, n ? &r->Topics.v[0].Name : NULL, sizeof(ct_t), n, &dup, &later);
    for (int32_t i = 0; i < n; i++) {
        const ct_t *ct = &r->Topics.v[i];
        if (later[i]) continue;
        ctr_t *res = &resp->Topics.v[resp->Topics.n++];
        res->Name = ct->Name;
        char errstr[512] = "";
        gr_err_t err;
        if (dup[i]) {
            err = GR_ERR_INVALID_REQUEST;
            snprintf(errstr, sizeof(errstr), "Duplicate topic name.");
        } else if (!gr_req_allowed(req, GR_AZ_CREATE_TOPICS_CLUSTER, NULL) &&
                   !gr_req_allowed(req, GR_AZ_CREATE_TOPICS, gr_req_cstr(req, ct->Name))) {
            err = GR_ERR_TOPIC_AUTHORIZATION_FAILED; /* CREATE on the cluster or on the topic */
            snprintf(errstr, sizeof(errstr), "Authorization failed.");
        } else {
            err = create_one(req, ct, gr_req_cstr(req, ct->Name), r->validateOnly, res, errstr, sizeof(errstr));
        }
        res->ErrorCode = (int16_t)err; /* a failed log open later overwrites both */
        res->ErrorMessage = err ? gr_req_msg(req, "%s", errstr) : GR_STR_NULL;
    }
    gr_broker_topic_respond_when_open(req, resp);
}

/* ------------------------------------------------------------------ DeleteTopics */

typedef gr_DeleteTopicsResponse_DeletableTopicResult_t dtr_t;

/* Parts first, then meta: if the metadata write fails the topic stays listed with no
 * logs (deleting again finishes the job); the other order could leave old log
 * directories behind that a later topic of the same name would pick up. The logs are
 * closed and their directories removed afterwards, a few per loop iteration
 * (topic_open.c); the tombstone finishes that after a restart. */
static gr_err_t delete_topic(gr_req_t *req, const gr_meta_topic_t *t, dtr_t *res) {
    char errstr[256];
    res->Name = gr_req_str_copy(req, t->name);
    res->TopicId = t->id;
    gr_uuid_t id = t->id;
    char *name = gr_arena_strndup(&req->arena, t->name, strlen(t->name));
    /* The tombstone first: a failure to write it changes nothing (KAFKA_STORAGE_ERROR). */
    gr_err_t err = gr_parts_delete_topic(req->b->parts, &id, errstr, sizeof(errstr));
    if (!err) {
        gr_share_on_topic_deleted(req->b, &id);   /* share state of every group, §6.6 */
        gr_cgroup_on_topic_deleted(req->b, name); /* committed offsets of consumer groups */
        err = gr_meta_topic_delete(req->b->meta, name, errstr, sizeof(errstr));
        gr_broker_topic_jobs_kick(req->b); /* the directories go a few per loop iteration */
    }
    if (err) {
        res->ErrorMessage = gr_req_msg(req, "%s", errstr);
        GR_ERROR("topics", "deleting topic %s: %s", name, errstr);
    } else {
        GR_INFO("topics", "deleted topic %s", name);
    }
    return err;
}

/* One entry: by name (v0-5, or v6 with a zero id) or by id (v6 with a null name). */
static void delete_entry(gr_req_t *req, gr_str_t name, const gr_uuid_t *id, bool by_id, dtr_t *res) {
    gr_broker_t *b = req->b;
    res->Name = name;
    res->TopicId = by_id ? *id : (gr_uuid_t){{0}};
    res->ErrorMessage = GR_STR_NULL;
    const gr_meta_topic_t *t;
    if (!b->cfg->delete_topic_enable) {
        bool old = req->hdr.api_version < 3;
        res->ErrorCode = old ? GR_ERR_INVALID_REQUEST : GR_ERR_TOPIC_DELETION_DISABLED;
        if (old) res->ErrorMessage = GR_STR("Topic deletion is disabled.");
        return;
    }
    if (by_id && gr_uuid_is_zero(id)) {
        res->ErrorCode = GR_ERR_INVALID_REQUEST;
        res->ErrorMessage = GR_STR("Attempt to find topic with invalid topicId AAAAAAAAAAAAAAAAAAAAAA");
        return;
    }
    /* Kafka's controller: without DELETE on the cluster, a name needs DESCRIBE to learn
     * whether it exists and DELETE to be deleted; an id that resolves needs DELETE (its
     * name is answered only if DESCRIBE-able). */
    bool cluster = gr_req_allowed(req, GR_AZ_DELETE_TOPICS_CLUSTER, NULL);
    if (!by_id && !cluster && !gr_req_allowed(req, GR_AZ_DELETE_TOPICS_DESCRIBE, gr_req_cstr(req, name))) {
        res->ErrorCode = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
        res->ErrorMessage = GR_STR("Topic authorization failed.");
        return;
    }
    t = by_id ? gr_meta_topic_find_id(b->meta, id) : gr_meta_topic_find(b->meta, gr_req_cstr(req, name));
    if (t && !cluster && !gr_req_allowed(req, GR_AZ_DELETE_TOPICS, t->name)) {
        res->ErrorCode = GR_ERR_TOPIC_AUTHORIZATION_FAILED;
        res->ErrorMessage = GR_STR("Topic authorization failed.");
        if (by_id)
            res->Name = gr_req_allowed(req, GR_AZ_DELETE_TOPICS_DESCRIBE, t->name) ? gr_str_c(t->name) : GR_STR_NULL;
        return;
    }
    if (!t) { /* Kafka's messages: the default texts of the two errors */
        res->ErrorCode = by_id ? GR_ERR_UNKNOWN_TOPIC_ID : GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        res->ErrorMessage = by_id ? GR_STR("This server does not host this topic ID.")
                                  : GR_STR("This server does not host this topic-partition.");
        return;
    }
    res->ErrorCode = (int16_t)delete_topic(req, t, res);
}

/* Duplicates: by-name entries by name, by-id entries by id (kind 1). */
static bool *delete_dups(gr_req_t *req, const gr_DeleteTopicsRequest_t *r, bool v6, int32_t n) {
    gr_keyed_t *keys = gr_arena_alloc(&req->arena, (size_t)n * sizeof(*keys) + 1);
    bool *dup = gr_arena_alloc(&req->arena, (size_t)n + 1);
    for (int32_t i = 0; i < n; i++) {
        gr_str_t name = v6 ? r->Topics.v[i].Name : r->TopicNames.v[i];
        bool by_id = v6 && gr_str_is_null(name);
        keys[i] = (gr_keyed_t){by_id, name, i};
        if (by_id) keys[i].s = (gr_str_t){(const char *)r->Topics.v[i].TopicId.b, 16};
    }
    gr_find_dups(keys, n, dup, NULL);
    return dup;
}

void gr_h_delete_topics(gr_req_t *req) {
    gr_DeleteTopicsRequest_t *r = req->body;
    gr_DeleteTopicsResponse_t *resp = gr_req_resp_new(req);
    bool v6 = req->hdr.api_version >= 6;
    int32_t n = v6 ? r->Topics.n : r->TopicNames.n;
    if (n < 0) n = 0;
    resp->Responses.v = gr_req_alloc(req, &gr_DeleteTopicsResponse_DeletableTopicResult_sd, n);
    resp->Responses.n = n;
    bool *dup = delete_dups(req, r, v6, n);
    for (int32_t i = 0; i < n; i++) {
        dtr_t *res = &resp->Responses.v[i];
        gr_str_t name = v6 ? r->Topics.v[i].Name : r->TopicNames.v[i];
        const gr_uuid_t *id = v6 ? &r->Topics.v[i].TopicId : NULL;
        bool by_id = v6 && gr_str_is_null(name);
        if (v6 && !by_id && !gr_uuid_is_zero(id)) {
            res->Name = name;
            res->TopicId = *id;
            res->ErrorCode = GR_ERR_INVALID_REQUEST;
            res->ErrorMessage = GR_STR("You may not specify both topic name and topic id.");
        } else if (dup[i]) {
            res->Name = name;
            if (by_id) res->TopicId = *id;
            res->ErrorCode = GR_ERR_INVALID_REQUEST;
            res->ErrorMessage = by_id ? GR_STR("Duplicate topic id.") : GR_STR("Duplicate topic name.");
        } else {
            delete_entry(req, name, id, by_id, res);
        }
    }
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ CreatePartitions */

typedef gr_CreatePartitionsRequest_CreatePartitionsTopic_t cpt_t;

/* Kafka checks the new count first, then that there is one assignment per new
 * partition, then each assignment. A null Assignments means "place them yourself". */
static gr_err_t grow_one(gr_req_t *req, const cpt_t *cp, bool validate_only, int16_t *err_code, gr_str_t *err_msg,
                         char *errstr, size_t sz) {
    gr_broker_t *b = req->b;
    char *name = gr_req_cstr(req, cp->Name);
    const gr_meta_topic_t *t = gr_meta_topic_find(b->meta, name);
    if (!t) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION; /* Kafka sends no message here */
    int32_t old = t->partitions;
    gr_err_t err = gr_meta_topic_add_partitions(b->meta, name, cp->Count, true, errstr, sz);
    if (err) return err;
    if (cp->Assignments.n >= 0) {
        int32_t additional = cp->Count - old;
        if (cp->Assignments.n != additional) {
            snprintf(errstr, sz,
                     "Attempted to add %d additional partition(s), but only %d assignment(s) were specified.",
                     additional, cp->Assignments.n);
            return GR_ERR_INVALID_REPLICA_ASSIGNMENT;
        }
        for (int32_t i = 0; i < cp->Assignments.n; i++) {
            const gr_CreatePartitionsRequest_CreatePartitionsAssignment_t *a = &cp->Assignments.v[i];
            if ((err = check_replicas(req, a->BrokerIds.v, a->BrokerIds.n, errstr, sz))) return err;
        }
    }
    if (validate_only) return GR_ERR_NONE;
    if ((err = gr_meta_topic_add_partitions(b->meta, name, cp->Count, false, errstr, sz))) return err;
    t = gr_meta_topic_find(b->meta, name);
    gr_broker_topic_open_later(b, req, t, false, err_code, err_msg); /* logs opened progressively */
    GR_INFO("topics", "topic %s grown from %d to %d partition(s)", name, old, cp->Count);
    return GR_ERR_NONE;
}

void gr_h_create_partitions(gr_req_t *req) {
    gr_CreatePartitionsRequest_t *r = req->body;
    gr_CreatePartitionsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Topics.n > 0 ? r->Topics.n : 0;
    resp->Results.v = gr_req_alloc(req, &gr_CreatePartitionsResponse_CreatePartitionsTopicResult_sd, n);
    resp->Results.n = 0;
    bool *dup, *later;
    name_dups(req, n ? &r->Topics.v[0].Name : NULL, sizeof(cpt_t), n, &dup, &later);
    for (int32_t i = 0; i < n; i++) {
        const cpt_t *cp = &r->Topics.v[i];
        if (later[i]) continue;
        gr_CreatePartitionsResponse_CreatePartitionsTopicResult_t *res = &resp->Results.v[resp->Results.n++];
        res->Name = cp->Name;
        char errstr[512] = "";
        gr_err_t err;
        if (dup[i]) {
            err = GR_ERR_INVALID_REQUEST;
            snprintf(errstr, sizeof(errstr), "Duplicate topic name.");
        } else if ((err = gr_req_authz_s(req, GR_AZ_CREATE_PARTITIONS, cp->Name))) {
            /* ALTER on the topic; Kafka sends no message */
        } else {
            err = grow_one(req, cp, r->ValidateOnly, &res->ErrorCode, &res->ErrorMessage, errstr, sizeof(errstr));
        }
        res->ErrorCode = (int16_t)err;
        res->ErrorMessage = err && errstr[0] ? gr_req_msg(req, "%s", errstr) : GR_STR_NULL;
    }
    gr_broker_topic_respond_when_open(req, resp);
}
