/* Consumer groups, coordinator side: configs, the store (records and their
 * encoding), loading at start-up, the timer, and sending the coordinator's answers.
 *
 * Store records: cgroup/records.h.
 * A null value deletes. Membership is not stored: after a restart the members of a
 * group rejoin (docs/compatibility.md).
 * @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "broker/cgroup_coord.h"
#include "broker/share_coord.h"
#include "broker/share_int.h"
#include "cgroup/records.h"
#include "meta/configdefs.h"

static int64_t cfg_i64(const gr_broker_t *b, const char *name) {
    gr_cfg_layers_t l;
    memset(&l, 0, sizeof(l));
    l.static_broker = &b->cfg->raw;
    return gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, name, &l, 0);
}

static void load_config(const gr_broker_t *b, gr_cg_config_t *c) {
    gr_cg_config_default(c);
    c->min_session_timeout_ms = (int32_t)cfg_i64(b, "group.min.session.timeout.ms");
    c->max_session_timeout_ms = (int32_t)cfg_i64(b, "group.max.session.timeout.ms");
    c->max_size = (int32_t)cfg_i64(b, "group.max.size");
    c->initial_rebalance_delay_ms = b->cfg->group_initial_rebalance_delay_ms;
    c->offset_metadata_max_bytes = (int32_t)cfg_i64(b, "offset.metadata.max.bytes");
    c->offsets_retention_ms = cfg_i64(b, "offsets.retention.minutes") * 60000;
    c->retention_check_ms = cfg_i64(b, "offsets.retention.check.interval.ms");
}

/* group.consumer.assignors: short names, or Kafka's class names of the same assignors. */
static void load_consumer_config(const gr_broker_t *b, struct gr_cgroup_ctx *cc) {
    gr_cgc_cfg_t *c = &cc->cgc;
    c->session_timeout_ms = (int32_t)cfg_i64(b, "group.consumer.session.timeout.ms");
    c->heartbeat_interval_ms = (int32_t)cfg_i64(b, "group.consumer.heartbeat.interval.ms");
    c->max_size = (int32_t)cfg_i64(b, "group.consumer.max.size");
    c->assignment_interval_ms = (int32_t)cfg_i64(b, "group.consumer.assignment.interval.ms");
    gr_cfg_layers_t l;
    memset(&l, 0, sizeof(l));
    l.static_broker = &b->cfg->raw;
    char buf[256];
    const char *v = gr_cfg_effective(GR_CFG_SCOPE_BROKER, "group.consumer.assignors", &l, buf, sizeof(buf), NULL);
    snprintf(cc->cgc_names, sizeof(cc->cgc_names), "%s", v ? v : "uniform,range");
    c->n_assignors = 0;
    for (char *save = NULL, *t = strtok_r(cc->cgc_names, ", ", &save); t && c->n_assignors < GR_CGC_MAX_ASSIGNORS;
         t = strtok_r(NULL, ", ", &save)) {
        if (strstr(t, "UniformAssignor")) t = "uniform";
        if (strstr(t, "RangeAssignor")) t = "range";
        if (!strcmp(t, "uniform") || !strcmp(t, "range"))
            c->assignors[c->n_assignors++] = t;
        else
            GR_WARN("cgroup", "group.consumer.assignors: unknown assignor %s ignored", t);
    }
    if (!c->n_assignors) c->assignors[c->n_assignors++] = "uniform";
}

/* Kafka's GroupCoordinatorConfig checks of the group.consumer.* values, at start-up. */
static gr_err_t check_consumer_config(const gr_broker_t *b, char *errstr, size_t sz) {
    static const char *const what[2] = {"heartbeat.interval.ms", "session.timeout.ms"};
    int64_t v[2][3];
    char n[3][96];
    for (int i = 0; i < 2; i++) {
        snprintf(n[0], sizeof(n[0]), "group.consumer.min.%s", what[i]);
        snprintf(n[1], sizeof(n[1]), "group.consumer.%s", what[i]);
        snprintf(n[2], sizeof(n[2]), "group.consumer.max.%s", what[i]);
        for (int k = 0; k < 3; k++) v[i][k] = cfg_i64(b, n[k]);
        const char *bad = v[i][2] < v[i][0] ? "max" : v[i][1] < v[i][0] ? "lo" : v[i][1] > v[i][2] ? "hi" : NULL;
        if (!bad) continue;
        if (!strcmp(bad, "max"))
            snprintf(errstr, sz, "%s must be greater than or equal to %s", n[2], n[0]);
        else if (!strcmp(bad, "lo"))
            snprintf(errstr, sz, "%s must be greater than or equal to %s", n[1], n[0]);
        else
            snprintf(errstr, sz, "%s must be less than or equal to %s", n[1], n[2]);
        return GR_ERR_INVALID_CONFIG;
    }
    if (v[0][1] >= v[1][1]) {
        snprintf(errstr, sz,
                 "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms");
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

/* The group's consumer.* configs (KIP-848 GroupConfig) over the broker's: the session
 * timeout and heartbeat interval always come from the resolved group values (their
 * defaults are group.consumer.*); consumer.assignment.interval.ms wins over the dynamic
 * group.consumer.assignment.interval.ms only when the group sets it, as in Kafka. */
void gr_cgroup_consumer_cfg(gr_broker_t *b, const char *group_id, gr_cgc_cfg_t *out) {
    *out = b->cgroup->cgc;
    gr_sgc_values_t v;
    gr_share_group_values(b, group_id, &v);
    out->session_timeout_ms = v.consumer_session_timeout_ms;
    out->heartbeat_interval_ms = v.consumer_heartbeat_interval_ms;
    const gr_props_t *own = gr_share_group_configs(b, group_id);
    if (own && gr_props_get(own, "consumer.assignment.interval.ms")) {
        out->assignment_interval_ms = v.consumer_assignment_interval_ms;
        return;
    }
    /* Dynamic (AlterConfigs on the broker or the cluster default), as in Kafka. */
    gr_cfg_layers_t l;
    gr_meta_config_layers(b->meta, NULL, &l);
    out->assignment_interval_ms =
        (int32_t)gr_cfg_effective_i64(GR_CFG_SCOPE_BROKER, "group.consumer.assignment.interval.ms", &l, 1000);
}

static bool topic_by_name(void *ctx, const char *name, gr_uuid_t *id, int32_t *n) {
    const gr_meta_topic_t *t = gr_meta_topic_find(((gr_broker_t *)ctx)->meta, name);
    if (!t) return false;
    *id = t->id;
    *n = t->partitions;
    return true;
}

static bool topic_by_id(void *ctx, const gr_uuid_t *id, const char **name, int32_t *n) {
    const gr_meta_topic_t *t = gr_meta_topic_find_id(((gr_broker_t *)ctx)->meta, id);
    if (!t) return false;
    *name = t->name;
    *n = t->partitions;
    return true;
}

static void topic_each(void *ctx, void (*fn)(void *arg, const char *name), void *arg) {
    const gr_meta_t *m = ((gr_broker_t *)ctx)->meta;
    size_t n = gr_meta_topic_count(m);
    for (size_t i = 0; i < n; i++) fn(arg, gr_meta_topic_at(m, i)->name);
}

gr_cgc_topics_t gr_cgroup_topics(gr_broker_t *b) {
    return (gr_cgc_topics_t){.by_name = topic_by_name, .by_id = topic_by_id, .each = topic_each, .ctx = b};
}

/* ------------------------------------------------------------------ records */

void gr_cgroup_offset_record(gr_broker_t *b, const char *gid, const char *topic, int32_t partition,
                             const gr_cg_offset_t *o) {
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_cg_rec_offset_key(&k, gid, topic, partition);
    if (o) gr_cg_rec_offset_value(&v, o);
    gr_cstore_add(b->cgroup->store, k.mem, k.len, o ? v.mem : NULL, v.len);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
}

static void put_record(gr_broker_t *b, gr_wbuf_t *k, gr_wbuf_t *v, bool live) {
    gr_cstore_add(b->cgroup->store, k->mem, k->len, live ? v->mem : NULL, live ? v->len : 0);
    gr_wbuf_reset(k);
    gr_wbuf_reset(v);
}

static void member_record(void *arg, const gr_cgc_member_rec_t *m) {
    void **a = arg;
    gr_broker_t *b = a[0];
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_cg_rec_cmember_key(&k, a[1], m->member_id);
    gr_cg_rec_cmember_value(&v, m);
    put_record(b, &k, &v, true);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
}

/* A group's records: a classic group's (protocol type, generation) or a consumer-protocol
 * group's (epochs, then every member); the record of the other kind is deleted. */
static void group_record(gr_broker_t *b, const char *gid) {
    gr_cg_group_view_t v;
    gr_wbuf_t k, val;
    gr_wbuf_init(&k);
    gr_wbuf_init(&val);
    int32_t ge, ae;
    uint64_t th;
    bool consumer = gr_cg_type(b->cgroup->reg, gid) == GR_CG_TYPE_CONSUMER;
    bool exists = !consumer && gr_cg_describe(b->cgroup->reg, gid, &v) == 0;
    gr_cg_rec_group_key(&k, gid);
    if (exists) {
        gr_cg_rec_group_value(&val, v.protocol_type, v.generation);
        gr_cg_view_free(&v);
    }
    put_record(b, &k, &val, exists);
    gr_cg_rec_cgroup_key(&k, gid);
    if (consumer) {
        void *arg[2] = {b, (void *)gid};
        gr_cgc_export(b->cgroup->reg, gid, &ge, &ae, &th, NULL, NULL);
        gr_cg_rec_cgroup_value(&val, ge, ae, th);
        put_record(b, &k, &val, true);
        gr_cgc_export(b->cgroup->reg, gid, &ge, &ae, &th, member_record, arg);
    } else {
        put_record(b, &k, &val, false);
    }
    gr_wbuf_free(&k);
    gr_wbuf_free(&val);
}

/* Add the records of everything out says changed; true if there is something to write. */
static bool out_records(gr_broker_t *b, const gr_cg_out_t *out) {
    bool write = false;
    for (int32_t i = 0; i < out->n_gone; i++, write = true) {
        gr_wbuf_t k;
        gr_wbuf_init(&k);
        gr_cg_rec_cmember_key(&k, out->gone[i].group_id, out->gone[i].member_id);
        gr_cstore_add(b->cgroup->store, k.mem, k.len, NULL, 0);
        gr_wbuf_free(&k);
    }
    for (int32_t i = 0; i < out->n_changed; i++, write = true) group_record(b, out->changed[i]);
    for (int32_t i = 0; i < out->n_removed; i++, write = true) group_record(b, out->removed[i]);
    for (int32_t i = 0; i < out->n_expired; i++, write = true)
        gr_cgroup_offset_record(b, out->expired[i].group_id, out->expired[i].topic, out->expired[i].partition, NULL);
    if (out->n_expired) GR_INFO("cgroup", "%d committed offset(s) expired", out->n_expired);
    return write;
}

void gr_cgroup_txn_offset_record(gr_broker_t *b, const char *gid, int64_t pid, const char *topic, int32_t partition,
                                 const gr_cg_offset_t *o) {
    gr_wbuf_t k, v;
    gr_wbuf_init(&k);
    gr_wbuf_init(&v);
    gr_cg_rec_txn_offset_key(&k, gid, topic, partition, pid);
    if (o) gr_cg_rec_offset_value(&v, o);
    gr_cstore_add(b->cgroup->store, k.mem, k.len, o ? v.mem : NULL, v.len);
    gr_wbuf_free(&k);
    gr_wbuf_free(&v);
}

typedef struct txn_end {
    gr_broker_t *b;
    int64_t pid;
    bool commit;
} txn_end_t;

static void txn_end_one(void *arg, const char *gid, const char *topic, int32_t partition, const gr_cg_offset_t *o) {
    txn_end_t *e = arg;
    gr_cgroup_txn_offset_record(e->b, gid, e->pid, topic, partition, NULL);
    if (!e->commit) return;
    gr_cgroup_offset_record(e->b, gid, topic, partition, o);
    gr_cg_offset_put(e->b->cgroup->reg, gid, topic, partition, o);
}

/* The transaction marker on the offsets partitions: the pending offsets of pid become
 * committed offsets (commit) or go (abort), in one durable batch. Memory changes at
 * once, as a committed marker is final; cb once the batch is durable. */
gr_err_t gr_cgroup_txn_complete(gr_broker_t *b, int64_t pid, bool commit, gr_flusher_cb *cb, void *arg) {
    txn_end_t e = {b, pid, commit};
    int32_t n = gr_cg_txn_complete(b->cgroup->reg, pid, txn_end_one, &e);
    if (!n) {
        cb(arg, GR_ERR_NONE);
        return GR_ERR_NONE;
    }
    GR_DEBUG("cgroup", "%s %d transactional offset(s) of producer %lld", commit ? "committed" : "dropped", n,
             (long long)pid);
    return gr_cstore_commit(b->cgroup->store, cb, arg);
}

typedef struct del_ctx {
    gr_broker_t *b;
    const char *gid;
} del_ctx_t;

static void del_offset(void *arg, const char *topic, int32_t partition, const gr_cg_offset_t *o) {
    (void)o;
    del_ctx_t *d = arg;
    gr_cgroup_offset_record(d->b, d->gid, topic, partition, NULL);
}

gr_err_t gr_cgroup_delete_group(gr_broker_t *b, const char *gid, gr_flusher_cb *cb, void *arg) {
    del_ctx_t d = {b, gid};
    gr_cg_offsets_foreach(b->cgroup->reg, gid, del_offset, &d);
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    gr_cg_delete(b->cgroup->reg, gid, &out);
    gr_wbuf_t k;
    gr_wbuf_init(&k);
    gr_cg_rec_group_key(&k, gid);
    gr_cstore_add(b->cgroup->store, k.mem, k.len, NULL, 0);
    gr_wbuf_reset(&k);
    gr_cg_rec_cgroup_key(&k, gid); /* a consumer-protocol group's record too */
    gr_cstore_add(b->cgroup->store, k.mem, k.len, NULL, 0);
    gr_wbuf_free(&k);
    gr_cg_out_free(&out);
    GR_INFO("cgroup", "deleted consumer group %s", gid);
    return gr_cstore_commit(b->cgroup->store, cb, arg);
}

typedef struct topic_del {
    const char *topic;
    int32_t *parts;
    int32_t n, cap;
} topic_del_t;

static void collect_topic(void *arg, const char *topic, int32_t partition, const gr_cg_offset_t *o) {
    (void)o;
    topic_del_t *t = arg;
    if (strcmp(topic, t->topic)) return;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->parts = realloc(t->parts, (size_t)t->cap * sizeof(int32_t));
        if (!t->parts) abort();
    }
    t->parts[t->n++] = partition;
}

/* A deleted topic's committed offsets go with it, in every group (as Kafka's
 * onPartitionsDeleted). Not awaited: the topic deletion is already durable. */
void gr_cgroup_on_topic_deleted(gr_broker_t *b, const char *topic) {
    if (!b->cgroup) return;
    const char **ids;
    gr_cg_state_t *states;
    int32_t n = gr_cg_list(b->cgroup->reg, &ids, &states), total = 0;
    for (int32_t i = 0; i < n; i++) {
        topic_del_t t = {.topic = topic};
        gr_cg_offsets_foreach(b->cgroup->reg, ids[i], collect_topic, &t);
        for (int32_t j = 0; j < t.n; j++) {
            gr_cgroup_offset_record(b, ids[i], topic, t.parts[j], NULL);
            gr_cg_offset_delete(b->cgroup->reg, ids[i], topic, t.parts[j]);
        }
        total += t.n;
        free(t.parts);
    }
    free(ids);
    free(states);
    if (!total) return;
    gr_err_t err = gr_cstore_commit(b->cgroup->store, NULL, NULL);
    if (err) GR_ERROR("cgroup", "deleting the offsets of topic %s: %s", topic, gr_err_str(err));
    GR_INFO("cgroup", "deleted %d committed offset(s) of deleted topic %s", total, topic);
}

/* ------------------------------------------------------------------ answers and timer */

static void rearm(gr_broker_t *b) {
    int64_t next = gr_cg_next_deadline(b->cgroup->reg);
    if (next == INT64_MAX) {
        gr_timer_stop(&b->cgroup->timer);
        return;
    }
    int64_t d = next - gr_clock_wall_ms();
    gr_timer_start(&b->cgroup->timer, d > 0 ? d : 0, 0);
}

void gr_cgroup_run_out(gr_broker_t *b, gr_cg_out_t *out) {
    for (int32_t i = 0; i < out->n_answers; i++) {
        gr_req_t *req = out->answers[i].waiter;
        if (!req) continue;
        gr_broker_unpark(b, req);
        if (out->answers[i].kind == GR_CG_ANSWER_JOIN)
            gr_cgroup_answer_join(req, &out->answers[i]);
        else
            gr_cgroup_answer_sync(req, &out->answers[i]);
    }
    /* Classic group records need not be durable before an answer: classic membership
     * is not kept across restarts. Consumer-protocol heartbeats wait (below). */
    if (out_records(b, out)) {
        gr_err_t err = gr_cstore_commit(b->cgroup->store, NULL, NULL);
        if (err) GR_ERROR("cgroup", "consumer-group store write failed: %s", gr_err_str(err));
    }
    gr_cg_out_free(out);
    rearm(b);
}

void gr_cgroup_respond_after_persist(gr_broker_t *b, gr_req_t *req, void *resp, gr_share_wait_fix_fn *fix,
                                     gr_cg_out_t *out) {
    gr_share_wait_t *w = gr_share_wait_new(req, resp, fix);
    bool wrote = out_records(b, out);
    if (wrote) {
        gr_share_wait_add(w);
        gr_err_t err = gr_cstore_commit(b->cgroup->store, gr_share_wait_cb, w);
        if (err) {
            GR_ERROR("cgroup", "consumer-group store write failed: %s", gr_err_str(err));
            gr_share_wait_cb(w, err);
        }
    }
    gr_cg_out_free(out);
    /* A heartbeat that changed nothing only moved its member's session later: the armed
     * timer may fire early (the tick then re-arms), so no scan of every member per heartbeat. */
    if (wrote) rearm(b);
    gr_share_wait_arm(w);
}

/* The coordinator runs on the wall clock: commit times are stored and compared
 * across restarts (retention); timers are armed with the difference. */
static void timer_fire(gr_timer_t *t, int64_t mono_now) {
    (void)mono_now;
    gr_broker_t *b = t->data;
    int64_t now = gr_clock_wall_ms();
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    gr_cg_tick(b->cgroup->reg, now, &out);
    gr_cgroup_run_out(b, &out);
}

/* ------------------------------------------------------------------ load */

/* Start-up: every live record back into the coordinator (a group record sets the
 * protocol type and generation of a group its offsets may have created). */
static void load_one(void *arg, const uint8_t *key, size_t kl, const uint8_t *val, size_t vl) {
    gr_broker_t *b = arg;
    gr_arena_t a;
    gr_arena_init(&a);
    gr_cg_rec_t r;
    const char *why = "";
    if (gr_cg_rec_decode(key, kl, val, vl, &a, &r, &why))
        GR_WARN("cgroup", "skipping a consumer-group record: %s", why);
    else if (r.type == GR_CG_REC_OFFSET)
        gr_cg_offset_put(b->cgroup->reg, r.group_id, r.topic, r.partition, &r.offset);
    else if (r.type == GR_CG_REC_TXN_OFFSET)
        gr_cg_txn_put(b->cgroup->reg, r.group_id, r.pid, r.topic, r.partition, &r.offset);
    else if (r.type == GR_CG_REC_CGROUP)
        gr_cgc_restore_group(b->cgroup->reg, r.group_id, r.generation, r.assignment_epoch, r.topics_hash,
                             gr_clock_wall_ms());
    else if (r.type == GR_CG_REC_CMEMBER)
        gr_cgc_restore_member(b->cgroup->reg, r.group_id, &r.member, b->cgroup->cgc.session_timeout_ms,
                              gr_clock_wall_ms());
    else
        gr_cg_restore_group(b->cgroup->reg, r.group_id, r.protocol_type, r.generation, gr_clock_wall_ms());
    gr_arena_free(&a);
}

gr_err_t gr_cgroup_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    gr_err_t cerr = check_consumer_config(b, errstr, errstr_size);
    if (cerr) return cerr;
    b->cgroup = calloc(1, sizeof(*b->cgroup));
    if (!b->cgroup) abort();
    gr_cg_config_t c;
    load_config(b, &c);
    b->cgroup->metadata_max_bytes = c.offset_metadata_max_bytes;
    b->cgroup->reg = gr_cg_registry_new(&c);
    load_consumer_config(b, b->cgroup);
    gr_timer_init(b->loop, &b->cgroup->timer, timer_fire, b);
    gr_cstore_options_t o;
    gr_cstore_options_default(&o);
    o.flusher = b->flusher;
    o.now_ms = gr_clock_wall_ms();
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/%s", b->cfg->log_dir, GR_CSTORE_DIR_NAME);
    gr_err_t err = gr_cstore_open(dir, &o, &b->cgroup->store, errstr, errstr_size);
    if (err) return err;
    size_t n = gr_cstore_foreach(b->cgroup->store, load_one, b);
    GR_INFO("cgroup", "loaded %zu consumer-group record(s)", n);
    rearm(b);
    return GR_ERR_NONE;
}

void gr_cgroup_close(gr_broker_t *b) {
    if (!b->cgroup) return;
    gr_timer_stop(&b->cgroup->timer);
    if (b->cgroup->store) gr_cstore_close(b->cgroup->store);
    gr_cg_registry_free(b->cgroup->reg);
    free(b->cgroup);
    b->cgroup = NULL;
}
