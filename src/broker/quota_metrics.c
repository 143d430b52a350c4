/* Client quota metrics (docs/metrics.md "Quotas"): throttled responses and throttle time
 * per quota type, connection creation throttling, and the sensors kept. Kafka reports
 * throttle time per user/client-id sensor; gregord sums them per quota type, so the number
 * of series stays fixed whatever the clients call themselves. */
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/quotas.h"

static const char *const TYPE_NAMES[GR_QT__N] = {"produce", "fetch", "request"};

void gr_broker_collect_quotas(gr_broker_t *b, gr_prom_t *p) {
    if (!b->quotas) return;
    gr_quota_stats_t st;
    gr_broker_quota_stats(b, &st);
    gr_prom_family(p, "gregor_quota_throttled_responses_total", GR_PROM_COUNTER,
                   "Responses with a throttle time, per quota that gave the longest one (Kafka: the "
                   "throttle-time sensor of type Produce, Fetch, Request)");
    gr_prom_family(p, "gregor_quota_throttle_time_ms_total", GR_PROM_COUNTER,
                   "Sum of throttle times answered (ms), per quota type");
    for (int t = 0; t < GR_QT__N; t++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "quota", TYPE_NAMES[t]);
        gr_prom_u64(p, "gregor_quota_throttled_responses_total", &l, st.throttled[t]);
        gr_prom_u64(p, "gregor_quota_throttle_time_ms_total", &l, st.throttle_ms[t]);
    }
    gr_prom_family(p, "gregor_quota_connections_throttled_total", GR_PROM_COUNTER,
                   "New connections held and closed by an IP's connection_creation_rate");
    gr_prom_u64(p, "gregor_quota_connections_throttled_total", NULL, st.conn_ip_throttled);
    gr_prom_family(p, "gregor_quota_accept_pauses_total", GR_PROM_COUNTER,
                   "Pauses of accepting new connections by max.connection.creation.rate (broker or listener)");
    gr_prom_u64(p, "gregor_quota_accept_pauses_total", NULL, st.conn_rate_paused);
    gr_prom_family(p, "gregor_quota_accept_pause_ms_total", GR_PROM_COUNTER,
                   "Sum of those pauses (ms) (Kafka: acceptor blocked percent)");
    gr_prom_u64(p, "gregor_quota_accept_pause_ms_total", NULL, st.conn_rate_pause_ms);
    gr_prom_family(p, "gregor_quota_sensors", GR_PROM_GAUGE,
                   "Quota sensors kept (one per quota type and user/client-id or IP that has a quota; bounded by "
                   "gregor.quota.max.sensors)");
    gr_prom_u64(p, "gregor_quota_sensors", NULL, st.sensors);
    gr_prom_family(p, "gregor_quota_sensors_removed_total", GR_PROM_COUNTER,
                   "Quota sensors removed: expired after an hour idle, or evicted (least recently used) at the bound");
    gr_prom_labels_t l;
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "why", "expired");
    gr_prom_u64(p, "gregor_quota_sensors_removed_total", &l, st.sensors_expired);
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "why", "evicted");
    gr_prom_u64(p, "gregor_quota_sensors_removed_total", &l, st.sensors_evicted);
}
