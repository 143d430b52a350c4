/* The broker's metrics entry point: each area writes its own families. */
#include "broker/broker_metrics.h"

#include "broker/broker_int.h"

static void write_dropped(gr_prom_t *p, const gr_metrics_dropped_t *d) {
    static const char *const kinds[] = {"topic",           "partition",      "group",
                                        "share_partition", "consumer_group", "consumer_group_partition"};
    const uint64_t counts[] = {d->topic,           d->partition,      d->group,
                               d->share_partition, d->consumer_group, d->consumer_group_partition};
    gr_prom_family(p, "gregor_metrics_series_dropped", GR_PROM_GAUGE,
                   "Topics, partitions, share-partitions, share groups, consumer groups and their committed offsets "
                   "left out of /metrics by metrics.partition.series.max, per kind");
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "kind", kinds[i]);
        gr_prom_u64(p, "gregor_metrics_series_dropped", &l, counts[i]);
    }
}

void gr_broker_metrics_write(gr_broker_t *b, gr_wbuf_t *out) {
    gr_prom_t p;
    gr_metrics_dropped_t dropped = {0};
    gr_prom_init(&p, out);
    gr_broker_collect_core(b, &p, &dropped);
    gr_broker_collect_quotas(b, &p);
    gr_broker_collect_share(b, &p, &dropped);
    gr_broker_collect_cgroup(b, &p, &dropped);
    gr_broker_collect_txn(b, &p);
    write_dropped(&p, &dropped);
}
