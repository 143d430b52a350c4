/* SASL on a SASL_PLAINTEXT / SASL_SSL listener (docs/security.md "SASL"): the gate in
 * front of the dispatch table, SaslHandshake (17), SaslAuthenticate (36), raw tokens after
 * a v0 handshake, re-authentication (KIP-368) and the delayed answer to a failed
 * authentication (connection.failed.authentication.delay.ms), which keeps a guessing
 * client waiting without blocking the loop. The state machine is src/auth/sasl.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

#define FLUSH_RETRY_MS 10
#define FLUSH_TRIES    100 /* then close anyway: the peer is not reading */

struct gr_broker_sasl_listener {
    char *name;
    gr_sasl_config_t cfg;
    uint64_t auth_ok, auth_failed; /* authentications (re-authentications too) that succeeded / failed */
};

typedef struct sasl_conn {
    gr_broker_t *b;
    gr_conn_t *conn;
    const gr_sasl_config_t *cfg;         /* its listener's */
    struct gr_broker_sasl_listener *lst; /* its listener (NULL: a SASL listener never set up) */
    gr_sasl_session_t s;
    gr_timer_t fail_timer;
    bool failing, has_answer;
    bool in_timer, closed; /* the connection closed while fail_timer_cb was answering */
    uint64_t answer_seq;
    gr_wbuf_t answer;
    int tries;
} sasl_conn_t;

static bool is_sasl(const gr_conn_t *conn) {
    gr_sec_proto_t p = gr_conn_sec_proto(conn);
    return p == GR_SEC_SASL_PLAINTEXT || p == GR_SEC_SASL_SSL;
}

static void fail_timer_cb(gr_timer_t *t, int64_t now) {
    sasl_conn_t *sc = t->data;
    (void)now;
    if (sc->has_answer) {
        sc->has_answer = false;
        /* Answering may write, fail and close the connection (on_close below): then conn
         * may be gone and sc is ours to free. */
        sc->in_timer = true;
        gr_conn_respond(sc->conn, sc->answer_seq, &sc->answer);
        sc->in_timer = false;
        if (sc->closed) {
            free(sc);
            return;
        }
    }
    if (!gr_conn_is_closed(sc->conn) && gr_conn_out_bytes(sc->conn) > 0 && ++sc->tries < FLUSH_TRIES) {
        gr_timer_start(t, FLUSH_RETRY_MS, 0);
        return;
    }
    gr_conn_close(sc->conn); /* on_close frees sc */
}

static sasl_conn_t *sasl_conn(gr_broker_t *b, gr_conn_t *conn) {
    sasl_conn_t *sc = gr_conn_user(conn);
    if (sc) return sc;
    sc = calloc(1, sizeof(*sc));
    if (!sc) abort();
    static const gr_sasl_config_t none; /* a SASL listener never set up: nothing enabled */
    sc->b = b;
    sc->conn = conn;
    sc->cfg = &none;
    for (size_t i = 0; i < b->n_sasl; i++)
        if (!strcmp(b->sasl[i].name, gr_conn_listener_name(conn))) sc->lst = &b->sasl[i], sc->cfg = &b->sasl[i].cfg;
    gr_sasl_session_init(&sc->s);
    gr_timer_init(b->loop, &sc->fail_timer, fail_timer_cb, sc);
    gr_wbuf_init(&sc->answer);
    gr_conn_set_user(conn, sc);
    return sc;
}

/* Fail the authentication: answer (if any) after the delay, then close. Frames that
 * arrive meanwhile are dropped. Logged as Kafka does (INFO), but rate-limited: a
 * guessing client must not flood the log. */
static void fail_later(sasl_conn_t *sc, gr_wbuf_t *answer, uint64_t seq, const char *why) {
    GR_LOG_LIMITED(GR_LOG_INFO, "sasl", "failed authentication with %s on listener %s (%s): %s", gr_conn_peer(sc->conn),
                   gr_conn_listener_name(sc->conn), gr_sasl_mech_name(sc->s.mech), why);
    if (sc->lst) GR_METRIC(sc->lst->auth_failed++);
    sc->s.state = GR_SASL_S_FAILED;
    sc->failing = true;
    if (answer) {
        sc->answer = *answer;
        sc->answer_seq = seq;
        sc->has_answer = true;
    }
    gr_timer_start(&sc->fail_timer, sc->b->sasl_fail_delay_ms, 0);
}

void gr_broker_sasl_on_close(gr_broker_t *b, gr_conn_t *conn) {
    (void)b;
    sasl_conn_t *sc = gr_conn_user(conn);
    if (!sc) return;
    gr_conn_set_user(conn, NULL);
    gr_timer_stop(&sc->fail_timer);
    if (sc->has_answer) {
        gr_wbuf_free(&sc->answer);
        gr_conn_skip(conn, sc->answer_seq);
    }
    gr_sasl_session_free(&sc->s);
    if (sc->in_timer)
        sc->closed = true; /* fail_timer_cb frees it */
    else
        free(sc);
}

static void drop_frame(gr_conn_t *conn, uint64_t seq, uint8_t *frame) {
    free(frame);
    gr_conn_skip(conn, seq);
}

/* A printable nonce without ',' (Kafka: 130 random bits in base 36). */
static void make_nonce(char *out, size_t n) {
    uint8_t r[32];
    size_t got = 0;
    while (got < sizeof(r)) {
        ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
        if (k > 0) got += (size_t)k;
    }
    for (size_t i = 0; i + 1 < n && i < sizeof(r); i++) out[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[r[i] % 36];
    out[n - 1 < sizeof(r) ? n - 1 : sizeof(r)] = '\0';
}

static const gr_scram_cred_t *lookup(void *ctx, const char *user, gr_scram_mech_t mech) {
    return gr_scram_store_get(&((gr_broker_t *)ctx)->scram, user, mech);
}

void gr_broker_sasl_on_accept(void *ctx, gr_conn_t *conn) {
    gr_broker_t *b = ctx;
    if (is_sasl(conn) && b->sasl_max_receive < (size_t)b->cfg->socket_request_max_bytes)
        gr_conn_set_max_request_bytes(conn, b->sasl_max_receive, "sasl.server.max.receive.size");
}

static void authenticated(sasl_conn_t *sc) {
    char p[GR_CONN_PRINCIPAL_MAX];
    gr_conn_set_max_request_bytes(sc->conn, (size_t)sc->b->cfg->socket_request_max_bytes, NULL);
    snprintf(p, sizeof(p), "User:%.*s", GR_SASL_MAX_USER, sc->s.user); /* longer names never authenticate */
    gr_conn_set_principal(sc->conn, p);
    if (sc->lst) GR_METRIC(sc->lst->auth_ok++);
    GR_DEBUG("sasl", "%s authenticated as %s with %s", gr_conn_peer(sc->conn), p, gr_sasl_mech_name(sc->s.mech));
}

static void step(sasl_conn_t *sc, const uint8_t *tok, size_t len, gr_sasl_step_t *st) {
    char nonce[33];
    make_nonce(nonce, sizeof(nonce));
    gr_sasl_authenticate(&sc->s, sc->cfg, lookup, sc->b, tok, len, nonce, gr_loop_now(sc->b->loop), st);
    if (st->complete) authenticated(sc);
}

bool gr_broker_sasl_raw(gr_broker_t *b, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len) {
    if (!is_sasl(conn)) return false;
    sasl_conn_t *sc = sasl_conn(b, conn);
    if (sc->failing) {
        drop_frame(conn, seq, frame);
        return true;
    }
    if (sc->s.state != GR_SASL_S_RAW) return false;
    /* After a v0 handshake the frames are bare SASL tokens, answered the same way. */
    gr_sasl_step_t st;
    step(sc, frame, len, &st);
    free(frame);
    if (st.error) {
        free(st.out);
        fail_later(sc, NULL, seq, st.msg); /* Kafka sends nothing back for a raw token */
        gr_conn_skip(conn, seq);
        return true;
    }
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_wbuf_i32(&wb, (int32_t)st.out_len);
    if (st.out_len) gr_wbuf_put(&wb, st.out, st.out_len);
    free(st.out);
    gr_conn_respond(conn, seq, &wb);
    gr_wbuf_free(&wb);
    return true;
}

bool gr_broker_sasl_gate(gr_broker_t *b, gr_conn_t *conn, uint64_t seq, uint8_t *frame, int16_t api_key) {
    if (!is_sasl(conn)) return false;
    sasl_conn_t *sc = sasl_conn(b, conn);
    switch (gr_sasl_admit(&sc->s, api_key, gr_loop_now(b->loop))) {
    case GR_SASL_PASS: return false;
    case GR_SASL_EXPIRED:
        GR_INFO("sasl", "closing connection from %s (%s): session expired (connections.max.reauth.ms)",
                gr_conn_peer(conn), gr_conn_principal(conn));
        free(frame);
        gr_conn_close(conn);
        gr_conn_skip(conn, seq);
        return true;
    case GR_SASL_FAIL: break;
    }
    GR_DEBUG("sasl", "closing connection from %s: unexpected request (api key %d) during SASL authentication",
             gr_conn_peer(conn), api_key);
    if (sc->failing || sc->s.state == GR_SASL_S_AUTHENTICATE) {
        /* Kafka answers this one with an error and closes after the failure delay; we close
         * after the delay without the answer (docs/compatibility.md). */
        if (!sc->failing) fail_later(sc, NULL, 0, "unexpected request during SASL authentication");
        drop_frame(conn, seq, frame);
        return true;
    }
    free(frame); /* before the handshake Kafka closes at once */
    gr_conn_close(conn);
    gr_conn_skip(conn, seq);
    return true;
}

/* Answer now, or when the exchange failed for good (close) answer after the delay and
 * then close (fail_later). */
static void respond(gr_req_t *req, sasl_conn_t *sc, const void *resp, bool close, const char *why) {
    if (!close) {
        gr_req_respond(req, resp);
        return;
    }
    gr_wbuf_t wb;
    uint64_t seq;
    gr_req_encode_detach(req, resp, &wb, &seq);
    fail_later(sc, &wb, seq, why);
}

void gr_h_sasl_handshake(gr_req_t *req) {
    const gr_SaslHandshakeRequest_t *r = req->body;
    gr_SaslHandshakeResponse_t *resp = gr_req_resp_new(req);
    if (!is_sasl(req->conn)) {
        resp->ErrorCode = GR_ERR_ILLEGAL_SASL_STATE;
        gr_req_respond(req, resp);
        return;
    }
    sasl_conn_t *sc = sasl_conn(req->b, req->conn);
    bool close = false;
    resp->ErrorCode = gr_sasl_handshake(&sc->s, sc->cfg, req->hdr.api_version, gr_req_cstr(req, r->Mechanism), &close);
    if (resp->ErrorCode != GR_ERR_ILLEGAL_SASL_STATE) {
        const gr_sasl_config_t *c = sc->cfg;
        resp->Mechanisms.v = gr_arena_alloc(&req->arena, c->n_names * sizeof(gr_str_t) + 1);
        resp->Mechanisms.n = (int32_t)c->n_names;
        for (size_t i = 0; i < c->n_names; i++) resp->Mechanisms.v[i] = gr_str_c(c->names[i]);
    }
    char why[160];
    snprintf(why, sizeof(why), "SaslHandshake v%d for mechanism '%.64s' answered %s", req->hdr.api_version,
             gr_req_cstr(req, r->Mechanism), gr_err_name((gr_err_t)resp->ErrorCode));
    respond(req, sc, resp, close, why);
}

void gr_h_sasl_authenticate(gr_req_t *req) {
    const gr_SaslAuthenticateRequest_t *r = req->body;
    gr_SaslAuthenticateResponse_t *resp = gr_req_resp_new(req);
    if (!is_sasl(req->conn)) {
        resp->ErrorCode = GR_ERR_ILLEGAL_SASL_STATE;
        resp->ErrorMessage = GR_STR("SaslAuthenticate request received after successful authentication");
        gr_req_respond(req, resp);
        return;
    }
    sasl_conn_t *sc = sasl_conn(req->b, req->conn);
    gr_sasl_step_t st;
    step(sc, r->AuthBytes.len > 0 ? r->AuthBytes.ptr : (const uint8_t *)"", r->AuthBytes.len > 0 ? r->AuthBytes.len : 0,
         &st);
    resp->ErrorCode = st.error;
    if (st.error) resp->ErrorMessage = gr_req_msg(req, "%s", st.msg);
    if (st.out_len) {
        uint8_t *copy = gr_arena_alloc(&req->arena, st.out_len);
        memcpy(copy, st.out, st.out_len);
        resp->AuthBytes = (gr_bytes_t){.ptr = copy, .len = (int32_t)st.out_len, .fd = -1};
    }
    free(st.out);
    resp->SessionLifetimeMs = st.lifetime_ms;
    if (st.silent) {
        gr_req_respond_none(req);
        fail_later(sc, NULL, 0, st.msg);
        return;
    }
    respond(req, sc, resp, st.close, st.msg);
}

static const char *get_cfg(void *ctx, const char *key) { return gr_props_get(ctx, key); }

gr_err_t gr_broker_check_sasl(const gr_server_config_t *cfg, char *errstr, size_t errstr_size) {
    for (size_t i = 0; i < cfg->n_listeners; i++) {
        const gr_listener_config_t *l = &cfg->listeners[i];
        if (l->sec_proto != GR_SEC_SASL_PLAINTEXT && l->sec_proto != GR_SEC_SASL_SSL) continue;
        gr_sasl_config_t c;
        gr_err_t err = gr_sasl_config_build(&c, l->name, get_cfg, (void *)&cfg->raw, errstr, errstr_size);
        if (err) return err;
        gr_sasl_config_free(&c);
    }
    return GR_ERR_NONE;
}

gr_err_t gr_broker_sasl_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    const gr_server_config_t *cfg = b->cfg;
    gr_scram_store_init(&b->scram);
    gr_err_t err = gr_scram_store_load(&b->scram, cfg->log_dir, errstr, errstr_size);
    if (err) return err;
    const char *d = gr_props_get(&cfg->raw, "connection.failed.authentication.delay.ms");
    b->sasl_fail_delay_ms = d ? atoll(d) : 100;
    const char *m = gr_props_get(&cfg->raw, "sasl.server.max.receive.size");
    b->sasl_max_receive = m ? (size_t)atoll(m) : 524288;
    for (size_t i = 0; i < cfg->n_listeners; i++) {
        const gr_listener_config_t *l = &cfg->listeners[i];
        if (l->sec_proto != GR_SEC_SASL_PLAINTEXT && l->sec_proto != GR_SEC_SASL_SSL) continue;
        if ((err = gr_broker_sasl_add_listener(b, l->name, errstr, errstr_size))) return err;
    }
    return GR_ERR_NONE;
}

gr_err_t gr_broker_sasl_add_listener(gr_broker_t *b, const char *listener, char *errstr, size_t errstr_size) {
    struct gr_broker_sasl_listener *v = realloc(b->sasl, (b->n_sasl + 1) * sizeof(*v));
    if (!v) abort();
    b->sasl = v;
    gr_err_t err =
        gr_sasl_config_build(&v[b->n_sasl].cfg, listener, get_cfg, (void *)&b->cfg->raw, errstr, errstr_size);
    if (err) return err;
    if (!(v[b->n_sasl].name = strdup(listener))) abort();
    b->n_sasl++;
    return GR_ERR_NONE;
}

void gr_broker_sasl_close(gr_broker_t *b) {
    for (size_t i = 0; i < b->n_sasl; i++) {
        gr_sasl_config_free(&b->sasl[i].cfg);
        free(b->sasl[i].name);
    }
    free(b->sasl);
    b->sasl = NULL;
    b->n_sasl = 0;
    gr_scram_store_free(&b->scram);
}

bool gr_broker_sasl_counts(const gr_broker_t *b, const char *listener, uint64_t *ok, uint64_t *failed) {
    for (size_t i = 0; i < b->n_sasl; i++)
        if (!strcmp(b->sasl[i].name, listener)) {
            *ok = b->sasl[i].auth_ok, *failed = b->sasl[i].auth_failed;
            return true;
        }
    return false;
}
