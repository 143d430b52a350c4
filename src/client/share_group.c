/* The share consumer's group membership (KIP-932, spec §4 and §8.2): FindCoordinator
 * (key type 0) for the group, ShareGroupHeartbeat (join with epoch 0 and the client's
 * member id, heartbeat every HeartbeatIntervalMs, rejoin on UNKNOWN_MEMBER_ID /
 * FENCED_MEMBER_EPOCH, leave with epoch -1), and the assignment: topic ids and
 * partitions, mapped to names and leaders through the metadata cache.
 * Nothing blocks here: each step sends a request when due and the callbacks move
 * the state on; gr__share_group_run is called from every I/O round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/uuid.h"
#include "client/share_int.h"
#include "proto_msgs.h"

/* ---- partitions ---- */

gr__spart_t *gr__share_part_get(gr_share_consumer_t *c, const gr_uuid_t *tid, int32_t partition, bool create) {
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->parts[i]->partition == partition && gr_uuid_eq(&c->parts[i]->topic_id, tid)) return c->parts[i];
    if (!create) return NULL;
    if (c->n_parts == c->cap_parts) {
        c->cap_parts = c->cap_parts ? c->cap_parts * 2 : 16;
        c->parts = realloc(c->parts, c->cap_parts * sizeof(*c->parts));
        if (!c->parts) abort();
    }
    gr__spart_t *part = calloc(1, sizeof(*part));
    if (!part) abort();
    part->topic_id = *tid;
    part->partition = partition;
    c->parts[c->n_parts++] = part;
    return part;
}

gr__spart_t *gr__share_part_by_name(gr_share_consumer_t *c, const char *topic, int32_t partition) {
    for (size_t i = 0; i < c->n_parts; i++) {
        gr__spart_t *part = c->parts[i];
        if (part->partition == partition && part->topic && !strcmp(part->topic, topic)) return part;
    }
    return NULL;
}

/* The topic name of a topic id, from the metadata of the subscribed topics. */
static bool resolve_name(gr_share_consumer_t *c, gr__spart_t *part) {
    for (size_t i = 0; i < c->n_topics; i++) {
        gr__mtopic_t *t = gr__client_topic(c->cl, c->topics[i]);
        if (t && gr_uuid_eq(&t->id, &part->topic_id)) {
            part->topic = strdup(t->name);
            if (!part->topic) abort();
            return true;
        }
    }
    return false;
}

int32_t gr__share_part_leader(gr_share_consumer_t *c, gr__spart_t *part) {
    if (!part->topic && !resolve_name(c, part)) {
        gr__client_request_metadata(c->cl);
        return -1;
    }
    gr__mtopic_t *t = gr__client_topic(c->cl, part->topic);
    if (!t) t = gr__client_want_topic(c->cl, part->topic);
    if (t->n_parts <= part->partition || t->parts[part->partition].leader < 0 ||
        !gr__client_node(c->cl, t->parts[part->partition].leader)) {
        gr__client_request_metadata(c->cl);
        return -1;
    }
    return t->parts[part->partition].leader;
}

/* ---- coordinator ---- */

static void retry_later(gr_share_consumer_t *c, int64_t *when) { *when = gr__client_now(c->cl) + c->retry_backoff_ms; }

static void on_find_coordinator(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp,
                                void *opaque) {
    gr_share_consumer_t *c = opaque;
    (void)cl;
    (void)errmsg;
    c->fc_inflight = false;
    if (err) {
        retry_later(c, &c->fc_next);
        return;
    }
    gr_str_t msg;
    int32_t id;
    gr_err_t code = gr__coord_from_answer(c->cl, ver, resp, &id, &msg);
    if (code == GR_ERR_GROUP_AUTHORIZATION_FAILED) {
        c->fatal = code;
        snprintf(c->fatal_msg, sizeof(c->fatal_msg), "Not authorized to access group %s", c->group_id);
        return;
    }
    if (code) {
        retry_later(c, &c->fc_next);
        return;
    }
    c->coord_id = id;
    c->hb_next = 0;
}

static void find_coordinator(gr_share_consumer_t *c) {
    if (c->fc_inflight || gr__client_now(c->cl) < c->fc_next) return;
    gr__node_t *node = gr__client_any_node(c->cl);
    if (!node) return;
    c->ever_ready = true;
    int16_t ver = gr__node_version(node, GR_API_FindCoordinator);
    if (ver < 0) return;
    gr_FindCoordinatorRequest_t rq;
    gr_struct_init(&gr_FindCoordinatorRequest_sd, &rq);
    gr_str_t key = gr_str_c(c->group_id);
    rq.Key = key;
    rq.KeyType = 0; /* GROUP: share consumers look up the group coordinator */
    rq.CoordinatorKeys.n = 1;
    rq.CoordinatorKeys.v = &key;
    if (gr__node_send(node, GR_API_FindCoordinator, ver, &rq, true, on_find_coordinator, c) == GR_ERR_NONE)
        c->fc_inflight = true;
}

/* ---- heartbeat ---- */

static void apply_assignment(gr_share_consumer_t *c, const gr_ShareGroupHeartbeatResponse_Assignment_t *as) {
    for (size_t i = 0; i < c->n_parts; i++) c->parts[i]->assigned = false;
    for (int32_t i = 0; i < as->TopicPartitions.n; i++) {
        const gr_ShareGroupHeartbeatResponse_TopicPartitions_t *tp = &as->TopicPartitions.v[i];
        for (int32_t k = 0; k < tp->Partitions.n; k++) {
            gr__spart_t *part = gr__share_part_get(c, &tp->TopicId, tp->Partitions.v[k], true);
            part->assigned = true;
            if (!part->topic) resolve_name(c, part);
        }
    }
}

static void heartbeat_error(gr_share_consumer_t *c, int16_t code, gr_str_t msg) {
    switch (code) {
    case GR_ERR_NOT_COORDINATOR:
    case GR_ERR_COORDINATOR_NOT_AVAILABLE:
        c->coord_id = -1;
        retry_later(c, &c->fc_next);
        return;
    case GR_ERR_COORDINATOR_LOAD_IN_PROGRESS: retry_later(c, &c->hb_next); return;
    case GR_ERR_UNKNOWN_MEMBER_ID:
    case GR_ERR_FENCED_MEMBER_EPOCH: /* rejoin with epoch 0 and the same member id */
        c->member_epoch = 0;
        c->send_full = true;
        c->hb_next = 0;
        return;
    default:
        c->fatal = (gr_err_t)code;
        snprintf(c->fatal_msg, sizeof(c->fatal_msg), "ShareGroupHeartbeat for group %s: %.*s", c->group_id,
                 msg.len > 0 ? (int)msg.len : (int)strlen(gr_err_str((gr_err_t)code)),
                 msg.len > 0 ? msg.ptr : gr_err_str((gr_err_t)code));
    }
}

static void on_heartbeat(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr_share_consumer_t *c = opaque;
    (void)cl, (void)errmsg, (void)ver;
    bool was_leave = c->leaving;
    c->hb_inflight = false;
    if (err) { /* transport: find the coordinator again */
        c->coord_id = -1;
        retry_later(c, &c->fc_next);
        return;
    }
    const gr_ShareGroupHeartbeatResponse_t *rs = resp;
    if (was_leave && (rs->ErrorCode == 0 || rs->ErrorCode == GR_ERR_UNKNOWN_MEMBER_ID)) {
        c->leaving = false;
        c->in_group = false;
        c->member_epoch = 0;
        c->send_full = true;
        for (size_t i = 0; i < c->n_parts; i++) c->parts[i]->assigned = false;
        return;
    }
    if (rs->ErrorCode) {
        heartbeat_error(c, rs->ErrorCode, rs->ErrorMessage);
        return;
    }
    c->member_epoch = rs->MemberEpoch;
    c->in_group = true;
    c->send_full = false;
    c->hb_interval_ms = rs->HeartbeatIntervalMs > 0 ? rs->HeartbeatIntervalMs : 5000;
    c->hb_next = gr__client_now(c->cl) + c->hb_interval_ms;
    if (rs->Assignment) apply_assignment(c, rs->Assignment);
}

static void send_heartbeat(gr_share_consumer_t *c, gr__node_t *node) {
    int16_t ver = gr__node_version(node, GR_API_ShareGroupHeartbeat);
    if (ver < 0) {
        c->fatal = GR_ERR_UNSUPPORTED_VERSION;
        snprintf(c->fatal_msg, sizeof(c->fatal_msg),
                 "broker %s does not support share groups (no ShareGroupHeartbeat v1)", gr__node_name(node));
        return;
    }
    gr_ShareGroupHeartbeatRequest_t rq;
    gr_struct_init(&gr_ShareGroupHeartbeatRequest_sd, &rq);
    rq.GroupId = gr_str_c(c->group_id);
    rq.MemberId = gr_str_c(c->member_id);
    rq.MemberEpoch = c->leaving ? -1 : c->member_epoch;
    bool full = !c->leaving && (c->send_full || c->member_epoch == 0);
    rq.RackId = full && *c->rack ? gr_str_c(c->rack) : GR_STR_NULL;
    gr_str_t names[64];
    gr_str_t *v = c->n_topics <= 64 ? names : malloc(c->n_topics * sizeof(gr_str_t));
    if (!v) abort();
    rq.SubscribedTopicNames.n = full ? (int32_t)c->n_topics : -1;
    rq.SubscribedTopicNames.v = v;
    for (size_t i = 0; full && i < c->n_topics; i++) v[i] = gr_str_c(c->topics[i]);
    if (gr__node_send(node, GR_API_ShareGroupHeartbeat, ver, &rq, true, on_heartbeat, c) == GR_ERR_NONE)
        c->hb_inflight = true;
    if (v != names) free(v);
}

void gr__share_group_run(gr_share_consumer_t *c) {
    if (c->fatal || c->hb_inflight) return;
    if (!c->leaving && !c->n_topics) return;
    if (c->leaving && !c->in_group) {
        c->leaving = false;
        return;
    }
    if (c->coord_id < 0) {
        find_coordinator(c);
        return;
    }
    bool due = c->leaving || c->send_full || c->member_epoch == 0 || gr__client_now(c->cl) >= c->hb_next;
    if (!due) return;
    gr__node_t *node = gr__client_node(c->cl, c->coord_id);
    if (!node) {
        c->coord_id = -1;
        return;
    }
    if (!gr__node_ready(node)) {
        gr__node_connect(node);
        return;
    }
    c->ever_ready = true;
    send_heartbeat(c, node);
}
