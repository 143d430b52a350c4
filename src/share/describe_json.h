/* The JSON documents of gregord's share-group views (docs/capacity.md,
 * docs/share-groups.md "Delayed redelivery"): GET /v1/share-groups/<group>/capacity
 * and /delayed, as `gregor share-groups --describe --state` shows them. The broker
 * gathers each share-partition's numbers (in memory or from the share-state store)
 * and these functions choose what to show and format it:
 *  - JSON strings: group ids are the clients' choice, so invalid UTF-8 becomes U+FFFD
 *    and control characters are escaped; numbers NAN/INFINITY become null;
 *  - capacity: one row per share-partition (gr_cap_out_t), sorted by topic and
 *    partition, then the group's totals (gr_cap_group);
 *  - delayed redelivery: the ranges whose redelivery is in the future, their due time
 *    as milliseconds from now and as a Unix time, at most GR_DELAYED_MAX_RANGES per
 *    share-partition (the count covers all of them).
 * Pure (times are passed in); any thread. */
#ifndef GR_SHARE_DESCRIBE_JSON_H
#define GR_SHARE_DESCRIBE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "share/capacity.h"
#include "share/sp.h"
#include "share/state_store.h"

/** Append s as a JSON string (see above). */
void gr_share_json_str(gr_wbuf_t *out, const char *s);
/** {"error":"<errstr>"} and a newline: the document of a view that failed. */
void gr_share_json_error(gr_wbuf_t *out, const char *errstr);

/* ---- capacity ---- */

/** One share-partition of the capacity view. */
typedef struct gr_cap_row {
    const char *topic;
    int32_t partition;
    bool in_memory; /* false: no window (no share session of the group fetches it here) */
    gr_cap_out_t out;
} gr_cap_row_t;

/** The lag the view shows. lag: the KIP-1226 lag DescribeShareGroupOffsets reports
 *  (have_lag false: unknown); a negative one (offsets altered beyond the high
 *  watermark) is no backlog: 0. Without one, a share-partition in memory whose state
 *  is not written yet gets the same formula on its memory state, log_end - spso - dcc
 *  (in_memory false or log_end < 0: unknown). Returns -1 when unknown. */
int64_t gr_cap_view_lag(bool have_lag, int64_t lag, bool in_memory, int64_t log_end, int64_t spso, int64_t dcc);

/** The capacity document of group (rows are sorted in place). */
void gr_cap_json_doc(gr_wbuf_t *out, const char *group, gr_cap_row_t *rows, size_t n);

/* ---- delayed redelivery ---- */

#define GR_DELAYED_MAX_RANGES 100 /* per share-partition: the document stays small */

/** One share-partition's delayed ranges as they are appended. */
typedef struct gr_delayed_row {
    int64_t n;           /* delayed records */
    int64_t next_due_in; /* ms, INT64_MAX: none */
    int64_t n_ranges;
} gr_delayed_row_t;

/** The document's head: the group and its backoff configs; share-partitions follow. */
void gr_delayed_json_head(gr_wbuf_t *out, const char *group, int64_t backoff_ms, int64_t backoff_max_ms);
/** Open share-partition k (0-based) of topic; then one of the two sources, then end. */
void gr_delayed_json_part_begin(gr_wbuf_t *out, int k, const char *topic, int32_t partition, bool in_memory,
                                gr_delayed_row_t *r);
/** From a share-partition in memory: its exported batches whose not_before_ms (loop
 *  clock now_ms) is set. wall_ms gives the Unix time. */
void gr_delayed_json_from_sp(gr_wbuf_t *out, gr_delayed_row_t *r, const gr_sp_snapshot_t *snap, int64_t now_ms,
                             int64_t wall_ms);
/** From the share-state store: batches whose due_ms (wall clock) is after wall_ms. */
void gr_delayed_json_from_store(gr_wbuf_t *out, gr_delayed_row_t *r, const gr_sstore_state_t *st, int64_t wall_ms);
void gr_delayed_json_part_end(gr_wbuf_t *out, const gr_delayed_row_t *r);
/** The document's tail: the group's total of delayed records. */
void gr_delayed_json_tail(gr_wbuf_t *out, int64_t total);

#endif
