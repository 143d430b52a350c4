/* Broker-wide metrics: requests per API, connections, topics, partitions,
 * storage (docs/metrics.md). */
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"

void gr_broker_collect_core(gr_broker_t *b, gr_prom_t *p) {
    (void)b;
    (void)p;
}
