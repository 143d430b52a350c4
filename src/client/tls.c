/* libgregor TLS, see tls_int.h. Property names are librdkafka's (ssl.ca.location,
 * ssl.certificate.location, ssl.key.location, ssl.key.password,
 * ssl.endpoint.identification.algorithm, enable.ssl.certificate.verification). */
#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_int.h"
#include "client/conf_int.h"
#include "client/tls_int.h"

struct gr__tls_ctx {
    SSL_CTX *ctx;
    bool check_host;
};

struct gr__tls {
    SSL *ssl;
    bool want_write;
};

static const char *ossl_err(char *buf, size_t n) {
    unsigned long e = ERR_peek_last_error();
    if (e)
        ERR_error_string_n(e, buf, n);
    else
        snprintf(buf, n, "unknown error");
    ERR_clear_error();
    return buf;
}

static int pw_cb(char *buf, int size, int rwflag, void *u) {
    const char *pw = u;
    int n = pw ? (int)strlen(pw) : 0;
    if (!pw || n > size) return 0;
    memcpy(buf, pw, (size_t)n);
    return n;
}

static bool set(const char *s) { return s && *s; }

gr_err_t gr__tls_ctx_new(const gr_conf_t *conf, gr__tls_ctx_t **out, char *errstr, size_t sz) {
    char r[256];
    *out = NULL;
    int64_t proto = gr__conf_int(conf, GR__CP_SECURITY_PROTOCOL);
    if (proto != 1 && proto != 3) return GR_ERR_NONE; /* ssl, sasl_ssl */
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) abort();
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    const char *ca = gr__conf_str(conf, GR__CP_SSL_CA_LOCATION), *cert = gr__conf_str(conf, GR__CP_SSL_CERT_LOCATION);
    const char *key = gr__conf_str(conf, GR__CP_SSL_KEY_LOCATION), *pw = gr__conf_str(conf, GR__CP_SSL_KEY_PASSWORD);
    gr_err_t err = GR_ERR__INVALID_ARG;
    SSL_CTX_set_default_passwd_cb(ctx, pw_cb);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, set(pw) ? (void *)pw : NULL);
    if (set(ca) ? SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1 : SSL_CTX_set_default_verify_paths(ctx) != 1)
        gr__fmt(err, errstr, sz, "ssl.ca.location=%s: cannot load CA certificates: %s", ca, ossl_err(r, sizeof(r)));
    else if (set(cert) != set(key))
        gr__fmt(err, errstr, sz, "ssl.certificate.location and ssl.key.location go together");
    else if (set(cert) && SSL_CTX_use_certificate_chain_file(ctx, cert) != 1)
        gr__fmt(err, errstr, sz, "ssl.certificate.location=%s: %s", cert, ossl_err(r, sizeof(r)));
    else if (set(key) && SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
        gr__fmt(err, errstr, sz, "ssl.key.location=%s: %s (wrong or missing ssl.key.password?)", key,
                ossl_err(r, sizeof(r)));
    else if (set(key) && SSL_CTX_check_private_key(ctx) != 1)
        gr__fmt(err, errstr, sz, "ssl.key.location=%s does not match ssl.certificate.location", key);
    else
        err = GR_ERR_NONE;
    if (err) {
        SSL_CTX_free(ctx);
        return err;
    }
    if (gr__conf_int(conf, GR__CP_SSL_VERIFY)) SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    gr__tls_ctx_t *t = calloc(1, sizeof(*t));
    if (!t) abort();
    t->ctx = ctx;
    t->check_host = gr__conf_int(conf, GR__CP_SSL_ENDPOINT_ID) == 1 && gr__conf_int(conf, GR__CP_SSL_VERIFY);
    *out = t;
    return GR_ERR_NONE;
}

void gr__tls_ctx_free(gr__tls_ctx_t *t) {
    if (!t) return;
    SSL_CTX_free(t->ctx);
    free(t);
}

gr__tls_t *gr__tls_new(gr__tls_ctx_t *ctx, int fd, const char *host) {
    gr__tls_t *t = calloc(1, sizeof(*t));
    if (!t) abort();
    t->ssl = SSL_new(ctx->ctx);
    if (!t->ssl || SSL_set_fd(t->ssl, fd) != 1) abort();
    unsigned char ip[16];
    bool is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    if (!is_ip) SSL_set_tlsext_host_name(t->ssl, host); /* SNI */
    if (ctx->check_host) {
        X509_VERIFY_PARAM *vp = SSL_get0_param(t->ssl);
        if (is_ip)
            X509_VERIFY_PARAM_set1_ip_asc(vp, host);
        else
            X509_VERIFY_PARAM_set1_host(vp, host, 0);
    }
    SSL_set_connect_state(t->ssl);
    return t;
}

void gr__tls_free(gr__tls_t *t) {
    if (!t) return;
    ERR_clear_error();
    SSL_free(t->ssl);
    free(t);
}

/* 0 again, -1 failed with err set. */
static int fail(gr__tls_t *t, int rc, char *err, size_t n) {
    int e = SSL_get_error(t->ssl, rc);
    t->want_write = e == SSL_ERROR_WANT_WRITE;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    if (e == SSL_ERROR_ZERO_RETURN) {
        snprintf(err, n, "connection closed by the broker");
    } else if (e == SSL_ERROR_SYSCALL && !ERR_peek_last_error()) {
        if (errno == EAGAIN || errno == EINTR) return 0;
        snprintf(err, n, "%s", errno ? strerror(errno) : "connection closed by the broker");
    } else {
        char r[256];
        long v = SSL_get_verify_result(t->ssl);
        snprintf(err, n, "%s%s%s", ossl_err(r, sizeof(r)), v != X509_V_OK ? ": " : "",
                 v != X509_V_OK ? X509_verify_cert_error_string(v) : "");
    }
    ERR_clear_error();
    return -1;
}

int gr__tls_handshake(gr__tls_t *t, char *err, size_t n) {
    ERR_clear_error();
    int rc = SSL_do_handshake(t->ssl);
    if (rc == 1) {
        t->want_write = false;
        return 1;
    }
    return fail(t, rc, err, n);
}

ssize_t gr__tls_read(gr__tls_t *t, void *buf, size_t n, char *err, size_t en) {
    ERR_clear_error();
    int rc = SSL_read(t->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    return rc > 0 ? rc : fail(t, rc, err, en);
}

ssize_t gr__tls_write(gr__tls_t *t, const void *buf, size_t n, char *err, size_t en) {
    ERR_clear_error();
    int rc = SSL_write(t->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    return rc > 0 ? rc : fail(t, rc, err, en);
}

bool gr__tls_want_write(const gr__tls_t *t) { return t->want_write; }
bool gr__tls_pending(const gr__tls_t *t) { return SSL_pending(t->ssl) > 0; }
