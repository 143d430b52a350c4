/* UNTIL THE LOG SIDE LANDS (branch h-txlog): a stand-in for gr_txn_write_markers so
 * the coordinator links on its own. It writes nothing and reports every partition as
 * KAFKA_STORAGE_ERROR, so a transaction with data partitions stays PREPARE_* and is
 * retried (as Kafka does while a partition cannot take its marker); transactions whose
 * only partitions are group offsets complete normally.
 * The lead deletes this file when h-txlog's txn_markers.c is merged. */
#include <stdlib.h>

#include "base/xalloc.h"
#include "broker/broker_int.h"
#include "broker/txn_bridge.h"

typedef struct absent {
    size_t n;
    gr_txn_marker_part_cb *part_cb;
    gr_txn_markers_done_cb *done;
    void *arg;
} absent_t;

static void answer(gr_loop_t *loop, void *arg, int64_t now) {
    (void)loop;
    (void)now;
    absent_t a = *(absent_t *)arg;
    free(arg);
    for (size_t i = 0; i < a.n; i++)
        if (a.part_cb) a.part_cb(a.arg, i, GR_ERR_KAFKA_STORAGE_ERROR);
    a.done(a.arg, a.n);
}

void gr_txn_write_markers(gr_broker_t *b, int64_t pid, int16_t epoch, int32_t coordinator_epoch, bool commit,
                          const gr_txn_tp_t *tps, size_t n, gr_txn_marker_part_cb *part_cb,
                          gr_txn_markers_done_cb *done, void *arg) {
    (void)pid;
    (void)epoch;
    (void)coordinator_epoch;
    (void)commit;
    (void)tps;
    absent_t *a = gr_xmalloc(sizeof(*a));
    *a = (absent_t){n, part_cb, done, arg};
    gr_loop_post(b->loop, answer, a);
}
