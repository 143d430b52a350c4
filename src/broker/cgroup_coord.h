/* Consumer groups inside the broker: the glue between the pure coordinator
 * (cgroup/cgroup.h), its store (share/cgroup_store.h) and the handlers
 * (h_cgroup.c: JoinGroup/SyncGroup/Heartbeat/LeaveGroup; h_offsets.c:
 * OffsetCommit/OffsetFetch/OffsetDelete; h_groups.c: List/Describe/DeleteGroups).
 *
 * JoinGroup and SyncGroup requests are parked before the coordinator is called;
 * every answer it produces (gr_cg_out_t) is sent by gr_cgroup_run_out, which also
 * persists changed group records and deletes removed ones.
 * @locality loop thread. */
#ifndef GR_BROKER_CGROUP_COORD_H
#define GR_BROKER_CGROUP_COORD_H

#include "broker/broker_int.h"
#include "cgroup/cgroup.h"
#include "cgroup/consumer.h"
#include "share/cgroup_store.h"

struct gr_cgroup_ctx {
    gr_cg_registry_t *reg;
    gr_cstore_t *store;
    gr_timer_t timer;
    int32_t metadata_max_bytes;
    uint64_t offset_commits; /* offsets committed (durable), for /metrics */
    gr_cgc_cfg_t cgc;        /* group.consumer.* (the assignor names point into cgc_names) */
    char cgc_names[256];
};

gr_err_t gr_cgroup_open(gr_broker_t *b, char *errstr, size_t errstr_size);
/** After the flusher is gone (every store callback has run). */
void gr_cgroup_close(gr_broker_t *b);

/** The consumer-protocol settings of a group (broker configs). */
void gr_cgroup_consumer_cfg(gr_broker_t *b, const char *group_id, gr_cgc_cfg_t *out);
/** The broker's topics for the consumer-protocol coordinator. */
gr_cgc_topics_t gr_cgroup_topics(gr_broker_t *b);

/** Send the answers in out, persist what it says changed, re-arm the timer, free out. */
void gr_cgroup_run_out(gr_broker_t *b, gr_cg_out_t *out);

/** Persist what out says changed and answer req with resp once that is durable (fix
 *  adjusts resp if the write failed); frees out. */
typedef void gr_share_wait_fix_fn_t(gr_req_t *req, void *resp, gr_err_t err);
void gr_cgroup_respond_after_persist(gr_broker_t *b, gr_req_t *req, void *resp, gr_share_wait_fix_fn_t *fix,
                                     gr_cg_out_t *out);

/** Answer a parked JoinGroup / SyncGroup (h_cgroup.c). */
void gr_cgroup_answer_join(gr_req_t *req, const gr_cg_answer_t *a);
void gr_cgroup_answer_sync(gr_req_t *req, const gr_cg_answer_t *a);

/** Store keys and values of committed offsets (cgroup_coord.c). */
void gr_cgroup_offset_record(gr_broker_t *b, const char *group_id, const char *topic, int32_t partition,
                             const gr_cg_offset_t *o);
/** Store record of a pending transactional offset (o NULL: delete it). */
void gr_cgroup_txn_offset_record(gr_broker_t *b, const char *group_id, int64_t pid, const char *topic,
                                 int32_t partition, const gr_cg_offset_t *o);
/** The transaction of producer pid ended (its marker on the offsets partitions):
 *  commit or drop its pending offsets durably; cb(arg, err) once durable (may run
 *  inside). Returns an error if the write was refused (cb not called then). */
gr_err_t gr_cgroup_txn_complete(gr_broker_t *b, int64_t pid, bool commit, gr_flusher_cb *cb, void *arg);
/** A topic was deleted: remove its committed offsets from every group. */
void gr_cgroup_on_topic_deleted(gr_broker_t *b, const char *topic);
/** Delete a consumer group with its offsets (DeleteGroups), durable through cb. */
gr_err_t gr_cgroup_delete_group(gr_broker_t *b, const char *group_id, gr_flusher_cb *cb, void *arg);

#endif
