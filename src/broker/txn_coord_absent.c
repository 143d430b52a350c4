/* UNTIL THE COORDINATOR LANDS (branch h-txcoord): delete this file at the merge.
 *
 * Without a transaction coordinator no partition can be verified as part of a
 * transaction. COORDINATOR_NOT_AVAILABLE makes Produce answer what Kafka answers
 * when its verification cannot reach the coordinator (NOT_ENOUGH_REPLICAS, "Unable
 * to verify the partition has been added to the transaction. Underlying error:
 * COORDINATOR_NOT_AVAILABLE"), which is what gregord answered before transactions.
 * @locality loop thread. */
#include "broker/txn_bridge.h"

void gr_txn_coord_verify(gr_broker_t *b, gr_str_t txn_id, int64_t pid, int16_t epoch, const char *topic,
                         int32_t partition, int16_t produce_version, gr_txn_verify_cb *cb, void *arg) {
    (void)b, (void)txn_id, (void)pid, (void)epoch, (void)topic, (void)partition, (void)produce_version;
    cb(arg, GR_ERR_COORDINATOR_NOT_AVAILABLE);
}
