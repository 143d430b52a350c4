/* TLS on one connection (see tls.h): non-blocking handshake, reads and writes through
 * OpenSSL, file segments through kTLS or a bounce buffer, close_notify on close. */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/tls_int.h"

struct gr_tls_conn {
    gr_tls_ctx_t *ctx;
    SSL *ssl;
    bool done, failed;
    bool wants_write, wants_read; /* the last "again" waits for the other direction */
    bool ktls_send;
};

gr_tls_conn_t *gr_tls_conn_new(gr_tls_ctx_t *ctx, int fd) {
    gr_tls_conn_t *t = calloc(1, sizeof(*t));
    if (!t) abort();
    t->ctx = ctx;
    t->ssl = SSL_new(ctx->ctx);
    if (!t->ssl || SSL_set_fd(t->ssl, fd) != 1) abort();
    SSL_set_accept_state(t->ssl);
    return t;
}

void gr_tls_conn_free(gr_tls_conn_t *t, bool clean) {
    if (!t) return;
    if (clean && t->done && !t->failed) {
        ERR_clear_error();
        SSL_shutdown(t->ssl); /* sends close_notify if the socket takes it; never waits for the peer's */
    }
    ERR_clear_error();
    SSL_free(t->ssl);
    free(t);
}

bool gr_tls_done(const gr_tls_conn_t *t) { return t->done; }
bool gr_tls_wants_write(const gr_tls_conn_t *t) { return t->wants_write; }
bool gr_tls_wants_read(const gr_tls_conn_t *t) { return t->wants_read; }
bool gr_tls_pending(const gr_tls_conn_t *t) { return t->done && SSL_pending(t->ssl) > 0; }

/* Classify a failed SSL_* call: GR_TLS_AGAIN (direction noted), GR_TLS_EOF or GR_TLS_ERR. */
static int fail(gr_tls_conn_t *t, int rc, bool reading, char *err, size_t n) {
    int e = SSL_get_error(t->ssl, rc);
    t->wants_write = t->wants_read = false;
    if (e == SSL_ERROR_WANT_READ) {
        t->wants_read = !reading;
        return GR_TLS_AGAIN;
    }
    if (e == SSL_ERROR_WANT_WRITE) {
        t->wants_write = reading;
        return GR_TLS_AGAIN;
    }
    if (e == SSL_ERROR_ZERO_RETURN) return GR_TLS_EOF;
    unsigned long code = ERR_peek_last_error();
    if (e == SSL_ERROR_SYSCALL && !code) {
        if (errno == EAGAIN || errno == EINTR) return GR_TLS_AGAIN;
        snprintf(err, n, "%s", errno ? strerror(errno) : "connection closed");
    } else if (code) {
        ERR_error_string_n(code, err, n);
    } else {
        snprintf(err, n, "TLS error %d", e);
    }
    ERR_clear_error();
    t->failed = true; /* no close_notify after a fatal error */
    return GR_TLS_ERR;
}

/* "User:<mapped subject>" of a verified client certificate, "" without one. */
static bool principal_of(gr_tls_conn_t *t, char *out, size_t n, char *err, size_t en) {
    out[0] = '\0';
    X509 *peer = SSL_get0_peer_certificate(t->ssl);
    if (!peer || SSL_get_verify_result(t->ssl) != X509_V_OK) return true;
    BIO *bio = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(bio, X509_get_subject_name(peer), 0, XN_FLAG_RFC2253);
    char dn[1024];
    int len = BIO_read(bio, dn, sizeof(dn) - 1);
    BIO_free(bio);
    dn[len > 0 ? len : 0] = '\0';
    char name[512];
    if (!t->ctx->map_principal) {
        snprintf(out, n, "User:%.*s", (int)(n > 6 ? n - 6 : 0), dn);
        return true;
    }
    if (!t->ctx->map_principal(t->ctx->map_arg, dn, name, sizeof(name), err, en)) return false;
    snprintf(out, n, "User:%s", name);
    return true;
}

int gr_tls_handshake(gr_tls_conn_t *t, char *principal, size_t pn, char *err, size_t en) {
    if (t->done) return GR_TLS_OK;
    ERR_clear_error();
    int rc = SSL_do_handshake(t->ssl);
    if (rc != 1) {
        int r = fail(t, rc, true, err, en);
        t->wants_read = SSL_want_read(t->ssl);
        t->wants_write = SSL_want_write(t->ssl);
        if (r == GR_TLS_EOF) {
            snprintf(err, en, "connection closed during the handshake");
            r = GR_TLS_ERR;
        }
        return r;
    }
    t->done = true;
    t->wants_read = t->wants_write = false;
    t->ktls_send = BIO_get_ktls_send(SSL_get_wbio(t->ssl)) > 0;
    if (!principal_of(t, principal, pn, err, en)) {
        t->failed = true;
        return GR_TLS_ERR;
    }
    return GR_TLS_OK;
}

ssize_t gr_tls_read(gr_tls_conn_t *t, void *buf, size_t n, char *err, size_t en) {
    ERR_clear_error();
    int rc = SSL_read(t->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (rc > 0) {
        t->wants_write = false;
        return rc;
    }
    return fail(t, rc, true, err, en);
}

ssize_t gr_tls_write(gr_tls_conn_t *t, const void *buf, size_t n, char *err, size_t en) {
    ERR_clear_error();
    int rc = SSL_write(t->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (rc > 0) {
        t->wants_read = false;
        return rc;
    }
    return fail(t, rc, false, err, en);
}

ssize_t gr_tls_sendfile(gr_tls_conn_t *t, int fd, off_t off, size_t len, char *err, size_t en) {
    if (t->ktls_send) {
        ERR_clear_error();
        ossl_ssize_t rc = SSL_sendfile(t->ssl, fd, off, len, 0);
        if (rc > 0) return rc;
        return fail(t, (int)rc, false, err, en);
    }
    if (!t->ctx->bounce && !(t->ctx->bounce = malloc(GR__TLS_BOUNCE))) abort();
    size_t want = len < GR__TLS_BOUNCE ? len : GR__TLS_BOUNCE;
    ssize_t got = pread(fd, t->ctx->bounce, want, off);
    if (got <= 0) {
        snprintf(err, en, "file segment: %s", got < 0 ? strerror(errno) : "ended early");
        t->failed = true;
        return GR_TLS_ERR;
    }
    return gr_tls_write(t, t->ctx->bounce, (size_t)got, err, en);
}
