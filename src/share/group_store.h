/* Group store: durable share-group metadata (Kafka keeps it in __consumer_offsets
 * as ShareGroupMetadata / member / target-assignment / StatePartitionMetadata
 * records; spec §7.1, §7.4).
 *
 * Data only, no membership logic: the coordinator hands over the whole group
 * after each change and gets it back at start-up. Each put appends one record
 * (key = group id, value = the full group, our own encoding; null = deleted) to a
 * small internal partition log in GR_GSTORE_DIR_NAME under log.dir. Start-up
 * replays it (last record per group wins); when the log outgrows twice the live
 * groups it is compacted the same crash-safe way as the share-state store
 * (docs/share-state.md).
 *
 * The structs mirror gr_sg_group_t (share/group.h) field for field so the
 * coordinator can convert without thinking; they are separate so this module
 * depends on nothing but storage.
 *
 * Threads: loop thread only; callbacks run from gr_flusher_run_completions. */
#ifndef GR_SHARE_GROUP_STORE_H
#define GR_SHARE_GROUP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/uuid.h"
#include "storage/flusher.h"

/** Log directory under log.dir; the topic name __share_group_metadata is reserved. */
#define GR_GSTORE_DIR_NAME "__share_group_metadata-0"

/** Group types (only share groups live here today). */
enum { GR_GSTORE_TYPE_SHARE = 1 };

/** Partitions of one topic. */
typedef struct gr_gstore_tp {
    gr_uuid_t topic_id;
    int32_t *partitions;
    int32_t n_partitions;
} gr_gstore_tp_t;

/** A set of topic-partitions. */
typedef struct gr_gstore_tps {
    gr_gstore_tp_t *topics;
    int32_t n_topics;
} gr_gstore_tps_t;

typedef struct gr_gstore_member {
    char *member_id;
    int32_t member_epoch;
    int32_t previous_epoch;
    char *client_id;
    char *client_host;
    char *rack_id;     /* NULL: none */
    char **subscribed; /* subscribed topic names */
    int32_t n_subscribed;
    gr_gstore_tps_t assignment; /* current assignment */
    gr_gstore_tps_t target;     /* target assignment at the group's assignment epoch */
} gr_gstore_member_t;

/** A subscribed topic as the group last saw it. */
typedef struct gr_gstore_topic {
    char *name;
    gr_uuid_t topic_id;
    int32_t n_partitions;
} gr_gstore_topic_t;

/** A group config override (share.* group configs), name and value strings. */
typedef struct gr_gstore_config {
    char *name;
    char *value;
} gr_gstore_config_t;

/** The whole durable state of one group. Strings are NUL-terminated. */
typedef struct gr_gstore_group {
    char *group_id;
    int8_t type; /* GR_GSTORE_TYPE_SHARE */
    int32_t group_epoch;
    int32_t assignment_epoch;
    gr_gstore_member_t *members;
    int32_t n_members;
    gr_gstore_topic_t *topics;
    int32_t n_topics;
    gr_gstore_tps_t initialized;  /* share-partitions whose state is initialized (§4.5) */
    gr_gstore_tps_t initializing; /* being initialized */
    gr_gstore_tps_t deleting;     /* topics whose state is being deleted (partitions may be empty) */
    gr_gstore_config_t *configs;
    int32_t n_configs;
} gr_gstore_group_t;

typedef struct gr_gstore gr_gstore_t;

typedef struct gr_gstore_options {
    gr_flusher_t *flusher;     /* NULL only if every callback passed is NULL */
    int64_t segment_bytes;     /* 4 MiB */
    int64_t compact_min_bytes; /* compact when the log exceeds 2 x live + this (1 MiB) */
    int64_t now_ms;
} gr_gstore_options_t;

void gr_gstore_options_default(gr_gstore_options_t *opts);

/** Durable completion: err 0 = on disk, else GR_ERR_KAFKA_STORAGE_ERROR. Loop thread. */
typedef void gr_gstore_cb(void *arg, gr_err_t err);

/** Open (create if missing) the store in dir and load every group.
 *  @returns 0, GR_ERR_KAFKA_STORAGE_ERROR or GR_ERR_CORRUPT_MESSAGE with errstr. */
gr_err_t gr_gstore_open(const char *dir, const gr_gstore_options_t *opts, gr_gstore_t **out, char *errstr,
                        size_t errstr_size);
/** Clean close (fsync). Every callback must have run (destroy or drain the flusher first). */
void gr_gstore_close(gr_gstore_t *gs);
/** Close as a crash would (tests). */
void gr_gstore_abandon(gr_gstore_t *gs);

/** Store the whole group (replacing any previous version). The group is copied
 *  (encoded); the caller keeps ownership. GR_ERR_INVALID_REQUEST for an empty id or
 *  NULL strings where they are required; GR_ERR_KAFKA_STORAGE_ERROR if the append
 *  failed. On 0, cb(arg, err) runs once the record is durable (if cb is not NULL). */
gr_err_t gr_gstore_put(gr_gstore_t *gs, const gr_gstore_group_t *group, gr_gstore_cb *cb, void *arg);

/** Delete a group (no-op record if absent). Callback as put. */
gr_err_t gr_gstore_delete(gr_gstore_t *gs, const char *group_id, gr_gstore_cb *cb, void *arg);

/** Decode the stored group into arena (everything in *out lives there).
 *  @returns 0 or GR_ERR__NOENT. */
gr_err_t gr_gstore_get(gr_gstore_t *gs, const char *group_id, gr_arena_t *arena, gr_gstore_group_t *out);

/** Visit every group (start-up load). Each group lives in a scratch arena that is
 *  freed after the visit: copy what you keep. Returns the number visited. */
typedef void gr_gstore_visit_fn(void *arg, const gr_gstore_group_t *group);
size_t gr_gstore_foreach(gr_gstore_t *gs, gr_gstore_visit_fn *fn, void *arg);

/** Number of stored groups. */
size_t gr_gstore_count(const gr_gstore_t *gs);

/** Rewrite every group and prune the log once that is durable (normally automatic). */
gr_err_t gr_gstore_compact(gr_gstore_t *gs);
/** Apply a pending prune whose records are durable. Returns the log start offset. */
int64_t gr_gstore_maintain(gr_gstore_t *gs);
/** fsync the log now. */
gr_err_t gr_gstore_sync(gr_gstore_t *gs);

typedef struct gr_gstore_stats {
    size_t n_groups;
    uint64_t n_replayed, n_compactions;
    int64_t log_start_offset, log_end_offset, log_bytes, live_bytes;
} gr_gstore_stats_t;
void gr_gstore_stats(const gr_gstore_t *gs, gr_gstore_stats_t *st);

/** The codec, exposed for fuzzing: encode a group; decode into arena.
 *  @returns 0, GR_ERR__MALFORMED or GR_ERR__INCOMPLETE with *why. */
void gr_gstore_group_encode(const gr_gstore_group_t *group, gr_wbuf_t *wb);
gr_err_t gr_gstore_group_decode(const void *p, size_t len, gr_arena_t *arena, gr_gstore_group_t *out, const char **why);

#endif
