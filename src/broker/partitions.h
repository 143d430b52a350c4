/* The partitions this broker hosts: one partition log per (topic, partition),
 * opened from the metadata at start-up, created and deleted with topics.
 * Also keeps what the broker tracks per partition in memory: idempotent
 * producer state and the long-poll fetches waiting for new data.
 * @locality loop thread. */
#ifndef GR_BROKER_PARTITIONS_H
#define GR_BROKER_PARTITIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "meta/meta.h"
#include "proto/codec.h"
#include "storage/plog.h"

typedef struct gr_parts gr_parts_t;
typedef struct gr_producer_state gr_producer_state_t;

/** Called when a partition's log end offset moves (new data). */
typedef void (*gr_partition_wake_fn)(void *arg);

typedef struct gr_partition_waiter {
    struct gr_partition_waiter *prev, *next;
    gr_partition_wake_fn fn;
    void *arg;
    bool linked;
} gr_partition_waiter_t;

typedef struct gr_partition {
    char *topic;
    gr_uuid_t topic_id;
    int32_t index;
    gr_plog_t *plog;
    int32_t leader_epoch;
    char *dir;                      /* the partition's directory */
    gr_producer_state_t *producers; /* idempotence and transactions, see producers.c */
    int32_t markers_pending;        /* transaction markers appended, not yet durable (txn_markers.c) */
    uint64_t snap_bytes;            /* bytes appended since the producer-state snapshot */
    uint64_t snap_every;            /* ... and how many make the next one due */
    bool snap_exists;               /* the directory has a producer-state snapshot (kept up to date) */
    bool snap_durable;              /* a snapshot was written and fsynced by this process */
    gr_partition_waiter_t waiters;  /* list head */
    bool offline;                   /* storage error: refuse reads and writes */
    bool policy_flush_pending;      /* a flush-policy fsync is queued (broker.c) */
    int32_t pins;                   /* outstanding flusher requests and the like */
    bool deleted;                   /* topic deleted: freed by gr_parts_reap_some once unpinned */
    /* Metrics (docs/metrics.md): record-batch bytes and records appended by Produce and sent
     * by Fetch / ShareFetch. Here, so that a deleted topic takes its series with it. */
    uint64_t bytes_in, records_in, bytes_out, records_out;
} gr_partition_t;

/** Called between two partition logs opened by gr_parts_open or closed by
 *  gr_parts_close (start-up and shutdown can take seconds), so that the admin
 *  endpoint keeps answering. It must not touch the partitions. */
typedef void (*gr_parts_progress_cb)(void *arg);

/** Open every partition log of every topic in meta under log_dir. progress may be NULL. */
gr_err_t gr_parts_open(gr_parts_t **out, gr_meta_t *meta, const char *log_dir, int64_t now_ms,
                       gr_parts_progress_cb progress, void *progress_arg, char *errstr, size_t errstr_size);
/** Close every log cleanly (flush) and free. progress may be NULL. */
void gr_parts_close(gr_parts_t *ps, gr_parts_progress_cb progress, void *progress_arg);

/** Lookups; NULL if absent. */
gr_partition_t *gr_parts_find(gr_parts_t *ps, const char *topic, int32_t index);
gr_partition_t *gr_parts_find_id(gr_parts_t *ps, const gr_uuid_t *topic_id, int32_t index);
/** Number of partitions and partition i of all hosted (for housekeeping). */
size_t gr_parts_count(const gr_parts_t *ps);
gr_partition_t *gr_parts_at(gr_parts_t *ps, size_t i);

/** Open logs for partitions [from, topic->partitions) of a topic just created or grown. */
gr_err_t gr_parts_add_topic(gr_parts_t *ps, const gr_meta_topic_t *topic, int64_t now_ms, char *errstr,
                            size_t errstr_size);
/** The same, opening at most max_new logs; *done says whether every partition is open. */
gr_err_t gr_parts_add_topic_some(gr_parts_t *ps, const gr_meta_topic_t *topic, int64_t now_ms, int32_t max_new,
                                 bool *done, char *errstr, size_t errstr_size);
/** Delete a topic's partitions (before the meta entry is deleted): write its tombstone
 *  (<log dir>/.gregor-deleting-<id>, see part_tomb.h), drop it from the lookups and wake
 *  its waiters now; the logs are closed later by gr_parts_reap_some and their
 *  directories removed by a reaper thread (dir_reaper.h). @returns 0 or GR_ERR_KAFKA_STORAGE_ERROR (tombstone not written:
 *  nothing changed). */
gr_err_t gr_parts_delete_topic(gr_parts_t *ps, const gr_uuid_t *topic_id, char *errstr, size_t errstr_size);
/** Take back the directories the reaper thread removed (a topic's tombstone goes with its
 *  last one), then close up to max logs of deleted topics (FIFO; pinned ones are skipped)
 *  and hand their directories to the thread. @returns how many were handed over. */
size_t gr_parts_reap_some(gr_parts_t *ps, size_t max);
/** Directories of deleted topics not removed yet (waiting, or in the thread). */
size_t gr_parts_deleting(const gr_parts_t *ps);
/** True while a deleted topic of this name has directories left: gr_parts_add_topic_some
 *  with a bounded max_new opens nothing for a topic of that name until they are gone. */
bool gr_parts_name_deleting(const gr_parts_t *ps, const char *name);
/** Re-read the topic's effective configs into its logs (after a config change). */
void gr_parts_reconfigure(gr_parts_t *ps, const gr_meta_topic_t *topic);
/** Re-read every topic's configs (after a broker config change). */
void gr_parts_reconfigure_all(gr_parts_t *ps);

/** Keep a partition (and its log) alive across an asynchronous operation, such
 *  as a flusher request: a topic deleted meanwhile is freed at the last unpin. */
void gr_partition_pin(gr_partition_t *p);
void gr_partition_unpin(gr_partition_t *p);

/** The last stable offset: the first offset of the earliest ongoing transaction,
 *  else the high watermark (the log end offset of this single replica). */
int64_t gr_partition_lso(const gr_partition_t *p);
/** Before a transactional batch or marker: unless this process already did, write the
 *  producer-state snapshot and fsync it (a log without a snapshot is read back from its
 *  tail only, see docs/storage.md). GR_ERR_KAFKA_STORAGE_ERROR if that fails. */
gr_err_t gr_partition_txn_ready(gr_partition_t *p);
/** After an append of bytes (Produce, markers): if the partition has a producer-state
 *  snapshot (it had transactions), write it again once enough was appended since the
 *  last one (not while markers are pending). */
void gr_partition_appended(gr_partition_t *p, size_t bytes);

/** Waiters: fn(arg) is called once per gr_partition_notify while linked. */
void gr_partition_wait(gr_partition_t *p, gr_partition_waiter_t *w, gr_partition_wake_fn fn, void *arg);
void gr_partition_unwait(gr_partition_waiter_t *w);
void gr_partition_notify(gr_partition_t *p);

#endif
