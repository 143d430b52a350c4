/* Consumer-group store: key -> value over an internal partition log. See cgroup_store.h;
 * the log and crash-safe compaction are share/store_log.h's (docs/share-state.md
 * has the argument, which holds unchanged here).
 * @locality loop thread only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/log.h"
#include "share/cgroup_store.h"
#include "share/store_log.h"

#define SUB          "cstore"
#define REC_OVERHEAD 8

typedef struct cs_entry {
    gr_hnode_t node;
    int64_t offset;
    uint8_t *value;
    size_t value_len, key_len;
    uint8_t key[];
} cs_entry_t;

typedef struct cs_pending {
    uint8_t *key, *value; /* value NULL: delete */
    size_t key_len, value_len;
} cs_pending_t;

struct gr_cstore {
    gr_store_log_t log;
    gr_cstore_options_t opts;
    gr_htab_t map;
    int64_t live_bytes;
    cs_pending_t *pending;
    size_t n_pending, cap_pending;
};

#define ENTRY(hn) GR_HTAB_ENTRY(hn, cs_entry_t, node)

typedef struct bkey {
    const void *p;
    size_t n;
} bkey_t;

static bool key_eq(const gr_hnode_t *node, const void *arg) {
    const bkey_t *k = arg;
    const cs_entry_t *e = ENTRY(node);
    return e->key_len == k->n && !memcmp(e->key, k->p, k->n);
}

static gr_hnode_t **slot_of(gr_cstore_t *cs, const void *key, size_t n) {
    bkey_t k = {key, n};
    return gr_htab_slot(&cs->map, gr_hash(key, n), key_eq, &k);
}

static void apply(gr_cstore_t *cs, const void *key, size_t n, const void *value, size_t value_len, int64_t off) {
    gr_hnode_t **slot = slot_of(cs, key, n);
    cs_entry_t *e = ENTRY(*slot);
    if (e) {
        cs->live_bytes -= (int64_t)(n + e->value_len + REC_OVERHEAD);
        free(e->value);
        e->value = NULL;
        if (!value) {
            gr_htab_unlink(&cs->map, slot);
            free(e);
            return;
        }
    } else {
        if (!value) return;
        e = calloc(1, sizeof(*e) + n);
        if (!e) abort();
        memcpy(e->key, key, n);
        e->key_len = n;
        gr_htab_insert(&cs->map, &e->node, gr_hash(key, n));
    }
    e->value = malloc(value_len ? value_len : 1);
    if (!e->value) abort();
    if (value_len) memcpy(e->value, value, value_len);
    e->value_len = value_len;
    e->offset = off;
    cs->live_bytes += (int64_t)(n + value_len + REC_OVERHEAD);
}

static gr_err_t replay_record(void *arg, const gr_record_t *rec, char *es, size_t n) {
    gr_cstore_t *cs = arg;
    if (rec->key_len <= 0) {
        snprintf(es, n, "consumer-group record at offset %" PRId64 ": no key", rec->offset);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    apply(cs, rec->key, (size_t)rec->key_len, rec->value, rec->value ? (size_t)rec->value_len : 0, rec->offset);
    return GR_ERR_NONE;
}

void gr_cstore_options_default(gr_cstore_options_t *o) {
    *o = (gr_cstore_options_t){.segment_bytes = 8 << 20, .compact_min_bytes = 1 << 20};
}

static void free_all(gr_cstore_t *cs) {
    for (gr_hnode_t *h = gr_htab_first(&cs->map), *next; h; h = next) {
        next = gr_htab_next(&cs->map, h);
        free(ENTRY(h)->value);
        free(ENTRY(h));
    }
    gr_htab_free(&cs->map);
    for (size_t i = 0; i < cs->n_pending; i++) {
        free(cs->pending[i].key);
        free(cs->pending[i].value);
    }
    free(cs->pending);
    free(cs);
}

gr_err_t gr_cstore_open(const char *dir, const gr_cstore_options_t *opts, gr_cstore_t **out, char *errstr,
                        size_t errstr_size) {
    gr_cstore_t *cs = calloc(1, sizeof(*cs));
    if (!cs) return GR_ERR__NOMEM;
    cs->opts = *opts;
    gr_htab_init(&cs->map, 64);
    gr_err_t err =
        gr_store_log_open(&cs->log, dir, opts->segment_bytes, opts->flusher, opts->now_ms, SUB, errstr, errstr_size);
    if (err) {
        free_all(cs);
        return err;
    }
    err = gr_store_log_replay(&cs->log, "consumer-group", replay_record, cs, errstr, errstr_size);
    if (err) {
        gr_cstore_abandon(cs);
        return err;
    }
    *out = cs;
    return GR_ERR_NONE;
}

void gr_cstore_close(gr_cstore_t *cs) {
    if (!cs) return;
    gr_store_log_close(&cs->log);
    free_all(cs);
}

void gr_cstore_abandon(gr_cstore_t *cs) {
    if (!cs) return;
    gr_store_log_abandon(&cs->log);
    free_all(cs);
}

static uint8_t *dup_bytes(const void *p, size_t n) {
    uint8_t *r = malloc(n ? n : 1);
    if (!r) abort();
    if (n) memcpy(r, p, n);
    return r;
}

void gr_cstore_add(gr_cstore_t *cs, const void *key, size_t key_len, const void *value, size_t value_len) {
    if (cs->n_pending == cs->cap_pending) {
        cs->cap_pending = cs->cap_pending ? cs->cap_pending * 2 : 16;
        cs->pending = realloc(cs->pending, cs->cap_pending * sizeof(*cs->pending));
        if (!cs->pending) abort();
    }
    cs->pending[cs->n_pending++] =
        (cs_pending_t){dup_bytes(key, key_len), value ? dup_bytes(value, value_len) : NULL, key_len, value_len};
    gr_store_log_add(&cs->log, key, key_len, value, value_len);
}

/* Rewrite every record older than the current end, then let store_log prune. */
static void compact(gr_cstore_t *cs) {
    int64_t before = gr_plog_end_offset(cs->log.plog);
    size_t n = 0;
    for (gr_hnode_t *h = gr_htab_first(&cs->map); h; h = gr_htab_next(&cs->map, h)) {
        cs_entry_t *e = ENTRY(h);
        if (e->offset >= before) continue;
        gr_store_log_add(&cs->log, e->key, e->key_len, e->value, e->value_len);
        n++;
    }
    int64_t base = 0;
    if (n && gr_store_log_append(&cs->log, &base)) return;
    int64_t i = 0;
    for (gr_hnode_t *h = gr_htab_first(&cs->map); h; h = gr_htab_next(&cs->map, h))
        if (ENTRY(h)->offset < before) ENTRY(h)->offset = base + i++;
    gr_store_log_compacted(&cs->log, before);
}

gr_err_t gr_cstore_commit(gr_cstore_t *cs, gr_flusher_cb *cb, void *arg) {
    int64_t base = 0;
    gr_err_t err = cs->n_pending ? gr_store_log_append(&cs->log, &base) : GR_ERR_NONE;
    for (size_t i = 0; i < cs->n_pending; i++) {
        cs_pending_t *p = &cs->pending[i];
        if (!err) apply(cs, p->key, p->key_len, p->value, p->value_len, base + (int64_t)i);
        free(p->key);
        free(p->value);
    }
    cs->n_pending = 0;
    if (err) return err;
    if (cb) gr_store_log_request(&cs->log, cb, arg);
    gr_store_log_maintain(&cs->log);
    if (!cs->log.prune_pending && gr_store_log_compaction_due(&cs->log, cs->live_bytes, cs->opts.compact_min_bytes))
        compact(cs);
    return GR_ERR_NONE;
}

size_t gr_cstore_foreach(gr_cstore_t *cs, gr_cstore_visit_fn *fn, void *arg) {
    size_t n = 0;
    for (gr_hnode_t *h = gr_htab_first(&cs->map); h; h = gr_htab_next(&cs->map, h), n++)
        fn(arg, ENTRY(h)->key, ENTRY(h)->key_len, ENTRY(h)->value, ENTRY(h)->value_len);
    return n;
}

size_t gr_cstore_count(const gr_cstore_t *cs) { return cs->map.n; }
