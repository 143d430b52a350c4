/* SCRAM: messages, credentials and the server exchange (see scram.h). */
#include "auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *gr_scram_mech_name(gr_scram_mech_t m) {
    return m == GR_SCRAM_SHA_256 ? "SCRAM-SHA-256" : m == GR_SCRAM_SHA_512 ? "SCRAM-SHA-512" : NULL;
}

gr_scram_mech_t gr_scram_mech_from_name(const char *name) {
    if (!strcmp(name, "SCRAM-SHA-256")) return GR_SCRAM_SHA_256;
    if (!strcmp(name, "SCRAM-SHA-512")) return GR_SCRAM_SHA_512;
    return GR_SCRAM_UNKNOWN;
}

size_t gr_scram_hash_len(gr_scram_mech_t m) { return m == GR_SCRAM_SHA_256 ? 32 : m == GR_SCRAM_SHA_512 ? 64 : 0; }

static const EVP_MD *md_of(gr_scram_mech_t m) { return m == GR_SCRAM_SHA_512 ? EVP_sha512() : EVP_sha256(); }

void gr_scram_hmac(gr_scram_mech_t m, const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                   uint8_t *out) {
    unsigned int n = 0;
    static const uint8_t empty[1];
    if (!HMAC(md_of(m), key_len ? key : empty, (int)key_len, len ? data : empty, len, out, &n)) abort();
}

void gr_scram_hash(gr_scram_mech_t m, const uint8_t *data, size_t len, uint8_t *out) {
    if (!EVP_Digest(data, len, out, NULL, md_of(m), NULL)) abort();
}

void gr_scram_salted_password(gr_scram_mech_t m, const char *password, size_t pw_len, const uint8_t *salt,
                              size_t salt_len, int32_t iterations, uint8_t *out) {
    if (!PKCS5_PBKDF2_HMAC(password, (int)pw_len, salt, (int)salt_len, iterations, md_of(m), (int)gr_scram_hash_len(m),
                           out))
        abort();
}

void gr_scram_cred_from_salted(gr_scram_mech_t m, const uint8_t *salt, size_t salt_len, const uint8_t *salted,
                               size_t salted_len, int32_t iterations, gr_scram_cred_t *out) {
    uint8_t client_key[GR_SCRAM_MAX_HASH];
    memset(out, 0, sizeof(*out));
    out->mech = m;
    out->iterations = iterations;
    out->salt = malloc(salt_len ? salt_len : 1);
    if (!out->salt) abort();
    if (salt_len) memcpy(out->salt, salt, salt_len);
    out->salt_len = salt_len;
    gr_scram_hmac(m, salted, salted_len, (const uint8_t *)"Client Key", 10, client_key);
    gr_scram_hash(m, client_key, gr_scram_hash_len(m), out->stored_key);
    gr_scram_hmac(m, salted, salted_len, (const uint8_t *)"Server Key", 10, out->server_key);
    OPENSSL_cleanse(client_key, sizeof(client_key));
}

void gr_scram_cred_free(gr_scram_cred_t *c) {
    free(c->salt);
    OPENSSL_cleanse(c, sizeof(*c));
}

void gr_scram_cred_copy(gr_scram_cred_t *dst, const gr_scram_cred_t *src) {
    *dst = *src;
    dst->salt = malloc(src->salt_len ? src->salt_len : 1);
    if (!dst->salt) abort();
    if (src->salt_len) memcpy(dst->salt, src->salt, src->salt_len);
}

/* ---------------------------------------------------------------- base64 */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t gr_b64_encode(const uint8_t *in, size_t n, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = B64[v >> 18 & 63];
        out[o++] = B64[v >> 12 & 63];
        out[o++] = i + 1 < n ? B64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? B64[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

static int b64_val(char c) {
    const char *p = c ? strchr(B64, c) : NULL;
    return p ? (int)(p - B64) : -1;
}

long gr_b64_decode(const char *in, size_t n, uint8_t *out) {
    if (n % 4) return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            int d = k >= 4 - pad ? 0 : b64_val(in[i + k]);
            if (d < 0) return -1;
            v = v << 6 | (uint32_t)d;
        }
        out[o++] = (uint8_t)(v >> 16);
        if (pad < 2) out[o++] = (uint8_t)(v >> 8);
        if (pad < 1) out[o++] = (uint8_t)v;
    }
    return (long)o;
}

/* ---------------------------------------------------------------- message grammar */

#define MAX_PARTS 64

/* Split on ',' (no component of a SCRAM message may hold a raw comma). */
static int split(const char *msg, size_t len, gr_scram_slice_t *parts) {
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && msg[i] != ',') continue;
        if (n == MAX_PARTS) return -1;
        parts[n++] = (gr_scram_slice_t){msg + start, i - start};
        start = i + 1;
    }
    return n;
}

static bool prefixed(gr_scram_slice_t s, const char *pre) {
    size_t k = strlen(pre);
    return s.n >= k && !memcmp(s.p, pre, k);
}

/* VALUE: one or more of %x01-7F except ','. */
static bool is_value(const char *p, size_t n) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] < 1 || (unsigned char)p[i] > 0x7f) return false;
    return true;
}

/* PRINTABLE: one or more of %x21-7E except ','. */
static bool is_printable(const char *p, size_t n) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x21 || p[i] > 0x7e) return false;
    return true;
}

/* saslname -> user name: one or more safe characters, "=2C" (',') or "=3D" ('='). */
static bool sasl_name(const char *p, size_t n, char *out) {
    size_t o = 0;
    if (!n) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (o == GR_SCRAM_MAX_NAME || c < 1 || c > 0x7f) return false;
        if (c == '=') {
            if (i + 2 >= n || p[i + 1] != '2' + (p[i + 2] == 'D') || (p[i + 2] != 'C' && p[i + 2] != 'D')) return false;
            out[o++] = p[i + 2] == 'C' ? ',' : '=';
            i += 2;
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
    return true;
}

/* An extension ALPHA "=" VALUE; *tokenauth set for tokenauth=true (any case). */
static bool extension(gr_scram_slice_t s, bool *tokenauth) {
    size_t k = 0;
    while (k < s.n && ((s.p[k] | 0x20) >= 'a' && (s.p[k] | 0x20) <= 'z')) k++;
    if (k == 0 || k >= s.n || s.p[k] != '=' || !is_value(s.p + k + 1, s.n - k - 1)) return false;
    if (tokenauth && k == 9 && !memcmp(s.p, "tokenauth", 9) && s.n - k - 1 == 4 && !strncasecmp(s.p + k + 1, "true", 4))
        *tokenauth = true;
    return true;
}

gr_err_t gr_scram_parse_client_first(const char *msg, size_t len, gr_scram_client_first_t *out) {
    gr_scram_slice_t parts[MAX_PARTS];
    memset(out, 0, sizeof(*out));
    int n = split(msg, len, parts), i = 2;
    if (n < 4 || parts[0].n != 1 || parts[0].p[0] != 'n') return GR_ERR__MALFORMED;
    if (parts[1].n && !(prefixed(parts[1], "a=") && sasl_name(parts[1].p + 2, parts[1].n - 2, out->authzid)))
        return GR_ERR__MALFORMED;
    if (prefixed(parts[i], "m=")) {
        if (!is_value(parts[i].p + 2, parts[i].n - 2)) return GR_ERR__MALFORMED;
        i++;
    }
    if (i + 2 > n || !prefixed(parts[i], "n=") || !sasl_name(parts[i].p + 2, parts[i].n - 2, out->user))
        return GR_ERR__MALFORMED;
    out->bare = (gr_scram_slice_t){parts[i].p, len - (size_t)(parts[i].p - msg)};
    i++;
    if (!prefixed(parts[i], "r=") || !is_printable(parts[i].p + 2, parts[i].n - 2)) return GR_ERR__MALFORMED;
    out->nonce = (gr_scram_slice_t){parts[i].p + 2, parts[i].n - 2};
    for (i++; i < n; i++)
        if (!extension(parts[i], &out->tokenauth)) return GR_ERR__MALFORMED;
    return GR_ERR_NONE;
}

/* Base64 with padding (Kafka's BASE64 pattern), without decoding. */
static bool b64_syntax(const char *p, size_t n) {
    if (n % 4) return false;
    for (size_t i = 0; i < n; i++) {
        bool pad_ok = (i == n - 1 && p[i] == '=') || (i == n - 2 && p[i] == '=' && p[i + 1] == '=');
        if (b64_val(p[i]) < 0 && !pad_ok) return false;
    }
    return true;
}

static bool is_b64(gr_scram_slice_t s, uint8_t *out, size_t cap, size_t *out_len) {
    uint8_t tmp[3 * (GR_SCRAM_MAX_HASH + 8) / 4 * 4];
    if (s.n / 4 * 3 > sizeof(tmp)) return false;
    long n = gr_b64_decode(s.p, s.n, tmp);
    if (n < 0 || (size_t)n > cap) return false;
    if (out) memcpy(out, tmp, (size_t)n);
    if (out_len) *out_len = (size_t)n;
    return true;
}

gr_err_t gr_scram_parse_client_final(const char *msg, size_t len, gr_scram_client_final_t *out) {
    gr_scram_slice_t parts[MAX_PARTS];
    memset(out, 0, sizeof(*out));
    int n = split(msg, len, parts);
    if (n < 3 || !prefixed(parts[0], "c=")) return GR_ERR__MALFORMED;
    if (!b64_syntax(parts[0].p + 2, parts[0].n - 2)) return GR_ERR__MALFORMED; /* channel binding: not checked */
    if (!prefixed(parts[1], "r=") || !is_printable(parts[1].p + 2, parts[1].n - 2)) return GR_ERR__MALFORMED;
    out->nonce = (gr_scram_slice_t){parts[1].p + 2, parts[1].n - 2};
    for (int i = 2; i < n - 1; i++)
        if (!extension(parts[i], NULL)) return GR_ERR__MALFORMED;
    gr_scram_slice_t p = parts[n - 1];
    if (!prefixed(p, "p=")) return GR_ERR__MALFORMED;
    p.p += 2, p.n -= 2;
    if (!is_b64(p, out->proof, GR_SCRAM_MAX_HASH, &out->proof_len)) return GR_ERR__MALFORMED;
    out->without_proof = (gr_scram_slice_t){msg, (size_t)(parts[n - 1].p - 1 - msg)};
    return GR_ERR_NONE;
}
