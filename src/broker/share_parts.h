/* In-memory share-partitions of the broker (the data side of share groups):
 * the map (group id, topic id, partition) -> gr_sp_t, their lazy
 * initialisation from the share-state store (spec §1.10), acquisition-lock
 * timers (§1.4), durable acknowledgements (§3.4, §7.2) and the wake-up lists
 * that delayed share fetches wait on (§2.7).
 *
 * Durability: a transition and its write are one unit (gr_share_part_begin /
 * gr_share_part_end): the change an SP reports in its delta is appended to the
 * share-state store, and if the append fails the SP is rolled back. An
 * acknowledgement is answered only after its write is on disk
 * (gr_share_ackwait_t counts the writes one request waits for); lock expiry,
 * session releases and acquisitions do not wait.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_PARTS_H
#define GR_BROKER_SHARE_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/partitions.h"
#include "net/loop.h"
#include "proto/codec.h"
#include "share/ack_wait.h"
#include "share/capacity.h"
#include "share/group.h"
#include "share/share_stats.h"
#include "share/sp.h"
#include "share/sp_registry.h"
#include "share/sp_unit.h"
#include "share/sp_waiters.h"
#include "share/state_store.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_share_part gr_share_part_t;

struct gr_share_part {
    gr_sp_key_t key; /* (group, topic id, partition) in b->share.parts (share/sp_registry.h) */
    gr_sp_t *sp;
    /* Loaded by a ShareFetch that has not yet acquired from it: Kafka 4.4.0 loads each
     * share-partition with its own asynchronous state read and answers from the first one
     * loaded, so the fetch that loads several answers from one of them (h_share_fetch.c). */
    bool loading;
    gr_sp_delta_t delta;       /* changes not yet handed to the store */
    gr_sp_unit_mark_t mark;    /* the transition in progress (share/sp_unit.h) */
    gr_timer_t timer;          /* next acquisition-lock deadline */
    gr_share_waiter_t waiters; /* list head */
    gr_broker_t *b;
    gr_share_stats_t stats; /* metrics (share_metrics.c) */
    gr_cap_ring_t cap_ring; /* capacity view window (share_capacity.c) */
    gr_timer_t cap_timer;   /* rotates cap_ring */
};

/** The SP of (group, topic, partition) if this broker has it in memory. */
gr_share_part_t *gr_share_part_find(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition);

/** The SP, initialised on first use (§1.10) from the state store or from
 *  share.auto.offset.reset against the partition log p; a new one is marked loading. Errors (wire codes):
 *  COORDINATOR_NOT_AVAILABLE (store not open), UNKNOWN_SERVER_ERROR (corrupt
 *  persisted state; the SP is not kept), KAFKA_STORAGE_ERROR (the store has
 *  failed, gr_share_state_failed). Also applies the log start offset
 *  (§1.8) to an SP already in memory. */
gr_err_t gr_share_part_get(gr_broker_t *b, const char *group, gr_partition_t *p, gr_share_part_t **out);

/** Effective SP configuration of the part's group (read at use time, §5.2). */
void gr_share_part_conf(gr_share_part_t *part, gr_sp_conf_t *conf, gr_sgc_values_t *vals);
/** The group's share.isolation.level is read_committed (read at each acquisition, so a
 *  change applies to the next one, as in Apache Kafka 4.4.0). */
bool gr_share_part_read_committed(gr_share_part_t *part);

/** Apply one partition's acknowledgements (§3.3-3.5). Returns the wire error
 *  for AcknowledgeErrorCode when it is known at once. With NONE and something
 *  to persist, a write is queued on w and *err_slot gets a storage error if
 *  that write fails. errstr gets a reason on error. */
gr_err_t gr_share_part_ack(gr_share_part_t *part, const gr_sp_ack_req_t *ar, gr_share_ackwait_t *w, int16_t *err_slot,
                           char *errstr, size_t errstr_size);

/** One partition's acknowledgements of a ShareFetch/ShareAcknowledge, checked
 *  in the spec's order (§3.3, gr_share_ack_admit in share/ack_wait.h), then
 *  gr_share_part_ack. is_renew_ack: v2 with
 *  IsRenewAck=true (type 4 allowed). */
gr_err_t gr_share_ack_partition(gr_broker_t *b, const char *group, const char *member, const gr_uuid_t *topic_id,
                                int32_t partition, const gr_sp_ack_batch_t *batches, size_t n, bool is_renew_ack,
                                gr_share_ackwait_t *w, int16_t *err_slot, char *errstr, size_t errstr_size);

/** After an acquisition: re-arm the lock timer. */
void gr_share_part_touched(gr_share_part_t *part);

/** A transition as one unit with its write: gr_share_part_begin, one gr_sp_*
 *  call with &part->delta, then gr_share_part_end with that call's error. If
 *  the call failed, or the transition changed persisted state and its write
 *  was refused (e.g. ENOSPC, store failed), the SP is rolled back to its state
 *  at begin and the error returned. Otherwise the change stands; when a record
 *  was appended (*written) cb(arg, err) runs once it is durable (cb may be NULL). */
void gr_share_part_begin(gr_share_part_t *part);
gr_err_t gr_share_part_end(gr_share_part_t *part, gr_err_t op_err, gr_sstore_cb *cb, void *arg, bool *written);

/** True once the share-state store has failed (a durable write failed): share
 *  data answers KAFKA_STORAGE_ERROR until restart. */
bool gr_share_state_failed(const gr_broker_t *b);

/** Waiters (delayed share fetches, share/sp_waiters.h): fn(arg) runs once per change
 *  while linked; when the SP goes away the waiter is unlinked before fn runs. */
void gr_share_part_wait(gr_share_part_t *part, gr_share_waiter_t *w, void (*fn)(void *arg), void *arg);
/** Whether a delayed share fetch waits on part. */
bool gr_share_part_has_waiters(const gr_share_part_t *part);

/** Release the member's acquired records on every SP of the group (§1.3 rule 3),
 *  each as one transition with its write (a refused write keeps the records
 *  ACQUIRED until their locks expire), and wake waiters. */
void gr_share_parts_release_member(gr_broker_t *b, const char *group, const char *member);

/** Forget SPs (see gr_share_drop_partitions in share_int.h); group NULL = all. */
void gr_share_parts_drop(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition);

/** Write what each SP of the group has pending, then forget them (the last
 *  session of the group on this broker is gone, §2.3). */
void gr_share_parts_evict_group(gr_broker_t *b, const char *group);

/** Number of SPs in memory (tests, metrics). */
size_t gr_share_parts_count(const gr_broker_t *b);
/** fn(arg, part) for every SP in memory (metrics); fn must not add or drop SPs. */
void gr_share_parts_foreach(gr_broker_t *b, void (*fn)(void *arg, gr_share_part_t *part), void *arg);

gr_err_t gr_share_parts_open(gr_broker_t *b);
void gr_share_parts_close(gr_broker_t *b);

#endif
