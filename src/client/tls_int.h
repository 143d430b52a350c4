/* libgregor TLS (security.protocol=ssl): one OpenSSL context per client built from the
 * ssl.* properties, one session per broker connection driven by the client's poll loop. */
#ifndef GR_CLIENT_TLS_INT_H
#define GR_CLIENT_TLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gregor/conf.h"
#include "gregor/error.h"

typedef struct gr__tls_ctx gr__tls_ctx_t;
typedef struct gr__tls gr__tls_t;

/** *out = NULL for plaintext. Errors name the property ("ssl.ca.location=...: ..."). */
gr_err_t gr__tls_ctx_new(const gr_conf_t *conf, gr__tls_ctx_t **out, char *errstr, size_t errstr_size);
void gr__tls_ctx_free(gr__tls_ctx_t *ctx);

/** A client session on a connected non-blocking fd; host is checked against the broker's
 *  certificate when ssl.endpoint.identification.algorithm=https. */
gr__tls_t *gr__tls_new(gr__tls_ctx_t *ctx, int fd, const char *host);
void gr__tls_free(gr__tls_t *t);
/** 1 done, 0 again (see gr__tls_want_write), -1 failed (reason in err). */
int gr__tls_handshake(gr__tls_t *t, char *err, size_t err_size);
/** >0 bytes, 0 again, -1 failed or closed (reason in err). */
ssize_t gr__tls_read(gr__tls_t *t, void *buf, size_t n, char *err, size_t err_size);
ssize_t gr__tls_write(gr__tls_t *t, const void *buf, size_t n, char *err, size_t err_size);
/** The last "again" waits for the socket to be writable. */
bool gr__tls_want_write(const gr__tls_t *t);
/** Decrypted bytes are waiting inside OpenSSL (poll cannot see them). */
bool gr__tls_pending(const gr__tls_t *t);

#endif
