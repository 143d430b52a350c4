/* The broker's metrics entry point: each area writes its own families. */
#include "broker/broker_metrics.h"

#include "broker/broker_int.h"

void gr_broker_metrics_write(gr_broker_t *b, gr_wbuf_t *out) {
    gr_prom_t p;
    gr_prom_init(&p, out);
    gr_broker_collect_core(b, &p);
    gr_broker_collect_share(b, &p);
}
