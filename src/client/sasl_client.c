/* PLAIN and the client half of SCRAM (see sasl_client.h). */
#include "client/sasl_client.h"

#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

gr_err_t gr__sasl_client_init(gr__sasl_client_t *c, const char *mech, const char *user, const char *password,
                              const char *nonce) {
    memset(c, 0, sizeof(*c));
    c->mech = gr_scram_mech_from_name(mech);
    if (c->mech == GR_SCRAM_UNKNOWN && strcmp(mech, "PLAIN")) return GR_ERR__INVALID_ARG;
    c->password = gr_xstrdup(password);
    /* saslname: ',' and '=' escaped as =2C and =3D */
    size_t n = strlen(user ? user : ""), o = 0;
    char *name = malloc(3 * n + 1);
    if (!name) abort();
    for (size_t i = 0; i < n; i++) {
        if (user[i] == ',' || user[i] == '=') {
            memcpy(name + o, user[i] == ',' ? "=2C" : "=3D", 3);
            o += 3;
        } else {
            name[o++] = user[i];
        }
    }
    name[o] = '\0';
    c->nonce = gr_xstrdup(nonce);
    size_t bl = o + strlen(nonce) + 8;
    c->first_bare = malloc(bl);
    if (!c->first_bare) abort();
    if (c->mech == GR_SCRAM_UNKNOWN) /* PLAIN keeps the raw user name: authzid NUL user NUL password */
        snprintf(c->first_bare, bl, "%s", user ? user : "");
    else
        snprintf(c->first_bare, bl, "n=%s,r=%s", name, nonce);
    free(name);
    return GR_ERR_NONE;
}

void gr__sasl_client_free(gr__sasl_client_t *c) {
    if (c->password) OPENSSL_cleanse(c->password, strlen(c->password));
    free(c->password);
    free(c->first_bare);
    free(c->nonce);
    memset(c, 0, sizeof(*c));
}

uint8_t *gr__sasl_client_first(gr__sasl_client_t *c, size_t *len) {
    size_t ul = strlen(c->first_bare), pl = strlen(c->password);
    uint8_t *t = malloc(ul + pl + 8);
    if (!t) abort();
    c->step = 1;
    if (c->mech == GR_SCRAM_UNKNOWN) {
        t[0] = 0;
        memcpy(t + 1, c->first_bare, ul);
        t[1 + ul] = 0;
        memcpy(t + 2 + ul, c->password, pl);
        *len = 2 + ul + pl;
        return t;
    }
    memcpy(t, "n,,", 3);
    memcpy(t + 3, c->first_bare, ul);
    *len = 3 + ul;
    return t;
}

static uint8_t *fail(gr_err_t *err, char *errstr, size_t sz, const char *why) {
    *err = GR_ERR_SASL_AUTHENTICATION_FAILED;
    snprintf(errstr, sz, "%s", why);
    return NULL;
}

/* server-first "r=<nonce>,s=<salt>,i=<iterations>[,ext]" -> client-final, remembering the
 * signature the server must send back. */
static uint8_t *client_final(gr__sasl_client_t *c, const char *sf, size_t sfl, size_t *len, gr_err_t *err, char *errstr,
                             size_t sz) {
    char *msg = malloc(sfl + 1);
    if (!msg) abort();
    memcpy(msg, sf, sfl);
    msg[sfl] = '\0';
    const char *r = NULL, *s = NULL, *i = NULL;
    for (char *save = NULL, *p = strtok_r(msg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (!strncmp(p, "r=", 2) && !r)
            r = p + 2;
        else if (!strncmp(p, "s=", 2) && !s)
            s = p + 2;
        else if (!strncmp(p, "i=", 2) && !i)
            i = p + 2;
    }
    long it = i ? strtol(i, NULL, 10) : 0;
    size_t hl = gr_scram_hash_len(c->mech), nl = strlen(c->nonce);
    uint8_t *salt = s ? malloc(strlen(s) / 4 * 3 + 3) : NULL;
    long saltn = s ? gr_b64_decode(s, strlen(s), salt) : -1;
    uint8_t *out = NULL;
    if (!r || strncmp(r, c->nonce, nl) || strlen(r) == nl || saltn < 0 || it < 1 || it > 1000000) {
        out = fail(err, errstr, sz, "invalid SCRAM server-first message");
        goto done;
    }
    uint8_t sp[GR_SCRAM_MAX_HASH], ck[GR_SCRAM_MAX_HASH], sk[GR_SCRAM_MAX_HASH], stored[GR_SCRAM_MAX_HASH],
        sig[GR_SCRAM_MAX_HASH];
    gr_scram_salted_password(c->mech, c->password, strlen(c->password), salt, (size_t)saltn, (int32_t)it, sp);
    gr_scram_hmac(c->mech, sp, hl, (const uint8_t *)"Client Key", 10, ck);
    gr_scram_hmac(c->mech, sp, hl, (const uint8_t *)"Server Key", 10, sk);
    gr_scram_hash(c->mech, ck, hl, stored);
    size_t wl = strlen(r) + 16, al = strlen(c->first_bare) + sfl + wl + 4;
    char *without = malloc(wl), *auth = malloc(al);
    if (!without || !auth) abort();
    snprintf(without, wl, "c=biws,r=%s", r);
    int an = snprintf(auth, al, "%s,%.*s,%s", c->first_bare, (int)sfl, sf, without);
    gr_scram_hmac(c->mech, stored, hl, (const uint8_t *)auth, (size_t)an, sig);
    for (size_t k = 0; k < hl; k++) ck[k] ^= sig[k]; /* ClientProof */
    gr_scram_hmac(c->mech, sk, hl, (const uint8_t *)auth, (size_t)an, c->server_sig);
    char proof[4 * ((GR_SCRAM_MAX_HASH + 2) / 3) + 1];
    gr_b64_encode(ck, hl, proof);
    size_t ol = strlen(without) + strlen(proof) + 4;
    out = malloc(ol);
    if (!out) abort();
    *len = (size_t)snprintf((char *)out, ol, "%s,p=%s", without, proof);
    OPENSSL_cleanse(sp, sizeof(sp));
    OPENSSL_cleanse(ck, sizeof(ck));
    free(without);
    free(auth);
done:
    free(salt);
    free(msg);
    return out;
}

uint8_t *gr__sasl_client_next(gr__sasl_client_t *c, const uint8_t *in, size_t in_len, size_t *len, bool *done,
                              gr_err_t *err, char *errstr, size_t errstr_size) {
    *done = false;
    *err = GR_ERR_NONE;
    if (c->mech == GR_SCRAM_UNKNOWN || c->step == 2) { /* PLAIN's empty answer, or SCRAM's server-final */
        if (c->mech != GR_SCRAM_UNKNOWN) {
            size_t hl = gr_scram_hash_len(c->mech);
            char want[2 + 4 * ((GR_SCRAM_MAX_HASH + 2) / 3) + 1] = "v=";
            size_t wl = 2 + gr_b64_encode(c->server_sig, hl, want + 2);
            if (in_len != wl || CRYPTO_memcmp(in, want, wl))
                return fail(err, errstr, errstr_size, "the server's SCRAM signature is wrong");
        }
        *done = true;
        return NULL;
    }
    c->step = 2;
    return client_final(c, (const char *)in, in_len, len, err, errstr, errstr_size);
}
