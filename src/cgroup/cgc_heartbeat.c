/* ConsumerGroupHeartbeat: the request checks (Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid,
 * with 4.4.0's messages), joining (new, rejoining and static members), leaving (-1) and
 * the temporary leave of a static member (-2), member-epoch fencing, subscription
 * changes bumping the group epoch, then the target assignment and reconciliation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/cgc_int.h"

static bool blank(const char *s) {
    if (!s) return false;
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\f' && *s != '\v') return false;
    return true;
}

static int16_t fail(gr_cgc_hb_res_t *res, int16_t err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int16_t fail(gr_cgc_hb_res_t *res, int16_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->errmsg, sizeof(res->errmsg), fmt, ap);
    va_end(ap);
    res->error = err;
    return err;
}

static bool assignor_known(const gr_cgc_cfg_t *cfg, const char *name) {
    for (int32_t i = 0; i < cfg->n_assignors; i++)
        if (!strcmp(cfg->assignors[i], name)) return true;
    return false;
}

static int16_t validate(const gr_cgc_hb_req_t *r, const gr_cgc_cfg_t *cfg, gr_cgc_hb_res_t *res) {
    if ((r->version >= 1 || r->member_epoch > 0 || r->member_epoch == -1) && blank(r->member_id))
        return fail(res, GR_ERR_INVALID_REQUEST, "MemberId can't be empty.");
    if (blank(r->group_id)) return fail(res, GR_ERR_INVALID_REQUEST, "GroupId can't be empty.");
    if (blank(r->instance_id)) return fail(res, GR_ERR_INVALID_REQUEST, "InstanceId can't be empty.");
    if (blank(r->rack_id)) return fail(res, GR_ERR_INVALID_REQUEST, "RackId can't be empty.");
    if (r->member_epoch == 0) {
        if (r->rebalance_timeout_ms == -1)
            return fail(res, GR_ERR_INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.");
        if (!r->owned || r->n_owned != 0)
            return fail(res, GR_ERR_INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.");
        if (!r->topics && !r->regex)
            return fail(res, GR_ERR_INVALID_REQUEST,
                        "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
    } else if (r->member_epoch == -2) {
        if (!r->instance_id) return fail(res, GR_ERR_INVALID_REQUEST, "InstanceId can't be null.");
    } else if (r->member_epoch < -2) {
        return fail(res, GR_ERR_INVALID_REQUEST, "MemberEpoch is invalid.");
    }
    if (r->server_assignor && !assignor_known(cfg, r->server_assignor)) {
        char list[128] = "";
        for (int32_t i = 0; i < cfg->n_assignors; i++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", cfg->assignors[i]);
        return fail(res, GR_ERR_UNSUPPORTED_ASSIGNOR, "ServerAssignor %s is not supported. Supported assignors: %s.",
                    r->server_assignor, list);
    }
    char why[160];
    if (r->regex && *r->regex && !gr_cgc_regex_valid(r->regex, why, sizeof(why)))
        return fail(res, GR_ERR_INVALID_REGULAR_EXPRESSION,
                    "SubscribedTopicRegex `%s` is not a valid regular expression: %s.", r->regex, why);
    return 0;
}

static void answer(gr_cgc_hb_res_t *res, const char *member_id, int32_t epoch, int32_t interval) {
    snprintf(res->member_id, sizeof(res->member_id), "%s", member_id);
    res->member_epoch = epoch;
    res->heartbeat_interval_ms = interval;
}

/* Epoch -1 (leave) and -2 (static member leaving for a while). */
static void leave(gr_cg_registry_t *reg, const gr_cgc_hb_req_t *r, int64_t now, gr_cgc_hb_res_t *res,
                  gr_cg_out_t *out) {
    cg_group_t *g = cg_find(reg, r->group_id);
    if (!g || g->type != GR_CG_TYPE_CONSUMER) {
        fail(res, GR_ERR_GROUP_ID_NOT_FOUND, g ? "Group %s is not a consumer group." : "Group %s not found.",
             r->group_id);
        return;
    }
    cgc_member_t *m;
    if (r->instance_id) {
        m = cgc_static_member(g->cons, r->instance_id);
        if (!m) {
            fail(res, GR_ERR_UNKNOWN_MEMBER_ID, "Instance id %s is unknown.", r->instance_id);
            return;
        }
        if (strcmp(m->member_id, r->member_id)) {
            fail(res, GR_ERR_FENCED_INSTANCE_ID, "Static member %s with instance id %s was fenced by member %s.",
                 r->member_id, r->instance_id, m->member_id);
            return;
        }
    } else if (!(m = cgc_member(g->cons, r->member_id))) {
        fail(res, GR_ERR_UNKNOWN_MEMBER_ID, "Member %s is not a member of group %s.", r->member_id, r->group_id);
        return;
    }
    answer(res, r->member_id, r->member_epoch, 0);
    res->changed = true;
    if (r->member_epoch == -2) {
        m->prev_epoch = m->epoch;
        m->epoch = -2;
        cgc_set_clear(&m->revoking);
        m->state = CGC_STABLE;
        m->rebalance_deadline = CG_NO_DEADLINE;
        cgc_update_state(g, now);
        cg_mark_changed(out, g->id);
        return;
    }
    cgc_fence(g, m, now, out);
}

/* The group for a heartbeat of epoch >= 0: Kafka's getOrMaybeCreateConsumerGroup. An
 * empty classic group (offsets only) becomes a consumer group and keeps its offsets. */
static cg_group_t *group_for(gr_cg_registry_t *reg, const gr_cgc_hb_req_t *r, int64_t now, gr_cgc_hb_res_t *res) {
    cg_group_t *g = cg_find(reg, r->group_id);
    if (!g && r->member_epoch != 0) {
        fail(res, GR_ERR_GROUP_ID_NOT_FOUND, "Consumer group %s not found.", r->group_id);
        return NULL;
    }
    if (g && g->type != GR_CG_TYPE_CONSUMER) {
        bool empty_classic = g->n_members == 0 && g->n_pending == 0 && g->state == GR_CG_EMPTY;
        if (r->member_epoch != 0) {
            fail(res, GR_ERR_GROUP_ID_NOT_FOUND, "Group %s is not a consumer group.", r->group_id);
            return NULL;
        }
        if (!empty_classic) {
            /* Kafka upgrades a non-empty classic group of the consumer protocol online;
             * gregord does not (as Kafka with group.consumer.migration.policy=downgrade). */
            bool consumer = g->protocol_type && !strcmp(g->protocol_type, "consumer");
            fail(res, GR_ERR_GROUP_ID_NOT_FOUND,
                 consumer ? "Cannot upgrade classic group %s to consumer group because online upgrade is disabled."
                          : "Cannot upgrade classic group %s to consumer group because the group does not use the "
                            "consumer embedded protocol.",
                 r->group_id);
            return NULL;
        }
    }
    if (!g || g->type != GR_CG_TYPE_CONSUMER) g = cgc_create(reg, r->group_id, now);
    return g;
}

static int16_t fenced(gr_cgc_hb_res_t *res, const char *what, int32_t got, int32_t known) {
    return fail(res, GR_ERR_FENCED_MEMBER_EPOCH,
                "The consumer group member has a %s member epoch (%d) than the one known by the group coordinator "
                "(%d). The member must abandon all its partitions and rejoin.",
                what, got, known);
}

static bool owned_subset(const gr_cgc_hb_req_t *r, const cgc_set_t *assigned) {
    if (!r->owned) return false;
    for (int32_t t = 0; t < r->n_owned; t++)
        for (int32_t i = 0; i < r->owned[t].n; i++)
            if (!cgc_set_has(assigned, &r->owned[t].topic_id, r->owned[t].partitions[i])) return false;
    return true;
}

/* The member a heartbeat of epoch >= 0 is about; NULL with res->error set. */
static cgc_member_t *member_for(cg_group_t *g, const gr_cgc_hb_req_t *r, const gr_cgc_cfg_t *cfg, bool *created,
                                gr_cgc_hb_res_t *res, gr_cg_out_t *out) {
    cgc_group_t *c = g->cons;
    cgc_member_t *m = cgc_member(c, r->member_id);
    *created = false;
    if (r->member_epoch > 0) {
        if (!m) {
            fail(res, GR_ERR_UNKNOWN_MEMBER_ID, "Member %s is not a member of group %s.", r->member_id, g->id);
            return NULL;
        }
        if (r->member_epoch > m->epoch) {
            fenced(res, "greater", r->member_epoch, m->epoch);
            return NULL;
        }
        /* A smaller epoch is the previous one of a member that missed our answer. */
        if (r->member_epoch < m->epoch && (r->member_epoch != m->prev_epoch || !owned_subset(r, &m->assigned))) {
            fenced(res, "smaller", r->member_epoch, m->epoch);
            return NULL;
        }
        return m;
    }
    cgc_member_t *s = cgc_static_member(c, r->instance_id);
    if (s && s != m) {
        if (s->epoch != -2) {
            fail(res, GR_ERR_UNRELEASED_INSTANCE_ID,
                 "Static member %s with instance id %s cannot join the group because the instance id is owned by %s "
                 "member.",
                 r->member_id, r->instance_id, s->member_id);
            return NULL;
        }
        /* The static member comes back under a new id with its partitions. */
        cgc_gone(out, g->id, s->member_id);
        free(s->member_id);
        s->member_id = cg_strdup(r->member_id);
        s->epoch = s->prev_epoch;
        return s;
    }
    if (m) { /* rejoining: it owns nothing now */
        cgc_set_clear(&m->assigned);
        cgc_set_clear(&m->revoking);
        m->state = CGC_STABLE;
        m->prev_epoch = m->epoch;
        m->epoch = 0;
        return m;
    }
    if (c->n_members >= cfg->max_size) {
        fail(res, GR_ERR_GROUP_MAX_SIZE_REACHED, "The consumer group has reached its maximum capacity of %d members.",
             cfg->max_size);
        return NULL;
    }
    m = calloc(1, sizeof(*m));
    if (!m) abort();
    m->member_id = cg_strdup(r->member_id);
    m->session_deadline = m->rebalance_deadline = CG_NO_DEADLINE;
    c->members = cg_grow(c->members, &c->cap_members, c->n_members + 1, sizeof(*c->members));
    c->members[c->n_members++] = m;
    *created = true;
    return m;
}

static bool set_str(char **dst, const char *v) {
    if (!v) return false;
    if (*dst && !strcmp(*dst, v)) return false;
    free(*dst);
    *dst = cg_strdup(v);
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Apply what the request changes; true if the subscription changed (group epoch bump). */
static bool update_member(cgc_member_t *m, const gr_cgc_hb_req_t *r) {
    bool sub = false;
    set_str(&m->instance_id, r->instance_id);
    set_str(&m->rack_id, r->rack_id);
    set_str(&m->client_id, r->client_id ? r->client_id : "");
    set_str(&m->client_host, r->client_host ? r->client_host : "");
    sub |= set_str(&m->server_assignor, r->server_assignor);
    if (r->rebalance_timeout_ms != -1) m->rebalance_ms = r->rebalance_timeout_ms;
    if (r->regex) {
        const char *re = *r->regex ? r->regex : NULL;
        if ((re == NULL) != (m->regex == NULL) || (re && strcmp(re, m->regex))) {
            free(m->regex);
            cgc_regex_free(m->re_code);
            m->regex = re ? cg_strdup(re) : NULL;
            m->re_code = re ? cgc_regex_compile(re, NULL, 0) : NULL;
            m->re_pending = re != NULL;
            sub = true;
        }
    }
    if (r->topics) {
        char **t = calloc((size_t)r->n_topics + 1, sizeof(char *));
        if (!t) abort();
        int32_t n = 0;
        for (int32_t i = 0; i < r->n_topics; i++) t[n++] = cg_strdup(r->topics[i]);
        qsort(t, (size_t)n, sizeof(char *), cmp_str);
        int32_t u = 0;
        for (int32_t i = 0; i < n; i++) {
            if (u && !strcmp(t[u - 1], t[i]))
                free(t[i]);
            else
                t[u++] = t[i];
        }
        bool same = u == m->n_topics;
        for (int32_t i = 0; same && i < u; i++) same = !strcmp(t[i], m->topics[i]);
        for (int32_t i = 0; i < m->n_topics; i++) free(m->topics[i]);
        free(m->topics);
        m->topics = t;
        m->n_topics = u;
        sub |= !same;
    }
    return sub;
}

static void owned_set(const gr_cgc_hb_req_t *r, cgc_set_t *s) {
    for (int32_t t = 0; t < r->n_owned; t++)
        for (int32_t i = 0; i < r->owned[t].n; i++) cgc_set_add(s, &r->owned[t].topic_id, r->owned[t].partitions[i]);
}

void gr_cgc_heartbeat(gr_cg_registry_t *reg, const gr_cgc_hb_req_t *r, const gr_cgc_cfg_t *cfg,
                      const gr_cgc_topics_t *topics, int64_t now, gr_cgc_hb_res_t *res, gr_cg_out_t *out) {
    memset(res, 0, sizeof(*res));
    if (validate(r, cfg, res)) return;
    if (r->member_epoch < 0) return leave(reg, r, now, res, out);
    bool new_group = !cg_find(reg, r->group_id);
    cg_group_t *g = group_for(reg, r, now, res);
    if (!g) return;
    bool created;
    cgc_member_t *m = member_for(g, r, cfg, &created, res, out);
    if (!m) {
        if (new_group) cg_remove_group(reg, g, NULL);
        return;
    }
    cgc_group_t *c = g->cons;
    for (int32_t i = 0; i < c->n_members; i++) c->members[i]->re_pending = false;
    /* Kafka 4.4.0 bumps the group epoch once for the member's subscription and once more
     * when the subscribed topics' metadata hash moved (a new group's first member: 2). */
    if (update_member(m, r) || created) {
        c->group_epoch++;
        res->changed = true;
    }
    m->session_deadline = now + cfg->session_timeout_ms;
    uint64_t h = cgc_sub_hash(c, topics);
    if (h != c->sub_hash) {
        c->sub_hash = h;
        c->group_epoch++;
        res->changed = true;
    }
    int32_t before = c->assignment_epoch;
    cgc_maybe_assign(c, cfg, topics, now);
    if (before != c->assignment_epoch) {
        res->changed = true;
        g->rebalances++; /* /metrics: a new target assignment (Kafka's consumer-group rebalance count) */
    }
    cgc_set_t owned = {0};
    owned_set(r, &owned);
    bool moved;
    res->changed |= cgc_reconcile(c, m, r->owned ? &owned : NULL, now, &moved);
    cgc_set_free(&owned);
    cgc_update_state(g, now);
    if (res->changed) cg_mark_changed(out, g->id);
    answer(res, m->member_id, m->epoch, cfg->heartbeat_interval_ms);
    bool full = r->rebalance_timeout_ms != -1 && (r->topics || r->regex) && r->owned;
    if (r->member_epoch == 0 || moved || full) {
        res->has_assignment = true;
        cgc_set_to_assignment(&m->assigned, &res->assignment);
    }
}

void gr_cgc_hb_res_free(gr_cgc_hb_res_t *res) { gr_cgc_assignment_free(&res->assignment); }
