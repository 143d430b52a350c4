/* The KIP-848 consumer group protocol (group.protocol=consumer): ConsumerGroupHeartbeat.
 *
 * The member id is made here (a random UUID, as the Java client does since version 1 of
 * the request); epoch 0 joins. Every heartbeat carries the whole state: subscription
 * (names or SubscribedTopicRegex), the rebalance timeout, the server assignor and the
 * partitions owned (by topic id). The coordinator answers the member epoch, the
 * heartbeat interval and, when it changed, the target assignment by topic id; once
 * the ids are known as names the assignment is reconciled at once (revoked partitions
 * are committed and given up, new ones start from their committed offset) and the next
 * heartbeat, sent right away, acknowledges it by listing the partitions now owned.
 * UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH: the partitions are lost, rejoin with epoch 0.
 * Leaving sends epoch -1 (-2 for a static member, which keeps its assignment for
 * session timeout). */
#include <stdlib.h>
#include <string.h>

#include "client/consumer_int.h"
#include "proto_msgs.h"

/* The target assignment in names, or false while some topic id is not known yet. */
static bool target_names(gr_consumer_t *c, gr__tplist_t *out) {
    gr__cgroup_t *g = &c->g;
    for (size_t i = 0; i < g->n_tgt; i++) {
        const char *name;
        if (!gr__cg_id_name(c, &g->tgt_ids[i], &name)) {
            gr__tplist_clear(out);
            return false;
        }
        gr__tplist_add(out, name, strlen(name), g->tgt_parts[i]);
    }
    gr__tplist_sort(out);
    return true;
}

/* A regex subscription learns topic names from the cluster's topic list. */
static void learn_ids(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    char **names;
    gr_uuid_t *ids;
    size_t n;
    int64_t deadline = gr__client_tick(c->cl) + 5000;
    if (gr__cg_all_topics(c, deadline, &names, &ids, &n)) {
        c->errbuf[0] = 0;
        return;
    }
    for (size_t i = 0; i < g->n_tgt; i++) {
        const char *name;
        if (gr__cg_id_name(c, &g->tgt_ids[i], &name)) continue;
        for (size_t k = 0; k < n; k++) {
            if (!gr_uuid_eq(&ids[k], &g->tgt_ids[i])) continue;
            g->topics = realloc(g->topics, (g->n_topics + 1) * sizeof(char *));
            if (!g->topics || !(g->topics[g->n_topics++] = strdup(names[k]))) abort();
            gr__client_want_topic(c->cl, names[k]);
        }
    }
    gr__client_request_metadata(c->cl);
    gr__cg_free_names(names, n);
    free(ids);
}

static void reconcile(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    gr__tplist_t target = {0};
    if (!target_names(c, &target)) {
        int64_t now = gr__client_now(c->cl);
        if (g->regex && now >= g->learn_next) { /* at most once a second: each is a blocking Metadata */
            g->learn_next = now + 1000;
            learn_ids(c);
        }
        gr__client_request_metadata(c->cl);
        return;
    }
    g->have_target = false;
    gr__cg_set_assignment(c, &target);
    gr__tplist_free(&target);
    g->ack = true;
    g->hb_next = 0;
}

static void keep_target(gr__cgroup_t *g, const gr_ConsumerGroupHeartbeatResponse_Assignment_t *as) {
    size_t n = 0;
    for (int32_t i = 0; i < as->TopicPartitions.n; i++) n += (size_t)as->TopicPartitions.v[i].Partitions.n;
    g->tgt_ids = realloc(g->tgt_ids, (n ? n : 1) * sizeof(gr_uuid_t));
    g->tgt_parts = realloc(g->tgt_parts, (n ? n : 1) * sizeof(int32_t));
    if (!g->tgt_ids || !g->tgt_parts) abort();
    g->n_tgt = 0;
    for (int32_t i = 0; i < as->TopicPartitions.n; i++)
        for (int32_t k = 0; k < as->TopicPartitions.v[i].Partitions.n; k++) {
            g->tgt_ids[g->n_tgt] = as->TopicPartitions.v[i].TopicId;
            g->tgt_parts[g->n_tgt++] = as->TopicPartitions.v[i].Partitions.v[k];
        }
    g->have_target = true;
}

static void rejoin(gr_consumer_t *c) {
    c->g.lose_pending = true;
    c->g.epoch = 0;
    c->g.have_target = false;
    c->g.hb_next = 0;
}

static void heartbeat_error(gr_consumer_t *c, int16_t code, gr_str_t msg) {
    gr__cgroup_t *g = &c->g;
    if (gr__cg_coord_error(code)) {
        gr__cg_coord_lost(c);
    } else if (code == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS) {
        g->hb_next = gr__client_now(c->cl) + g->backoff;
    } else if (code == GR_ERR_UNKNOWN_MEMBER_ID || code == GR_ERR_FENCED_MEMBER_EPOCH) {
        rejoin(c);
    } else {
        gr__cg_fail(c, (gr_err_t)code, "ConsumerGroupHeartbeat for group %s: %.*s", g->group_id,
                    msg.len > 0 ? (int)msg.len : (int)strlen(gr_err_str((gr_err_t)code)),
                    msg.len > 0 ? msg.ptr : gr_err_str((gr_err_t)code));
    }
}

static void on_heartbeat(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr_consumer_t *c = opaque;
    gr__cgroup_t *g = &c->g;
    (void)cl, (void)errmsg, (void)ver;
    g->hb_inflight = false;
    if (g->closing) return;
    if (err) {
        gr__cg_coord_lost(c);
        return;
    }
    const gr_ConsumerGroupHeartbeatResponse_t *rs = resp;
    if (rs->ErrorCode) {
        heartbeat_error(c, rs->ErrorCode, rs->ErrorMessage);
        return;
    }
    if (rs->MemberId.len > 0 && !gr_str_eq_c(rs->MemberId, g->member_id)) {
        free(g->member_id);
        g->member_id = strndup(rs->MemberId.ptr, (size_t)rs->MemberId.len);
        if (!g->member_id) abort();
    }
    g->epoch = rs->MemberEpoch;
    g->last_ok = gr__client_now(c->cl);
    if (rs->HeartbeatIntervalMs > 0) g->hb_interval = rs->HeartbeatIntervalMs;
    g->hb_next = g->last_ok + g->hb_interval;
    if (rs->Assignment) keep_target(g, rs->Assignment);
}

/* The owned partitions by topic id (topics whose id is not known are left out). */
static void owned_by_id(gr_consumer_t *c, gr_arena_t *ar, gr_ConsumerGroupHeartbeatRequest_t *rq) {
    const gr__tplist_t *o = &c->g.owned;
    rq->TopicPartitions.n = 0;
    rq->TopicPartitions.v =
        gr_struct_alloc(ar, &gr_ConsumerGroupHeartbeatRequest_TopicPartitions_sd, (int32_t)(o->n ? o->n : 1));
    for (size_t i = 0; i < o->n;) {
        size_t k = i;
        while (k < o->n && !strcmp(o->v[k].topic, o->v[i].topic)) k++;
        gr__mtopic_t *t = gr__client_topic(c->cl, o->v[i].topic);
        if (t && !gr_uuid_is_zero(&t->id)) {
            gr_ConsumerGroupHeartbeatRequest_TopicPartitions_t *tp = &rq->TopicPartitions.v[rq->TopicPartitions.n++];
            tp->TopicId = t->id;
            tp->Partitions.n = (int32_t)(k - i);
            tp->Partitions.v = gr_arena_alloc(ar, (k - i) * sizeof(int32_t));
            for (size_t j = i; j < k; j++) tp->Partitions.v[j - i] = o->v[j].partition;
        }
        i = k;
    }
}

static void send_heartbeat(gr_consumer_t *c, gr__node_t *node, int32_t epoch) {
    gr__cgroup_t *g = &c->g;
    int16_t ver = gr__node_version(node, GR_API_ConsumerGroupHeartbeat);
    if (ver < 0) {
        gr__cg_fail(c, GR_ERR_UNSUPPORTED_VERSION,
                    "broker %s does not support the consumer group protocol (ConsumerGroupHeartbeat); use "
                    "group.protocol=classic",
                    gr__node_name(node));
        return;
    }
    if (ver == 0 && g->regex) {
        gr__cg_fail(c, GR_ERR_UNSUPPORTED_VERSION, "broker %s does not support regex subscriptions (KIP-848)",
                    gr__node_name(node));
        return;
    }
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_ConsumerGroupHeartbeatRequest_t rq;
    gr_struct_init(&gr_ConsumerGroupHeartbeatRequest_sd, &rq);
    rq.GroupId = gr_str_c(g->group_id);
    rq.MemberId = gr_str_c(g->member_id);
    rq.MemberEpoch = epoch;
    rq.InstanceId = gr_str_c(g->instance_id);
    rq.RackId = gr_str_c(g->rack);
    rq.RebalanceTimeoutMs = epoch < 0 ? -1 : g->rebalance_timeout;
    rq.SubscribedTopicNames.n = -1;
    rq.SubscribedTopicRegex = GR_STR_NULL;
    if (epoch >= 0 && g->regex) {
        rq.SubscribedTopicRegex = gr_str_c(g->regex);
    } else if (epoch >= 0) {
        rq.SubscribedTopicNames.n = (int32_t)g->n_topics;
        rq.SubscribedTopicNames.v = gr_arena_alloc(&ar, (g->n_topics + 1) * sizeof(gr_str_t));
        for (size_t i = 0; i < g->n_topics; i++) rq.SubscribedTopicNames.v[i] = gr_str_c(g->topics[i]);
    }
    rq.ServerAssignor = gr_str_c(g->remote_assignor);
    rq.TopicPartitions.n = -1;
    if (epoch >= 0) owned_by_id(c, &ar, &rq);
    if (gr__node_send(node, GR_API_ConsumerGroupHeartbeat, ver, &rq, true, epoch < 0 ? NULL : on_heartbeat, c) ==
        GR_ERR_NONE) {
        g->hb_inflight = epoch >= 0;
        g->ack = false;
    }
    gr_arena_free(&ar);
}

void gr__cgh_run(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    if (!g->member_id) {
        gr_uuid_t u = gr_uuid_random();
        g->member_id = malloc(23);
        if (!g->member_id) abort();
        gr_uuid_to_base64(&u, g->member_id);
        g->epoch = 0;
    }
    if (g->have_target) reconcile(c);
    if (c->fatal || g->hb_inflight) return;
    int64_t now = gr__client_now(c->cl);
    if (g->epoch > 0 && g->last_ok && now - g->last_ok > g->session_timeout && g->owned.n) {
        rejoin(c); /* no answer for a session: the coordinator has removed us */
        return;
    }
    bool due = g->ack || g->epoch <= 0 || now >= g->hb_next;
    if (!due) return;
    gr__node_t *node = gr__cg_coord(c);
    if (node) send_heartbeat(c, node, g->epoch < 0 ? 0 : g->epoch);
}

void gr__cgh_leave(gr_consumer_t *c, int64_t deadline) {
    gr__cgroup_t *g = &c->g;
    if (!g->member_id || g->epoch <= 0) return;
    while (g->hb_inflight && gr__client_tick(c->cl) < deadline) gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
    if (gr__cg_wait_coord(c, deadline) < 0) return;
    gr__node_t *node = gr__cg_coord(c);
    if (!node) return;
    send_heartbeat(c, node, g->instance_id ? -2 : -1);
    gr__client_flush(c->cl);
    /* Wait for the bytes to be answered so that the coordinator has them before we go. */
    while (gr__node_inflight(node) > 0 && gr__client_tick(c->cl) < deadline)
        gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
    /* A target that came with the heartbeat answered above belongs to the membership just
     * left: reconciling it after a poll-timeout leave would rejoin owning partitions, which
     * the coordinator refuses (INVALID_REQUEST, TopicPartitions must be empty on joining). */
    g->have_target = false;
    g->epoch = -1;
}
