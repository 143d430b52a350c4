/* Producer state of a partition across restarts: the snapshot file in the partition
 * directory plus a scan of the log after it (docs/storage.md, "Producer state and
 * transactions").
 * @locality loop thread (and start-up). */
#ifndef GR_BROKER_PRODUCERS_LOAD_H
#define GR_BROKER_PRODUCERS_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/producers.h"
#include "proto/records.h"
#include "storage/plog.h"

#define GR_PRODUCERS_SNAPSHOT_FILE "gregor-producers.snapshot"

/** How a state was loaded (logs, tests). */
typedef struct gr_producers_load_info {
    bool had_snapshot;    /* a valid snapshot was used */
    bool full_scan;       /* the whole log was read (snapshot corrupt or ahead of the log) */
    int64_t scanned_from; /* first offset read from the log */
} gr_producers_load_info_t;

/** Load the state of the log in dir: a valid snapshot, then every batch after it.
 *  No snapshot file at all means a log written before transactions existed here:
 *  only its last MiB is read (idempotent producers' retries). A corrupt snapshot, or
 *  one ahead of the log (the tail lost to a power failure), means reading the whole
 *  log. Never fails: what cannot be read is left out (and logged). At most max producers
 *  are kept (gr_producers_set_max): the most recent ones, plus all with an ongoing
 *  transaction. */
gr_producer_state_t *gr_producers_load(gr_plog_t *plog, const char *dir, size_t max, gr_producers_load_info_t *info);

/** Apply one batch read back from the log (data batches and transaction markers). */
void gr_producers_apply(gr_producer_state_t *ps, const gr_batch_view_t *bv);

/** Write the snapshot of ps, valid up to the log end offset, to dir (temp file and
 *  rename; fsynced when durable). Aborted transactions before the log start are pruned
 *  first. Returns 0 or GR_ERR__IO (logged). */
gr_err_t gr_producers_save(gr_producer_state_t *ps, gr_plog_t *plog, const char *dir, bool durable);

#endif
