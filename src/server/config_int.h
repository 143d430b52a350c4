/* Internals shared by config.c and config_listeners.c. */
#ifndef GR_SERVER_CONFIG_INT_H
#define GR_SERVER_CONFIG_INT_H

#include <stddef.h>

#include "server/config.h"

/** Fill cfg->listeners from the effective listeners, listener.security.protocol.map and
 *  controller.listener.names values (plus advertised.listeners, inter.broker.listener.name,
 *  security.inter.broker.protocol and ssl.* from cfg->raw). Kafka's refusals in errstr. */
gr_err_t gr__config_listeners(gr_server_config_t *cfg, const char *listeners, const char *map, const char *controllers,
                              char *errstr, size_t errstr_size);
void gr__config_listeners_free(gr_server_config_t *cfg);
/** Keys read by config_listeners.c that the config table does not define (ssl.*,
 *  listener.name.<l>.ssl.*, security.inter.broker.protocol): not "unknown". */
bool gr__config_key_consumed(const char *key);

#endif
