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

#include "base/htab.h"
#include "base/log.h"
#include "share/state_store.h"
#include "share/store_log.h"

#define SUB               "sstore"
#define REC_OVERHEAD      8    /* estimated per-record framing, for live_bytes */
#define PRUNE_CHECK_EVERY 1024 /* appends between two scans for the oldest needed snapshot */

typedef struct ss_entry {
    gr_hnode_t node;
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
    gr_store_log_t log;
    gr_sstore_options_t opts;
    gr_htab_t map; /* key -> ss_entry_t */
    int64_t live_bytes;
    gr_sstore_bvec_t merged, norm, dec; /* scratch */
    gr_wbuf_t kbuf, vbuf;               /* scratch */
    uint64_t appends_since_prune_check;
    gr_sstore_stats_t st;
};

#define ENTRY(hn)            GR_HTAB_ENTRY(hn, ss_entry_t, node)
#define FOREACH_ENTRY(ss, e) for (ss_entry_t *e = first_entry(ss); e; e = next_entry(ss, e))

/* ------------------------------------------------------------------------- */
/* The map */

gr_sstore_key_t gr_sstore_key(const char *group, gr_uuid_t topic_id, int32_t partition) {
    return (gr_sstore_key_t){.group = group, .group_len = strlen(group), .topic_id = topic_id, .partition = partition};
}

static uint64_t key_hash(const gr_sstore_key_t *key) {
    uint8_t part[4];
    for (int i = 0; i < 4; i++) part[i] = (uint8_t)(key->partition >> (8 * i));
    gr_hasher_t h; /* keyed: group ids are the clients' choice */
    gr_hasher_init(&h);
    gr_hasher_update(&h, key->group, key->group_len);
    gr_hasher_update(&h, key->topic_id.b, 16);
    gr_hasher_update(&h, part, sizeof(part));
    return gr_hasher_final(&h);
}

static bool key_eq(const gr_hnode_t *node, const void *arg) {
    const gr_sstore_key_t *a = &ENTRY(node)->key, *b = arg;
    return a->partition == b->partition && a->group_len == b->group_len && !memcmp(a->topic_id.b, b->topic_id.b, 16) &&
           !memcmp(a->group, b->group, a->group_len);
}

static gr_hnode_t **find_slot(gr_sstore_t *ss, const gr_sstore_key_t *key) {
    return gr_htab_slot(&ss->map, key_hash(key), key_eq, key);
}

static ss_entry_t *find(gr_sstore_t *ss, const gr_sstore_key_t *key) { return ENTRY(*find_slot(ss, key)); }
static ss_entry_t *first_entry(const gr_sstore_t *ss) { return ENTRY(gr_htab_first(&ss->map)); }
static ss_entry_t *next_entry(const gr_sstore_t *ss, const ss_entry_t *e) {
    return ENTRY(gr_htab_next(&ss->map, &e->node));
}

static ss_entry_t *insert(gr_sstore_t *ss, const gr_sstore_key_t *key) {
    ss_entry_t *e = calloc(1, sizeof(*e) + key->group_len + 1);
    if (!e) abort();
    memcpy(e->group, key->group, key->group_len);
    e->key = *key;
    e->key.group = e->group;
    e->leader_epoch = e->dcc = -1;
    e->start_offset = -1;
    gr_htab_insert(&ss->map, &e->node, key_hash(key));
    return e;
}

static void remove_key(gr_sstore_t *ss, const gr_sstore_key_t *key) {
    gr_hnode_t **slot = find_slot(ss, key);
    if (!*slot) return;
    ss_entry_t *e = ENTRY(gr_htab_unlink(&ss->map, slot));
    ss->live_bytes -= e->snap_bytes;
    gr_sstore_bvec_free(&e->batches);
    free(e);
}

static void fill_state(const ss_entry_t *e, gr_sstore_state_t *out) {
    *out = (gr_sstore_state_t){.state_epoch = e->state_epoch,
                               .leader_epoch = e->leader_epoch,
                               .start_offset = e->start_offset,
                               .delivery_complete_count = e->dcc,
                               .snapshot_epoch = e->snapshot_epoch,
                               .batches = e->batches.v,
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

static gr_err_t replay_record(void *arg, const gr_record_t *rec, char *errstr, size_t n) {
    gr_sstore_t *ss = arg;
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

/* ------------------------------------------------------------------------- */
/* Open / close */

void gr_sstore_options_default(gr_sstore_options_t *opts) {
    *opts = (gr_sstore_options_t){.snapshot_every = 500, .segment_bytes = 8 << 20, .compact_min_bytes = 4 << 20};
}

gr_err_t gr_sstore_open(const char *dir, const gr_sstore_options_t *opts, gr_sstore_t **out, char *errstr,
                        size_t errstr_size) {
    gr_sstore_t *ss = calloc(1, sizeof(*ss));
    if (!ss) return GR_ERR__NOMEM;
    ss->opts = *opts;
    gr_htab_init(&ss->map, 64);
    gr_wbuf_init(&ss->kbuf);
    gr_wbuf_init(&ss->vbuf);
    gr_err_t err =
        gr_store_log_open(&ss->log, dir, opts->segment_bytes, opts->flusher, opts->now_ms, SUB, errstr, errstr_size);
    if (err) goto err;
    if ((err = gr_store_log_replay(&ss->log, "share-state", replay_record, ss, errstr, errstr_size))) goto err;
    GR_INFO(SUB, "loaded %zu share-partition states from %" PRIu64 " records (offsets %" PRId64 "-%" PRId64 ")",
            ss->map.n, ss->st.n_replayed, gr_plog_start_offset(ss->log.plog), gr_plog_end_offset(ss->log.plog));
    *out = ss;
    return GR_ERR_NONE;
err:
    gr_sstore_abandon(ss);
    return err;
}

static void free_all(gr_sstore_t *ss) {
    for (ss_entry_t *e = first_entry(ss), *next; e; e = next) {
        next = next_entry(ss, e);
        gr_sstore_bvec_free(&e->batches);
        free(e);
    }
    gr_htab_free(&ss->map);
    gr_sstore_bvec_free(&ss->merged);
    gr_sstore_bvec_free(&ss->norm);
    gr_sstore_bvec_free(&ss->dec);
    gr_wbuf_free(&ss->kbuf);
    gr_wbuf_free(&ss->vbuf);
    free(ss);
}

void gr_sstore_close(gr_sstore_t *ss) {
    if (!ss) return;
    gr_store_log_close(&ss->log);
    free_all(ss);
}

void gr_sstore_abandon(gr_sstore_t *ss) {
    if (!ss) return;
    gr_store_log_abandon(&ss->log);
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
    gr_store_log_add(&ss->log, ss->kbuf.mem, ss->kbuf.len, v ? ss->vbuf.mem : NULL, ss->vbuf.len);
}

/* Append the batch being built; *base gets its first offset. */
static gr_err_t append_built(gr_sstore_t *ss, int64_t *base) {
    gr_err_t err = gr_store_log_append(&ss->log, base);
    if (!err) ss->appends_since_prune_check++;
    return err;
}

static int64_t rec_bytes(const gr_sstore_t *ss) { return (int64_t)(ss->kbuf.len + ss->vbuf.len) + REC_OVERHEAD; }

/* Append one record as its own batch and apply it. */
static gr_err_t append_one(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_value_t *v) {
    add_record(ss, key, v);
    int64_t bytes = rec_bytes(ss), off;
    gr_err_t err = append_built(ss, &off);
    if (err) return err;
    if (!v)
        ss->st.n_tombstones++;
    else if (v->kind == GR_SSTORE_REC_SNAPSHOT)
        ss->st.n_snapshots++;
    else
        ss->st.n_updates++;
    apply_value(ss, key, v, off, bytes);
    return GR_ERR_NONE;
}

static void maybe_compact(gr_sstore_t *ss);

/* After a successful mutation: durability callback, then housekeeping. */
static void finish(gr_sstore_t *ss, gr_sstore_cb *cb, void *arg) {
    if (cb) gr_store_log_request(&ss->log, cb, arg);
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

gr_err_t gr_sstore_write(gr_sstore_t *ss, const gr_sstore_key_t *key, const gr_sstore_update_t *up, gr_sstore_cb *cb,
                         void *arg) {
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

gr_err_t gr_sstore_initialize(gr_sstore_t *ss, const gr_sstore_key_t *key, int32_t state_epoch, int64_t start_offset,
                              gr_sstore_cb *cb, void *arg) {
    if (key->group_len > GR_SSTORE_MAX_GROUP_LEN || key->partition < 0 || start_offset < -1)
        return GR_ERR_INVALID_REQUEST;
    ss_entry_t *e = find(ss, key);
    if (e && state_epoch < e->state_epoch) return GR_ERR_FENCED_STATE_EPOCH;
    gr_sstore_value_t v = {.kind = GR_SSTORE_REC_SNAPSHOT,
                           .snapshot_epoch = e ? e->snapshot_epoch + 1 : 0,
                           .state_epoch = state_epoch,
                           .leader_epoch = -1,
                           .start_offset = start_offset,
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
    FOREACH_ENTRY(ss, e)
    if (group_match(e, group, group_len) && (!topic || !memcmp(e->key.topic_id.b, topic->b, 16))) n++;
    if (n_deleted) *n_deleted = n;
    if (n == 0) return GR_ERR_NONE;
    victims = malloc(n * sizeof(*victims));
    if (!victims) abort();
    FOREACH_ENTRY(ss, e)
    if (group_match(e, group, group_len) && (!topic || !memcmp(e->key.topic_id.b, topic->b, 16))) victims[k++] = e;
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
    FOREACH_ENTRY(ss, e) {
        if (!group_match(e, group, group_len)) continue;
        gr_sstore_state_t st;
        fill_state(e, &st);
        fn(arg, &e->key, &st);
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------------- */
/* Pruning and compaction */

/* The oldest snapshot any live key still needs (end offset when there are none). */
static int64_t oldest_needed(gr_sstore_t *ss) {
    int64_t min = gr_plog_end_offset(ss->log.plog);
    FOREACH_ENTRY(ss, e)
    if (e->snap_offset < min) min = e->snap_offset;
    return min;
}

/* The log start only moves once the snapshots that replace the dropped records
 * are durable (gr_store_log_plan_prune). */
int64_t gr_sstore_maintain(gr_sstore_t *ss) { return gr_store_log_maintain(&ss->log); }

gr_err_t gr_sstore_compact(gr_sstore_t *ss) {
    int64_t before = gr_plog_end_offset(ss->log.plog);
    gr_err_t err = GR_ERR_NONE;
    for (ss_entry_t *e = first_entry(ss); e && !err; e = next_entry(ss, e)) {
        if (e->snap_offset >= before) continue;
        gr_sstore_value_t v = {.kind = GR_SSTORE_REC_SNAPSHOT,
                               .snapshot_epoch = e->snapshot_epoch + 1,
                               .state_epoch = e->state_epoch,
                               .leader_epoch = e->leader_epoch,
                               .start_offset = e->start_offset,
                               .delivery_complete_count = e->dcc,
                               .batches = e->batches.v,
                               .n_batches = e->batches.n};
        /* One record per batch keeps apply simple; compaction is rare and amortised. */
        err = append_one(ss, &e->key, &v);
    }
    if (err) return err;
    ss->st.n_compactions++;
    gr_store_log_compacted(&ss->log, oldest_needed(ss));
    return GR_ERR_NONE;
}

/* Compaction is due when the log holds more than twice the live state plus some
 * slack: after the last compaction the log held about live_bytes of fresh
 * snapshots, so that is appended bytes > live_bytes + compact_min_bytes. */
static void maybe_compact(gr_sstore_t *ss) {
    gr_store_log_maintain(&ss->log);
    if (ss->log.prune_pending) return;
    if (gr_store_log_compaction_due(&ss->log, ss->live_bytes, ss->opts.compact_min_bytes)) {
        gr_sstore_compact(ss);
        return;
    }
    if (ss->appends_since_prune_check >= PRUNE_CHECK_EVERY) {
        ss->appends_since_prune_check = 0;
        gr_store_log_plan_prune(&ss->log, oldest_needed(ss));
    }
}

gr_err_t gr_sstore_sync(gr_sstore_t *ss) { return gr_store_log_sync(&ss->log); }

bool gr_sstore_failed(const gr_sstore_t *ss) { return ss->log.failed; }

void gr_sstore_stats(const gr_sstore_t *ss, gr_sstore_stats_t *st) {
    *st = ss->st;
    st->n_keys = ss->map.n;
    st->log_start_offset = gr_plog_start_offset(ss->log.plog);
    st->log_end_offset = gr_plog_end_offset(ss->log.plog);
    st->log_bytes = gr_plog_size_bytes(ss->log.plog);
    st->n_segments = gr_plog_segment_count(ss->log.plog);
    st->live_bytes = ss->live_bytes;
    st->n_writes = ss->log.n_appends;
    st->bytes_written = ss->log.bytes_appended;
    gr_plog_flush_stats_t fs;
    gr_plog_flush_stats(ss->log.plog, &fs);
    st->n_fsyncs = fs.n_fsyncs;
    st->write_latency = ss->log.write_latency;
}

gr_plog_t *gr_sstore_plog(gr_sstore_t *ss) { return ss->log.plog; }
