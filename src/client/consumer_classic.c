/* The classic group protocol (group.protocol=classic), eager rebalancing, or cooperative
 * (KIP-429) when partition.assignment.strategy is cooperative-sticky only:
 *
 *   JOIN      eager: revoke the whole assignment (commit first); cooperative: keep it and
 *             go on fetching; send JoinGroup (protocol type
 *             "consumer", one protocol per partition.assignment.strategy entry with the
 *             ConsumerProtocol subscription); MEMBER_ID_REQUIRED: again with the id given;
 *   ASSIGN    the leader waits for metadata of every topic the members subscribe to,
 *             runs the chosen assignor and sends SyncGroup with every assignment;
 *   SYNCING   the others send SyncGroup with none; the answer is our assignment
 *             (cooperative: partitions missing from it are revoked, then we rejoin at once
 *             so that the leader can give them to their new owner);
 *   STABLE    Heartbeat every heartbeat.interval.ms; REBALANCE_IN_PROGRESS: rejoin;
 *             ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID: the partitions are lost, rejoin;
 *             no answer for session.timeout.ms: lost too. The leader also rejoins when a
 *             subscribed topic's partition count changes, and a regex subscription
 *             re-matches the cluster's topics every metadata.max.age.ms.
 * Leaving sends LeaveGroup (not for a static member: Kafka keeps its partitions until
 * its session times out). */
#include <stdlib.h>
#include <string.h>

#include "client/consumer_int.h"
#include "proto_msgs.h"

static void free_members(gr__cgroup_t *g) {
    for (size_t i = 0; i < g->n_members; i++) {
        free(g->members[i].member_id);
        free(g->members[i].instance_id);
        free(g->members[i].meta);
    }
    free(g->members);
    g->members = NULL;
    g->n_members = 0;
}

void gr__ccl_free(gr__cgroup_t *g) {
    free_members(g);
    gr__tplist_free(&g->pending);
    free(g->protocol);
    free(g->leader);
    free(g->snap);
}

static char *sdup(gr_str_t s) {
    if (s.len < 0) return NULL;
    char *r = strndup(s.ptr ? s.ptr : "", (size_t)s.len);
    if (!r) abort();
    return r;
}

/* The cooperative protocol (KIP-429) when every configured assignor supports it. */
static bool cooperative(const gr__cgroup_t *g) {
    for (size_t i = 0; i < g->n_strategies; i++)
        if (strcmp(g->strategies[i], "cooperative-sticky")) return false;
    return g->n_strategies > 0;
}

static void rejoin(gr_consumer_t *c, bool lost) {
    if (lost) c->g.lose_pending = true;
    c->g.cstate = GR__CL_JOIN;
    c->g.hb_next = 0;
}

/* ---- join ---- */

static void on_join(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque);

static void send_join(gr_consumer_t *c, gr__node_t *node) {
    gr__cgroup_t *g = &c->g;
    int16_t ver = gr__node_version(node, GR_API_JoinGroup);
    if (ver < 0) {
        gr__cg_fail(c, GR_ERR_UNSUPPORTED_VERSION, "broker %s does not support JoinGroup", gr__node_name(node));
        return;
    }
    gr_wbuf_t meta;
    gr_wbuf_init(&meta);
    gr__cp_sub_encode(&meta, (const char *const *)g->topics, g->n_topics, &g->owned, g->epoch);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_JoinGroupRequest_t rq;
    gr_struct_init(&gr_JoinGroupRequest_sd, &rq);
    rq.GroupId = gr_str_c(g->group_id);
    rq.SessionTimeoutMs = g->session_timeout;
    rq.RebalanceTimeoutMs = g->rebalance_timeout;
    rq.MemberId = gr_str_c(g->member_id ? g->member_id : "");
    rq.GroupInstanceId = gr_str_c(g->instance_id);
    rq.ProtocolType = GR_STR("consumer");
    rq.Protocols.n = (int32_t)g->n_strategies;
    rq.Protocols.v = gr_struct_alloc(&ar, &gr_JoinGroupRequest_JoinGroupRequestProtocol_sd, rq.Protocols.n);
    for (size_t i = 0; i < g->n_strategies; i++) {
        rq.Protocols.v[i].Name = gr_str_c(g->strategies[i]);
        rq.Protocols.v[i].Metadata.ptr = meta.mem;
        rq.Protocols.v[i].Metadata.len = (int32_t)meta.len;
    }
    if (gr__node_send(node, GR_API_JoinGroup, ver, &rq, true, on_join, c) == GR_ERR_NONE) g->cstate = GR__CL_JOINING;
    gr_arena_free(&ar);
    gr_wbuf_free(&meta);
}

static void keep_members(gr__cgroup_t *g, const gr_JoinGroupResponse_t *rs) {
    free_members(g);
    g->members = calloc((size_t)rs->Members.n + 1, sizeof(*g->members));
    if (!g->members) abort();
    for (int32_t i = 0; i < rs->Members.n; i++) {
        const gr_JoinGroupResponse_JoinGroupResponseMember_t *m = &rs->Members.v[i];
        gr__cl_member_t *k = &g->members[g->n_members++];
        k->member_id = sdup(m->MemberId);
        k->instance_id = sdup(m->GroupInstanceId);
        k->meta_len = m->Metadata.len > 0 ? (size_t)m->Metadata.len : 0;
        k->meta = malloc(k->meta_len + 1);
        if (!k->meta) abort();
        if (k->meta_len) memcpy(k->meta, m->Metadata.ptr, k->meta_len);
    }
}

static void join_error(gr_consumer_t *c, int16_t code, const gr_JoinGroupResponse_t *rs) {
    gr__cgroup_t *g = &c->g;
    g->cstate = GR__CL_JOIN;
    if (code == GR_ERR_MEMBER_ID_REQUIRED) {
        free(g->member_id);
        g->member_id = sdup(rs->MemberId);
    } else if (code == GR_ERR_UNKNOWN_MEMBER_ID) {
        free(g->member_id);
        g->member_id = NULL;
    } else if (gr__cg_coord_error(code)) {
        gr__cg_coord_lost(c);
    } else if (code == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS || code == GR_ERR_REBALANCE_IN_PROGRESS) {
        g->hb_next = gr__client_now(c->cl) + g->backoff;
    } else {
        gr__cg_fail(c, (gr_err_t)code, "JoinGroup for group %s: %s", g->group_id, gr_err_str((gr_err_t)code));
    }
}

static void send_sync(gr_consumer_t *c, gr__node_t *node, gr_wbuf_t *assignments);

static void on_join(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr_consumer_t *c = opaque;
    gr__cgroup_t *g = &c->g;
    (void)cl, (void)errmsg, (void)ver;
    if (g->closing) return;
    if (err) {
        g->cstate = GR__CL_JOIN;
        gr__cg_coord_lost(c);
        return;
    }
    const gr_JoinGroupResponse_t *rs = resp;
    if (rs->ErrorCode) {
        join_error(c, rs->ErrorCode, rs);
        return;
    }
    free(g->member_id);
    g->member_id = sdup(rs->MemberId);
    free(g->protocol);
    g->protocol = sdup(rs->ProtocolName);
    free(g->leader);
    g->leader = sdup(rs->Leader);
    g->epoch = rs->GenerationId;
    g->last_ok = gr__client_now(c->cl);
    if (g->leader && g->member_id && !strcmp(g->leader, g->member_id) && !rs->SkipAssignment) {
        keep_members(g, rs);
        g->cstate = GR__CL_ASSIGN;
        return;
    }
    gr__node_t *node = gr__cg_coord(c);
    g->cstate = GR__CL_JOIN;
    if (node) send_sync(c, node, NULL);
}

/* ---- sync ---- */

static void on_sync(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr_consumer_t *c = opaque;
    gr__cgroup_t *g = &c->g;
    (void)cl, (void)errmsg, (void)ver;
    if (g->closing) return;
    if (err) {
        gr__cg_coord_lost(c);
        rejoin(c, false);
        return;
    }
    const gr_SyncGroupResponse_t *rs = resp;
    int16_t code = rs->ErrorCode;
    if (code == GR_ERR_UNKNOWN_MEMBER_ID) {
        free(g->member_id);
        g->member_id = NULL;
    }
    if (gr__cg_coord_error(code)) gr__cg_coord_lost(c);
    if (code == GR_ERR_FENCED_INSTANCE_ID) {
        gr__cg_fail(c, (gr_err_t)code, "SyncGroup for group %s: %s", g->group_id, gr_err_str((gr_err_t)code));
        return;
    }
    if (code) {
        rejoin(c, false);
        return;
    }
    gr__tplist_t target = {0};
    if (gr__cp_assignment_decode(rs->Assignment.ptr, rs->Assignment.len > 0 ? (size_t)rs->Assignment.len : 0,
                                 &target)) {
        gr__cg_fail(c, GR_ERR__MALFORMED, "SyncGroup for group %s: undecodable assignment", g->group_id);
        return;
    }
    g->cstate = GR__CL_STABLE;
    g->last_ok = gr__client_now(c->cl);
    g->hb_next = g->last_ok + g->hb_interval;
    gr__tplist_free(&g->pending);
    g->pending = target;
    g->have_pending = true;
}

/* assignments: per member (g->members order), its encoded assignment; NULL: a follower. */
static void send_sync(gr_consumer_t *c, gr__node_t *node, gr_wbuf_t *assignments) {
    gr__cgroup_t *g = &c->g;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_SyncGroupRequest_t rq;
    gr_struct_init(&gr_SyncGroupRequest_sd, &rq);
    rq.GroupId = gr_str_c(g->group_id);
    rq.GenerationId = g->epoch;
    rq.MemberId = gr_str_c(g->member_id);
    rq.GroupInstanceId = gr_str_c(g->instance_id);
    rq.ProtocolType = GR_STR("consumer");
    rq.ProtocolName = gr_str_c(g->protocol);
    rq.Assignments.n = assignments ? (int32_t)g->n_members : 0;
    rq.Assignments.v = gr_struct_alloc(&ar, &gr_SyncGroupRequest_SyncGroupRequestAssignment_sd, rq.Assignments.n + 1);
    for (int32_t i = 0; i < rq.Assignments.n; i++) {
        rq.Assignments.v[i].MemberId = gr_str_c(g->members[i].member_id);
        rq.Assignments.v[i].Assignment.ptr = assignments[i].mem;
        rq.Assignments.v[i].Assignment.len = (int32_t)assignments[i].len;
    }
    int16_t ver = gr__node_version(node, GR_API_SyncGroup);
    if (ver >= 0 && gr__node_send(node, GR_API_SyncGroup, ver, &rq, true, on_sync, c) == GR_ERR_NONE)
        g->cstate = GR__CL_SYNCING;
    else
        rejoin(c, false);
    gr_arena_free(&ar);
}

/* ---- the leader's assignment ---- */

/* Every topic the members subscribe to, with metadata; false while some is not known. */
static bool collect_topics(gr_consumer_t *c, gr__cp_sub_t *subs, gr__cg_topic_t **out, size_t *n) {
    gr__cgroup_t *g = &c->g;
    size_t cap = 0;
    bool ready = true;
    *out = NULL, *n = 0;
    for (size_t m = 0; m < g->n_members; m++)
        for (size_t i = 0; i < subs[m].n_topics; i++) {
            const char *name = subs[m].topics[i];
            bool seen = false;
            for (size_t k = 0; k < *n && !seen; k++) seen = !strcmp((*out)[k].name, name);
            if (seen) continue;
            gr__mtopic_t *t = gr__client_want_topic(c->cl, name);
            if (!t->updated_ms) ready = false;
            if (*n == cap) {
                cap = cap ? cap * 2 : 8;
                *out = realloc(*out, cap * sizeof(**out));
                if (!*out) abort();
            }
            (*out)[(*n)++] = (gr__cg_topic_t){t->name, t->n_parts};
        }
    if (!ready) gr__client_request_metadata(c->cl);
    return ready;
}

static const char *pick_assignor(gr__cgroup_t *g) {
    for (size_t i = 0; i < g->n_strategies; i++)
        if (g->protocol && !strcmp(g->strategies[i], g->protocol)) return g->strategies[i];
    return NULL;
}

static void lead(gr_consumer_t *c, gr__node_t *node) {
    gr__cgroup_t *g = &c->g;
    gr__cp_sub_t *subs = calloc(g->n_members + 1, sizeof(*subs));
    gr__cg_member_t *mem = calloc(g->n_members + 1, sizeof(*mem));
    if (!subs || !mem) abort();
    for (size_t i = 0; i < g->n_members; i++) {
        if (gr__cp_sub_decode(g->members[i].meta, g->members[i].meta_len, &subs[i]))
            subs[i] = (gr__cp_sub_t){.generation = -1}; /* an undecodable member subscribes to nothing */
        mem[i] =
            (gr__cg_member_t){g->members[i].member_id, g->members[i].instance_id, subs[i].topics, subs[i].n_topics, {0},
                              &subs[i].owned,          subs[i].generation};
    }
    gr__cg_topic_t *topics = NULL;
    size_t nt;
    const char *assignor = pick_assignor(g);
    if (!assignor) {
        gr__cg_fail(c, GR_ERR_INCONSISTENT_GROUP_PROTOCOL, "group %s chose assignor %s, which this member lacks",
                    g->group_id, g->protocol ? g->protocol : "(null)");
    } else if (collect_topics(c, subs, &topics, &nt)) {
        gr__assign(assignor, mem, g->n_members, topics, nt);
        gr_wbuf_t *enc = calloc(g->n_members + 1, sizeof(*enc));
        if (!enc) abort();
        for (size_t i = 0; i < g->n_members; i++) {
            gr_wbuf_init(&enc[i]);
            gr__cp_assignment_encode(&enc[i], &mem[i].out);
        }
        free(g->snap);
        g->snap = topics, g->n_snap = nt, topics = NULL;
        send_sync(c, node, enc);
        for (size_t i = 0; i < g->n_members; i++) gr_wbuf_free(&enc[i]);
        free(enc);
    }
    free(topics);
    for (size_t i = 0; i < g->n_members; i++) {
        gr__tplist_free(&mem[i].out);
        gr__cp_sub_free(&subs[i]);
    }
    free(mem);
    free(subs);
}

/* The leader rejoins when a topic it assigned changed its partition count. */
static bool metadata_changed(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    if (!g->leader || !g->member_id || strcmp(g->leader, g->member_id)) return false;
    for (size_t i = 0; i < g->n_snap; i++) {
        gr__mtopic_t *t = gr__client_topic(c->cl, g->snap[i].name);
        if (t && t->updated_ms && t->n_parts != g->snap[i].n_parts) return true;
    }
    return false;
}

/* A regex subscription: the matching topics, again every metadata.max.age.ms. */
static bool regex_topics_changed(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    int64_t now = gr__client_now(c->cl);
    int64_t age = gr__conf_int(gr__client_conf(c->cl), GR__CP_METADATA_MAX_AGE_MS);
    if (!g->regex || (g->regex_checked && now - g->regex_checked < age)) return false;
    char **names;
    gr_uuid_t *ids;
    size_t n, k = 0;
    g->regex_checked = now ? now : 1;
    if (gr__cg_all_topics(c, now + 5000, &names, &ids, &n)) return false;
    for (size_t i = 0; i < n; i++)
        if (!regexec(&g->re, names[i], 0, NULL, 0))
            names[k++] = names[i];
        else
            free(names[i]);
    bool same = k == g->n_topics;
    for (size_t i = 0; i < k && same; i++) same = !strcmp(names[i], g->topics[i]);
    if (same) {
        gr__cg_free_names(names, k);
    } else {
        gr__cg_free_names(g->topics, g->n_topics);
        g->topics = names, g->n_topics = k;
        for (size_t i = 0; i < k; i++) gr__client_want_topic(c->cl, names[i]);
    }
    free(ids);
    return !same;
}

/* ---- heartbeat ---- */

static void on_heartbeat(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr_consumer_t *c = opaque;
    gr__cgroup_t *g = &c->g;
    (void)cl, (void)errmsg, (void)ver;
    g->hb_inflight = false;
    if (g->closing || g->cstate != GR__CL_STABLE) return;
    if (err) {
        gr__cg_coord_lost(c);
        return;
    }
    int16_t code = ((const gr_HeartbeatResponse_t *)resp)->ErrorCode;
    g->hb_next = gr__client_now(c->cl) + g->hb_interval;
    if (!code) {
        g->last_ok = gr__client_now(c->cl);
    } else if (code == GR_ERR_REBALANCE_IN_PROGRESS) {
        rejoin(c, false);
    } else if (code == GR_ERR_ILLEGAL_GENERATION || code == GR_ERR_UNKNOWN_MEMBER_ID) {
        if (code == GR_ERR_UNKNOWN_MEMBER_ID) free(g->member_id), g->member_id = NULL;
        rejoin(c, true);
    } else if (gr__cg_coord_error(code)) {
        gr__cg_coord_lost(c);
    } else if (code != GR_ERR_COORDINATOR_LOAD_IN_PROGRESS) {
        gr__cg_fail(c, (gr_err_t)code, "Heartbeat for group %s: %s", g->group_id, gr_err_str((gr_err_t)code));
    }
}

static void send_heartbeat(gr_consumer_t *c, gr__node_t *node) {
    gr__cgroup_t *g = &c->g;
    gr_HeartbeatRequest_t rq;
    gr_struct_init(&gr_HeartbeatRequest_sd, &rq);
    rq.GroupId = gr_str_c(g->group_id);
    rq.GenerationId = g->epoch;
    rq.MemberId = gr_str_c(g->member_id);
    rq.GroupInstanceId = gr_str_c(g->instance_id);
    int16_t ver = gr__node_version(node, GR_API_Heartbeat);
    if (ver >= 0 && gr__node_send(node, GR_API_Heartbeat, ver, &rq, true, on_heartbeat, c) == GR_ERR_NONE)
        g->hb_inflight = true;
}

void gr__ccl_run(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    if (g->have_pending && g->cstate == GR__CL_STABLE) {
        g->have_pending = false;
        bool gave_up = false; /* cooperative: partitions revoked now go to others after another round */
        for (size_t i = 0; i < g->owned.n && !gave_up; i++)
            gave_up = !gr__tplist_has(&g->pending, g->owned.v[i].topic, g->owned.v[i].partition);
        gr__cg_set_assignment(c, &g->pending);
        if (gave_up && cooperative(g)) rejoin(c, false);
    }
    if (g->regex && (g->cstate == GR__CL_STABLE || g->cstate == GR__CL_JOIN) && regex_topics_changed(c))
        g->cstate = GR__CL_JOIN;
    if (g->cstate == GR__CL_STABLE && gr__client_now(c->cl) - g->last_ok > g->session_timeout) rejoin(c, true);
    if (g->cstate == GR__CL_STABLE && metadata_changed(c)) rejoin(c, false);
    if (g->cstate == GR__CL_JOINING || g->cstate == GR__CL_SYNCING) return;
    if (g->cstate == GR__CL_JOIN && g->owned.n && !cooperative(g)) { /* eager: give everything up first */
        gr__tplist_t none = {0};
        gr__cg_set_assignment(c, &none);
    }
    if (c->fatal || (g->cstate == GR__CL_JOIN && gr__client_now(c->cl) < g->hb_next)) return;
    if (g->cstate == GR__CL_STABLE && (g->hb_inflight || gr__client_now(c->cl) < g->hb_next)) return;
    gr__node_t *node = gr__cg_coord(c);
    if (!node) return;
    if (g->cstate == GR__CL_JOIN && !g->hb_inflight)
        send_join(c, node);
    else if (g->cstate == GR__CL_ASSIGN)
        lead(c, node);
    else if (g->cstate == GR__CL_STABLE)
        send_heartbeat(c, node);
}

static void send_leave(gr_consumer_t *c, int64_t deadline, const char *reason) {
    gr__cgroup_t *g = &c->g;
    if (!g->member_id || g->instance_id) return; /* static members do not leave */
    if (gr__cg_wait_coord(c, deadline) < 0) return;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_LeaveGroupRequest_t rq;
    gr_struct_init(&gr_LeaveGroupRequest_sd, &rq);
    rq.GroupId = gr_str_c(g->group_id);
    rq.MemberId = gr_str_c(g->member_id);
    rq.Members.n = 1;
    rq.Members.v = gr_struct_alloc(&ar, &gr_LeaveGroupRequest_MemberIdentity_sd, 1);
    rq.Members.v[0].MemberId = gr_str_c(g->member_id);
    rq.Members.v[0].GroupInstanceId = GR_STR_NULL;
    rq.Members.v[0].Reason = gr_str_c(reason);
    void *resp;
    int16_t ver;
    gr__client_call(c->cl, g->coord_id, GR_API_LeaveGroup, &rq, deadline, &ar, &resp, &ver, c->errbuf,
                    sizeof(c->errbuf));
    c->errbuf[0] = 0;
    gr_arena_free(&ar);
}

void gr__ccl_leave(gr_consumer_t *c, int64_t deadline) {
    send_leave(c, deadline, "the consumer is being closed");
    c->g.epoch = -1;
}

void gr__ccl_poll_expired(gr_consumer_t *c, int64_t deadline) {
    gr__cgroup_t *g = &c->g;
    send_leave(c, deadline, "consumer poll timeout has expired (max.poll.interval.ms)");
    if (!g->instance_id) { /* a dynamic member joins again as a new one */
        free(g->member_id);
        g->member_id = NULL;
    }
    g->epoch = -1;
    rejoin(c, true);
}
