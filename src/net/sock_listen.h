/* Listening sockets shared by the Kafka listener (listener.c) and the admin
 * HTTP server (http_server.c). Not for use outside src/net. */
#ifndef GR_NET_SOCK_LISTEN_H
#define GR_NET_SOCK_LISTEN_H

#include <stddef.h>
#include <stdint.h>

/** A non-blocking, close-on-exec socket bound to the first address of host:port
 *  that works (host NULL or "" = every interface) and listening with `backlog`.
 *  Returns the fd, or -1 with the reason in errstr. */
int gr_net_listen(const char *host, uint16_t port, int backlog, char *errstr, size_t errstr_size);
/** The port a socket is bound to (useful after port 0), 0 if unknown. */
uint16_t gr_net_bound_port(int fd);

#endif
