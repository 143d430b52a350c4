/* Share-state writes that wait for a DLQ fsync: see share_wq.h. The queue's rules are
 * share/state_wq.h's; this file binds it to the broker's sync queue (the DLQ fsync),
 * its share-state store and its offline flag.
 *
 * @locality loop thread. */
#include "broker/share_wq.h"

#include "broker/broker_int.h"
#include "share/state_wq.h"

bool gr_share_wq_has(gr_broker_t *b, const gr_sstore_key_t *key) { return gr_swq_holds(b->share.wq, key); }

static void dlq_synced(void *arg, gr_err_t err) {
    gr_swq_entry_t *e = arg;
    gr_broker_t *b = gr_swq_owner(e);
    gr_swq_sink_t sink = {b->share.sstore, &b->share.dlq_torn};
    gr_swq_synced(b->share.wq, e, err, &sink);
}

void gr_share_wq_add(gr_broker_t *b, const gr_sstore_key_t *key, const gr_sstore_update_t *up, gr_partition_t *dlq_p,
                     int64_t dlq_end, gr_sstore_cb *cb, void *arg) {
    if (!b->share.wq) b->share.wq = gr_swq_new();
    gr_swq_entry_t *e = gr_swq_push(b->share.wq, key, up, dlq_p != NULL, cb, arg, b);
    /* The DLQ fsync runs before the loop sleeps, never inside this call. A write without a
     * DLQ batch is queued only behind one that has (gr_share_wq_has), so it is not run now. */
    if (dlq_p) gr_sync_queue_add(b->syncq, dlq_p, dlq_end, dlq_synced, e);
}

void gr_share_wq_close(gr_broker_t *b) {
    gr_swq_free(b->share.wq); /* empty: not reached after gr_sync_queue_free */
    b->share.wq = NULL;
}
