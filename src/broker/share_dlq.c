/* The share-group dead-letter queue in the broker: see share_dlq.h and docs/dlq.md.
 *
 * @locality loop thread. */
#include "broker/share_dlq.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/uuid.h"
#include "broker/broker_int.h"
#include "share/dlq.h"

#define K_FLAG        "errors.deadletterqueue.group.enable"
#define K_PREFIX      "errors.deadletterqueue.topic.name.prefix"
#define K_AUTO_CREATE "errors.deadletterqueue.auto.create.topics.enable"
#define READ_BYTES    (1 << 20) /* source read per round (copy.record) */

/* ---------------------------------------------------------------- per-group counters */

typedef struct dlq_group {
    struct dlq_group *next;
    char *group;
    gr_share_dlq_stats_t st;
} dlq_group_t;

struct gr_share_dlq {
    dlq_group_t *groups;
};

static gr_share_dlq_stats_t *stats_of(gr_broker_t *b, const char *group) {
    if (!b->share.dlq) {
        b->share.dlq = calloc(1, sizeof(*b->share.dlq));
        if (!b->share.dlq) abort();
    }
    for (dlq_group_t *g = b->share.dlq->groups; g; g = g->next)
        if (!strcmp(g->group, group)) return &g->st;
    dlq_group_t *g = calloc(1, sizeof(*g));
    if (!g || !(g->group = strdup(group))) abort();
    g->next = b->share.dlq->groups;
    b->share.dlq->groups = g;
    return &g->st;
}

void gr_share_dlq_foreach(gr_broker_t *b, void (*fn)(void *arg, const char *group, const gr_share_dlq_stats_t *st),
                          void *arg) {
    for (dlq_group_t *g = b->share.dlq ? b->share.dlq->groups : NULL; g; g = g->next) fn(arg, g->group, &g->st);
}

void gr_share_dlq_close(gr_broker_t *b) {
    if (!b->share.dlq) return;
    for (dlq_group_t *g = b->share.dlq->groups, *n; g; g = n) {
        n = g->next;
        free(g->group);
        free(g);
    }
    free(b->share.dlq);
    b->share.dlq = NULL;
}

/* ---------------------------------------------------------------- the DLQ topic */

/* Kafka's write-time checks; creates the topic when auto-create says so. NULL: refused
 * (logged as Kafka logs it) or the creation failed (*failed). */
static const gr_meta_topic_t *dlq_topic(gr_broker_t *b, const char *group, const char *name, bool *failed) {
    const gr_meta_topic_t *t = gr_meta_topic_find(b->meta, name);
    gr_cfg_layers_t l;
    gr_meta_config_layers(b->meta, NULL, &l);
    char pbuf[256], why[1024];
    const char *prefix = gr_cfg_effective(GR_CFG_SCOPE_BROKER, K_PREFIX, &l, pbuf, sizeof(pbuf), NULL);
    gr_dlq_target_t tg = {.group = group,
                          .topic = name,
                          .prefix = prefix ? prefix : "",
                          .exists = t != NULL,
                          .flag = t && gr_meta_topic_config_bool(b->meta, t, K_FLAG),
                          .auto_create = gr_cfg_effective_bool(GR_CFG_SCOPE_BROKER, K_AUTO_CREATE, &l, false)};
    gr_dlq_action_t act = gr_dlq_check(&tg, why, sizeof(why));
    if (act == GR_DLQ_REFUSE) {
        GR_ERROR("share", "Failed to write to DLQ, proceeding to ARCHIVED regardless. ConfigException: %s", why);
        return NULL;
    }
    if (act == GR_DLQ_WRITE) return t;
    gr_props_t cfg; /* as Kafka creates it: broker defaults, the flag, CreateTime */
    gr_props_init(&cfg);
    gr_props_set(&cfg, K_FLAG, "true", 0);
    gr_props_set(&cfg, "message.timestamp.type", "CreateTime", 0);
    gr_err_t err = gr_broker_topic_create(b, name, -1, &cfg, false, &t, why, sizeof(why));
    gr_props_free(&cfg);
    if (err) {
        GR_ERROR("share",
                 "Failed to write to DLQ, proceeding to ARCHIVED regardless. Creating DLQ topic %s for share "
                 "group %s failed: %s",
                 name, group, why);
        *failed = true;
        return NULL;
    }
    GR_INFO("share", "created DLQ topic %s for share group %s", name, group);
    return t;
}

/* ---------------------------------------------------------------- records */

typedef struct build {
    gr_batch_builder_t bb;
    gr_dlq_rec_t r; /* topic, partition, group, count, reason filled per range */
    int64_t now, n;
    size_t max_batch; /* the DLQ topic's max.message.bytes: a batch is closed before it passes it */
    gr_wbuf_t out;    /* finished batches, appended together (one write) */
    gr_err_t err;
} build_t;

/* Close the open batch into bd->out (Kafka splits a DLQ write by max.message.bytes too). */
static void flush_batch(build_t *bd) {
    if (!bd->bb.count) return;
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    gr_err_t err = gr_batch_builder_finish(&bd->bb, &bo, &bd->out);
    if (err && !bd->err) bd->err = err;
    gr_batch_builder_free(&bd->bb);
    gr_batch_builder_init(&bd->bb);
}

static void add_one(build_t *bd, int64_t off, const gr_record_t *src) {
    bd->r.offset = off;
    bd->r.key = src ? src->key : NULL;
    bd->r.key_len = src ? src->key_len : -1;
    bd->r.value = src ? src->value : NULL;
    bd->r.value_len = src ? src->value_len : -1;
    if (bd->bb.count && bd->bb.records.len + 512 + (size_t)(src ? src->size : 0) > bd->max_batch) flush_batch(bd);
    gr_dlq_add(&bd->bb, bd->now, &bd->r);
    bd->n++;
}

/* Records of [*next, last] found in one read of the source log, copied as they are
 * now (copy.record: at the transition, so later retention cannot remove them). */
static void copy_round(build_t *bd, const gr_wbuf_t *wb, int64_t *next, int64_t last) {
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    gr_wbuf_t scratch;
    gr_wbuf_init(&scratch);
    gr_batch_iter_init(&it, wb->mem, wb->len);
    while (*next <= last && !gr_batch_iter_next(&it, &bv, NULL, 0)) {
        gr_record_iter_t ri;
        gr_record_t rec;
        /* A transaction marker is no record: its offset gets a headers-only entry. */
        if ((bv.attributes & GR_BATCH_ATTR_CONTROL) || gr_record_iter_init(&ri, &bv, &scratch, 0, NULL, 0)) continue;
        while (*next <= last && !gr_record_iter_next(&ri, &rec, NULL, 0)) {
            if (rec.offset < *next) continue;
            if (rec.offset > last) break;
            while (*next < rec.offset) add_one(bd, (*next)++, NULL); /* not in the log: headers only */
            add_one(bd, (*next)++, &rec);
        }
    }
    gr_wbuf_free(&scratch);
}

static void build_range(build_t *bd, gr_plog_t *src, bool copy, int64_t first, int64_t last) {
    int64_t next = first;
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    while (copy && src && next <= last) {
        int64_t start = gr_plog_start_offset(src), before = next;
        while (next < start && next <= last) add_one(bd, next++, NULL); /* removed by retention */
        if (next > last) break;
        gr_plog_slice_t sl;
        gr_wbuf_reset(&wb);
        if (gr_plog_read_copy(src, next, READ_BYTES, gr_plog_end_offset(src), &wb, &sl, NULL, 0) || !sl.len) break;
        copy_round(bd, &wb, &next, last);
        if (next == before) break;
    }
    gr_wbuf_free(&wb);
    while (next <= last) add_one(bd, next++, NULL);
}

static gr_err_t append(gr_partition_t *p, gr_wbuf_t *out, int64_t *end) {
    char errstr[256];
    gr_plog_append_opts_t ao = {
        .now_ms = gr_clock_wall_ms(), .set_leader_epoch = true, .leader_epoch = p->leader_epoch};
    gr_plog_append_result_t ar;
    gr_err_t err = gr_plog_append(p->plog, out->mem, out->len, &ao, &ar, errstr, sizeof(errstr));
    if (err) {
        GR_ERROR("share", "DLQ append to %s-%d failed: %s", p->topic, p->index, errstr);
        if (gr_plog_offline(p->plog)) p->offline = true;
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    GR_METRIC(p->bytes_in += out->len);
    GR_METRIC(p->records_in += (uint64_t)(ar.last_offset - ar.base_offset + 1));
    *end = ar.last_offset + 1;
    gr_partition_notify(p);
    return GR_ERR_NONE;
}

bool gr_share_dlq_wanted(gr_share_part_t *part, gr_sgc_values_t *vals) {
    if (!part->delta.n_dead) return false; /* the common case: no lookups */
    gr_share_group_values(part->b, part->key.group, vals);
    return gr_dlq_wanted(part->delta.n_dead, gr_broker_feature_level(part->b, "share.version"), vals->dlq_topic);
}

gr_err_t gr_share_dlq_write(gr_share_part_t *part, const gr_sgc_values_t *vals, gr_share_dlq_out_t *out) {
    gr_broker_t *b = part->b;
    const gr_sp_delta_t *d = &part->delta;
    out->p = NULL;
    bool failed = false;
    const gr_meta_topic_t *t = dlq_topic(b, part->key.group, vals->dlq_topic, &failed);
    gr_partition_t *p = t ? gr_parts_find_id(b->parts, &t->id, part->key.partition % t->partitions) : NULL;
    if (!p || p->offline || gr_plog_offline(p->plog)) {
        if (t) GR_ERROR("share", "Failed to write to DLQ, proceeding to ARCHIVED regardless. %s is offline", t->name);
        if (t || failed) stats_of(b, part->key.group)->failed++; /* a refusal marks nothing, as Kafka's meters */
        return GR_ERR_NONE;
    }
    gr_share_dlq_stats_t *st = stats_of(b, part->key.group);
    const gr_meta_topic_t *src = gr_meta_topic_find_id(b->meta, &part->key.topic_id);
    gr_partition_t *sp = gr_parts_find_id(b->parts, &part->key.topic_id, part->key.partition);
    char id[23];
    gr_uuid_to_base64(&part->key.topic_id, id);
    int64_t max = gr_meta_topic_config_i64(b->meta, t, "max.message.bytes");
    build_t bd = {.r = {.topic = src ? src->name : id, .partition = part->key.partition, .group = part->key.group},
                  .now = gr_clock_wall_ms(),
                  .max_batch = max > 4096 ? (size_t)max : 4096};
    gr_batch_builder_init(&bd.bb);
    gr_wbuf_init(&bd.out);
    for (size_t i = 0; i < d->n_dead; i++) {
        bd.r.delivery_count = d->dead[i].delivery_count;
        bd.r.reason = d->dead[i].reason == GR_SP_DEAD_REJECT ? GR_DLQ_REJECT : GR_DLQ_DELIVERY_LIMIT;
        build_range(&bd, sp ? sp->plog : NULL, vals->dlq_copy_record, d->dead[i].first_offset, d->dead[i].last_offset);
    }
    flush_batch(&bd);
    gr_batch_builder_free(&bd.bb);
    gr_err_t err = bd.err ? bd.err : append(p, &bd.out, &out->end);
    gr_wbuf_free(&bd.out);
    if (err) {
        st->failed++;
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    out->p = p;
    st->records += (uint64_t)bd.n;
    st->produces += d->n_dead;
    return GR_ERR_NONE;
}
