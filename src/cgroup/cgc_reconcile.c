/* Consumer-protocol groups: members, the subscribed topics, the target assignment (at
 * most once per group.consumer.assignment.interval.ms, from the first heartbeat after it,
 * as Kafka 4.4.0), reconciliation of one member towards it (Kafka's
 * CurrentAssignmentBuilder), the group state, fencing and timers. */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "cgroup/cgc_int.h"

cgc_group_t *cgc_of(const cg_group_t *g) { return g ? g->cons : NULL; }

cgc_member_t *cgc_member(const cgc_group_t *c, const char *member_id) {
    for (int32_t i = 0; c && i < c->n_members; i++)
        if (!strcmp(c->members[i]->member_id, member_id)) return c->members[i];
    return NULL;
}

cgc_member_t *cgc_static_member(const cgc_group_t *c, const char *instance_id) {
    for (int32_t i = 0; c && instance_id && i < c->n_members; i++)
        if (c->members[i]->instance_id && !strcmp(c->members[i]->instance_id, instance_id)) return c->members[i];
    return NULL;
}

void cgc_member_free(cgc_member_t *m) {
    if (!m) return;
    free(m->member_id);
    free(m->instance_id);
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
    free(m->regex);
    free(m->server_assignor);
    for (int32_t i = 0; i < m->n_topics; i++) free(m->topics[i]);
    free(m->topics);
    cgc_set_free(&m->assigned);
    cgc_set_free(&m->revoking);
    cgc_set_free(&m->target);
    cgc_regex_free(m->re_code);
    free(m);
}

void cgc_remove_member(cgc_group_t *c, cgc_member_t *m) {
    for (int32_t i = 0; i < c->n_members; i++)
        if (c->members[i] == m) {
            memmove(&c->members[i], &c->members[i + 1], (size_t)(c->n_members - i - 1) * sizeof(*c->members));
            c->n_members--;
            break;
        }
    cgc_member_free(m);
}

void cgc_group_free(cgc_group_t *c) {
    if (!c) return;
    for (int32_t i = 0; i < c->n_members; i++) cgc_member_free(c->members[i]);
    free(c->members);
    free(c->assignor);
    free(c);
}

cg_group_t *cgc_create(gr_cg_registry_t *reg, const char *group_id, int64_t now) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) g = cg_create(reg, group_id, now);
    g->type = GR_CG_TYPE_CONSUMER;
    free(g->protocol_type);
    free(g->protocol_name);
    free(g->leader);
    g->protocol_type = g->protocol_name = g->leader = NULL;
    g->cons = calloc(1, sizeof(*g->cons));
    if (!g->cons) abort();
    g->cons->last_assign_ms = INT64_MIN / 2;
    g->cons->sub_hash = cgc_empty_hash();
    return g;
}

bool cgc_subscribes(const cgc_member_t *m, const char *name) {
    for (int32_t i = 0; i < m->n_topics; i++)
        if (!strcmp(m->topics[i], name)) return true;
    return m->re_code && !m->re_pending && cgc_regex_match(m->re_code, name);
}

/* ------------------------------------------------------------------ subscribed topics */

typedef struct gather {
    const cgc_group_t *c;
    const gr_cgc_topics_t *view;
    cgc_topic_t *v;
    int32_t n, cap;
} gather_t;

static void gather_add(gather_t *ga, const char *name) {
    for (int32_t i = 0; i < ga->n; i++)
        if (!strcmp(ga->v[i].name, name)) return;
    gr_uuid_t id;
    int32_t np;
    if (!ga->view->by_name(ga->view->ctx, name, &id, &np) || np <= 0) return;
    ga->v = cg_grow(ga->v, &ga->cap, ga->n + 1, sizeof(*ga->v));
    ga->v[ga->n++] = (cgc_topic_t){cg_strdup(name), id, np};
}

static void gather_regex(void *arg, const char *name) {
    gather_t *ga = arg;
    for (int32_t i = 0; i < ga->c->n_members; i++) {
        const cgc_member_t *m = ga->c->members[i];
        if (m->re_code && !m->re_pending && cgc_regex_match(m->re_code, name)) {
            gather_add(ga, name);
            return;
        }
    }
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const cgc_topic_t *)a)->name, ((const cgc_topic_t *)b)->name);
}

/* Every existing topic some member subscribes to, sorted by name. */
static void gather(const cgc_group_t *c, const gr_cgc_topics_t *view, gather_t *ga) {
    memset(ga, 0, sizeof(*ga));
    ga->c = c;
    ga->view = view;
    bool any_regex = false;
    for (int32_t i = 0; i < c->n_members; i++) {
        for (int32_t k = 0; k < c->members[i]->n_topics; k++) gather_add(ga, c->members[i]->topics[k]);
        any_regex |= c->members[i]->re_code != NULL && !c->members[i]->re_pending;
    }
    if (any_regex && view->each) view->each(view->ctx, gather_regex, ga);
    if (ga->n > 1) qsort(ga->v, (size_t)ga->n, sizeof(*ga->v), by_name);
}

static void gather_free(gather_t *ga) {
    for (int32_t i = 0; i < ga->n; i++) free((char *)ga->v[i].name);
    free(ga->v);
}

static uint64_t hash_topics(const gather_t *ga) {
    uint64_t h = 1469598103934665603ULL;
    for (int32_t i = 0; i < ga->n; i++) {
        for (const char *p = ga->v[i].name; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ULL;
        for (int k = 0; k < 16; k++) h = (h ^ ga->v[i].id.b[k]) * 1099511628211ULL;
        h = (h ^ (uint64_t)(uint32_t)ga->v[i].n_partitions) * 1099511628211ULL;
    }
    return h;
}

uint64_t cgc_empty_hash(void) { return 1469598103934665603ULL; }

uint64_t cgc_sub_hash(const cgc_group_t *c, const gr_cgc_topics_t *topics) {
    gather_t ga;
    gather(c, topics, &ga);
    uint64_t h = hash_topics(&ga);
    gather_free(&ga);
    return h;
}

/* ------------------------------------------------------------------ target assignment */

/* The assignor most members ask for (ties: the configured order), else the default. */
static const char *pick_assignor(const cgc_group_t *c, const gr_cgc_cfg_t *cfg) {
    int32_t best = -1, best_n = 0;
    for (int32_t a = 0; a < cfg->n_assignors; a++) {
        int32_t n = 0;
        for (int32_t i = 0; i < c->n_members; i++)
            n += c->members[i]->server_assignor && !strcmp(c->members[i]->server_assignor, cfg->assignors[a]);
        if (n > best_n) best = a, best_n = n;
    }
    return cfg->n_assignors ? cfg->assignors[best < 0 ? 0 : best] : "uniform";
}

void cgc_maybe_assign(cgc_group_t *c, const gr_cgc_cfg_t *cfg, const gr_cgc_topics_t *topics, int64_t now) {
    if (c->group_epoch <= c->assignment_epoch) return;
    if (c->n_members && now < c->last_assign_ms + cfg->assignment_interval_ms) return;
    gather_t ga;
    gather(c, topics, &ga);
    bool *subs = calloc((size_t)c->n_members * (size_t)ga.n + 1, sizeof(bool));
    if (!subs) abort();
    for (int32_t i = 0; i < c->n_members; i++)
        for (int32_t t = 0; t < ga.n; t++) subs[i * ga.n + t] = cgc_subscribes(c->members[i], ga.v[t].name);
    const char *name = pick_assignor(c, cfg);
    if (!strcmp(name, "range"))
        cgc_assign_range(c->members, c->n_members, ga.v, ga.n, subs);
    else
        cgc_assign_uniform(c->members, c->n_members, ga.v, ga.n, subs);
    free(subs);
    free(c->assignor);
    c->assignor = cg_strdup(name);
    gather_free(&ga);
    c->assignment_epoch = c->group_epoch;
    c->last_assign_ms = now;
}

/* ------------------------------------------------------------------ reconciliation */

/* Is (id, p) held (assigned or pending revocation) by a member other than m? */
static bool held_by_other(const cgc_group_t *c, const cgc_member_t *m, const cgc_tp_t *tp) {
    for (int32_t i = 0; i < c->n_members; i++) {
        const cgc_member_t *o = c->members[i];
        if (o == m) continue;
        if (cgc_set_has(&o->assigned, &tp->id, tp->p) || cgc_set_has(&o->revoking, &tp->id, tp->p)) return true;
    }
    return false;
}

static bool owned_has_any(const cgc_set_t *owned, const cgc_set_t *s) {
    for (int32_t i = 0; i < s->n; i++)
        if (cgc_set_has(owned, &s->v[i].id, s->v[i].p)) return true;
    return false;
}

/* Returns true if the member's assigned partitions, epoch or state changed; *moved (may be
 * NULL) tells whether its assigned partitions did (Kafka then sends the assignment). */
bool cgc_reconcile(cgc_group_t *c, cgc_member_t *m, const cgc_set_t *owned, int64_t now, bool *moved) {
    if (moved) *moved = false;
    if (m->epoch < 0) return false; /* a static member that left temporarily */
    if (m->state == CGC_UNREVOKED) {
        /* The member must say it no longer owns what it revokes. */
        if (!owned || owned_has_any(owned, &m->revoking)) return false;
        cgc_set_clear(&m->revoking);
        m->rebalance_deadline = CG_NO_DEADLINE;
    } else if (m->state == CGC_STABLE && m->epoch == c->assignment_epoch) {
        return false;
    }
    cgc_set_t keep = {0}, revoke = {0}, add = {0};
    cgc_set_intersect(&keep, &m->assigned, &m->target);
    cgc_set_minus(&revoke, &m->assigned, &m->target);
    cgc_set_minus(&add, &m->target, &m->assigned);
    bool changed = true;
    if (revoke.n) {
        if (moved) *moved = true;
        cgc_set_copy(&m->assigned, &keep);
        cgc_set_copy(&m->revoking, &revoke);
        m->state = CGC_UNREVOKED;
        m->rebalance_deadline = now + m->rebalance_ms;
    } else {
        int32_t missing = 0;
        for (int32_t i = 0; i < add.n; i++) {
            if (held_by_other(c, m, &add.v[i]))
                missing++;
            else
                cgc_set_add(&keep, &add.v[i].id, add.v[i].p);
        }
        if (moved) *moved = !cgc_set_equal(&keep, &m->assigned);
        changed =
            !cgc_set_equal(&keep, &m->assigned) || m->epoch != c->assignment_epoch || m->state != CGC_STABLE || missing;
        cgc_set_copy(&m->assigned, &keep);
        if (m->epoch != c->assignment_epoch) {
            m->prev_epoch = m->epoch;
            m->epoch = c->assignment_epoch;
        }
        m->state = missing ? CGC_UNRELEASED : CGC_STABLE;
    }
    cgc_set_free(&keep);
    cgc_set_free(&revoke);
    cgc_set_free(&add);
    return changed;
}

void cgc_update_state(cg_group_t *g, int64_t now) {
    const cgc_group_t *c = g->cons;
    gr_cg_state_t s = GR_CG_STABLE;
    if (!c->n_members)
        s = GR_CG_EMPTY;
    else if (c->group_epoch > c->assignment_epoch)
        s = GR_CG_ASSIGNING;
    else
        for (int32_t i = 0; i < c->n_members; i++)
            if (c->members[i]->state != CGC_STABLE || c->members[i]->epoch != c->assignment_epoch)
                s = GR_CG_RECONCILING;
    if (s != g->state) cg_transition(g, s, now);
    g->generation = c->group_epoch;
}

void cgc_gone(gr_cg_out_t *out, const char *group_id, const char *member_id) {
    if (!out) return;
    out->gone = cg_grow(out->gone, &out->cap_gone, out->n_gone + 1, sizeof(*out->gone));
    out->gone[out->n_gone++] = (gr_cg_member_ref_t){cg_strdup(group_id), cg_strdup(member_id)};
}

void cgc_fence(cg_group_t *g, cgc_member_t *m, int64_t now, gr_cg_out_t *out) {
    cgc_gone(out, g->id, m->member_id);
    cgc_remove_member(g->cons, m);
    g->cons->group_epoch++;
    if (!g->cons->n_members) {
        /* Kafka computes the (empty) target at once, and the next member to come is
         * assigned without waiting for the assignment interval. */
        g->cons->assignment_epoch = g->cons->group_epoch;
        g->cons->last_assign_ms = INT64_MIN / 2;
    }
    cgc_update_state(g, now);
    cg_mark_changed(out, g->id);
}

/* ------------------------------------------------------------------ timers */

int64_t gr_cgc_next_deadline(const gr_cg_registry_t *reg) {
    int64_t next = CG_NO_DEADLINE;
    for (int32_t i = 0; i < reg->n_order; i++) {
        const cgc_group_t *c = reg->order[i]->cons;
        for (int32_t k = 0; c && k < c->n_members; k++) {
            if (c->members[k]->session_deadline < next) next = c->members[k]->session_deadline;
            if (c->members[k]->rebalance_deadline < next) next = c->members[k]->rebalance_deadline;
        }
    }
    return next;
}

/* A member whose session expired, or that did not revoke within its rebalance timeout,
 * is fenced (Kafka's consumerGroupFenceMember). */
void gr_cgc_tick(gr_cg_registry_t *reg, int64_t now, gr_cg_out_t *out) {
    for (int32_t i = 0; i < reg->n_order; i++) {
        cg_group_t *g = reg->order[i];
        for (int32_t k = 0; g->cons && k < g->cons->n_members;) {
            cgc_member_t *m = g->cons->members[k];
            if (now >= m->session_deadline || now >= m->rebalance_deadline)
                cgc_fence(g, m, now, out);
            else
                k++;
        }
    }
}
