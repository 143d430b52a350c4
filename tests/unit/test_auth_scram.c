/* src/auth/scram*.c: RFC 7677 test vector, Kafka's message grammar, the server exchange,
 * the credential store and its file, AlterUserScramCredentials validation. */
#include <stdlib.h>
#include <string.h>

#include "auth/scram.h"
#include "auth/scram_store.h"
#include "testutil.h"

#define RFC_CFIRST "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
#define RFC_SNONCE "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define RFC_SFIRST "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define RFC_CFINAL \
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define RFC_SFINAL "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

static gr_scram_cred_t g_cred; /* what lookup() returns for "user" */

static const gr_scram_cred_t *lookup(void *ctx, const char *user, gr_scram_mech_t mech) {
    (void)ctx;
    return !strcmp(user, "user") && mech == g_cred.mech ? &g_cred : NULL;
}

static void make_cred(gr_scram_mech_t m, const char *pw, int32_t it) {
    uint8_t salt[16], sp[GR_SCRAM_MAX_HASH];
    ASSERT_EQ(gr_b64_decode("W22ZaJ0SNY7soEsUEjb6gQ==", 24, salt), 16);
    gr_scram_salted_password(m, pw, strlen(pw), salt, 16, it, sp);
    gr_scram_cred_from_salted(m, salt, 16, sp, gr_scram_hash_len(m), it, &g_cred);
}

static gr_scram_result_t step(gr_scram_server_t *s, const char *in, const char *nonce, char *out, char *msg) {
    uint8_t *o = NULL;
    size_t n = 0;
    gr_scram_result_t r =
        gr_scram_server_step(s, (const uint8_t *)in, strlen(in), nonce, lookup, NULL, &o, &n, msg, 256);
    if (o) memcpy(out, o, n);
    out[n] = '\0';
    free(o);
    return r;
}

static void test_rfc7677(void) {
    char out[512], msg[256];
    gr_scram_server_t s;
    make_cred(GR_SCRAM_SHA_256, "pencil", 4096);
    gr_scram_server_init(&s, GR_SCRAM_SHA_256);
    ASSERT_EQ(step(&s, RFC_CFIRST, RFC_SNONCE, out, msg), GR_SCRAM_OK);
    ASSERT_STREQ(out, RFC_SFIRST);
    ASSERT_EQ(step(&s, RFC_CFINAL, RFC_SNONCE, out, msg), GR_SCRAM_OK);
    ASSERT_STREQ(out, RFC_SFINAL);
    ASSERT_EQ(s.state, GR_SCRAM_S_DONE);
    ASSERT_STREQ(s.user, "user");
    gr_scram_server_free(&s);
    /* a wrong proof (one character changed) fails without saying why */
    gr_scram_server_init(&s, GR_SCRAM_SHA_256);
    ASSERT_EQ(step(&s, RFC_CFIRST, RFC_SNONCE, out, msg), GR_SCRAM_OK);
    char bad[] = RFC_CFINAL;
    bad[strlen(bad) - 3] = 'A';
    ASSERT_EQ(step(&s, bad, RFC_SNONCE, out, msg), GR_SCRAM_FAIL_GENERIC);
    ASSERT_EQ(s.state, GR_SCRAM_S_FAILED);
    gr_scram_server_free(&s);
    gr_scram_cred_free(&g_cred);
}

static void test_exchange_outcomes(void) {
    char out[512], msg[256] = "";
    gr_scram_server_t s;
    make_cred(GR_SCRAM_SHA_512, "pencil", 4096);
    /* unknown user, other mechanism, tokenauth, authzid, too few iterations */
    const char *generic[] = {"n,,n=bob,r=abc", "n,,n=user,r=abc,tokenauth=true", "y,,n=user,r=abc", "n,,n=user,r=a,b"};
    for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
        gr_scram_server_init(&s, GR_SCRAM_SHA_512);
        ASSERT_EQ(step(&s, generic[i], "x", out, msg), GR_SCRAM_FAIL_GENERIC);
        gr_scram_server_free(&s);
    }
    gr_scram_server_init(&s, GR_SCRAM_SHA_256);
    ASSERT_EQ(step(&s, "n,,n=user,r=abc", "x", out, msg), GR_SCRAM_FAIL_GENERIC); /* only a 512 credential */
    gr_scram_server_free(&s);
    gr_scram_server_init(&s, GR_SCRAM_SHA_512);
    ASSERT_EQ(step(&s, "n,a=root,n=user,r=abc", "x", out, msg), GR_SCRAM_FAIL_MESSAGE);
    ASSERT_STREQ(msg, "Authentication failed: Client requested an authorization id that is different from username");
    gr_scram_server_free(&s);
    gr_scram_server_init(&s, GR_SCRAM_SHA_512);
    ASSERT_EQ(step(&s, "n,a=user,m=ext,n=user,r=abc,ext=1", "srv", out, msg), GR_SCRAM_OK);
    ASSERT(!strncmp(out, "r=abcsrv,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", 41));
    /* the final nonce must end with the server's combined nonce */
    ASSERT_EQ(step(&s, "c=biws,r=abcOTHER,p=AAAA", "srv", out, msg), GR_SCRAM_FAIL_GENERIC);
    gr_scram_server_free(&s);
    g_cred.iterations = 4095;
    gr_scram_server_init(&s, GR_SCRAM_SHA_512);
    ASSERT_EQ(step(&s, "n,,n=user,r=abc", "x", out, msg), GR_SCRAM_FAIL_GENERIC);
    gr_scram_server_free(&s);
    gr_scram_cred_free(&g_cred);
}

static void test_grammar(void) {
    gr_scram_client_first_t f;
    gr_scram_client_final_t fin;
    ASSERT_EQ(gr_scram_parse_client_first("n,,n=a=2Cb=3Dc,r=xyz", 20, &f), 0);
    ASSERT_STREQ(f.user, "a,b=c");
    ASSERT_EQ(f.bare.n, 17);
    const char *bad_first[] = {
        "",           "n,,n=,r=x",   "n,,n=a=41,r=x",     "n,,n=a,r=",   "n,,n=a,r=x,", "n,,n=a,r=x,1=2",
        "n,,r=x,n=a", "n,x,n=a,r=x", "n,,n=\xc3\xa9,r=x", "n,,n=a,r=x y"};
    for (size_t i = 0; i < sizeof(bad_first) / sizeof(bad_first[0]); i++)
        ASSERT_EQ(gr_scram_parse_client_first(bad_first[i], strlen(bad_first[i]), &f), GR_ERR__MALFORMED);
    ASSERT_EQ(gr_scram_parse_client_first("n,,n=a,r=x,TokenAuth=TRUE", 25, &f), 0);
    ASSERT(!f.tokenauth); /* the extension name is case-sensitive, its value is not */
    ASSERT_EQ(gr_scram_parse_client_first("n,,n=a,r=x,tokenauth=TRUE", 25, &f), 0);
    ASSERT(f.tokenauth);
    ASSERT_EQ(gr_scram_parse_client_final(RFC_CFINAL, strlen(RFC_CFINAL), &fin), 0);
    ASSERT_EQ(fin.proof_len, 32);
    ASSERT_EQ(fin.without_proof.n, strlen(RFC_CFINAL) - strlen(",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="));
    const char *bad_final[] = {"c=biws,r=x",        "c=biw,r=x,p=AAAA",  "c=biws,r=x,p=AAA",
                               "c=biws,r=x,p=A===", "r=x,c=biws,p=AAAA", "c=biws,r=x,p=AAAA,e=1"};
    for (size_t i = 0; i < sizeof(bad_final) / sizeof(bad_final[0]); i++)
        ASSERT_EQ(gr_scram_parse_client_final(bad_final[i], strlen(bad_final[i]), &fin), GR_ERR__MALFORMED);
    uint8_t b[8];
    char e[16];
    ASSERT_EQ(gr_b64_decode("YWI=", 4, b), 2);
    ASSERT_EQ(gr_b64_decode("Y=I=", 4, b), -1);
    ASSERT_EQ(gr_b64_encode((const uint8_t *)"abcd", 4, e), 8);
    ASSERT_STREQ(e, "YWJjZA==");
}

static gr_scram_alter_op_t up(const char *user, int8_t mech, int32_t it) {
    static const uint8_t salt[4] = {1, 2, 3, 4}, sp[32] = {9};
    return (gr_scram_alter_op_t){.user = user,
                                 .mech = mech,
                                 .upsert = true,
                                 .iterations = it,
                                 .salt = salt,
                                 .salt_len = 4,
                                 .salted = sp,
                                 .salted_len = 32};
}

static gr_scram_alter_op_t del(const char *user, int8_t mech) {
    return (gr_scram_alter_op_t){.user = user, .mech = mech};
}

static void test_store_and_alter(void) {
    gr_scram_store_t s, back;
    gr_scram_store_init(&s);
    gr_scram_alter_op_t ops[] = {del("ghost", 1),     del("", 1),           del("d", 1),         del("d", 2),
                                 up("few", 1, 4095),  up("many", 2, 16385), up("zero", 0, 4096), up("both", 1, 4096),
                                 up("both", 2, 4096), up("ok", 2, 16384),   up("ok2", 1, 4096)};
    size_t n = sizeof(ops) / sizeof(ops[0]);
    gr_scram_alter_validate(&s, ops, n);
    ASSERT_EQ(ops[0].error, GR_ERR_RESOURCE_NOT_FOUND);
    ASSERT_STREQ(ops[0].message, "Attempt to delete a user credential that does not exist");
    ASSERT_EQ(ops[1].error, GR_ERR_UNACCEPTABLE_CREDENTIAL);
    ASSERT_EQ(ops[2].error, GR_ERR_RESOURCE_NOT_FOUND); /* the first failure ends d's run */
    ASSERT(!ops[3].first_of_user);
    ASSERT_STREQ(ops[4].message, "Too few iterations");
    ASSERT_STREQ(ops[5].message, "Too many iterations");
    ASSERT_EQ(ops[6].error, GR_ERR_UNSUPPORTED_SASL_MECHANISM);
    ASSERT(!ops[7].first_of_user && !ops[7].applied);
    ASSERT_EQ(ops[8].error, GR_ERR_DUPLICATE_RESOURCE);
    ASSERT(ops[9].applied && ops[10].applied && ops[9].first_of_user);
    gr_scram_alter_apply(&s, ops, n);
    ASSERT_EQ(s.n, 2);
    ASSERT_EQ(gr_scram_store_get(&s, "ok", GR_SCRAM_SHA_512)->iterations, 16384);
    ASSERT(gr_scram_store_get(&s, "ok", GR_SCRAM_SHA_256) == NULL);
    /* a deletion of something that exists, then the file round trip */
    gr_scram_alter_op_t d2[] = {del("ok2", 1)};
    gr_scram_alter_validate(&s, d2, 1);
    ASSERT(d2[0].applied && d2[0].error == 0);
    size_t len;
    char *text = gr_scram_store_format(&s, &len), err[256];
    ASSERT_EQ(gr_scram_store_parse(&back, text, len, err, sizeof(err)), 0);
    ASSERT_EQ(back.n, 2);
    const gr_scram_cred_t *a = gr_scram_store_get(&s, "ok", GR_SCRAM_SHA_512), *b = gr_scram_store_get(&back, "ok", 2);
    ASSERT(b && !memcmp(a->stored_key, b->stored_key, 64) && !memcmp(a->server_key, b->server_key, 64));
    ASSERT(b->salt_len == 4 && !memcmp(b->salt, a->salt, 4));
    gr_scram_store_free(&back);
    text[len / 2] ^= 1; /* any edit breaks the checksum */
    ASSERT_EQ(gr_scram_store_parse(&back, text, len, err, sizeof(err)), GR_ERR__MALFORMED);
    free(text);
    gr_scram_alter_apply(&s, d2, 1);
    ASSERT_EQ(s.n, 1);
    gr_scram_store_free(&s);
}

int main(void) {
    RUN_TEST(test_rfc7677);
    RUN_TEST(test_exchange_outcomes);
    RUN_TEST(test_grammar);
    RUN_TEST(test_store_and_alter);
    return 0;
}
