/* Transaction metadata: states, partition sets and the registry of transactional ids. */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"
#include "txn/txn.h"

#define TXN_ENTRY(hn) GR_HTAB_ENTRY(hn, gr_txn_t, node)

static const char *const g_names[GR_TXN_N_STATES] = {
    "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence",
};

const char *gr_txn_state_name(int state) { return state >= 0 && state < GR_TXN_N_STATES ? g_names[state] : NULL; }

int gr_txn_state_by_name(const char *name, size_t len) {
    for (int i = 0; i < GR_TXN_N_STATES; i++)
        if (strlen(g_names[i]) == len && !memcmp(g_names[i], name, len)) return i;
    return -1;
}

bool gr_txn_epoch_exhausted(int16_t epoch) { return epoch >= INT16_MAX - 1; }

void gr_txn_cfg_default(gr_txn_cfg_t *c) {
    c->max_timeout_ms = 900000;
    c->id_expiration_ms = 604800000;
    c->server_tv = 2;
}

void gr_txn_meta_init(gr_txn_meta_t *m) {
    memset(m, 0, sizeof(*m));
    m->pid = m->prev_pid = m->next_pid = GR_TXN_NO_PID;
    m->epoch = m->last_epoch = GR_TXN_NO_EPOCH;
    m->state = GR_TXN_EMPTY;
    m->start_ms = -1;
}

static void parts_clear(gr_txn_meta_t *m) {
    for (int32_t i = 0; i < m->n_parts; i++) free(m->parts[i].topic);
    m->n_parts = 0;
}

void gr_txn_meta_free(gr_txn_meta_t *m) {
    parts_clear(m);
    free(m->parts);
    m->parts = NULL;
    m->cap_parts = 0;
}

void gr_txn_meta_copy(gr_txn_meta_t *dst, const gr_txn_meta_t *src) {
    *dst = *src;
    dst->parts = NULL;
    dst->n_parts = dst->cap_parts = 0;
    for (int32_t i = 0; i < src->n_parts; i++) gr_txn_meta_add(dst, src->parts[i].topic, src->parts[i].partition);
}

bool gr_txn_meta_has(const gr_txn_meta_t *m, const char *topic, int32_t partition) {
    for (int32_t i = 0; i < m->n_parts; i++)
        if (m->parts[i].partition == partition && !strcmp(m->parts[i].topic, topic)) return true;
    return false;
}

bool gr_txn_meta_add(gr_txn_meta_t *m, const char *topic, int32_t partition) {
    if (gr_txn_meta_has(m, topic, partition)) return false;
    if (m->n_parts == m->cap_parts) {
        m->cap_parts = m->cap_parts ? m->cap_parts * 2 : 4;
        m->parts = gr_xrealloc(m->parts, (size_t)m->cap_parts * sizeof(*m->parts));
    }
    m->parts[m->n_parts++] = (gr_txn_tpart_t){gr_xstrdup(topic), partition};
    return true;
}

bool gr_txn_meta_remove(gr_txn_meta_t *m, const char *topic, int32_t partition) {
    for (int32_t i = 0; i < m->n_parts; i++) {
        if (m->parts[i].partition != partition || strcmp(m->parts[i].topic, topic)) continue;
        free(m->parts[i].topic);
        m->parts[i] = m->parts[--m->n_parts];
        return true;
    }
    return false;
}

/* ---------------------------------------------------------------- registry */

typedef struct id_key {
    const char *id;
    size_t len;
} id_key_t;

static uint64_t id_hash(const char *id, size_t len) { return gr_hash(id, len); }

static bool id_eq(const gr_hnode_t *n, const void *key) {
    const id_key_t *k = key;
    const gr_txn_t *t = TXN_ENTRY(n);
    return strlen(t->id) == k->len && !memcmp(t->id, k->id, k->len);
}

void gr_txn_reg_init(gr_txn_reg_t *r, const gr_txn_cfg_t *cfg, gr_txn_pid_fn *fn, void *arg) {
    memset(r, 0, sizeof(*r));
    gr_htab_init(&r->ids, 16);
    r->cfg = *cfg;
    r->new_pid = fn;
    r->new_pid_arg = arg;
}

static void txn_free(gr_txn_t *t) {
    gr_txn_meta_free(&t->m);
    if (t->pending) gr_txn_meta_free(&t->transit);
    free(t->id);
    free(t);
}

void gr_txn_reg_free(gr_txn_reg_t *r) {
    for (gr_hnode_t *n = gr_htab_first(&r->ids), *next; n; n = next) {
        next = gr_htab_next(&r->ids, n);
        txn_free(TXN_ENTRY(n));
    }
    gr_htab_free(&r->ids);
}

gr_txn_t *gr_txn_find(const gr_txn_reg_t *r, const char *id, size_t len) {
    id_key_t k = {id, len};
    return TXN_ENTRY(*gr_htab_slot(&r->ids, id_hash(id, len), id_eq, &k));
}

gr_txn_t *gr_txn_put(gr_txn_reg_t *r, const char *id, size_t len, const gr_txn_meta_t *m) {
    gr_txn_t *t = gr_txn_find(r, id, len);
    if (t) {
        gr_txn_meta_free(&t->m);
    } else {
        t = gr_xcalloc(1, sizeof(*t));
        t->id = gr_xstrndup(id, len);
        gr_htab_insert(&r->ids, &t->node, id_hash(id, len));
    }
    gr_txn_meta_copy(&t->m, m);
    return t;
}

void gr_txn_remove(gr_txn_reg_t *r, gr_txn_t *t) {
    id_key_t k = {t->id, strlen(t->id)};
    gr_hnode_t **s = gr_htab_slot(&r->ids, id_hash(k.id, k.len), id_eq, &k);
    if (*s) gr_htab_unlink(&r->ids, s);
    txn_free(t);
}

size_t gr_txn_count(const gr_txn_reg_t *r) { return r->ids.n; }
gr_txn_t *gr_txn_first(const gr_txn_reg_t *r) { return TXN_ENTRY(gr_htab_first(&r->ids)); }
gr_txn_t *gr_txn_next(const gr_txn_reg_t *r, const gr_txn_t *t) { return TXN_ENTRY(gr_htab_next(&r->ids, &t->node)); }
