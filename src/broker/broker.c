/* Broker start-up, shutdown and housekeeping (retention, time-based flushes). */
#include "broker/broker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/cgroup_coord.h"
#include "broker/producers.h"
#include "broker/quotas.h"
#include "broker/txn_coord.h"

/* Features as Apache Kafka 4.4.0 reports them; share consumers look for share.version.
 * metadata.version is what a fresh 4.4.0 node supports (7..33) and finalizes (33,
 * 4.4-IV2); some admin tools read it, and there is no KRaft metadata log behind it.
 * share.version: 4.4.0 supports 0..2 and `kafka-storage format` finalizes 2 (the
 * share-group dead-letter queue, KIP-1191). A fresh gregord data directory records 2 at
 * creation, as the format step does; a directory created by an earlier gregord, which
 * recorded nothing, keeps the 1 it ran with until UpdateFeatures changes it (the level
 * lives in the metadata store: h_update_features.c, docs/dlq.md).
 * transaction.version: 4.4.0 supports 0..2 and finalizes 2 (KIP-890 transactions v2:
 * clients skip AddPartitionsToTxn and EndTxn bumps the epoch; docs/transactions.md). */
static const gr_broker_feature_t g_features[GR_BROKER_N_FEATURES] = {
    {"group.version", 0, 1, 1, 1},
    {"metadata.version", 7, 33, 33, 33},
    {"share.version", 0, 2, 2, 1},
    {"transaction.version", 0, 2, 2, 2},
};

/* A fresh data directory records the levels that differ from what an unrecorded one
 * reports, so that later defaults never change a running cluster's features. */
static gr_err_t record_fresh_features(gr_broker_t *b, char *errstr, size_t errstr_size) {
    if (!gr_meta_is_new(b->meta)) return GR_ERR_NONE;
    for (size_t i = 0; i < GR_BROKER_N_FEATURES; i++) {
        const gr_broker_feature_t *f = &g_features[i];
        if (f->finalized == f->unrecorded) continue;
        gr_err_t err = gr_meta_feature_set(b->meta, f->name, f->finalized, errstr, errstr_size);
        if (err) return err;
        GR_INFO("broker", "new data directory: feature %s finalized at level %d", f->name, f->finalized);
    }
    return GR_ERR_NONE;
}

const gr_broker_feature_t *gr_broker_features(gr_broker_t *b, size_t *n) {
    *n = GR_BROKER_N_FEATURES;
    for (size_t i = 0; i < GR_BROKER_N_FEATURES; i++) {
        b->features[i] = g_features[i];
        b->features[i].finalized = gr_meta_feature_level(b->meta, g_features[i].name, g_features[i].unrecorded);
    }
    return b->features;
}
int16_t gr_broker_feature_level(const gr_broker_t *b, const char *name) {
    for (size_t i = 0; i < GR_BROKER_N_FEATURES; i++)
        if (!strcmp(g_features[i].name, name)) return gr_meta_feature_level(b->meta, name, g_features[i].unrecorded);
    return 0;
}
const gr_broker_feature_t *gr_broker_feature_find(const char *name) {
    for (size_t i = 0; i < GR_BROKER_N_FEATURES; i++)
        if (!strcmp(g_features[i].name, name)) return &g_features[i];
    return NULL;
}
int64_t gr_broker_features_epoch(const gr_broker_t *b) { return gr_meta_features_epoch(b->meta); }
int32_t gr_broker_node_id(const gr_broker_t *b) { return b->cfg->node_id; }
uint16_t gr_broker_port(const gr_broker_t *b) { return gr_listener_port(b->listener); }

void gr_broker_req_start(gr_broker_t *b, gr_req_t *req) { b->n_requests++; }
void gr_broker_req_done(gr_broker_t *b, gr_req_t *req) { b->n_requests--; }

static void flusher_completions(gr_loop_t *loop, void *arg, int64_t now) {
    gr_broker_t *b = arg;
    gr_flusher_run_completions(b->flusher);
}

/* Flusher thread -> loop thread. */
static void flusher_wake(void *ctx) {
    gr_broker_t *b = ctx;
    gr_loop_post(b->loop, flusher_completions, b);
}

static void flush_done_ignore(void *arg, gr_err_t err) {
    gr_partition_t *p = arg;
    p->policy_flush_pending = false;
    if (err) {
        GR_ERROR("broker", "flush of %s-%d failed; partition offline", p->topic, p->index);
        p->offline = true;
    }
    gr_partition_unpin(p);
}

/* Before the loop sleeps: acks=all waiters go to the sync thread, and partitions
 * whose flush policy says "now" get an fsync. */
static void before_sleep(gr_hook_t *hook, int64_t now) {
    gr_broker_t *b = hook->data;
    gr_sync_queue_run(b->syncq);
    for (size_t i = 0; i < gr_parts_count(b->parts); i++) {
        gr_partition_t *p = gr_parts_at(b->parts, i);
        if (p->offline || p->policy_flush_pending || !gr_plog_flush_due(p->plog, now)) continue;
        p->policy_flush_pending = true;
        gr_partition_pin(p);
        gr_flusher_request_timed(b->flusher, p->plog, gr_plog_end_offset(p->plog), &b->cm.log_fsync, flush_done_ignore,
                                 p);
    }
}

static void housekeeping(gr_timer_t *t, int64_t now) {
    gr_broker_t *b = t->data;
    int64_t wall = gr_clock_wall_ms();
    for (size_t i = 0; i < gr_parts_count(b->parts); i++) {
        gr_partition_t *p = gr_parts_at(b->parts, i);
        int n = 0;
        if (gr_plog_retention(p->plog, wall, &n))
            GR_WARN("broker", "retention of %s-%d failed", p->topic, p->index);
        else if (n)
            GR_INFO("broker", "retention deleted %d segment(s) of %s-%d", n, p->topic, p->index);
    }
}

/* producer.id.expiration.ms (dynamic, read on every pass): each partition forgets the
 * producer ids that have been idle that long, so their state is bounded by time. */
static void expire_producers(gr_timer_t *t, int64_t now) {
    gr_broker_t *b = t->data;
    (void)now;
    int64_t wall = gr_clock_wall_ms(), ttl = gr_meta_broker_config_i64(b->meta, "producer.id.expiration.ms");
    size_t n = 0;
    for (size_t i = 0; i < gr_parts_count(b->parts); i++) {
        gr_partition_t *p = gr_parts_at(b->parts, i);
        if (p->producers) n += gr_producers_expire(p->producers, wall, ttl);
    }
    if (n) GR_INFO("broker", "%zu idle producer id(s) forgotten (producer.id.expiration.ms=%lld)", n, (long long)ttl);
}

static gr_err_t open_state(gr_broker_t *b, char *errstr, size_t errstr_size) {
    const gr_server_config_t *cfg = b->cfg;
    gr_err_t err = gr_meta_open(&b->meta, cfg->log_dir, cfg->node_id, &cfg->raw, errstr, errstr_size);
    if (!err) err = record_fresh_features(b, errstr, errstr_size);
    if (err) return err;
    int64_t t0 = gr_clock_mono_ms();
    err = gr_parts_open(&b->parts, b->meta, cfg->log_dir, gr_clock_wall_ms(), b->progress, b->progress_arg, errstr,
                        errstr_size);
    if (err) return err;
    GR_INFO("broker", "opened %zu partition(s) in %lld ms", gr_parts_count(b->parts),
            (long long)(gr_clock_mono_ms() - t0));
    err = gr_flusher_start(&b->flusher, flusher_wake, b);
    if (err) {
        snprintf(errstr, errstr_size, "cannot start the flusher thread");
        return err;
    }
    err = gr_broker_producer_ids_open(b, errstr, errstr_size);
    if (err) return err;
    err = gr_broker_acls_open(b, errstr, errstr_size);
    if (err) return err;
    if (b->progress) b->progress(b->progress_arg);
    /* Share groups need the partitions and the flusher (their stores are group-committed). */
    err = gr_share_open(b, errstr, errstr_size);
    if (!err) err = gr_cgroup_open(b, errstr, errstr_size);
    if (!err) err = gr_txn_coord_open(b, errstr, errstr_size);
    if (b->progress) b->progress(b->progress_arg);
    return err;
}

gr_err_t gr_broker_new(gr_loop_t *loop, const gr_server_config_t *cfg, gr_broker_t **out, char *errstr,
                       size_t errstr_size) {
    return gr_broker_new_ex(loop, cfg, NULL, NULL, out, errstr, errstr_size);
}

gr_err_t gr_broker_new_ex(gr_loop_t *loop, const gr_server_config_t *cfg, gr_broker_progress_cb progress,
                          void *progress_arg, gr_broker_t **out, char *errstr, size_t errstr_size) {
    gr_broker_t *b = calloc(1, sizeof(*b));
    if (!b) abort();
    b->loop = loop;
    b->progress = progress;
    b->progress_arg = progress_arg;
    b->cfg = cfg;
    b->syncq = gr_sync_queue_new(loop, &b->cm.log_fsync);
    /* Initialised first, so that gr_broker_free can undo any partial start-up. */
    gr_timer_init(loop, &b->housekeeping, housekeeping, b);
    gr_timer_init(loop, &b->producer_expiry, expire_producers, b);
    gr_broker_topic_jobs_init(b);
    char why[768];
    gr_err_t err = open_state(b, why, sizeof(why));
    if (err) {
        snprintf(errstr, errstr_size, "%s=%s: %s", gr_props_get(&cfg->raw, "log.dirs") ? "log.dirs" : "log.dir",
                 cfg->log_dir, why);
    } else if ((err = gr_broker_sasl_open(b, why, sizeof(why))) || (err = gr_broker_quotas_open(b, why, sizeof(why)))) {
        snprintf(errstr, errstr_size, "%s", why);
    } else {
        err = gr__broker_open_listeners(b, errstr, errstr_size);
    }
    if (err) {
        gr_broker_free(b);
        return err;
    }
    gr_loop_add_before_sleep(loop, &b->before_sleep, before_sleep, b);
    int64_t every = cfg->log_retention_check_interval_ms > 0 ? cfg->log_retention_check_interval_ms : 300000;
    gr_timer_start(&b->housekeeping, every, every);
    every = gr_meta_broker_config_i64(b->meta, "producer.id.expiration.check.interval.ms");
    gr_timer_start(&b->producer_expiry, every, every);
    GR_INFO("broker", "node %d of cluster %s listening on %s:%u", cfg->node_id, gr_meta_cluster_id(b->meta),
            cfg->listen_host[0] ? cfg->listen_host : "*", gr_listener_port(b->listener));
    *out = b;
    return GR_ERR_NONE;
}

void gr_broker_free(gr_broker_t *b) {
    if (!b) return;
    b->shutting_down = true;
    gr_timer_stop(&b->housekeeping);
    gr_timer_stop(&b->producer_expiry);
    gr_loop_remove_before_sleep(b->loop, &b->before_sleep);
    gr__broker_close_listeners(b);
    /* Parked requests (long polls) answer now; their connections are closed
     * so the answers are dropped. */
    gr_broker_cancel_parked(b);
    gr_broker_topic_jobs_stop(b);
    gr_sync_queue_free(b->syncq);
    if (b->progress) b->progress(b->progress_arg);
    if (b->flusher) gr_flusher_destroy(b->flusher);
    if (b->progress) b->progress(b->progress_arg);
    /* After the flusher: every share store callback has run (answering its request). */
    gr_share_close(b);
    gr_cgroup_close(b);
    gr_txn_coord_close(b);
    if (b->progress) b->progress(b->progress_arg);
    gr_parts_close(b->parts, b->progress, b->progress_arg);
    gr_meta_close(b->meta);
    gr_broker_sasl_close(b);
    gr_broker_quotas_close(b);
    gr_broker_acls_close(b);
    free(b);
}
