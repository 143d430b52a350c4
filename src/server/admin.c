/* The admin HTTP endpoint: a route table on top of net/http_server. See admin.h. */
#include "server/admin.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/metrics.h"
#include "broker/broker_metrics.h"
#include "net/http_server.h"
#include "server/process_metrics.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define PUMP_EVERY_MS     50
#define MAX_CODE          600

typedef enum { ADMIN_STARTING, ADMIN_SERVING, ADMIN_SHUTTING_DOWN } admin_state_t;

struct gr_admin {
    gr_http_server_t *srv;
    gr_broker_t *broker; /* NULL unless serving */
    admin_state_t state;
    char version[32];
    int64_t last_pump_ms;
    uint64_t by_code[MAX_CODE]; /* responses sent, by status code */
};

typedef void (*route_fn)(gr_admin_t *a, const char *arg, gr_http_response_t *resp);

/* One route. pattern is an exact path, or "prefix*suffix" where '*' matches a non-empty
 * part that may hold '/' (names are percent-decoded already) and is passed as arg.
 * Routes answer GET and HEAD. needs_broker: 503 while starting or shutting down. */
typedef struct admin_route {
    const char *pattern;
    bool needs_broker;
    route_fn fn;
} admin_route_t;

static void put_str(gr_wbuf_t *wb, const char *s) { gr_wbuf_put(wb, s, strlen(s)); }

static void metrics_route(gr_admin_t *a, const char *arg, gr_http_response_t *resp) {
    (void)arg;
    gr_prom_t p;
    gr_prom_init(&p, &resp->body);
    gr_process_metrics_write(&p);
    gr_prom_labels_t l;
    gr_prom_family(&p, "gregor_build_info", GR_PROM_GAUGE, "Always 1; the version label is gregord's version.");
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "version", a->version);
    gr_prom_u64(&p, "gregor_build_info", &l, 1);
    gr_prom_family(&p, "gregor_admin_http_requests_total", GR_PROM_COUNTER,
                   "Responses of the admin HTTP endpoint by status code (this scrape not yet counted).");
    for (int code = 100; code < MAX_CODE; code++) {
        if (!a->by_code[code]) continue;
        gr_prom_labels_init(&l);
        gr_prom_label_i64(&l, "code", code);
        gr_prom_u64(&p, "gregor_admin_http_requests_total", &l, a->by_code[code]);
    }
    /* The broker's families only while it serves: during start-up and shutdown its
     * state is half built or half torn down. */
    if (a->state == ADMIN_SERVING && a->broker) gr_broker_metrics_write(a->broker, &resp->body);
    resp->content_type = PROM_CONTENT_TYPE;
}

static void health_route(gr_admin_t *a, const char *arg, gr_http_response_t *resp) {
    (void)arg;
    char why[512];
    if (a->state == ADMIN_STARTING) {
        resp->status = 503;
        put_str(&resp->body, "starting\n");
    } else if (a->state == ADMIN_SHUTTING_DOWN || !a->broker) {
        resp->status = 503;
        put_str(&resp->body, "shutting down\n");
    } else if (!gr_broker_healthy(a->broker, why, sizeof(why))) {
        resp->status = 503;
        put_str(&resp->body, why);
        put_str(&resp->body, "\n");
    } else {
        put_str(&resp->body, "ok\n");
    }
}

/* The Little's-law capacity view of one share group (docs/capacity.md). */
static void capacity_route(gr_admin_t *a, const char *group, gr_http_response_t *resp) {
    gr_err_t err = gr_broker_share_capacity_json(a->broker, group, &resp->body);
    resp->status = !err ? 200 : err == GR_ERR_GROUP_ID_NOT_FOUND || err == GR_ERR_INVALID_GROUP_ID ? 404 : 503;
    resp->content_type = "application/json";
}

/* The records held back by gregord's delayed redelivery (docs/share-groups.md). */
static void delayed_route(gr_admin_t *a, const char *group, gr_http_response_t *resp) {
    gr_err_t err = gr_broker_share_delayed_json(a->broker, group, &resp->body);
    resp->status = !err ? 200 : err == GR_ERR_GROUP_ID_NOT_FOUND || err == GR_ERR_INVALID_GROUP_ID ? 404 : 503;
    resp->content_type = "application/json";
}

/* Adding an endpoint is one entry here. */
static const admin_route_t g_routes[] = {
    {"/metrics", false, metrics_route},
    {"/health", false, health_route},
    {"/v1/share-groups/*/capacity", true, capacity_route},
    {"/v1/share-groups/*/delayed", true, delayed_route},
};

/* Match path against pattern; on a wildcard match *arg_out is the '*' part (in buf). */
static bool route_match(const char *pattern, const char *path, size_t path_len, char *buf, const char **arg_out) {
    const char *star = strchr(pattern, '*');
    *arg_out = NULL;
    if (!star) return strlen(pattern) == path_len && !memcmp(pattern, path, path_len);
    size_t pl = (size_t)(star - pattern), sl = strlen(star + 1);
    if (path_len <= pl + sl || memcmp(path, pattern, pl) || memcmp(path + path_len - sl, star + 1, sl)) return false;
    memcpy(buf, path + pl, path_len - pl - sl);
    buf[path_len - pl - sl] = '\0';
    *arg_out = buf;
    return true;
}

static void route(void *ctx, const gr_http_request_t *req, gr_http_response_t *resp) {
    gr_admin_t *a = ctx;
    static char arg[GR_HTTP_MAX_HEAD];
    for (size_t i = 0; i < sizeof(g_routes) / sizeof(g_routes[0]); i++) {
        const char *argp;
        if (!route_match(g_routes[i].pattern, req->path, req->path_len, arg, &argp)) continue;
        if (req->method != GR_HTTP_GET && req->method != GR_HTTP_HEAD) {
            resp->status = 405;
            resp->allow = "GET, HEAD";
            put_str(&resp->body, "method not allowed\n");
        } else if (g_routes[i].needs_broker && (a->state != ADMIN_SERVING || !a->broker)) {
            resp->status = 503;
            put_str(&resp->body, a->state == ADMIN_STARTING ? "starting\n" : "shutting down\n");
        } else {
            g_routes[i].fn(a, argp, resp);
        }
        return;
    }
    resp->status = 404;
    put_str(&resp->body, "not found\n");
}

static void on_status(void *ctx, int status) {
    gr_admin_t *a = ctx;
    if (status >= 100 && status < MAX_CODE) a->by_code[status]++;
}

gr_err_t gr_admin_open(gr_loop_t *loop, const char *host, uint16_t port, const char *version, gr_admin_t **out,
                       char *errstr, size_t errstr_size) {
    gr_admin_t *a = calloc(1, sizeof(*a));
    if (!a) abort();
    snprintf(a->version, sizeof(a->version), "%s", version);
    a->state = ADMIN_STARTING;
    gr_http_handler_t h = {.route = route, .on_status = on_status, .ctx = a};
    gr_err_t err = gr_http_server_open(loop, host, port, NULL, &h, &a->srv, errstr, errstr_size);
    if (err) {
        free(a);
        return err;
    }
    bool v6 = strchr(host, ':') != NULL;
    GR_INFO("admin", "admin endpoint http://%s%s%s:%u/ (GET /metrics, /health; no authentication)", v6 ? "[" : "",
            host[0] ? host : "0.0.0.0", v6 ? "]" : "", gr_http_server_port(a->srv));
    if (!host[0] || !strcmp(host, "0.0.0.0") || !strcmp(host, "::"))
        GR_WARN("admin", "the admin endpoint listens on all interfaces without authentication; bind it to "
                         "127.0.0.1 or a private address (admin.listener)");
    *out = a;
    return GR_ERR_NONE;
}

void gr_admin_serving(gr_admin_t *a, gr_broker_t *b) {
    if (!a) return;
    a->broker = b;
    a->state = ADMIN_SERVING;
}

void gr_admin_shutting_down(gr_admin_t *a) {
    if (!a) return;
    a->broker = NULL;
    a->state = ADMIN_SHUTTING_DOWN;
    a->last_pump_ms = 0; /* answer whoever waits right at the first slice */
}

void gr_admin_progress(void *arg) {
    gr_admin_t *a = arg;
    int64_t now = gr_clock_mono_ms();
    if (now - a->last_pump_ms < PUMP_EVERY_MS) return;
    a->last_pump_ms = now;
    gr_http_server_pump(a->srv);
}

uint16_t gr_admin_port(const gr_admin_t *a) { return gr_http_server_port(a->srv); }

void gr_admin_close(gr_admin_t *a) {
    if (!a) return;
    gr_http_server_close(a->srv);
    free(a);
}
