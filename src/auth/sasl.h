/* SASL on a listener, as Kafka's SaslServerAuthenticator behaves: which mechanisms a
 * listener enables and with which users (built from Kafka's config names), and the
 * per-connection state machine (ApiVersions, SaslHandshake, SaslAuthenticate before
 * anything else; re-authentication, KIP-368). Pure: no I/O, no clock, no randomness
 * (time and the SCRAM nonce come in). The broker (src/broker/h_sasl.c) does the rest. */
#ifndef GR_AUTH_SASL_H
#define GR_AUTH_SASL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/scram.h"
#include "base/err.h"

/* Longest user name that authenticates: "User:<name>" must fit the connection's principal
 * (GR_CONN_PRINCIPAL_MAX) unshortened, or two names could share a principal. */
#define GR_SASL_MAX_USER 250

typedef enum { GR_SASL_PLAIN, GR_SASL_SCRAM_SHA_256, GR_SASL_SCRAM_SHA_512, GR_SASL__N } gr_sasl_mech_t;

/** The SASL mechanism name, and back (-1 if not one we implement). */
const char *gr_sasl_mech_name(gr_sasl_mech_t m);
int gr_sasl_mech_from_name(const char *name);

typedef struct gr_sasl_user {
    char *name, *password; /* owned */
} gr_sasl_user_t;

typedef struct gr_sasl_config {
    const char *names[GR_SASL__N]; /* enabled mechanisms in the order Kafka lists them */
    size_t n_names;
    bool enabled[GR_SASL__N];
    gr_sasl_user_t *plain_users; /* user_NAME="password" options of the PLAIN JAAS entry */
    size_t n_plain_users;
    int64_t reauth_ms[GR_SASL__N]; /* connections.max.reauth.ms per mechanism; 0: no limit */
} gr_sasl_config_t;

/** Config lookup: the value of key, or NULL. */
typedef const char *(*gr_sasl_get_fn)(void *ctx, const char *key);

/** Build the SASL setup of listener `listener` from Kafka's keys: sasl.enabled.mechanisms,
 *  listener.name.<l>.<mech>.sasl.jaas.config (also listener.name.<l>.sasl.jaas.config and
 *  sasl.jaas.config), connections.max.reauth.ms, each also with the listener prefix
 *  listener.name.<l>. (and the mechanism prefix for the last). A mechanism we do not
 *  implement, a missing or malformed JAAS config, or a login module of the wrong kind is
 *  GR_ERR_INVALID_CONFIG with errstr. Free with gr_sasl_config_free. */
gr_err_t gr_sasl_config_build(gr_sasl_config_t *c, const char *listener, gr_sasl_get_fn get, void *ctx, char *errstr,
                              size_t errstr_size);
void gr_sasl_config_free(gr_sasl_config_t *c);

/** Order names (n of them, duplicates dropped) as iterating a java.util.HashSet built from
 *  them does: Kafka answers SaslHandshake with new ArrayList<>(new HashSet<>(enabled)).
 *  Returns the count kept. */
size_t gr_sasl_java_set_order(const char **names, size_t n);

/** PLAIN (RFC 4616 as Kafka's PlainSaslServer checks it). Returns true and the user name
 *  (malloc'd) in *user on success; otherwise Kafka's message in errmsg. Passwords are
 *  compared in constant time. */
bool gr_sasl_plain_check(const gr_sasl_config_t *c, const uint8_t *tok, size_t len, char **user, char *errmsg,
                         size_t errmsg_size);

/* ---------------------------------------------------------------- connection state */

typedef enum {
    GR_SASL_S_INITIAL,      /* nothing yet: ApiVersions or SaslHandshake */
    GR_SASL_S_HANDSHAKE,    /* after ApiVersions: SaslHandshake only */
    GR_SASL_S_AUTHENTICATE, /* after a v1 handshake: SaslAuthenticate only */
    GR_SASL_S_RAW,          /* after a v0 handshake: raw size-prefixed SASL tokens */
    GR_SASL_S_COMPLETE,     /* authenticated */
    GR_SASL_S_FAILED        /* waiting to answer the failure and close */
} gr_sasl_state_t;

typedef struct gr_sasl_session {
    gr_sasl_state_t state;
    gr_sasl_mech_t mech;
    bool reauth;          /* the current exchange re-authenticates */
    bool bad_reauth_mech; /* re-authentication asked for another mechanism (asked_mech) */
    gr_sasl_mech_t asked_mech;
    char user[GR_SCRAM_MAX_NAME + 1]; /* authenticated user ("" until then) */
    int64_t expiry_ms;                /* session end (connections.max.reauth.ms); -1: none */
    int64_t last_reauth_ms;           /* start of the last re-authentication; -1: never */
    gr_scram_server_t scram;
} gr_sasl_session_t;

void gr_sasl_session_init(gr_sasl_session_t *s);
void gr_sasl_session_free(gr_sasl_session_t *s);

typedef enum {
    GR_SASL_PASS,   /* dispatch the request as usual */
    GR_SASL_FAIL,   /* authentication failure: no answer, close after the failure delay */
    GR_SASL_EXPIRED /* session expired: close now */
} gr_sasl_gate_t;

/** A request with api_key arrived on a SASL listener at now_ms: may it be handled? May
 *  start a re-authentication (a SaslHandshake on an authenticated connection whose session
 *  has an end, at most once a second). */
gr_sasl_gate_t gr_sasl_admit(gr_sasl_session_t *s, int16_t api_key, int64_t now_ms);

/** SaslHandshake with version and mechanism. Returns the error code for the answer;
 *  *close is set when the connection must be closed (after the failure delay). */
int16_t gr_sasl_handshake(gr_sasl_session_t *s, const gr_sasl_config_t *c, int16_t version, const char *mech,
                          bool *close);

typedef struct gr_sasl_step {
    int16_t error; /* 0, SASL_AUTHENTICATION_FAILED or ILLEGAL_SASL_STATE */
    bool close;    /* close after the failure delay */
    bool silent;   /* ... without answering (Kafka sends nothing back) */
    char msg[512]; /* error message */
    uint8_t *out;  /* server token (malloc'd, may be NULL for none) */
    size_t out_len;
    int64_t lifetime_ms; /* SessionLifetimeMs once complete */
    bool complete;       /* authenticated: the principal is User:<s->user> */
} gr_sasl_step_t;

/** One client token (SaslAuthenticate or a raw token after a v0 handshake). */
void gr_sasl_authenticate(gr_sasl_session_t *s, const gr_sasl_config_t *c, gr_scram_lookup_fn lookup, void *ctx,
                          const uint8_t *tok, size_t len, const char *nonce, int64_t now_ms, gr_sasl_step_t *out);

#endif
