/* Unit tests for src/net/tls_ctx.c: server TLS contexts from Kafka's ssl.* settings and
 * their start-up refusals. Keys and certificates are made here with the OpenSSL API. */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#include "net/tls.h"
#include "testutil.h"

static char g_err[1024];

/* PEM text of a BIO (malloc'd). */
static char *bio_text(BIO *b) {
    char *p;
    long n = BIO_get_mem_data(b, &p);
    /* Not strndup: the BIO's bytes have no terminating NUL, and ASan's strndup reads one past n. */
    char *s = malloc((size_t)n + 1);
    if (!s) abort();
    memcpy(s, p, (size_t)n);
    s[n] = '\0';
    BIO_free(b);
    return s;
}

/* A self-signed certificate for key, and the PEM texts of both (password: encrypted key). */
static void make(EVP_PKEY **key, char **cert_pem, char **key_pem, const char *password) {
    *key = EVP_RSA_gen(2048);
    X509 *x = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, *key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)"t", -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_sign(x, *key, EVP_sha256());
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, x);
    *cert_pem = bio_text(b);
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(b, *key, password ? EVP_aes_256_cbc() : NULL, NULL, 0, NULL, (void *)password);
    *key_pem = bio_text(b);
    X509_free(x);
}

static gr_err_t try(gr_tls_opts_t *o) {
    gr_tls_ctx_t *ctx = NULL;
    g_err[0] = '\0';
    gr_err_t e = gr_tls_ctx_new(o, "SSL", &ctx, g_err, sizeof(g_err));
    gr_tls_ctx_free(ctx);
    return e;
}

static void test_keystores(void) {
    EVP_PKEY *k1, *k2;
    char *c1, *p1, *c2, *p2enc;
    make(&k1, &c1, &p1, NULL);
    make(&k2, &c2, &p2enc, "secret");
    gr_tls_opts_t o = {.keystore_type = "PEM", .keystore_chain = c1, .keystore_key = p1};
    ASSERT_EQ(try(&o), GR_ERR_NONE);
    /* line breaks lost in a .properties continuation are put back */
    char *flat = strdup(p1);
    char *w = flat;
    for (const char *r = p1; *r; r++)
        if (*r != '\n') *w++ = *r;
    *w = '\0';
    o.keystore_key = flat;
    ASSERT_EQ(try(&o), GR_ERR_NONE);
    o.keystore_key = p2enc; /* another key: encrypted, no password */
    ASSERT_EQ(try(&o), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(g_err, "listener SSL: ssl.keystore.certificate.chain/ssl.keystore.key: cannot decrypt the private "
                         "key: missing ssl.key.password") == g_err);
    o.key_password = "wrong";
    ASSERT_EQ(try(&o), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(g_err, "cannot decrypt the private key: wrong ssl.key.password") != NULL);
    o.key_password = "secret"; /* decrypts, but it is not c1's key */
    ASSERT_EQ(try(&o), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(g_err, "the private key does not match the certificate") != NULL);
    o.keystore_chain = c2;
    ASSERT_EQ(try(&o), GR_ERR_NONE);
    o.keystore_type = "JKS";
    ASSERT_EQ(try(&o), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: Invalid value JKS for configuration ssl.keystore.type: gregord reads PEM "
                        "keystores only (ssl.keystore.type=PEM)");
    gr_tls_opts_t none = {.keystore_type = "PEM"};
    ASSERT_EQ(try(&none), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(g_err, "listener SSL: no keystore") == g_err);
    gr_tls_opts_t half = {.keystore_type = "PEM", .keystore_chain = c1};
    ASSERT_EQ(try(&half), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: ssl.keystore.certificate.chain and ssl.keystore.key go together");

    /* truststore for client certificates */
    gr_tls_opts_t t = {.keystore_type = "PEM",
                       .keystore_chain = c1,
                       .keystore_key = p1,
                       .client_auth = GR_TLS_AUTH_REQUIRED,
                       .truststore_type = "PEM",
                       .truststore_certs = c2};
    ASSERT_EQ(try(&t), GR_ERR_NONE);
    t.truststore_certs = "not a certificate";
    ASSERT_EQ(try(&t), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: ssl.truststore.certificates: no PEM certificate found");
    t.truststore_certs = NULL;
    t.truststore_location = "/nonexistent/ca.pem";
    ASSERT_EQ(try(&t), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err,
                 "listener SSL: ssl.truststore.location=/nonexistent/ca.pem: cannot read: No such file or directory");

    /* protocols and cipher suites */
    gr_tls_opts_t p = {.keystore_type = "PEM", .keystore_chain = c1, .keystore_key = p1};
    p.enabled_protocols = "TLSv1.2,SSLv3";
    ASSERT_EQ(try(&p), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: Invalid value TLSv1.2,SSLv3 for configuration ssl.enabled.protocols: "
                        "unsupported protocol SSLv3 (use TLSv1.2, TLSv1.3)");
    p.enabled_protocols = "TLSv1.3";
    p.protocol = "TLSv1.2";
    ASSERT_EQ(try(&p), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: ssl.protocol=TLSv1.2 excludes every protocol in ssl.enabled.protocols=TLSv1.3");
    p.protocol = "TLSv9";
    ASSERT_EQ(try(&p), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: Invalid value TLSv9 for configuration ssl.protocol: use TLSv1.2 or TLSv1.3");
    p.protocol = NULL;
    p.enabled_protocols = NULL;
    p.cipher_suites = "TLS_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
    ASSERT_EQ(try(&p), GR_ERR_NONE);
    p.cipher_suites = "TLS_AES_128_GCM_SHA256,ECDHE-RSA-AES256-GCM-SHA384"; /* OpenSSL's name: not Kafka's */
    ASSERT_EQ(try(&p), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(g_err, "listener SSL: Invalid value TLS_AES_128_GCM_SHA256,ECDHE-RSA-AES256-GCM-SHA384 for "
                        "configuration ssl.cipher.suites: unknown suite ECDHE-RSA-AES256-GCM-SHA384");
    free(flat);
    free(c1);
    free(p1);
    free(c2);
    free(p2enc);
    EVP_PKEY_free(k1);
    EVP_PKEY_free(k2);
}

int main(void) {
    RUN_TEST(test_keystores);
    return 0;
}
