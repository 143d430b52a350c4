/* DescribeShareGroupOffsets (90, v0-1), AlterShareGroupOffsets (91, v0) and
 * DeleteShareGroupOffsets (92, v0): spec §6.3-6.5. They read and replace the
 * persisted share state (share/state_store.h); in-memory share-partitions of the
 * group are dropped so they reload it (gr_share_drop_partitions).
 * @locality loop thread. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

static gr_str_t arena_cstr(gr_req_t *req, const char *s) {
    return gr_str_c(gr_arena_strndup(&req->arena, s, strlen(s)));
}

/* Kafka's Errors.message() for the codes these APIs put into ErrorMessage. */
static const char *err_msg(gr_err_t err) {
    switch (err) {
    case GR_ERR_UNKNOWN_TOPIC_OR_PARTITION: return "This server does not host this topic-partition.";
    case GR_ERR_INVALID_GROUP_ID: return "The configured groupId is invalid.";
    case GR_ERR_COORDINATOR_NOT_AVAILABLE: return "The coordinator is not available.";
    case GR_ERR_KAFKA_STORAGE_ERROR: return "Disk error when trying to access log file on the disk.";
    case GR_ERR_TOPIC_AUTHORIZATION_FAILED: return "Topic authorization failed.";
    case GR_ERR_GROUP_AUTHORIZATION_FAILED: return "Group authorization failed.";
    default: return gr_err_str(err);
    }
}

/* ------------------------------------------------------------------ DescribeShareGroupOffsets */

typedef gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_t dg_t;
typedef gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_t dt_t;
typedef gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_t dp_t;
typedef gr_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_t rg_t;

/* KIP-1226 lag = HWM - SPSO - deliveryCompleteCount, from the persisted state.
 * Also the gregor_share_partition_lag metric (share_metrics.c): one function, one value. */
gr_err_t gr_share_partition_lag(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition,
                                int64_t *start, int32_t *leader_epoch, int64_t *lag) {
    *start = -1;
    *leader_epoch = 0;
    *lag = GR_SHARE_LAG_UNKNOWN;
    gr_sstore_key_t key = gr_sstore_key(group, *topic_id, partition);
    gr_sstore_state_t st;
    if (!b->share.sstore || gr_sstore_read(b->share.sstore, &key, &st) || st.start_offset < 0) return GR_ERR_NONE;
    *start = st.start_offset;
    *leader_epoch = st.leader_epoch < 0 ? 0 : st.leader_epoch;
    if (st.delivery_complete_count < 0) return GR_ERR_NONE;
    gr_partition_t *p = gr_parts_find_id(b->parts, topic_id, partition);
    if (!p || p->offline) return p ? GR_ERR_KAFKA_STORAGE_ERROR : GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    int64_t l = gr_plog_end_offset(p->plog) - st.start_offset - st.delivery_complete_count;
    /* Unclamped, as Kafka 4.4.0: negative after AlterShareGroupOffsets beyond the high watermark. */
    *lag = l;
    return GR_ERR_NONE;
}

/* One partition from the persisted state. */
static void describe_partition(gr_req_t *req, const char *gid, const gr_meta_topic_t *t, int32_t index, dp_t *o) {
    o->PartitionIndex = index;
    o->StartOffset = -1;
    o->LeaderEpoch = 0;
    o->Lag = -1;
    if (!t) return;
    gr_err_t err = gr_share_partition_lag(req->b, gid, &t->id, index, &o->StartOffset, &o->LeaderEpoch, &o->Lag);
    if (o->Lag == GR_SHARE_LAG_UNKNOWN) o->Lag = -1;
    if (err) {
        o->ErrorCode = (int16_t)err;
        o->ErrorMessage = gr_str_c(err_msg(o->ErrorCode));
    }
}

static void describe_topic(gr_req_t *req, const char *gid, const char *name, const int32_t *parts, int32_t n, dt_t *o) {
    /* DESCRIBE on the topic, else each partition says TOPIC_AUTHORIZATION_FAILED. */
    gr_err_t denied = gr_req_authz(req, GR_AZ_DESCRIBE_SHARE_OFFSETS_TOPIC, name);
    const gr_meta_topic_t *t = denied ? NULL : gr_meta_topic_find(req->b->meta, name);
    o->TopicName = arena_cstr(req, name);
    if (t) o->TopicId = t->id;
    o->Partitions.v =
        gr_req_alloc(req, &gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_sd, n);
    o->Partitions.n = n;
    for (int32_t i = 0; i < n; i++) {
        describe_partition(req, gid, t, parts[i], &o->Partitions.v[i]);
        if (!denied) continue;
        o->Partitions.v[i].ErrorCode = (int16_t)denied;
        o->Partitions.v[i].ErrorMessage = gr_str_c(err_msg(denied));
    }
}

/* Null Topics: every initialized partition of the group (topics that still exist). */
static void describe_all(gr_req_t *req, const char *gid, dg_t *o) {
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char errstr[256] = "";
    gr_err_t err = gr_share_group_describe(req->b->share.groups, gid, false, &g, &st, errstr, sizeof(errstr));
    if (err == GR_ERR_GROUP_ID_NOT_FOUND && !gr_share_id_used_by_other_type(req->b, gid)) {
        o->Topics.n = 0; /* Kafka: an unknown group has no offsets, and that is not an error */
        return;
    }
    if (err) {
        o->ErrorCode = (int16_t)err;
        o->ErrorMessage = gr_req_msg(req, "%s", errstr);
        return;
    }
    const gr_sg_assignment_t *a = &g->initialized;
    o->Topics.v =
        gr_req_alloc(req, &gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_sd, a->n_topics);
    int32_t n = 0;
    for (int32_t i = 0; i < a->n_topics; i++) {
        const gr_meta_topic_t *t = gr_meta_topic_find_id(req->b->meta, &a->topics[i].topic_id);
        /* All offsets: only the topics the principal may DESCRIBE. */
        if (t && gr_req_allowed(req, GR_AZ_DESCRIBE_SHARE_OFFSETS_TOPIC, t->name))
            describe_topic(req, gid, t->name, a->topics[i].partitions, a->topics[i].n_partitions, &o->Topics.v[n++]);
    }
    o->Topics.n = n;
}

static void describe_group(gr_req_t *req, const rg_t *rg, dg_t *o) {
    char *gid = gr_req_cstr(req, rg->GroupId);
    o->GroupId = rg->GroupId;
    gr_err_t denied = gr_req_authz(req, GR_AZ_DESCRIBE_SHARE_OFFSETS, gid); /* DESCRIBE on the group */
    if (denied) {
        o->ErrorCode = (int16_t)denied;
        o->ErrorMessage = gr_str_c(err_msg(denied));
        return;
    }
    if (!*gid) {
        o->ErrorCode = GR_ERR_INVALID_GROUP_ID;
        o->ErrorMessage = gr_str_c(err_msg(GR_ERR_INVALID_GROUP_ID));
        return;
    }
    if (rg->Topics.n < 0) {
        describe_all(req, gid, o);
        return;
    }
    o->Topics.v = gr_req_alloc(req, &gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_sd,
                               rg->Topics.n);
    o->Topics.n = rg->Topics.n;
    for (int32_t i = 0; i < rg->Topics.n; i++) {
        const gr_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestTopic_t *rt = &rg->Topics.v[i];
        int32_t np = rt->Partitions.n > 0 ? rt->Partitions.n : 0;
        describe_topic(req, gid, gr_req_cstr(req, rt->TopicName), rt->Partitions.v, np, &o->Topics.v[i]);
    }
}

void gr_h_describe_share_group_offsets(gr_req_t *req) {
    gr_DescribeShareGroupOffsetsRequest_t *r = req->body;
    gr_DescribeShareGroupOffsetsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = r->Groups.n > 0 ? r->Groups.n : 0;
    resp->Groups.v =
        gr_req_alloc(req, &gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_sd, n);
    resp->Groups.n = n;
    for (int32_t i = 0; i < n; i++) describe_group(req, &r->Groups.v[i], &resp->Groups.v[i]);
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ AlterShareGroupOffsets */

typedef gr_AlterShareGroupOffsetsResponse_t ar_t;
typedef gr_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponsePartition_t ap_t;

static void alter_fix(gr_req_t *req, void *resp, gr_err_t err) {
    ar_t *r = resp;
    if (!err) return;
    r->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
    r->ErrorMessage = gr_str_c(err_msg(GR_ERR_COORDINATOR_NOT_AVAILABLE));
}

/* Shape the answer like the request; every partition gets err (0 for now). */
static void alter_shape(gr_req_t *req, const gr_AlterShareGroupOffsetsRequest_t *r, ar_t *resp, gr_err_t err,
                        const char *msg) {
    int32_t n = r->Topics.n > 0 ? r->Topics.n : 0;
    resp->Responses.v = gr_req_alloc(req, &gr_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponseTopic_sd, n);
    resp->Responses.n = n;
    for (int32_t i = 0; i < n; i++) {
        const gr_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestTopic_t *rt = &r->Topics.v[i];
        gr_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponseTopic_t *o = &resp->Responses.v[i];
        const gr_meta_topic_t *t = gr_meta_topic_find(req->b->meta, gr_req_cstr(req, rt->TopicName));
        int32_t np = rt->Partitions.n > 0 ? rt->Partitions.n : 0;
        o->TopicName = rt->TopicName;
        if (t) o->TopicId = t->id;
        o->Partitions.v =
            gr_req_alloc(req, &gr_AlterShareGroupOffsetsResponse_AlterShareGroupOffsetsResponsePartition_sd, np);
        o->Partitions.n = np;
        for (int32_t j = 0; j < np; j++) {
            o->Partitions.v[j].PartitionIndex = rt->Partitions.v[j].PartitionIndex;
            o->Partitions.v[j].ErrorCode = (int16_t)err;
            o->Partitions.v[j].ErrorMessage = err ? gr_str_c(msg) : GR_STR_NULL;
        }
    }
}

/* Re-initialize one share-partition at start_offset with a new state epoch (§6.4). */
static gr_err_t alter_partition(gr_req_t *req, const char *gid, const gr_meta_topic_t *t, int32_t index,
                                int64_t start_offset, gr_share_wait_t *w) {
    gr_broker_t *b = req->b;
    if (!t || index < 0 || index >= t->partitions) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    const gr_sg_group_t *g;
    gr_sg_state_t gst;
    char e[64];
    int32_t epoch = 0;
    if (!gr_share_group_describe(b->share.groups, gid, false, &g, &gst, e, sizeof(e))) epoch = g->group_epoch;
    gr_sstore_key_t key = gr_sstore_key(gid, t->id, index);
    gr_sstore_state_t cur;
    if (!gr_sstore_read(b->share.sstore, &key, &cur) && cur.state_epoch >= epoch) epoch = cur.state_epoch + 1;
    gr_share_wait_add(w);
    gr_err_t err = gr_sstore_initialize(b->share.sstore, &key, epoch, start_offset, gr_share_wait_cb, w);
    if (err) {
        gr_share_wait_cb(w, err);
        return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    }
    gr_share_drop_partitions(b, gid, &t->id, index);
    gr_sg_topic_parts_t tp = {t->id, &index, 1};
    gr_sg_assignment_t one = {&tp, 1};
    gr_share_group_mark_initialized(b->share.groups, gid, &one, NULL);
    return GR_ERR_NONE;
}

void gr_h_alter_share_group_offsets(gr_req_t *req) {
    gr_AlterShareGroupOffsetsRequest_t *r = req->body;
    ar_t *resp = gr_req_resp_new(req);
    char *gid = gr_req_cstr(req, r->GroupId);
    gr_share_wait_t *w = gr_share_wait_new(req, resp, alter_fix);
    gr_err_t top = GR_ERR_NONE;
    char msg[256] = "";
    if ((top = gr_req_authz(req, GR_AZ_ALTER_SHARE_OFFSETS, gid))) /* READ on the group */
        snprintf(msg, sizeof(msg), "%s", err_msg(top));
    else if (!*gid)
        top = GR_ERR_INVALID_GROUP_ID, snprintf(msg, sizeof(msg), "%s", err_msg(top));
    else if (gr_share_id_used_by_other_type(req->b, gid))
        top = GR_ERR_GROUP_ID_NOT_FOUND, snprintf(msg, sizeof(msg), "Group %s is not a share group.", gid);
    else if (gr_share_group_delete_check(req->b->share.groups, gid) == GR_ERR_NON_EMPTY_GROUP)
        top = GR_ERR_NON_EMPTY_GROUP, snprintf(msg, sizeof(msg), "The group is not empty.");
    else if (!gr_share_group_may_create(req->b, gid, msg, sizeof(msg)))
        top = GR_ERR_GROUP_MAX_SIZE_REACHED; /* group.share.max.groups, as for a heartbeat */
    /* Kafka 4.4.0 answers a non-empty group (68) and a group without READ (30) with the
     * top-level error and an empty Responses list; the other top-level errors list every
     * partition with it. */
    if (top != GR_ERR_NON_EMPTY_GROUP && top != GR_ERR_GROUP_AUTHORIZATION_FAILED) alter_shape(req, r, resp, top, msg);
    if (top) {
        resp->ErrorCode = (int16_t)top;
        resp->ErrorMessage = gr_req_msg(req, "%s", msg);
        gr_share_wait_arm(w);
        return;
    }
    bool created = false;
    gr_share_group_ensure(req->b->share.groups, gid, &created);
    for (int32_t i = 0; i < resp->Responses.n; i++) {
        const char *name = gr_req_cstr(req, r->Topics.v[i].TopicName);
        gr_err_t denied = gr_req_authz(req, GR_AZ_ALTER_SHARE_OFFSETS_TOPIC, name); /* READ on the topic */
        const gr_meta_topic_t *t = gr_meta_topic_find(req->b->meta, name);
        for (int32_t j = 0; j < resp->Responses.v[i].Partitions.n; j++) {
            const gr_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestPartition_t *rp =
                &r->Topics.v[i].Partitions.v[j];
            ap_t *o = &resp->Responses.v[i].Partitions.v[j];
            o->ErrorCode =
                (int16_t)(denied ? denied : alter_partition(req, gid, t, rp->PartitionIndex, rp->StartOffset, w));
            if (o->ErrorCode) o->ErrorMessage = gr_str_c(err_msg(o->ErrorCode));
        }
    }
    if (created) GR_INFO("share", "share group %s created by AlterShareGroupOffsets", gid);
    gr_share_persist(req->b, gid, w);
    gr_share_wait_arm(w);
}

/* ------------------------------------------------------------------ DeleteShareGroupOffsets */

typedef gr_DeleteShareGroupOffsetsResponse_t dr_t;

static void delete_fix(gr_req_t *req, void *resp, gr_err_t err) {
    dr_t *r = resp;
    if (!err) return;
    r->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
    r->ErrorMessage = gr_str_c(err_msg(GR_ERR_COORDINATOR_NOT_AVAILABLE));
}

static gr_err_t delete_precheck(gr_req_t *req, const char *gid, char *msg, size_t sz) {
    gr_err_t denied = gr_req_authz(req, GR_AZ_DELETE_SHARE_OFFSETS, gid); /* DELETE on the group */
    if (denied) {
        snprintf(msg, sz, "%s", err_msg(denied));
        return denied;
    }
    if (!*gid) {
        snprintf(msg, sz, "%s", err_msg(GR_ERR_INVALID_GROUP_ID));
        return GR_ERR_INVALID_GROUP_ID;
    }
    if (gr_share_id_used_by_other_type(req->b, gid)) {
        snprintf(msg, sz, "Group %s is not a share group.", gid);
        return GR_ERR_GROUP_ID_NOT_FOUND;
    }
    gr_err_t err = gr_share_group_delete_check(req->b->share.groups, gid);
    if (err == GR_ERR_GROUP_ID_NOT_FOUND) snprintf(msg, sz, "Group %s not found.", gid);
    if (err == GR_ERR_NON_EMPTY_GROUP) snprintf(msg, sz, "The group is not empty.");
    return err;
}

/* Forget one topic's share state in the group (§6.5). */
static gr_err_t delete_topic(gr_req_t *req, const char *gid, const gr_meta_topic_t *t, gr_share_wait_t *w) {
    gr_broker_t *b = req->b;
    if (!t) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    gr_share_wait_add(w);
    gr_err_t err = gr_sstore_delete_topic(b->share.sstore, gid, strlen(gid), t->id, NULL, gr_share_wait_cb, w);
    if (err) {
        gr_share_wait_cb(w, err);
        return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    }
    gr_share_drop_partitions(b, gid, &t->id, -1);
    gr_share_group_forget_topic(b->share.groups, gid, &t->id, NULL);
    return GR_ERR_NONE;
}

void gr_h_delete_share_group_offsets(gr_req_t *req) {
    gr_DeleteShareGroupOffsetsRequest_t *r = req->body;
    dr_t *resp = gr_req_resp_new(req);
    char *gid = gr_req_cstr(req, r->GroupId);
    gr_share_wait_t *w = gr_share_wait_new(req, resp, delete_fix);
    char msg[256] = "";
    gr_err_t top = delete_precheck(req, gid, msg, sizeof(msg));
    if (top) {
        resp->ErrorCode = (int16_t)top;
        resp->ErrorMessage = gr_req_msg(req, "%s", msg);
        gr_share_wait_arm(w);
        return;
    }
    int32_t n = r->Topics.n > 0 ? r->Topics.n : 0;
    resp->Responses.v =
        gr_req_alloc(req, &gr_DeleteShareGroupOffsetsResponse_DeleteShareGroupOffsetsResponseTopic_sd, n);
    resp->Responses.n = n;
    for (int32_t i = 0; i < n; i++) {
        gr_DeleteShareGroupOffsetsResponse_DeleteShareGroupOffsetsResponseTopic_t *o = &resp->Responses.v[i];
        const char *name = gr_req_cstr(req, r->Topics.v[i].TopicName);
        gr_err_t denied = gr_req_authz(req, GR_AZ_DELETE_SHARE_OFFSETS_TOPIC, name); /* READ on the topic */
        const gr_meta_topic_t *t = denied ? NULL : gr_meta_topic_find(req->b->meta, name);
        o->TopicName = r->Topics.v[i].TopicName;
        if (t) o->TopicId = t->id;
        o->ErrorCode = (int16_t)(denied ? denied : delete_topic(req, gid, t, w));
        if (o->ErrorCode) o->ErrorMessage = gr_str_c(err_msg(o->ErrorCode));
    }
    gr_share_persist(req->b, gid, w);
    gr_share_wait_arm(w);
}
