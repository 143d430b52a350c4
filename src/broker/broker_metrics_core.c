/* Broker-wide metrics: requests per API, connections, partition-log fsyncs, and
 * (broker_metrics_topics.c) topics and partitions (docs/metrics.md, "Broker").
 * Labels are formatted here, at scrape time, never on the hot path. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"

static void labels_api(gr_prom_labels_t *l, int16_t api, int16_t ver) {
    char name[64];
    gr_prom_labels_init(l);
    const char *n = gr_cm_api_name(api, name, sizeof(name));
    if (n) {
        gr_prom_label(l, "api", n);
    } else {
        gr_prom_label_i64(l, "api", api);
    }
    if (ver >= 0) gr_prom_label_i64(l, "version", ver);
}

static void collect_requests(const gr_core_metrics_t *m, gr_prom_t *p) {
    gr_prom_labels_t l;
    gr_prom_family(p, "gregor_requests_total", GR_PROM_COUNTER,
                   "Requests received per API key and version (Kafka: kafka.network RequestMetrics RequestsPerSec)");
    for (int16_t api = 0; api <= GR_API__MAX; api++)
        for (int16_t v = 0; v < GR_CM_VERSIONS; v++) {
            if (!m->requests[api][v]) continue;
            labels_api(&l, api, v);
            gr_prom_u64(p, "gregor_requests_total", &l, m->requests[api][v]);
        }
    gr_prom_family(p, "gregor_request_duration_seconds", GR_PROM_HISTOGRAM,
                   "Time from a request's frame received to its response queued, per API "
                   "(Kafka: RequestMetrics TotalTimeMs)");
    for (int16_t api = 0; api <= GR_API__MAX; api++) {
        if (!m->duration[api].count) continue;
        labels_api(&l, api, -1);
        gr_prom_hist(p, "gregor_request_duration_seconds", &l, &m->duration[api]);
    }
}

static int cmp_err(const void *a, const void *b) {
    uint32_t x = ((const gr_cm_err_t *)a)->key, y = ((const gr_cm_err_t *)b)->key;
    return x < y ? -1 : x > y;
}

/* Errors sorted by (api, version, code), so that scrapes list them in a stable order. */
static void collect_errors(const gr_core_metrics_t *m, gr_prom_t *p) {
    gr_prom_family(p, "gregor_request_errors_total", GR_PROM_COUNTER,
                   "Non-zero error codes in responses (each ErrorCode field, top level and per topic or "
                   "partition), per API, version and Kafka error name (Kafka: RequestMetrics ErrorsPerSec)");
    gr_cm_err_t *v = malloc((m->n_errs ? m->n_errs : 1) * sizeof(*v));
    if (!v) abort();
    size_t n = 0;
    for (size_t i = 0; i < GR_CM_ERR_SLOTS && n < m->n_errs; i++)
        if (m->errs[i].key) v[n++] = m->errs[i];
    qsort(v, n, sizeof(*v), cmp_err);
    for (size_t i = 0; i < n; i++) {
        int16_t api = (int16_t)(v[i].key >> 24), ver = (int16_t)((v[i].key >> 16) & 0xff);
        int16_t code = (int16_t)(uint16_t)(v[i].key & 0xffff);
        gr_prom_labels_t l;
        labels_api(&l, api, ver);
        const char *name = gr_err_name((gr_err_t)code);
        if (strcmp(name, "UNKNOWN"))
            gr_prom_label(&l, "error", name);
        else
            gr_prom_label_i64(&l, "error", code); /* a code newer than our table */
        gr_prom_u64(p, "gregor_request_errors_total", &l, v[i].n);
    }
    free(v);
}

static void collect_connections(gr_broker_t *b, gr_prom_t *p) {
    gr_listener_stats_t st;
    memset(&st, 0, sizeof(st));
    for (size_t i = 0; i < b->n_lst; i++) { /* every client listener together */
        gr_listener_stats_t one;
        if (!b->lst[i].l) continue;
        gr_listener_stats(b->lst[i].l, &one);
        st.open += one.open;
        st.accepted += one.accepted;
        st.closed += one.closed;
        for (int r = 0; r < GR_CONN_REFUSED__N; r++) st.refused[r] += one.refused[r];
    }
    gr_prom_family(p, "gregor_connections_open", GR_PROM_GAUGE, "Open client connections (Kafka listener)");
    gr_prom_u64(p, "gregor_connections_open", NULL, st.open);
    gr_prom_family(p, "gregor_connections_accepted_total", GR_PROM_COUNTER,
                   "Client connections admitted (Kafka: socket-server-metrics connection-creation-total)");
    gr_prom_u64(p, "gregor_connections_accepted_total", NULL, st.accepted);
    gr_prom_family(p, "gregor_connections_closed_total", GR_PROM_COUNTER,
                   "Admitted client connections closed, for any reason (Kafka: connection-close-total)");
    gr_prom_u64(p, "gregor_connections_closed_total", NULL, st.closed);
    gr_prom_family(p, "gregor_connections_refused_total", GR_PROM_COUNTER,
                   "Connections refused (accepted and closed at once) by the limit named in reason");
    for (int r = 0; r < GR_CONN_REFUSED__N; r++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "reason", gr_conn_refusal_name((gr_conn_refusal_t)r));
        gr_prom_u64(p, "gregor_connections_refused_total", &l, st.refused[r]);
    }
}

/* Per listener: SASL outcomes on SASL listeners, TLS handshakes on SSL ones; a failed TLS
 * handshake on SASL_SSL is a failed authentication too (Kafka: failed-authentication-total). */
static void collect_auth(gr_broker_t *b, gr_prom_t *p) {
    gr_prom_family(p, "gregor_authentications_total", GR_PROM_COUNTER,
                   "Client authentications per listener: SASL exchanges on SASL listeners, TLS handshakes on SSL "
                   "listeners (Kafka: successful-authentication-total, failed-authentication-total)");
    for (size_t i = 0; i < b->n_lst && i < b->cfg->n_listeners; i++) {
        const gr_listener_config_t *lc = &b->cfg->listeners[i];
        if (!b->lst[i].l || lc->sec_proto == GR_SEC_PLAINTEXT) continue;
        gr_listener_stats_t st;
        gr_listener_stats(b->lst[i].l, &st);
        uint64_t ok = st.tls_ok, failed = st.tls_failed, sasl_ok, sasl_failed;
        if (gr_broker_sasl_counts(b, lc->name, &sasl_ok, &sasl_failed)) ok = sasl_ok, failed += sasl_failed;
        for (int r = 0; r < 2; r++) {
            gr_prom_labels_t l;
            gr_prom_labels_init(&l);
            gr_prom_label(&l, "listener", lc->name);
            gr_prom_label(&l, "result", r ? "failure" : "success");
            gr_prom_u64(p, "gregor_authentications_total", &l, r ? failed : ok);
        }
    }
}

static void collect_fsync(gr_broker_t *b, gr_prom_t *p) {
    gr_hist_t h;
    gr_hist_load(&b->cm.log_fsync, &h);
    uint64_t n = 0;
    for (size_t i = 0; i <= GR_HIST_BOUNDS; i++) n += h.bucket[i]; /* equal to the histogram's _count */
    gr_prom_family(p, "gregor_log_fsyncs_total", GR_PROM_COUNTER,
                   "fsyncs of partition logs (flush policy and acks=all) (Kafka: LogFlushStats LogFlushRateAndTimeMs)");
    gr_prom_u64(p, "gregor_log_fsyncs_total", NULL, n);
    gr_prom_family(p, "gregor_log_fsync_duration_seconds", GR_PROM_HISTOGRAM,
                   "Duration of partition-log fsyncs (Kafka: LogFlushStats LogFlushRateAndTimeMs)");
    gr_prom_hist(p, "gregor_log_fsync_duration_seconds", NULL, &h);
}

void gr_broker_collect_core(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped) {
    collect_requests(&b->cm, p);
    collect_errors(&b->cm, p);
    collect_connections(b, p);
    collect_auth(b, p);
    collect_fsync(b, p);
    gr_cm_collect_topics(b, p, dropped);
}
