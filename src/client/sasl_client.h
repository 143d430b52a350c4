/* libgregor's side of SASL (security.protocol=SASL_PLAINTEXT): the PLAIN token and the
 * client half of SCRAM-SHA-256/512 (RFC 5802), as librdkafka and the Java client speak
 * them. Pure: the client nonce comes in. node.c runs the exchange after ApiVersions. */
#ifndef GR_CLIENT_SASL_CLIENT_H
#define GR_CLIENT_SASL_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "auth/scram.h"
#include "base/err.h"

typedef struct gr__sasl_client {
    gr_scram_mech_t mech; /* GR_SCRAM_UNKNOWN for PLAIN */
    int step;             /* tokens sent */
    char *password;
    char *first_bare;                      /* "n=<user>,r=<nonce>" */
    char *nonce;                           /* the client nonce */
    uint8_t server_sig[GR_SCRAM_MAX_HASH]; /* expected in the server's final message */
} gr__sasl_client_t;

/** Start for mechanism ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"); GR_ERR__INVALID_ARG
 *  for another. */
gr_err_t gr__sasl_client_init(gr__sasl_client_t *c, const char *mech, const char *user, const char *password,
                              const char *nonce);
void gr__sasl_client_free(gr__sasl_client_t *c);
/** The first token (malloc'd, *len bytes). */
uint8_t *gr__sasl_client_first(gr__sasl_client_t *c, size_t *len);
/** The server's answer to our last token: the next token to send (malloc'd) or NULL with
 *  *done set when the exchange is complete; NULL and GR_ERR_SASL_AUTHENTICATION_FAILED in
 *  *err (errstr says why) when the server's message is wrong or does not prove it knows
 *  the credential. */
uint8_t *gr__sasl_client_next(gr__sasl_client_t *c, const uint8_t *in, size_t in_len, size_t *len, bool *done,
                              gr_err_t *err, char *errstr, size_t errstr_size);

#endif
