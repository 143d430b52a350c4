/* The transactional producer's protocol decisions, pure (no I/O, no client state): which
 * transaction protocol version to speak, the request versions it allows, and what an error
 * does to the transaction. producer_txn.c applies them; tests/unit/test_client_txn_rules.c
 * checks them.
 *
 * Transaction version 2 (KIP-890 part 2) is spoken when the brokers finalized the feature
 * transaction.version at 2 or more and the coordinator offers Produce v12+, EndTxn v5+ and
 * TxnOffsetCommit v5+: the producer then sends no AddPartitionsToTxn / AddOffsetsToTxn (the
 * broker adds a partition when the first transactional batch or TxnOffsetCommit reaches it)
 * and takes the new producer epoch EndTxn v5 answers. With version 1 the requests stay at the
 * last versions before version 2 (Produce v11, EndTxn v4, TxnOffsetCommit v4), as the Java
 * producer keeps them. */
#ifndef GR_CLIENT_TXN_RULES_H
#define GR_CLIENT_TXN_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

/** What the transaction coordinator offers: the finalized transaction.version (-1 unknown)
 *  and the negotiated highest versions of the APIs version 2 needs (-1 unsupported). */
typedef struct gr__txn_caps {
    int16_t feature;
    int16_t produce, end_txn, txn_offset_commit;
} gr__txn_caps_t;

/** Transaction version 2 can be spoken. */
bool gr__txn_v2_usable(const gr__txn_caps_t *c);
/** The highest version of api_key a producer speaking version 2 (v2) or 1 may send, -1 for
 *  no cap: version 1 caps Produce at v11, EndTxn and TxnOffsetCommit at v4. */
int16_t gr__txn_max_version(bool v2, int16_t api_key);

typedef enum { GR__TXN_ABORTABLE = 1, GR__TXN_FATAL = 2 } gr__txn_outcome_t;

/** A failed record batch, control request or offset commit of a transaction: fatal (the
 *  producer must be destroyed) or abortable (the application aborts and goes on). */
bool gr__txn_fatal_code(gr_err_t err);
/** EndTxn failed for good (retriable codes are retried before): what becomes of the
 *  transaction, as the Java producer decides it. Local failures (timeouts, transport) and
 *  TRANSACTION_ABORTABLE, UNKNOWN_PRODUCER_ID are abortable; PRODUCER_FENCED,
 *  INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE, authorization and unexpected codes fatal. */
gr__txn_outcome_t gr__txn_end_outcome(gr_err_t err);
/** The code reported for err: INVALID_PRODUCER_EPOCH (older coordinators) is PRODUCER_FENCED. */
gr_err_t gr__txn_reported_code(gr_err_t err);

#endif
