/* Share-state store: in-memory map of share-partition states over an internal
 * partition log. See state_store.h for the API and docs/share-state.md for the
 * record format, recovery and compaction.
 *
 * One rule keeps recovery and the live path identical: every mutation builds the
 * record value first, appends it, and only then applies that same decoded value
 * to memory with apply_value(), the function replay uses. So the state after a
 * write is by construction the state a restart rebuilds from the log.
 *
 * @locality loop thread only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "proto/records.h"
#include "share/state_store.h"

#define SUB "sstore"
#define REC_OVERHEAD 8           /* estimated per-record framing, for live_bytes */
#define PRUNE_CHECK_EVERY 1024   /* appends between two scans for the oldest needed snapshot */
#define COMPACT_BATCH_RECORDS 256 /* snapshots per appended batch during compaction */
#define REPLAY_READ_BYTES (1u << 20)

typedef struct ss_entry {
    struct ss_entry *next;
    uint64_t hash;
    gr_sstore_key_t key; /* key.group points at group[] */
    int32_t state_epoch, leader_epoch, dcc, snapshot_epoch;
    int64_t start_offset;
    gr_sstore_bvec_t batches;
    int64_t snap_offset; /* log offset of the latest snapshot of this key */
    int64_t snap_bytes;  /* its encoded size (key + value + framing) */
    uint32_t n_updates;  /* update records since that snapshot */
    char group[];
} ss_entry_t;

struct gr_sstore {
    gr_plog_t *plog;
    gr_sstore_options_t opts;
    ss_entry_t **buckets;
    size_t n_buckets, n_keys;
    int64_t live_bytes;
    gr_sstore_bvec_t merged, norm, dec; /* scratch */
    gr_wbuf_t kbuf, vbuf, out;          /* scratch */
    gr_batch_builder_t bb;
    size_t bb_records;
    /* Pending prune: move the log start to prune_to once offsets below prune_after are durable. */
    bool prune_pending;
    int64_t prune_to, prune_after;
    uint64_t appends_since_prune_check;
    int64_t appended_bytes; /* log bytes appended since the last compaction (or, at open, the log size) */
    int n_internal_flushes; /* our own flusher requests not yet completed */
    gr_sstore_stats_t st;
};

/* ------------------------------------------------------------------------- */
/* The map */

gr_sstore_key_t gr_sstore_key(const char *group, gr_uuid_t topic_id, int32_t partition) {
    return (gr_sstore_key_t){.group = group, .group_len = strlen(group), .topic_id = topic_id, .partition = partition};
}

static uint64_t key_hash(const gr_sstore_key_t *key) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < key->group_len; i++) h = (h ^ (uint8_t)key->group[i]) * 1099511628211ull;
    for (int i = 0; i < 16; i++) h = (h ^ key->topic_id.b[i]) * 1099511628211ull;
    for (int i = 0; i < 4; i++) h = (h ^ (uint8_t)(key->partition >> (8 * i))) * 1099511628211ull;
    return h;
}

static bool key_eq(const gr_sstore_key_t *a, const gr_sstore_key_t *b) {
    return a->partition == b->partition && a->group_len == b->group_len && !memcmp(a->topic_id.b, b->topic_id.b, 16) &&
           !memcmp(a->group, b->group, a->group_len);
}

static ss_entry_t **find_slot(gr_sstore_t *ss, const gr_sstore_key_t *key, uint64_t h) {
    ss_entry_t **pp = &ss->buckets[h & (ss->n_buckets - 1)];
    while (*pp && !((*pp)->hash == h && key_eq(&(*pp)->key, key))) pp = &(*pp)->next;
    return pp;
}

static ss_entry_t *find(gr_sstore_t *ss, const gr_sstore_key_t *key) {
    return *find_slot(ss, key, key_hash(key));
}

static void grow(gr_sstore_t *ss) {
    size_t nb = ss->n_buckets * 2;
    ss_entry_t **b = calloc(nb, sizeof(*b));
    if (!b) abort();
    for (size_t i = 0; i < ss->n_buckets; i++) {
        for (ss_entry_t *e = ss->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    free(ss->buckets);
    ss->buckets = b;
    ss->n_buckets = nb;
}

static ss_entry_t *insert(gr_sstore_t *ss, const gr_sstore_key_t *key) {
    if (ss->n_keys >= ss->n_buckets) grow(ss);
    uint64_t h = key_hash(key);
    ss_entry_t *e = calloc(1, sizeof(*e) + key->group_len + 1);
    if (!e) abort();
    memcpy(e->group, key->group, key->group_len);
    e->hash = h;
    e->key = *key;
    e->key.group = e->group;
    e->leader_epoch = e->dcc = -1;
    e->start_offset = -1;
    ss_entry_t **slot = &ss->buckets[h & (ss->n_buckets - 1)];
    e->next = *slot;
    *slot = e;
    ss->n_keys++;
    return e;
}

static void remove_key(gr_sstore_t *ss, const gr_sstore_key_t *key) {
    ss_entry_t **pp = find_slot(ss, key, key_hash(key));
    ss_entry_t *e = *pp;
    if (!e) return;
    *pp = e->next;
    ss->live_bytes -= e->snap_bytes;
    ss->n_keys--;
    gr_sstore_bvec_free(&e->batches);
    free(e);
}

static void fill_state(const ss_entry_t *e, gr_sstore_state_t *out) {
    *out = (gr_sstore_state_t){.state_epoch = e->state_epoch, .leader_epoch = e->leader_epoch,
                               .start_offset = e->start_offset, .delivery_complete_count = e->dcc,
                               .snapshot_epoch = e->snapshot_epoch, .batches = e->batches.v,
                               .n_batches = e->batches.n};
}

/* ------------------------------------------------------------------------- */
/* Applying one record (shared by replay and the live path) */

static void apply_snapshot(gr_sstore_t *ss, ss_entry_t *e, const gr_sstore_value_t *v, int64_t offset,
                           int64_t rec_bytes) {
    e->state_epoch = v->state_epoch;
    e->leader_epoch = v->leader_epoch;
    e->start_offset = v->start_offset;
    e->dcc = v->delivery_complete_count;
    e->snapshot_epoch = v->snapshot_epoch;
    if (v->batches != e->batches.v) { /* compaction snapshots the entry's own array */
        e->batches.n = 0;
        for (size_t i = 0; i < v->n_batches; i++) gr_sstore_bvec_push(&e->batches, &v->batches[i]);
    }
    ss->live_bytes += rec_bytes - e->snap_bytes;
    e->snap_bytes = rec_bytes;
    e->snap_offset = offset;
    e->n_updates = 0;
}

static int64_t next_start(int64_t cur, int64_t upd) {
    if (upd < 0) return cur;
    return upd > cur ? upd : cur; /* the SPSO never moves back through a write */
}

static void apply_update(gr_sstore_t *ss, ss_entry_t *e, const gr_sstore_value_t *v) {
    e->state_epoch = v->state_epoch;
    e->leader_epoch = v->leader_epoch;
    e->start_offset = next_start(e->start_offset, v->start_offset);
    if (v->delivery_complete_count >= 0) e->dcc = v->delivery_complete_count;
    gr_sstore_merge(e->batches.v, e->batches.n, v->batches, v->n_batches, e->start_offset, &ss->merged);
    gr_sstore_bvec_t t = e->batches; /* swap: the entry takes the merged array */
    e->batches = ss->merged;
    ss->merged = t;
    e->n_updates++;
}

/* Apply the record at `offset`: v NULL is a tombstone. An update for a key with
 * no state is ignored: its snapshot was pruned because the key was deleted later. */
static void apply_value(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_value_t *v, int64_t offset,
                        int64_t rec_bytes) {
    if (!v) {
        remove_key(ss, key);
        return;
    }
    ss_entry_t *e = find(ss, key);
    if (v->kind == GR_SSTORE_REC_SNAPSHOT) {
        if (!e) e = insert(ss, key);
        apply_snapshot(ss, e, v, offset, rec_bytes);
    } else if (e) {
        apply_update(ss, e, v);
    }
}

/* ------------------------------------------------------------------------- */
/* Replay */

static gr_err_t replay_record(gr_sstore_t *ss, const gr_record_t *rec, char *errstr, size_t n) {
    gr_sstore_key_t key;
    const char *why = "";
    if (!rec->key || gr_sstore_key_decode(rec->key, (size_t)rec->key_len, &key, &why)) {
        snprintf(errstr, n, "share-state record at offset %" PRId64 ": bad key: %s", rec->offset, why);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    int64_t bytes = rec->key_len + (rec->value_len > 0 ? rec->value_len : 0) + REC_OVERHEAD;
    ss->st.n_replayed++;
    if (!rec->value) {
        apply_value(ss, &key, NULL, rec->offset, bytes);
        return GR_ERR_NONE;
    }
    gr_sstore_value_t v;
    if (gr_sstore_value_decode(rec->value, (size_t)rec->value_len, &v, &ss->dec, &why)) {
        snprintf(errstr, n, "share-state record at offset %" PRId64 ": bad value: %s", rec->offset, why);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    apply_value(ss, &key, &v, rec->offset, bytes);
    return GR_ERR_NONE;
}

static gr_err_t replay_batch(gr_sstore_t *ss, const gr_batch_view_t *bv, gr_wbuf_t *scratch, char *errstr,
                             size_t n) {
    if (!gr_batch_crc_ok(bv)) {
        snprintf(errstr, n, "share-state batch at offset %" PRId64 ": CRC mismatch", bv->base_offset);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    gr_record_iter_t it;
    gr_err_t err = gr_record_iter_init(&it, bv, scratch, 0, errstr, n);
    if (err) return GR_ERR_CORRUPT_MESSAGE;
    int64_t start = gr_plog_start_offset(ss->plog);
    gr_record_t rec;
    while ((err = gr_record_iter_next(&it, &rec, errstr, n)) == GR_ERR_NONE) {
        if (rec.offset < start) continue; /* superseded: below the log start, inside its batch */
        if ((err = replay_record(ss, &rec, errstr, n))) return err;
    }
    return err == GR_ERR__NOENT ? GR_ERR_NONE : GR_ERR_CORRUPT_MESSAGE;
}

static gr_err_t replay(gr_sstore_t *ss, char *errstr, size_t n) {
    int64_t off = gr_plog_start_offset(ss->plog), end = gr_plog_end_offset(ss->plog);
    gr_wbuf_t wb, scratch;
    gr_wbuf_init(&wb);
    gr_wbuf_init(&scratch);
    gr_err_t err = GR_ERR_NONE;
    while (off < end && !err) {
        gr_plog_slice_t sl;
        gr_wbuf_reset(&wb);
        if ((err = gr_plog_read_copy(ss->plog, off, REPLAY_READ_BYTES, end, &wb, &sl, errstr, n))) break;
        if (sl.len == 0) break;
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, wb.mem, wb.len);
        while (!err && gr_batch_iter_next(&it, &bv, NULL, 0) == GR_ERR_NONE) err = replay_batch(ss, &bv, &scratch, errstr, n);
        off = sl.next_offset;
    }
    gr_wbuf_free(&wb);
    gr_wbuf_free(&scratch);
    return err;
}

/* ------------------------------------------------------------------------- */
/* Open / close */

void gr_sstore_options_default(gr_sstore_options_t *opts) {
    *opts = (gr_sstore_options_t){.snapshot_every = 500, .segment_bytes = 8 << 20, .compact_min_bytes = 4 << 20};
}

static void plog_config(const gr_sstore_options_t *o, gr_plog_config_t *cfg) {
    gr_plog_config_default(cfg);
    cfg->segment_bytes = o->segment_bytes;
    cfg->segment_ms = INT64_MAX; /* no time-based rolls: the store passes no clock to appends */
    cfg->retention_ms = -1;      /* the store moves the log start itself (prune) */
    cfg->retention_bytes = -1;
}

gr_err_t gr_sstore_open(const char *dir, const gr_sstore_options_t *opts, gr_sstore_t **out, char *errstr,
                        size_t errstr_size) {
    gr_sstore_t *ss = calloc(1, sizeof(*ss));
    if (!ss) return GR_ERR__NOMEM;
    ss->opts = *opts;
    ss->n_buckets = 64;
    ss->buckets = calloc(ss->n_buckets, sizeof(*ss->buckets));
    if (!ss->buckets) abort();
    gr_wbuf_init(&ss->kbuf);
    gr_wbuf_init(&ss->vbuf);
    gr_wbuf_init(&ss->out);
    gr_batch_builder_init(&ss->bb);
    gr_plog_config_t cfg;
    plog_config(opts, &cfg);
    gr_err_t err = gr_plog_open(dir, &cfg, opts->now_ms, &ss->plog, errstr, errstr_size);
    if (err) goto err;
    if ((err = replay(ss, errstr, errstr_size))) goto err;
    ss->appended_bytes = gr_plog_size_bytes(ss->plog);
    GR_INFO(SUB, "loaded %zu share-partition states from %" PRIu64 " records (offsets %" PRId64 "-%" PRId64 ")",
            ss->n_keys, ss->st.n_replayed, gr_plog_start_offset(ss->plog), gr_plog_end_offset(ss->plog));
    *out = ss;
    return GR_ERR_NONE;
err:
    if (ss->plog) gr_plog_abandon(ss->plog);
    ss->plog = NULL;
    gr_sstore_abandon(ss);
    return err;
}

static void free_all(gr_sstore_t *ss) {
    for (size_t i = 0; i < ss->n_buckets; i++) {
        for (ss_entry_t *e = ss->buckets[i], *next; e; e = next) {
            next = e->next;
            gr_sstore_bvec_free(&e->batches);
            free(e);
        }
    }
    free(ss->buckets);
    gr_sstore_bvec_free(&ss->merged);
    gr_sstore_bvec_free(&ss->norm);
    gr_sstore_bvec_free(&ss->dec);
    gr_wbuf_free(&ss->kbuf);
    gr_wbuf_free(&ss->vbuf);
    gr_wbuf_free(&ss->out);
    gr_batch_builder_free(&ss->bb);
    free(ss);
}

void gr_sstore_close(gr_sstore_t *ss) {
    if (!ss) return;
    if (ss->n_internal_flushes != 0) GR_ERROR(SUB, "closed with %d flushes pending", ss->n_internal_flushes);
    if (ss->plog) gr_plog_close(ss->plog);
    free_all(ss);
}

void gr_sstore_abandon(gr_sstore_t *ss) {
    if (!ss) return;
    if (ss->plog) gr_plog_abandon(ss->plog);
    free_all(ss);
}

/* ------------------------------------------------------------------------- */
/* Appending */

/* Add one record (key, value or NULL for a tombstone) to the batch being built. */
static void add_record(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_value_t *v) {
    gr_wbuf_reset(&ss->kbuf);
    gr_wbuf_reset(&ss->vbuf);
    gr_sstore_key_encode(key, &ss->kbuf);
    if (v) gr_sstore_value_encode(v, &ss->vbuf);
    gr_batch_builder_add(&ss->bb, ss->opts.now_ms, ss->kbuf.mem, (int32_t)ss->kbuf.len, v ? ss->vbuf.mem : NULL,
                         v ? (int32_t)ss->vbuf.len : -1, NULL, 0);
    ss->bb_records++;
}

/* Append the batch being built; *base gets its first offset. */
static gr_err_t append_built(gr_sstore_t *ss, int64_t *base) {
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    gr_wbuf_reset(&ss->out);
    gr_err_t err = gr_batch_builder_finish(&ss->bb, &bo, &ss->out);
    gr_batch_builder_free(&ss->bb);
    gr_batch_builder_init(&ss->bb);
    ss->bb_records = 0;
    if (err) return err;
    gr_plog_append_opts_t ao = {.now_ms = ss->opts.now_ms};
    gr_plog_append_result_t res;
    char es[256];
    if ((err = gr_plog_append(ss->plog, ss->out.mem, ss->out.len, &ao, &res, es, sizeof(es)))) {
        GR_ERROR(SUB, "append: %s", es);
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    *base = res.base_offset;
    ss->appends_since_prune_check++;
    ss->appended_bytes += (int64_t)ss->out.len;
    return GR_ERR_NONE;
}

static int64_t rec_bytes(const gr_sstore_t *ss) { return (int64_t)(ss->kbuf.len + ss->vbuf.len) + REC_OVERHEAD; }

/* Append one record as its own batch and apply it. */
static gr_err_t append_one(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_value_t *v) {
    add_record(ss, key, v);
    int64_t bytes = rec_bytes(ss), off;
    gr_err_t err = append_built(ss, &off);
    if (err) return err;
    if (!v) ss->st.n_tombstones++;
    else if (v->kind == GR_SSTORE_REC_SNAPSHOT) ss->st.n_snapshots++;
    else ss->st.n_updates++;
    apply_value(ss, key, v, off, bytes);
    return GR_ERR_NONE;
}

static void maybe_compact(gr_sstore_t *ss);

/* After a successful mutation: durability callback, then housekeeping. */
static void finish(gr_sstore_t *ss, gr_sstore_cb *cb, void *arg) {
    if (cb) {
        if (!ss->opts.flusher) abort(); /* a durable write needs a flusher (API misuse) */
        gr_flusher_request(ss->opts.flusher, ss->plog, gr_plog_end_offset(ss->plog), cb, arg);
    }
    maybe_compact(ss);
}

/* ------------------------------------------------------------------------- */
/* Reads and writes */

gr_err_t gr_sstore_read(gr_sstore_t *ss, const gr_sstore_key_t *key, gr_sstore_state_t *out) {
    ss_entry_t *e = find(ss, key);
    if (!e) return GR_ERR__NOENT;
    fill_state(e, out);
    return GR_ERR_NONE;
}

static gr_err_t check_write(const ss_entry_t *e, const gr_sstore_key_t *key, const gr_sstore_update_t *up) {
    if (key->group_len > GR_SSTORE_MAX_GROUP_LEN || key->partition < 0) return GR_ERR_INVALID_REQUEST;
    if (up->start_offset < -1 || up->delivery_complete_count < -1) return GR_ERR_INVALID_REQUEST;
    for (size_t i = 0; i < up->n_batches; i++)
        if (!gr_sstore_batch_valid(&up->batches[i])) return GR_ERR_INVALID_REQUEST;
    if (e && up->state_epoch < e->state_epoch) return GR_ERR_FENCED_STATE_EPOCH;
    if (e && up->leader_epoch < e->leader_epoch) return GR_ERR_FENCED_LEADER_EPOCH;
    return GR_ERR_NONE;
}

gr_err_t gr_sstore_write(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_update_t *up,
                         gr_sstore_cb *cb, void *arg) {
    ss_entry_t *e = find(ss, key);
    gr_err_t err = check_write(e, key, up);
    if (err) return err;
    int64_t cur_start = e ? e->start_offset : -1;
    int64_t start = next_start(cur_start, up->start_offset);
    /* The batches of this write, normalised (sorted, disjoint, clipped): what an update record stores. */
    gr_sstore_merge(NULL, 0, up->batches, up->n_batches, start, &ss->norm);
    gr_sstore_value_t v = {.state_epoch = up->state_epoch, .leader_epoch = up->leader_epoch};
    if (!e || e->n_updates >= ss->opts.snapshot_every) {
        gr_sstore_merge(e ? e->batches.v : NULL, e ? e->batches.n : 0, ss->norm.v, ss->norm.n, start, &ss->merged);
        v.kind = GR_SSTORE_REC_SNAPSHOT;
        v.snapshot_epoch = e ? e->snapshot_epoch + 1 : 0;
        v.start_offset = start;
        v.delivery_complete_count = up->delivery_complete_count >= 0 ? up->delivery_complete_count : (e ? e->dcc : -1);
        v.batches = ss->merged.v;
        v.n_batches = ss->merged.n;
    } else {
        v.kind = GR_SSTORE_REC_UPDATE;
        v.snapshot_epoch = e->snapshot_epoch;
        v.start_offset = up->start_offset >= 0 ? start : -1;
        v.delivery_complete_count = up->delivery_complete_count;
        v.batches = ss->norm.v;
        v.n_batches = ss->norm.n;
    }
    /* Snapshots copy their batches out of ss->merged before apply reuses it. */
    if ((err = append_one(ss, key, &v))) return err;
    finish(ss, cb, arg);
    return GR_ERR_NONE;
}

gr_err_t gr_sstore_initialize(gr_sstore_t *ss, const gr_sstore_key_t *key, int32_t state_epoch,
                              int64_t start_offset, gr_sstore_cb *cb, void *arg) {
    if (key->group_len > GR_SSTORE_MAX_GROUP_LEN || key->partition < 0 || start_offset < -1)
        return GR_ERR_INVALID_REQUEST;
    ss_entry_t *e = find(ss, key);
    if (e && state_epoch < e->state_epoch) return GR_ERR_FENCED_STATE_EPOCH;
    gr_sstore_value_t v = {.kind = GR_SSTORE_REC_SNAPSHOT, .snapshot_epoch = e ? e->snapshot_epoch + 1 : 0,
                           .state_epoch = state_epoch, .leader_epoch = -1, .start_offset = start_offset,
                           .delivery_complete_count = start_offset >= 0 ? 0 : -1};
    gr_err_t err = append_one(ss, key, &v);
    if (err) return err;
    finish(ss, cb, arg);
    return GR_ERR_NONE;
}

gr_err_t gr_sstore_delete(gr_sstore_t *ss, const gr_sstore_key_t *key, gr_sstore_cb *cb, void *arg) {
    if (find(ss, key)) {
        gr_err_t err = append_one(ss, key, NULL);
        if (err) return err;
    }
    finish(ss, cb, arg);
    return GR_ERR_NONE;
}

static bool group_match(const ss_entry_t *e, const char *group, size_t group_len) {
    return !group || (e->key.group_len == group_len && !memcmp(e->key.group, group, group_len));
}

/* Tombstone every key matching (group, topic) in one batch: a batch is written whole
 * or truncated whole by recovery, so the deletion is atomic. */
static gr_err_t delete_matching(gr_sstore_t *ss, const char *group, size_t group_len, const gr_uuid_t *topic,
                                size_t *n_deleted) {
    size_t n = 0, k = 0;
    ss_entry_t **victims = NULL;
    for (size_t i = 0; i < ss->n_buckets; i++)
        for (ss_entry_t *e = ss->buckets[i]; e; e = e->next)
            if (group_match(e, group, group_len) && (!topic || !memcmp(e->key.topic_id.b, topic->b, 16))) n++;
    if (n_deleted) *n_deleted = n;
    if (n == 0) return GR_ERR_NONE;
    victims = malloc(n * sizeof(*victims));
    if (!victims) abort();
    for (size_t i = 0; i < ss->n_buckets; i++)
        for (ss_entry_t *e = ss->buckets[i]; e; e = e->next)
            if (group_match(e, group, group_len) && (!topic || !memcmp(e->key.topic_id.b, topic->b, 16)))
                victims[k++] = e;
    for (size_t i = 0; i < n; i++) add_record(ss, &victims[i]->key, NULL);
    int64_t off;
    gr_err_t err = append_built(ss, &off);
    if (!err) {
        ss->st.n_tombstones += n;
        for (size_t i = 0; i < n; i++) remove_key(ss, &victims[i]->key);
    }
    free(victims);
    return err;
}

gr_err_t gr_sstore_delete_group(gr_sstore_t *ss, const char *group, size_t group_len, size_t *n_deleted,
                                gr_sstore_cb *cb, void *arg) {
    gr_err_t err = delete_matching(ss, group, group_len, NULL, n_deleted);
    if (err) return err;
    finish(ss, cb, arg);
    return GR_ERR_NONE;
}

gr_err_t gr_sstore_delete_topic(gr_sstore_t *ss, const char *group, size_t group_len, gr_uuid_t topic_id,
                                size_t *n_deleted, gr_sstore_cb *cb, void *arg) {
    gr_err_t err = delete_matching(ss, group, group_len, &topic_id, n_deleted);
    if (err) return err;
    finish(ss, cb, arg);
    return GR_ERR_NONE;
}

size_t gr_sstore_foreach(gr_sstore_t *ss, const char *group, size_t group_len, gr_sstore_visit_fn *fn, void *arg) {
    size_t n = 0;
    for (size_t i = 0; i < ss->n_buckets; i++) {
        for (ss_entry_t *e = ss->buckets[i]; e; e = e->next) {
            if (!group_match(e, group, group_len)) continue;
            gr_sstore_state_t st;
            fill_state(e, &st);
            fn(arg, &e->key, &st);
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------------- */
/* Pruning and compaction */

/* The oldest snapshot any live key still needs (end offset when there are none). */
static int64_t oldest_needed(gr_sstore_t *ss) {
    int64_t min = gr_plog_end_offset(ss->plog);
    for (size_t i = 0; i < ss->n_buckets; i++)
        for (ss_entry_t *e = ss->buckets[i]; e; e = e->next)
            if (e->snap_offset < min) min = e->snap_offset;
    return min;
}

/* Compaction is due when the log holds more than twice the live state plus some
 * slack: after the last compaction the log held about live_bytes of fresh
 * snapshots, so that is appended_bytes > live_bytes + compact_min_bytes. This
 * rewrites live_bytes per (live_bytes + slack) appended: amortised O(1). */
static bool compaction_due(const gr_sstore_t *ss) {
    return ss->appended_bytes > ss->live_bytes + ss->opts.compact_min_bytes;
}

/* Remember "the log may start at `to` once everything below the current end is
 * durable". Waiting for the end offset of now (not just `to`) is what makes the
 * prune crash-safe: every snapshot that makes the old records redundant was
 * appended before now, so it is on disk before anything it replaces is dropped. */
static void plan_prune(gr_sstore_t *ss, int64_t to) {
    if (to <= gr_plog_start_offset(ss->plog)) return;
    ss->prune_pending = true;
    ss->prune_to = to;
    ss->prune_after = gr_plog_end_offset(ss->plog);
}

int64_t gr_sstore_maintain(gr_sstore_t *ss) {
    if (!ss->prune_pending || gr_plog_durable_offset(ss->plog) < ss->prune_after) return gr_plog_start_offset(ss->plog);
    char es[256];
    gr_err_t err = gr_plog_delete_records(ss->plog, ss->prune_to, es, sizeof(es));
    if (err) GR_WARN(SUB, "prune to %" PRId64 ": %s", ss->prune_to, es);
    ss->prune_pending = false;
    return gr_plog_start_offset(ss->plog);
}

static void on_internal_flush(void *arg, gr_err_t err) {
    gr_sstore_t *ss = arg;
    ss->n_internal_flushes--;
    if (!err) gr_sstore_maintain(ss);
}

gr_err_t gr_sstore_compact(gr_sstore_t *ss) {
    int64_t before = gr_plog_end_offset(ss->plog);
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; i < ss->n_buckets && !err; i++) {
        for (ss_entry_t *e = ss->buckets[i]; e && !err; e = e->next) {
            if (e->snap_offset >= before) continue;
            gr_sstore_value_t v = {.kind = GR_SSTORE_REC_SNAPSHOT, .snapshot_epoch = e->snapshot_epoch + 1,
                                   .state_epoch = e->state_epoch, .leader_epoch = e->leader_epoch,
                                   .start_offset = e->start_offset, .delivery_complete_count = e->dcc,
                                   .batches = e->batches.v, .n_batches = e->batches.n};
            /* One record per batch keeps apply simple; compaction is rare and amortised. */
            err = append_one(ss, &e->key, &v);
        }
    }
    if (err) return err;
    ss->st.n_compactions++;
    ss->appended_bytes = 0;
    plan_prune(ss, oldest_needed(ss));
    if (ss->opts.flusher && ss->prune_pending) {
        ss->n_internal_flushes++;
        gr_flusher_request(ss->opts.flusher, ss->plog, gr_plog_end_offset(ss->plog), on_internal_flush, ss);
    }
    return GR_ERR_NONE;
}

static void maybe_compact(gr_sstore_t *ss) {
    gr_sstore_maintain(ss);
    if (ss->prune_pending) return;
    if (compaction_due(ss)) {
        gr_sstore_compact(ss);
        return;
    }
    if (ss->appends_since_prune_check >= PRUNE_CHECK_EVERY) {
        ss->appends_since_prune_check = 0;
        plan_prune(ss, oldest_needed(ss));
    }
}

gr_err_t gr_sstore_sync(gr_sstore_t *ss) {
    char es[256];
    gr_err_t err = gr_plog_fsync(ss->plog, NULL, es, sizeof(es));
    if (err) GR_ERROR(SUB, "fsync: %s", es);
    return err;
}

void gr_sstore_stats(const gr_sstore_t *ss, gr_sstore_stats_t *st) {
    *st = ss->st;
    st->n_keys = ss->n_keys;
    st->log_start_offset = gr_plog_start_offset(ss->plog);
    st->log_end_offset = gr_plog_end_offset(ss->plog);
    st->log_bytes = gr_plog_size_bytes(ss->plog);
    st->n_segments = gr_plog_segment_count(ss->plog);
    st->live_bytes = ss->live_bytes;
}

gr_plog_t *gr_sstore_plog(gr_sstore_t *ss) { return ss->plog; }
