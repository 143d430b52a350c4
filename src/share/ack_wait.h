/* Acknowledgements of one ShareFetch / ShareAcknowledge request, share side:
 *  - the §3.3 checks of a partition's acknowledgement batches, made before anything
 *    else is looked at (INVALID_REQUEST when they fail), then the rest of §3.3's order
 *    up to the SP (topic, partition, share-partition in memory, store offline);
 *  - the tracker that counts the durable share-state writes the request waits for
 *    before it answers. It lives apart from the request, because a cancelled request
 *    (client gone, shutdown) is freed while its writes are still queued; the last
 *    completion frees it then.
 * Pure (no clock, no I/O); one thread. */
#ifndef GR_SHARE_ACK_WAIT_H
#define GR_SHARE_ACK_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "share/sp.h"

/** §3.3: FirstOffset <= LastOffset; batches ascending (Kafka 4.4.0 refuses only a
 *  FirstOffset below the previous LastOffset: a shared offset is for the SP to judge);
 *  AcknowledgeTypes non-empty, one type or one per offset, each 0..3 (0..4 for a v2
 *  renew request). On failure *why (if why) names the first problem. */
bool gr_share_acks_valid(const gr_sp_ack_batch_t *bt, size_t n, bool renew, const char **why);

/** What the broker knows of one partition a request acknowledges. */
typedef struct gr_share_ack_target {
    bool topic_known;     /**< the topic id names a topic */
    bool partition_known; /**< and the partition exists */
    bool sp_in_memory;    /**< this broker holds the share-partition */
    bool state_failed;    /**< the share-state store is offline (a write failed) */
} gr_share_ack_target_t;

/** §3.3's order before the SP sees a partition's acknowledgements: malformed batches ->
 *  INVALID_REQUEST (no message, as Kafka 4.4.0: the reason is only logged), unknown
 *  topic id -> UNKNOWN_TOPIC_ID, unknown partition -> UNKNOWN_TOPIC_OR_PARTITION;
 *  nothing to acknowledge -> NONE; no SP in memory -> UNKNOWN_TOPIC_OR_PARTITION, store
 *  offline -> KAFKA_STORAGE_ERROR (both with errstr). NONE with *apply: hand them to the
 *  SP. errstr is "" unless set. */
gr_err_t gr_share_ack_admit(const gr_sp_ack_batch_t *bt, size_t n, bool renew, const gr_share_ack_target_t *t,
                            bool *apply, char *errstr, size_t errstr_size);

typedef struct gr_share_ackwait gr_share_ackwait_t;
typedef struct gr_share_ackslot gr_share_ackslot_t;

/** New tracker; done(arg) runs (once) when the last pending write completes
 *  after gr_share_ackwait_arm. */
gr_share_ackwait_t *gr_share_ackwait_new(void (*done)(void *arg), void *arg);
/** All writes are issued: returns true if none is pending (then done will
 *  not be called and the caller answers itself; the tracker is freed). */
bool gr_share_ackwait_arm(gr_share_ackwait_t *w);
/** The request was answered without waiting (cancelled): error slots are no
 *  longer touched and the last completion frees the tracker. */
void gr_share_ackwait_detach(gr_share_ackwait_t *w);

/** A slot for one write of w whose failure sets *err_slot to KAFKA_STORAGE_ERROR
 *  (if it is still 0 and w is not detached). Pass gr_share_ackslot_done and the slot
 *  as the write's callback, then gr_share_ackslot_commit(slot, queued): a queued
 *  write is counted, otherwise the slot is freed. */
gr_share_ackslot_t *gr_share_ackslot_new(gr_share_ackwait_t *w, int16_t *err_slot);
void gr_share_ackslot_commit(gr_share_ackslot_t *s, bool queued);
void gr_share_ackslot_done(void *slot, gr_err_t err);

#endif
