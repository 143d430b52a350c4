/* Listener and connections for Kafka's framed protocol.
 *
 * A connection reads `int32 size` + `size` bytes, checks size against
 * socket.request.max.bytes, grows the frame's buffer as bytes arrive (never
 * reserving what the header merely claims), and hands each frame to
 * on_frame() with a per-connection sequence number. The broker answers each
 * sequence number exactly once, with gr_conn_respond() or gr_conn_skip(), in
 * any order; the connection writes responses strictly in sequence order
 * (writev for memory, sendfile(2) for file segments) and holds early ones back.
 *
 * Lifetime: when the peer disconnects, an error happens, a limit is violated
 * or gr_conn_close() is called, the fd is closed at once and on_close() is
 * called exactly once. The gr_conn_t itself stays valid until every sequence
 * number handed out has been answered; answers to a closed connection just
 * free their data. After on_close the broker may still call respond/skip, the
 * accessors and gr_conn_user(), but must not expect more frames. If nothing is
 * pending when the connection closes, the gr_conn_t is freed as soon as
 * on_close returns; likewise the answer to the last pending request of a
 * closed connection frees it, so drop your pointer to it then.
 *
 * File segments go out with sendfile(2), which has no MSG_NOSIGNAL: the
 * process must ignore SIGPIPE (gregord does at start-up).
 *
 * TLS (opts.tls): the handshake runs inside the loop like any read or write and must
 * finish within request_timeout_ms of the accept (or GR_CONN_DEFAULT_REQUEST_TIMEOUT_MS if
 * that is 0); no frame is handed out before it does. A verified client certificate sets
 * the principal. File segments go out with SSL_sendfile under kTLS, else through pread
 * and SSL_write (one extra copy). Closing sends close_notify without waiting.
 *
 * Backpressure: a connection stops reading (and parsing already buffered
 * bytes) while it has max_inflight requests not yet fully written, or more
 * than max_out_bytes of responses queued; it resumes on its own.
 *
 * Limits (docs/event-loop.md "Resource limits"): the listener's memory pool
 * (queued_max_bytes) counts the buffers of frames being read and of frames
 * handed out and not answered; while it is full no connection starts or grows
 * a frame, except one (the one furthest along), so a frame can always finish.
 * A frame must be complete request_timeout_ms after its first byte. Above
 * max_connections, or max_connections_per_ip for one address, new connections
 * are accepted and closed at once (one log line per 10 s).
 *
 * @locality: everything here runs on the loop thread. */
#ifndef GR_NET_CONN_H
#define GR_NET_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "net/loop.h"

typedef struct gr_conn gr_conn_t;
typedef struct gr_listener gr_listener_t;

#define GR_CONN_DEFAULT_MAX_REQUEST_BYTES  104857600  /* socket.request.max.bytes */
#define GR_CONN_DEFAULT_IDLE_MS            600000     /* connections.max.idle.ms */
#define GR_CONN_DEFAULT_QUEUED_MAX_BYTES   104857600  /* queued.max.request.bytes (Kafka: -1) */
#define GR_CONN_DEFAULT_REQUEST_TIMEOUT_MS 30000      /* socket.request.read.timeout.ms */
#define GR_CONN_DEFAULT_MAX_CONNECTIONS    2147483647 /* max.connections, max.connections.per.ip */
#define GR_CONN_DEFAULT_MAX_INFLIGHT       64
#define GR_CONN_DEFAULT_MAX_OUT_BYTES      (64u << 20)

/* Kafka's security protocols (listener.security.protocol.map). */
typedef enum { GR_SEC_PLAINTEXT, GR_SEC_SSL, GR_SEC_SASL_PLAINTEXT, GR_SEC_SASL_SSL } gr_sec_proto_t;

typedef struct gr_conn_opts {
    size_t max_request_bytes;       /* frames larger than this close the connection */
    uint32_t max_inflight;          /* stop reading at this many unwritten requests (>= 1) */
    size_t max_out_bytes;           /* stop reading while more output than this is queued */
    int64_t idle_ms;                /* close after this long without traffic; <= 0 disables */
    size_t queued_max_bytes;        /* memory pool bound for requests being read or queued; 0 = none */
    int64_t request_timeout_ms;     /* a frame must be complete this long after its first byte; <= 0 disables */
    int64_t max_connections;        /* open connections of the listener */
    int64_t max_connections_per_ip; /* open connections per peer address */
    const char *per_ip_overrides;   /* "host:n,host:n" (max.connections.per.ip.overrides); NULL/"" none */
    gr_sec_proto_t sec_proto;       /* the listener's security protocol */
    const char *listener_name;      /* e.g. "PLAINTEXT", "CLIENT"; must outlive the listener; NULL = "PLAINTEXT" */
    struct gr_tls_ctx *tls;         /* SSL / SASL_SSL: the TLS context (net/tls.h), owned by the caller and
                                       outliving the listener; NULL = plain TCP */
} gr_conn_opts_t;

/** Fill opts with the defaults above. */
void gr_conn_opts_default(gr_conn_opts_t *opts);

/** A complete request frame. `frame` (len bytes, without the size prefix) is
 *  malloc'd and owned by the callee, which must free() it. `seq` starts at 0
 *  and increases by one per frame; answer it with gr_conn_respond() or
 *  gr_conn_skip(). The callee may answer, close the connection, or do nothing
 *  yet from inside the callback. */
typedef void (*gr_conn_frame_cb)(void *ctx, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len);
/** Called once when the connection's fd has been closed (for any reason). The
 *  conn stays valid while unanswered sequence numbers remain. May be NULL. */
typedef void (*gr_conn_close_cb)(void *ctx, gr_conn_t *conn);
/** Called once for each accepted connection before any frame. May be NULL. */
typedef void (*gr_conn_accept_cb)(void *ctx, gr_conn_t *conn);
/** Connection creation quotas, asked for each accepted socket before it becomes a
 *  connection (after max.connections and max.connections.per.ip admitted it). addr is the
 *  peer (IPv4 mapped into IPv6), ip its text. Returns 0 to admit it, or a throttle time in
 *  ms: the socket is then held unserved for that long and closed (Kafka's per-IP
 *  connection_creation_rate). *pause_ms > 0 stops accepting on the listener for that long
 *  (Kafka's broker- and listener-wide max.connection.creation.rate). May be NULL. */
typedef int64_t (*gr_conn_admit_cb)(void *ctx, const char *listener_name, const uint8_t addr[16], const char *ip,
                                    int64_t *pause_ms);

typedef struct gr_conn_handler {
    gr_conn_frame_cb on_frame; /* required */
    gr_conn_close_cb on_close;
    gr_conn_accept_cb on_accept;
    gr_conn_admit_cb on_admit;
    void *ctx; /* passed to every callback (the broker) */
} gr_conn_handler_t;

/* ---------------------------------------------------------------- listener */

/** Bind and listen on host:port and accept connections into `loop`.
 *  host is a numeric IPv4/IPv6 address or a name; NULL or "" means every
 *  address. port 0 picks an ephemeral port (see gr_listener_port()).
 *  Sets SO_REUSEADDR on the listening socket and TCP_NODELAY on accepted ones.
 *  opts may be NULL for defaults; opts and handler are copied.
 *  On success *out is owned by the caller (gr_listener_close()).
 *  Returns GR_ERR__IO (bind/listen failure) or GR_ERR__INVALID_ARG (bad options,
 *  e.g. an override that does not parse or resolve), with errstr. */
gr_err_t gr_listener_open(gr_loop_t *loop, const char *host, uint16_t port, const gr_conn_opts_t *opts,
                          const gr_conn_handler_t *handler, gr_listener_t **out, char *errstr, size_t errstr_size);

/** The port the listener is bound to (useful after port 0). */
uint16_t gr_listener_port(const gr_listener_t *l);

/** Number of connections accepted by l that are still open. */
size_t gr_listener_conn_count(const gr_listener_t *l);
/** Why a connection was refused (accepted and closed at once). */
typedef enum gr_conn_refusal {
    GR_CONN_REFUSED_MAX_CONNECTIONS, /* max.connections */
    GR_CONN_REFUSED_MAX_PER_IP,      /* max.connections.per.ip (or its override) */
    GR_CONN_REFUSED_RATE_PER_IP,     /* connection_creation_rate of the IP: closed after the throttle time */
    GR_CONN_REFUSED__N
} gr_conn_refusal_t;
/** The configuration key named by a refusal reason ("max.connections", ...). */
const char *gr_conn_refusal_name(gr_conn_refusal_t r);
/** Connection counters of a listener since it opened (metrics). Refused connections
 *  are counted only in refused, never as accepted or closed. */
typedef struct gr_listener_stats {
    uint64_t open;     /* connections open now */
    uint64_t accepted; /* connections admitted */
    uint64_t closed;   /* admitted connections closed since (for any reason) */
    uint64_t refused[GR_CONN_REFUSED__N];
    uint64_t tls_ok, tls_failed; /* TLS handshakes completed / failed or timed out (SSL, SASL_SSL) */
} gr_listener_stats_t;
void gr_listener_stats(const gr_listener_t *l, gr_listener_stats_t *out);

/** Bytes in l's memory pool: buffers of frames being read plus frames handed out
 *  and not answered yet (see queued_max_bytes). */
size_t gr_listener_mem_used(const gr_listener_t *l);

/** Stop accepting, close every open connection of l (on_close runs for each)
 *  and free the listener. Connections with unanswered requests stay allocated
 *  until those are answered, as usual. Call it outside the listener's own
 *  callbacks (e.g. after gr_loop_run() returns), since the connections read
 *  through a buffer the listener owns. */
void gr_listener_close(gr_listener_t *l);

/* ---------------------------------------------------------------- connection */

/** Queue the response for `seq`, taking ownership of wb's contents (memory and
 *  file segments): *wb is left empty (gr_wbuf_init state) and may be reused.
 *  Output goes out once every earlier seq is answered. File segments are sent
 *  with sendfile(2); their release callbacks run once the response is fully
 *  written or dropped. On a closed connection the data is just freed.
 *  seq must have been handed out by on_frame and not answered yet. */
void gr_conn_respond(gr_conn_t *conn, uint64_t seq, gr_wbuf_t *wb);

/** Answer `seq` with no bytes (acks=0 produce). Same rules as gr_conn_respond. */
void gr_conn_skip(gr_conn_t *conn, uint64_t seq);

/** Close the connection now (e.g. a request the broker cannot parse). Queued
 *  output is dropped, on_close is called (from inside this call) unless the
 *  connection was already closed. conn stays valid as described above. */
void gr_conn_close(gr_conn_t *conn);

/** True once the fd has been closed. */
bool gr_conn_is_closed(const gr_conn_t *conn);

/** The peer as "1.2.3.4:5678" or "[::1]:5678". Valid as long as conn. */
const char *gr_conn_peer(const gr_conn_t *conn);

/** Connection id, unique among the connections of one listener (for logs
 *  and the broker's maps). */
uint64_t gr_conn_id(const gr_conn_t *conn);

/** Per-connection pointer for the broker (share sessions, auth state). The
 *  connection never touches it; release it in on_close. */
void gr_conn_set_user(gr_conn_t *conn, void *user);
void *gr_conn_user(const gr_conn_t *conn);

/** The authenticated principal, "User:ANONYMOUS" until TLS client authentication or
 *  SASL sets another (Kafka's KafkaPrincipal text form "Type:name"). Valid as long as
 *  conn or until the next gr_conn_set_principal. */
const char *gr_conn_principal(const gr_conn_t *conn);
/** Set the principal (copied; truncated at GR_CONN_PRINCIPAL_MAX - 1 bytes). */
void gr_conn_set_principal(gr_conn_t *conn, const char *principal);
#define GR_CONN_PRINCIPAL_MAX 256

/** Change this connection's frame size limit (a SASL listener bounds frames by
 *  sasl.server.max.receive.size until the client is authenticated); key (static, may be
 *  NULL) names the limit in the log line of a refused frame. Applies from the next frame. */
void gr_conn_set_max_request_bytes(gr_conn_t *conn, size_t max, const char *key);

/** The security protocol and the name of the listener that accepted conn. */
gr_sec_proto_t gr_conn_sec_proto(const gr_conn_t *conn);
const char *gr_conn_listener_name(const gr_conn_t *conn);

/** Requests handed out and not answered yet. */
uint64_t gr_conn_pending(const gr_conn_t *conn);

/** Bytes of answered responses queued but not written yet. */
size_t gr_conn_out_bytes(const gr_conn_t *conn);

/** Stop reading requests from conn for ms milliseconds (Kafka mutes a throttled client's
 *  channel after answering it). Responses still go out; a longer mute extends, a shorter
 *  one is ignored. Never blocks: a timer resumes the connection. */
void gr_conn_mute(gr_conn_t *conn, int64_t ms);
/** True while a gr_conn_mute is in force. */
bool gr_conn_is_muted(const gr_conn_t *conn);

/** True while backpressure keeps the connection from reading. */
bool gr_conn_is_paused(const gr_conn_t *conn);

#endif
