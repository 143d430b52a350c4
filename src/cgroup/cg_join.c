/* Consumer groups: JoinGroup and the join phase (GroupMetadataManager's
 * classicGroupJoin*, prepareRebalance, completeClassicGroupJoin and the initial
 * rebalance delay). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/cg_int.h"

/* A member id as Kafka builds it: "<client id or instance id>-<uuid>". The uuid is
 * derived from the clock and a counter (this module has no randomness of its own). */
static char *new_member_id(gr_cg_registry_t *reg, const gr_cg_join_req_t *req, int64_t now) {
    uint64_t a = (uint64_t)now * 0x9E3779B97F4A7C15ull ^ ++reg->id_seq;
    uint64_t b = (a ^ (a >> 31)) * 0xBF58476D1CE4E5B9ull + reg->id_seq;
    const char *prefix = req->instance_id ? req->instance_id : req->client_id;
    size_t n = strlen(prefix) + 40;
    char *s = malloc(n);
    if (!s) abort();
    snprintf(s, n, "%s-%08x-%04x-4%03x-%04x-%012llx", prefix, (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
             (unsigned)a & 0xfff, (unsigned)(0x8000 | ((b >> 48) & 0x3fff)),
             (unsigned long long)(b & 0xffffffffffffull));
    return s;
}

static void join_error(gr_cg_out_t *out, const gr_cg_join_req_t *req, const char *member_id, int16_t err) {
    gr_cg_answer_t *a = cg_answer(out, req->waiter, GR_CG_ANSWER_JOIN, err);
    free(a->member_id);
    a->member_id = cg_strdup(member_id);
}

/* The current generation for one member, answered at once (no rebalance). */
static void join_current(cg_group_t *g, const gr_cg_join_req_t *req, const char *member_id, bool with_members,
                         const char *leader, bool skip, gr_cg_out_t *out) {
    gr_cg_answer_t *a = cg_answer(out, req->waiter, GR_CG_ANSWER_JOIN, 0);
    free(a->member_id);
    free(a->leader);
    a->member_id = cg_strdup(member_id);
    a->leader = cg_strdup(leader ? leader : "");
    a->generation = g->generation;
    a->protocol_type = cg_strdup(g->protocol_type);
    a->protocol_name = cg_strdup(g->protocol_name);
    a->skip_assignment = skip;
    if (with_members) cg_leader_members(g, a);
}

void cg_reset_sync_with_error(cg_group_t *g, gr_cg_out_t *out, int16_t error) {
    for (int32_t i = 0; i < g->n_members; i++) {
        cg_member_t *m = g->members[i];
        free(m->assignment);
        m->assignment = NULL;
        m->assignment_len = 0;
        cg_complete_sync(g, m, out, error);
    }
}

void cg_prepare_rebalance(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    if (g->state == GR_CG_COMPLETING_REBALANCE) cg_reset_sync_with_error(g, out, GR_ERR_REBALANCE_IN_PROGRESS);
    g->sync_deadline = CG_NO_DEADLINE;
    bool initial = g->state == GR_CG_EMPTY;
    if (initial) {
        /* A new group: give more members time to join (group.initial.rebalance.delay.ms). */
        int32_t delay = reg->cfg.initial_rebalance_delay_ms;
        int32_t rem = cg_rebalance_timeout(g) - delay;
        g->join_timer = JOIN_TIMER_INITIAL;
        g->init_delay_ms = delay;
        g->init_remaining_ms = rem > 0 ? rem : 0;
        g->join_deadline = now + delay;
    }
    cg_transition(g, GR_CG_PREPARING_REBALANCE, now);
    if (initial) return;
    if (cg_all_joined(g)) {
        cg_complete_join_phase(reg, g, now, out);
        return;
    }
    g->join_timer = JOIN_TIMER_NORMAL;
    g->join_deadline = now + cg_rebalance_timeout(g);
}

void cg_maybe_prepare_or_complete(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    if (g->state == GR_CG_STABLE || g->state == GR_CG_COMPLETING_REBALANCE || g->state == GR_CG_EMPTY)
        cg_prepare_rebalance(reg, g, now, out);
    else
        cg_maybe_complete_join_phase(reg, g, now, out);
}

void cg_maybe_complete_join_phase(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    if (g->state == GR_CG_PREPARING_REBALANCE && cg_all_joined(g) && g->prev_state != GR_CG_EMPTY)
        cg_complete_join_phase(reg, g, now, out);
}

/* ClassicGroup.maybeElectNewJoinedLeader. */
static bool elect_joined_leader(cg_group_t *g) {
    if (!g->leader) return false;
    const cg_member_t *l = cg_member(g, g->leader);
    if (l && l->awaiting_join) return true;
    for (int32_t i = 0; i < g->n_members; i++)
        if (g->members[i]->awaiting_join) {
            free(g->leader);
            g->leader = cg_strdup(g->members[i]->member_id);
            return true;
        }
    return false;
}

static void init_next_generation(cg_group_t *g, int64_t now) {
    g->generation++;
    free(g->protocol_name);
    g->protocol_name = NULL;
    if (g->n_members) {
        g->protocol_name = cg_select_protocol(g);
        cg_transition(g, GR_CG_COMPLETING_REBALANCE, now);
    } else {
        cg_transition(g, GR_CG_EMPTY, now);
    }
    for (int32_t i = 0; i < g->n_pending_sync; i++) free(g->pending_sync[i]);
    g->n_pending_sync = 0;
}

void cg_complete_join_phase(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    g->join_timer = JOIN_TIMER_NONE;
    g->join_deadline = CG_NO_DEADLINE;
    /* Dynamic members that did not rejoin in time leave; static ones stay. */
    for (int32_t i = g->n_members - 1; i >= 0; i--) {
        cg_member_t *m = g->members[i];
        if (!m->awaiting_join && !m->instance_id) cg_remove_member(g, m->member_id);
    }
    if (g->state == GR_CG_DEAD) return;
    if (!elect_joined_leader(g) && g->n_members > 0) {
        /* Nobody rejoined: wait another rebalance timeout for the sessions to expire. */
        g->join_timer = JOIN_TIMER_NORMAL;
        g->join_deadline = now + cg_rebalance_timeout(g);
        return;
    }
    init_next_generation(g, now);
    cg_mark_changed(out, g->id);
    if (g->state == GR_CG_EMPTY) return;
    for (int32_t i = 0; i < g->n_members; i++) {
        cg_member_t *m = g->members[i];
        cg_complete_join(g, m, out, 0, true);
        m->hb_deadline = now + m->session_ms;
        m->is_new = false;
        g->pending_sync = cg_grow(g->pending_sync, &g->cap_pending_sync, g->n_pending_sync + 1, sizeof(char *));
        g->pending_sync[g->n_pending_sync++] = cg_strdup(m->member_id);
    }
    g->sync_deadline = now + cg_rebalance_timeout(g);
    g->sync_generation = g->generation;
}

void cg_remove_member_and_update(gr_cg_registry_t *reg, cg_group_t *g, cg_member_t *m, int64_t now, gr_cg_out_t *out) {
    cg_complete_join(g, m, out, GR_ERR_UNKNOWN_MEMBER_ID, false);
    cg_complete_sync(g, m, out, GR_ERR_UNKNOWN_MEMBER_ID);
    cg_remove_member(g, m->member_id);
    if (g->state == GR_CG_STABLE || g->state == GR_CG_COMPLETING_REBALANCE)
        cg_maybe_prepare_or_complete(reg, g, now, out);
    else if (g->state == GR_CG_PREPARING_REBALANCE && cg_all_joined(g))
        cg_complete_join_phase(reg, g, now, out);
}

/* Set the member's JoinGroup request as the one awaiting the join phase. */
static void await_join(cg_group_t *g, cg_member_t *m, const gr_cg_join_req_t *req, gr_cg_out_t *out) {
    if (!m->awaiting_join) {
        m->awaiting_join = true;
        g->n_awaiting_join++;
    } else if (m->join_waiter && m->join_waiter != req->waiter) {
        /* A retried JoinGroup replaces the parked one, which Kafka never answers;
         * answering it spares the broker a request parked until disconnect. */
        join_error(out, &(gr_cg_join_req_t){.waiter = m->join_waiter}, m->member_id, GR_ERR_REBALANCE_IN_PROGRESS);
    }
    m->join_waiter = req->waiter;
    m->join_version = req->version;
}

static void update_member(cg_group_t *g, cg_member_t *m, const gr_cg_join_req_t *req, gr_cg_out_t *out) {
    cg_member_set_protocols(m, req->protocols, req->n_protocols);
    m->rebalance_ms = req->rebalance_timeout_ms;
    m->session_ms = req->session_timeout_ms;
    await_join(g, m, req, out);
}

static void add_member(gr_cg_registry_t *reg, cg_group_t *g, const gr_cg_join_req_t *req, char *member_id, int64_t now,
                       gr_cg_out_t *out) {
    cg_member_t *m = calloc(1, sizeof(*m));
    if (!m) abort();
    m->member_id = member_id;
    m->instance_id = cg_strdup(req->instance_id);
    m->client_id = cg_strdup(req->client_id);
    m->client_host = cg_strdup(req->client_host);
    m->rebalance_ms = req->rebalance_timeout_ms;
    m->session_ms = req->session_timeout_ms;
    cg_member_set_protocols(m, req->protocols, req->n_protocols);
    m->is_new = true;
    m->awaiting_join = true;
    m->join_waiter = req->waiter;
    m->join_version = req->version;
    if (g->state == GR_CG_PREPARING_REBALANCE && g->generation == 0) g->new_member_added = true;
    if (g->n_members == 0) {
        free(g->protocol_type);
        g->protocol_type = cg_strdup(req->protocol_type);
    }
    cg_add_member(g, m);
    /* A new member cannot heartbeat yet: its JoinGroup times out after a fixed 5 minutes. */
    m->hb_deadline = now + reg->cfg.new_member_join_timeout_ms;
    cg_maybe_prepare_or_complete(reg, g, now, out);
}

/* A known group.instance.id joins with an unknown member id: it replaces the old
 * member id (fencing it) and keeps its assignment (updateStaticMemberThenRebalanceOrCompleteJoin). */
static void replace_static(gr_cg_registry_t *reg, cg_group_t *g, cg_member_t *old, const gr_cg_join_req_t *req,
                           char *new_id, int64_t now, gr_cg_out_t *out) {
    char *leader_before = cg_strdup(g->leader);
    if (old->awaiting_join) {
        /* The fenced member's parked JoinGroup: FENCED_INSTANCE_ID with its old id. */
        if (old->join_waiter)
            join_error(out, &(gr_cg_join_req_t){.waiter = old->join_waiter}, old->member_id, GR_ERR_FENCED_INSTANCE_ID);
        old->awaiting_join = false;
        old->join_waiter = NULL;
        g->n_awaiting_join--;
    }
    cg_complete_sync(g, old, out, GR_ERR_FENCED_INSTANCE_ID);
    cg_pending_sync_remove(g, old->member_id);
    if (g->leader && !strcmp(g->leader, old->member_id)) {
        free(g->leader);
        g->leader = cg_strdup(new_id);
    }
    free(old->member_id);
    old->member_id = new_id;
    cg_member_t *m = old;
    m->hb_deadline = now + m->session_ms;
    update_member(g, m, req, out);
    if (g->state == GR_CG_STABLE) {
        char *sel = cg_select_protocol(g);
        bool same = g->protocol_name && sel && !strcmp(sel, g->protocol_name);
        free(sel);
        if (same) {
            /* The selected protocol does not change: no rebalance, answer at once. */
            bool leader = g->leader && !strcmp(g->leader, m->member_id);
            m->awaiting_join = false;
            m->join_waiter = NULL;
            g->n_awaiting_join--;
            if (req->version >= 9)
                join_current(g, req, m->member_id, leader, g->leader, leader, out);
            else
                join_current(g, req, m->member_id, false, leader_before, false, out);
            cg_mark_changed(out, g->id);
        } else {
            cg_maybe_prepare_or_complete(reg, g, now, out);
        }
    } else if (g->state == GR_CG_COMPLETING_REBALANCE) {
        cg_prepare_rebalance(reg, g, now, out);
    } else {
        cg_maybe_complete_join_phase(reg, g, now, out);
    }
    free(leader_before);
}

static void join_new(gr_cg_registry_t *reg, cg_group_t *g, const gr_cg_join_req_t *req, int64_t now, gr_cg_out_t *out) {
    if (g->state == GR_CG_DEAD) return join_error(out, req, req->member_id, GR_ERR_COORDINATOR_NOT_AVAILABLE);
    if (!cg_supports_protocols(g, req->protocol_type, req->protocols, req->n_protocols))
        return join_error(out, req, req->member_id, GR_ERR_INCONSISTENT_GROUP_PROTOCOL);
    char *id = new_member_id(reg, req, now);
    if (req->instance_id) {
        cg_member_t *old = cg_static_member(g, req->instance_id);
        if (old) return replace_static(reg, g, old, req, id, now, out);
        return add_member(reg, g, req, id, now, out);
    }
    if (req->version >= 4) {
        /* KIP-394: hand out the id and wait for the member to rejoin with it. */
        g->pending = cg_grow(g->pending, &g->cap_pending, g->n_pending + 1, sizeof(*g->pending));
        g->pending[g->n_pending++] = (cg_pending_t){id, now + req->session_timeout_ms};
        join_error(out, req, id, GR_ERR_MEMBER_ID_REQUIRED);
        return;
    }
    add_member(reg, g, req, id, now, out);
}

static void join_existing(gr_cg_registry_t *reg, cg_group_t *g, const gr_cg_join_req_t *req, int64_t now,
                          gr_cg_out_t *out) {
    if (g->state == GR_CG_DEAD) return join_error(out, req, req->member_id, GR_ERR_COORDINATOR_NOT_AVAILABLE);
    if (!cg_supports_protocols(g, req->protocol_type, req->protocols, req->n_protocols))
        return join_error(out, req, req->member_id, GR_ERR_INCONSISTENT_GROUP_PROTOCOL);
    if (cg_pending_index(g, req->member_id) >= 0 && !req->instance_id)
        return add_member(reg, g, req, cg_strdup(req->member_id), now, out);
    int16_t err = cg_validate_member(g, req->member_id, req->instance_id);
    if (err) return join_error(out, req, req->member_id, err);
    cg_member_t *m = cg_member(g, req->member_id);
    bool leader = g->leader && !strcmp(g->leader, m->member_id);
    bool matches = cg_member_matches(m, req->protocols, req->n_protocols);
    switch (g->state) {
    case GR_CG_PREPARING_REBALANCE:
        update_member(g, m, req, out);
        cg_maybe_prepare_or_complete(reg, g, now, out);
        return;
    case GR_CG_COMPLETING_REBALANCE:
        /* Same metadata: the member missed its JoinGroup answer; send it again. */
        if (matches) return join_current(g, req, m->member_id, leader, g->leader, false, out);
        update_member(g, m, req, out);
        cg_maybe_prepare_or_complete(reg, g, now, out);
        return;
    case GR_CG_STABLE:
        /* The leader rejoining forces a rebalance (it may have seen metadata change). */
        if (!leader && matches) return join_current(g, req, m->member_id, false, g->leader, false, out);
        update_member(g, m, req, out);
        cg_maybe_prepare_or_complete(reg, g, now, out);
        return;
    default: join_error(out, req, req->member_id, GR_ERR_UNKNOWN_MEMBER_ID); return;
    }
}

static bool accept_joining(const gr_cg_registry_t *reg, const cg_group_t *g, const char *member_id) {
    const cg_member_t *m = member_id[0] ? cg_member(g, member_id) : NULL;
    switch (g->state) {
    case GR_CG_PREPARING_REBALANCE: return (m && m->awaiting_join) || g->n_awaiting_join < reg->cfg.max_size;
    case GR_CG_COMPLETING_REBALANCE:
    case GR_CG_STABLE: return m || g->n_members < reg->cfg.max_size;
    default: return true;
    }
}

void gr_cg_join(gr_cg_registry_t *reg, const gr_cg_join_req_t *req, int64_t now, gr_cg_out_t *out) {
    if (!req->group_id[0]) return join_error(out, req, req->member_id, GR_ERR_INVALID_GROUP_ID);
    if (req->session_timeout_ms < reg->cfg.min_session_timeout_ms ||
        req->session_timeout_ms > reg->cfg.max_session_timeout_ms)
        return join_error(out, req, req->member_id, GR_ERR_INVALID_SESSION_TIMEOUT);
    bool unknown = !req->member_id[0];
    cg_group_t *g = cg_find(reg, req->group_id);
    bool created = false;
    if (!g) {
        /* Only a member without an id creates the group. */
        if (!unknown) return join_error(out, req, req->member_id, GR_ERR_UNKNOWN_MEMBER_ID);
        g = cg_create(reg, req->group_id, now);
        created = true;
    }
    if (!accept_joining(reg, g, req->member_id)) {
        cg_member_t *m = cg_member(g, req->member_id);
        if (m)
            cg_remove_member_and_update(reg, g, m, now, out);
        else
            cg_pending_remove(g, req->member_id);
        join_error(out, req, "", GR_ERR_GROUP_MAX_SIZE_REACHED);
    } else if (unknown) {
        join_new(reg, g, req, now, out);
    } else {
        join_existing(reg, g, req, now, out);
    }
    if (created) {
        if (g->n_members == 0 && g->n_pending == 0 && !gr_htab_first(&g->offsets))
            cg_remove_group(reg, g, NULL);
        else
            cg_mark_changed(out, g->id);
    }
}
