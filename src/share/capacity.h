/* The Little's-law capacity view of a share group (docs/capacity.md).
 *
 * A share-partition serves at most L = min(record locks, records the consumers
 * hold) records at a time, each for W seconds on average, so its throughput is
 * L / W and its ceiling cap / W (Little's law). From two snapshots of the
 * share-partition's counters (gr_share_stats_t plus the log end offset) this
 * module computes W over a window, the rates, the ceiling, the headroom, the
 * estimated time to drain the lag and a verdict in the users' terms.
 *
 * Pure: no clock, no I/O. The broker keeps a gr_cap_ring_t per share-partition
 * and rotates it every GR_CAP_WINDOW_MS (the broker's share_capacity.c). */
#ifndef GR_SHARE_CAPACITY_H
#define GR_SHARE_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#include "base/metrics.h"
#include "share/share_stats.h"

/** Snapshot period: the window is from the older snapshot to now, 30..60 s. */
#define GR_CAP_WINDOW_MS 30000

/** Verdict thresholds (documented in docs/capacity.md). */
#define GR_CAP_MIN_WINDOW_MS  5000 /* a younger window gives no rate to call a backlog drained by */
#define GR_CAP_AT_CAP         0.9  /* average in flight >= 90 % of the cap: the ceiling binds */
#define GR_CAP_TREND_MIN_MS   5000 /* each half of the window at least this long ... */
#define GR_CAP_TREND_MIN_ACKS 20   /* ... with at least this many acknowledgements */
#define GR_CAP_W_GROWTH       1.5  /* W of the recent half >= 1.5 x W of the older half ... */
#define GR_CAP_RATE_GROWTH    1.1  /* ... while the ack rate grew by less than 10 % */

/** The counters the view needs, at one instant (~240 bytes). */
typedef struct gr_cap_snap {
    int64_t t_ms;       /* loop clock */
    int64_t log_end;    /* partition log end offset (-1 unknown) */
    uint64_t acquired;  /* records acquired */
    uint64_t acked;     /* ACCEPT + REJECT + RELEASE records (the W observations) */
    uint64_t completed; /* ACCEPT + REJECT records (they leave the lag) */
    gr_hist_t w;        /* W histogram */
} gr_cap_snap_t;

void gr_cap_snap_take(gr_cap_snap_t *s, const gr_share_stats_t *st, int64_t log_end, int64_t now_ms);

/** Two snapshots at window boundaries: snap[0] older, snap[1] newer. */
typedef struct gr_cap_ring {
    gr_cap_snap_t snap[2];
} gr_cap_ring_t;

/** Both snapshots = s (a share-partition just loaded). */
void gr_cap_ring_init(gr_cap_ring_t *r, const gr_cap_snap_t *s);
/** A window boundary: the newer snapshot becomes the older, s the newer. */
void gr_cap_ring_rotate(gr_cap_ring_t *r, const gr_cap_snap_t *s);

typedef enum {
    GR_CAP_IDLE,           /* "idle" */
    GR_CAP_KEEPING_UP,     /* "keeping up" */
    GR_CAP_RAISE_LOCKS,    /* "raise record locks or partitions" */
    GR_CAP_MORE_CONSUMERS, /* "more consumers help" */
    GR_CAP_CONSUMERS_LIMIT /* "the consumers or the destination are the limit" */
} gr_cap_verdict_t;

const char *gr_cap_verdict_str(gr_cap_verdict_t v);

/** One share-partition. ring NULL: not in memory on this broker (no window);
 *  now must then be NULL too. */
typedef struct gr_cap_in {
    const gr_cap_ring_t *ring;
    const gr_cap_snap_t *now;
    int64_t cap;       /* effective share.partition.max.record.locks */
    int64_t in_flight; /* records ACQUIRED now */
    int64_t lag;       /* KIP-1226 lag, -1 unknown */
} gr_cap_in_t;

/** Results; NAN = unknown, etd_s INFINITY = never (not draining). */
typedef struct gr_cap_out {
    double window_s; /* 0: no window */
    int64_t cap, in_flight, lag;
    uint64_t acked;       /* acknowledgements (ACCEPT+REJECT+RELEASE) in the window */
    double in_flight_avg; /* L = sum of W / window (Little); NAN without acks */
    double w_p50_s, w_p99_s, w_mean_s;
    double ack_rate;     /* ACCEPT+REJECT+RELEASE records/s */
    double drain_rate;   /* ACCEPT+REJECT records/s */
    double produce_rate; /* log end offset delta/s */
    double ceiling;      /* cap / W mean, records/s */
    double headroom;     /* ceiling / ack rate */
    double etd_s;        /* lag / (drain rate - produce rate) */
    gr_cap_verdict_t verdict;
    gr_hist_t w; /* W observations of the window */
} gr_cap_out_t;

void gr_cap_compute(const gr_cap_in_t *in, gr_cap_out_t *out);

/** The group from its share-partitions' results: sums of caps, in flight, lag
 *  and rates; W quantiles of the summed window histograms; the ceiling sums
 *  cap / W per share-partition, with the group's W mean for a share-partition
 *  that has none; the verdict is the first of CONSUMERS_LIMIT, MORE_CONSUMERS,
 *  RAISE_LOCKS, KEEPING_UP that some share-partition has, else IDLE. */
void gr_cap_group(const gr_cap_out_t *sps, size_t n, gr_cap_out_t *out);

#endif
