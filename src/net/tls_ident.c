/* Identity checks for a dynamic keystore change (see tls.h): the new leaf certificate keeps
 * the subject and the subject alternative names of the one it replaces, unless
 * ssl.allow.dn.changes / ssl.allow.san.changes say otherwise. Messages follow Kafka's
 * SslFactory wording; a PEM keystore has one entry, which Kafka names "kafka". */
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/tls_int.h"

/* The subject as Java's X500Principal prints it: RFC 2253 order, ", " between attributes. */
static void dn_text(const X509 *x, char *out, size_t n) {
    BIO *bio = BIO_new(BIO_s_mem());
    unsigned long flags = (XN_FLAG_RFC2253 & ~XN_FLAG_SEP_MASK & ~ASN1_STRFLGS_ESC_MSB) | XN_FLAG_SEP_CPLUS_SPC;
    X509_NAME_print_ex(bio, X509_get_subject_name(x), 0, flags);
    int len = BIO_read(bio, out, (int)n - 1);
    BIO_free(bio);
    out[len > 0 ? len : 0] = '\0';
}

/* The same subject in OpenSSL's RFC 2253 form, for the case-insensitive comparison. */
static void dn_2253(const X509 *x, char *out, size_t n) {
    BIO *bio = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(bio, X509_get_subject_name(x), 0, XN_FLAG_RFC2253);
    int len = BIO_read(bio, out, (int)n - 1);
    BIO_free(bio);
    out[len > 0 ? len : 0] = '\0';
}

/* "[[2, localhost], [7, 127.0.0.1]]": Java's getSubjectAlternativeNames (type, value) pairs. */
static void san_text(GENERAL_NAMES *g, char *out, size_t n) {
    size_t o = (size_t)snprintf(out, n, "[");
    for (int i = 0; g && i < sk_GENERAL_NAME_num(g) && o < n; i++) {
        GENERAL_NAME *e = sk_GENERAL_NAME_value(g, i);
        char v[256] = "";
        if (e->type == GEN_DNS || e->type == GEN_EMAIL || e->type == GEN_URI) {
            const ASN1_IA5STRING *s = e->d.ia5;
            snprintf(v, sizeof(v), "%.*s", ASN1_STRING_length(s), (const char *)ASN1_STRING_get0_data(s));
        } else if (e->type == GEN_IPADD) {
            char *ip = OPENSSL_buf2hexstr(ASN1_STRING_get0_data(e->d.ip), ASN1_STRING_length(e->d.ip));
            const unsigned char *b = ASN1_STRING_get0_data(e->d.ip);
            if (ASN1_STRING_length(e->d.ip) == 4)
                snprintf(v, sizeof(v), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
            else
                snprintf(v, sizeof(v), "%s", ip ? ip : "");
            OPENSSL_free(ip);
        } else {
            snprintf(v, sizeof(v), "...");
        }
        o += (size_t)snprintf(out + o, n - o, "%s[%d, %s]", i ? ", " : "", e->type, v);
    }
    if (o < n) snprintf(out + o, n - o, "]");
}

/* Every name of old is among those of next (Kafka: new SANs containsAll old SANs). */
static bool sans_kept(GENERAL_NAMES *old, GENERAL_NAMES *next) {
    for (int i = 0; old && i < sk_GENERAL_NAME_num(old); i++) {
        bool found = false;
        for (int j = 0; next && j < sk_GENERAL_NAME_num(next) && !found; j++)
            found = GENERAL_NAME_cmp(sk_GENERAL_NAME_value(old, i), sk_GENERAL_NAME_value(next, j)) == 0;
        if (!found) return false;
    }
    return true;
}

static bool same_dn(const X509 *a, const X509 *b) {
    if (X509_NAME_cmp(X509_get_subject_name(a), X509_get_subject_name(b)) == 0) return true;
    char s1[1024], s2[1024];
    dn_2253(a, s1, sizeof(s1));
    dn_2253(b, s2, sizeof(s2));
    return strcasecmp(s1, s2) == 0;
}

bool gr_tls_ctx_same_identity(const gr_tls_ctx_t *cur, const gr_tls_ctx_t *next, bool allow_dn, bool allow_san,
                              char *err, size_t n) {
    X509 *a = SSL_CTX_get0_certificate(cur->ctx), *b = SSL_CTX_get0_certificate(next->ctx);
    if (!a || !b) {
        snprintf(err, n,
                 "Keystore entries do not match, existing store contains %d entries, new store contains %d "
                 "entries",
                 a != NULL, b != NULL);
        return false;
    }
    if (!allow_dn && !same_dn(a, b)) {
        char d1[1024], d2[1024];
        dn_text(a, d1, sizeof(d1));
        dn_text(b, d2, sizeof(d2));
        snprintf(err, n,
                 "Keystore DistinguishedName does not match:  existing={alias=kafka, DN=%s}, new={alias=kafka, "
                 "DN=%s}",
                 d1, d2);
        return false;
    }
    if (allow_san) return true;
    GENERAL_NAMES *ga = X509_get_ext_d2i(a, NID_subject_alt_name, NULL, NULL);
    GENERAL_NAMES *gb = X509_get_ext_d2i(b, NID_subject_alt_name, NULL, NULL);
    bool ok = sans_kept(ga, gb);
    if (!ok) {
        char s1[1024], s2[1024];
        san_text(ga, s1, sizeof(s1));
        san_text(gb, s2, sizeof(s2));
        snprintf(err, n,
                 "Keystore SubjectAltNames do not match:  existing={alias=kafka, SAN=%s}, new={alias=kafka, "
                 "SAN=%s}",
                 s1, s2);
    }
    GENERAL_NAMES_free(ga);
    GENERAL_NAMES_free(gb);
    ERR_clear_error();
    return ok;
}

void gr_tls_ctx_adopt(gr_tls_ctx_t *t, gr_tls_ctx_t *next) {
    SSL_CTX *old = t->ctx;
    t->ctx = next->ctx; /* SSL_new of later accepts takes this one */
    next->ctx = NULL;
    SSL_CTX_free(old); /* freed for real when the last connection made from it is gone */
    gr_tls_ctx_free(next);
}
