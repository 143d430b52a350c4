/* SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka speaks them: message
 * parsing with Kafka's grammar (ScramMessages), credentials (salt, StoredKey, ServerKey,
 * iterations; never the password), and the server side of the exchange. Hashes, HMAC and
 * PBKDF2 come from OpenSSL's libcrypto. Pure: the server nonce is passed in. */
#ifndef GR_AUTH_SCRAM_H
#define GR_AUTH_SCRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Kafka's ScramMechanism type numbers (AlterUserScramCredentials, DescribeUserScramCredentials). */
typedef enum { GR_SCRAM_UNKNOWN = 0, GR_SCRAM_SHA_256 = 1, GR_SCRAM_SHA_512 = 2 } gr_scram_mech_t;

#define GR_SCRAM_MAX_HASH       64    /* SHA-512 */
#define GR_SCRAM_MIN_ITERATIONS 4096  /* both mechanisms (Kafka's minIterations) */
#define GR_SCRAM_MAX_ITERATIONS 16384 /* AlterUserScramCredentials upper bound */
#define GR_SCRAM_MAX_NAME       1024  /* user names longer than this are refused as malformed */

/** "SCRAM-SHA-256" / "SCRAM-SHA-512", or NULL for anything else. */
const char *gr_scram_mech_name(gr_scram_mech_t m);
/** The mechanism of a SASL mechanism name, GR_SCRAM_UNKNOWN if none. */
gr_scram_mech_t gr_scram_mech_from_name(const char *name);
/** Hash output length (32 or 64); 0 for an unknown mechanism. */
size_t gr_scram_hash_len(gr_scram_mech_t m);

typedef struct gr_scram_cred {
    gr_scram_mech_t mech;
    int32_t iterations;
    uint8_t *salt; /* owned */
    size_t salt_len;
    uint8_t stored_key[GR_SCRAM_MAX_HASH], server_key[GR_SCRAM_MAX_HASH]; /* hash_len bytes each */
} gr_scram_cred_t;

/** StoredKey = H(HMAC(SaltedPassword, "Client Key")), ServerKey = HMAC(SaltedPassword,
 *  "Server Key"); the salt is copied. What AlterUserScramCredentials stores. */
void gr_scram_cred_from_salted(gr_scram_mech_t m, const uint8_t *salt, size_t salt_len, const uint8_t *salted,
                               size_t salted_len, int32_t iterations, gr_scram_cred_t *out);
void gr_scram_cred_free(gr_scram_cred_t *c);
void gr_scram_cred_copy(gr_scram_cred_t *dst, const gr_scram_cred_t *src);
/** SaltedPassword = Hi(password, salt, iterations) (PBKDF2-HMAC); out gets hash_len bytes. */
void gr_scram_salted_password(gr_scram_mech_t m, const char *password, size_t pw_len, const uint8_t *salt,
                              size_t salt_len, int32_t iterations, uint8_t *out);
/** HMAC and hash of the mechanism; out gets hash_len bytes. */
void gr_scram_hmac(gr_scram_mech_t m, const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                   uint8_t *out);
void gr_scram_hash(gr_scram_mech_t m, const uint8_t *data, size_t len, uint8_t *out);

/** Standard base64 with padding. encode: out needs 4*((n+2)/3)+1 bytes, NUL-terminated,
 *  returns the length. decode: strict (length a multiple of 4, padding only at the end),
 *  returns the decoded length or -1; out needs 3*(n/4) bytes. */
size_t gr_b64_encode(const uint8_t *in, size_t n, char *out);
long gr_b64_decode(const char *in, size_t n, uint8_t *out);

typedef struct gr_scram_slice {
    const char *p;
    size_t n;
} gr_scram_slice_t;

/* client-first-message: "n," [ "a=" authzid ] "," [ "m=" value "," ] "n=" saslname ",r=" nonce
 * ( "," ALPHA "=" value )*. Only the gs2 header "n" (no channel binding) is accepted. */
typedef struct gr_scram_client_first {
    char user[GR_SCRAM_MAX_NAME + 1];    /* decoded (=2C -> ',', =3D -> '=') */
    char authzid[GR_SCRAM_MAX_NAME + 1]; /* decoded, "" if absent */
    gr_scram_slice_t nonce;
    gr_scram_slice_t bare; /* from "n=" to the end: part of the AuthMessage */
    bool tokenauth;        /* the tokenauth=true extension (delegation tokens) */
} gr_scram_client_first_t;

/* client-final-message: "c=" base64 ",r=" nonce ( "," ALPHA "=" value )* ",p=" base64 */
typedef struct gr_scram_client_final {
    gr_scram_slice_t nonce;
    gr_scram_slice_t without_proof; /* everything before ",p=": part of the AuthMessage */
    uint8_t proof[GR_SCRAM_MAX_HASH];
    size_t proof_len;
} gr_scram_client_final_t;

/** Parse; slices point into msg. GR_ERR__MALFORMED if msg does not match the grammar
 *  (Kafka: "Invalid SCRAM client first message format"). */
gr_err_t gr_scram_parse_client_first(const char *msg, size_t len, gr_scram_client_first_t *out);
gr_err_t gr_scram_parse_client_final(const char *msg, size_t len, gr_scram_client_final_t *out);

/* ---------------------------------------------------------------- server exchange */

typedef enum { GR_SCRAM_S_FIRST, GR_SCRAM_S_FINAL, GR_SCRAM_S_DONE, GR_SCRAM_S_FAILED } gr_scram_state_t;

typedef struct gr_scram_server {
    gr_scram_mech_t mech;
    gr_scram_state_t state;
    gr_scram_cred_t cred;
    char user[GR_SCRAM_MAX_NAME + 1];
    char *auth_prefix; /* client-first-bare "," server-first-message (owned) */
    char *nonce;       /* client nonce + server nonce (owned) */
} gr_scram_server_t;

/* Outcome of a step. GENERIC: Kafka answers "Authentication failed during authentication
 * due to invalid credentials with SASL mechanism <m>" (it never says why); MESSAGE: the
 * reason in errmsg is sent to the client as is. */
typedef enum { GR_SCRAM_OK, GR_SCRAM_FAIL_GENERIC, GR_SCRAM_FAIL_MESSAGE } gr_scram_result_t;

/** Credential lookup: the credential of user for mech, or NULL. */
typedef const gr_scram_cred_t *(*gr_scram_lookup_fn)(void *ctx, const char *user, gr_scram_mech_t mech);

void gr_scram_server_init(gr_scram_server_t *s, gr_scram_mech_t mech);
void gr_scram_server_free(gr_scram_server_t *s);
/** Feed one client message. server_nonce (printable, no ',') is used by the first step.
 *  On GR_SCRAM_OK *out (malloc'd, *out_len bytes) is the server message to send and
 *  s->state says whether the exchange is complete (GR_SCRAM_S_DONE, s->user authenticated). */
gr_scram_result_t gr_scram_server_step(gr_scram_server_t *s, const uint8_t *in, size_t len, const char *server_nonce,
                                       gr_scram_lookup_fn lookup, void *ctx, uint8_t **out, size_t *out_len,
                                       char *errmsg, size_t errmsg_size);

#endif
