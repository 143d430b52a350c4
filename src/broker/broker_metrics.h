/* What the broker exposes to the admin endpoint (src/server/admin.c):
 * metrics in the Prometheus text format and its health (docs/metrics.md).
 * @locality loop thread. */
#ifndef GR_BROKER_BROKER_METRICS_H
#define GR_BROKER_BROKER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/metrics.h"

typedef struct gr_broker gr_broker_t;

/** Append every broker metric family (requests, connections, topics,
 *  partitions, storage, share groups, consumer groups) to out. */
void gr_broker_metrics_write(gr_broker_t *b, gr_wbuf_t *out);

/** True while the broker serves and every partition log is online; otherwise
 *  false with the reason in why. */
bool gr_broker_healthy(gr_broker_t *b, char *why, size_t why_size);

/** Series left out by metrics.partition.series.max, per kind; the collectors
 *  fill it and gr_broker_metrics_write writes gregor_metrics_series_dropped. */
typedef struct gr_metrics_dropped {
    uint64_t topic, partition, group, share_partition;
    uint64_t consumer_group, consumer_group_partition; /* committed offsets */
} gr_metrics_dropped_t;

/** GET /v1/share-groups/<group>/capacity (share_capacity.c): 0 with the JSON document
 *  in out (200); otherwise the error (GROUP_ID_NOT_FOUND: 404) and {"error":"..."} in out. */
gr_err_t gr_broker_share_capacity_json(gr_broker_t *b, const char *group, gr_wbuf_t *out);

/** GET /v1/share-groups/<group>/delayed (share_delayed.c): the records held back by
 *  gregord's delayed redelivery, per share-partition; errors as the capacity view. */
gr_err_t gr_broker_share_delayed_json(gr_broker_t *b, const char *group, gr_wbuf_t *out);

/** Collectors, one per area (each in its own file). */
void gr_broker_collect_core(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped);   /* broker_metrics_core.c */
void gr_broker_collect_quotas(gr_broker_t *b, gr_prom_t *p);                                /* quota_metrics.c */
void gr_broker_collect_share(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped);  /* share_metrics.c */
void gr_broker_collect_cgroup(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped); /* cgroup_metrics.c */
void gr_broker_collect_txn(gr_broker_t *b, gr_prom_t *p);                                   /* txn_metrics.c */

#endif
