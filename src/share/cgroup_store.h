/* Consumer-group store: the durable committed offsets and group records of
 * consumer groups (Kafka keeps them in __consumer_offsets as OffsetCommit and
 * GroupMetadata records). A key -> value map over the same internal partition log
 * as the share stores (share/store_log.h): each change appends records in one
 * batch, start-up replays the log (the last record of a key wins, a null value
 * deletes), and when the log outgrows twice the live records it is compacted with
 * the crash-safe prune of store_log. What the keys and values mean is the caller's
 * (the broker's cgroup_coord.c).
 *
 * It lives beside the share stores (it is their store log with another meaning) so that
 * src/cgroup stays pure and depends on nothing but base.
 * Threads: loop thread only; callbacks run from gr_flusher_run_completions. */
#ifndef GR_SHARE_CGROUP_STORE_H
#define GR_SHARE_CGROUP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "storage/flusher.h"

/** Log directory under log.dir: Kafka's offsets topic, partition 0 (the name is reserved). */
#define GR_CSTORE_DIR_NAME "__consumer_offsets-0"

typedef struct gr_cstore gr_cstore_t;

typedef struct gr_cstore_options {
    gr_flusher_t *flusher;     /* NULL only if every callback passed is NULL */
    int64_t segment_bytes;     /* 8 MiB */
    int64_t compact_min_bytes; /* compact when the log exceeds 2 x live + this (1 MiB) */
    int64_t now_ms;
} gr_cstore_options_t;

void gr_cstore_options_default(gr_cstore_options_t *o);

/** Open (create if missing) and replay. 0, GR_ERR_KAFKA_STORAGE_ERROR or GR_ERR_CORRUPT_MESSAGE. */
gr_err_t gr_cstore_open(const char *dir, const gr_cstore_options_t *opts, gr_cstore_t **out, char *errstr,
                        size_t errstr_size);
void gr_cstore_close(gr_cstore_t *cs);
/** Close as a crash would (tests). */
void gr_cstore_abandon(gr_cstore_t *cs);

/** Add a record to the batch being built (value NULL: delete the key). */
void gr_cstore_add(gr_cstore_t *cs, const void *key, size_t key_len, const void *value, size_t value_len);
/** Append the batch (written or lost whole) and apply it; cb(arg, err) once it is
 *  durable (cb may be NULL). On error nothing was applied and cb is not called. */
gr_err_t gr_cstore_commit(gr_cstore_t *cs, gr_flusher_cb *cb, void *arg);

/** Visit every live record (start-up load), in no particular order. */
typedef void gr_cstore_visit_fn(void *arg, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len);
size_t gr_cstore_foreach(gr_cstore_t *cs, gr_cstore_visit_fn *fn, void *arg);
size_t gr_cstore_count(const gr_cstore_t *cs);

#endif
