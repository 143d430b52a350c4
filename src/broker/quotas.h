/* Client quota enforcement in the broker (Kafka's ClientQuotaManager for produce and fetch
 * bytes, ClientRequestQuotaManager for request_percentage) and the quota store behind
 * Describe/AlterClientQuotas. One sensor per (quota type, user tag, client-id tag) as
 * Kafka's default callback tags it; sensors only for pairs that have a quota; at most
 * max_sensors of them (least recently used goes first) and each expires after an hour idle
 * (Kafka's inactive sensor expiry). Throttling mutes the connection for the throttle time
 * (a timer resumes it): the event loop never waits.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_QUOTAS_H
#define GR_BROKER_QUOTAS_H

#include <stdint.h>

#include "auth/quota.h"
#include "base/buf.h"
#include "base/err.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_req gr_req_t;

enum { GR_QT_PRODUCE, GR_QT_FETCH, GR_QT_REQUEST, GR_QT__N, GR_QT_CONN_IP = GR_QT__N, GR_QT_CONN_LISTENER };

#define GR_QUOTA_SENSOR_EXPIRY_MS    (3600 * 1000) /* Kafka's InactiveSensorExpirationTimeSeconds */
#define GR_QUOTA_DEFAULT_MAX_SENSORS 10000

typedef struct gr_quota_stats {
    uint64_t throttled[GR_QT__N];   /* responses throttled */
    uint64_t throttle_ms[GR_QT__N]; /* sum of throttle times */
    uint64_t sensors, sensors_expired, sensors_evicted;
    uint64_t conn_ip_throttled, conn_ip_throttle_ms; /* connection_creation_rate */
    uint64_t conn_rate_paused, conn_rate_pause_ms;   /* max.connection.creation.rate */
} gr_quota_stats_t;

/** Load the store (<log.dirs>/gregor.quotas) and read quota.window.num,
 *  quota.window.size.seconds and gregor.quota.max.sensors. */
gr_err_t gr_broker_quotas_open(gr_broker_t *b, char *errstr, size_t errstr_size);
void gr_broker_quotas_close(gr_broker_t *b);
/** The store (Describe/AlterClientQuotas) and its replacement after a durable save. */
const gr_quota_store_t *gr_broker_quota_store(const gr_broker_t *b);
void gr_broker_quota_store_replace(gr_broker_t *b, gr_quota_store_t *next);
const gr_quota_window_t *gr_broker_quota_window(const gr_broker_t *b);
void gr_broker_quota_stats(const gr_broker_t *b, gr_quota_stats_t *out);

/** The request handler is about to run / has returned (request time quota). */
void gr_broker_quota_handler_start(gr_req_t *req);
void gr_broker_quota_handler_end(gr_broker_t *b, gr_req_t *req); /* req may be freed */
/** Fetch: the most bytes one response may carry without certain throttling
 *  (quota * (quota.window.num - 1) * window), INT32_MAX without a quota. */
int64_t gr_broker_quota_fetch_cap(gr_req_t *req);
/** Called with the encoded response (wb, header included) just before it is handed to the
 *  connection: records the produce/fetch bytes and the request time, sets ThrottleTimeMs
 *  in the response (re-encoding it), empties a throttled Fetch response as Kafka does, and
 *  mutes the connection for the throttle time. resp may be NULL (acks=0 produce). */
void gr_broker_quota_on_response(gr_req_t *req, void *resp, gr_wbuf_t *wb);

/** The rate of a sensor (created if needed; bounded and expiring like the client ones). */
gr_quota_rate_t *gr__quota_rate(gr_broker_t *b, int type, const char *a, const char *c, int64_t now);
/** The connection creation quotas (conn_quotas.c); a gr_conn_admit_cb. */
int64_t gr_broker_conn_admit(void *ctx, const char *listener, const uint8_t addr[16], const char *ip,
                             int64_t *pause_ms);
/** Counters of connection throttling (conn_quotas.c adds to them). */
gr_quota_stats_t *gr__quota_stats(gr_broker_t *b);

#endif
