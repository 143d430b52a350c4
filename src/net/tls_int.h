/* Internals shared by tls_ctx.c and tls.c. */
#ifndef GR_NET_TLS_INT_H
#define GR_NET_TLS_INT_H

#include <openssl/ssl.h>

#include "net/tls.h"

#define GR__TLS_BOUNCE (64u << 10) /* file bytes per SSL_write without kTLS */

struct gr_tls_ctx {
    SSL_CTX *ctx;
    gr_tls_principal_fn map_principal;
    void *map_arg;
    bool ktls;       /* the kernel has kTLS: try SSL_sendfile */
    uint8_t *bounce; /* pread buffer for file segments, shared (one loop thread) */
};

#endif
