/* Share groups, coordinator side: the glue between the pure coordinator
 * (share/group.h), the group store and the share-state store.
 *
 * What lives here: opening the stores and loading every group at start-up,
 * the per-group config overrides (resolved once, share/group_config_store.h), persisting a group after every change
 * (gr_share_persist; handlers answer only once it is durable, share_coord.h),
 * share-partition initialization (§4.5, share/group_init.h), the member session
 * expiry timer (§4.6) and topic deletion (§6.6), whose rules are
 * share/group_lifecycle.h's, and the request wait (share/durable_wait.h). The handlers are in h_share_group.c,
 * h_groups.c, h_share_offsets.c and h_group_configs.c.
 *
 * Group configs are kept independent of the group, as Kafka does: a record in
 * the group store holds the group's state (type GR_GSTORE_TYPE_SHARE) and its
 * config overrides; a group id that has only configs is stored with type
 * CONFIG_ONLY and is not a group (ListGroups does not show it); share/group_record.c
 * converts both ways.
 * @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "broker/cgroup_coord.h"
#include "broker/share_coord.h"
#include "broker/share_dlq.h"
#include "broker/share_wq.h"
#include "share/group_init.h"
#include "share/group_lifecycle.h"
#include "share/group_record.h"

/* ------------------------------------------------------------------ answering after durable writes */

/* The last write completed: fix the response, then send it (frees the request's arena). */
static void wait_done(void *ctx, gr_err_t err) {
    gr_share_wait_t *w = ctx;
    if (w->fix) w->fix(w->req, w->resp, err);
    gr_req_respond(w->req, w->resp);
}

gr_share_wait_t *gr_share_wait_new(gr_req_t *req, void *resp, gr_share_wait_fix_fn *fix) {
    gr_share_wait_t *w = gr_arena_alloc(&req->arena, sizeof(*w));
    *w = (gr_share_wait_t){.req = req, .resp = resp, .fix = fix};
    gr_dwait_init(&w->dw, wait_done, w);
    return w;
}

void gr_share_wait_add(gr_share_wait_t *w) { gr_dwait_add(&w->dw); }

void gr_share_wait_fail(gr_share_wait_t *w, gr_err_t err) { gr_dwait_fail(&w->dw, err); }

void gr_share_wait_cb(void *arg, gr_err_t err) { gr_dwait_cb(&((gr_share_wait_t *)arg)->dw, err); }

void gr_share_wait_arm(gr_share_wait_t *w) { gr_dwait_arm(&w->dw); }

/* A store call's synchronous refusal completes its reference at once. */
static void wait_queued(gr_share_wait_t *w, gr_err_t err) { gr_dwait_queued(w ? &w->dw : NULL, err); }

/* ------------------------------------------------------------------ topics and clients */

static bool view_by_name(void *ctx, const char *name, gr_uuid_t *id, int32_t *n) {
    const gr_meta_topic_t *t = gr_meta_topic_find(((gr_broker_t *)ctx)->meta, name);
    if (!t) return false;
    *id = t->id;
    *n = t->partitions;
    return true;
}

static bool view_by_id(void *ctx, const gr_uuid_t *id, int32_t *n) {
    const gr_meta_topic_t *t = gr_meta_topic_find_id(((gr_broker_t *)ctx)->meta, id);
    if (!t) return false;
    *n = t->partitions;
    return true;
}

gr_sg_topic_view_t gr_share_topic_view(gr_broker_t *b) {
    return (gr_sg_topic_view_t){.by_name = view_by_name, .by_id = view_by_id, .ctx = b};
}

const char *gr_share_client_host(gr_req_t *req) {
    const char *peer = gr_conn_peer(req->conn);
    const char *colon = strrchr(peer, ':');
    size_t len = colon ? (size_t)(colon - peer) : strlen(peer);
    if (len >= 2 && peer[0] == '[' && peer[len - 1] == ']') peer++, len -= 2;
    return gr_arena_sprintf(&req->arena, "/%.*s", (int)len, peer);
}

/* ------------------------------------------------------------------ group configs */

/* Overrides and their resolved values live in share/group_config_store.h. */

const gr_props_t *gr_share_group_configs(gr_broker_t *b, const char *group_id) {
    return b->share.gconfs ? gr_sgc_store_props(b->share.gconfs, group_id) : NULL;
}

/* Replace the overrides in memory (an empty map removes the entry); resolved here, once. */
static void gconf_replace(gr_broker_t *b, const char *group_id, const gr_props_t *configs) {
    gr_sgc_store_set(b->share.gconfs, group_id, configs);
}

void gr_share_group_configs_set(gr_broker_t *b, const char *group_id, const gr_props_t *configs, gr_share_wait_t *w) {
    gconf_replace(b, group_id, configs);
    gr_share_persist(b, group_id, w);
}

void gr_share_group_values(gr_broker_t *b, const char *group_id, gr_sgc_values_t *out) {
    if (b->share.gconfs)
        *out = *gr_sgc_store_values(b->share.gconfs, group_id);
    else
        gr_sgc_resolve(NULL, &b->cfg->share.sg, out);
}

bool gr_share_id_used_by_other_type(gr_broker_t *b, const char *group_id) {
    return b->cgroup && gr_cg_exists(b->cgroup->reg, group_id);
}

/* ------------------------------------------------------------------ group records (share/group_record.h) */

void gr_share_persist(gr_broker_t *b, const char *group_id, gr_share_wait_t *w) {
    gr_sg_group_t g;
    bool have = gr_share_group_export(b->share.groups, group_id, &g) == GR_ERR_NONE;
    const gr_props_t *cf = gr_share_group_configs(b, group_id);
    gr_gstore_cb *cb = w ? gr_share_wait_cb : NULL;
    if (w) gr_share_wait_add(w);
    if (!have && !cf) {
        wait_queued(w, gr_gstore_delete(b->share.gstore, group_id, cb, w));
        return;
    }
    gr_arena_t a;
    gr_arena_init(&a);
    gr_gstore_group_t rec;
    gr_sg_record_build(&a, group_id, have ? &g : NULL, cf, &rec);
    wait_queued(w, gr_gstore_put(b->share.gstore, &rec, cb, w));
    gr_arena_free(&a);
    if (have) gr_sg_group_free(&g);
}

/* Start-up: one stored record -> configs (resolved once), then (share groups) the registry. */
static void load_one(void *arg, const gr_gstore_group_t *rec) {
    gr_broker_t *b = arg;
    gr_props_t cf;
    gr_props_init(&cf);
    gr_arena_t a;
    gr_arena_init(&a);
    gr_sg_group_t g;
    bool share = gr_sg_record_load(&a, rec, &cf, &g);
    gconf_replace(b, rec->group_id, &cf);
    gr_props_free(&cf);
    if (share) {
        gr_sgc_values_t v;
        gr_share_group_values(b, rec->group_id, &v);
        if (gr_share_group_import(b->share.groups, &g, gr_loop_now(b->loop), v.session_timeout_ms))
            GR_ERROR("share", "stored share group %s is invalid; ignored", rec->group_id);
    }
    gr_arena_free(&a);
}

/* ------------------------------------------------------------------ initialization (§4.5) */

static void init_add(void *arg) { gr_share_wait_add(arg); }

static void init_refused(void *arg, gr_err_t err) { wait_queued(arg, err); }

/* share/group_init.h, with the request's durable wait (w may be NULL). */
void gr_share_initialize(gr_broker_t *b, const char *group_id, const gr_sg_assignment_t *parts, gr_share_wait_t *w,
                         bool *changed) {
    const gr_sg_init_wait_t iw = {init_add, init_refused, w ? gr_share_wait_cb : NULL, w};
    (void)gr_share_group_initialize(b->share.groups, b->share.sstore, group_id, parts, &iw, changed);
}

/* ------------------------------------------------------------------ group cap */

int32_t gr_share_config_only_groups(gr_broker_t *b) {
    return b->share.gconfs ? gr_sgc_store_config_only(b->share.gconfs, b->share.groups) : 0;
}

/* Groups known only by their configs count too (share/group_config_store.h). */
bool gr_share_group_may_create(gr_broker_t *b, const char *group_id, char *errstr, size_t errstr_size) {
    return gr_sgc_store_group_may_create(b->share.gconfs, b->share.groups, b->cfg->share.max_groups, group_id, errstr,
                                         errstr_size);
}

/* ------------------------------------------------------------------ member expiry, topics (share/group_lifecycle.h) */

static void hook_release(void *ctx, const char *group_id, const char *member_id) {
    gr_share_release_member(ctx, group_id, member_id);
}

static void hook_drop(void *ctx, const char *group_id, const gr_uuid_t *topic_id) {
    gr_share_drop_partitions(ctx, group_id, topic_id, -1);
}

static bool hook_has_configs(void *ctx, const char *group_id) { return gr_share_group_configs(ctx, group_id) != NULL; }

static void hook_persist(void *ctx, const char *group_id) { gr_share_persist(ctx, group_id, NULL); }

static gr_sg_hooks_t hooks(gr_broker_t *b) {
    return (gr_sg_hooks_t){hook_release, hook_drop, hook_has_configs, hook_persist, b};
}

static void expiry_fire(gr_timer_t *t, int64_t now) {
    gr_broker_t *b = t->data;
    gr_sg_hooks_t h = hooks(b);
    (void)gr_share_groups_expire(b->share.groups, now, &h);
    gr_share_rearm_expiry(b);
}

void gr_share_rearm_expiry(gr_broker_t *b) {
    int64_t next = gr_share_group_next_deadline(b->share.groups);
    if (next == INT64_MAX) {
        gr_timer_stop(&b->share.expiry_timer);
        return;
    }
    gr_timer_start(&b->share.expiry_timer, next - gr_loop_now(b->loop), 0);
}

void gr_share_on_topic_deleted(gr_broker_t *b, const gr_uuid_t *topic_id) {
    gr_sg_hooks_t h = hooks(b);
    size_t n = 0;
    gr_err_t err = gr_share_groups_topic_deleted(b->share.groups, b->share.sstore, topic_id, &h, &n);
    if (err)
        GR_ERROR("share", "deleting the share state of a deleted topic failed: %s", gr_err_str(err));
    else if (n)
        GR_INFO("share", "deleted %zu share-partition state(s) of a deleted topic", n);
}

/* ------------------------------------------------------------------ open / close */

static gr_err_t open_stores(gr_broker_t *b, char *errstr, size_t errstr_size) {
    char dir[4096];
    int64_t now = gr_clock_wall_ms();
    gr_gstore_options_t go;
    gr_gstore_options_default(&go);
    go.flusher = b->flusher;
    go.now_ms = now;
    snprintf(dir, sizeof(dir), "%s/%s", b->cfg->log_dir, GR_GSTORE_DIR_NAME);
    gr_err_t err = gr_gstore_open(dir, &go, &b->share.gstore, errstr, errstr_size);
    if (err) return err;
    gr_sstore_options_t so;
    gr_sstore_options_default(&so);
    so.flusher = b->flusher;
    so.now_ms = now;
    if (b->cfg->share.snapshot_update_records_per_snapshot > 0)
        so.snapshot_every = (uint32_t)b->cfg->share.snapshot_update_records_per_snapshot;
    snprintf(dir, sizeof(dir), "%s/%s", b->cfg->log_dir, GR_SSTORE_DIR_NAME);
    return gr_sstore_open(dir, &so, &b->share.sstore, errstr, errstr_size);
}

gr_err_t gr_share_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    b->share.groups = gr_share_group_registry_new(&b->cfg->share.sg);
    b->share.gconfs = gr_sgc_store_new(&b->cfg->share.sg);
    gr_timer_init(b->loop, &b->share.expiry_timer, expiry_fire, b);
    int64_t t0 = gr_clock_mono_ms();
    gr_err_t err = open_stores(b, errstr, errstr_size);
    if (err) return err;
    size_t n = gr_gstore_foreach(b->share.gstore, load_one, b);
    gr_sstore_stats_t st;
    gr_sstore_stats(b->share.sstore, &st);
    GR_INFO("share", "loaded %d share group(s) (%zu record(s)) and %zu share-partition state(s) in %lld ms",
            gr_share_group_count(b->share.groups), n, st.n_keys, (long long)(gr_clock_mono_ms() - t0));
    gr_share_rearm_expiry(b);
    gr_share_dlq_recover(b); /* before any share-partition loads (docs/dlq.md §7) */
    return gr_share_data_open(b, errstr, errstr_size);
}

/* Called after the flusher is destroyed: every store callback has run. */
void gr_share_close(gr_broker_t *b) {
    gr_share_wq_close(b); /* empty: the sync queue has run every waiter */
    if (!b->share.groups) return;
    gr_share_data_close(b);
    gr_timer_stop(&b->share.expiry_timer);
    if (b->share.gstore) gr_gstore_close(b->share.gstore);
    bool clean = b->share.sstore && !gr_sstore_failed(b->share.sstore) && !b->share.dlq_torn;
    if (b->share.sstore) gr_sstore_close(b->share.sstore);
    if (clean) gr_share_dlq_mark_clean(b);
    gr_share_dlq_close(b);
    b->share.gstore = NULL;
    b->share.sstore = NULL;
    gr_share_group_registry_free(b->share.groups);
    b->share.groups = NULL;
    gr_sgc_store_free(b->share.gconfs);
    b->share.gconfs = NULL;
}
