/* OffsetCommit (8, v2-10), OffsetFetch (9, v1-10) and OffsetDelete (47, v0):
 * committed offsets of consumer groups (OffsetMetadataManager in Kafka 4.4.0).
 *
 * A commit is answered once its records are on disk (cstore + flusher); the offsets
 * become visible to OffsetFetch at that moment. Unknown topics and partitions answer
 * UNKNOWN_TOPIC_OR_PARTITION before the group is looked at, as KafkaApis does. A
 * share-group id answers GROUP_ID_NOT_FOUND to commits and deletes, and -1 offsets to
 * fetches (ShareGroup.validateOffset*).
 *
 * Authorization as KafkaApis: the group first (commit READ, fetch DESCRIBE, delete
 * DELETE), then each topic by name (commit and delete READ, fetch DESCRIBE); a denied
 * topic answers TOPIC_AUTHORIZATION_FAILED before it is known to exist or not.
 * @locality loop thread. */
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/metrics.h"
#include "broker/cgroup_coord.h"
#include "broker/handlers.h"
#include "broker/share_coord.h"
#include "proto_msgs.h"

typedef gr_OffsetCommitResponse_OffsetCommitResponsePartition_t ocp_t;

typedef struct commit_item {
    const char *topic;
    int32_t partition;
    gr_cg_offset_t o;
    ocp_t *out;
} commit_item_t;

typedef struct commit_ctx {
    gr_req_t *req;
    void *resp;
    const char *gid;
    commit_item_t *items;
    int32_t n;
} commit_ctx_t;

static bool partition_known(gr_broker_t *b, const char *topic, int32_t p) {
    const gr_meta_topic_t *t = gr_meta_topic_find(b->meta, topic);
    return t && p >= 0 && p < t->partitions;
}

static void commit_done(void *arg, gr_err_t err) {
    commit_ctx_t *c = arg;
    for (int32_t i = 0; i < c->n; i++) {
        if (err)
            c->items[i].out->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
        else
            gr_cg_offset_put(c->req->b->cgroup->reg, c->gid, c->items[i].topic, c->items[i].partition, &c->items[i].o);
    }
    if (err) GR_ERROR("cgroup", "offset commit for group %s not durable: %s", c->gid, gr_err_str(err));
    if (!err) GR_METRIC(c->req->b->cgroup->offset_commits += (uint64_t)c->n);
    gr_req_respond(c->req, c->resp);
}

/* The group check for the partitions that passed the topic check. */
static int16_t commit_group_check(gr_req_t *req, const gr_OffsetCommitRequest_t *r, const char *gid) {
    if (*gid && gr_share_group_exists(req->b->share.groups, gid)) return GR_ERR_GROUP_ID_NOT_FOUND;
    bool created;
    int32_t gen = req->hdr.api_version >= 1 ? r->GenerationIdOrMemberEpoch : -1;
    return gr_cg_commit_check(req->b->cgroup->reg, gid, gr_req_cstr(req, r->MemberId),
                              gr_str_is_null(r->GroupInstanceId) ? NULL : gr_req_cstr(req, r->GroupInstanceId), gen,
                              req->hdr.api_version, gr_clock_wall_ms(), &created);
}

void gr_h_offset_commit(gr_req_t *req) {
    gr_OffsetCommitRequest_t *r = req->body;
    gr_broker_t *b = req->b;
    gr_OffsetCommitResponse_t *resp = gr_req_resp_new(req);
    char *gid = gr_req_cstr(req, r->GroupId);
    int64_t now = gr_clock_wall_ms();
    int32_t nt = r->Topics.n > 0 ? r->Topics.n : 0, total = 0, valid = 0;
    for (int32_t i = 0; i < nt; i++) total += r->Topics.v[i].Partitions.n > 0 ? r->Topics.v[i].Partitions.n : 0;
    commit_ctx_t *c = gr_arena_alloc(&req->arena, sizeof(*c));
    *c = (commit_ctx_t){.req = req, .resp = resp, .gid = gid};
    c->items = gr_arena_alloc(&req->arena, sizeof(*c->items) * ((size_t)total + 1));
    bool v10 = req->hdr.api_version >= 10;
    gr_err_t gdenied = gr_req_authz(req, GR_AZ_OFFSET_COMMIT, gid); /* every partition answers it */
    char **names = gr_arena_alloc(&req->arena, sizeof(char *) * ((size_t)nt + 1));
    resp->Topics.v = gr_req_alloc(req, &gr_OffsetCommitResponse_OffsetCommitResponseTopic_sd, nt);
    resp->Topics.n = nt;
    for (int32_t i = 0; i < nt; i++) {
        gr_OffsetCommitRequest_OffsetCommitRequestTopic_t *t = &r->Topics.v[i];
        int32_t np = t->Partitions.n > 0 ? t->Partitions.n : 0;
        /* v10 names topics by id (KIP-848): resolved here, unknown ids answer UNKNOWN_TOPIC_ID. */
        const gr_meta_topic_t *mt = v10 ? gr_meta_topic_find_id(b->meta, &t->TopicId) : NULL;
        char *topic =
            v10 ? (mt ? gr_arena_strndup(&req->arena, mt->name, strlen(mt->name)) : NULL) : gr_req_cstr(req, t->Name);
        names[i] = topic;
        resp->Topics.v[i].Name = t->Name;
        resp->Topics.v[i].TopicId = t->TopicId;
        resp->Topics.v[i].Partitions.v =
            gr_req_alloc(req, &gr_OffsetCommitResponse_OffsetCommitResponsePartition_sd, np);
        resp->Topics.v[i].Partitions.n = np;
        gr_err_t terr = gdenied  ? gdenied
                        : !topic ? GR_ERR_UNKNOWN_TOPIC_ID
                                 : gr_req_authz(req, GR_AZ_OFFSET_COMMIT_TOPIC, topic);
        for (int32_t j = 0; j < np; j++) {
            ocp_t *o = &resp->Topics.v[i].Partitions.v[j];
            gr_OffsetCommitRequest_OffsetCommitRequestPartition_t *p = &t->Partitions.v[j];
            o->PartitionIndex = p->PartitionIndex;
            if (terr || !partition_known(b, topic, p->PartitionIndex)) {
                o->ErrorCode = (int16_t)(terr ? terr : GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            valid++;
            o->ErrorCode = -1; /* decided below */
        }
    }
    int16_t gerr = valid ? commit_group_check(req, r, gid) : 0;
    int64_t expire = req->hdr.api_version <= 4 && r->RetentionTimeMs != -1 ? now + r->RetentionTimeMs : -1;
    for (int32_t i = 0; i < nt; i++) {
        gr_OffsetCommitRequest_OffsetCommitRequestTopic_t *t = &r->Topics.v[i];
        for (int32_t j = 0; j < resp->Topics.v[i].Partitions.n; j++) {
            ocp_t *o = &resp->Topics.v[i].Partitions.v[j];
            gr_OffsetCommitRequest_OffsetCommitRequestPartition_t *p = &t->Partitions.v[j];
            if (o->ErrorCode != -1) continue;
            if (gerr) {
                o->ErrorCode = gerr;
            } else if (!gr_str_is_null(p->CommittedMetadata) &&
                       p->CommittedMetadata.len > b->cgroup->metadata_max_bytes) {
                o->ErrorCode = GR_ERR_OFFSET_METADATA_TOO_LARGE;
            } else {
                o->ErrorCode = 0;
                commit_item_t *it = &c->items[c->n++];
                it->topic = names[i];
                it->partition = p->PartitionIndex;
                it->o = (gr_cg_offset_t){p->CommittedOffset, req->hdr.api_version >= 6 ? p->CommittedLeaderEpoch : -1,
                                         gr_req_cstr(req, p->CommittedMetadata), now, expire};
                it->out = o;
                gr_cgroup_offset_record(b, gid, it->topic, it->partition, &it->o);
            }
        }
    }
    if (c->n == 0) {
        gr_req_respond(req, resp);
        return;
    }
    gr_err_t err = gr_cstore_commit(b->cgroup->store, commit_done, c);
    if (err) commit_done(c, err);
}

/* ------------------------------------------------------------------ OffsetFetch */

typedef gr_OffsetFetchResponse_OffsetFetchResponseGroup_t ofg_t;
typedef gr_OffsetFetchResponse_OffsetFetchResponsePartitions_t ofp_t;

static void put_part(gr_req_t *req, ofp_t *o, int32_t partition, const gr_cg_offset_t *off) {
    o->PartitionIndex = partition;
    o->CommittedOffset = off ? off->offset : -1;
    o->CommittedLeaderEpoch = off ? off->leader_epoch : -1;
    o->Metadata = gr_str_c(off ? gr_arena_strndup(&req->arena, off->metadata, strlen(off->metadata)) : "");
}

typedef struct all_ctx {
    gr_req_t *req;
    ofg_t *g;
} all_ctx_t;

/* Topics null: every committed offset of the group, grouped by topic (sorted); the
 * topics the principal may not DESCRIBE are left out. */
static void all_one(void *arg, const char *topic, int32_t partition, const gr_cg_offset_t *o) {
    all_ctx_t *a = arg;
    ofg_t *g = a->g;
    if (!gr_req_allowed(a->req, GR_AZ_OFFSET_FETCH_TOPIC, topic)) return;
    gr_OffsetFetchResponse_OffsetFetchResponseTopics_t *t = g->Topics.n ? &g->Topics.v[g->Topics.n - 1] : NULL;
    if (!t || !gr_str_eq_c(t->Name, topic)) {
        t = &g->Topics.v[g->Topics.n++];
        t->Name = gr_str_c(gr_arena_strndup(&a->req->arena, topic, strlen(topic)));
        const gr_meta_topic_t *mt = gr_meta_topic_find(a->req->b->meta, topic);
        if (mt) t->TopicId = mt->id;
        t->Partitions.v = gr_req_alloc(a->req, &gr_OffsetFetchResponse_OffsetFetchResponsePartitions_sd, 0);
    }
    /* Grow by copying: the arena has no realloc, and groups are small. */
    ofp_t *nv = gr_req_alloc(a->req, &gr_OffsetFetchResponse_OffsetFetchResponsePartitions_sd, t->Partitions.n + 1);
    if (t->Partitions.n) memcpy(nv, t->Partitions.v, sizeof(*nv) * (size_t)t->Partitions.n);
    t->Partitions.v = nv;
    put_part(a->req, &t->Partitions.v[t->Partitions.n++], partition, o);
}

typedef struct req_topic {
    gr_str_t name;
    gr_uuid_t id;
    const int32_t *parts;
    int32_t n;
} req_topic_t;

static void cnt_one(void *arg, const char *t, int32_t p, const gr_cg_offset_t *o) {
    (void)t, (void)p, (void)o;
    (*(int32_t *)arg)++;
}

static const char *topic_of_id(gr_broker_t *b, const gr_uuid_t *id) {
    const gr_meta_topic_t *t = gr_meta_topic_find_id(b->meta, id);
    return t ? t->name : NULL;
}

/* Kafka's groupError: from v2 the group's code alone; v1 has no group-level code, so
 * each partition asked for carries it. */
static void group_error(gr_req_t *req, const req_topic_t *ts, int32_t nt, gr_err_t err, ofg_t *g) {
    g->ErrorCode = (int16_t)err;
    g->Topics.n = 0;
    if (req->hdr.api_version >= 2) return;
    g->Topics.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponseTopics_sd, nt);
    g->Topics.n = nt;
    for (int32_t i = 0; i < nt; i++) {
        gr_OffsetFetchResponse_OffsetFetchResponseTopics_t *t = &g->Topics.v[i];
        t->Name = ts[i].name;
        t->Partitions.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponsePartitions_sd, ts[i].n);
        t->Partitions.n = ts[i].n;
        for (int32_t j = 0; j < ts[i].n; j++) {
            put_part(req, &t->Partitions.v[j], ts[i].parts[j], NULL);
            t->Partitions.v[j].ErrorCode = (int16_t)err;
        }
    }
}

/* Named topics: the offsets of those the principal may DESCRIBE, in request order, then
 * (as KafkaApis appends them) the unknown topic ids and the denied topics. */
static void fetch_named(gr_req_t *req, const char *gid, bool visible, const req_topic_t *ts, int32_t nt, ofg_t *g) {
    gr_broker_t *b = req->b;
    bool by_id = req->hdr.api_version >= 10;
    bool stable = req->hdr.api_version >= 7 && ((gr_OffsetFetchRequest_t *)req->body)->RequireStable;
    g->Topics.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponseTopics_sd, nt);
    g->Topics.n = nt;
    int32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < nt; i++) {
            const char *topic = by_id ? topic_of_id(b, &ts[i].id) : gr_req_cstr(req, ts[i].name);
            gr_err_t err = !topic ? GR_ERR_UNKNOWN_TOPIC_ID : gr_req_authz(req, GR_AZ_OFFSET_FETCH_TOPIC, topic);
            if ((pass == 0) != (err == GR_ERR_NONE)) continue;
            gr_OffsetFetchResponse_OffsetFetchResponseTopics_t *t = &g->Topics.v[k++];
            t->Name = ts[i].name;
            t->TopicId = ts[i].id;
            t->Partitions.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponsePartitions_sd, ts[i].n);
            t->Partitions.n = ts[i].n;
            for (int32_t j = 0; j < ts[i].n; j++) {
                /* require_stable (v7+): an offset pending in a transaction is not answered. */
                bool unstable = !err && stable && gr_cg_txn_pending(b->cgroup->reg, gid, topic, ts[i].parts[j]);
                put_part(req, &t->Partitions.v[j], ts[i].parts[j],
                         visible && !err && !unstable ? gr_cg_offset_get(b->cgroup->reg, gid, topic, ts[i].parts[j])
                                                      : NULL);
                t->Partitions.v[j].ErrorCode = (int16_t)(unstable ? GR_ERR_UNSTABLE_OFFSET_COMMIT : err);
            }
        }
}

/* member_id / member_epoch: v9+ (NULL / -1 before): a consumer-protocol group checks them
 * (ConsumerGroup.validateOffsetFetch: UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH). */
static void fetch_group(gr_req_t *req, gr_str_t gid_s, const req_topic_t *ts, int32_t nt, bool all,
                        const char *member_id, int32_t member_epoch, ofg_t *g) {
    gr_broker_t *b = req->b;
    char *gid = gr_req_cstr(req, gid_s);
    g->GroupId = gid_s;
    gr_err_t denied = gr_req_authz(req, GR_AZ_OFFSET_FETCH, gid); /* DESCRIBE on the group, first */
    if (denied || !*gid) {
        group_error(req, ts, nt, denied ? denied : GR_ERR_INVALID_GROUP_ID, g);
        return;
    }
    gr_err_t merr = gr_cgc_fetch_check(b->cgroup->reg, gid, member_id, member_epoch);
    if (merr) {
        group_error(req, ts, nt, merr, g);
        return;
    }
    bool visible = gr_cg_fetch_visible(b->cgroup->reg, gid);
    if (!all) {
        fetch_named(req, gid, visible, ts, nt, g);
        return;
    }
    int32_t n = 0;
    if (visible) gr_cg_offsets_foreach(b->cgroup->reg, gid, cnt_one, &n);
    g->Topics.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponseTopics_sd, n);
    g->Topics.n = 0;
    all_ctx_t a = {req, g};
    if (visible) gr_cg_offsets_foreach(b->cgroup->reg, gid, all_one, &a);
}

/* v1-7: one group, answered in the top-level Topics (and ErrorCode from v2). */
static void fetch_v1_7(gr_req_t *req, gr_OffsetFetchRequest_t *r, gr_OffsetFetchResponse_t *resp) {
    int32_t nt = r->Topics.n > 0 ? r->Topics.n : 0;
    req_topic_t *ts = gr_arena_alloc(&req->arena, sizeof(*ts) * ((size_t)nt + 1));
    for (int32_t i = 0; i < nt; i++)
        ts[i] = (req_topic_t){r->Topics.v[i].Name,
                              {{0}},
                              r->Topics.v[i].PartitionIndexes.v,
                              r->Topics.v[i].PartitionIndexes.n > 0 ? r->Topics.v[i].PartitionIndexes.n : 0};
    ofg_t g;
    memset(&g, 0, sizeof(g));
    fetch_group(req, r->GroupId, ts, nt, r->Topics.n < 0, NULL, -1, &g);
    resp->ErrorCode = g.ErrorCode;
    resp->Topics.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponseTopic_sd, g.Topics.n);
    resp->Topics.n = g.Topics.n;
    for (int32_t i = 0; i < g.Topics.n; i++) {
        resp->Topics.v[i].Name = g.Topics.v[i].Name;
        int32_t np = g.Topics.v[i].Partitions.n;
        resp->Topics.v[i].Partitions.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponsePartition_sd, np);
        resp->Topics.v[i].Partitions.n = np;
        for (int32_t j = 0; j < np; j++) {
            gr_OffsetFetchResponse_OffsetFetchResponsePartition_t *o = &resp->Topics.v[i].Partitions.v[j];
            const ofp_t *s = &g.Topics.v[i].Partitions.v[j];
            o->PartitionIndex = s->PartitionIndex;
            o->CommittedOffset = s->CommittedOffset;
            o->CommittedLeaderEpoch = s->CommittedLeaderEpoch;
            o->Metadata = s->Metadata;
            o->ErrorCode = s->ErrorCode;
        }
    }
}

void gr_h_offset_fetch(gr_req_t *req) {
    gr_OffsetFetchRequest_t *r = req->body;
    gr_OffsetFetchResponse_t *resp = gr_req_resp_new(req);
    if (req->hdr.api_version < 8) {
        fetch_v1_7(req, r, resp);
        gr_req_respond(req, resp);
        return;
    }
    int32_t ng = r->Groups.n > 0 ? r->Groups.n : 0;
    resp->Groups.v = gr_req_alloc(req, &gr_OffsetFetchResponse_OffsetFetchResponseGroup_sd, ng);
    resp->Groups.n = ng;
    for (int32_t k = 0; k < ng; k++) {
        gr_OffsetFetchRequest_OffsetFetchRequestGroup_t *gq = &r->Groups.v[k];
        int32_t nt = gq->Topics.n > 0 ? gq->Topics.n : 0;
        req_topic_t *ts = gr_arena_alloc(&req->arena, sizeof(*ts) * ((size_t)nt + 1));
        for (int32_t i = 0; i < nt; i++)
            ts[i] = (req_topic_t){gq->Topics.v[i].Name, gq->Topics.v[i].TopicId, gq->Topics.v[i].PartitionIndexes.v,
                                  gq->Topics.v[i].PartitionIndexes.n > 0 ? gq->Topics.v[i].PartitionIndexes.n : 0};
        bool v9 = req->hdr.api_version >= 9;
        const char *mid = v9 && !gr_str_is_null(gq->MemberId) ? gr_req_cstr(req, gq->MemberId) : NULL;
        fetch_group(req, gq->GroupId, ts, nt, gq->Topics.n < 0, mid, v9 ? gq->MemberEpoch : -1, &resp->Groups.v[k]);
    }
    gr_req_respond(req, resp);
}

/* ------------------------------------------------------------------ OffsetDelete */

static void delete_done(void *arg, gr_err_t err) {
    gr_req_t *req = arg;
    gr_OffsetDeleteResponse_t *resp = req->park;
    if (err) resp->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
    gr_req_respond(req, resp);
}

/* The group-level answer (the code alone, no topics): DELETE on the group first. */
static int16_t delete_group_check(gr_req_t *req, const char *gid) {
    gr_err_t denied = gr_req_authz(req, GR_AZ_OFFSET_DELETE, gid);
    if (denied) return (int16_t)denied;
    if (!*gid) return GR_ERR_INVALID_GROUP_ID;
    if (gr_share_group_exists(req->b->share.groups, gid)) return GR_ERR_GROUP_ID_NOT_FOUND;
    return gr_cg_offset_delete_check(req->b->cgroup->reg, gid);
}

void gr_h_offset_delete(gr_req_t *req) {
    gr_OffsetDeleteRequest_t *r = req->body;
    gr_broker_t *b = req->b;
    gr_OffsetDeleteResponse_t *resp = gr_req_resp_new(req);
    char *gid = gr_req_cstr(req, r->GroupId);
    resp->ErrorCode = delete_group_check(req, gid);
    if (resp->ErrorCode) {
        gr_req_respond(req, resp);
        return;
    }
    int32_t nt = r->Topics.n > 0 ? r->Topics.n : 0;
    bool write = false;
    resp->Topics.v = gr_req_alloc(req, &gr_OffsetDeleteResponse_OffsetDeleteResponseTopic_sd, nt);
    resp->Topics.n = nt;
    for (int32_t i = 0; i < nt; i++) {
        char *topic = gr_req_cstr(req, r->Topics.v[i].Name);
        int32_t np = r->Topics.v[i].Partitions.n > 0 ? r->Topics.v[i].Partitions.n : 0;
        gr_err_t denied = gr_req_authz(req, GR_AZ_OFFSET_DELETE_TOPIC, topic);
        bool subscribed = gr_cg_subscribed_to(b->cgroup->reg, gid, topic);
        resp->Topics.v[i].Name = r->Topics.v[i].Name;
        resp->Topics.v[i].Partitions.v =
            gr_req_alloc(req, &gr_OffsetDeleteResponse_OffsetDeleteResponsePartition_sd, np);
        resp->Topics.v[i].Partitions.n = np;
        for (int32_t j = 0; j < np; j++) {
            int32_t p = r->Topics.v[i].Partitions.v[j].PartitionIndex;
            resp->Topics.v[i].Partitions.v[j].PartitionIndex = p;
            if (denied) {
                resp->Topics.v[i].Partitions.v[j].ErrorCode = (int16_t)denied;
            } else if (!partition_known(b, topic, p)) {
                resp->Topics.v[i].Partitions.v[j].ErrorCode = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
            } else if (subscribed) {
                resp->Topics.v[i].Partitions.v[j].ErrorCode = GR_ERR_GROUP_SUBSCRIBED_TO_TOPIC;
            } else if (gr_cg_offset_delete(b->cgroup->reg, gid, topic, p)) {
                gr_cgroup_offset_record(b, gid, topic, p, NULL);
                write = true;
            }
        }
    }
    if (!write) {
        gr_req_respond(req, resp);
        return;
    }
    req->park = resp;
    gr_err_t err = gr_cstore_commit(b->cgroup->store, delete_done, req);
    if (err) delete_done(req, err);
}
