/* A small HTTP/1.1 server on the event loop, for the admin endpoint
 * (docs/operations.md "Admin endpoint"). No thread: accept, read and write are
 * non-blocking watchers of the broker's loop.
 *
 * One request at a time per connection: the head is read into a fixed buffer
 * (max_head bytes), parsed (net/http_parse.h), handed to the route callback, which
 * fills the whole response into a buffer; the connection writes it and only then
 * reads the next request (pipelined bytes wait in the buffer and are answered one per
 * connection per loop iteration, so pipelining cannot hold the loop). Requests with a
 * body are refused (400): the admin API has no request bodies.
 *
 * Bounds, so that no client can hold more than a little memory or stall anything:
 *   - at most max_conns open connections; more are accepted and closed at once;
 *   - a request head must be complete head_timeout_ms after its first byte
 *     (a client trickling bytes is closed), and be at most max_head bytes (431);
 *   - a connection with no request in progress is closed after idle_timeout_ms;
 *   - a response must be written within write_timeout_ms (a client that does not
 *     read is closed); at most one response per connection is buffered;
 *   - after an error response or "Connection: close" the write side is shut and
 *     unread input is discarded for at most 2 s, so the client sees the response
 *     rather than a reset.
 * Deadlines are checked by one 250 ms timer that runs only while connections exist.
 *
 * gr_http_server_pump() serves the same sockets with poll(2) outside the loop: the
 * admin endpoint calls it while the broker opens or closes its data, so that only
 * HTTP callbacks run there (nothing else on the loop re-enters).
 * @locality loop thread (the thread that calls pump, during start-up/shutdown). */
#ifndef GR_NET_HTTP_SERVER_H
#define GR_NET_HTTP_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "net/http_parse.h"
#include "net/loop.h"

typedef struct gr_http_server gr_http_server_t;

/** The route fills this. status defaults to 200, content_type to text/plain. */
typedef struct gr_http_response {
    int status;
    const char *content_type; /* static string */
    const char *allow;        /* static: an Allow header (405) when non-NULL */
    gr_wbuf_t body;           /* memory segments only; not sent for HEAD */
} gr_http_response_t;

typedef struct gr_http_handler {
    /** Produce the response to one request (method, decoded path). */
    void (*route)(void *ctx, const gr_http_request_t *req, gr_http_response_t *resp);
    /** Every response sent (including the server's own 400/431/505); may be NULL. */
    void (*on_status)(void *ctx, int status);
    void *ctx;
} gr_http_handler_t;

typedef struct gr_http_opts {
    size_t max_head;          /* request head limit (431 above) */
    int max_conns;            /* concurrent connections */
    int64_t head_timeout_ms;  /* first byte of a head -> complete head */
    int64_t idle_timeout_ms;  /* no request in progress (new or keep-alive connection) */
    int64_t write_timeout_ms; /* response produced -> last byte written */
} gr_http_opts_t;

#define GR_HTTP_DEFAULT_MAX_CONNS     32
#define GR_HTTP_DEFAULT_HEAD_TIMEOUT  10000
#define GR_HTTP_DEFAULT_IDLE_TIMEOUT  10000
#define GR_HTTP_DEFAULT_WRITE_TIMEOUT 10000

void gr_http_opts_default(gr_http_opts_t *o);

/** Bind host:port (numeric or name; port 0 = ephemeral) and serve on loop. opts may
 *  be NULL (defaults); handler is copied. On error returns GR_ERR__IO with the
 *  reason (e.g. "Address already in use") in errstr. */
gr_err_t gr_http_server_open(gr_loop_t *loop, const char *host, uint16_t port, const gr_http_opts_t *opts,
                             const gr_http_handler_t *handler, gr_http_server_t **out, char *errstr,
                             size_t errstr_size);

uint16_t gr_http_server_port(const gr_http_server_t *s);
size_t gr_http_server_conn_count(const gr_http_server_t *s);

/** Serve pending accepts, reads and writes and enforce deadlines without the loop
 *  (poll(2), no wait). For long blocking work on the loop thread. */
void gr_http_server_pump(gr_http_server_t *s);

/** Close every connection and the listening socket; free. Call outside the
 *  server's own callbacks. NULL is a no-op. */
void gr_http_server_close(gr_http_server_t *s);

#endif
