/* Share-group coordinator state machine: registry, ShareGroupHeartbeat, session expiry,
 * admin views and export/import (KIP-932; docs/share-groups.md). See group.h.
 *
 * The flow of a heartbeat follows Kafka's GroupMetadataManager.shareGroupHeartbeat:
 * validate; find or create the group; refuse a full group; find or create the member
 * and check its epoch; apply rack/subscription/client changes; refresh the subscription
 * metadata from the caller's topic view; bump the group epoch when the subscription or
 * the metadata changed; recompute the target assignment when group epoch > assignment
 * epoch; reconcile the member straight to its target (share groups have no revocation
 * phase); re-arm the member's session deadline. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "share/group_int.h"

/* ---- plain data helpers ---- */

void gr_sg_member_free(gr_sg_member_t *m) {
    if (!m) return;
    free(m->member_id);
    free(m->client_id);
    free(m->client_host);
    free(m->rack_id);
    for (int32_t i = 0; i < m->n_subscribed; i++) free(m->subscribed[i]);
    free(m->subscribed);
    gr_sg_assignment_free(&m->assignment);
    gr_sg_assignment_free(&m->target);
    memset(m, 0, sizeof(*m));
}

void gr_sg_group_free(gr_sg_group_t *g) {
    if (!g) return;
    free(g->group_id);
    for (int32_t i = 0; i < g->n_members; i++) gr_sg_member_free(&g->members[i]);
    free(g->members);
    for (int32_t i = 0; i < g->n_topics; i++) free(g->topics[i].name);
    free(g->topics);
    gr_sg_assignment_free(&g->initialized);
    memset(g, 0, sizeof(*g));
}

static void member_copy(gr_sg_member_t *d, const gr_sg_member_t *s) {
    memset(d, 0, sizeof(*d));
    d->member_id = gr__sg_xstrdup(s->member_id);
    d->member_epoch = s->member_epoch;
    d->previous_epoch = s->previous_epoch;
    d->client_id = gr__sg_xstrdup(s->client_id ? s->client_id : "");
    d->client_host = gr__sg_xstrdup(s->client_host ? s->client_host : "");
    d->rack_id = gr__sg_xstrdup(s->rack_id);
    d->subscribed = gr__sg_xcalloc((size_t)s->n_subscribed, sizeof(char *));
    for (int32_t i = 0; i < s->n_subscribed; i++) d->subscribed[i] = gr__sg_xstrdup(s->subscribed[i]);
    d->n_subscribed = s->n_subscribed;
    gr_sg_assignment_copy(&d->assignment, &s->assignment);
    gr_sg_assignment_copy(&d->target, &s->target);
}

void gr_sg_group_copy(gr_sg_group_t *dst, const gr_sg_group_t *src) {
    memset(dst, 0, sizeof(*dst));
    dst->group_id = gr__sg_xstrdup(src->group_id);
    dst->group_epoch = src->group_epoch;
    dst->assignment_epoch = src->assignment_epoch;
    dst->members = gr__sg_xcalloc((size_t)src->n_members, sizeof(gr_sg_member_t));
    for (int32_t i = 0; i < src->n_members; i++) member_copy(&dst->members[i], &src->members[i]);
    dst->n_members = src->n_members;
    dst->topics = gr__sg_xcalloc((size_t)src->n_topics, sizeof(gr_sg_topic_meta_t));
    for (int32_t i = 0; i < src->n_topics; i++) {
        dst->topics[i] = src->topics[i];
        dst->topics[i].name = gr__sg_xstrdup(src->topics[i].name);
    }
    dst->n_topics = src->n_topics;
    gr_sg_assignment_copy(&dst->initialized, &src->initialized);
}

const char *gr_share_group_state_name(gr_sg_state_t state) {
    switch (state) {
    case GR_SG_EMPTY: return "Empty";
    case GR_SG_STABLE: return "Stable";
    default: return "Dead";
    }
}

/* ---- topic view over an array ---- */

static bool arr_by_name(void *ctx, const char *name, gr_uuid_t *id, int32_t *n) {
    const gr_sg_topic_array_t *a = ctx;
    for (int32_t i = 0; i < a->n; i++)
        if (!strcmp(a->names[i], name)) return *id = a->ids[i], *n = a->n_partitions[i], true;
    return false;
}

static bool arr_by_id(void *ctx, const gr_uuid_t *id, int32_t *n) {
    const gr_sg_topic_array_t *a = ctx;
    for (int32_t i = 0; i < a->n; i++)
        if (!gr__sg_uuid_cmp(&a->ids[i], id)) return *n = a->n_partitions[i], true;
    return false;
}

gr_sg_topic_view_t gr_sg_topic_array_view(const gr_sg_topic_array_t *arr) {
    return (gr_sg_topic_view_t){arr_by_name, arr_by_id, (void *)arr};
}

/* ---- registry ---- */

gr_share_group_registry_t *gr_share_group_registry_new(const gr_sg_broker_cfg_t *bcfg) {
    gr_share_group_registry_t *reg = gr__sg_xcalloc(1, sizeof(*reg));
    reg->bcfg = *bcfg;
    return reg;
}

void gr__sg_group_destroy(sg_group_t *grp) {
    gr_sg_group_free(&grp->g);
    free(grp->deadlines);
    free(grp->pending);
    free(grp);
}

void gr_share_group_registry_free(gr_share_group_registry_t *reg) {
    if (!reg) return;
    for (int32_t i = 0; i < reg->n; i++) gr__sg_group_destroy(reg->groups[i]);
    free(reg->groups);
    free(reg);
}

/* Index of group_id, or -(insertion point) - 1. */
int32_t gr__sg_group_pos(const gr_share_group_registry_t *reg, const char *group_id) {
    int32_t lo = 0, hi = reg->n - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(reg->groups[mid]->g.group_id, group_id);
        if (!c) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

sg_group_t *gr__sg_group_find(const gr_share_group_registry_t *reg, const char *group_id) {
    int32_t pos = gr__sg_group_pos(reg, group_id);
    return pos >= 0 ? reg->groups[pos] : NULL;
}

/* Insert an empty group (group_id must be absent). */
sg_group_t *gr__sg_group_create(gr_share_group_registry_t *reg, const char *group_id) {
    int32_t pos = -gr__sg_group_pos(reg, group_id) - 1;
    if (reg->n == reg->cap) {
        reg->cap = reg->cap ? reg->cap * 2 : 8;
        reg->groups = gr__sg_xrealloc(reg->groups, (size_t)reg->cap, sizeof(*reg->groups));
    }
    memmove(&reg->groups[pos + 1], &reg->groups[pos], (size_t)(reg->n - pos) * sizeof(*reg->groups));
    sg_group_t *grp = gr__sg_xcalloc(1, sizeof(*grp));
    grp->g.group_id = gr__sg_xstrdup(group_id);
    reg->groups[pos] = grp;
    reg->n++;
    return grp;
}

void gr__sg_group_remove(gr_share_group_registry_t *reg, int32_t pos) {
    gr__sg_group_destroy(reg->groups[pos]);
    memmove(&reg->groups[pos], &reg->groups[pos + 1], (size_t)(reg->n - pos - 1) * sizeof(*reg->groups));
    reg->n--;
}

static int32_t member_pos(const sg_group_t *grp, const char *member_id) {
    int32_t lo = 0, hi = grp->g.n_members - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(grp->g.members[mid].member_id, member_id);
        if (!c) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

/* Insert a new member with epoch 0 and no subscription at insertion point pos. */
static gr_sg_member_t *member_insert(sg_group_t *grp, int32_t pos, const char *member_id) {
    gr_sg_group_t *g = &grp->g;
    if (g->n_members == grp->members_cap) {
        grp->members_cap = grp->members_cap ? grp->members_cap * 2 : 4;
        g->members = gr__sg_xrealloc(g->members, (size_t)grp->members_cap, sizeof(*g->members));
        grp->deadlines = gr__sg_xrealloc(grp->deadlines, (size_t)grp->members_cap, sizeof(int64_t));
    }
    size_t tail = (size_t)(g->n_members - pos);
    memmove(&g->members[pos + 1], &g->members[pos], tail * sizeof(*g->members));
    memmove(&grp->deadlines[pos + 1], &grp->deadlines[pos], tail * sizeof(int64_t));
    gr_sg_member_t *m = &g->members[pos];
    memset(m, 0, sizeof(*m));
    m->member_id = gr__sg_xstrdup(member_id);
    m->client_id = gr__sg_xstrdup("");
    m->client_host = gr__sg_xstrdup("");
    grp->deadlines[pos] = INT64_MAX;
    g->n_members++;
    return m;
}

static void member_remove(sg_group_t *grp, int32_t pos) {
    gr_sg_group_t *g = &grp->g;
    gr_sg_member_free(&g->members[pos]);
    size_t tail = (size_t)(g->n_members - pos - 1);
    memmove(&g->members[pos], &g->members[pos + 1], tail * sizeof(*g->members));
    memmove(&grp->deadlines[pos], &grp->deadlines[pos + 1], tail * sizeof(int64_t));
    g->n_members--;
}

/* ---- subscription metadata ---- */

int gr__sg_str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool subscribed_by_anyone(const gr_sg_group_t *g, const char *name) {
    for (int32_t i = 0; i < g->n_members; i++)
        if (bsearch(&name, g->members[i].subscribed, (size_t)g->members[i].n_subscribed, sizeof(char *),
                    gr__sg_str_cmp))
            return true;
    return false;
}

/* Metadata of every topic some member subscribes to and the view knows, sorted by
 * name. Returns true (and replaces g->topics) if it differs from the stored one. */
static bool refresh_metadata(gr_sg_group_t *g, const gr_sg_topic_view_t *view) {
    size_t n = 0, cap = 0;
    char **names = NULL;
    for (int32_t i = 0; i < g->n_members; i++)
        for (int32_t j = 0; j < g->members[i].n_subscribed; j++) {
            if (n == cap) cap = cap ? cap * 2 : 8, names = gr__sg_xrealloc(names, cap, sizeof(char *));
            names[n++] = g->members[i].subscribed[j];
        }
    if (n) qsort(names, n, sizeof(char *), gr__sg_str_cmp);
    gr_sg_topic_meta_t *t = gr__sg_xcalloc(n, sizeof(*t));
    int32_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(names[i - 1], names[i])) continue;
        if (!view || !view->by_name(view->ctx, names[i], &t[nt].topic_id, &t[nt].n_partitions)) continue;
        t[nt++].name = names[i];
    }
    bool same = nt == g->n_topics;
    for (int32_t i = 0; same && i < nt; i++)
        same = !strcmp(t[i].name, g->topics[i].name) && !gr__sg_uuid_cmp(&t[i].topic_id, &g->topics[i].topic_id) &&
               t[i].n_partitions == g->topics[i].n_partitions;
    if (!same) {
        for (int32_t i = 0; i < nt; i++) t[i].name = gr__sg_xstrdup(t[i].name);
        for (int32_t i = 0; i < g->n_topics; i++) free(g->topics[i].name);
        free(g->topics);
        g->topics = t, g->n_topics = nt;
    } else {
        free(t);
    }
    free(names);
    return !same;
}

/* After members left: keep only topics still subscribed (no view needed). */
static bool trim_metadata(gr_sg_group_t *g) {
    int32_t w = 0;
    for (int32_t i = 0; i < g->n_topics; i++) {
        if (subscribed_by_anyone(g, g->topics[i].name))
            g->topics[w++] = g->topics[i];
        else
            free(g->topics[i].name);
    }
    bool changed = w != g->n_topics;
    g->n_topics = w;
    return changed;
}

/* Drop initialized partitions of topics that no longer exist (§6.6: topic deletion). */
static bool prune_initialized(gr_sg_group_t *g, const gr_sg_topic_view_t *view) {
    int32_t w = 0, n;
    gr_sg_assignment_t *a = &g->initialized;
    for (int32_t i = 0; i < a->n_topics; i++) {
        if (view->by_id(view->ctx, &a->topics[i].topic_id, &n))
            a->topics[w++] = a->topics[i];
        else
            free(a->topics[i].partitions);
    }
    bool changed = w != a->n_topics;
    a->n_topics = w;
    return changed;
}

/* ---- share-partition initialization (§4.5) ---- */

static pending_init_t *pending_find(sg_group_t *grp, const gr_uuid_t *id, int32_t p) {
    for (int32_t i = 0; i < grp->n_pending; i++)
        if (grp->pending[i].tp.partition == p && !gr__sg_uuid_cmp(&grp->pending[i].tp.topic_id, id))
            return &grp->pending[i];
    return NULL;
}

static void pending_drop(sg_group_t *grp, const gr_uuid_t *id, int32_t p) {
    pending_init_t *e = pending_find(grp, id, p);
    if (e) *e = grp->pending[--grp->n_pending];
}

/* Subscribed partitions neither initialized nor recently handed out for initialization. */
static void collect_uninitialized(gr_share_group_registry_t *reg, sg_group_t *grp, int64_t now_ms,
                                  gr_sg_assignment_t *out) {
    gr__sg_tp_t *tps = NULL;
    size_t n = 0, cap = 0;
    for (int32_t i = 0; i < grp->g.n_topics; i++) {
        const gr_sg_topic_meta_t *t = &grp->g.topics[i];
        for (int32_t p = 0; p < t->n_partitions; p++) {
            if (gr_sg_assignment_has(&grp->g.initialized, &t->topic_id, p)) continue;
            pending_init_t *e = pending_find(grp, &t->topic_id, p);
            if (e && now_ms - e->since_ms < reg->bcfg.initialize_retry_interval_ms) continue;
            if (!e) {
                if (grp->n_pending == grp->pending_cap) {
                    grp->pending_cap = grp->pending_cap ? grp->pending_cap * 2 : 16;
                    grp->pending = gr__sg_xrealloc(grp->pending, (size_t)grp->pending_cap, sizeof(*grp->pending));
                }
                e = &grp->pending[grp->n_pending++];
                e->tp = (gr__sg_tp_t){t->topic_id, p};
            }
            e->since_ms = now_ms;
            if (n == cap) cap = cap ? cap * 2 : 16, tps = gr__sg_xrealloc(tps, cap, sizeof(*tps));
            tps[n++] = e->tp;
        }
    }
    gr__sg_assignment_from_tps(tps, n, out);
    free(tps);
}

/* ---- target assignment ---- */

static int32_t topic_index(const gr_sg_group_t *g, const char *name) {
    int32_t lo = 0, hi = g->n_topics - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(g->topics[mid].name, name);
        if (!c) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Recompute every member's target over the initialized partitions of the subscribed
 * topics (§4.4-4.5); the group's assignment epoch becomes its group epoch. */
static void compute_target(gr_sg_group_t *g) {
    gr_sg_assign_topic_t *topics = gr__sg_xcalloc((size_t)g->n_topics, sizeof(*topics));
    int32_t **parts = gr__sg_xcalloc((size_t)g->n_topics, sizeof(int32_t *));
    for (int32_t t = 0; t < g->n_topics; t++) {
        topics[t].topic_id = g->topics[t].topic_id;
        parts[t] = gr__sg_xcalloc((size_t)g->topics[t].n_partitions, sizeof(int32_t));
        for (int32_t p = 0; p < g->topics[t].n_partitions; p++)
            if (gr_sg_assignment_has(&g->initialized, &g->topics[t].topic_id, p))
                parts[t][topics[t].n_partitions++] = p;
        topics[t].partitions = parts[t];
    }
    gr_sg_assign_member_t *ms = gr__sg_xcalloc((size_t)g->n_members, sizeof(*ms));
    int32_t **idx = gr__sg_xcalloc((size_t)g->n_members, sizeof(int32_t *));
    for (int32_t i = 0; i < g->n_members; i++) {
        const gr_sg_member_t *m = &g->members[i];
        idx[i] = gr__sg_xcalloc((size_t)m->n_subscribed, sizeof(int32_t));
        for (int32_t j = 0; j < m->n_subscribed; j++) {
            int32_t t = topic_index(g, m->subscribed[j]);
            if (t >= 0) idx[i][ms[i].n_topics++] = t;
        }
        ms[i] = (gr_sg_assign_member_t){m->member_id, idx[i], ms[i].n_topics, &m->target};
    }
    gr_sg_assignment_t *out = gr__sg_xcalloc((size_t)g->n_members, sizeof(*out));
    gr_sg_assign(topics, g->n_topics, ms, g->n_members, out);
    for (int32_t i = 0; i < g->n_members; i++) {
        gr_sg_assignment_free(&g->members[i].target);
        g->members[i].target = out[i];
        free(idx[i]);
    }
    for (int32_t t = 0; t < g->n_topics; t++) free(parts[t]);
    free(out), free(idx), free(ms), free(parts), free(topics);
    g->assignment_epoch = g->group_epoch;
}

/* ---- ShareGroupHeartbeat ---- */

/* Java's String.trim().isEmpty(): nothing above U+0020. */
static bool blank(const char *s) {
    for (; s && *s; s++)
        if ((unsigned char)*s > ' ') return false;
    return true;
}

static gr_err_t hb_fail(gr_sg_heartbeat_res_t *res, gr_err_t err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gr_err_t hb_fail(gr_sg_heartbeat_res_t *res, gr_err_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->errmsg, sizeof(res->errmsg), fmt, ap);
    va_end(ap);
    res->err = err;
    res->member_epoch = 0;
    res->heartbeat_interval_ms = 0;
    res->assignment = NULL;
    return err;
}

/* §4.2, in Kafka's order (GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid). */
static gr_err_t hb_validate(const gr_sg_heartbeat_req_t *req, gr_sg_heartbeat_res_t *res) {
    if (blank(req->member_id)) return hb_fail(res, GR_ERR_INVALID_REQUEST, "MemberId can't be empty.");
    if (blank(req->group_id)) return hb_fail(res, GR_ERR_INVALID_REQUEST, "GroupId can't be empty.");
    if (req->rack_id && blank(req->rack_id)) return hb_fail(res, GR_ERR_INVALID_REQUEST, "RackId can't be empty.");
    if (req->member_epoch == 0) {
        if (req->n_subscribed <= 0)
            return hb_fail(res, GR_ERR_INVALID_REQUEST, "SubscribedTopicNames must be set in first request.");
    } else if (req->member_epoch < -1) {
        return hb_fail(res, GR_ERR_INVALID_REQUEST, "MemberEpoch is invalid.");
    }
    return GR_ERR_NONE;
}

/* §4.3: a greater epoch is fenced; a smaller one only passes as the previous epoch
 * (the response carrying the new epoch was lost). */
static gr_err_t hb_check_epoch(const gr_sg_member_t *m, int32_t epoch, gr_sg_heartbeat_res_t *res) {
    if (epoch > m->member_epoch)
        return hb_fail(res, GR_ERR_FENCED_MEMBER_EPOCH,
                       "The share group member has a greater member epoch (%d) than the one known by the group "
                       "coordinator (%d). The member must abandon all its partitions and rejoin.",
                       epoch, m->member_epoch);
    if (epoch < m->member_epoch && epoch != m->previous_epoch)
        return hb_fail(res, GR_ERR_FENCED_MEMBER_EPOCH,
                       "The share group member has a smaller member epoch (%d) than the one known by the group "
                       "coordinator (%d), and it does not match the previous member epoch (%d). The member must "
                       "abandon all its partitions and rejoin.",
                       epoch, m->member_epoch, m->previous_epoch);
    return GR_ERR_NONE;
}

static bool replace_str(char **dst, const char *src) {
    if (*dst && src && !strcmp(*dst, src)) return false;
    if (!*dst && !src) return false;
    free(*dst);
    *dst = gr__sg_xstrdup(src);
    return true;
}

/* Apply a full subscription (sorted, de-duplicated). Returns true if it changed. */
static bool set_subscription(gr_sg_member_t *m, const char *const *names, int32_t n) {
    char **v = gr__sg_xcalloc((size_t)n, sizeof(char *));
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) v[k++] = (char *)(names[i] ? names[i] : "");
    if (k) qsort(v, (size_t)k, sizeof(char *), gr__sg_str_cmp);
    int32_t w = 0;
    for (int32_t i = 0; i < k; i++)
        if (!w || strcmp(v[w - 1], v[i])) v[w++] = v[i];
    bool same = w == m->n_subscribed;
    for (int32_t i = 0; same && i < w; i++) same = !strcmp(v[i], m->subscribed[i]);
    if (same) {
        free(v);
        return false;
    }
    for (int32_t i = 0; i < w; i++) v[i] = gr__sg_xstrdup(v[i]);
    for (int32_t i = 0; i < m->n_subscribed; i++) free(m->subscribed[i]);
    free(m->subscribed);
    m->subscribed = v, m->n_subscribed = w;
    return true;
}

/* Returns true if the subscription changed (group epoch bump); *changed if anything did. */
static bool update_member(gr_sg_member_t *m, const gr_sg_heartbeat_req_t *req, bool *changed) {
    if (req->rack_id && replace_str(&m->rack_id, req->rack_id)) *changed = true;
    if (replace_str(&m->client_id, req->client_id ? req->client_id : "")) *changed = true;
    if (replace_str(&m->client_host, req->client_host ? req->client_host : "")) *changed = true;
    if (req->n_subscribed >= 0 && set_subscription(m, req->subscribed, req->n_subscribed)) {
        *changed = true;
        return true;
    }
    return false;
}

/* Share members take their target at once (no revocation phase, §4.4). Returns true if
 * the member's assigned partitions changed. */
static bool reconcile(gr_sg_member_t *m, int32_t assignment_epoch, bool *changed) {
    bool parts_changed = !gr_sg_assignment_equal(&m->assignment, &m->target);
    if (m->member_epoch != assignment_epoch) {
        m->previous_epoch = m->member_epoch;
        m->member_epoch = assignment_epoch;
        *changed = true;
    }
    if (parts_changed) {
        gr_sg_assignment_free(&m->assignment);
        gr_sg_assignment_copy(&m->assignment, &m->target);
        *changed = true;
    }
    return parts_changed;
}

/* Remove member pos (leave or expiry): group epoch bump, metadata trimmed. When the
 * last member goes, the (empty) target assignment is current at once: Apache Kafka
 * 4.4.0 describes an emptied group with assignment epoch = group epoch (4.3.1 kept the
 * old assignment epoch; share differential test, describe_after_leave). */
static void fence_member(sg_group_t *grp, int32_t pos) {
    member_remove(grp, pos);
    trim_metadata(&grp->g);
    grp->g.group_epoch++;
    if (grp->g.n_members == 0) grp->g.assignment_epoch = grp->g.group_epoch;
}

static gr_err_t hb_leave(gr_share_group_registry_t *reg, const gr_sg_heartbeat_req_t *req, gr_sg_heartbeat_res_t *res) {
    if (req->id_used_by_other_type)
        return hb_fail(res, GR_ERR_GROUP_ID_NOT_FOUND, "Group %s is not a share group.", req->group_id);
    sg_group_t *grp = gr__sg_group_find(reg, req->group_id);
    if (!grp) return hb_fail(res, GR_ERR_GROUP_ID_NOT_FOUND, "Share group %s not found.", req->group_id);
    int32_t pos = member_pos(grp, req->member_id);
    if (pos < 0)
        return hb_fail(res, GR_ERR_UNKNOWN_MEMBER_ID, "Member %s is not a member of group %s.", req->member_id,
                       req->group_id);
    /* Leaving the group does not release the member's acquired records (Apache Kafka
     * 4.4.0: they stay acquired until their locks expire or its share sessions end). */
    fence_member(grp, pos);
    res->member_epoch = -1;
    res->group_changed = true;
    return GR_ERR_NONE;
}

/* Find or create the group and the member, with the checks of §4.3. */
static gr_err_t hb_lookup(gr_share_group_registry_t *reg, const gr_sg_heartbeat_req_t *req, gr_sg_heartbeat_res_t *res,
                          sg_group_t **grp_out, int32_t *pos_out) {
    if (req->id_used_by_other_type)
        return hb_fail(res, GR_ERR_GROUP_ID_NOT_FOUND, "Group %s is not a share group.", req->group_id);
    sg_group_t *grp = gr__sg_group_find(reg, req->group_id);
    if (!grp && req->member_epoch != 0)
        return hb_fail(res, GR_ERR_GROUP_ID_NOT_FOUND, "Share group %s not found.", req->group_id);
    if (!grp) {
        grp = gr__sg_group_create(reg, req->group_id);
        res->group_created = res->group_changed = true;
    }
    int32_t pos = member_pos(grp, req->member_id);
    if (pos < 0 && grp->g.n_members >= reg->bcfg.max_size)
        return hb_fail(res, GR_ERR_GROUP_MAX_SIZE_REACHED,
                       "The share group has reached its maximum capacity of %d members.", reg->bcfg.max_size);
    if (pos < 0 && req->member_epoch != 0)
        return hb_fail(res, GR_ERR_UNKNOWN_MEMBER_ID, "Member %s is not a member of group %s.", req->member_id,
                       req->group_id);
    gr_err_t err;
    if (pos >= 0 && req->member_epoch > 0 && (err = hb_check_epoch(&grp->g.members[pos], req->member_epoch, res)))
        return err;
    if (pos < 0) {
        pos = -pos - 1;
        member_insert(grp, pos, req->member_id);
        res->group_changed = true;
    }
    *grp_out = grp;
    *pos_out = pos;
    return GR_ERR_NONE;
}

gr_err_t gr_share_group_heartbeat(gr_share_group_registry_t *reg, const gr_sg_heartbeat_req_t *req,
                                  const gr_sgc_values_t *cfg, const gr_sg_topic_view_t *topics, int64_t now_ms,
                                  gr_sg_heartbeat_res_t *res) {
    memset(res, 0, sizeof(*res));
    res->member_id = req->member_id;
    sg_group_t *grp = NULL;
    int32_t pos = 0;
    gr_err_t err;
    if ((err = hb_validate(req, res))) return err;
    if (req->member_epoch == -1) return hb_leave(reg, req, res);
    if ((err = hb_lookup(reg, req, res, &grp, &pos))) return err;
    gr_sg_group_t *g = &grp->g;
    gr_sg_member_t *m = &g->members[pos];
    bool bump = update_member(m, req, &res->group_changed);
    if (refresh_metadata(g, topics)) bump = res->group_changed = true;
    if (topics && prune_initialized(g, topics)) res->group_changed = true;
    collect_uninitialized(reg, grp, now_ms, &res->to_initialize);
    if (bump) g->group_epoch++;
    if (g->group_epoch > g->assignment_epoch) {
        compute_target(g);
        res->group_changed = true;
    }
    bool parts_changed = reconcile(m, g->assignment_epoch, &res->group_changed);
    grp->deadlines[pos] = now_ms + cfg->session_timeout_ms;
    res->member_deadline_ms = grp->deadlines[pos];
    res->member_epoch = m->member_epoch;
    res->heartbeat_interval_ms = cfg->heartbeat_interval_ms;
    if (req->member_epoch == 0 || req->n_subscribed >= 0 || parts_changed) res->assignment = &m->assignment;
    return GR_ERR_NONE;
}

void gr_sg_heartbeat_res_free(gr_sg_heartbeat_res_t *res) {
    if (!res) return;
    gr_sg_assignment_free(&res->to_initialize);
}

/* ---- session expiry (§4.6) ---- */

int32_t gr_share_group_expire(gr_share_group_registry_t *reg, int64_t now_ms, gr_sg_expired_t **out) {
    int32_t n = 0, cap = 0;
    *out = NULL;
    for (int32_t gi = 0; gi < reg->n; gi++) {
        sg_group_t *grp = reg->groups[gi];
        for (int32_t i = grp->g.n_members - 1; i >= 0; i--) {
            if (grp->deadlines[i] > now_ms) continue;
            if (n == cap) cap = cap ? cap * 2 : 4, *out = gr__sg_xrealloc(*out, (size_t)cap, sizeof(**out));
            (*out)[n].group_id = gr__sg_xstrdup(grp->g.group_id);
            (*out)[n++].member_id = gr__sg_xstrdup(grp->g.members[i].member_id);
            fence_member(grp, i);
        }
    }
    return n;
}

void gr_sg_expired_free(gr_sg_expired_t *v, int32_t n) {
    for (int32_t i = 0; v && i < n; i++) free(v[i].group_id), free(v[i].member_id);
    free(v);
}

int64_t gr_share_group_next_deadline(const gr_share_group_registry_t *reg) {
    int64_t next = INT64_MAX;
    for (int32_t gi = 0; gi < reg->n; gi++)
        for (int32_t i = 0; i < reg->groups[gi]->g.n_members; i++)
            if (reg->groups[gi]->deadlines[i] < next) next = reg->groups[gi]->deadlines[i];
    return next;
}

/* ---- share-partition initialization results (§4.5) ---- */

gr_err_t gr_share_group_mark_initialized(gr_share_group_registry_t *reg, const char *group_id,
                                         const gr_sg_assignment_t *parts, bool *changed) {
    if (changed) *changed = false;
    sg_group_t *grp = gr__sg_group_find(reg, group_id);
    if (!grp) return GR_ERR__NOENT;
    gr__sg_tp_t *tps = NULL;
    size_t n = 0, cap = 0;
    gr__sg_assignment_to_tps(&grp->g.initialized, &tps, &n, &cap);
    gr__sg_assignment_to_tps(parts, &tps, &n, &cap);
    for (int32_t i = 0; i < parts->n_topics; i++)
        for (int32_t j = 0; j < parts->topics[i].n_partitions; j++)
            pending_drop(grp, &parts->topics[i].topic_id, parts->topics[i].partitions[j]);
    int32_t before = gr_sg_assignment_count(&grp->g.initialized);
    gr_sg_assignment_t merged;
    gr__sg_assignment_from_tps(tps, n, &merged);
    free(tps);
    gr_sg_assignment_free(&grp->g.initialized);
    grp->g.initialized = merged;
    if (gr_sg_assignment_count(&merged) != before) {
        /* Newly initialized partitions are not in the target assignment yet (§4.4). */
        grp->g.group_epoch++;
        if (changed) *changed = true;
    }
    return GR_ERR_NONE;
}

void gr_share_group_init_failed(gr_share_group_registry_t *reg, const char *group_id, const gr_sg_assignment_t *parts) {
    sg_group_t *grp = gr__sg_group_find(reg, group_id);
    for (int32_t i = 0; grp && i < parts->n_topics; i++)
        for (int32_t j = 0; j < parts->topics[i].n_partitions; j++)
            pending_drop(grp, &parts->topics[i].topic_id, parts->topics[i].partitions[j]);
}

gr_err_t gr_share_group_forget_topic(gr_share_group_registry_t *reg, const char *group_id, const gr_uuid_t *topic_id,
                                     bool *changed) {
    if (changed) *changed = false;
    sg_group_t *grp = gr__sg_group_find(reg, group_id);
    if (!grp) return GR_ERR__NOENT;
    for (int32_t i = grp->n_pending - 1; i >= 0; i--)
        if (!gr__sg_uuid_cmp(&grp->pending[i].tp.topic_id, topic_id)) grp->pending[i] = grp->pending[--grp->n_pending];
    gr_sg_assignment_t *a = &grp->g.initialized;
    for (int32_t i = 0; i < a->n_topics; i++) {
        if (gr__sg_uuid_cmp(&a->topics[i].topic_id, topic_id)) continue;
        free(a->topics[i].partitions);
        memmove(&a->topics[i], &a->topics[i + 1], (size_t)(a->n_topics - i - 1) * sizeof(*a->topics));
        a->n_topics--;
        grp->g.group_epoch++; /* its partitions must leave the target assignment */
        if (changed) *changed = true;
        break;
    }
    return GR_ERR_NONE;
}

void gr_share_group_ensure(gr_share_group_registry_t *reg, const char *group_id, bool *created) {
    bool c = !gr__sg_group_find(reg, group_id);
    if (c) gr__sg_group_create(reg, group_id);
    if (created) *created = c;
}
