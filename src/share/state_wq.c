/* Share-state writes that wait for a DLQ fsync: see state_wq.h. */
#include "share/state_wq.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"

struct gr_swq_entry {
    gr_swq_entry_t *next;
    void *owner;
    gr_sstore_key_t key; /* group: owned copy */
    gr_sstore_update_t up;
    gr_sstore_batch_t *batches; /* owned copy of up.batches */
    gr_sstore_cb *cb;
    void *arg;
    bool ready; /* its DLQ batch is durable (or it had none) */
    gr_err_t err;
};

struct gr_share_wq {
    gr_swq_entry_t *head, *tail;
};

gr_swq_t *gr_swq_new(void) { return gr_xcalloc(1, sizeof(gr_swq_t)); }

static bool same_key(const gr_sstore_key_t *a, const gr_sstore_key_t *b) {
    return a->partition == b->partition && a->group_len == b->group_len && !memcmp(a->topic_id.b, b->topic_id.b, 16) &&
           !memcmp(a->group, b->group, a->group_len);
}

bool gr_swq_holds(const gr_swq_t *q, const gr_sstore_key_t *key) {
    for (const gr_swq_entry_t *e = q ? q->head : NULL; e; e = e->next)
        if (same_key(&e->key, key)) return true;
    return false;
}

static void entry_free(gr_swq_entry_t *e) {
    free((void *)e->key.group);
    free(e->batches);
    free(e);
}

gr_swq_entry_t *gr_swq_push(gr_swq_t *q, const gr_sstore_key_t *key, const gr_sstore_update_t *up, bool after_sync,
                            gr_sstore_cb *cb, void *arg, void *owner) {
    gr_swq_entry_t *e = gr_xcalloc(1, sizeof(*e));
    *e = (gr_swq_entry_t){.owner = owner, .key = *key, .up = *up, .cb = cb, .arg = arg, .ready = !after_sync};
    char *group = gr_xmalloc(key->group_len + 1); /* group_len bytes: an id may hold a NUL */
    memcpy(group, key->group, key->group_len);
    group[key->group_len] = 0;
    e->key.group = group;
    if (up->n_batches) {
        e->batches = gr_xcalloc(up->n_batches, sizeof(*e->batches));
        memcpy(e->batches, up->batches, up->n_batches * sizeof(*e->batches));
    }
    e->up.batches = e->batches;
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    return e;
}

void *gr_swq_owner(const gr_swq_entry_t *e) { return e->owner; }

/* Write one entry whose turn it is; any failure takes the share groups offline. */
static void run_one(gr_swq_entry_t *e, const gr_swq_sink_t *sink) {
    gr_err_t err = e->err;
    if (!err && *sink->torn) err = GR_ERR_KAFKA_STORAGE_ERROR; /* an earlier entry failed */
    if (!err && !sink->ss) err = GR_ERR_KAFKA_STORAGE_ERROR;
    if (!err) {
        err = gr_sstore_write(sink->ss, &e->key, &e->up, e->cb, e->arg);
        if (!err) return; /* e->cb runs after the store's fsync */
        GR_ERROR("share", "share-state write after a DLQ append failed (%s): share groups offline until restart",
                 gr_err_name(err));
    } else if (!*sink->torn) {
        GR_ERROR("share",
                 "DLQ fsync failed: its share-state record is not written; share groups offline until restart");
    }
    *sink->torn = true;
    if (e->cb) e->cb(e->arg, GR_ERR_KAFKA_STORAGE_ERROR);
}

void gr_swq_synced(gr_swq_t *q, gr_swq_entry_t *e, gr_err_t err, const gr_swq_sink_t *sink) {
    e->ready = true;
    if (err) e->err = GR_ERR_KAFKA_STORAGE_ERROR;
    while (q->head && q->head->ready) {
        gr_swq_entry_t *h = q->head;
        q->head = h->next;
        if (!q->head) q->tail = NULL;
        run_one(h, sink);
        entry_free(h);
    }
}

void gr_swq_free(gr_swq_t *q) {
    if (!q) return;
    for (gr_swq_entry_t *e = q->head, *n; e; e = n) {
        n = e->next;
        if (e->cb) e->cb(e->arg, GR_ERR_KAFKA_STORAGE_ERROR);
        entry_free(e);
    }
    free(q);
}
