/* Unit tests for src/net/tls_ident.c: a dynamic keystore change keeps the certificate's
 * subject and alternative names unless ssl.allow.dn.changes / ssl.allow.san.changes
 * (Kafka's SslFactory rules and messages), and gr_tls_ctx_adopt. Certificates made here. */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

#include "net/tls.h"
#include "testutil.h"

static char *bio_text(BIO *b) {
    char *p;
    long n = BIO_get_mem_data(b, &p);
    char *s = malloc((size_t)n + 1);
    if (!s) abort();
    memcpy(s, p, (size_t)n);
    s[n] = '\0';
    BIO_free(b);
    return s;
}

/* A context serving a self-signed certificate with subject cn (comma-separated RDNs, e.g.
 * "O=x,CN=y") and subjectAltName san (NULL: none). */
static gr_tls_ctx_t *ctx_for(const char *subject, const char *san) {
    EVP_PKEY *key = EVP_RSA_gen(2048);
    X509 *x = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, key);
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", subject);
    for (char *save = NULL, *rdn = strtok_r(buf, ",", &save); rdn; rdn = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(rdn, '=');
        *eq = '\0';
        X509_NAME_add_entry_by_txt(X509_get_subject_name(x), rdn, MBSTRING_ASC, (unsigned char *)eq + 1, -1, -1, 0);
    }
    X509_set_issuer_name(x, X509_get_subject_name(x));
    if (san) {
        X509V3_CTX v3;
        X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
        X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san);
        X509_add_ext(x, ext, -1);
        X509_EXTENSION_free(ext);
    }
    X509_sign(x, key, EVP_sha256());
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, x);
    char *cert = bio_text(b);
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(b, key, NULL, NULL, 0, NULL, NULL);
    char *pkey = bio_text(b);
    gr_tls_opts_t o = {.keystore_type = "PEM", .keystore_chain = cert, .keystore_key = pkey};
    gr_tls_ctx_t *ctx = NULL;
    char err[512];
    ASSERT_EQ(gr_tls_ctx_new(&o, "SSL", &ctx, err, sizeof(err)), GR_ERR_NONE);
    free(cert);
    free(pkey);
    X509_free(x);
    EVP_PKEY_free(key);
    return ctx;
}

static void test_identity(void) {
    char err[1024];
    gr_tls_ctx_t *a = ctx_for("O=Gregor,CN=localhost", "IP:127.0.0.1,DNS:localhost");
    gr_tls_ctx_t *same = ctx_for("O=Gregor,CN=localhost", "DNS:localhost,IP:127.0.0.1,DNS:more.example");
    gr_tls_ctx_t *dn = ctx_for("O=Gregor,CN=other", "IP:127.0.0.1,DNS:localhost");
    gr_tls_ctx_t *san = ctx_for("O=Gregor,CN=localhost", "DNS:localhost");
    gr_tls_ctx_t *none = ctx_for("O=Gregor,CN=localhost", NULL);
    /* same subject, SANs in another order plus one more: kept */
    ASSERT(gr_tls_ctx_same_identity(a, same, false, false, err, sizeof(err)));
    /* another subject: Kafka's message, Java's ", " separators, most specific RDN first */
    ASSERT(!gr_tls_ctx_same_identity(a, dn, false, false, err, sizeof(err)));
    ASSERT_STREQ(err, "Keystore DistinguishedName does not match:  existing={alias=kafka, DN=CN=localhost, O=Gregor}, "
                      "new={alias=kafka, DN=CN=other, O=Gregor}");
    ASSERT(gr_tls_ctx_same_identity(a, dn, true, false, err, sizeof(err)));
    /* a SAN dropped */
    ASSERT(!gr_tls_ctx_same_identity(a, san, false, false, err, sizeof(err)));
    ASSERT_STREQ(err, "Keystore SubjectAltNames do not match:  existing={alias=kafka, SAN=[[7, 127.0.0.1], [2, "
                      "localhost]]}, new={alias=kafka, SAN=[[2, localhost]]}");
    ASSERT(gr_tls_ctx_same_identity(a, san, false, true, err, sizeof(err)));
    ASSERT(!gr_tls_ctx_same_identity(a, none, false, false, err, sizeof(err)));
    ASSERT(strstr(err, "new={alias=kafka, SAN=[]}") != NULL);
    /* SANs added where there were none: kept (Kafka: new containsAll old) */
    ASSERT(gr_tls_ctx_same_identity(none, a, false, false, err, sizeof(err)));
    /* adopt: a now serves dn's certificate; dn is consumed */
    gr_tls_ctx_adopt(a, dn);
    ASSERT(!gr_tls_ctx_same_identity(same, a, false, false, err, sizeof(err)));
    ASSERT(strstr(err, "new={alias=kafka, DN=CN=other, O=Gregor}") != NULL);
    gr_tls_ctx_free(a);
    gr_tls_ctx_free(same);
    gr_tls_ctx_free(san);
    gr_tls_ctx_free(none);
}

int main(void) {
    RUN_TEST(test_identity);
    return 0;
}
