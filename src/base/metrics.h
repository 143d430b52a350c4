/* Metrics primitives: a fixed-bucket latency histogram and a writer for the
 * Prometheus text exposition format 0.0.4 (docs/metrics.md).
 *
 * Modules keep their own counters (plain uint64_t fields, updated on the loop
 * thread) and histograms; at scrape time each module's collect function writes
 * them through a gr_prom_t. Nothing here allocates per observation.
 *
 * @locality gr_hist_observe: the owning thread only. gr_hist_observe_atomic: any
 * thread (relaxed atomics; a scrape may see a count one ahead of its bucket). */
#ifndef GR_BASE_METRICS_H
#define GR_BASE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/** Wrap every metrics update on a hot path: a build with -DGR_METRICS=OFF
 *  (CMake) compiles them out, so that `make bench` can measure their cost. */
#ifdef GR_NO_METRICS
#define GR_METRIC(stmt) ((void)0)
#else
#define GR_METRIC(stmt) \
    do {                \
        stmt;           \
    } while (0)
#endif

/* ---------------------------------------------------------------- histogram */

/** Upper bounds (seconds) shared by every time histogram: 100 µs .. 1000 s in ten
 *  steps per decade (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8), then +Inf. The fine steps
 *  keep in-process quantiles (the capacity view's W p50/p99) within ~25 %; /metrics
 *  exports the 1-2.5-5 subset (gr_hist_exported) to keep series few. One layout
 *  keeps series comparable and windows subtractable. */
#define GR_HIST_BOUNDS 71
extern const double gr_hist_bounds_s[GR_HIST_BOUNDS];
/** True for the bounds written to /metrics as `le` buckets. */
bool gr_hist_exported(size_t bound_index);

typedef struct gr_hist {
    uint64_t bucket[GR_HIST_BOUNDS + 1]; /* non-cumulative; last = above the largest bound */
    uint64_t count;
    uint64_t sum_us; /* microseconds, so that the atomic variant stays integer */
} gr_hist_t;

/** Record one duration in microseconds (negative values count as 0). */
void gr_hist_observe(gr_hist_t *h, int64_t us);
/** Record n observations of the same duration. */
void gr_hist_observe_n(gr_hist_t *h, int64_t us, uint64_t n);
void gr_hist_observe_atomic(gr_hist_t *h, int64_t us);
/** A consistent-enough copy of a histogram updated with gr_hist_observe_atomic. */
void gr_hist_load(const gr_hist_t *h, gr_hist_t *out);
/** out = a − b (the observations between snapshot b and a later a). */
void gr_hist_sub(gr_hist_t *out, const gr_hist_t *a, const gr_hist_t *b);
/** Estimate the q-quantile (0..1) in seconds by linear interpolation inside the
 *  bucket, as Prometheus' histogram_quantile does. Returns -1 when empty; the
 *  largest finite bound when the quantile lies in the +Inf bucket. */
double gr_hist_quantile(const gr_hist_t *h, double q);

/* ---------------------------------------------------------------- labels */

/** A label set being built: `k1="v1",k2="v2"` with values escaped
 *  (backslash, double quote, newline). Values longer than the buffer are cut at
 *  a UTF-8 boundary; `truncated` then says so. */
typedef struct gr_prom_labels {
    char s[768];
    size_t n;
    bool truncated;
} gr_prom_labels_t;

void gr_prom_labels_init(gr_prom_labels_t *l);
void gr_prom_label(gr_prom_labels_t *l, const char *key, const char *value);
void gr_prom_label_i64(gr_prom_labels_t *l, const char *key, int64_t value);

/* ---------------------------------------------------------------- writer */

typedef enum { GR_PROM_COUNTER, GR_PROM_GAUGE, GR_PROM_HISTOGRAM } gr_prom_type_t;

typedef struct gr_prom {
    gr_wbuf_t *out;
} gr_prom_t;

void gr_prom_init(gr_prom_t *p, gr_wbuf_t *out);
/** `# HELP name help` and `# TYPE name type`; once per family, before its samples.
 *  help must not contain a newline (backslashes are escaped). */
void gr_prom_family(gr_prom_t *p, const char *name, gr_prom_type_t type, const char *help);
/** One sample line `name{labels} value`. labels may be NULL or empty. */
void gr_prom_u64(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, uint64_t v);
void gr_prom_i64(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, int64_t v);
void gr_prom_f64(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, double v);
/** The samples of a histogram family `name`: name_bucket{...,le="..."} (cumulative,
 *  the exported bounds and +Inf), name_sum (seconds) and name_count. */
void gr_prom_hist(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, const gr_hist_t *h);

#endif
