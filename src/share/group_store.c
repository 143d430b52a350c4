/* Group store: share-group metadata, one full record per change, over an internal
 * partition log. See group_store.h; docs/share-state.md has the format and the
 * crash-safety argument (the same as the share-state store's).
 *
 * Value encoding (version 0):
 *   u8 version | u8 type | varint group_epoch | varint assignment_epoch | str group_id |
 *   uvarint n_members x member | uvarint n_topics x (str name, uuid, varint n_partitions) |
 *   tps initialized | tps initializing | tps deleting | uvarint n_configs x (str, str)
 *   member: str id | varint epoch | varint previous_epoch | str client_id | str client_host |
 *           nstr rack | uvarint n x str subscribed | tps assignment | tps target
 *   tps:    uvarint n_topics x (uuid, uvarint n x varint partition)
 *   str: uvarint length + bytes; nstr: uvarint (length + 1), 0 = null.
 * Key: u8 1 | group id bytes.
 *
 * @locality loop thread only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "proto/records.h"
#include "share/group_store.h"
#include "storage/plog.h"

#define SUB "gstore"
#define VERSION 0
#define KEY_TYPE_GROUP 1
#define REC_OVERHEAD 8
#define MAX_STR (1u << 20)

/* ------------------------------------------------------------------------- */
/* Codec */

static void put_str(gr_wbuf_t *wb, const char *s) {
    size_t n = strlen(s);
    gr_wbuf_uvarint(wb, (uint32_t)n);
    gr_wbuf_put(wb, s, n);
}

static void put_nstr(gr_wbuf_t *wb, const char *s) {
    if (!s) {
        gr_wbuf_uvarint(wb, 0);
        return;
    }
    size_t n = strlen(s);
    gr_wbuf_uvarint(wb, (uint32_t)n + 1);
    gr_wbuf_put(wb, s, n);
}

static void put_tps(gr_wbuf_t *wb, const gr_gstore_tps_t *tps) {
    gr_wbuf_uvarint(wb, (uint32_t)tps->n_topics);
    for (int32_t i = 0; i < tps->n_topics; i++) {
        gr_wbuf_put(wb, tps->topics[i].topic_id.b, 16);
        gr_wbuf_uvarint(wb, (uint32_t)tps->topics[i].n_partitions);
        for (int32_t j = 0; j < tps->topics[i].n_partitions; j++) gr_wbuf_varint(wb, tps->topics[i].partitions[j]);
    }
}

static void put_member(gr_wbuf_t *wb, const gr_gstore_member_t *m) {
    put_str(wb, m->member_id);
    gr_wbuf_varint(wb, m->member_epoch);
    gr_wbuf_varint(wb, m->previous_epoch);
    put_str(wb, m->client_id);
    put_str(wb, m->client_host);
    put_nstr(wb, m->rack_id);
    gr_wbuf_uvarint(wb, (uint32_t)m->n_subscribed);
    for (int32_t i = 0; i < m->n_subscribed; i++) put_str(wb, m->subscribed[i]);
    put_tps(wb, &m->assignment);
    put_tps(wb, &m->target);
}

void gr_gstore_group_encode(const gr_gstore_group_t *g, gr_wbuf_t *wb) {
    gr_wbuf_i8(wb, VERSION);
    gr_wbuf_i8(wb, g->type);
    gr_wbuf_varint(wb, g->group_epoch);
    gr_wbuf_varint(wb, g->assignment_epoch);
    put_str(wb, g->group_id);
    gr_wbuf_uvarint(wb, (uint32_t)g->n_members);
    for (int32_t i = 0; i < g->n_members; i++) put_member(wb, &g->members[i]);
    gr_wbuf_uvarint(wb, (uint32_t)g->n_topics);
    for (int32_t i = 0; i < g->n_topics; i++) {
        put_str(wb, g->topics[i].name);
        gr_wbuf_put(wb, g->topics[i].topic_id.b, 16);
        gr_wbuf_varint(wb, g->topics[i].n_partitions);
    }
    put_tps(wb, &g->initialized);
    put_tps(wb, &g->initializing);
    put_tps(wb, &g->deleting);
    gr_wbuf_uvarint(wb, (uint32_t)g->n_configs);
    for (int32_t i = 0; i < g->n_configs; i++) {
        put_str(wb, g->configs[i].name);
        put_str(wb, g->configs[i].value);
    }
}

typedef struct dec {
    gr_rbuf_t rb;
    gr_arena_t *arena;
} dec_t;

static bool dfail(dec_t *d, const char *why) { return gr_rbuf_fail(&d->rb, GR_ERR__MALFORMED, why); }

/* Read a count and check it against the bytes left (each element takes >= min bytes). */
static bool get_count(dec_t *d, size_t min, int32_t *n) {
    uint32_t v = 0;
    if (!gr_rbuf_uvarint(&d->rb, &v)) return false;
    if (v > INT32_MAX || v > gr_rbuf_remaining(&d->rb) / min) return dfail(d, "count exceeds the value");
    *n = (int32_t)v;
    return true;
}

static void *get_array(dec_t *d, int32_t n, size_t size) {
    if (n == 0) return NULL;
    void *p = gr_arena_try_alloc(d->arena, (size_t)n, size);
    if (!p) dfail(d, "allocation limit");
    return p;
}

static bool get_str_n(dec_t *d, uint32_t len, char **out) {
    const uint8_t *p;
    if (len > MAX_STR) return dfail(d, "string too long");
    if (!gr_rbuf_bytes(&d->rb, len, &p)) return false;
    if (memchr(p, 0, len)) return dfail(d, "NUL inside a string");
    *out = gr_arena_strndup(d->arena, (const char *)p, len);
    return true;
}

static bool get_str(dec_t *d, char **out) {
    uint32_t len = 0;
    return gr_rbuf_uvarint(&d->rb, &len) && get_str_n(d, len, out);
}

static bool get_nstr(dec_t *d, char **out) {
    uint32_t len = 0;
    if (!gr_rbuf_uvarint(&d->rb, &len)) return false;
    if (len == 0) {
        *out = NULL;
        return true;
    }
    return get_str_n(d, len - 1, out);
}

static bool get_uuid(dec_t *d, gr_uuid_t *u) {
    const uint8_t *p;
    if (!gr_rbuf_bytes(&d->rb, 16, &p)) return false;
    memcpy(u->b, p, 16);
    return true;
}

static bool get_tps(dec_t *d, gr_gstore_tps_t *tps) {
    if (!get_count(d, 17, &tps->n_topics)) return false;
    tps->topics = get_array(d, tps->n_topics, sizeof(*tps->topics));
    for (int32_t i = 0; i < tps->n_topics && !d->rb.err; i++) {
        gr_gstore_tp_t *tp = &tps->topics[i];
        if (!get_uuid(d, &tp->topic_id) || !get_count(d, 1, &tp->n_partitions)) return false;
        tp->partitions = get_array(d, tp->n_partitions, sizeof(int32_t));
        for (int32_t j = 0; j < tp->n_partitions && !d->rb.err; j++) gr_rbuf_varint(&d->rb, &tp->partitions[j]);
    }
    return !d->rb.err;
}

static bool get_member(dec_t *d, gr_gstore_member_t *m) {
    if (!get_str(d, &m->member_id) || !gr_rbuf_varint(&d->rb, &m->member_epoch) ||
        !gr_rbuf_varint(&d->rb, &m->previous_epoch) || !get_str(d, &m->client_id) || !get_str(d, &m->client_host) ||
        !get_nstr(d, &m->rack_id) || !get_count(d, 1, &m->n_subscribed))
        return false;
    m->subscribed = get_array(d, m->n_subscribed, sizeof(char *));
    for (int32_t i = 0; i < m->n_subscribed && !d->rb.err; i++) get_str(d, &m->subscribed[i]);
    return !d->rb.err && get_tps(d, &m->assignment) && get_tps(d, &m->target);
}

static bool get_group(dec_t *d, gr_gstore_group_t *g) {
    int8_t version = 0;
    if (!gr_rbuf_i8(&d->rb, &version) || !gr_rbuf_i8(&d->rb, &g->type)) return false;
    if (version != VERSION) return dfail(d, "unknown value version");
    if (!gr_rbuf_varint(&d->rb, &g->group_epoch) || !gr_rbuf_varint(&d->rb, &g->assignment_epoch) ||
        !get_str(d, &g->group_id) || !get_count(d, 7, &g->n_members))
        return false;
    g->members = get_array(d, g->n_members, sizeof(*g->members));
    for (int32_t i = 0; i < g->n_members && !d->rb.err; i++) get_member(d, &g->members[i]);
    if (d->rb.err || !get_count(d, 18, &g->n_topics)) return false;
    g->topics = get_array(d, g->n_topics, sizeof(*g->topics));
    for (int32_t i = 0; i < g->n_topics && !d->rb.err; i++) {
        if (get_str(d, &g->topics[i].name) && get_uuid(d, &g->topics[i].topic_id))
            gr_rbuf_varint(&d->rb, &g->topics[i].n_partitions);
    }
    if (d->rb.err || !get_tps(d, &g->initialized) || !get_tps(d, &g->initializing) || !get_tps(d, &g->deleting) ||
        !get_count(d, 2, &g->n_configs))
        return false;
    g->configs = get_array(d, g->n_configs, sizeof(*g->configs));
    for (int32_t i = 0; i < g->n_configs && !d->rb.err; i++)
        if (get_str(d, &g->configs[i].name)) get_str(d, &g->configs[i].value);
    return !d->rb.err;
}

gr_err_t gr_gstore_group_decode(const void *p, size_t len, gr_arena_t *arena, gr_gstore_group_t *out,
                                const char **why) {
    dec_t d = {.arena = arena};
    gr_rbuf_init(&d.rb, p, len);
    memset(out, 0, sizeof(*out));
    if (get_group(&d, out) && gr_rbuf_remaining(&d.rb) != 0) dfail(&d, "trailing bytes after the value");
    if (!d.rb.err && out->group_id[0] == 0) dfail(&d, "empty group id");
    if (d.rb.err && why) *why = d.rb.why ? d.rb.why : "malformed";
    return d.rb.err;
}

static bool tps_ok(const gr_gstore_tps_t *t) {
    if (t->n_topics < 0 || (t->n_topics && !t->topics)) return false;
    for (int32_t i = 0; i < t->n_topics; i++)
        if (t->topics[i].n_partitions < 0 || (t->topics[i].n_partitions && !t->topics[i].partitions)) return false;
    return true;
}

static bool group_ok(const gr_gstore_group_t *g) {
    if (!g->group_id || !g->group_id[0] || g->n_members < 0 || g->n_topics < 0 || g->n_configs < 0) return false;
    for (int32_t i = 0; i < g->n_members; i++) {
        const gr_gstore_member_t *m = &g->members[i];
        if (!m->member_id || !m->client_id || !m->client_host || m->n_subscribed < 0) return false;
        for (int32_t j = 0; j < m->n_subscribed; j++)
            if (!m->subscribed[j]) return false;
        if (!tps_ok(&m->assignment) || !tps_ok(&m->target)) return false;
    }
    for (int32_t i = 0; i < g->n_topics; i++)
        if (!g->topics[i].name) return false;
    for (int32_t i = 0; i < g->n_configs; i++)
        if (!g->configs[i].name || !g->configs[i].value) return false;
    return tps_ok(&g->initialized) && tps_ok(&g->initializing) && tps_ok(&g->deleting);
}

/* ------------------------------------------------------------------------- */
/* The store: group id -> encoded value (a tiny chained hash map) */

typedef struct gs_entry {
    struct gs_entry *next;
    uint64_t hash;
    int64_t offset;  /* log offset of this group's record */
    uint8_t *value;  /* encoded group */
    size_t value_len;
    char id[];
} gs_entry_t;

struct gr_gstore {
    gr_plog_t *plog;
    gr_gstore_options_t opts;
    gs_entry_t **buckets;
    size_t n_buckets, n_groups;
    int64_t live_bytes, appended_bytes;
    bool prune_pending;
    int64_t prune_to, prune_after;
    int n_internal_flushes;
    gr_wbuf_t kbuf, vbuf, out;
    gr_gstore_stats_t st;
};

static uint64_t str_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static gs_entry_t **slot_of(gr_gstore_t *gs, const char *id, size_t n, uint64_t h) {
    gs_entry_t **pp = &gs->buckets[h & (gs->n_buckets - 1)];
    while (*pp && !((*pp)->hash == h && strlen((*pp)->id) == n && !memcmp((*pp)->id, id, n))) pp = &(*pp)->next;
    return pp;
}

static void grow(gr_gstore_t *gs) {
    size_t nb = gs->n_buckets * 2;
    gs_entry_t **b = calloc(nb, sizeof(*b));
    if (!b) abort();
    for (size_t i = 0; i < gs->n_buckets; i++) {
        for (gs_entry_t *e = gs->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    free(gs->buckets);
    gs->buckets = b;
    gs->n_buckets = nb;
}

/* Apply a record: value NULL deletes. Shared by replay and the live path. */
static void apply(gr_gstore_t *gs, const char *id, size_t n, const uint8_t *value, size_t value_len, int64_t off) {
    uint64_t h = str_hash(id, n);
    gs_entry_t **pp = slot_of(gs, id, n, h), *e = *pp;
    if (e) {
        gs->live_bytes -= (int64_t)(n + e->value_len + REC_OVERHEAD);
        free(e->value);
        e->value = NULL;
        if (!value) {
            *pp = e->next;
            free(e);
            gs->n_groups--;
            return;
        }
    } else {
        if (!value) return;
        if (gs->n_groups >= gs->n_buckets) grow(gs);
        e = calloc(1, sizeof(*e) + n + 1);
        if (!e) abort();
        memcpy(e->id, id, n);
        e->hash = h;
        e->next = gs->buckets[h & (gs->n_buckets - 1)];
        gs->buckets[h & (gs->n_buckets - 1)] = e;
        gs->n_groups++;
    }
    e->value = malloc(value_len ? value_len : 1);
    if (!e->value) abort();
    memcpy(e->value, value, value_len);
    e->value_len = value_len;
    e->offset = off;
    gs->live_bytes += (int64_t)(n + value_len + REC_OVERHEAD);
}

static gr_err_t replay_record(gr_gstore_t *gs, const gr_record_t *rec, gr_arena_t *scratch, char *es, size_t n) {
    const char *why = "bad key";
    if (rec->key_len < 2 || rec->key[0] != KEY_TYPE_GROUP || memchr(rec->key + 1, 0, (size_t)rec->key_len - 1))
        goto bad;
    const char *id = (const char *)rec->key + 1;
    size_t idn = (size_t)rec->key_len - 1;
    if (rec->value) {
        gr_gstore_group_t g;
        gr_err_t err = gr_gstore_group_decode(rec->value, (size_t)rec->value_len, scratch, &g, &why);
        if (err || strlen(g.group_id) != idn || memcmp(g.group_id, id, idn)) goto bad;
    }
    apply(gs, id, idn, rec->value, rec->value ? (size_t)rec->value_len : 0, rec->offset);
    gs->st.n_replayed++;
    return GR_ERR_NONE;
bad:
    snprintf(es, n, "group record at offset %" PRId64 ": %s", rec->offset, why);
    return GR_ERR_CORRUPT_MESSAGE;
}

static gr_err_t replay_batch(gr_gstore_t *gs, const gr_batch_view_t *bv, gr_wbuf_t *scratch, char *es, size_t n) {
    if (!gr_batch_crc_ok(bv)) {
        snprintf(es, n, "group batch at offset %" PRId64 ": CRC mismatch", bv->base_offset);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    gr_record_iter_t it;
    if (gr_record_iter_init(&it, bv, scratch, 0, es, n)) return GR_ERR_CORRUPT_MESSAGE;
    int64_t start = gr_plog_start_offset(gs->plog);
    gr_record_t rec;
    gr_err_t err;
    while ((err = gr_record_iter_next(&it, &rec, es, n)) == GR_ERR_NONE) {
        if (rec.offset < start) continue;
        gr_arena_t a;
        gr_arena_init(&a);
        err = replay_record(gs, &rec, &a, es, n);
        gr_arena_free(&a);
        if (err) return err;
    }
    return err == GR_ERR__NOENT ? GR_ERR_NONE : GR_ERR_CORRUPT_MESSAGE;
}

static gr_err_t replay(gr_gstore_t *gs, char *es, size_t n) {
    int64_t off = gr_plog_start_offset(gs->plog), end = gr_plog_end_offset(gs->plog);
    gr_wbuf_t wb, scratch;
    gr_wbuf_init(&wb);
    gr_wbuf_init(&scratch);
    gr_err_t err = GR_ERR_NONE;
    while (off < end && !err) {
        gr_plog_slice_t sl;
        gr_wbuf_reset(&wb);
        if ((err = gr_plog_read_copy(gs->plog, off, 1 << 20, end, &wb, &sl, es, n)) || sl.len == 0) break;
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, wb.mem, wb.len);
        while (!err && gr_batch_iter_next(&it, &bv, NULL, 0) == GR_ERR_NONE) err = replay_batch(gs, &bv, &scratch, es, n);
        off = sl.next_offset;
    }
    gr_wbuf_free(&wb);
    gr_wbuf_free(&scratch);
    return err;
}

void gr_gstore_options_default(gr_gstore_options_t *opts) {
    *opts = (gr_gstore_options_t){.segment_bytes = 4 << 20, .compact_min_bytes = 1 << 20};
}

gr_err_t gr_gstore_open(const char *dir, const gr_gstore_options_t *opts, gr_gstore_t **out, char *errstr,
                        size_t errstr_size) {
    gr_gstore_t *gs = calloc(1, sizeof(*gs));
    if (!gs) return GR_ERR__NOMEM;
    gs->opts = *opts;
    gs->n_buckets = 16;
    gs->buckets = calloc(gs->n_buckets, sizeof(*gs->buckets));
    if (!gs->buckets) abort();
    gr_wbuf_init(&gs->kbuf);
    gr_wbuf_init(&gs->vbuf);
    gr_wbuf_init(&gs->out);
    gr_plog_config_t cfg;
    gr_plog_config_default(&cfg);
    cfg.segment_bytes = opts->segment_bytes;
    cfg.segment_ms = INT64_MAX; /* no clock on appends: size-based rolls only */
    cfg.retention_ms = cfg.retention_bytes = -1;
    gr_err_t err = gr_plog_open(dir, &cfg, opts->now_ms, &gs->plog, errstr, errstr_size);
    if (!err) err = replay(gs, errstr, errstr_size);
    if (err) {
        gr_gstore_abandon(gs);
        return err;
    }
    gs->appended_bytes = gr_plog_size_bytes(gs->plog);
    GR_INFO(SUB, "loaded %zu share groups", gs->n_groups);
    *out = gs;
    return GR_ERR_NONE;
}

static void free_all(gr_gstore_t *gs) {
    for (size_t i = 0; i < gs->n_buckets; i++) {
        for (gs_entry_t *e = gs->buckets[i], *next; e; e = next) {
            next = e->next;
            free(e->value);
            free(e);
        }
    }
    free(gs->buckets);
    gr_wbuf_free(&gs->kbuf);
    gr_wbuf_free(&gs->vbuf);
    gr_wbuf_free(&gs->out);
    free(gs);
}

void gr_gstore_close(gr_gstore_t *gs) {
    if (!gs) return;
    if (gs->n_internal_flushes) GR_ERROR(SUB, "closed with %d flushes pending", gs->n_internal_flushes);
    if (gs->plog) gr_plog_close(gs->plog);
    free_all(gs);
}

void gr_gstore_abandon(gr_gstore_t *gs) {
    if (!gs) return;
    if (gs->plog) gr_plog_abandon(gs->plog);
    free_all(gs);
}

/* Append one record (value NULL: tombstone) and apply it. */
static gr_err_t append(gr_gstore_t *gs, const char *id, const uint8_t *value, size_t value_len) {
    size_t n = strlen(id);
    gr_wbuf_reset(&gs->kbuf);
    gr_wbuf_i8(&gs->kbuf, KEY_TYPE_GROUP);
    gr_wbuf_put(&gs->kbuf, id, n);
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    gr_batch_builder_add(&bb, gs->opts.now_ms, gs->kbuf.mem, (int32_t)gs->kbuf.len, value,
                         value ? (int32_t)value_len : -1, NULL, 0);
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    gr_wbuf_reset(&gs->out);
    gr_err_t err = gr_batch_builder_finish(&bb, &bo, &gs->out);
    gr_batch_builder_free(&bb);
    if (err) return err;
    gr_plog_append_opts_t ao = {.now_ms = gs->opts.now_ms};
    gr_plog_append_result_t res;
    char es[256];
    if (gr_plog_append(gs->plog, gs->out.mem, gs->out.len, &ao, &res, es, sizeof(es))) {
        GR_ERROR(SUB, "append: %s", es);
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    gs->appended_bytes += (int64_t)gs->out.len;
    apply(gs, id, n, value, value_len, res.base_offset);
    return GR_ERR_NONE;
}

static void plan_prune(gr_gstore_t *gs, int64_t to) {
    if (to <= gr_plog_start_offset(gs->plog)) return;
    gs->prune_pending = true;
    gs->prune_to = to;
    gs->prune_after = gr_plog_end_offset(gs->plog); /* see state_store.c plan_prune */
}

int64_t gr_gstore_maintain(gr_gstore_t *gs) {
    if (gs->prune_pending && gr_plog_durable_offset(gs->plog) >= gs->prune_after) {
        char es[256];
        if (gr_plog_delete_records(gs->plog, gs->prune_to, es, sizeof(es))) GR_WARN(SUB, "prune: %s", es);
        gs->prune_pending = false;
    }
    return gr_plog_start_offset(gs->plog);
}

static void on_internal_flush(void *arg, gr_err_t err) {
    gr_gstore_t *gs = arg;
    gs->n_internal_flushes--;
    if (!err) gr_gstore_maintain(gs);
}

gr_err_t gr_gstore_compact(gr_gstore_t *gs) {
    int64_t before = gr_plog_end_offset(gs->plog);
    for (size_t i = 0; i < gs->n_buckets; i++) {
        for (gs_entry_t *e = gs->buckets[i]; e; e = e->next) {
            if (e->offset >= before) continue;
            /* append() replaces e->value: hand it a private copy of the bytes. */
            uint8_t *copy = malloc(e->value_len ? e->value_len : 1);
            if (!copy) abort();
            memcpy(copy, e->value, e->value_len);
            gr_err_t err = append(gs, e->id, copy, e->value_len);
            free(copy);
            if (err) return err;
        }
    }
    gs->st.n_compactions++;
    gs->appended_bytes = 0;
    plan_prune(gs, before);
    if (gs->opts.flusher && gs->prune_pending) {
        gs->n_internal_flushes++;
        gr_flusher_request(gs->opts.flusher, gs->plog, gr_plog_end_offset(gs->plog), on_internal_flush, gs);
    }
    return GR_ERR_NONE;
}

static void finish(gr_gstore_t *gs, gr_gstore_cb *cb, void *arg) {
    if (cb) {
        if (!gs->opts.flusher) abort(); /* API misuse: a durable put needs a flusher */
        gr_flusher_request(gs->opts.flusher, gs->plog, gr_plog_end_offset(gs->plog), cb, arg);
    }
    gr_gstore_maintain(gs);
    if (!gs->prune_pending && gs->appended_bytes > gs->live_bytes + gs->opts.compact_min_bytes) gr_gstore_compact(gs);
}

gr_err_t gr_gstore_put(gr_gstore_t *gs, const gr_gstore_group_t *group, gr_gstore_cb *cb, void *arg) {
    if (!group_ok(group)) return GR_ERR_INVALID_REQUEST;
    gr_wbuf_reset(&gs->vbuf);
    gr_gstore_group_encode(group, &gs->vbuf);
    gr_err_t err = append(gs, group->group_id, gs->vbuf.mem, gs->vbuf.len);
    if (err) return err;
    finish(gs, cb, arg);
    return GR_ERR_NONE;
}

gr_err_t gr_gstore_delete(gr_gstore_t *gs, const char *group_id, gr_gstore_cb *cb, void *arg) {
    size_t n = strlen(group_id);
    if (*slot_of(gs, group_id, n, str_hash(group_id, n))) {
        gr_err_t err = append(gs, group_id, NULL, 0);
        if (err) return err;
    }
    finish(gs, cb, arg);
    return GR_ERR_NONE;
}

gr_err_t gr_gstore_get(gr_gstore_t *gs, const char *group_id, gr_arena_t *arena, gr_gstore_group_t *out) {
    size_t n = strlen(group_id);
    gs_entry_t *e = *slot_of(gs, group_id, n, str_hash(group_id, n));
    if (!e) return GR_ERR__NOENT;
    gr_err_t err = gr_gstore_group_decode(e->value, e->value_len, arena, out, NULL);
    if (err) abort(); /* we encoded it ourselves: corruption in memory */
    return GR_ERR_NONE;
}

size_t gr_gstore_foreach(gr_gstore_t *gs, gr_gstore_visit_fn *fn, void *arg) {
    size_t n = 0;
    for (size_t i = 0; i < gs->n_buckets; i++) {
        for (gs_entry_t *e = gs->buckets[i]; e; e = e->next) {
            gr_arena_t a;
            gr_arena_init(&a);
            gr_gstore_group_t g;
            if (gr_gstore_group_decode(e->value, e->value_len, &a, &g, NULL)) abort();
            fn(arg, &g);
            gr_arena_free(&a);
            n++;
        }
    }
    return n;
}

size_t gr_gstore_count(const gr_gstore_t *gs) { return gs->n_groups; }

gr_err_t gr_gstore_sync(gr_gstore_t *gs) {
    char es[256];
    gr_err_t err = gr_plog_fsync(gs->plog, NULL, es, sizeof(es));
    if (err) GR_ERROR(SUB, "fsync: %s", es);
    return err;
}

void gr_gstore_stats(const gr_gstore_t *gs, gr_gstore_stats_t *st) {
    *st = gs->st;
    st->n_groups = gs->n_groups;
    st->log_start_offset = gr_plog_start_offset(gs->plog);
    st->log_end_offset = gr_plog_end_offset(gs->plog);
    st->log_bytes = gr_plog_size_bytes(gs->plog);
    st->live_bytes = gs->live_bytes;
}
