/* Consumer groups: the registry, members and protocol selection (ClassicGroup's
 * bookkeeping: add/remove keep the leader, the awaiting-join count, the static
 * member map and the protocol type as Kafka does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "cgroup/cg_int.h"

char *cg_strdup(const char *s) {
    if (!s) return NULL;
    char *r = strdup(s);
    if (!r) abort();
    return r;
}

void *cg_grow(void *v, int32_t *cap, int32_t need, size_t size) {
    if (need <= *cap) return v;
    int32_t nc = *cap ? *cap * 2 : 4;
    while (nc < need) nc *= 2;
    v = realloc(v, (size_t)nc * size);
    if (!v) abort();
    *cap = nc;
    return v;
}

void gr_cg_config_default(gr_cg_config_t *c) {
    *c = (gr_cg_config_t){.min_session_timeout_ms = 6000,
                          .max_session_timeout_ms = 1800000,
                          .max_size = INT32_MAX,
                          .initial_rebalance_delay_ms = 3000,
                          .new_member_join_timeout_ms = 300000,
                          .offset_metadata_max_bytes = 4096,
                          .offsets_retention_ms = 7LL * 24 * 3600 * 1000,
                          .retention_check_ms = 600000};
}

gr_cg_registry_t *gr_cg_registry_new(const gr_cg_config_t *cfg) {
    gr_cg_registry_t *r = calloc(1, sizeof(*r));
    if (!r) abort();
    r->cfg = *cfg;
    gr_htab_init(&r->groups, 16);
    r->next_retention_ms = CG_NO_DEADLINE;
    return r;
}

static bool id_eq(const gr_hnode_t *n, const void *key) { return !strcmp(CG_ENTRY(n)->id, key); }

cg_group_t *cg_find(const gr_cg_registry_t *reg, const char *id) {
    gr_hnode_t **s = gr_htab_slot(&reg->groups, gr_hash_str(id), id_eq, id);
    return CG_ENTRY(*s);
}

cg_group_t *cg_create(gr_cg_registry_t *reg, const char *id, int64_t now) {
    cg_group_t *g = calloc(1, sizeof(*g));
    if (!g) abort();
    g->id = cg_strdup(id);
    g->type = GR_CG_TYPE_CLASSIC;
    g->state = g->prev_state = GR_CG_EMPTY;
    g->state_ms = now;
    g->join_deadline = g->sync_deadline = CG_NO_DEADLINE;
    gr_htab_init(&g->offsets, 8);
    gr_htab_insert(&reg->groups, &g->node, gr_hash_str(id));
    reg->order = cg_grow(reg->order, &reg->cap_order, reg->n_order + 1, sizeof(*reg->order));
    reg->order[reg->n_order++] = g;
    if (reg->next_retention_ms == CG_NO_DEADLINE) reg->next_retention_ms = now + reg->cfg.retention_check_ms;
    return g;
}

void cg_member_free(cg_member_t *m) {
    if (!m) return;
    free(m->member_id);
    free(m->instance_id);
    free(m->client_id);
    free(m->client_host);
    for (int32_t i = 0; i < m->n_protos; i++) {
        free(m->protos[i].name);
        free(m->protos[i].metadata);
    }
    free(m->protos);
    free(m->assignment);
    free(m);
}

static void group_free(cg_group_t *g) {
    for (int32_t i = 0; i < g->n_members; i++) cg_member_free(g->members[i]);
    free(g->members);
    for (int32_t i = 0; i < g->n_pending; i++) free(g->pending[i].member_id);
    free(g->pending);
    for (int32_t i = 0; i < g->n_pending_sync; i++) free(g->pending_sync[i]);
    free(g->pending_sync);
    cg_offsets_free(g);
    cgc_group_free(g->cons);
    free(g->protocol_type);
    free(g->protocol_name);
    free(g->leader);
    free(g->id);
    free(g);
}

void cg_remove_group(gr_cg_registry_t *reg, cg_group_t *g, gr_cg_out_t *out) {
    gr_hnode_t **s = gr_htab_slot(&reg->groups, gr_hash_str(g->id), id_eq, g->id);
    gr_htab_unlink(&reg->groups, s);
    for (int32_t i = 0; i < reg->n_order; i++)
        if (reg->order[i] == g) {
            memmove(&reg->order[i], &reg->order[i + 1], (size_t)(reg->n_order - i - 1) * sizeof(*reg->order));
            reg->n_order--;
            break;
        }
    if (out) {
        out->removed = cg_grow(out->removed, &out->cap_removed, out->n_removed + 1, sizeof(char *));
        out->removed[out->n_removed++] = cg_strdup(g->id);
    }
    group_free(g);
}

void gr_cg_registry_free(gr_cg_registry_t *reg) {
    if (!reg) return;
    cg_txn_free_all(reg);
    for (int32_t i = 0; i < reg->n_order; i++) group_free(reg->order[i]);
    free(reg->order);
    gr_htab_free(&reg->groups);
    free(reg);
}

void cg_transition(cg_group_t *g, gr_cg_state_t s, int64_t now) {
    g->prev_state = g->state;
    g->state = s;
    g->state_ms = now;
}

cg_member_t *cg_member(const cg_group_t *g, const char *member_id) {
    for (int32_t i = 0; i < g->n_members; i++)
        if (!strcmp(g->members[i]->member_id, member_id)) return g->members[i];
    return NULL;
}

cg_member_t *cg_static_member(const cg_group_t *g, const char *instance_id) {
    for (int32_t i = 0; instance_id && i < g->n_members; i++)
        if (g->members[i]->instance_id && !strcmp(g->members[i]->instance_id, instance_id)) return g->members[i];
    return NULL;
}

int32_t cg_pending_index(const cg_group_t *g, const char *member_id) {
    for (int32_t i = 0; i < g->n_pending; i++)
        if (!strcmp(g->pending[i].member_id, member_id)) return i;
    return -1;
}

void cg_pending_remove(cg_group_t *g, const char *member_id) {
    int32_t i = cg_pending_index(g, member_id);
    if (i < 0) return;
    free(g->pending[i].member_id);
    memmove(&g->pending[i], &g->pending[i + 1], (size_t)(g->n_pending - i - 1) * sizeof(*g->pending));
    g->n_pending--;
}

void cg_pending_sync_remove(cg_group_t *g, const char *member_id) {
    for (int32_t i = 0; i < g->n_pending_sync; i++)
        if (!strcmp(g->pending_sync[i], member_id)) {
            free(g->pending_sync[i]);
            memmove(&g->pending_sync[i], &g->pending_sync[i + 1], (size_t)(g->n_pending_sync - i - 1) * sizeof(char *));
            g->n_pending_sync--;
            return;
        }
}

void cg_member_set_protocols(cg_member_t *m, const gr_cg_protocol_t *p, int32_t n) {
    for (int32_t i = 0; i < m->n_protos; i++) {
        free(m->protos[i].name);
        free(m->protos[i].metadata);
    }
    free(m->protos);
    m->protos = calloc((size_t)n + 1, sizeof(*m->protos));
    if (!m->protos) abort();
    for (int32_t i = 0; i < n; i++) {
        m->protos[i].name = cg_strdup(p[i].name);
        m->protos[i].metadata = malloc((size_t)p[i].metadata_len + 1);
        if (!m->protos[i].metadata) abort();
        if (p[i].metadata_len) memcpy(m->protos[i].metadata, p[i].metadata, (size_t)p[i].metadata_len);
        m->protos[i].len = p[i].metadata_len;
    }
    m->n_protos = n;
}

void cg_add_member(cg_group_t *g, cg_member_t *m) {
    if (!g->leader) g->leader = cg_strdup(m->member_id);
    g->members = cg_grow(g->members, &g->cap_members, g->n_members + 1, sizeof(*g->members));
    g->members[g->n_members++] = m;
    if (m->awaiting_join) g->n_awaiting_join++;
    cg_pending_remove(g, m->member_id);
}

void cg_remove_member(cg_group_t *g, const char *member_id) {
    for (int32_t i = 0; i < g->n_members; i++) {
        cg_member_t *m = g->members[i];
        if (strcmp(m->member_id, member_id)) continue;
        if (m->awaiting_join) g->n_awaiting_join--;
        memmove(&g->members[i], &g->members[i + 1], (size_t)(g->n_members - i - 1) * sizeof(*g->members));
        g->n_members--;
        bool was_leader = g->leader && !strcmp(g->leader, member_id);
        cg_pending_sync_remove(g, member_id);
        cg_member_free(m);
        if (was_leader) {
            free(g->leader);
            g->leader = g->n_members ? cg_strdup(g->members[0]->member_id) : NULL;
        }
        return;
    }
    cg_pending_remove(g, member_id);
    cg_pending_sync_remove(g, member_id);
}

static bool member_supports(const cg_member_t *m, const char *name) {
    for (int32_t i = 0; i < m->n_protos; i++)
        if (!strcmp(m->protos[i].name, name)) return true;
    return false;
}

/* ClassicGroup.supportsProtocols: an empty group takes any non-empty type and list;
 * otherwise the type must match and one protocol must be supported by every member. */
bool cg_supports_protocols(const cg_group_t *g, const char *type, const gr_cg_protocol_t *p, int32_t n) {
    if (g->n_members == 0) return type[0] && n > 0;
    if (!g->protocol_type || strcmp(g->protocol_type, type)) return false;
    for (int32_t i = 0; i < n; i++) {
        bool all = true;
        for (int32_t j = 0; j < g->n_members && all; j++) all = member_supports(g->members[j], p[i].name);
        if (all) return true;
    }
    return false;
}

bool cg_member_matches(const cg_member_t *m, const gr_cg_protocol_t *p, int32_t n) {
    if (m->n_protos != n) return false;
    for (int32_t i = 0; i < n; i++)
        if (strcmp(m->protos[i].name, p[i].name) || m->protos[i].len != p[i].metadata_len ||
            (p[i].metadata_len && memcmp(m->protos[i].metadata, p[i].metadata, (size_t)p[i].metadata_len)))
            return false;
    return true;
}

/* ClassicGroup.selectProtocol: the candidates are the protocols every member
 * supports; each member votes for its first candidate; most votes wins (a tie
 * goes to the candidate that reached the count first in member order). */
char *cg_select_protocol(const cg_group_t *g) {
    if (g->n_members == 0) return NULL;
    const cg_member_t *m0 = g->members[0];
    int32_t *votes = calloc((size_t)m0->n_protos + 1, sizeof(int32_t));
    if (!votes) abort();
    for (int32_t j = 0; j < g->n_members; j++) {
        const cg_member_t *m = g->members[j];
        for (int32_t k = 0; k < m->n_protos; k++) {
            int32_t idx = -1;
            for (int32_t c = 0; c < m0->n_protos; c++)
                if (!strcmp(m0->protos[c].name, m->protos[k].name)) idx = c;
            bool all = idx >= 0;
            for (int32_t x = 0; x < g->n_members && all; x++) all = member_supports(g->members[x], m->protos[k].name);
            if (!all) continue;
            votes[idx]++;
            break;
        }
    }
    int32_t best = -1;
    for (int32_t c = 0; c < m0->n_protos; c++)
        if (votes[c] > 0 && (best < 0 || votes[c] > votes[best])) best = c;
    free(votes);
    return best < 0 ? NULL : cg_strdup(m0->protos[best].name);
}

int32_t cg_rebalance_timeout(const cg_group_t *g) {
    int32_t t = 0;
    for (int32_t i = 0; i < g->n_members; i++)
        if (g->members[i]->rebalance_ms > t) t = g->members[i]->rebalance_ms;
    return t;
}

bool cg_all_joined(const cg_group_t *g) { return g->n_members == g->n_awaiting_join && g->n_pending == 0; }

void cg_mark_changed(gr_cg_out_t *out, const char *id) {
    for (int32_t i = 0; i < out->n_changed; i++)
        if (!strcmp(out->changed[i], id)) return;
    out->changed = cg_grow(out->changed, &out->cap_changed, out->n_changed + 1, sizeof(char *));
    out->changed[out->n_changed++] = cg_strdup(id);
}

gr_cg_answer_t *cg_answer(gr_cg_out_t *out, void *waiter, gr_cg_answer_kind_t kind, int16_t error) {
    out->answers = cg_grow(out->answers, &out->cap_answers, out->n_answers + 1, sizeof(*out->answers));
    gr_cg_answer_t *a = &out->answers[out->n_answers++];
    *a = (gr_cg_answer_t){.waiter = waiter, .kind = kind, .error = error, .generation = -1};
    a->leader = cg_strdup("");
    a->member_id = cg_strdup("");
    return a;
}

static const cg_proto_t *selected_proto(const cg_group_t *g, const cg_member_t *m) {
    for (int32_t i = 0; g->protocol_name && i < m->n_protos; i++)
        if (!strcmp(m->protos[i].name, g->protocol_name)) return &m->protos[i];
    return NULL;
}

void cg_leader_members(const cg_group_t *g, gr_cg_answer_t *a) {
    a->members = calloc((size_t)g->n_members + 1, sizeof(*a->members));
    if (!a->members) abort();
    a->n_members = g->n_members;
    for (int32_t i = 0; i < g->n_members; i++) {
        const cg_member_t *m = g->members[i];
        const cg_proto_t *p = selected_proto(g, m);
        gr_cg_jmember_t *o = &a->members[i];
        o->member_id = cg_strdup(m->member_id);
        o->instance_id = cg_strdup(m->instance_id);
        o->metadata_len = p ? p->len : 0;
        o->metadata = malloc((size_t)o->metadata_len + 1);
        if (!o->metadata) abort();
        if (p && p->len) memcpy(o->metadata, p->metadata, (size_t)p->len);
    }
}

void cg_complete_join(cg_group_t *g, cg_member_t *m, gr_cg_out_t *out, int16_t error, bool with_group) {
    if (!m->awaiting_join) return;
    if (m->join_waiter) {
        gr_cg_answer_t *a = cg_answer(out, m->join_waiter, GR_CG_ANSWER_JOIN, error);
        if (with_group) {
            free(a->member_id);
            free(a->leader);
            a->member_id = cg_strdup(m->member_id);
            a->leader = cg_strdup(g->leader ? g->leader : "");
            a->generation = g->generation;
            a->protocol_type = cg_strdup(g->protocol_type);
            a->protocol_name = cg_strdup(g->protocol_name);
            if (g->leader && !strcmp(g->leader, m->member_id)) cg_leader_members(g, a);
        }
    }
    m->awaiting_join = false;
    m->join_waiter = NULL;
    g->n_awaiting_join--;
}

void cg_complete_sync(cg_group_t *g, cg_member_t *m, gr_cg_out_t *out, int16_t error) {
    if (!m->awaiting_sync) return;
    if (m->sync_waiter) {
        gr_cg_answer_t *a = cg_answer(out, m->sync_waiter, GR_CG_ANSWER_SYNC, error);
        if (!error) {
            a->protocol_type = cg_strdup(g->protocol_type);
            a->protocol_name = cg_strdup(g->protocol_name);
            a->assignment_len = m->assignment_len;
            a->assignment = malloc((size_t)m->assignment_len + 1);
            if (!a->assignment) abort();
            if (m->assignment_len) memcpy(a->assignment, m->assignment, (size_t)m->assignment_len);
        }
    }
    m->awaiting_sync = false;
    m->sync_waiter = NULL;
}

/* ClassicGroup.validateMember. */
int16_t cg_validate_member(const cg_group_t *g, const char *member_id, const char *instance_id) {
    if (instance_id) {
        const cg_member_t *s = cg_static_member(g, instance_id);
        if (!s) return GR_ERR_UNKNOWN_MEMBER_ID;
        if (strcmp(s->member_id, member_id)) return GR_ERR_FENCED_INSTANCE_ID;
        return 0;
    }
    return cg_member(g, member_id) ? 0 : GR_ERR_UNKNOWN_MEMBER_ID;
}

void gr_cg_out_init(gr_cg_out_t *o) { memset(o, 0, sizeof(*o)); }

void gr_cg_out_free(gr_cg_out_t *o) {
    for (int32_t i = 0; i < o->n_answers; i++) {
        gr_cg_answer_t *a = &o->answers[i];
        free(a->protocol_type);
        free(a->protocol_name);
        free(a->leader);
        free(a->member_id);
        free(a->assignment);
        for (int32_t j = 0; j < a->n_members; j++) {
            free(a->members[j].member_id);
            free(a->members[j].instance_id);
            free(a->members[j].metadata);
        }
        free(a->members);
    }
    free(o->answers);
    for (int32_t i = 0; i < o->n_changed; i++) free(o->changed[i]);
    free(o->changed);
    for (int32_t i = 0; i < o->n_removed; i++) free(o->removed[i]);
    free(o->removed);
    for (int32_t i = 0; i < o->n_expired; i++) {
        free(o->expired[i].group_id);
        free(o->expired[i].topic);
    }
    free(o->expired);
    for (int32_t i = 0; i < o->n_gone; i++) {
        free(o->gone[i].group_id);
        free(o->gone[i].member_id);
    }
    free(o->gone);
    memset(o, 0, sizeof(*o));
}
