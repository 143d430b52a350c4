/* Server TLS contexts from Kafka's ssl.* settings (see tls.h). Every refusal names the
 * listener and the key, so start-up can print it as its one error line. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/tls_int.h"

static bool set(const char *s) { return s && *s; }

/* The last OpenSSL error as text ("" if none), and the queue cleared. */
static const char *ossl_reason(char *buf, size_t n) {
    unsigned long e = ERR_peek_last_error();
    buf[0] = '\0';
    if (e) ERR_error_string_n(e, buf, n);
    ERR_clear_error();
    return buf;
}

/* A key without ssl.key.password must not make OpenSSL prompt on the terminal. */
static int pw_cb(char *buf, int size, int rwflag, void *u) {
    const char *pw = u;
    if (!pw) return 0;
    int n = (int)strlen(pw);
    if (n > size) return -1;
    memcpy(buf, pw, (size_t)n);
    return n;
}

static char *read_file(const char *path, size_t *len, char *why, size_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, n, "%s", strerror(errno));
        return NULL;
    }
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    if (!buf) abort();
    size_t got;
    while ((got = fread(buf + used, 1, cap - used, f)) > 0) {
        used += got;
        if (used == cap && !(buf = realloc(buf, cap *= 2))) abort();
        if (cap > (64u << 20)) break; /* not a PEM file anyone meant */
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(why, n, "read error");
        free(buf);
        return NULL;
    }
    *len = used;
    return buf;
}

/* Certificates of a PEM text, in order (other PEM blocks, like the key, are skipped). */
static STACK_OF(X509) * read_certs(const char *pem, size_t len) {
    STACK_OF(X509) *sk = sk_X509_new_null();
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    X509 *x;
    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) sk_X509_push(sk, x);
    ERR_clear_error(); /* the loop ends with "no start line" */
    BIO_free(bio);
    return sk;
}

/* Inline PEM from a .properties file often lost its line breaks (a "\" continuation joins
 * lines); OpenSSL needs them, so put them back: header, 64-column body, footer. */
static char *pem_lines(const char *s) {
    size_t n = strlen(s), o = 0;
    char *out = malloc(2 * n + 64);
    if (!out) abort();
    const char *p = s;
    while ((p = strstr(p, "-----BEGIN "))) {
        const char *he = strstr(p + 11, "-----"), *f = he ? strstr(he + 5, "-----END ") : NULL;
        const char *fe = f ? strstr(f + 9, "-----") : NULL;
        if (!fe) break;
        o += (size_t)sprintf(out + o, "%.*s\n", (int)(he + 5 - p), p);
        size_t col = 0;
        for (const char *c = he + 5; c < f; c++) {
            if (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') continue;
            out[o++] = *c;
            if (++col == 64) out[o++] = '\n', col = 0;
        }
        if (col) out[o++] = '\n';
        o += (size_t)sprintf(out + o, "%.*s\n", (int)(fe + 5 - f), f);
        p = fe + 5;
    }
    out[o] = '\0';
    return out;
}

/* Leaf + chain + key from PEM texts; `where` names the setting(s) for messages. */
static gr_err_t use_keystore(SSL_CTX *ctx, const char *certs, size_t cl, const char *key, size_t kl,
                             const gr_tls_opts_t *o, const char *where, char *errstr, size_t sz) {
    char r[256];
    gr_err_t err = GR_ERR_INVALID_CONFIG;
    STACK_OF(X509) *sk = read_certs(certs, cl);
    BIO *bio = BIO_new_mem_buf(key, (int)kl);
    EVP_PKEY *pk = PEM_read_bio_PrivateKey(bio, NULL, pw_cb, (void *)(set(o->key_password) ? o->key_password : NULL));
    bool encrypted = memmem(key, kl, "ENCRYPTED", 9) != NULL;
    if (sk_X509_num(sk) == 0) {
        ERR_clear_error();
        snprintf(errstr, sz, "%s: no PEM certificate found", where);
    } else if (!pk && encrypted) {
        snprintf(errstr, sz, "%s: cannot decrypt the private key: %s ssl.key.password (%s)", where,
                 set(o->key_password) ? "wrong" : "missing", ossl_reason(r, sizeof(r)));
    } else if (!pk) {
        snprintf(errstr, sz, "%s: no PEM private key found (%s)", where, ossl_reason(r, sizeof(r)));
    } else if (SSL_CTX_use_certificate(ctx, sk_X509_value(sk, 0)) != 1 || SSL_CTX_use_PrivateKey(ctx, pk) != 1 ||
               SSL_CTX_check_private_key(ctx) != 1) {
        snprintf(errstr, sz, "%s: the private key does not match the certificate or is unusable (%s)", where,
                 ossl_reason(r, sizeof(r)));
    } else {
        err = GR_ERR_NONE;
        for (int i = 1; i < sk_X509_num(sk) && !err; i++)
            if (SSL_CTX_add1_chain_cert(ctx, sk_X509_value(sk, i)) != 1) {
                snprintf(errstr, sz, "%s: bad chain certificate %d (%s)", where, i, ossl_reason(r, sizeof(r)));
                err = GR_ERR_INVALID_CONFIG;
            }
    }
    EVP_PKEY_free(pk);
    BIO_free(bio);
    sk_X509_pop_free(sk, X509_free);
    return err;
}

static gr_err_t load_keystore(SSL_CTX *ctx, const gr_tls_opts_t *o, const char *l, char *errstr, size_t sz) {
    char where[600], why[256];
    const char *type = set(o->keystore_type) ? o->keystore_type : "JKS";
    if (!set(o->keystore_location) && !set(o->keystore_chain) && !set(o->keystore_key)) {
        snprintf(errstr, sz,
                 "listener %s: no keystore: set ssl.keystore.location (a PEM file with the private key and the "
                 "certificate chain) or ssl.keystore.certificate.chain and ssl.keystore.key",
                 l);
        return GR_ERR_INVALID_CONFIG;
    }
    if (strcasecmp(type, "PEM")) {
        snprintf(errstr, sz,
                 "listener %s: Invalid value %s for configuration ssl.keystore.type: gregord reads PEM keystores "
                 "only (ssl.keystore.type=PEM)",
                 l, type);
        return GR_ERR_INVALID_CONFIG;
    }
    bool inline_ks = set(o->keystore_chain) || set(o->keystore_key);
    if (set(o->keystore_location) && inline_ks) {
        snprintf(errstr, sz,
                 "listener %s: set either ssl.keystore.location or ssl.keystore.certificate.chain and "
                 "ssl.keystore.key, not both",
                 l);
        return GR_ERR_INVALID_CONFIG;
    }
    if (inline_ks) {
        if (!set(o->keystore_chain) || !set(o->keystore_key)) {
            snprintf(errstr, sz, "listener %s: ssl.keystore.certificate.chain and ssl.keystore.key go together", l);
            return GR_ERR_INVALID_CONFIG;
        }
        snprintf(where, sizeof(where), "listener %s: ssl.keystore.certificate.chain/ssl.keystore.key", l);
        char *chain = pem_lines(o->keystore_chain), *key = pem_lines(o->keystore_key);
        gr_err_t err = use_keystore(ctx, chain, strlen(chain), key, strlen(key), o, where, errstr, sz);
        free(chain);
        free(key);
        return err;
    }
    snprintf(where, sizeof(where), "listener %s: ssl.keystore.location=%s", l, o->keystore_location);
    size_t len = 0;
    char *pem = read_file(o->keystore_location, &len, why, sizeof(why));
    if (!pem) {
        snprintf(errstr, sz, "%s: cannot read: %s", where, why);
        return GR_ERR_INVALID_CONFIG;
    }
    gr_err_t err = use_keystore(ctx, pem, len, pem, len, o, where, errstr, sz);
    free(pem);
    return err;
}

static gr_err_t load_truststore(SSL_CTX *ctx, const gr_tls_opts_t *o, const char *l, char *errstr, size_t sz) {
    char why[256];
    const char *type = set(o->truststore_type) ? o->truststore_type : "JKS";
    bool any = set(o->truststore_location) || set(o->truststore_certs);
    if (any && strcasecmp(type, "PEM")) {
        snprintf(errstr, sz,
                 "listener %s: Invalid value %s for configuration ssl.truststore.type: gregord reads PEM truststores "
                 "only (ssl.truststore.type=PEM)",
                 l, type);
        return GR_ERR_INVALID_CONFIG;
    }
    if (!any) return SSL_CTX_set_default_verify_paths(ctx) == 1 ? GR_ERR_NONE : GR_ERR_INVALID_CONFIG;
    char *pem = NULL;
    size_t len = 0;
    const char *what = set(o->truststore_location) ? "ssl.truststore.location" : "ssl.truststore.certificates";
    if (set(o->truststore_location) && !(pem = read_file(o->truststore_location, &len, why, sizeof(why)))) {
        snprintf(errstr, sz, "listener %s: ssl.truststore.location=%s: cannot read: %s", l, o->truststore_location,
                 why);
        return GR_ERR_INVALID_CONFIG;
    }
    if (!pem) {
        pem = pem_lines(o->truststore_certs);
        len = strlen(pem);
    }
    STACK_OF(X509) *sk = read_certs(pem, len);
    free(pem);
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    STACK_OF(X509_NAME) *cas = sk_X509_NAME_new_null();
    for (int i = 0; i < sk_X509_num(sk); i++) {
        X509_STORE_add_cert(store, sk_X509_value(sk, i));
        sk_X509_NAME_push(cas, X509_NAME_dup(X509_get_subject_name(sk_X509_value(sk, i))));
    }
    int n = sk_X509_num(sk);
    sk_X509_pop_free(sk, X509_free);
    ERR_clear_error();
    SSL_CTX_set_client_CA_list(ctx, cas); /* the issuers a client certificate may come from */
    if (n == 0) {
        snprintf(errstr, sz, "listener %s: %s: no PEM certificate found", l, what);
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

static int proto_version(const char *s, size_t n) {
    static const struct {
        const char *name;
        int v;
    } t[] = {
        {"TLSv1", TLS1_VERSION}, {"TLSv1.1", TLS1_1_VERSION}, {"TLSv1.2", TLS1_2_VERSION}, {"TLSv1.3", TLS1_3_VERSION}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strlen(t[i].name) == n && !strncmp(t[i].name, s, n)) return t[i].v;
    return 0;
}

/* ssl.enabled.protocols gives the range offered; ssl.protocol caps it (TLSv1.2 = no 1.3). */
static gr_err_t set_protocols(SSL_CTX *ctx, const gr_tls_opts_t *o, const char *l, char *errstr, size_t sz) {
    const char *list = set(o->enabled_protocols) ? o->enabled_protocols : "TLSv1.2,TLSv1.3";
    int lo = 0, hi = 0;
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ') p++;
        size_t n = strcspn(p, ", ");
        if (!n) break;
        int v = proto_version(p, n);
        if (!v) {
            snprintf(errstr, sz,
                     "listener %s: Invalid value %s for configuration ssl.enabled.protocols: unsupported protocol "
                     "%.*s (use TLSv1.2, TLSv1.3)",
                     l, list, (int)n, p);
            return GR_ERR_INVALID_CONFIG;
        }
        lo = !lo || v < lo ? v : lo;
        hi = v > hi ? v : hi;
        p += n;
    }
    const char *proto = set(o->protocol) ? o->protocol : "TLSv1.3";
    int cap = !strcmp(proto, "TLS") ? TLS1_3_VERSION : proto_version(proto, strlen(proto));
    if (!cap || !lo) {
        snprintf(errstr, sz, "listener %s: Invalid value %s for configuration %s: use TLSv1.2 or TLSv1.3", l,
                 cap ? list : proto, cap ? "ssl.enabled.protocols" : "ssl.protocol");
        return GR_ERR_INVALID_CONFIG;
    }
    if (hi > cap) hi = cap;
    if (hi < lo) {
        snprintf(errstr, sz, "listener %s: ssl.protocol=%s excludes every protocol in ssl.enabled.protocols=%s", l,
                 proto, list);
        return GR_ERR_INVALID_CONFIG;
    }
    SSL_CTX_set_min_proto_version(ctx, lo);
    SSL_CTX_set_max_proto_version(ctx, hi);
    return GR_ERR_NONE;
}

/* ssl.cipher.suites holds IANA names (Kafka/JSSE); OpenSSL names TLS 1.2 suites its own way. */
static gr_err_t set_ciphers(SSL_CTX *ctx, const gr_tls_opts_t *o, const char *l, char *errstr, size_t sz) {
    if (!set(o->cipher_suites)) return GR_ERR_NONE;
    SSL_CTX *all = SSL_CTX_new(TLS_method());
    SSL_CTX_set_cipher_list(all, "ALL:COMPLEMENTOFALL");
    STACK_OF(SSL_CIPHER) *sk = SSL_CTX_get_ciphers(all);
    char v12[4096] = "", v13[1024] = "";
    gr_err_t err = GR_ERR_NONE;
    for (const char *p = o->cipher_suites; *p && !err;) {
        while (*p == ',' || *p == ' ') p++;
        size_t n = strcspn(p, ", ");
        if (!n) break;
        const SSL_CIPHER *found = NULL;
        for (int i = 0; i < sk_SSL_CIPHER_num(sk) && !found; i++) {
            const char *std = SSL_CIPHER_standard_name(sk_SSL_CIPHER_value(sk, i));
            if (std && strlen(std) == n && !strncmp(std, p, n)) found = sk_SSL_CIPHER_value(sk, i);
        }
        if (!found) {
            snprintf(errstr, sz,
                     "listener %s: Invalid value %s for configuration ssl.cipher.suites: unknown suite %.*s", l,
                     o->cipher_suites, (int)n, p);
            err = GR_ERR_INVALID_CONFIG;
        } else {
            bool is13 = !strcmp(SSL_CIPHER_get_version(found), "TLSv1.3");
            char *dst = is13 ? v13 : v12;
            size_t cap = is13 ? sizeof(v13) : sizeof(v12), dl = strlen(dst);
            snprintf(dst + dl, cap - dl, "%s%s", dl ? ":" : "",
                     is13 ? SSL_CIPHER_standard_name(found) : SSL_CIPHER_get_name(found));
        }
        p += n;
    }
    SSL_CTX_free(all);
    if (err) return err;
    SSL_CTX_set_ciphersuites(ctx, v13); /* "" turns TLS 1.3 off */
    if (!v13[0]) SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
    if (v12[0])
        SSL_CTX_set_cipher_list(ctx, v12);
    else
        SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    ERR_clear_error();
    return GR_ERR_NONE;
}

gr_err_t gr_tls_ctx_new(const gr_tls_opts_t *o, const char *l, gr_tls_ctx_t **out, char *errstr, size_t sz) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) abort();
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE
#ifdef SSL_OP_ENABLE_KTLS
                                 | SSL_OP_ENABLE_KTLS
#endif
    );
    /* Partial writes with a moving buffer let conn.c retry from its cursor; released
     * buffers keep idle TLS connections small. */
    SSL_CTX_set_mode(ctx,
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    static const unsigned char sid[] = "gregord";
    SSL_CTX_set_session_id_context(ctx, sid, sizeof(sid) - 1);
    gr_err_t err;
    if ((err = set_protocols(ctx, o, l, errstr, sz)) || (err = set_ciphers(ctx, o, l, errstr, sz)) ||
        (err = load_keystore(ctx, o, l, errstr, sz)) ||
        (o->client_auth != GR_TLS_AUTH_NONE && (err = load_truststore(ctx, o, l, errstr, sz)))) {
        SSL_CTX_free(ctx);
        ERR_clear_error();
        return err;
    }
    if (o->client_auth != GR_TLS_AUTH_NONE)
        SSL_CTX_set_verify(
            ctx, SSL_VERIFY_PEER | (o->client_auth == GR_TLS_AUTH_REQUIRED ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
            NULL);
    gr_tls_ctx_t *t = calloc(1, sizeof(*t));
    if (!t) abort();
    t->ctx = ctx;
    t->map_principal = o->map_principal;
    t->map_arg = o->map_arg;
    t->ktls = gr_tls_ktls_available();
    *out = t;
    return GR_ERR_NONE;
}

void gr_tls_ctx_free(gr_tls_ctx_t *t) {
    if (!t) return;
    SSL_CTX_free(t->ctx);
    free(t->bounce);
    free(t);
}

/* Probe once: can a loopback TCP socket take the "tls" upper-layer protocol? */
bool gr_tls_ktls_available(void) {
    static int cached = -1;
    if (cached >= 0) return cached;
    cached = 0;
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), cs = -1, as = -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    if (ls >= 0 && !bind(ls, (struct sockaddr *)&a, sizeof(a)) && !listen(ls, 1) &&
        !getsockname(ls, (struct sockaddr *)&a, &al) && (cs = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
        !connect(cs, (struct sockaddr *)&a, sizeof(a)) && (as = accept(ls, NULL, NULL)) >= 0)
        cached = setsockopt(as, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")) == 0;
    if (as >= 0) close(as);
    if (cs >= 0) close(cs);
    if (ls >= 0) close(ls);
    return cached;
}
