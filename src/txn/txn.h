/* Transaction coordinator state, pure: the metadata of each transactional id and
 * the transitions Apache Kafka 4.4.0's TransactionCoordinator makes on
 * InitProducerId, AddPartitionsToTxn (client form and the implicit add of
 * transaction protocol v2, KIP-890), EndTxn, timeouts and expiration.
 *
 * Like Kafka, a change is first *prepared*: the target metadata (the "transit")
 * is computed and the id gets a pending state that blocks other changes; the
 * caller makes the transit durable in the transaction log and then applies it
 * (gr_txn_apply) or drops it on a failed write (gr_txn_cancel). No I/O, no clock
 * reads: time comes in as now_ms; new producer ids come from a callback.
 *
 * docs/transactions.md describes the states and the rules.
 * @locality loop thread (single owner). */
#ifndef GR_TXN_TXN_H
#define GR_TXN_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/htab.h"

/** Kafka's TransactionState ids (they are what the transaction log stores). */
typedef enum gr_txn_state {
    GR_TXN_EMPTY = 0,
    GR_TXN_ONGOING = 1,
    GR_TXN_PREPARE_COMMIT = 2,
    GR_TXN_PREPARE_ABORT = 3,
    GR_TXN_COMPLETE_COMMIT = 4,
    GR_TXN_COMPLETE_ABORT = 5,
    GR_TXN_DEAD = 6,
    GR_TXN_PREPARE_EPOCH_FENCE = 7,
} gr_txn_state_t;
#define GR_TXN_N_STATES 8

#define GR_TXN_NO_PID   (-1)
#define GR_TXN_NO_EPOCH (-1)

/** Kafka's name of a state ("Empty", "Ongoing", "PrepareCommit", ...); NULL if out of range. */
const char *gr_txn_state_name(int state);
/** The state named name (Kafka's names), or -1. */
int gr_txn_state_by_name(const char *name, size_t len);
/** No more epochs for this producer id: epoch >= 32766 (Short.MaxValue - 1). */
bool gr_txn_epoch_exhausted(int16_t epoch);

typedef struct gr_txn_tpart {
    char *topic;
    int32_t partition;
} gr_txn_tpart_t;

/** What the transaction log stores of an id (one record value). */
typedef struct gr_txn_meta {
    int64_t pid, prev_pid, next_pid;
    int16_t epoch, last_epoch;
    int32_t timeout_ms;
    gr_txn_state_t state;
    gr_txn_tpart_t *parts; /* owned; topic strings owned */
    int32_t n_parts, cap_parts;
    int64_t start_ms;  /* -1: no transaction */
    int64_t update_ms; /* last change (expiration) */
    int8_t tv;         /* transaction version the client used at the last change (0..2) */
} gr_txn_meta_t;

void gr_txn_meta_init(gr_txn_meta_t *m);
void gr_txn_meta_free(gr_txn_meta_t *m);
/** Deep copy (dst uninitialised or freed). */
void gr_txn_meta_copy(gr_txn_meta_t *dst, const gr_txn_meta_t *src);
bool gr_txn_meta_has(const gr_txn_meta_t *m, const char *topic, int32_t partition);
/** Add a partition if it is not there yet; true if added. */
bool gr_txn_meta_add(gr_txn_meta_t *m, const char *topic, int32_t partition);
/** Remove a partition (topic deleted); true if it was there. */
bool gr_txn_meta_remove(gr_txn_meta_t *m, const char *topic, int32_t partition);

/** One transactional id. */
typedef struct gr_txn {
    gr_hnode_t node;
    char *id;
    gr_txn_meta_t m; /* the durable state */
    /* A prepared change waiting for its log write: pending_state is its target
     * (PREPARE_EPOCH_FENCE has no transit of its own: the abort that follows has). */
    bool pending;
    gr_txn_state_t pending_state;
    gr_txn_meta_t transit;
    bool failed_fence; /* an epoch fence was not written: do not bump again */
    bool fence_active; /* the pending abort is an epoch fence (timeout, InitProducerId) */
    bool loaded;       /* false: created by InitProducerId, nothing durable yet */
    void *user;        /* the caller's (broker: waiters, marker state) */
} gr_txn_t;

typedef struct gr_txn_cfg {
    int32_t max_timeout_ms;   /* transaction.max.timeout.ms (900000) */
    int64_t id_expiration_ms; /* transactional.id.expiration.ms (604800000) */
    int8_t server_tv;         /* finalized transaction.version (2) */
} gr_txn_cfg_t;

void gr_txn_cfg_default(gr_txn_cfg_t *c);

/** Allocate a producer id; -1 on failure (the caller's error: COORDINATOR_NOT_AVAILABLE). */
typedef int64_t gr_txn_pid_fn(void *arg);

typedef struct gr_txn_reg {
    gr_htab_t ids;
    gr_txn_cfg_t cfg;
    gr_txn_pid_fn *new_pid;
    void *new_pid_arg;
} gr_txn_reg_t;

void gr_txn_reg_init(gr_txn_reg_t *r, const gr_txn_cfg_t *cfg, gr_txn_pid_fn *fn, void *arg);
/** Frees every id (their user pointers are the caller's). */
void gr_txn_reg_free(gr_txn_reg_t *r);
gr_txn_t *gr_txn_find(const gr_txn_reg_t *r, const char *id, size_t len);
/** A new id with m as its durable state (start-up load, or InitProducerId). */
gr_txn_t *gr_txn_put(gr_txn_reg_t *r, const char *id, size_t len, const gr_txn_meta_t *m);
void gr_txn_remove(gr_txn_reg_t *r, gr_txn_t *t);
size_t gr_txn_count(const gr_txn_reg_t *r);
/** Iterate: first/next over every id (remove-safe if next is taken first). */
gr_txn_t *gr_txn_first(const gr_txn_reg_t *r);
gr_txn_t *gr_txn_next(const gr_txn_reg_t *r, const gr_txn_t *t);

/* ---------------------------------------------------------------- transitions
 * Each returns 0 with the transit prepared (t->pending), or a Kafka error code
 * (nothing prepared). A positive GR_TXN_NOOP means "answer success now, nothing
 * to write". */
#define GR_TXN_NOOP (-1000)
/** InitProducerId asked for an epoch fence: the ongoing transaction is being
 *  aborted (t->pending_state PREPARE_EPOCH_FENCE, then gr_txn_end from the
 *  coordinator); the client gets CONCURRENT_TRANSACTIONS once that is written. */
#define GR_TXN_FENCE (-1001)

/** InitProducerId with a transactional id. has_expected: the request carried a
 *  producer id and epoch (KIP-360). The caller validated the timeout and created
 *  the id (epoch -1) if it was unknown. */
int gr_txn_init_pid(gr_txn_reg_t *r, gr_txn_t *t, int32_t timeout_ms, bool has_expected, int64_t exp_pid,
                    int16_t exp_epoch, int64_t now_ms);

/** AddPartitionsToTxn (tv 0: the client form; tv 2: the implicit add of a v2 produce
 *  or TxnOffsetCommit). GR_TXN_NOOP when every partition is in the transaction already. */
int gr_txn_add_partitions(gr_txn_reg_t *r, gr_txn_t *t, int64_t pid, int16_t epoch, const gr_txn_tpart_t *parts,
                          int32_t n, int8_t tv, int64_t now_ms);

/** Verification only (AddPartitionsToTxn v4+ verifyOnly, produce before v12): 0 if
 *  the partition is in the ongoing transaction of (pid, epoch), else the error
 *  (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS,
 *  TRANSACTION_ABORTABLE). t may be NULL. */
int gr_txn_verify(const gr_txn_t *t, int64_t pid, int16_t epoch, const char *topic, int32_t partition);

/** EndTxn (from_client) or the coordinator's own abort (timeout, fence). tv: 2 for
 *  EndTxn v5+ (the epoch is bumped on every end), else 0; the coordinator passes
 *  the server's. On GR_TXN_NOOP out_pid and out_epoch get what to answer. */
int gr_txn_end(gr_txn_reg_t *r, gr_txn_t *t, int64_t pid, int16_t epoch, bool commit, bool from_client, int8_t tv,
               int64_t now_ms, int64_t *out_pid, int16_t *out_epoch);

/** The markers of a PREPARE_* transaction are written: prepare COMPLETE_*. */
int gr_txn_complete(gr_txn_t *t, int64_t now_ms);

/** The epoch fence of a timed-out transaction (gr_txn_end follows). 0 or CONCURRENT_TRANSACTIONS. */
int gr_txn_fence(gr_txn_t *t);

/** Expiration: prepare DEAD (transit; the caller writes a tombstone). */
int gr_txn_expire(gr_txn_t *t);

/** The prepared transit is durable: it becomes the state. */
void gr_txn_apply(gr_txn_t *t);
/** The write of the prepared transit failed: forget it. */
void gr_txn_cancel(gr_txn_t *t);

/** Ongoing transactions whose timeout has passed (and no pending change). */
bool gr_txn_timed_out(const gr_txn_t *t, int64_t now_ms);
/** Idle ids past transactional.id.expiration.ms (Empty / Complete*, nothing pending). */
bool gr_txn_expired(const gr_txn_reg_t *r, const gr_txn_t *t, int64_t now_ms);

#endif
