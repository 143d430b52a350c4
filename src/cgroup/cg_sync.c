/* Consumer groups: SyncGroup, Heartbeat, LeaveGroup, the timers (session expiry,
 * join and sync deadlines) and the namespace queries (describe, list, delete). */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/cg_int.h"
#include "cgroup/consumer.h"

static void sync_error(gr_cg_out_t *out, void *waiter, int16_t err) { cg_answer(out, waiter, GR_CG_ANSWER_SYNC, err); }

static bool inconsistent(const char *req, const char *group) { return req && group && strcmp(req, group); }

static void set_assignment(cg_member_t *m, const uint8_t *p, int32_t len) {
    free(m->assignment);
    m->assignment = malloc((size_t)len + 1);
    if (!m->assignment) abort();
    if (len) memcpy(m->assignment, p, (size_t)len);
    m->assignment_len = len;
}

/* The leader's assignment: every member gets its part (empty if missing). */
static void apply_assignment(cg_group_t *g, const gr_cg_sync_req_t *req, int64_t now, gr_cg_out_t *out) {
    for (int32_t i = 0; i < g->n_members; i++) {
        cg_member_t *m = g->members[i];
        set_assignment(m, NULL, 0);
        for (int32_t j = 0; j < req->n_assignments; j++)
            if (!strcmp(req->assignments[j].member_id, m->member_id))
                set_assignment(m, req->assignments[j].assignment, req->assignments[j].len);
    }
    for (int32_t i = 0; i < g->n_members; i++) {
        cg_complete_sync(g, g->members[i], out, 0);
        g->members[i]->hb_deadline = now + g->members[i]->session_ms;
    }
    cg_transition(g, GR_CG_STABLE, now);
    g->rebalances++;
    cg_mark_changed(out, g->id);
}

void gr_cg_sync(gr_cg_registry_t *reg, const gr_cg_sync_req_t *req, int64_t now, gr_cg_out_t *out) {
    (void)reg;
    if (!req->group_id[0]) return sync_error(out, req->waiter, GR_ERR_INVALID_GROUP_ID);
    cg_group_t *g = cg_find(reg, req->group_id);
    if (!g || g->state == GR_CG_EMPTY) return sync_error(out, req->waiter, GR_ERR_UNKNOWN_MEMBER_ID);
    if (g->state == GR_CG_DEAD) return sync_error(out, req->waiter, GR_ERR_COORDINATOR_NOT_AVAILABLE);
    int16_t err = cg_validate_member(g, req->member_id, req->instance_id);
    if (err) return sync_error(out, req->waiter, err);
    if (req->generation != g->generation) return sync_error(out, req->waiter, GR_ERR_ILLEGAL_GENERATION);
    if (inconsistent(req->protocol_type, g->protocol_type) || inconsistent(req->protocol_name, g->protocol_name))
        return sync_error(out, req->waiter, GR_ERR_INCONSISTENT_GROUP_PROTOCOL);
    cg_member_t *m = cg_member(g, req->member_id);
    if (g->state == GR_CG_PREPARING_REBALANCE) return sync_error(out, req->waiter, GR_ERR_REBALANCE_IN_PROGRESS);
    if (g->state == GR_CG_STABLE) {
        cg_pending_sync_remove(g, m->member_id);
        m->awaiting_sync = true;
        m->sync_waiter = req->waiter;
        cg_complete_sync(g, m, out, 0);
        return;
    }
    /* CompletingRebalance: park until the leader's assignment arrives. */
    if (m->awaiting_sync && m->sync_waiter && m->sync_waiter != req->waiter)
        sync_error(out, m->sync_waiter, GR_ERR_REBALANCE_IN_PROGRESS);
    m->awaiting_sync = true;
    m->sync_waiter = req->waiter;
    cg_pending_sync_remove(g, m->member_id);
    if (g->leader && !strcmp(g->leader, m->member_id)) apply_assignment(g, req, now, out);
}

int16_t gr_cg_heartbeat(gr_cg_registry_t *reg, const char *group_id, const char *member_id, const char *instance_id,
                        int32_t generation, int64_t now, gr_cg_out_t *out) {
    (void)out;
    if (!group_id[0]) return GR_ERR_INVALID_GROUP_ID;
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) return GR_ERR_UNKNOWN_MEMBER_ID;
    if (g->state == GR_CG_DEAD) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    int16_t err = cg_validate_member(g, member_id, instance_id);
    if (err) return err;
    if (generation != g->generation) return GR_ERR_ILLEGAL_GENERATION;
    cg_member_t *m = cg_member(g, member_id);
    switch (g->state) {
    case GR_CG_EMPTY: return GR_ERR_UNKNOWN_MEMBER_ID;
    case GR_CG_PREPARING_REBALANCE: m->hb_deadline = now + m->session_ms; return GR_ERR_REBALANCE_IN_PROGRESS;
    default: m->hb_deadline = now + m->session_ms; return 0;
    }
}

static void remove_current(cg_group_t *g, cg_member_t *m, gr_cg_out_t *out) {
    cg_complete_join(g, m, out, GR_ERR_UNKNOWN_MEMBER_ID, false);
    cg_complete_sync(g, m, out, GR_ERR_UNKNOWN_MEMBER_ID);
    cg_remove_member(g, m->member_id);
}

int16_t gr_cg_leave(gr_cg_registry_t *reg, const char *group_id, gr_cg_leave_member_t *ms, int32_t n, int64_t now,
                    gr_cg_out_t *out) {
    if (!group_id[0]) return GR_ERR_INVALID_GROUP_ID;
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) return GR_ERR_UNKNOWN_MEMBER_ID;
    if (g->state == GR_CG_DEAD) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    int32_t n_ok = 0;
    for (int32_t i = 0; i < n; i++) {
        gr_cg_leave_member_t *l = &ms[i];
        l->error = 0;
        if (!l->member_id[0]) {
            /* Administrative removal by group.instance.id. */
            cg_member_t *s = cg_static_member(g, l->instance_id);
            if (s)
                remove_current(g, s, out);
            else
                l->error = GR_ERR_UNKNOWN_MEMBER_ID;
        } else if (cg_pending_index(g, l->member_id) >= 0) {
            cg_pending_remove(g, l->member_id);
        } else if ((l->error = cg_validate_member(g, l->member_id, l->instance_id)) == 0) {
            remove_current(g, cg_member(g, l->member_id), out);
        }
        if (!l->error) n_ok++;
    }
    if (n_ok == 0) return 0;
    if (g->state == GR_CG_STABLE || g->state == GR_CG_COMPLETING_REBALANCE)
        cg_maybe_prepare_or_complete(reg, g, now, out);
    else if (g->state == GR_CG_PREPARING_REBALANCE)
        cg_maybe_complete_join_phase(reg, g, now, out);
    return 0;
}

void gr_cg_forget_waiter(gr_cg_registry_t *reg, const char *group_id, void *waiter) {
    cg_group_t *g = cg_find(reg, group_id);
    for (int32_t i = 0; g && i < g->n_members; i++) {
        if (g->members[i]->join_waiter == waiter) g->members[i]->join_waiter = NULL;
        if (g->members[i]->sync_waiter == waiter) g->members[i]->sync_waiter = NULL;
    }
}

/* ------------------------------------------------------------------ timers */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t gr_cg_next_deadline(const gr_cg_registry_t *reg) {
    int64_t d = reg->n_order ? reg->next_retention_ms : CG_NO_DEADLINE;
    for (int32_t i = 0; i < reg->n_order; i++) {
        const cg_group_t *g = reg->order[i];
        d = min64(d, min64(g->join_deadline, g->sync_deadline));
        for (int32_t j = 0; j < g->n_pending; j++) d = min64(d, g->pending[j].deadline);
        for (int32_t j = 0; j < g->n_members; j++) d = min64(d, g->members[j]->hb_deadline);
    }
    return min64(d, gr_cgc_next_deadline(reg));
}

static void expire_sessions(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    for (int32_t j = g->n_pending - 1; j >= 0; j--)
        if (g->pending[j].deadline <= now) {
            cg_pending_remove(g, g->pending[j].member_id);
            cg_maybe_complete_join_phase(reg, g, now, out);
        }
    for (int32_t j = 0; j < g->n_members; j++) {
        cg_member_t *m = g->members[j];
        if (m->hb_deadline > now) continue;
        m->hb_deadline = CG_NO_DEADLINE;
        /* A member parked in JoinGroup or SyncGroup is covered by the rebalance timeout. */
        if (!m->is_new && (m->awaiting_join || m->awaiting_sync)) continue;
        cg_remove_member_and_update(reg, g, m, now, out);
        j = -1; /* the member list changed: rescan */
    }
}

static void fire_join_timer(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    if (g->join_deadline > now) return;
    if (g->join_timer == JOIN_TIMER_INITIAL && g->new_member_added && g->init_remaining_ms != 0) {
        /* A member joined during the delay: extend it, within the rebalance timeout. */
        int32_t delay = reg->cfg.initial_rebalance_delay_ms;
        int32_t nd = delay < g->init_remaining_ms ? delay : g->init_remaining_ms;
        int32_t rem = g->init_remaining_ms - g->init_delay_ms;
        g->new_member_added = false;
        g->init_delay_ms = nd;
        g->init_remaining_ms = rem > 0 ? rem : 0;
        g->join_deadline = now + nd;
        return;
    }
    cg_complete_join_phase(reg, g, now, out);
}

static void fire_sync_timer(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    if (g->sync_deadline > now) return;
    g->sync_deadline = CG_NO_DEADLINE;
    if (g->generation != g->sync_generation) return;
    if (g->state != GR_CG_COMPLETING_REBALANCE && g->state != GR_CG_STABLE) return;
    if (g->n_pending_sync == 0) return;
    /* Members that never sent SyncGroup leave, and the group rebalances. */
    while (g->n_pending_sync > 0) {
        char *id = cg_strdup(g->pending_sync[0]);
        cg_member_t *m = cg_member(g, id);
        if (m) {
            cg_complete_join(g, m, out, GR_ERR_UNKNOWN_MEMBER_ID, false);
            cg_remove_member(g, id);
        } else {
            cg_pending_sync_remove(g, id);
        }
        free(id);
    }
    cg_prepare_rebalance(reg, g, now, out);
}

void gr_cg_tick(gr_cg_registry_t *reg, int64_t now, gr_cg_out_t *out) {
    for (int32_t i = 0; i < reg->n_order; i++) {
        cg_group_t *g = reg->order[i];
        expire_sessions(reg, g, now, out);
        fire_join_timer(reg, g, now, out);
        fire_sync_timer(reg, g, now, out);
    }
    gr_cgc_tick(reg, now, out);
    if (now >= reg->next_retention_ms) {
        cg_offsets_expire(reg, now, out);
        reg->next_retention_ms = now + reg->cfg.retention_check_ms;
    }
}

/* ------------------------------------------------------------------ namespace */

bool gr_cg_exists(const gr_cg_registry_t *reg, const char *group_id) { return cg_find(reg, group_id) != NULL; }

const char *gr_cg_state_name(gr_cg_state_t s) {
    static const char *names[] = {"Empty", "PreparingRebalance", "CompletingRebalance", "Stable",
                                  "Dead",  "Assigning",          "Reconciling"};
    return names[s];
}

int16_t gr_cg_describe(const gr_cg_registry_t *reg, const char *group_id, gr_cg_group_view_t *v) {
    memset(v, 0, sizeof(*v));
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g) return GR_ERR_GROUP_ID_NOT_FOUND;
    v->group_id = g->id;
    v->state = g->state;
    v->protocol_type = g->protocol_type ? g->protocol_type : "";
    v->protocol_name = g->protocol_name ? g->protocol_name : "";
    v->generation = g->generation;
    v->members = calloc((size_t)g->n_members + 1, sizeof(*v->members));
    if (!v->members) abort();
    v->n_members = g->n_members;
    for (int32_t i = 0; i < g->n_members; i++) {
        const cg_member_t *m = g->members[i];
        gr_cg_member_view_t *o = &v->members[i];
        *o = (gr_cg_member_view_t){m->member_id,  m->instance_id,   m->client_id, m->client_host, NULL, 0,
                                   m->assignment, m->assignment_len};
        for (int32_t k = 0; g->protocol_name && k < m->n_protos; k++)
            if (!strcmp(m->protos[k].name, g->protocol_name)) {
                o->metadata = m->protos[k].metadata;
                o->metadata_len = m->protos[k].len;
            }
    }
    return 0;
}

void gr_cg_view_free(gr_cg_group_view_t *v) {
    free(v->members);
    v->members = NULL;
}

int32_t gr_cg_count(const gr_cg_registry_t *reg) { return reg->n_order; }

void gr_cg_stats_at(const gr_cg_registry_t *reg, int32_t i, gr_cg_group_stats_t *st) {
    const cg_group_t *g = reg->order[i];
    *st = (gr_cg_group_stats_t){g->id, g->state, g->generation, cgc_n_members(g), g->rebalances, (int32_t)g->offsets.n};
}

int32_t gr_cg_list(const gr_cg_registry_t *reg, const char ***ids, gr_cg_state_t **states) {
    *ids = calloc((size_t)reg->n_order + 1, sizeof(char *));
    *states = calloc((size_t)reg->n_order + 1, sizeof(gr_cg_state_t));
    if (!*ids || !*states) abort();
    for (int32_t i = 0; i < reg->n_order; i++) {
        (*ids)[i] = reg->order[i]->id;
        (*states)[i] = reg->order[i]->state;
    }
    return reg->n_order;
}

int16_t gr_cg_delete_check(const gr_cg_registry_t *reg, const char *group_id) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->state == GR_CG_DEAD) return GR_ERR_GROUP_ID_NOT_FOUND;
    if (g->state != GR_CG_EMPTY) return GR_ERR_NON_EMPTY_GROUP;
    return 0;
}

void gr_cg_delete(gr_cg_registry_t *reg, const char *group_id, gr_cg_out_t *out) {
    cg_group_t *g = cg_find(reg, group_id);
    if (g) cg_remove_group(reg, g, out);
}

void gr_cg_restore_group(gr_cg_registry_t *reg, const char *group_id, const char *protocol_type, int32_t generation,
                         int64_t now) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) g = cg_create(reg, group_id, now);
    free(g->protocol_type);
    g->protocol_type = protocol_type && protocol_type[0] ? cg_strdup(protocol_type) : NULL;
    g->generation = generation;
}
