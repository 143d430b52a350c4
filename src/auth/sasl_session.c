/* The SASL state of one connection, with the outcomes and messages of Kafka's
 * SaslServerAuthenticator, PlainSaslServer and KafkaChannel (re-authentication). */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/sasl.h"

/* Api keys the gate knows (Kafka's numbers; src/auth does not see the codec). */
enum { API_VERSIONS = 18, API_SASL_HANDSHAKE = 17, API_SASL_AUTHENTICATE = 36 };

#define MIN_REAUTH_INTERVAL_MS 1000 /* KafkaChannel: at most one re-authentication a second */

void gr_sasl_session_init(gr_sasl_session_t *s) {
    memset(s, 0, sizeof(*s));
    s->expiry_ms = -1;
    s->last_reauth_ms = -1;
}

void gr_sasl_session_free(gr_sasl_session_t *s) { gr_scram_server_free(&s->scram); }

gr_sasl_gate_t gr_sasl_admit(gr_sasl_session_t *s, int16_t api_key, int64_t now_ms) {
    switch (s->state) {
    case GR_SASL_S_INITIAL:
        if (api_key == API_VERSIONS) s->state = GR_SASL_S_HANDSHAKE;
        return api_key == API_VERSIONS || api_key == API_SASL_HANDSHAKE ? GR_SASL_PASS : GR_SASL_FAIL;
    case GR_SASL_S_HANDSHAKE: return api_key == API_SASL_HANDSHAKE ? GR_SASL_PASS : GR_SASL_FAIL;
    case GR_SASL_S_AUTHENTICATE: return api_key == API_SASL_AUTHENTICATE ? GR_SASL_PASS : GR_SASL_FAIL;
    case GR_SASL_S_COMPLETE:
        if (api_key == API_SASL_HANDSHAKE && s->expiry_ms >= 0 &&
            (s->last_reauth_ms < 0 || now_ms - s->last_reauth_ms >= MIN_REAUTH_INTERVAL_MS)) {
            s->last_reauth_ms = now_ms;
            s->reauth = true;
            s->bad_reauth_mech = false;
            s->state = GR_SASL_S_HANDSHAKE;
            return GR_SASL_PASS;
        }
        return s->expiry_ms >= 0 && now_ms > s->expiry_ms ? GR_SASL_EXPIRED : GR_SASL_PASS;
    case GR_SASL_S_RAW: /* raw tokens never reach the request gate */
    case GR_SASL_S_FAILED: break;
    }
    return GR_SASL_FAIL;
}

int16_t gr_sasl_handshake(gr_sasl_session_t *s, const gr_sasl_config_t *c, int16_t version, const char *mech,
                          bool *close) {
    *close = false;
    if (s->state != GR_SASL_S_INITIAL && s->state != GR_SASL_S_HANDSHAKE) return GR_ERR_ILLEGAL_SASL_STATE;
    int m = gr_sasl_mech_from_name(mech);
    if (m < 0 || !c->enabled[m]) {
        s->state = GR_SASL_S_FAILED;
        *close = true;
        return GR_ERR_UNSUPPORTED_SASL_MECHANISM;
    }
    if (s->reauth && (gr_sasl_mech_t)m != s->mech) {
        s->bad_reauth_mech = true; /* answered with success; the next token fails (Kafka) */
        s->asked_mech = (gr_sasl_mech_t)m;
        s->state = GR_SASL_S_AUTHENTICATE;
        return GR_ERR_NONE;
    }
    s->mech = (gr_sasl_mech_t)m;
    gr_scram_server_free(&s->scram);
    if (m != GR_SASL_PLAIN)
        gr_scram_server_init(&s->scram, m == GR_SASL_SCRAM_SHA_256 ? GR_SCRAM_SHA_256 : GR_SCRAM_SHA_512);
    s->state = version >= 1 ? GR_SASL_S_AUTHENTICATE : GR_SASL_S_RAW;
    return GR_ERR_NONE;
}

bool gr_sasl_plain_check(const gr_sasl_config_t *c, const uint8_t *tok, size_t len, char **user, char *errmsg,
                         size_t errmsg_size) {
    /* message = [authzid] NUL authcid NUL passwd; Kafka splits on at most three NULs. */
    const char *t[4];
    size_t tl[4], n = 0, start = 0;
    for (int i = 0; i < 4; i++) {
        const uint8_t *z = memchr(tok + start, 0, len - start);
        size_t end = z ? (size_t)(z - tok) : len;
        t[n] = (const char *)tok + start, tl[n++] = end - start;
        if (!z) break;
        start = end + 1;
    }
    *user = NULL;
    if (n != 3) {
        snprintf(errmsg, errmsg_size, "Invalid SASL/PLAIN response: expected 3 tokens, got %zu", n);
        return false;
    }
    if (tl[1] == 0) return snprintf(errmsg, errmsg_size, "Authentication failed: username not specified"), false;
    if (tl[2] == 0) return snprintf(errmsg, errmsg_size, "Authentication failed: password not specified"), false;
    const gr_sasl_user_t *u = NULL;
    for (size_t i = 0; i < c->n_plain_users; i++)
        if (strlen(c->plain_users[i].name) == tl[1] && !memcmp(c->plain_users[i].name, t[1], tl[1]))
            u = &c->plain_users[i];
    /* Constant time in the password's content: compare the whole candidate whatever matches. */
    bool ok = false;
    if (u) {
        size_t pl = strlen(u->password);
        ok = pl == tl[2] && CRYPTO_memcmp(u->password, t[2], pl) == 0;
    }
    if (!ok) return snprintf(errmsg, errmsg_size, "Authentication failed: Invalid username or password"), false;
    if (tl[0] && (tl[0] != tl[1] || memcmp(t[0], t[1], tl[0]))) {
        snprintf(errmsg, errmsg_size,
                 "Authentication failed: Client requested an authorization id that is different from username");
        return false;
    }
    *user = malloc(tl[1] + 1);
    if (!*user) abort();
    memcpy(*user, t[1], tl[1]);
    (*user)[tl[1]] = '\0';
    return true;
}

static void fail(gr_sasl_session_t *s, gr_sasl_step_t *out, const char *msg) {
    s->state = GR_SASL_S_FAILED;
    out->error = GR_ERR_SASL_AUTHENTICATION_FAILED;
    out->close = true;
    if (msg)
        snprintf(out->msg, sizeof(out->msg), "%.*s", (int)sizeof(out->msg) - 1, msg);
    else /* Kafka hides the reason of a SaslException from the client */
        snprintf(out->msg, sizeof(out->msg),
                 "Authentication failed during %s due to invalid credentials with SASL mechanism %s",
                 s->reauth ? "re-authentication" : "authentication", gr_sasl_mech_name(s->mech));
    free(out->out);
    out->out = NULL;
    out->out_len = 0;
}

/* The exchange finished for user: check re-authentication keeps the principal, start the session. */
static void complete(gr_sasl_session_t *s, const gr_sasl_config_t *c, const char *user, int64_t now_ms,
                     gr_sasl_step_t *out) {
    if (strlen(user) > GR_SASL_MAX_USER) {
        fail(s, out, NULL);
        return;
    }
    if (s->reauth && strcmp(s->user, user)) {
        char msg[2 * GR_SCRAM_MAX_NAME + 96];
        snprintf(msg, sizeof(msg), "Cannot change principals during re-authentication from User.%s: User.%s", s->user,
                 user);
        fail(s, out, msg);
        return;
    }
    snprintf(s->user, sizeof(s->user), "%s", user);
    out->lifetime_ms = c->reauth_ms[s->mech];
    s->expiry_ms = out->lifetime_ms > 0 ? now_ms + out->lifetime_ms : -1;
    s->state = GR_SASL_S_COMPLETE;
    s->reauth = false;
    out->complete = true;
}

void gr_sasl_authenticate(gr_sasl_session_t *s, const gr_sasl_config_t *c, gr_scram_lookup_fn lookup, void *ctx,
                          const uint8_t *tok, size_t len, const char *nonce, int64_t now_ms, gr_sasl_step_t *out) {
    memset(out, 0, sizeof(*out));
    if (s->state != GR_SASL_S_AUTHENTICATE && s->state != GR_SASL_S_RAW) {
        out->error = GR_ERR_ILLEGAL_SASL_STATE;
        snprintf(out->msg, sizeof(out->msg), "SaslAuthenticate request received after successful authentication");
        return;
    }
    if (s->bad_reauth_mech) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "SASL mechanism '%s' requested by client is not supported for re-authentication of mechanism '%s'",
                 gr_sasl_mech_name(s->asked_mech), gr_sasl_mech_name(s->mech));
        fail(s, out, msg);
        out->silent = true; /* Kafka fails this outside of a SaslAuthenticate answer */
        return;
    }
    if (s->mech == GR_SASL_PLAIN) {
        char *user = NULL;
        if (!gr_sasl_plain_check(c, tok, len, &user, out->msg, sizeof(out->msg))) {
            char msg[sizeof(out->msg)];
            memcpy(msg, out->msg, sizeof(msg));
            fail(s, out, msg);
            return;
        }
        out->out = malloc(1);
        if (!out->out) abort();
        complete(s, c, user, now_ms, out);
        free(user);
        return;
    }
    char msg[256] = "";
    gr_scram_result_t r =
        gr_scram_server_step(&s->scram, tok, len, nonce, lookup, ctx, &out->out, &out->out_len, msg, sizeof(msg));
    if (r != GR_SCRAM_OK) {
        fail(s, out, r == GR_SCRAM_FAIL_MESSAGE ? msg : NULL);
        return;
    }
    if (s->scram.state == GR_SCRAM_S_DONE) {
        char user[GR_SCRAM_MAX_NAME + 1];
        snprintf(user, sizeof(user), "%s", s->scram.user);
        gr_scram_server_free(&s->scram);
        gr_scram_server_init(&s->scram, GR_SCRAM_UNKNOWN);
        complete(s, c, user, now_ms, out);
    }
}
