/* Consumer-protocol groups seen from outside the heartbeat: ConsumerGroupDescribe, the
 * group type in the one namespace, the downgrade of an empty group to classic, the
 * OffsetCommit / OffsetFetch member checks, and export / restore for the group store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/cgc_int.h"

gr_cg_type_t gr_cg_type(const gr_cg_registry_t *reg, const char *group_id) {
    const cg_group_t *g = cg_find(reg, group_id);
    return g ? g->type : (gr_cg_type_t)0;
}

int32_t cgc_n_members(const cg_group_t *g) { return g->cons ? g->cons->n_members : g->n_members; }

bool cgc_subscribed(const cg_group_t *g, const char *topic) {
    for (int32_t i = 0; g->cons && i < g->cons->n_members; i++)
        if (cgc_subscribes(g->cons->members[i], topic)) return true;
    return false;
}

int16_t gr_cgc_describe(const gr_cg_registry_t *reg, const char *group_id, const char *default_assignor,
                        gr_cgc_group_view_t *v, char *msg, size_t msg_size) {
    memset(v, 0, sizeof(*v));
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) {
        snprintf(msg, msg_size, g ? "Group %s is not a consumer group." : "Group %s not found.", group_id);
        return GR_ERR_GROUP_ID_NOT_FOUND;
    }
    const cgc_group_t *c = g->cons;
    *v = (gr_cgc_group_view_t){
        g->id, g->state,    c->group_epoch, c->assignment_epoch, c->assignor ? c->assignor : default_assignor,
        NULL,  c->n_members};
    v->members = calloc((size_t)c->n_members + 1, sizeof(*v->members));
    if (!v->members) abort();
    for (int32_t i = 0; i < c->n_members; i++) {
        const cgc_member_t *m = c->members[i];
        gr_cgc_member_view_t *o = &v->members[i];
        *o = (gr_cgc_member_view_t){m->member_id,
                                    m->instance_id,
                                    m->rack_id,
                                    m->client_id ? m->client_id : "",
                                    m->client_host ? m->client_host : "",
                                    m->regex,
                                    (const char *const *)m->topics,
                                    m->n_topics,
                                    m->epoch,
                                    {0},
                                    {0}};
        /* Kafka describes the partitions pending revocation as still assigned. */
        cgc_set_t all = {0};
        cgc_set_copy(&all, &m->assigned);
        for (int32_t k = 0; k < m->revoking.n; k++) cgc_set_add(&all, &m->revoking.v[k].id, m->revoking.v[k].p);
        cgc_set_to_assignment(&all, &o->assigned);
        cgc_set_free(&all);
        cgc_set_to_assignment(&m->target, &o->target);
    }
    return 0;
}

void gr_cgc_view_free(gr_cgc_group_view_t *v) {
    for (int32_t i = 0; i < v->n_members; i++) {
        gr_cgc_assignment_free(&v->members[i].assigned);
        gr_cgc_assignment_free(&v->members[i].target);
    }
    free(v->members);
    memset(v, 0, sizeof(*v));
}

bool gr_cgc_downgrade_if_empty(gr_cg_registry_t *reg, const char *group_id, gr_cg_out_t *out) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER || g->cons->n_members) return false;
    /* The offsets stay: the group becomes an Empty classic group. */
    cgc_group_free(g->cons);
    g->cons = NULL;
    g->type = GR_CG_TYPE_CLASSIC;
    g->generation = 0;
    cg_transition(g, GR_CG_EMPTY, g->state_ms);
    cg_mark_changed(out, g->id);
    return true;
}

void gr_cgc_classic_leave(gr_cg_registry_t *reg, const char *group_id, gr_cg_leave_member_t *ms, int32_t n, int64_t now,
                          gr_cg_out_t *out) {
    cg_group_t *g = cg_find(reg, group_id);
    for (int32_t i = 0; i < n; i++) {
        cgc_member_t *m = NULL;
        ms[i].error = GR_ERR_UNKNOWN_MEMBER_ID;
        if (!g || g->type != GR_CG_TYPE_CONSUMER) continue;
        if (ms[i].instance_id) {
            m = cgc_static_member(g->cons, ms[i].instance_id);
            if (m && ms[i].member_id[0] && strcmp(m->member_id, ms[i].member_id)) {
                ms[i].error = GR_ERR_FENCED_INSTANCE_ID;
                continue;
            }
        } else {
            m = cgc_member(g->cons, ms[i].member_id);
        }
        if (!m) continue;
        ms[i].error = 0;
        cgc_fence(g, m, now, out);
    }
}

/* ConsumerGroup.validateOffsetCommit as Kafka 4.4.0 answers it: an admin commit (epoch < 0)
 * into an empty group; otherwise a member of the group (UNKNOWN_MEMBER_ID) committing with
 * v9+ (UNSUPPORTED_VERSION) at an epoch not after its own (STALE_MEMBER_EPOCH); an older
 * epoch is accepted (a member committing what it consumed before its last epoch bump). */
int16_t gr_cgc_commit_check(const gr_cg_registry_t *reg, const char *group_id, const char *member_id,
                            int32_t member_epoch, int16_t version) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) return GR_ERR_GROUP_ID_NOT_FOUND;
    if (member_epoch < 0 && g->cons->n_members == 0) return 0;
    const cgc_member_t *m = cgc_member(g->cons, member_id ? member_id : "");
    if (!m) return GR_ERR_UNKNOWN_MEMBER_ID;
    if (version < 9) return GR_ERR_UNSUPPORTED_VERSION;
    if (member_epoch > m->epoch) return GR_ERR_STALE_MEMBER_EPOCH;
    return 0;
}

/* ConsumerGroup.validateOffsetFetch: no member id and epoch < 0 is an admin fetch. */
int16_t gr_cgc_fetch_check(const gr_cg_registry_t *reg, const char *group_id, const char *member_id,
                           int32_t member_epoch) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) return 0;
    if (member_epoch < 0 && !member_id) return 0;
    const cgc_member_t *m = cgc_member(g->cons, member_id ? member_id : "");
    if (!m) return GR_ERR_UNKNOWN_MEMBER_ID;
    if (member_epoch != m->epoch) return GR_ERR_STALE_MEMBER_EPOCH;
    return 0;
}

/* ------------------------------------------------------------------ export / restore */

bool gr_cgc_export(const gr_cg_registry_t *reg, const char *group_id, int32_t *group_epoch, int32_t *assignment_epoch,
                   uint64_t *topics_hash, gr_cgc_member_fn *fn, void *arg) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) return false;
    *group_epoch = g->cons->group_epoch;
    *assignment_epoch = g->cons->assignment_epoch;
    *topics_hash = g->cons->sub_hash;
    for (int32_t i = 0; fn && i < g->cons->n_members; i++) {
        const cgc_member_t *m = g->cons->members[i];
        gr_cgc_member_rec_t r = {m->member_id,
                                 m->instance_id,
                                 m->rack_id,
                                 m->client_id,
                                 m->client_host,
                                 m->regex,
                                 m->server_assignor,
                                 (const char *const *)m->topics,
                                 m->n_topics,
                                 m->epoch,
                                 m->prev_epoch,
                                 m->rebalance_ms,
                                 m->state,
                                 {0},
                                 {0},
                                 {0}};
        cgc_set_to_assignment(&m->assigned, &r.assigned);
        cgc_set_to_assignment(&m->revoking, &r.revoking);
        cgc_set_to_assignment(&m->target, &r.target);
        fn(arg, &r);
        gr_cgc_assignment_free(&r.assigned);
        gr_cgc_assignment_free(&r.revoking);
        gr_cgc_assignment_free(&r.target);
    }
    return true;
}

void gr_cgc_restore_group(gr_cg_registry_t *reg, const char *group_id, int32_t group_epoch, int32_t assignment_epoch,
                          uint64_t topics_hash, int64_t now) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) g = cgc_create(reg, group_id, now);
    g->cons->group_epoch = group_epoch;
    g->cons->assignment_epoch = assignment_epoch;
    g->cons->sub_hash = topics_hash;
    cgc_update_state(g, now);
}

static char *dup_or_null(const char *s) { return s ? cg_strdup(s) : NULL; }

void gr_cgc_restore_member(gr_cg_registry_t *reg, const char *group_id, const gr_cgc_member_rec_t *r,
                           int32_t session_timeout_ms, int64_t now) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) g = cgc_create(reg, group_id, now);
    cgc_group_t *c = g->cons;
    cgc_member_t *m = cgc_member(c, r->member_id);
    if (m) cgc_remove_member(c, m);
    m = calloc(1, sizeof(*m));
    if (!m) abort();
    m->member_id = cg_strdup(r->member_id);
    m->instance_id = dup_or_null(r->instance_id);
    m->rack_id = dup_or_null(r->rack_id);
    m->client_id = cg_strdup(r->client_id ? r->client_id : "");
    m->client_host = cg_strdup(r->client_host ? r->client_host : "");
    m->server_assignor = dup_or_null(r->server_assignor);
    m->regex = dup_or_null(r->regex);
    m->re_code = r->regex ? cgc_regex_compile(r->regex, NULL, 0) : NULL;
    m->topics = calloc((size_t)r->n_topics + 1, sizeof(char *));
    if (!m->topics) abort();
    for (int32_t i = 0; i < r->n_topics; i++) m->topics[i] = cg_strdup(r->topics[i]);
    m->n_topics = r->n_topics;
    m->epoch = r->member_epoch;
    m->prev_epoch = r->previous_epoch;
    m->rebalance_ms = r->rebalance_timeout_ms;
    m->state = r->state;
    cgc_set_from_assignment(&m->assigned, &r->assigned);
    cgc_set_from_assignment(&m->revoking, &r->revoking);
    cgc_set_from_assignment(&m->target, &r->target);
    /* As Kafka's onLoaded: a fresh session; a member still revoking gets its rebalance timeout again. */
    m->session_deadline = now + session_timeout_ms;
    m->rebalance_deadline = m->state == CGC_UNREVOKED ? now + m->rebalance_ms : CG_NO_DEADLINE;
    c->members = cg_grow(c->members, &c->cap_members, c->n_members + 1, sizeof(*c->members));
    c->members[c->n_members++] = m;
    cgc_update_state(g, now);
}
