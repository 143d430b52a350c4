/* The log side of WriteTxnMarkers (txn_bridge.h): a COMMIT or ABORT control batch
 * per partition, made durable through the acks=all sync queue, and only then the
 * transaction completed in the partition's producer state: the last stable offset
 * moves (parked read_committed fetches are woken) and an abort enters the
 * aborted-transactions index.
 *
 * Per partition, before appending, Kafka's ProducerAppendInfo.appendEndTxnMarker
 * checks apply: a producer epoch older than the partition's is
 * INVALID_PRODUCER_EPOCH, a coordinator epoch older than the producer's last
 * marker TRANSACTION_COORDINATOR_FENCED. An unknown partition (topic deleted) is
 * UNKNOWN_TOPIC_OR_PARTITION, an offline log or a failed write or fsync
 * KAFKA_STORAGE_ERROR. A marker for a producer with no ongoing transaction is
 * written anyway (the coordinator's retry after a crash) and changes nothing but
 * the producer's epochs.
 *
 * All outcomes are reported together once the last fsync is done (or, when no
 * marker was appended, from a zero-delay timer: never inside the call).
 * @locality loop thread. */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/producers.h"
#include "broker/txn_bridge.h"
#include "proto/records.h"

struct marker_op;

typedef struct marker_part {
    struct marker_op *op;
    gr_partition_t *p; /* set while its fsync is queued */
    int64_t offset;    /* the marker's offset */
    gr_err_t err;
} marker_part_t;

typedef struct marker_op {
    int64_t pid, ts;
    int16_t epoch;
    int32_t coord_epoch;
    bool commit;
    gr_txn_marker_part_cb *part_cb;
    gr_txn_markers_done_cb *done;
    void *arg;
    size_t n, pending;
    gr_timer_t timer;
    marker_part_t parts[];
} marker_op_t;

static void report(marker_op_t *op) {
    size_t failed = 0;
    for (size_t i = 0; i < op->n; i++) {
        if (op->parts[i].err) failed++;
        if (op->part_cb) op->part_cb(op->arg, i, op->parts[i].err);
    }
    op->done(op->arg, failed);
    free(op);
}

static void on_timer(gr_timer_t *t, int64_t now) {
    (void)now;
    report(t->data);
}

static void marker_synced(void *arg, gr_err_t err) {
    marker_part_t *mp = arg;
    marker_op_t *op = mp->op;
    gr_partition_t *p = mp->p;
    p->markers_pending--;
    if (err) {
        if (!p->offline) GR_ERROR("txn", "fsync of %s-%d failed; partition offline until restart", p->topic, p->index);
        p->offline = true;
        mp->err = GR_ERR_KAFKA_STORAGE_ERROR;
    } else if (p->deleted) {
        mp->err = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    } else {
        gr_producers_complete(p->producers, op->pid, op->epoch, op->coord_epoch, op->commit, mp->offset, op->ts,
                              gr_clock_wall_ms());
        gr_partition_notify(p); /* the last stable offset may have moved */
    }
    if (--op->pending == 0) report(op);
}

/* Append the marker to one partition; returns the error for it, or 0 once queued. */
static gr_err_t append_marker(gr_broker_t *b, marker_op_t *op, marker_part_t *mp, const gr_txn_tp_t *tp) {
    gr_partition_t *p = tp->topic ? gr_parts_find(b->parts, tp->topic, tp->partition) : NULL;
    if (!p) return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (p->offline || gr_plog_offline(p->plog)) return GR_ERR_KAFKA_STORAGE_ERROR;
    gr_err_t err = gr_producers_check_marker(p->producers, op->pid, op->epoch, op->coord_epoch);
    if (err) return err;
    if (gr_partition_txn_ready(p)) return GR_ERR_KAFKA_STORAGE_ERROR;
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_control_batch_build(op->pid, op->epoch, op->commit, op->coord_epoch, op->ts, &wb);
    gr_plog_append_opts_t ao = {.now_ms = op->ts, .set_leader_epoch = true, .leader_epoch = p->leader_epoch};
    gr_plog_append_result_t ar;
    char errstr[256];
    err = gr_plog_append(p->plog, wb.mem, wb.len, &ao, &ar, errstr, sizeof(errstr));
    size_t len = wb.len;
    gr_wbuf_free(&wb);
    if (err) {
        if (gr_plog_offline(p->plog)) {
            GR_ERROR("txn", "marker append to %s-%d failed: %s; partition offline until restart", p->topic, p->index,
                     errstr);
            p->offline = true;
        }
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    mp->p = p;
    mp->offset = ar.base_offset;
    p->markers_pending++;
    op->pending++;
    gr_partition_appended(p, len);
    gr_sync_queue_add(b->syncq, p, ar.last_offset + 1, marker_synced, mp);
    return GR_ERR_NONE;
}

void gr_txn_write_markers(gr_broker_t *b, int64_t pid, int16_t epoch, int32_t coordinator_epoch, bool commit,
                          const gr_txn_tp_t *tps, size_t n, gr_txn_marker_part_cb *part_cb,
                          gr_txn_markers_done_cb *done, void *arg) {
    marker_op_t *op = calloc(1, sizeof(*op) + n * sizeof(marker_part_t));
    if (!op) abort();
    *op = (marker_op_t){.pid = pid,
                        .ts = gr_clock_wall_ms(),
                        .epoch = epoch,
                        .coord_epoch = coordinator_epoch,
                        .commit = commit,
                        .part_cb = part_cb,
                        .done = done,
                        .arg = arg,
                        .n = n};
    for (size_t i = 0; i < n; i++) {
        op->parts[i].op = op;
        op->parts[i].err = append_marker(b, op, &op->parts[i], &tps[i]);
    }
    if (op->pending > 0) return;
    gr_timer_init(b->loop, &op->timer, on_timer, op);
    gr_timer_start(&op->timer, 0, 0);
}
