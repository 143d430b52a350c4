/* Coordinator side of share groups, shared by its own files only: share_coord.c
 * (stores, expiry, persistence, initialization),
 * h_share_group.c, h_groups.c, h_share_offsets.c and h_group_configs.c.
 * The data side talks to it through share_int.h only.
 *
 * Durability rule (spec §7.4): every change of a group, of its configs or of
 * share state is written to the group store / share-state store and the request
 * is answered only once those writes are on disk. A handler does that with a
 * gr_share_wait_t: it builds its response, takes one wait reference per durable
 * write (gr_share_wait_cb as the store callback), then calls gr_share_wait_arm;
 * the response goes out when the last write completed.
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_COORD_H
#define GR_BROKER_SHARE_COORD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/props.h"
#include "broker/broker_int.h"
#include "share/durable_wait.h"

/* ---- answering after durable writes ---- */

typedef struct gr_share_wait gr_share_wait_t;
/** Called once every write completed, just before the response is sent; err is the
 *  first store error (0 if none) so the handler can put it into its response. */
typedef void gr_share_wait_fix_fn(gr_req_t *req, void *resp, gr_err_t err);

/* The counting is share/durable_wait.h's; this binds it to a request and its answer. */
struct gr_share_wait {
    gr_dwait_t dw;
    gr_req_t *req;
    void *resp;
    gr_share_wait_fix_fn *fix;
};

/** A wait for req whose answer is resp (both stay owned by req). fix may be NULL. */
gr_share_wait_t *gr_share_wait_new(gr_req_t *req, void *resp, gr_share_wait_fix_fn *fix);
/** Take one reference for a store write about to be queued with gr_share_wait_cb. */
void gr_share_wait_add(gr_share_wait_t *w);
/** Store callback (gr_gstore_cb / gr_sstore_cb shape). */
void gr_share_wait_cb(void *arg, gr_err_t err);
/** Record a synchronous store error (the write was not queued; no reference taken). */
void gr_share_wait_fail(gr_share_wait_t *w, gr_err_t err);
/** All writes queued: the response goes out now or when the last one completes. */
void gr_share_wait_arm(gr_share_wait_t *w);

/* ---- coordinator services (share_coord.c) ---- */

/** A topic view over the broker's metadata for the pure coordinator. */
gr_sg_topic_view_t gr_share_topic_view(gr_broker_t *b);
/** Persist the group's current record (group state + configs) to the group store; a
 *  group that is neither in the registry nor has configs is deleted from the store.
 *  Takes a wait reference when w is not NULL. */
void gr_share_persist(gr_broker_t *b, const char *group_id, gr_share_wait_t *w);
/** Stored config overrides of a group, NULL if none. Valid until the next change. */
const gr_props_t *gr_share_group_configs(gr_broker_t *b, const char *group_id);
/** Replace a group's overrides (already validated) and persist (group need not exist). */
void gr_share_group_configs_set(gr_broker_t *b, const char *group_id, const gr_props_t *configs, gr_share_wait_t *w);
/** Initialize share state for parts of group_id (start offset -1, state epoch = group
 *  epoch, §4.5) where none exists yet, then mark them initialized. *changed: the
 *  group must be persisted. Writes take wait references on w. */
void gr_share_initialize(gr_broker_t *b, const char *group_id, const gr_sg_assignment_t *parts, gr_share_wait_t *w,
                         bool *changed);
/** Re-arm the member expiry timer at the registry's next deadline. */
void gr_share_rearm_expiry(gr_broker_t *b);
/** Groups that exist only as stored config overrides (IncrementalAlterConfigs on a group
 *  that has no members or state). */
int32_t gr_share_config_only_groups(gr_broker_t *b);
/** group.share.max.groups: true if a heartbeat may create group_id (it exists, or the
 *  broker holds fewer share groups, config-only ones included, than the cap); else fills
 *  errstr with the reason. */
bool gr_share_group_may_create(gr_broker_t *b, const char *group_id, char *errstr, size_t errstr_size);
/** "/1.2.3.4" from a connection peer "1.2.3.4:5678" (Kafka's InetAddress form), in the arena. */
const char *gr_share_client_host(gr_req_t *req);

/** KIP-1226 lag of a share-partition as DescribeShareGroupOffsets reports it
 *  (h_share_offsets.c), also exported as gregor_share_partition_lag: from the
 *  persisted state, *start = SPSO (-1: no state), *leader_epoch (>= 0), *lag =
 *  HWM - SPSO - deliveryCompleteCount, unclamped as in Kafka 4.4.0 (negative after
 *  offsets were altered beyond the high watermark), or GR_SHARE_LAG_UNKNOWN (the
 *  wire's -1). Returns UNKNOWN_TOPIC_OR_PARTITION / KAFKA_STORAGE_ERROR (lag
 *  unknown) when the partition is gone or offline, else NONE. */
#define GR_SHARE_LAG_UNKNOWN INT64_MIN
gr_err_t gr_share_partition_lag(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t partition,
                                int64_t *start, int32_t *leader_epoch, int64_t *lag);

/* ---- GROUP (32) configs for h_configs.c (h_group_configs.c) ---- */

/** DescribeConfigs of one GROUP resource: fills the entries through put(ctx, entry) for
 *  each config whose name wanted(ctx, name) accepts. */
gr_err_t gr_share_describe_group_configs(gr_broker_t *b, const char *group_id,
                                         bool (*wanted)(void *ctx, const char *name),
                                         void (*put)(void *ctx, const gr_sgc_entry_t *e), void *ctx, char *errstr,
                                         size_t errstr_size);
/** Validate the complete proposed override map of a group and, unless validate_only,
 *  store it durably (fsync before returning). INVALID_CONFIG / INVALID_REQUEST /
 *  KAFKA_STORAGE_ERROR with errstr. */
gr_err_t gr_share_alter_group_configs(gr_broker_t *b, const char *group_id, const gr_props_t *proposed,
                                      bool validate_only, char *errstr, size_t errstr_size);

#endif
