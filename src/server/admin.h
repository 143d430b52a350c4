/* gregord's admin HTTP endpoint (admin.listener=HOST:PORT): GET/HEAD /metrics in the
 * Prometheus text format 0.0.4 and /health (docs/operations.md "Admin endpoint").
 *
 * It opens before the broker so that it answers 503 "starting" while the logs are
 * recovered, and stays open until the data is closed ("shutting down"). During those
 * two phases the broker calls gr_admin_progress() between slices of its work; the
 * admin then serves its own sockets only (gr_http_server_pump), never the whole loop.
 * @locality loop thread. */
#ifndef GR_SERVER_ADMIN_H
#define GR_SERVER_ADMIN_H

#include <stdint.h>

#include "base/err.h"
#include "broker/broker.h"
#include "net/loop.h"

typedef struct gr_admin gr_admin_t;

/** Listen on host:port (state "starting"). version goes into gregor_build_info.
 *  Returns GR_ERR__IO with the reason in errstr (e.g. the port is in use). */
gr_err_t gr_admin_open(gr_loop_t *loop, const char *host, uint16_t port, const char *version, gr_admin_t **out,
                       char *errstr, size_t errstr_size);

/** The broker is open and serving: /health asks it, /metrics includes it. */
void gr_admin_serving(gr_admin_t *a, gr_broker_t *b);

/** Shutdown began: the broker is no longer asked anything; /health answers 503. */
void gr_admin_shutting_down(gr_admin_t *a);

/** A gr_broker_progress_cb (arg: the gr_admin_t): serves pending admin requests, at
 *  most every 50 ms. */
void gr_admin_progress(void *arg);

uint16_t gr_admin_port(const gr_admin_t *a);

/** Close the listener and every admin connection. NULL is a no-op. */
void gr_admin_close(gr_admin_t *a);

#endif
