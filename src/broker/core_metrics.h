/* Broker-wide request accounting for /metrics (docs/metrics.md, "Broker"):
 * requests per API key and version, errors per API, version and error code, the
 * request duration per API, and the partition-log fsync histogram. Updated on the
 * hot path through GR_METRIC (no allocation, no lock, no formatting); the collector
 * (broker_metrics_core.c) turns them into text at scrape time.
 * @locality loop thread, except log_fsync (gr_hist_observe_atomic, any thread). */
#ifndef GR_BROKER_CORE_METRICS_H
#define GR_BROKER_CORE_METRICS_H

#include <stdint.h>
#include <time.h>

#include "base/metrics.h"
#include "broker/broker_metrics.h"
#include "broker/request.h"
#include "proto_msgs.h"

/** Versions counted per API (0..GR_CM_VERSIONS-1); higher ones are not counted. */
#define GR_CM_VERSIONS 32
/** Distinct (api, version, error code) triples kept; later new triples are not counted. */
#define GR_CM_ERR_SLOTS 1024
#define GR_CM_ERR_MAX   768

typedef struct gr_cm_err {
    uint32_t key; /* api << 24 | version << 16 | (uint16_t)code; 0 = empty slot */
    uint64_t n;
} gr_cm_err_t;

typedef struct gr_core_metrics {
    uint64_t requests[GR_API__MAX + 1][GR_CM_VERSIONS];
    gr_hist_t duration[GR_API__MAX + 1]; /* frame received -> response queued */
    gr_cm_err_t errs[GR_CM_ERR_SLOTS];   /* open addressing, linear probing */
    uint32_t n_errs;
    gr_hist_t log_fsync; /* partition-log fsyncs: flusher thread and acks=all syncs */
} gr_core_metrics_t;

/** Monotonic microseconds (request durations). */
static inline int64_t gr_cm_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/** A request of a known API and version was received and is being dispatched. */
static inline void gr_cm_request(gr_core_metrics_t *m, int16_t api, int16_t ver) {
    if (api >= 0 && api <= GR_API__MAX && ver >= 0 && ver < GR_CM_VERSIONS) m->requests[api][ver]++;
}

/** req is answered: resp (NULL for no response, acks=0) is walked for error codes
 *  (gr_cm_count_errors) and the duration since req->recv_us is observed. */
void gr_cm_response(gr_core_metrics_t *m, const gr_req_t *req, const void *resp);

/** The error rule: every int16 field whose name ends in "ErrorCode" (ErrorCode,
 *  AcknowledgeErrorCode, PartitionErrorCode, TopicConfigErrorCode) that exists at
 *  version ver and is non-zero counts once, wherever it is in the body (top level,
 *  nested structs, every element of struct arrays). Exposed for the unit test. */
void gr_cm_count_errors(gr_core_metrics_t *m, const gr_msg_desc_t *desc, int16_t ver, const void *body);

/** The Kafka API name of an api key ("Produce", "ShareFetch"), or NULL if unknown;
 *  written into buf (at least 64 bytes). */
const char *gr_cm_api_name(int16_t api, char *buf, size_t size);

/** The topic and partition families (broker_metrics_topics.c): per-topic and
 *  per-partition series for at most metrics.partition.series.max topics and
 *  partitions (by topic name, then partition index), the totals, and gregor_metrics_series_dropped
 *  for kind="partition" and kind="topic". */
void gr_cm_collect_topics(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped);

#endif
