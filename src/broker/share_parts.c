/* In-memory share-partitions: see share_parts.h.
 *
 * The rules are src/share's: loading (share/sp_persist.h, gr_sp_load), a transition
 * as one unit with its write and the transitions run here (share/sp_unit.h,
 * share/sp_steps.h), the lock timer's plan and the wake-up lists
 * (share/sp_waiters.h). This file binds them to the loop (timers, clocks), the
 * partition logs, the share-state store, the DLQ and its write queue.
 *
 * Lazy initialisation (spec §1.10): the state store is read synchronously
 * (it keeps every key merged in memory), so an SP is ACTIVE as soon as the
 * first ShareFetch names it and no fetch ever waits for INITIALIZING.
 *
 * Writes (§7.2): gr_share_part_begin saves the SP, the gr_sp_* call puts its
 * changes in part->delta, gr_share_part_end appends them to the store or rolls
 * the SP back (docs/share-state.md, "Failed writes"). A failed durability
 * (fsync) request fails the whole store
 * (gr_sstore_failed): from then on share-partitions answer
 * KAFKA_STORAGE_ERROR and nothing moves until restart, because memory may be
 * ahead of a disk that is in an unknown state.
 *
 * Only one change waits lazily in part->delta outside a transition: an SPSO
 * moved by the log start (§1.8), which is derived from the partition log and
 * so re-derived after a restart; it is written with the next write.
 *
 * @locality loop thread. */
#include "broker/share_parts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hash.h"
#include "base/log.h"
#include "base/uuid.h"
#include "broker/broker_int.h"
#include "broker/share_capacity.h"
#include "broker/share_dlq.h"
#include "broker/share_wq.h"
#include "share/sp_persist.h"
#include "share/sp_steps.h"
#include "share/sp_unit.h"

#define PART(k) ((gr_share_part_t *)(void *)((char *)(k)-offsetof(gr_share_part_t, key)))

/* ---------------------------------------------------------------- map (share/sp_registry.h) */

gr_share_part_t *gr_share_part_find(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition) {
    gr_sp_key_t *k = gr_sp_registry_find(b->share.parts, group, topic_id, partition);
    return k ? PART(k) : NULL;
}

/* ---------------------------------------------------------------- writes */

static gr_sstore_key_t part_key(const gr_share_part_t *part) {
    return gr_sstore_key(part->key.group, part->key.topic_id, part->key.partition);
}

/* Hand the accumulated delta to the store. Returns the synchronous error;
 * cb(arg) is called once the record is durable only when NONE is returned
 * and something was written (*written). A record that commits a DLQ batch (dlq_p
 * not NULL), and any later record of the same share-partition while one waits,
 * goes through share_wq.c: written only after the DLQ batch is fsynced. */
static gr_err_t part_write(gr_share_part_t *part, gr_partition_t *dlq_p, int64_t dlq_end, gr_sstore_cb *cb, void *arg,
                           bool *written) {
    gr_sp_delta_t *d = &part->delta;
    *written = false;
    if (!d->changed) return GR_ERR_NONE;
    gr_sstore_t *ss = part->b->share.sstore;
    if (!ss) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    gr_sstore_batch_t stack[64], *bv = d->n <= 64 ? stack : malloc(d->n * sizeof(*bv));
    if (!bv) abort();
    gr_sstore_update_t up;
    gr_sp_persist_update(d, gr_loop_now(part->b->loop), gr_clock_wall_ms(), bv, &up);
    gr_sstore_key_t key = part_key(part);
    gr_err_t err = GR_ERR_NONE;
    if (dlq_p || gr_share_wq_has(part->b, &key))
        gr_share_wq_add(part->b, &key, &up, dlq_p, dlq_end, cb, arg);
    else
        err = gr_sstore_write(ss, &key, &up, cb, arg);
    if (bv != stack) free(bv);
    if (err) {
        GR_WARN("share", "share-state write for %s/%d failed: %s", part->key.group, part->key.partition,
                gr_err_name(err));
        return err;
    }
    gr_sp_delta_reset(d);
    *written = true;
    return GR_ERR_NONE;
}

/* Write the lazily pending SPSO move (evicting, closing); failing is harmless
 * because the move is re-derived from the log start after a restart. */
static void part_write_lazy(gr_share_part_t *part) {
    bool written;
    if (!gr_sstore_failed(part->b->share.sstore)) (void)part_write(part, NULL, 0, NULL, NULL, &written);
}

/* Before the share-state record of a dead-lettering transition: the durable state
 * must carry a start offset (share/sp_persist.h), written once per share-partition. */
static gr_err_t ensure_start_offset(gr_share_part_t *part) {
    gr_sstore_key_t key = part_key(part);
    gr_sstore_state_t st;
    gr_sstore_update_t up;
    gr_err_t err = gr_sstore_read(part->b->share.sstore, &key, &st);
    if (!gr_sp_persist_start_needed(err, &st, gr_sp_state_epoch(part->sp), part->mark.spso_begin, &up))
        return GR_ERR_NONE;
    return gr_sstore_write(part->b->share.sstore, &key, &up, NULL, NULL);
}

/* The writer of a transition (share/sp_unit.h): the DLQ append first when the
 * transition dead-letters, then the record that commits both, written only once the
 * DLQ batch is fsynced (docs/dlq.md §7). A failure up to the DLQ append leaves
 * nothing written: the unit rolls back. */
static gr_err_t write_with_dlq(void *ctx, gr_sstore_cb *cb, void *arg, bool *written) {
    gr_share_part_t *part = ctx;
    gr_share_dlq_out_t dlq = {0};
    gr_sgc_values_t vals;
    *written = false;
    if (part->b->share.sstore && gr_share_dlq_wanted(part, &vals)) {
        gr_err_t err = ensure_start_offset(part);
        if (!err) err = gr_share_dlq_write(part, &vals, &dlq);
        if (err) return err;
    }
    return part_write(part, dlq.p, dlq.end, cb, arg, written);
}

static gr_sp_step_t step_of(gr_share_part_t *part) {
    return (gr_sp_step_t){part->sp, &part->delta, &part->mark, write_with_dlq, part};
}

void gr_share_part_begin(gr_share_part_t *part) { gr_sp_unit_begin(part->sp, &part->delta, &part->mark); }

gr_err_t gr_share_part_end(gr_share_part_t *part, gr_err_t op_err, gr_sstore_cb *cb, void *arg, bool *written) {
    gr_sp_step_t st = step_of(part);
    return gr_sp_step_end(&st, op_err, cb, arg, written);
}

bool gr_share_state_failed(const gr_broker_t *b) {
    return b->share.dlq_torn || (b->share.sstore && gr_sstore_failed(b->share.sstore));
}

/* ---------------------------------------------------------------- timers and waiters */

static void notify(gr_share_part_t *part) { gr_share_waiters_notify(&part->waiters); }

static void rearm(gr_share_part_t *part) {
    int64_t delay;
    gr_timer_t *t = &part->timer;
    switch (gr_sp_timer_plan(gr_sp_next_deadline(part->sp), gr_timer_is_active(t), gr_timer_due(t),
                             gr_loop_now(part->b->loop), &delay)) {
    case GR_SP_TIMER_STOP: gr_timer_stop(t); break;
    case GR_SP_TIMER_KEEP: break;
    case GR_SP_TIMER_START: gr_timer_start(t, delay, 0); break;
    }
}

void gr_share_part_conf(gr_share_part_t *part, gr_sp_conf_t *conf, gr_sgc_values_t *vals) {
    gr_sgc_values_t local;
    if (!vals) vals = &local;
    gr_share_group_values(part->b, part->key.group, vals);
    conf->delivery_count_limit = vals->delivery_count_limit;
    conf->max_record_locks = vals->partition_max_record_locks;
    conf->lock_duration_ms = vals->record_lock_duration_ms;
    gr_sp_set_redelivery_backoff(part->sp, vals->redelivery_backoff_ms, vals->redelivery_backoff_max_ms);
}

bool gr_share_part_read_committed(gr_share_part_t *part) {
    gr_sgc_values_t vals;
    gr_share_group_values(part->b, part->key.group, &vals);
    return vals.read_committed;
}

/* §1.4 (share/sp_steps.h): a refused write is retried later; else waiters take the records. */
static void on_lock_timer(gr_timer_t *t, int64_t now) {
    gr_share_part_t *part = t->data;
    if (gr_share_state_failed(part->b)) return; /* offline until restart */
    gr_sp_conf_t conf;
    gr_share_part_conf(part, &conf, NULL);
    gr_sp_step_t st = step_of(part);
    if (gr_sp_step_expire(&st, &conf, now)) {
        gr_timer_start(&part->timer, GR_SP_EXPIRY_RETRY_MS, 0);
        return;
    }
    rearm(part);
    notify(part);
}

void gr_share_part_touched(gr_share_part_t *part) { rearm(part); }

void gr_share_part_wait(gr_share_part_t *part, gr_share_waiter_t *w, void (*fn)(void *arg), void *arg) {
    gr_share_waiter_link(&part->waiters, w, fn, arg);
}

bool gr_share_part_has_waiters(const gr_share_part_t *part) { return gr_share_waiters_any(&part->waiters); }

/* ---------------------------------------------------------------- acknowledgements */

gr_err_t gr_share_part_ack(gr_share_part_t *part, const gr_sp_ack_req_t *ar, gr_share_ackwait_t *w, int16_t *err_slot,
                           char *errstr, size_t errstr_size) {
    gr_sp_conf_t conf;
    gr_share_part_conf(part, &conf, NULL);
    gr_sp_step_t st = step_of(part);
    gr_err_t err = gr_sp_step_ack(&st, ar, &conf, gr_loop_now(part->b->loop), w, err_slot, errstr, errstr_size);
    if (err) return err;
    rearm(part);
    notify(part); /* released records or freed capacity */
    return GR_ERR_NONE;
}

gr_err_t gr_share_ack_partition(gr_broker_t *b, const char *group, const char *member, const gr_uuid_t *topic_id,
                                int32_t partition, const gr_sp_ack_batch_t *batches, size_t n, bool is_renew_ack,
                                gr_share_ackwait_t *w, int16_t *err_slot, char *errstr, size_t errstr_size) {
    gr_share_part_t *part = gr_share_part_find(b, group, topic_id, partition);
    gr_share_ack_target_t t = {.topic_known = gr_meta_topic_find_id(b->meta, topic_id) != NULL,
                               .partition_known = gr_parts_find_id(b->parts, topic_id, partition) != NULL,
                               .sp_in_memory = part != NULL,
                               .state_failed = gr_share_state_failed(b)};
    bool apply;
    gr_err_t err = gr_share_ack_admit(batches, n, is_renew_ack, &t, &apply, errstr, errstr_size);
    if (err || !apply) return err;
    gr_sgc_values_t vals;
    gr_share_group_values(b, group, &vals);
    gr_sp_ack_req_t ar = {member, batches, n, is_renew_ack, vals.renew_acknowledge_enable};
    return gr_share_part_ack(part, &ar, w, err_slot, errstr, errstr_size);
}

/* ---------------------------------------------------------------- initialisation */

/* The partition log as share.auto.offset.reset sees it (share/sp_persist.h). */
static bool log_offset_for_time(void *ctx, int64_t ts_ms, int64_t *offset) {
    int64_t ts;
    return !gr_plog_offset_for_timestamp(ctx, ts_ms, offset, &ts);
}

/* A stored state whose start record is already done (a DLQ archive rolled forward
 * by an older gregord without moving the start): loading advanced the start past it;
 * record that, or DescribeShareGroupOffsets would report a lag that never drains. */
static void heal_start_offset(gr_share_part_t *part, const gr_sstore_key_t *key, int64_t stored_start) {
    if (gr_sstore_failed(part->b->share.sstore)) return;
    int64_t dcc = gr_sp_delivery_complete_count(part->sp);
    gr_sstore_update_t up = {.state_epoch = gr_sp_state_epoch(part->sp),
                             .leader_epoch = -1,
                             .start_offset = gr_sp_start_offset(part->sp),
                             .delivery_complete_count = dcc > INT32_MAX ? INT32_MAX : (int32_t)dcc};
    gr_err_t err = gr_sstore_write(part->b->share.sstore, key, &up, NULL, NULL);
    GR_INFO("share", "share state of %s/%d: start offset %" PRId64 " was done, moved to %" PRId64 "%s%s",
            part->key.group, key->partition, stored_start, up.start_offset, err ? ": " : "",
            err ? gr_err_name(err) : "");
}

static gr_err_t part_init(gr_share_part_t *part, gr_partition_t *p) {
    gr_sstore_key_t key = part_key(part);
    gr_sstore_state_t st;
    gr_err_t rerr = gr_sstore_read(part->b->share.sstore, &key, &st);
    gr_sgc_values_t vals;
    gr_share_group_values(part->b, part->key.group, &vals);
    gr_share_log_view_t log = {gr_plog_start_offset(p->plog), gr_plog_end_offset(p->plog), log_offset_for_time,
                               p->plog};
    char why[256];
    gr_err_t err =
        gr_sp_load(part->sp, rerr, &st, &vals, &log, gr_loop_now(part->b->loop), gr_clock_wall_ms(), why, sizeof(why));
    if (err && why[0])
        GR_ERROR("share", "share state of %s/%s-%d is corrupt: %s", part->key.group, p->topic, p->index, why);
    if (!err && !rerr && st.start_offset >= 0 && gr_sp_start_offset(part->sp) > st.start_offset)
        heal_start_offset(part, &key, st.start_offset);
    return err;
}

static gr_share_part_t *part_new(gr_broker_t *b, const char *group, const gr_partition_t *p) {
    gr_share_part_t *part = calloc(1, sizeof(*part));
    if (!part) abort();
    part->b = b;
    part->key.group = strdup(group);
    if (!part->key.group) abort();
    part->key.topic_id = p->topic_id;
    part->key.partition = p->index;
    part->sp = gr_sp_new();
    gr_sp_set_stats(part->sp, &part->stats);
    gr_sp_delta_init(&part->delta);
    gr_timer_init(b->loop, &part->timer, on_lock_timer, part);
    gr_share_waiters_init(&part->waiters);
    gr_share_capacity_init(part, p);
    return part;
}

static void part_free(gr_share_part_t *part) {
    gr_timer_stop(&part->timer);
    gr_share_capacity_stop(part);
    gr_share_waiters_drain(&part->waiters); /* they re-resolve the SP (which reloads from the store) */
    gr_sp_delta_free(&part->delta);
    gr_sp_destroy(part->sp);
    free(part->key.group);
    free(part);
}

gr_err_t gr_share_part_get(gr_broker_t *b, const char *group, gr_partition_t *p, gr_share_part_t **out) {
    if (gr_share_state_failed(b)) return GR_ERR_KAFKA_STORAGE_ERROR; /* offline until restart */
    gr_share_part_t *part = gr_share_part_find(b, group, &p->topic_id, p->index);
    if (!part) {
        if (!b->share.parts || !b->share.sstore) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
        part = part_new(b, group, p);
        part->loading = true;
        gr_err_t err = part_init(part, p);
        if (err) {
            part_free(part);
            return err;
        }
        gr_sp_registry_insert(b->share.parts, &part->key);
        rearm(part); /* persisted redelivery delays wake fetches when due */
    }
    /* §1.8: the log start moved past SPSO (retention, DeleteRecords). */
    gr_sp_update_log_start(part->sp, gr_plog_start_offset(p->plog), &part->delta);
    *out = part;
    return GR_ERR_NONE;
}

/* ---------------------------------------------------------------- members, drop */

typedef struct release {
    gr_broker_t *b;
    const char *member;
} release_t;

static void release_one(void *arg, gr_sp_key_t *k) {
    release_t *r = arg;
    gr_share_part_t *part = PART(k);
    gr_sp_conf_t conf;
    gr_share_part_conf(part, &conf, NULL);
    gr_sp_step_t st = step_of(part);
    int64_t n;
    if (gr_sp_step_release(&st, &conf, r->member, &n)) {
        GR_WARN("share", "release of %s in %s/%d not written: records stay locked until expiry", r->member,
                part->key.group, part->key.partition);
        return;
    }
    if (n == 0) return;
    rearm(part);
    notify(part);
}

void gr_share_parts_release_member(gr_broker_t *b, const char *group, const char *member) {
    if (!b->share.parts || gr_share_state_failed(b)) return;
    release_t r = {b, member};
    gr_sp_registry_each(b->share.parts, group, release_one, &r);
}

static void drop_one(void *arg, gr_sp_key_t *k) {
    (void)arg;
    part_free(PART(k));
}

void gr_share_parts_drop(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition) {
    gr_sp_registry_remove(b->share.parts, group, topic_id, partition, drop_one, NULL);
}

static void write_lazy_one(void *arg, gr_sp_key_t *k) {
    (void)arg;
    part_write_lazy(PART(k));
}

void gr_share_parts_evict_group(gr_broker_t *b, const char *group) {
    if (!b->share.parts) return;
    gr_sp_registry_each(b->share.parts, group, write_lazy_one, NULL);
    gr_share_parts_drop(b, group, NULL, -1);
}

size_t gr_share_parts_count(const gr_broker_t *b) { return gr_sp_registry_count(b->share.parts); }

typedef struct each {
    void (*fn)(void *arg, gr_share_part_t *part);
    void *arg;
} each_t;

static void each_one(void *arg, gr_sp_key_t *k) {
    each_t *e = arg;
    e->fn(e->arg, PART(k));
}

void gr_share_parts_foreach(gr_broker_t *b, void (*fn)(void *arg, gr_share_part_t *part), void *arg) {
    each_t e = {fn, arg};
    gr_sp_registry_each(b->share.parts, NULL, each_one, &e);
}

gr_err_t gr_share_parts_open(gr_broker_t *b) {
    b->share.parts = gr_sp_registry_new();
    return GR_ERR_NONE;
}

void gr_share_parts_close(gr_broker_t *b) {
    if (!b->share.parts) return;
    /* Lazily persisted changes (an SPSO moved by the log start) go out now. */
    gr_sp_registry_each(b->share.parts, NULL, write_lazy_one, NULL);
    gr_share_parts_drop(b, NULL, NULL, -1);
    gr_sp_registry_free(b->share.parts);
    b->share.parts = NULL;
}
