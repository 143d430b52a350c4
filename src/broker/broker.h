/* The broker: owns the listener, metadata, partition logs and the request
 * handlers, all driven by one event loop.
 * @locality loop thread, except where noted. */
#ifndef GR_BROKER_BROKER_H
#define GR_BROKER_BROKER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/loop.h"
#include "server/config.h"

typedef struct gr_broker gr_broker_t;

/** Open the data directory (metadata, every partition log, recovering them as
 *  needed), start the flusher thread and listen on the configured listener.
 *  cfg must outlive the broker. On success *out is owned by the caller. */
gr_err_t gr_broker_new(gr_loop_t *loop, const gr_server_config_t *cfg, gr_broker_t **out, char *errstr,
                       size_t errstr_size);

/** Called on the loop thread between slices of the long start-up and shutdown work
 *  (each partition log opened or closed, each shutdown stage) so that gregord's admin
 *  endpoint can answer "starting"/"shutting down" meanwhile. It must not touch the
 *  broker or run the loop (other watchers would re-enter half-built state). */
typedef void (*gr_broker_progress_cb)(void *arg);

/** gr_broker_new with a progress callback (NULL: none), kept for gr_broker_free too. */
gr_err_t gr_broker_new_ex(gr_loop_t *loop, const gr_server_config_t *cfg, gr_broker_progress_cb progress,
                          void *progress_arg, gr_broker_t **out, char *errstr, size_t errstr_size);
/** The port actually bound (useful with port 0) by the first listener, or by listener i
 *  (cfg->listeners order; 0 if none). */
uint16_t gr_broker_port(const gr_broker_t *b);
uint16_t gr_broker_listener_port(const gr_broker_t *b, size_t i);
/** Build (and drop) the TLS context of every SSL / SASL_SSL listener, so that a bad
 *  keystore, truststore or key password is refused before any data is opened. */
gr_err_t gr_broker_check_tls(const gr_server_config_t *cfg, char *errstr, size_t errstr_size);
/** The SASL settings of every SASL listener (mechanisms, JAAS configs), checked without opening anything. */
gr_err_t gr_broker_check_sasl(const gr_server_config_t *cfg, char *errstr, size_t errstr_size);
/** Clean shutdown: stop accepting, close connections, flush and close every
 *  log, stop the flusher, free everything. Runs the loop briefly to finish
 *  in-flight work. */
void gr_broker_free(gr_broker_t *b);

#endif
