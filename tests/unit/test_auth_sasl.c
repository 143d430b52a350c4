/* src/auth/sasl*.c: a listener's SASL setup from Kafka's keys, the mechanism order of
 * Kafka's SaslHandshake answer, PLAIN, and the connection state machine (gate, handshake,
 * authenticate, KIP-368 expiry and re-authentication). */
#include <stdlib.h>
#include <string.h>

#include "auth/sasl.h"
#include "testutil.h"

#define PLAIN_JAAS \
    "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"a-pw\" user_bob=\"b\";"
#define SCRAM_JAAS "org.apache.kafka.common.security.scram.ScramLoginModule required;"

static const char *const *g_kv; /* NULL-terminated key, value pairs */

static const char *get(void *ctx, const char *key) {
    (void)ctx;
    for (size_t i = 0; g_kv[i]; i += 2)
        if (!strcmp(g_kv[i], key)) return g_kv[i + 1];
    return NULL;
}

static gr_err_t build(gr_sasl_config_t *c, const char *const *kv, char *err) {
    g_kv = kv;
    return gr_sasl_config_build(c, "SASL_PLAINTEXT", get, NULL, err, 512);
}

static void test_config(void) {
    gr_sasl_config_t c;
    char err[512];
    const char *none[] = {NULL};
    ASSERT_EQ(build(&c, none, err), GR_ERR_INVALID_CONFIG); /* default GSSAPI */
    ASSERT(strstr(err, "SASL mechanism GSSAPI is not supported by gregor"));
    const char *nojaas[] = {"sasl.enabled.mechanisms", "PLAIN", NULL};
    ASSERT_EQ(build(&c, nojaas, err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "listener.name.sasl_plaintext.plain.sasl.jaas.config is not set"));
    const char *badjaas[] = {"sasl.enabled.mechanisms", "PLAIN", "sasl.jaas.config", "x.Y required", NULL};
    ASSERT_EQ(build(&c, badjaas, err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "JAAS config entry not terminated by semi-colon"));
    const char *badmod[] = {"sasl.enabled.mechanisms", "PLAIN", "sasl.jaas.config", "x.Y required;", NULL};
    ASSERT_EQ(build(&c, badmod, err), GR_ERR_INVALID_CONFIG);
    ASSERT(strstr(err, "login module x.Y is not supported"));
    const char *full[] = {"sasl.enabled.mechanisms",
                          "GSSAPI",
                          "listener.name.sasl_plaintext.sasl.enabled.mechanisms",
                          " SCRAM-SHA-256 , PLAIN,SCRAM-SHA-512",
                          "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                          PLAIN_JAAS,
                          "sasl.jaas.config",
                          SCRAM_JAAS,
                          "connections.max.reauth.ms",
                          "5000",
                          "listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms",
                          "700",
                          NULL};
    ASSERT_EQ(build(&c, full, err), 0);
    ASSERT_EQ(c.n_names, 3); /* Kafka's order: new ArrayList<>(new HashSet<>(list)) */
    ASSERT_STREQ(c.names[0], "PLAIN");
    ASSERT_STREQ(c.names[1], "SCRAM-SHA-512");
    ASSERT_STREQ(c.names[2], "SCRAM-SHA-256");
    ASSERT_EQ(c.n_plain_users, 2);
    ASSERT_EQ(c.reauth_ms[GR_SASL_PLAIN], 5000);
    ASSERT_EQ(c.reauth_ms[GR_SASL_SCRAM_SHA_512], 700);
    gr_sasl_config_free(&c);
}

static void plain_fails(const gr_sasl_config_t *c, const char *tok, size_t len, const char *msg) {
    char *user = NULL, err[256];
    ASSERT(!gr_sasl_plain_check(c, (const uint8_t *)tok, len, &user, err, sizeof(err)));
    ASSERT_STREQ(err, msg);
    ASSERT(user == NULL);
}

static void test_plain(void) {
    gr_sasl_config_t c;
    char err[512], *user = NULL;
    const char *kv[] = {"sasl.enabled.mechanisms", "PLAIN", "sasl.jaas.config", PLAIN_JAAS, NULL};
    ASSERT_EQ(build(&c, kv, err), 0);
    ASSERT(gr_sasl_plain_check(&c, (const uint8_t *)"\0alice\0a-pw", 11, &user, err, sizeof(err)));
    ASSERT_STREQ(user, "alice");
    free(user);
    ASSERT(gr_sasl_plain_check(&c, (const uint8_t *)"alice\0alice\0a-pw", 16, &user, err, sizeof(err)));
    free(user);
    plain_fails(&c, "\0alice\0a-pX", 11, "Authentication failed: Invalid username or password");
    plain_fails(&c, "\0alice\0a-pw2", 12, "Authentication failed: Invalid username or password");
    plain_fails(&c, "\0carol\0a-pw", 11, "Authentication failed: Invalid username or password");
    plain_fails(&c, "\0\0a-pw", 6, "Authentication failed: username not specified");
    plain_fails(&c, "\0alice\0", 7, "Authentication failed: password not specified");
    plain_fails(&c, "alice\0a-pw", 10, "Invalid SASL/PLAIN response: expected 3 tokens, got 2");
    plain_fails(&c, "\0alice\0a-pw\0", 12, "Invalid SASL/PLAIN response: expected 3 tokens, got 4");
    plain_fails(&c, "bob\0alice\0a-pw", 14,
                "Authentication failed: Client requested an authorization id that is different from username");
    gr_sasl_config_free(&c);
}

static const gr_scram_cred_t *no_creds(void *ctx, const char *user, gr_scram_mech_t mech) {
    (void)ctx, (void)user, (void)mech;
    return NULL;
}

static void authenticate(gr_sasl_session_t *s, const gr_sasl_config_t *c, const char *tok, size_t len, int64_t now,
                         gr_sasl_step_t *st) {
    gr_sasl_authenticate(s, c, no_creds, NULL, (const uint8_t *)tok, len, "nonce", now, st);
    free(st->out);
    st->out = NULL;
}

static void test_session(void) {
    gr_sasl_config_t c;
    gr_sasl_session_t s;
    gr_sasl_step_t st;
    char err[512];
    bool close;
    const char *kv[] = {"sasl.enabled.mechanisms",
                        "PLAIN,SCRAM-SHA-256",
                        "sasl.jaas.config",
                        PLAIN_JAAS,
                        "connections.max.reauth.ms",
                        "1000",
                        NULL};
    ASSERT_EQ(build(&c, kv, err), 0);
    /* before authentication: ApiVersions once, then SaslHandshake only */
    gr_sasl_session_init(&s);
    ASSERT_EQ(gr_sasl_admit(&s, 18, 0), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_admit(&s, 18, 0), GR_SASL_FAIL);
    ASSERT_EQ(gr_sasl_admit(&s, 3, 0), GR_SASL_FAIL);
    ASSERT_EQ(gr_sasl_admit(&s, 17, 0), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 1, "SCRAM-SHA-512", &close), GR_ERR_UNSUPPORTED_SASL_MECHANISM);
    ASSERT(close && s.state == GR_SASL_S_FAILED);
    gr_sasl_session_free(&s);

    gr_sasl_session_init(&s);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 1, "PLAIN", &close), 0);
    ASSERT_EQ(gr_sasl_admit(&s, 0, 0), GR_SASL_FAIL); /* Produce while authenticating */
    ASSERT_EQ(gr_sasl_admit(&s, 36, 0), GR_SASL_PASS);
    authenticate(&s, &c, "\0alice\0a-pw", 11, 100, &st);
    ASSERT(st.complete && st.error == 0 && st.lifetime_ms == 1000);
    ASSERT_STREQ(s.user, "alice");
    ASSERT_EQ(s.expiry_ms, 1100);
    ASSERT_EQ(gr_sasl_admit(&s, 3, 1100), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_admit(&s, 3, 1101), GR_SASL_EXPIRED);
    authenticate(&s, &c, "\0alice\0a-pw", 11, 200, &st);
    ASSERT_EQ(st.error, GR_ERR_ILLEGAL_SASL_STATE);
    ASSERT_STREQ(st.msg, "SaslAuthenticate request received after successful authentication");
    /* re-authentication: a handshake on the authenticated connection, even after expiry */
    ASSERT_EQ(gr_sasl_admit(&s, 17, 1500), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 1, "PLAIN", &close), 0);
    authenticate(&s, &c, "\0alice\0a-pw", 11, 1600, &st);
    ASSERT(st.complete && s.expiry_ms == 2600);
    /* at most one re-authentication a second: the handshake is answered ILLEGAL_SASL_STATE */
    ASSERT_EQ(gr_sasl_admit(&s, 17, 2400), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 1, "PLAIN", &close), GR_ERR_ILLEGAL_SASL_STATE);
    ASSERT(!close);
    /* another principal */
    ASSERT_EQ(gr_sasl_admit(&s, 17, 2500), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 1, "PLAIN", &close), 0);
    authenticate(&s, &c, "\0bob\0b", 6, 2600, &st);
    ASSERT(st.error == GR_ERR_SASL_AUTHENTICATION_FAILED && st.close && !st.silent);
    ASSERT_STREQ(st.msg, "Cannot change principals during re-authentication from User.alice: User.bob");
    gr_sasl_session_free(&s);

    /* re-authentication with another mechanism: the handshake succeeds, the token fails silently */
    gr_sasl_session_init(&s);
    gr_sasl_handshake(&s, &c, 1, "PLAIN", &close);
    authenticate(&s, &c, "\0alice\0a-pw", 11, 0, &st);
    ASSERT_EQ(gr_sasl_admit(&s, 17, 10), GR_SASL_PASS);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 1, "SCRAM-SHA-256", &close), 0);
    authenticate(&s, &c, "n,,n=alice,r=x", 14, 20, &st);
    ASSERT(st.error && st.silent);
    ASSERT_STREQ(st.msg, "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for re-authentication of "
                         "mechanism 'PLAIN'");
    gr_sasl_session_free(&s);

    /* v0 handshake: raw tokens; a wrong password is a failure with the generic wording for SCRAM */
    gr_sasl_session_init(&s);
    ASSERT_EQ(gr_sasl_handshake(&s, &c, 0, "SCRAM-SHA-256", &close), 0);
    ASSERT_EQ(s.state, GR_SASL_S_RAW);
    authenticate(&s, &c, "n,,n=alice,r=x", 14, 0, &st);
    ASSERT_EQ(st.error, GR_ERR_SASL_AUTHENTICATION_FAILED);
    ASSERT_STREQ(st.msg, "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                         "SCRAM-SHA-256");
    gr_sasl_session_free(&s);
    gr_sasl_config_free(&c);
}

static void test_java_order(void) {
    /* PLAIN and SCRAM-SHA-512 share bucket 0 of 16 (insertion order), SCRAM-SHA-256 is in 6 */
    const char *a[] = {"SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN", "SCRAM-SHA-512"};
    ASSERT_EQ(gr_sasl_java_set_order(a, 4), 3);
    ASSERT_STREQ(a[0], "SCRAM-SHA-512");
    ASSERT_STREQ(a[1], "PLAIN");
    ASSERT_STREQ(a[2], "SCRAM-SHA-256");
}

int main(void) {
    RUN_TEST(test_config);
    RUN_TEST(test_plain);
    RUN_TEST(test_session);
    RUN_TEST(test_java_order);
    return 0;
}
