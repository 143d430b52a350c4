/* The server side of a SCRAM exchange, with Kafka's ScramSaslServer outcomes: anything
 * wrong with the user, the messages or the proof is a generic failure (the client is not
 * told which); only an authorization id other than the user name is named. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/scram.h"

void gr_scram_server_init(gr_scram_server_t *s, gr_scram_mech_t mech) {
    memset(s, 0, sizeof(*s));
    s->mech = mech;
    s->state = GR_SCRAM_S_FIRST;
}

void gr_scram_server_free(gr_scram_server_t *s) {
    if (s->cred.salt) gr_scram_cred_free(&s->cred);
    free(s->auth_prefix);
    free(s->nonce);
    memset(s, 0, sizeof(*s));
}

static char *join(const char *a, size_t an, const char *b, size_t bn, const char *c, size_t cn) {
    char *s = malloc(an + bn + cn + 1);
    if (!s) abort();
    memcpy(s, a, an);
    memcpy(s + an, b, bn);
    memcpy(s + an + bn, c, cn);
    s[an + bn + cn] = '\0';
    return s;
}

static gr_scram_result_t fail(gr_scram_server_t *s) {
    s->state = GR_SCRAM_S_FAILED;
    return GR_SCRAM_FAIL_GENERIC;
}

static gr_scram_result_t first(gr_scram_server_t *s, const char *in, size_t len, const char *snonce,
                               gr_scram_lookup_fn lookup, void *ctx, uint8_t **out, size_t *out_len, char *errmsg,
                               size_t errmsg_size) {
    gr_scram_client_first_t cf;
    if (gr_scram_parse_client_first(in, len, &cf) || cf.tokenauth) return fail(s); /* no delegation tokens */
    const gr_scram_cred_t *cred = lookup(ctx, cf.user, s->mech);
    if (!cred) return fail(s);
    if (cf.authzid[0] && strcmp(cf.authzid, cf.user)) {
        s->state = GR_SCRAM_S_FAILED;
        snprintf(errmsg, errmsg_size,
                 "Authentication failed: Client requested an authorization id that is different from username");
        return GR_SCRAM_FAIL_MESSAGE;
    }
    if (cred->iterations < GR_SCRAM_MIN_ITERATIONS) return fail(s);
    gr_scram_cred_copy(&s->cred, cred);
    snprintf(s->user, sizeof(s->user), "%s", cf.user);
    s->nonce = join(cf.nonce.p, cf.nonce.n, snonce, strlen(snonce), "", 0);
    char *salt64 = malloc(cred->salt_len / 3 * 4 + 8);
    if (!salt64) abort();
    gr_b64_encode(cred->salt, cred->salt_len, salt64);
    size_t n = strlen(s->nonce) + strlen(salt64) + 32;
    char *sf = malloc(n);
    if (!sf) abort();
    int sfn = snprintf(sf, n, "r=%s,s=%s,i=%d", s->nonce, salt64, (int)cred->iterations);
    free(salt64);
    s->auth_prefix = join(cf.bare.p, cf.bare.n, ",", 1, sf, (size_t)sfn);
    *out = (uint8_t *)sf;
    *out_len = (size_t)sfn;
    s->state = GR_SCRAM_S_FINAL;
    return GR_SCRAM_OK;
}

static gr_scram_result_t final(gr_scram_server_t *s, const char *in, size_t len, uint8_t **out, size_t *out_len) {
    gr_scram_client_final_t cf;
    size_t hl = gr_scram_hash_len(s->mech), nl = strlen(s->nonce);
    if (gr_scram_parse_client_final(in, len, &cf)) return fail(s);
    /* Kafka checks that the client's nonce ends with the one it sent back. */
    if (cf.nonce.n < nl || memcmp(cf.nonce.p + cf.nonce.n - nl, s->nonce, nl) || cf.proof_len != hl) return fail(s);
    char *auth = join(s->auth_prefix, strlen(s->auth_prefix), ",", 1, cf.without_proof.p, cf.without_proof.n);
    size_t alen = strlen(s->auth_prefix) + 1 + cf.without_proof.n;
    uint8_t sig[GR_SCRAM_MAX_HASH], key[GR_SCRAM_MAX_HASH], stored[GR_SCRAM_MAX_HASH];
    gr_scram_hmac(s->mech, s->cred.stored_key, hl, (const uint8_t *)auth, alen, sig);
    for (size_t i = 0; i < hl; i++) key[i] = cf.proof[i] ^ sig[i];
    gr_scram_hash(s->mech, key, hl, stored);
    bool ok = CRYPTO_memcmp(stored, s->cred.stored_key, hl) == 0;
    if (ok) gr_scram_hmac(s->mech, s->cred.server_key, hl, (const uint8_t *)auth, alen, sig);
    free(auth);
    OPENSSL_cleanse(key, sizeof(key));
    if (!ok) return fail(s);
    char *sf = malloc(2 + 4 * ((hl + 2) / 3) + 1);
    if (!sf) abort();
    memcpy(sf, "v=", 2);
    *out_len = 2 + gr_b64_encode(sig, hl, sf + 2);
    *out = (uint8_t *)sf;
    s->state = GR_SCRAM_S_DONE;
    return GR_SCRAM_OK;
}

gr_scram_result_t gr_scram_server_step(gr_scram_server_t *s, const uint8_t *in, size_t len, const char *server_nonce,
                                       gr_scram_lookup_fn lookup, void *ctx, uint8_t **out, size_t *out_len,
                                       char *errmsg, size_t errmsg_size) {
    *out = NULL;
    *out_len = 0;
    if (s->state == GR_SCRAM_S_FIRST)
        return first(s, (const char *)in, len, server_nonce, lookup, ctx, out, out_len, errmsg, errmsg_size);
    if (s->state == GR_SCRAM_S_FINAL) return final(s, (const char *)in, len, out, out_len);
    return fail(s);
}
