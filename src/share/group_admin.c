/* Share-group admin views and persistence: ShareGroupDescribe (§6.2), ListGroups (§6.1),
 * DeleteGroups (§6.6) and the export/import of a group's durable state (§7.4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "share/group_int.h"

gr_err_t gr_share_group_describe(const gr_share_group_registry_t *reg, const char *group_id, bool other_type,
                                 const gr_sg_group_t **out, gr_sg_state_t *state, char *errstr, size_t errstr_size) {
    *out = NULL;
    *state = GR_SG_DEAD;
    if (errstr_size) errstr[0] = '\0';
    if (!group_id || !*group_id) {
        snprintf(errstr, errstr_size, "The group id can't be empty.");
        return GR_ERR_INVALID_GROUP_ID;
    }
    if (other_type) {
        snprintf(errstr, errstr_size, "Group %s is not a share group.", group_id);
        return GR_ERR_GROUP_ID_NOT_FOUND;
    }
    const sg_group_t *grp = gr__sg_group_find(reg, group_id);
    if (!grp) {
        snprintf(errstr, errstr_size, "Group %s not found.", group_id);
        return GR_ERR_GROUP_ID_NOT_FOUND;
    }
    *out = &grp->g;
    *state = grp->g.n_members ? GR_SG_STABLE : GR_SG_EMPTY;
    return GR_ERR_NONE;
}

int32_t gr_share_group_list(const gr_share_group_registry_t *reg, const char *const *states, int32_t n_states,
                            gr_sg_list_entry_t **out) {
    *out = gr__sg_xcalloc((size_t)reg->n, sizeof(**out));
    int32_t n = 0;
    for (int32_t i = 0; i < reg->n; i++) {
        const sg_group_t *grp = reg->groups[i];
        const char *state = gr_share_group_state_name(grp->g.n_members ? GR_SG_STABLE : GR_SG_EMPTY);
        bool match = n_states <= 0;
        for (int32_t k = 0; !match && k < n_states; k++) match = states[k] && !strcasecmp(states[k], state);
        if (match) (*out)[n++] = (gr_sg_list_entry_t){grp->g.group_id, state};
    }
    return n;
}

gr_err_t gr_share_group_delete_check(const gr_share_group_registry_t *reg, const char *group_id) {
    const sg_group_t *grp = group_id ? gr__sg_group_find(reg, group_id) : NULL;
    if (!grp) return GR_ERR_GROUP_ID_NOT_FOUND;
    if (grp->g.n_members) return GR_ERR_NON_EMPTY_GROUP;
    return GR_ERR_NONE;
}

gr_err_t gr_share_group_delete(gr_share_group_registry_t *reg, const char *group_id, gr_sg_group_t *exported) {
    gr_err_t err = gr_share_group_delete_check(reg, group_id);
    if (err) return err;
    int32_t pos = gr__sg_group_pos(reg, group_id);
    if (exported) gr_sg_group_copy(exported, &reg->groups[pos]->g);
    gr__sg_group_remove(reg, pos);
    return GR_ERR_NONE;
}

gr_err_t gr_share_group_export(const gr_share_group_registry_t *reg, const char *group_id, gr_sg_group_t *out) {
    const sg_group_t *grp = group_id ? gr__sg_group_find(reg, group_id) : NULL;
    if (!grp) return GR_ERR__NOENT;
    gr_sg_group_copy(out, &grp->g);
    return GR_ERR_NONE;
}

static int member_cmp(const void *a, const void *b) {
    return strcmp(((const gr_sg_member_t *)a)->member_id, ((const gr_sg_member_t *)b)->member_id);
}

static int topic_cmp(const void *a, const void *b) {
    return strcmp(((const gr_sg_topic_meta_t *)a)->name, ((const gr_sg_topic_meta_t *)b)->name);
}

/* Re-sort and de-duplicate what an importer may hand over in any order. */
static void canonical_assignment(gr_sg_assignment_t *a) {
    gr__sg_tp_t *tps = NULL;
    size_t n = 0, cap = 0;
    gr__sg_assignment_to_tps(a, &tps, &n, &cap);
    gr_sg_assignment_free(a);
    gr__sg_assignment_from_tps(tps, n, a);
    free(tps);
}

static void canonical_member(gr_sg_member_t *m) {
    if (m->n_subscribed) qsort(m->subscribed, (size_t)m->n_subscribed, sizeof(char *), gr__sg_str_cmp);
    int32_t w = 0;
    for (int32_t i = 0; i < m->n_subscribed; i++) {
        if (w && !strcmp(m->subscribed[w - 1], m->subscribed[i]))
            free(m->subscribed[i]);
        else
            m->subscribed[w++] = m->subscribed[i];
    }
    m->n_subscribed = w;
    canonical_assignment(&m->assignment);
    canonical_assignment(&m->target);
}

static bool import_valid(const gr_sg_group_t *g) {
    if (!g->group_id || !*g->group_id || g->n_members < 0 || g->n_topics < 0) return false;
    for (int32_t i = 0; i < g->n_members; i++)
        if (!g->members[i].member_id || !*g->members[i].member_id) return false;
    for (int32_t i = 0; i < g->n_topics; i++)
        if (!g->topics[i].name) return false;
    return true;
}

gr_err_t gr_share_group_import(gr_share_group_registry_t *reg, const gr_sg_group_t *g, int64_t now_ms,
                               int32_t session_timeout_ms) {
    if (!import_valid(g)) return GR_ERR__INVALID_ARG;
    int32_t pos = gr__sg_group_pos(reg, g->group_id);
    if (pos >= 0) gr__sg_group_remove(reg, pos);
    sg_group_t *grp = gr__sg_group_create(reg, g->group_id);
    free(grp->g.group_id);
    gr_sg_group_copy(&grp->g, g);
    gr_sg_group_t *c = &grp->g;
    for (int32_t i = 0; i < c->n_members; i++) canonical_member(&c->members[i]);
    if (c->n_members) qsort(c->members, (size_t)c->n_members, sizeof(*c->members), member_cmp);
    for (int32_t i = 1; i < c->n_members; i++)
        if (!strcmp(c->members[i - 1].member_id, c->members[i].member_id)) {
            gr__sg_group_remove(reg, gr__sg_group_pos(reg, g->group_id));
            return GR_ERR__INVALID_ARG;
        }
    if (c->n_topics) qsort(c->topics, (size_t)c->n_topics, sizeof(*c->topics), topic_cmp);
    canonical_assignment(&c->initialized);
    grp->members_cap = c->n_members;
    grp->deadlines = gr__sg_xcalloc((size_t)c->n_members, sizeof(int64_t));
    for (int32_t i = 0; i < c->n_members; i++) grp->deadlines[i] = now_ms + session_timeout_ms;
    return GR_ERR_NONE;
}

int32_t gr_share_group_count(const gr_share_group_registry_t *reg) { return reg->n; }

const char *gr_share_group_id_at(const gr_share_group_registry_t *reg, int32_t i) {
    return i >= 0 && i < reg->n ? reg->groups[i]->g.group_id : NULL;
}

bool gr_share_group_exists(const gr_share_group_registry_t *reg, const char *group_id) {
    return group_id && gr__sg_group_find(reg, group_id);
}
