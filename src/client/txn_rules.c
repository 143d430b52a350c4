/* Transaction protocol decisions of the transactional producer (see txn_rules.h). */
#include "client/txn_rules.h"

#include "proto_msgs.h"

bool gr__txn_v2_usable(const gr__txn_caps_t *c) {
    return c->feature >= 2 && c->produce >= 12 && c->end_txn >= 5 && c->txn_offset_commit >= 5;
}

int16_t gr__txn_max_version(bool v2, int16_t api_key) {
    if (v2) return -1;
    switch (api_key) {
    case GR_API_Produce: return 11;        /* v12 announces implicit adds to the broker */
    case GR_API_EndTxn: return 4;          /* v5 bumps the epoch */
    case GR_API_TxnOffsetCommit: return 4; /* v5 adds the group's partition implicitly */
    default: return -1;
    }
}

bool gr__txn_fatal_code(gr_err_t e) {
    return e == GR_ERR_PRODUCER_FENCED || e == GR_ERR_INVALID_PRODUCER_EPOCH ||
           e == GR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED || e == GR_ERR_INVALID_PRODUCER_ID_MAPPING ||
           e == GR_ERR_UNSUPPORTED_VERSION || e == GR_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT ||
           e == GR_ERR_CLUSTER_AUTHORIZATION_FAILED;
}

gr__txn_outcome_t gr__txn_end_outcome(gr_err_t err) {
    if (err <= -100) return GR__TXN_ABORTABLE; /* local (timed out, lost): the transaction is not over */
    switch ((int)err) {
    case GR_ERR_TRANSACTION_ABORTABLE:
    case GR_ERR_UNKNOWN_PRODUCER_ID:
    case GR_ERR_NOT_COORDINATOR:
    case GR_ERR_COORDINATOR_NOT_AVAILABLE:
    case GR_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case GR_ERR_CONCURRENT_TRANSACTIONS:
    case GR_ERR_REQUEST_TIMED_OUT: return GR__TXN_ABORTABLE; /* retriable ones: retried until the deadline */
    default: return GR__TXN_FATAL;
    }
}

gr_err_t gr__txn_reported_code(gr_err_t err) {
    return err == GR_ERR_INVALID_PRODUCER_EPOCH ? GR_ERR_PRODUCER_FENCED : err;
}
