/* Counters of one share-partition, exported as gregor_share_* metrics and read
 * by the capacity view (docs/metrics.md). They live as long as the in-memory
 * share-partition; a reload (offsets altered, group or topic deleted) starts
 * them again at zero, which Prometheus treats as a counter reset.
 * @locality loop thread. */
#ifndef GR_SHARE_SHARE_STATS_H
#define GR_SHARE_SHARE_STATS_H

#include <stdint.h>

#include "base/metrics.h"

typedef enum {
    GR_SHARE_ACK_ACCEPT,
    GR_SHARE_ACK_RELEASE,
    GR_SHARE_ACK_REJECT,
    GR_SHARE_ACK_RENEW,
    GR_SHARE_ACK_GAP,
    GR_SHARE_ACK_TYPES
} gr_share_ack_type_t;

typedef enum {
    GR_SHARE_ARCHIVE_REJECT,
    GR_SHARE_ARCHIVE_DELIVERY_LIMIT,
    GR_SHARE_ARCHIVE_LOG_START,
    GR_SHARE_ARCHIVE_REASONS
} gr_share_archive_reason_t;

typedef struct gr_share_stats {
    uint64_t acquired;                 /* records acquired (every delivery) */
    uint64_t redeliveries;             /* acquisitions with delivery count >= 2 */
    uint64_t acks[GR_SHARE_ACK_TYPES]; /* records acknowledged, by type */
    uint64_t lock_timeouts;            /* records whose acquisition lock expired */
    uint64_t archived[GR_SHARE_ARCHIVE_REASONS];
    gr_hist_t in_flight; /* W: acquisition -> ACCEPT/REJECT/RELEASE */
} gr_share_stats_t;

#endif
