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

#include "base/htab.h"
#include "base/log.h"
#include "share/group_store.h"
#include "share/store_log.h"

#define SUB            "gstore"
#define VERSION        0
#define KEY_TYPE_GROUP 1
#define REC_OVERHEAD   8
#define MAX_STR        (1u << 20)

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
    gr_hnode_t node;
    int64_t offset; /* log offset of this group's record */
    uint8_t *value; /* encoded group */
    size_t value_len;
    char id[];
} gs_entry_t;

struct gr_gstore {
    gr_store_log_t log;
    gr_gstore_options_t opts;
    gr_htab_t map; /* group id -> gs_entry_t */
    int64_t live_bytes;
    gr_wbuf_t kbuf, vbuf;
    gr_gstore_stats_t st;
};

#define ENTRY(hn) GR_HTAB_ENTRY(hn, gs_entry_t, node)

typedef struct id_key {
    const char *id;
    size_t n;
} id_key_t;

static bool id_eq(const gr_hnode_t *node, const void *arg) {
    const id_key_t *k = arg;
    const gs_entry_t *e = ENTRY(node);
    return strlen(e->id) == k->n && !memcmp(e->id, k->id, k->n);
}

static gr_hnode_t **slot_of(gr_gstore_t *gs, const char *id, size_t n) {
    id_key_t k = {id, n};
    return gr_htab_slot(&gs->map, gr_hash(id, n), id_eq, &k);
}

static gs_entry_t *first_entry(const gr_gstore_t *gs) { return ENTRY(gr_htab_first(&gs->map)); }
static gs_entry_t *next_entry(const gr_gstore_t *gs, const gs_entry_t *e) {
    return ENTRY(gr_htab_next(&gs->map, &e->node));
}

/* Apply a record: value NULL deletes. Shared by replay and the live path. */
static void apply(gr_gstore_t *gs, const char *id, size_t n, const uint8_t *value, size_t value_len, int64_t off) {
    gr_hnode_t **slot = slot_of(gs, id, n);
    gs_entry_t *e = ENTRY(*slot);
    if (e) {
        gs->live_bytes -= (int64_t)(n + e->value_len + REC_OVERHEAD);
        free(e->value);
        e->value = NULL;
        if (!value) {
            gr_htab_unlink(&gs->map, slot);
            free(e);
            return;
        }
    } else {
        if (!value) return;
        e = calloc(1, sizeof(*e) + n + 1);
        if (!e) abort();
        memcpy(e->id, id, n);
        gr_htab_insert(&gs->map, &e->node, gr_hash(id, n));
    }
    e->value = malloc(value_len ? value_len : 1);
    if (!e->value) abort();
    memcpy(e->value, value, value_len);
    e->value_len = value_len;
    e->offset = off;
    gs->live_bytes += (int64_t)(n + value_len + REC_OVERHEAD);
}

static gr_err_t replay_record(void *arg, const gr_record_t *rec, char *es, size_t n) {
    gr_gstore_t *gs = arg;
    const char *why = "bad key";
    gr_arena_t scratch;
    gr_arena_init(&scratch);
    if (rec->key_len < 2 || rec->key[0] != KEY_TYPE_GROUP || memchr(rec->key + 1, 0, (size_t)rec->key_len - 1))
        goto bad;
    const char *id = (const char *)rec->key + 1;
    size_t idn = (size_t)rec->key_len - 1;
    if (rec->value) {
        gr_gstore_group_t g;
        gr_err_t err = gr_gstore_group_decode(rec->value, (size_t)rec->value_len, &scratch, &g, &why);
        if (err || strlen(g.group_id) != idn || memcmp(g.group_id, id, idn)) goto bad;
    }
    apply(gs, id, idn, rec->value, rec->value ? (size_t)rec->value_len : 0, rec->offset);
    gs->st.n_replayed++;
    gr_arena_free(&scratch);
    return GR_ERR_NONE;
bad:
    snprintf(es, n, "group record at offset %" PRId64 ": %s", rec->offset, why);
    gr_arena_free(&scratch);
    return GR_ERR_CORRUPT_MESSAGE;
}

void gr_gstore_options_default(gr_gstore_options_t *opts) {
    *opts = (gr_gstore_options_t){.segment_bytes = 4 << 20, .compact_min_bytes = 1 << 20};
}

gr_err_t gr_gstore_open(const char *dir, const gr_gstore_options_t *opts, gr_gstore_t **out, char *errstr,
                        size_t errstr_size) {
    gr_gstore_t *gs = calloc(1, sizeof(*gs));
    if (!gs) return GR_ERR__NOMEM;
    gs->opts = *opts;
    gr_htab_init(&gs->map, 16);
    gr_wbuf_init(&gs->kbuf);
    gr_wbuf_init(&gs->vbuf);
    gr_err_t err =
        gr_store_log_open(&gs->log, dir, opts->segment_bytes, opts->flusher, opts->now_ms, SUB, errstr, errstr_size);
    if (!err) err = gr_store_log_replay(&gs->log, "group", replay_record, gs, errstr, errstr_size);
    if (err) {
        gr_gstore_abandon(gs);
        return err;
    }
    GR_INFO(SUB, "loaded %zu share groups", gs->map.n);
    *out = gs;
    return GR_ERR_NONE;
}

static void free_all(gr_gstore_t *gs) {
    for (gs_entry_t *e = first_entry(gs), *next; e; e = next) {
        next = next_entry(gs, e);
        free(e->value);
        free(e);
    }
    gr_htab_free(&gs->map);
    gr_wbuf_free(&gs->kbuf);
    gr_wbuf_free(&gs->vbuf);
    free(gs);
}

void gr_gstore_close(gr_gstore_t *gs) {
    if (!gs) return;
    gr_store_log_close(&gs->log);
    free_all(gs);
}

void gr_gstore_abandon(gr_gstore_t *gs) {
    if (!gs) return;
    gr_store_log_abandon(&gs->log);
    free_all(gs);
}

/* Append one record (value NULL: tombstone) and apply it. */
static gr_err_t append(gr_gstore_t *gs, const char *id, const uint8_t *value, size_t value_len) {
    size_t n = strlen(id);
    gr_wbuf_reset(&gs->kbuf);
    gr_wbuf_i8(&gs->kbuf, KEY_TYPE_GROUP);
    gr_wbuf_put(&gs->kbuf, id, n);
    gr_store_log_add(&gs->log, gs->kbuf.mem, gs->kbuf.len, value, value_len);
    int64_t off;
    gr_err_t err = gr_store_log_append(&gs->log, &off);
    if (err) return err;
    apply(gs, id, n, value, value_len, off);
    return GR_ERR_NONE;
}

int64_t gr_gstore_maintain(gr_gstore_t *gs) { return gr_store_log_maintain(&gs->log); }

gr_err_t gr_gstore_compact(gr_gstore_t *gs) {
    int64_t before = gr_plog_end_offset(gs->log.plog);
    for (gs_entry_t *e = first_entry(gs); e; e = next_entry(gs, e)) {
        if (e->offset >= before) continue;
        /* append() replaces e->value: hand it a private copy of the bytes. */
        uint8_t *copy = malloc(e->value_len ? e->value_len : 1);
        if (!copy) abort();
        memcpy(copy, e->value, e->value_len);
        gr_err_t err = append(gs, e->id, copy, e->value_len);
        free(copy);
        if (err) return err;
    }
    gs->st.n_compactions++;
    gr_store_log_compacted(&gs->log, before);
    return GR_ERR_NONE;
}

static void finish(gr_gstore_t *gs, gr_gstore_cb *cb, void *arg) {
    if (cb) gr_store_log_request(&gs->log, cb, arg);
    gr_gstore_maintain(gs);
    if (!gs->log.prune_pending && gr_store_log_compaction_due(&gs->log, gs->live_bytes, gs->opts.compact_min_bytes))
        gr_gstore_compact(gs);
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
    if (*slot_of(gs, group_id, strlen(group_id))) {
        gr_err_t err = append(gs, group_id, NULL, 0);
        if (err) return err;
    }
    finish(gs, cb, arg);
    return GR_ERR_NONE;
}

gr_err_t gr_gstore_get(gr_gstore_t *gs, const char *group_id, gr_arena_t *arena, gr_gstore_group_t *out) {
    const gs_entry_t *e = ENTRY(*slot_of(gs, group_id, strlen(group_id)));
    if (!e) return GR_ERR__NOENT;
    gr_err_t err = gr_gstore_group_decode(e->value, e->value_len, arena, out, NULL);
    if (err) abort(); /* we encoded it ourselves: corruption in memory */
    return GR_ERR_NONE;
}

size_t gr_gstore_foreach(gr_gstore_t *gs, gr_gstore_visit_fn *fn, void *arg) {
    size_t n = 0;
    for (gs_entry_t *e = first_entry(gs); e; e = next_entry(gs, e)) {
        gr_arena_t a;
        gr_arena_init(&a);
        gr_gstore_group_t g;
        if (gr_gstore_group_decode(e->value, e->value_len, &a, &g, NULL)) abort();
        fn(arg, &g);
        gr_arena_free(&a);
        n++;
    }
    return n;
}

size_t gr_gstore_count(const gr_gstore_t *gs) { return gs->map.n; }

gr_err_t gr_gstore_sync(gr_gstore_t *gs) { return gr_store_log_sync(&gs->log); }

void gr_gstore_stats(const gr_gstore_t *gs, gr_gstore_stats_t *st) {
    *st = gs->st;
    st->n_groups = gs->map.n;
    st->log_start_offset = gr_plog_start_offset(gs->log.plog);
    st->log_end_offset = gr_plog_end_offset(gs->log.plog);
    st->log_bytes = gr_plog_size_bytes(gs->log.plog);
    st->live_bytes = gs->live_bytes;
}
