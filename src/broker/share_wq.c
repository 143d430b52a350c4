/* Share-state writes that wait for a DLQ fsync: see share_wq.h.
 *
 * @locality loop thread. */
#include "broker/share_wq.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"

typedef struct wq_entry {
    struct wq_entry *next;
    gr_broker_t *b;
    gr_sstore_key_t key; /* group: owned copy */
    gr_sstore_update_t up;
    gr_sstore_batch_t *batches; /* owned copy of up.batches */
    gr_sstore_cb *cb;
    void *arg;
    bool ready; /* its DLQ batch is durable (or it had none) */
    gr_err_t err;
} wq_entry_t;

struct gr_share_wq {
    wq_entry_t *head, *tail;
};

static bool same_key(const gr_sstore_key_t *a, const gr_sstore_key_t *b) {
    return a->partition == b->partition && a->group_len == b->group_len && !memcmp(a->topic_id.b, b->topic_id.b, 16) &&
           !memcmp(a->group, b->group, a->group_len);
}

bool gr_share_wq_has(gr_broker_t *b, const gr_sstore_key_t *key) {
    for (wq_entry_t *e = b->share.wq ? b->share.wq->head : NULL; e; e = e->next)
        if (same_key(&e->key, key)) return true;
    return false;
}

static void entry_free(wq_entry_t *e) {
    free((void *)e->key.group);
    free(e->batches);
    free(e);
}

/* Write one entry whose turn it is; any failure takes the share groups offline. */
static void run_one(gr_broker_t *b, wq_entry_t *e) {
    gr_err_t err = e->err;
    if (!err && b->share.dlq_torn) err = GR_ERR_KAFKA_STORAGE_ERROR; /* an earlier entry failed */
    if (!err && !b->share.sstore) err = GR_ERR_KAFKA_STORAGE_ERROR;
    if (!err) {
        err = gr_sstore_write(b->share.sstore, &e->key, &e->up, e->cb, e->arg);
        if (!err) return; /* e->cb runs after the store's fsync */
        GR_ERROR("share", "share-state write after a DLQ append failed (%s): share groups offline until restart",
                 gr_err_name(err));
    } else if (!b->share.dlq_torn) {
        GR_ERROR("share",
                 "DLQ fsync failed: its share-state record is not written; share groups offline until restart");
    }
    b->share.dlq_torn = true;
    if (e->cb) e->cb(e->arg, GR_ERR_KAFKA_STORAGE_ERROR);
}

/* Write the queue from its head while the head's DLQ batch is durable. */
static void drain(gr_broker_t *b) {
    gr_share_wq_t *q = b->share.wq;
    while (q->head && q->head->ready) {
        wq_entry_t *e = q->head;
        q->head = e->next;
        if (!q->head) q->tail = NULL;
        run_one(b, e);
        entry_free(e);
    }
}

static void dlq_synced(void *arg, gr_err_t err) {
    wq_entry_t *e = arg;
    e->ready = true;
    if (err) e->err = GR_ERR_KAFKA_STORAGE_ERROR;
    drain(e->b);
}

void gr_share_wq_add(gr_broker_t *b, const gr_sstore_key_t *key, const gr_sstore_update_t *up, gr_partition_t *dlq_p,
                     int64_t dlq_end, gr_sstore_cb *cb, void *arg) {
    if (!b->share.wq && !(b->share.wq = calloc(1, sizeof(*b->share.wq)))) abort();
    wq_entry_t *e = calloc(1, sizeof(*e));
    char *group = malloc(key->group_len + 1);
    if (!e || !group) abort();
    memcpy(group, key->group, key->group_len);
    group[key->group_len] = 0;
    *e = (wq_entry_t){.b = b, .key = *key, .up = *up, .cb = cb, .arg = arg, .ready = dlq_p == NULL};
    e->key.group = group;
    if (up->n_batches) {
        if (!(e->batches = malloc(up->n_batches * sizeof(*e->batches)))) abort();
        memcpy(e->batches, up->batches, up->n_batches * sizeof(*e->batches));
    }
    e->up.batches = e->batches;
    gr_share_wq_t *q = b->share.wq;
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    /* The DLQ fsync runs before the loop sleeps, never inside this call. A write without a
     * DLQ batch is queued only behind one that has (gr_share_wq_has), so it is not run now. */
    if (dlq_p) gr_sync_queue_add(b->syncq, dlq_p, dlq_end, dlq_synced, e);
}

void gr_share_wq_close(gr_broker_t *b) {
    gr_share_wq_t *q = b->share.wq;
    if (!q) return;
    for (wq_entry_t *e = q->head, *n; e; e = n) { /* not reached after gr_sync_queue_free */
        n = e->next;
        if (e->cb) e->cb(e->arg, GR_ERR_KAFKA_STORAGE_ERROR);
        entry_free(e);
    }
    free(q);
    b->share.wq = NULL;
}
