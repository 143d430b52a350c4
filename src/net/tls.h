/* TLS for listeners (OpenSSL), driven by the event loop: the server-side context built from
 * Kafka's ssl.* settings, and the per-connection steps conn.c calls. Nothing here blocks:
 * handshakes, reads and writes return "again" (want read / want write) and the connection
 * retries when epoll says so.
 *
 * @locality: contexts are built at start-up, or on the loop thread when a dynamic broker config
 * changes a keystore (gr_tls_ctx_adopt); connection functions run on the loop thread. */
#ifndef GR_NET_TLS_H
#define GR_NET_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

typedef struct gr_tls_ctx gr_tls_ctx_t;

typedef enum { GR_TLS_AUTH_NONE, GR_TLS_AUTH_REQUESTED, GR_TLS_AUTH_REQUIRED } gr_tls_client_auth_t;

/** Maps a client certificate's subject (RFC 2253) to a principal name (without "User:");
 *  false (reason in err) fails the connection, as Kafka's NoMatchingRule does. */
typedef bool (*gr_tls_principal_fn)(void *arg, const char *dn, char *out, size_t out_size, char *err, size_t err_size);

/** A listener's effective ssl.* settings (listener.name.<l>.ssl.* already applied).
 *  Strings may be NULL or "" for "not set". */
typedef struct gr_tls_opts {
    const char *keystore_type;     /* ssl.keystore.type: only PEM is served */
    const char *keystore_location; /* PEM file: private key and certificate chain */
    const char *keystore_chain;    /* ssl.keystore.certificate.chain: inline PEM */
    const char *keystore_key;      /* ssl.keystore.key: inline PEM */
    const char *key_password;      /* ssl.key.password (encrypted key) */
    const char *truststore_type;   /* ssl.truststore.type: only PEM */
    const char *truststore_location, *truststore_certs;
    gr_tls_client_auth_t client_auth;
    const char *enabled_protocols; /* "TLSv1.2,TLSv1.3" */
    const char *protocol;          /* ssl.protocol: the highest version offered */
    const char *cipher_suites;     /* Kafka (IANA) names; "" = OpenSSL's defaults */
    gr_tls_principal_fn map_principal;
    void *map_arg;
} gr_tls_opts_t;

/** Build a server context. `listener` names the listener in messages. Errors name the
 *  config key, e.g. "listener SSL: ssl.keystore.location=/x: cannot read ...". */
gr_err_t gr_tls_ctx_new(const gr_tls_opts_t *o, const char *listener, gr_tls_ctx_t **out, char *errstr,
                        size_t errstr_size);
void gr_tls_ctx_free(gr_tls_ctx_t *ctx);

/** Dynamic keystore change (Kafka's SslFactory rules): unless allowed, the leaf certificate
 *  of `next` must have the subject of `cur`'s (X509_NAME_cmp, or RFC 2253 text equal ignoring
 *  case) and at least its subject alternative names. False with Kafka's message in err. */
bool gr_tls_ctx_same_identity(const gr_tls_ctx_t *cur, const gr_tls_ctx_t *next, bool allow_dn, bool allow_san,
                              char *err, size_t err_size);
/** Move next's certificate context into ctx (freeing next): connections accepted from now on
 *  use it; established ones keep their session (each SSL holds a reference to its own). */
void gr_tls_ctx_adopt(gr_tls_ctx_t *ctx, gr_tls_ctx_t *next);

/** Whether the kernel offers kTLS (the "tls" TCP ULP): then file segments of a fetch go
 *  out with SSL_sendfile, else through pread + SSL_write. */
bool gr_tls_ktls_available(void);

/* ---- per connection (conn.c) ---- */
typedef struct gr_tls_conn gr_tls_conn_t;

enum { GR_TLS_OK = 1, GR_TLS_AGAIN = 0, GR_TLS_EOF = -1, GR_TLS_ERR = -2 };

/** A TLS session on an accepted non-blocking fd. */
gr_tls_conn_t *gr_tls_conn_new(gr_tls_ctx_t *ctx, int fd);
/** Send close_notify (best effort, never waits) if the handshake finished, and free. */
void gr_tls_conn_free(gr_tls_conn_t *t, bool clean);
/** Advance the handshake: GR_TLS_OK when done (principal filled: "User:..." from the client
 *  certificate, or "" without one), GR_TLS_AGAIN, GR_TLS_ERR (reason in err). */
int gr_tls_handshake(gr_tls_conn_t *t, char *principal, size_t principal_size, char *err, size_t err_size);
bool gr_tls_done(const gr_tls_conn_t *t);
/** Read up to n bytes: >0 bytes, 0 again, GR_TLS_EOF, GR_TLS_ERR. */
ssize_t gr_tls_read(gr_tls_conn_t *t, void *buf, size_t n, char *err, size_t err_size);
/** Write up to n bytes (a retry after "again" must pass the same bytes, possibly more). */
ssize_t gr_tls_write(gr_tls_conn_t *t, const void *buf, size_t n, char *err, size_t err_size);
/** Send len bytes of file fd at off: SSL_sendfile under kTLS, else pread into a bounce
 *  buffer and SSL_write. Same returns as gr_tls_write. */
ssize_t gr_tls_sendfile(gr_tls_conn_t *t, int fd, off_t off, size_t len, char *err, size_t err_size);
/** Last "again" was for the other direction (TLS 1.3 KeyUpdate, renegotiation refusal). */
bool gr_tls_wants_write(const gr_tls_conn_t *t);
bool gr_tls_wants_read(const gr_tls_conn_t *t);
/** Decrypted bytes buffered inside OpenSSL (epoll will not report them). */
bool gr_tls_pending(const gr_tls_conn_t *t);

#endif
