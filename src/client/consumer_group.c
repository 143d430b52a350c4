/* Group membership common to both protocols (consumer_int.h): configuration,
 * subscription, the coordinator (FindCoordinator key type 0, again after
 * NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE or a lost connection), applying a new
 * assignment with the rebalance callback (revoked first, after committing, then
 * assigned), losing it, close, and the cluster's topic list for regex subscriptions.
 * Nothing here blocks except close, commits before revocation, and the topic list. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/consumer_int.h"
#include "proto_msgs.h"

static char *dup_or_null(const char *s) {
    if (!s || !*s) return NULL;
    char *r = strdup(s);
    if (!r) abort();
    return r;
}

/* partition.assignment.strategy: Kafka's class names or librdkafka's short names. */
static gr_err_t parse_strategies(gr__cgroup_t *g, const char *list, char *errstr, size_t size) {
    char *copy = strdup(*list ? list : "range,roundrobin"), *save = NULL;
    if (!copy) abort();
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        const char *name = !strcmp(tok, "org.apache.kafka.clients.consumer.RangeAssignor")        ? "range"
                           : !strcmp(tok, "org.apache.kafka.clients.consumer.RoundRobinAssignor") ? "roundrobin"
                           : !strcmp(tok, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
                               ? "cooperative-sticky"
                               : tok;
        if (!gr__assignor_known(name)) {
            gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                    "Invalid value %s for configuration partition.assignment.strategy: libgregor implements range, "
                    "roundrobin and cooperative-sticky",
                    tok);
            free(copy);
            return GR_ERR__INVALID_ARG;
        }
        g->strategies = realloc(g->strategies, (g->n_strategies + 1) * sizeof(char *));
        if (!g->strategies) abort();
        g->strategies[g->n_strategies++] = dup_or_null(name);
    }
    free(copy);
    return GR_ERR_NONE;
}

gr_err_t gr__cg_init(gr_consumer_t *c, const gr_conf_t *conf, char *errstr, size_t size) {
    gr__cgroup_t *g = &c->g;
    g->group_id = dup_or_null(gr__conf_str(conf, GR__CP_GROUP_ID));
    g->instance_id = dup_or_null(gr__conf_str(conf, GR__CP_GROUP_INSTANCE_ID));
    g->remote_assignor = dup_or_null(gr__conf_str(conf, GR__CP_GROUP_REMOTE_ASSIGNOR));
    g->rack = dup_or_null(gr__conf_str(conf, GR__CP_CLIENT_RACK));
    g->classic = gr__conf_int(conf, GR__CP_GROUP_PROTOCOL) == 0;
    g->session_timeout = (int32_t)gr__conf_int(conf, GR__CP_SESSION_TIMEOUT_MS);
    g->hb_interval = (int32_t)gr__conf_int(conf, GR__CP_HEARTBEAT_INTERVAL_MS);
    g->rebalance_timeout = (int32_t)gr__conf_int(conf, GR__CP_MAX_POLL_INTERVAL_MS);
    g->backoff = gr__conf_int(conf, GR__CP_RETRY_BACKOFF_MS);
    g->auto_commit = g->group_id && gr__conf_int(conf, GR__CP_ENABLE_AUTO_COMMIT);
    g->auto_commit_ms = (int32_t)gr__conf_int(conf, GR__CP_AUTO_COMMIT_INTERVAL_MS);
    g->reset = (int)gr__conf_int(conf, GR__CP_AUTO_OFFSET_RESET);
    g->epoch = -1;
    g->coord_id = -1;
    if (!g->classic && gr__conf_is_set(conf, GR__CP_PARTITION_ASSIGNMENT_STRATEGY))
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "partition.assignment.strategy cannot be set when group.protocol=consumer "
                       "(use group.remote.assignor)");
    if (!g->classic && gr__conf_is_set(conf, GR__CP_SESSION_TIMEOUT_MS))
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "session.timeout.ms cannot be set when group.protocol=consumer (it is the group's "
                       "consumer.session.timeout.ms)");
    if (!g->classic && gr__conf_is_set(conf, GR__CP_HEARTBEAT_INTERVAL_MS))
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "heartbeat.interval.ms cannot be set when group.protocol=consumer (it is the group's "
                       "consumer.heartbeat.interval.ms)");
    return g->classic ? parse_strategies(g, gr__conf_str(conf, GR__CP_PARTITION_ASSIGNMENT_STRATEGY), errstr, size)
                      : GR_ERR_NONE;
}

static void free_topics(gr__cgroup_t *g) {
    gr__cg_free_names(g->topics, g->n_topics);
    g->topics = NULL;
    g->n_topics = 0;
}

void gr__cg_free(gr_consumer_t *c) {
    gr__cgroup_t *g = &c->g;
    free_topics(g);
    if (g->regex && g->classic) regfree(&g->re);
    free(g->regex);
    free(g->group_id);
    free(g->instance_id);
    free(g->remote_assignor);
    free(g->rack);
    free(g->member_id);
    free(g->tgt_ids);
    free(g->tgt_parts);
    gr__tplist_free(&g->owned);
    for (size_t i = 0; i < g->n_strategies; i++) free(g->strategies[i]);
    free(g->strategies);
    gr__ccl_free(g);
}

void gr__cg_free_names(char **names, size_t n) {
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

void gr__cg_fail(gr_consumer_t *c, gr_err_t err, const char *fmt, ...) {
    if (c->fatal) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->errbuf, sizeof(c->errbuf), fmt, ap);
    va_end(ap);
    c->fatal = err;
}

void gr_consumer_set_rebalance_cb(gr_consumer_t *c, gr_rebalance_cb *cb, void *opaque) {
    c->g.rb_cb = cb;
    c->g.rb_opaque = opaque;
}

void gr_consumer_set_commit_cb(gr_consumer_t *c, gr_commit_cb *cb, void *opaque) {
    c->g.commit_cb = cb;
    c->g.commit_opaque = opaque;
}

const char *gr_consumer_member_id(const gr_consumer_t *c) { return c->g.member_id ? c->g.member_id : ""; }
int32_t gr_consumer_generation(const gr_consumer_t *c) { return c->g.epoch; }

static gr_err_t check_subscribe(gr_consumer_t *c) {
    c->errbuf[0] = 0;
    if (!c->g.group_id)
        return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf),
                       "To use the group management or offset commit APIs, you must provide a valid group.id in the "
                       "consumer configuration.");
    if (c->n_parts && !c->g.on)
        return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf),
                       "Subscription to topics and manual partition assignment are mutually exclusive");
    if (c->g.closing) return gr__fmt(GR_ERR__STATE, c->errbuf, sizeof(c->errbuf), "the consumer is closed");
    return GR_ERR_NONE;
}

/* A new subscription: the next heartbeat / join carries it. */
static void resubscribe(gr_consumer_t *c) {
    c->g.on = true;
    c->g.ack = true;
    c->g.hb_next = 0;
    if (c->g.classic && c->g.cstate != GR__CL_JOINING && c->g.cstate != GR__CL_SYNCING) c->g.cstate = GR__CL_JOIN;
    c->g.next_commit = gr__client_now(c->cl) + c->g.auto_commit_ms;
}

gr_err_t gr_consumer_subscribe(gr_consumer_t *c, const char *const *topics, size_t n) {
    gr_err_t err = check_subscribe(c);
    if (err) return err;
    if (!topics || !n) return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "no topic to subscribe to");
    for (size_t i = 0; i < n; i++)
        if (!topics[i] || !*topics[i])
            return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf),
                           "Topic collection to subscribe to cannot contain null or empty topic");
    free_topics(&c->g);
    if (c->g.regex && c->g.classic) regfree(&c->g.re);
    free(c->g.regex);
    c->g.regex = NULL;
    c->g.topics = calloc(n, sizeof(char *));
    if (!c->g.topics) abort();
    for (size_t i = 0; i < n; i++) {
        c->g.topics[c->g.n_topics++] = dup_or_null(topics[i]);
        gr__client_want_topic(c->cl, topics[i]);
    }
    resubscribe(c);
    return GR_ERR_NONE;
}

gr_err_t gr_consumer_subscribe_regex(gr_consumer_t *c, const char *regex) {
    gr_err_t err = check_subscribe(c);
    if (err) return err;
    if (!regex || !*regex) return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "empty regex");
    regex_t re;
    if (c->g.classic) {
        size_t n = strlen(regex);
        char *anchored = malloc(n + 5);
        if (!anchored) abort();
        snprintf(anchored, n + 5, "^(%s)$", regex);
        int bad = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
        free(anchored);
        if (bad) return gr__fmt(GR_ERR__INVALID_ARG, c->errbuf, sizeof(c->errbuf), "Invalid regex '%s'", regex);
    }
    free_topics(&c->g);
    if (c->g.regex && c->g.classic) regfree(&c->g.re);
    free(c->g.regex);
    c->g.regex = dup_or_null(regex);
    if (c->g.classic) c->g.re = re;
    c->g.regex_checked = 0;
    resubscribe(c);
    return GR_ERR_NONE;
}

/* ---- coordinator ---- */

bool gr__cg_coord_error(int16_t code) {
    return code == GR_ERR_NOT_COORDINATOR || code == GR_ERR_COORDINATOR_NOT_AVAILABLE;
}

void gr__cg_coord_lost(gr_consumer_t *c) {
    c->g.coord_id = -1;
    c->g.fc_next = gr__client_now(c->cl) + c->g.backoff;
}

static void on_find_coordinator(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp,
                                void *opaque) {
    gr_consumer_t *c = opaque;
    (void)cl, (void)errmsg;
    c->g.fc_inflight = false;
    if (err) {
        gr__cg_coord_lost(c);
        return;
    }
    gr_str_t msg;
    int32_t id;
    gr_err_t code = gr__coord_from_answer(c->cl, ver, resp, &id, &msg);
    if (code == GR_ERR_GROUP_AUTHORIZATION_FAILED || code == GR_ERR_INVALID_REQUEST) {
        gr__cg_fail(c, code, "FindCoordinator for group %s: %s", c->g.group_id, gr_err_str(code));
        return;
    }
    if (code) {
        gr__cg_coord_lost(c);
        return;
    }
    c->g.coord_id = id;
}

static void find_coordinator(gr_consumer_t *c) {
    if (c->g.fc_inflight || gr__client_now(c->cl) < c->g.fc_next) return;
    gr__node_t *node = gr__client_any_node(c->cl);
    if (!node) return;
    int16_t ver = gr__node_version(node, GR_API_FindCoordinator);
    if (ver < 0) return;
    gr_FindCoordinatorRequest_t rq;
    gr_struct_init(&gr_FindCoordinatorRequest_sd, &rq);
    gr_str_t key = gr_str_c(c->g.group_id);
    rq.Key = key;
    rq.KeyType = 0;
    rq.CoordinatorKeys.n = 1;
    rq.CoordinatorKeys.v = &key;
    if (gr__node_send(node, GR_API_FindCoordinator, ver, &rq, true, on_find_coordinator, c) == GR_ERR_NONE)
        c->g.fc_inflight = true;
}

gr__node_t *gr__cg_coord(gr_consumer_t *c) {
    if (c->g.coord_id < 0) {
        find_coordinator(c);
        return NULL;
    }
    gr__node_t *node = gr__client_node(c->cl, c->g.coord_id);
    if (!node) {
        gr__cg_coord_lost(c);
        return NULL;
    }
    if (!gr__node_ready(node)) {
        gr__node_connect(node);
        return NULL;
    }
    return node;
}

int32_t gr__cg_wait_coord(gr_consumer_t *c, int64_t deadline) {
    while (!gr__cg_coord(c)) {
        if (c->fatal || gr__client_tick(c->cl) >= deadline) return -1;
        gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
    }
    return c->g.coord_id;
}

/* ---- assignment ---- */

static void callback(gr_consumer_t *c, gr_rebalance_event_t ev, const gr__tplist_t *l) {
    if (!c->g.rb_cb || !l->n) return;
    gr_topic_partition_t *tps = gr__cons_tps(c, l);
    c->g.rb_cb(c, ev, tps, l->n, c->g.rb_opaque);
    free(tps);
}

/* Auto-commit before revoking: the positions that moved since their last commit. */
static void commit_revoked(gr_consumer_t *c, const gr__tplist_t *revoked) {
    gr_topic_partition_t *tps = gr__cons_tps(c, revoked);
    size_t n = 0;
    for (size_t i = 0; i < revoked->n; i++) {
        gr__cpart_t *p = gr__cons_find(c, tps[i].topic, strlen(tps[i].topic), tps[i].partition);
        if (p && p->next >= 0 && p->next != p->committed) tps[n++] = tps[i];
    }
    int64_t deadline = c->g.close_deadline
                           ? c->g.close_deadline
                           : gr__client_tick(c->cl) + gr__conf_int(gr__client_conf(c->cl), GR__CP_REQUEST_TIMEOUT_MS);
    if (n) gr__co_commit_sync(c, tps, n, deadline);
    free(tps);
    c->errbuf[0] = 0; /* a failed commit does not stop the rebalance */
}

void gr__cg_set_assignment(gr_consumer_t *c, const gr__tplist_t *target) {
    gr__tplist_t revoked = {0}, added = {0};
    gr__tplist_diff(&c->g.owned, target, &revoked, &added);
    if (revoked.n) {
        if (c->g.auto_commit) commit_revoked(c, &revoked);
        callback(c, GR_REBALANCE_REVOKED, &revoked);
        for (size_t i = 0; i < revoked.n; i++) gr__cons_remove(c, revoked.v[i].topic, revoked.v[i].partition);
    }
    gr__tplist_clear(&c->g.owned);
    for (size_t i = 0; i < target->n; i++)
        gr__tplist_add(&c->g.owned, target->v[i].topic, strlen(target->v[i].topic), target->v[i].partition);
    for (size_t i = 0; i < added.n; i++) {
        int64_t reset = c->g.reset == 1 ? GR_OFFSET_BEGINNING : GR_OFFSET_END;
        gr__cpart_t *p = gr__cons_add(c, added.v[i].topic, added.v[i].partition, false, reset);
        p->need_committed = true;
    }
    callback(c, GR_REBALANCE_ASSIGNED, &added);
    gr__tplist_free(&revoked);
    gr__tplist_free(&added);
}

void gr__cg_lose(gr_consumer_t *c) {
    callback(c, GR_REBALANCE_LOST, &c->g.owned);
    for (size_t i = 0; i < c->g.owned.n; i++) gr__cons_remove(c, c->g.owned.v[i].topic, c->g.owned.v[i].partition);
    gr__tplist_clear(&c->g.owned);
}

void gr__cg_run(gr_consumer_t *c) {
    if (!c->g.on || c->g.closing || c->fatal) return;
    if (c->g.lose_pending) {
        c->g.lose_pending = false;
        c->g.have_pending = false;
        gr__cg_lose(c);
    }
    if (c->g.classic)
        gr__ccl_run(c);
    else
        gr__cgh_run(c);
    if (!c->fatal) gr__co_auto_commit(c);
}

/* max.poll.interval.ms, Java's poll timer: an application that has not come back to poll
 * for that long is taken to have stalled, and its member gives up the group as Java's does
 * on expiry (LeaveGroup, or the leaving heartbeat, for a dynamic member; a static one
 * leaves without telling, -2 for KIP-848), treats its partitions as lost (LOST callback, no
 * commit: another member may own them by now) and joins again. libgregor drives the group
 * from the application's calls, with no thread of its own, so the expiry is acted on at the
 * next poll, and a member that stops polling for session.timeout.ms is expired by the
 * coordinator first (docs/libgregor.md). */
void gr__cg_poll_begin(gr_consumer_t *c, int64_t now) {
    gr__cgroup_t *g = &c->g;
    if (!g->on || g->closing || c->fatal || !g->last_poll || now - g->last_poll <= g->rebalance_timeout) return;
    bool in_group = g->classic ? g->cstate == GR__CL_STABLE && g->epoch >= 0 : g->epoch > 0;
    if (!in_group) return;
    int64_t deadline = now + gr__conf_int(gr__client_conf(c->cl), GR__CP_REQUEST_TIMEOUT_MS);
    if (g->classic) {
        gr__ccl_poll_expired(c, deadline);
    } else {
        gr__cgh_leave(c, deadline);
        g->lose_pending = true;
    }
}

gr_err_t gr_consumer_close(gr_consumer_t *c, int timeout_ms) {
    c->errbuf[0] = 0;
    if (c->g.closing) return GR_ERR_NONE;
    int64_t deadline = gr__cons_deadline(c, timeout_ms);
    gr_err_t err = GR_ERR_NONE;
    c->g.close_deadline = deadline;
    if (c->g.on) {
        if (c->g.auto_commit && c->g.owned.n && c->g.epoch >= 0) err = gr__co_commit_sync(c, NULL, 0, deadline);
        gr__tplist_t none = {0};
        if (c->g.epoch >= 0) gr__cg_set_assignment(c, &none);
        c->g.closing = true;
        if (c->g.classic)
            gr__ccl_leave(c, deadline);
        else
            gr__cgh_leave(c, deadline);
    }
    c->g.closing = true;
    while (c->g.commits_inflight > 0 && gr__client_tick(c->cl) < deadline)
        gr__client_io(c->cl, gr__cons_io_wait(c, deadline));
    return err;
}

/* ---- the cluster's topics ---- */

gr_err_t gr__cg_all_topics(gr_consumer_t *c, int64_t deadline, char ***names, gr_uuid_t **ids, size_t *n) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_MetadataRequest_t rq;
    gr_struct_init(&gr_MetadataRequest_sd, &rq);
    rq.Topics.n = -1; /* every topic */
    rq.AllowAutoTopicCreation = false;
    void *resp;
    int16_t ver;
    *names = NULL, *ids = NULL, *n = 0;
    gr_err_t err = gr__client_call(c->cl, INT32_MIN, GR_API_Metadata, &rq, deadline, &ar, &resp, &ver, c->errbuf,
                                   sizeof(c->errbuf));
    if (!err) {
        const gr_MetadataResponse_t *rs = resp;
        *names = calloc((size_t)rs->Topics.n + 1, sizeof(char *));
        *ids = calloc((size_t)rs->Topics.n + 1, sizeof(gr_uuid_t));
        if (!*names || !*ids) abort();
        for (int32_t i = 0; i < rs->Topics.n; i++) {
            const gr_MetadataResponse_MetadataResponseTopic_t *t = &rs->Topics.v[i];
            if (t->ErrorCode || t->IsInternal || t->Name.len <= 0) continue;
            (*names)[*n] = gr__str_dup(&ar, t->Name);
            if (!((*names)[*n] = strdup((*names)[*n]))) abort();
            (*ids)[(*n)++] = t->TopicId;
        }
    }
    gr_arena_free(&ar);
    return err;
}

bool gr__cg_id_name(gr_consumer_t *c, const gr_uuid_t *id, const char **name) {
    for (size_t i = 0; i < c->g.n_topics; i++) {
        gr__mtopic_t *t = gr__client_topic(c->cl, c->g.topics[i]);
        if (t && t->updated_ms && gr_uuid_eq(&t->id, id)) {
            *name = t->name;
            return true;
        }
    }
    return false;
}
