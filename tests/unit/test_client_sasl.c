/* src/client/sasl_client.c: libgregor's PLAIN token and SCRAM client against the
 * RFC 7677 SCRAM-SHA-256 example, and its checks of the server's messages. */
#include <stdlib.h>
#include <string.h>

#include "client/sasl_client.h"
#include "testutil.h"

#define SFIRST "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define CFINAL \
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define SFINAL "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

static char *next(gr__sasl_client_t *c, const char *in, bool *done, gr_err_t *err) {
    size_t len = 0;
    char why[160];
    uint8_t *t = gr__sasl_client_next(c, (const uint8_t *)in, strlen(in), &len, done, err, why, sizeof(why));
    if (!t) return NULL;
    char *s = malloc(len + 1);
    memcpy(s, t, len);
    s[len] = '\0';
    free(t);
    return s;
}

static void test_rfc7677(void) {
    gr__sasl_client_t c;
    size_t len;
    bool done;
    gr_err_t err;
    ASSERT_EQ(gr__sasl_client_init(&c, "SCRAM-SHA-256", "user", "pencil", "rOprNGfwEbeRWgbNEkqO"), 0);
    uint8_t *first = gr__sasl_client_first(&c, &len);
    ASSERT_EQ(len, strlen("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
    ASSERT(!memcmp(first, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", len));
    free(first);
    char *fin = next(&c, SFIRST, &done, &err);
    ASSERT(fin && !done && err == 0);
    ASSERT_STREQ(fin, CFINAL);
    free(fin);
    ASSERT(next(&c, SFINAL, &done, &err) == NULL);
    ASSERT(done && err == 0);
    gr__sasl_client_free(&c);
    /* a server that does not know the credential cannot sign: refused */
    ASSERT_EQ(gr__sasl_client_init(&c, "SCRAM-SHA-256", "user", "pencil", "rOprNGfwEbeRWgbNEkqO"), 0);
    free(gr__sasl_client_first(&c, &len));
    free(next(&c, SFIRST, &done, &err));
    ASSERT(next(&c, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G5=", &done, &err) == NULL);
    ASSERT(!done && err == GR_ERR_SASL_AUTHENTICATION_FAILED);
    gr__sasl_client_free(&c);
    /* a server nonce that does not extend ours, a bad salt, no iterations */
    const char *bad[] = {"r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", "r=rOprNGfwEbeRWgbNEkqO,s=W22Z,i=4096",
                         "r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==", "r=rOprNGfwEbeRWgbNEkqO,s=,i=4096"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ASSERT_EQ(gr__sasl_client_init(&c, "SCRAM-SHA-512", "user", "pencil", "rOprNGfwEbeRWgbNEkqO"), 0);
        free(gr__sasl_client_first(&c, &len));
        ASSERT(next(&c, bad[i], &done, &err) == NULL);
        ASSERT_EQ(err, GR_ERR_SASL_AUTHENTICATION_FAILED);
        gr__sasl_client_free(&c);
    }
}

static void test_plain_and_names(void) {
    gr__sasl_client_t c;
    size_t len;
    bool done;
    gr_err_t err;
    ASSERT_EQ(gr__sasl_client_init(&c, "PLAIN", "al,ice", "pw", "n"), 0);
    uint8_t *t = gr__sasl_client_first(&c, &len);
    ASSERT_EQ(len, 10);
    ASSERT(!memcmp(t, "\0al,ice\0pw", 10));
    free(t);
    ASSERT(next(&c, "", &done, &err) == NULL && done && err == 0);
    gr__sasl_client_free(&c);
    ASSERT_EQ(gr__sasl_client_init(&c, "SCRAM-SHA-512", "a,b=c", "pw", "xyz"), 0);
    t = gr__sasl_client_first(&c, &len);
    ASSERT(len == strlen("n,,n=a=2Cb=3Dc,r=xyz") && !memcmp(t, "n,,n=a=2Cb=3Dc,r=xyz", len));
    free(t);
    gr__sasl_client_free(&c);
    ASSERT_EQ(gr__sasl_client_init(&c, "GSSAPI", "a", "b", "n"), GR_ERR__INVALID_ARG);
    gr__sasl_client_free(&c);
}

int main(void) {
    RUN_TEST(test_rfc7677);
    RUN_TEST(test_plain_and_names);
    return 0;
}
