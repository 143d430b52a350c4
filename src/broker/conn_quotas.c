/* Connection creation quotas, as Kafka's ConnectionQuotas has them:
 *  - max.connection.creation.rate (broker-wide) and listener.name.<l>.max.connection.creation.rate:
 *    a new connection past the rate stops the listener accepting for the throttle time (Kafka's
 *    acceptor waits; here a timer resumes the listener, the loop never waits);
 *  - connection_creation_rate of the ip entity (exact IP, else the default IP): a connection
 *    past it is held unserved for the throttle time and then closed, and does not count in
 *    the IP's rate (Kafka unrecords it).
 * Rates are Kafka's windowed rate (quota.window.num, quota.window.size.seconds); throttle
 * times are bounded by one window. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/quotas.h"

#define RATE_UNLIMITED 2147483647.0 /* Kafka's default: Int.MaxValue */

static double cfg_rate(const gr_broker_t *b, const char *key) {
    const char *v = gr_props_get(&b->cfg->raw, key);
    return v && *v ? atof(v) : RATE_UNLIMITED;
}

/* Record one connection on a rate limited to limit; the throttle time (0: within it). */
static int64_t record(gr_broker_t *b, const char *a, const char *c, double limit, int64_t now) {
    const gr_quota_window_t *w = gr_broker_quota_window(b);
    gr_quota_rate_t *r = gr__quota_rate(b, GR_QT_CONN_LISTENER, a, c, now);
    return gr_quota_record_throttle(r, w, 1.0, limit, w->window_ms, now);
}

int64_t gr_broker_conn_admit(void *ctx, const char *listener, const uint8_t addr[16], const char *ip,
                             int64_t *pause_ms) {
    gr_broker_t *b = ctx;
    if (!b->quotas) return 0;
    int64_t now = gr_loop_now(b->loop);
    gr_quota_stats_t *st = gr__quota_stats(b);
    /* Listener and broker rates: the longer throttle wins. */
    char key[300], lower[200];
    size_t i = 0;
    for (; listener[i] && i + 1 < sizeof(lower); i++)
        lower[i] = (char)(listener[i] | 0x20 * (listener[i] >= 'A' && listener[i] <= 'Z'));
    lower[i] = '\0';
    snprintf(key, sizeof(key), "listener.name.%s.max.connection.creation.rate", lower);
    double lrate = cfg_rate(b, key), brate = cfg_rate(b, "max.connection.creation.rate");
    int64_t t = 0, tb = 0;
    if (lrate < RATE_UNLIMITED) t = record(b, "listener", listener, lrate, now);
    if (brate < RATE_UNLIMITED) tb = record(b, "broker", "", brate, now);
    *pause_ms = t > tb ? t : tb;
    if (*pause_ms > 0) {
        st->conn_rate_paused++;
        st->conn_rate_pause_ms += (uint64_t)*pause_ms;
    }
    /* The IP's connection_creation_rate. */
    double limit;
    if (!gr_quota_ip_limit(gr_broker_quota_store(b), addr, &limit)) return 0;
    const gr_quota_window_t *w = gr_broker_quota_window(b);
    gr_quota_rate_t *r = gr__quota_rate(b, GR_QT_CONN_IP, ip, "", now);
    int64_t ti = gr_quota_record_throttle(r, w, 1.0, limit, w->window_ms, now);
    if (ti > 0) { /* Kafka takes a refused connection back out of the IP's rate */
        gr_quota_rate_record(r, w, -1.0, now);
        st->conn_ip_throttled++;
        st->conn_ip_throttle_ms += (uint64_t)ti;
    }
    return ti;
}
