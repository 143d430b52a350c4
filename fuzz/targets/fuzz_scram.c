/* libFuzzer target: the SASL decoders a client reaches before it is authenticated —
 * SCRAM client messages (src/auth/scram.c grammar and server exchange), PLAIN tokens and
 * base64 — through the connection state machine (src/auth/sasl_session.c).
 *
 * Input byte 0 selects the mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), whether the
 * handshake is v0 (raw tokens, bit 0x10), and with bit 0x20 libgregor's client side
 * (src/client/sasl_client.c) instead, fed server messages; the rest is split at 0xff bytes
 * into the tokens fed in order. Invariants: never a crash; success only for the known PLAIN user and password
 * (SCRAM needs a proof the fuzzer cannot forge); a failure carries SASL_AUTHENTICATION_FAILED
 * and a message; nothing is accepted after a failure; base64 decode/encode round trips. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/sasl.h"
#include "client/sasl_client.h"

static gr_sasl_config_t g_cfg;
static gr_scram_cred_t g_creds[2];

static const char *get(void *ctx, const char *key) {
    (void)ctx;
    if (!strcmp(key, "sasl.enabled.mechanisms")) return "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512";
    if (!strcmp(key, "sasl.jaas.config"))
        return "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"pw\";";
    return NULL;
}

static const gr_scram_cred_t *lookup(void *ctx, const char *user, gr_scram_mech_t mech) {
    (void)ctx;
    return strcmp(user, "alice") ? NULL : &g_creds[mech == GR_SCRAM_SHA_512];
}

static void init(void) {
    char err[256];
    if (g_cfg.n_names) return;
    if (gr_sasl_config_build(&g_cfg, "SASL_PLAINTEXT", get, NULL, err, sizeof(err))) abort();
    const uint8_t salt[8] = {1, 2, 3, 4, 5, 6, 7, 8}, sp[64] = {7};
    gr_scram_cred_from_salted(GR_SCRAM_SHA_256, salt, 8, sp, 32, 4096, &g_creds[0]);
    gr_scram_cred_from_salted(GR_SCRAM_SHA_512, salt, 8, sp, 64, 4096, &g_creds[1]);
}

static void b64_round_trip(const uint8_t *d, size_t n) {
    uint8_t *out = malloc(n / 4 * 3 + 3);
    long k = gr_b64_decode((const char *)d, n, out);
    if (k >= 0) {
        char *enc = malloc(n + 5);
        assert(gr_b64_encode(out, (size_t)k, enc) == n);
        free(enc);
    }
    free(out);
}

/* libgregor's client: a server message it cannot verify never completes a SCRAM exchange. */
static void fuzz_client(const char *mech, const uint8_t *data, size_t size) {
    gr__sasl_client_t c;
    size_t len;
    if (gr__sasl_client_init(&c, mech, "alice", "pw", "cnonce")) abort();
    free(gr__sasl_client_first(&c, &len));
    for (size_t i = 0; i <= size;) {
        size_t end = i;
        while (end < size && data[end] != 0xff) end++;
        bool done;
        gr_err_t err;
        char why[160];
        uint8_t *t = gr__sasl_client_next(&c, data + i, end - i, &len, &done, &err, why, sizeof(why));
        free(t);
        if (err || done) break;
        i = end + 1;
    }
    gr__sasl_client_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    init();
    if (size < 1) return 0;
    static const char *const mechs[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
    if (data[0] & 0x20) {
        fuzz_client(mechs[(data[0] & 0x0f) % 3], data + 1, size - 1);
        return 0;
    }
    gr_sasl_session_t s;
    gr_sasl_session_init(&s);
    bool close;
    assert(gr_sasl_handshake(&s, &g_cfg, data[0] & 0x10 ? 0 : 1, mechs[(data[0] & 0x0f) % 3], &close) == 0);
    bool failed = false;
    for (size_t i = 1; i <= size;) {
        size_t end = i;
        while (end < size && data[end] != 0xff) end++;
        gr_sasl_step_t st;
        gr_sasl_authenticate(&s, &g_cfg, lookup, NULL, data + i, end - i, "srvnonce", 0, &st);
        if (failed) assert(st.error != 0);
        if (st.error == GR_ERR_SASL_AUTHENTICATION_FAILED) {
            assert(st.close && st.msg[0] && !st.complete);
            failed = true;
        }
        if (st.complete) {
            assert((data[0] & 0x0f) % 3 == 0 && !strcmp(s.user, "alice"));
        }
        free(st.out);
        b64_round_trip(data + i, end - i);
        i = end + 1;
    }
    gr_sasl_session_free(&s);
    return 0;
}
