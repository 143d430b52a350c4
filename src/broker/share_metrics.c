/* Share-group metrics (docs/metrics.md). */
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"

void gr_broker_collect_share(gr_broker_t *b, gr_prom_t *p) {
    (void)b;
    (void)p;
}
