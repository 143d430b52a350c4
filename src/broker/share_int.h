/* Share groups inside the broker: the glue between the pure modules
 * (share/group.h, share/sp.h), the durable stores (share/state_store.h,
 * share/group_store.h) and the handlers.
 *
 * Two halves, one owner each:
 *  - coordinator side (share_coord.c and the group handlers): group registry,
 *    group store, share-state store, member expiry, group configs, admin APIs;
 *  - data side (share_parts.c, share_sessions.c, h_share_fetch.c,
 *    h_share_ack.c): in-memory share-partitions, share sessions, ShareFetch
 *    and ShareAcknowledge, lock timers, delayed share fetches.
 * They talk only through the functions declared here.
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_INT_H
#define GR_BROKER_SHARE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/loop.h"
#include "proto/codec.h"
#include "share/group.h"
#include "share/group_config_store.h"
#include "share/group_store.h"
#include "share/sp_registry.h"
#include "share/state_store.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_share_sessions gr_share_sessions_t; /* data side */

typedef struct gr_share_ctx {
    /* coordinator side */
    gr_share_group_registry_t *groups;
    gr_gstore_t *gstore;
    gr_sstore_t *sstore;
    gr_timer_t expiry_timer;
    gr_sgc_store_t *gconfs;   /* group config overrides, resolved (share_coord.c) */
    struct gr_share_dlq *dlq; /* per-group DLQ counters (share_dlq.c) */
    bool dlq_torn;            /* a DLQ batch's fsync or its share-state write failed: offline */
    struct gr_share_wq *wq;   /* share-state writes waiting for a DLQ fsync (share_wq.c) */
    /* data side */
    gr_sp_registry_t *parts;
    gr_share_sessions_t *sessions;
} gr_share_ctx_t;

/* ---- coordinator side (share_coord.c) ---- */

/** Open the stores, load the groups, start member expiry, then call
 *  gr_share_data_open. Called from gr_broker_new after the partitions. */
gr_err_t gr_share_open(gr_broker_t *b, char *errstr, size_t errstr_size);
/** Reverse of gr_share_open (calls gr_share_data_close first). */
void gr_share_close(gr_broker_t *b);
/** Effective share.* configs of a group (group overrides clamped into the broker
 *  bounds, else broker defaults), read at use time. */
void gr_share_group_values(gr_broker_t *b, const char *group_id, gr_sgc_values_t *out);
/** A topic was deleted: forget it in every group and delete its share state. */
void gr_share_on_topic_deleted(gr_broker_t *b, const gr_uuid_t *topic_id);
/** True if group_id names a group of another type (classic/consumer). Today: never. */
bool gr_share_id_used_by_other_type(gr_broker_t *b, const char *group_id);

/* ---- data side (share_parts.c / share_sessions.c) ---- */

gr_err_t gr_share_data_open(gr_broker_t *b, char *errstr, size_t errstr_size);
void gr_share_data_close(gr_broker_t *b);
/** Release every record a member holds in any share-partition of the group
 *  (member left or expired; spec §1.3 rule 3), persisting as §7.2 says. */
void gr_share_release_member(gr_broker_t *b, const char *group_id, const char *member_id);
/** Forget in-memory share-partitions so they reload from the state store on
 *  next use (offsets altered/deleted, group deleted, topic deleted).
 *  topic_id NULL = every topic; partition -1 = every partition. */
void gr_share_drop_partitions(gr_broker_t *b, const char *group_id, const gr_uuid_t *topic_id, int32_t partition);
/* New data: delayed share fetches wait on the partition's waiter list
 * (gr_partition_wait in partitions.h), which Produce notifies. */

#endif
