/* The capacity view's client pieces, built alone (the CLI links libgregor):
 * the JSON reader (src/cli/json_parse.c) and the URL handling of the HTTP GET
 * (src/cli/http_get.c). */
#include <math.h>
#include <string.h>

#include "http_get.h"
#include "json_parse.h"
#include "testutil.h"

static cli_jv_t *parse(const char *s) {
    char err[128];
    return cli_jv_parse(s, strlen(s), err, sizeof(err));
}

static void bad(const char *s) {
    cli_jv_t *v = parse(s);
    if (v) GR__FAIL("parsed: %s", s);
}

static void test_values(void) {
    cli_jv_t *v = parse(" {\"a\":1.5e2,\"b\":[true,false,null,\"x\\ty\"],\"c\":{},\"d\":[],\"e\":-0.25,\"a\":7} ");
    ASSERT(v && v->type == CLI_JOBJ && v->n == 6);
    ASSERT(cli_jv_num(v, "a") == 150); /* the first of duplicate names */
    ASSERT(cli_jv_num(v, "e") == -0.25);
    ASSERT(isnan(cli_jv_num(v, "b")) && isnan(cli_jv_num(v, "zz")));
    const cli_jv_t *b = cli_jv_get(v, "b");
    ASSERT(b->type == CLI_JARR && b->n == 4);
    ASSERT(b->vals[0].type == CLI_JBOOL && b->vals[0].b && !b->vals[1].b && b->vals[2].type == CLI_JNULL);
    ASSERT_STREQ(b->vals[3].str, "x\ty");
    ASSERT(cli_jv_get(v, "c")->type == CLI_JOBJ && cli_jv_get(v, "c")->n == 0);
    ASSERT(cli_jv_get(v, "d")->type == CLI_JARR && cli_jv_get(v, "d")->n == 0);
    ASSERT(cli_jv_str(v, "a") == NULL && cli_jv_get(b, "x") == NULL);
    cli_jv_free(v);
    v = parse("\"\\u00e9\\u20ac\\ud83d\\ude00\\ud800x\\/\\\"\\\\\\b\\f\\n\\r\"");
    ASSERT(v && v->type == CLI_JSTR);
    ASSERT_STREQ(v->str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbdx/\"\\\b\f\n\r");
    cli_jv_free(v);
    v = parse("0");
    ASSERT(v && v->type == CLI_JNUM && v->num == 0);
    cli_jv_free(v);
    cli_jv_free(NULL);
}

static void test_errors(void) {
    bad("");
    bad("{");
    bad("{\"a\" 1}");
    bad("{\"a\":1,}");
    bad("{1:2}");
    bad("[1 2]");
    bad("[1,]");
    bad("01");
    bad("1.");
    bad("1e");
    bad("-");
    bad(".5");
    bad("tru");
    bad("nul");
    bad("\"abc");
    bad("\"a\nb\"");
    bad("\"\\x\"");
    bad("\"\\u12\"");
    bad("\"\\u12g4\"");
    bad("1 2");
    bad("[1]]");
    bad("12345678901234567890123456789012345678901234567890123456789012345");
    char deep[81];
    memset(deep, '[', 40);
    memset(deep + 40, ']', 40);
    deep[80] = 0;
    bad(deep); /* deeper than 32 */
    deep[20] = 0;
    memset(deep + 10, ']', 10);
    cli_jv_t *ok = parse(deep); /* 10 levels */
    ASSERT(ok && ok->type == CLI_JARR && ok->n == 1);
    cli_jv_free(ok);
    char err[128];
    ASSERT(!cli_jv_parse("[1,x]", 5, err, sizeof(err)));
    ASSERT_STREQ(err, "bad number at byte 3");
}

static void test_url(void) {
    cli_url_t u;
    char err[256];
    ASSERT(cli_url_parse("http://127.0.0.1:9644", &u, err, sizeof(err)));
    ASSERT_STREQ(u.host, "127.0.0.1");
    ASSERT_STREQ(u.port, "9644");
    ASSERT_STREQ(u.path, "");
    ASSERT(cli_url_parse("HTTP://broker.example/base//", &u, err, sizeof(err)));
    ASSERT_STREQ(u.host, "broker.example");
    ASSERT_STREQ(u.port, "80");
    ASSERT_STREQ(u.path, "/base");
    ASSERT(cli_url_parse("http://[::1]:9644/", &u, err, sizeof(err)));
    ASSERT_STREQ(u.host, "::1");
    ASSERT_STREQ(u.port, "9644");
    ASSERT_STREQ(u.path, "");
    ASSERT(cli_url_parse("http://[::1]", &u, err, sizeof(err)));
    ASSERT_STREQ(u.port, "80");
    ASSERT(!cli_url_parse("https://h:1", &u, err, sizeof(err)));
    ASSERT_STREQ(err, "'https://h:1' is not an http:// URL");
    const char *bad_urls[] = {"http://",        "http://:80",   "http://h:",   "http://h:0",
                              "http://h:65536", "http://h:8x",  "http://[::1", "http://[::1]x",
                              "http://h/a?b",   "http://h/a b", NULL};
    for (int i = 0; bad_urls[i]; i++)
        if (cli_url_parse(bad_urls[i], &u, err, sizeof(err))) GR__FAIL("accepted %s", bad_urls[i]);
    ASSERT_STREQ(err, "'http://h/a b' is not a valid URL (http://HOST:PORT)");

    char path[32] = "/g/";
    ASSERT(cli_url_escape(path, sizeof(path), "a b/\xc3\xa9-._~Z9"));
    ASSERT_STREQ(path, "/g/a%20b%2F%C3%A9-._~Z9");
    char small[8] = "";
    ASSERT(!cli_url_escape(small, sizeof(small), "abc def"));
}

/* parse: the status and the body of raw (a copy), or "ERR". */
static const char *resp(const char *raw, int *status) {
    static char buf[512];
    size_t len = strlen(raw);
    memcpy(buf, raw, len + 1);
    *status = 0;
    return cli_http_parse_response(buf, &len, status) && strlen(buf) == len ? buf : "ERR";
}

static void test_http_response(void) {
    int st;
    ASSERT_STREQ(resp("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}extra", &st), "{}");
    ASSERT_EQ(st, 200);
    ASSERT_STREQ(resp("HTTP/1.0 404 Not Found\r\nX: y\r\n\r\nnot found\n", &st), "not found\n");
    ASSERT_EQ(st, 404);
    ASSERT_STREQ(resp("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n", &st),
                 "abcde");
    ASSERT_STREQ(resp("HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\nabc", &st), "abc");
    ASSERT_STREQ(resp("HTTP/1.1 200 OK\r\n\r\n", &st), "");
    const char *bad_resp[] = {"",
                              "SSH-2.0-OpenSSH\r\n\r\n",
                              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n",
                              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nabc\r\n0\r\n\r\n",
                              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc",
                              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nabc\r\n",
                              NULL};
    for (int i = 0; bad_resp[i]; i++)
        if (strcmp(resp(bad_resp[i], &st), "ERR")) GR__FAIL("accepted response %d", i);
}

static void test_http_unreachable(void) {
    cli_url_t u;
    char err[256], *body = NULL;
    int status = 0;
    size_t len = 0;
    ASSERT(cli_url_parse("http://127.0.0.1:1", &u, err, sizeof(err)));
    ASSERT(!cli_http_get(&u, "/x", 2000, &status, &body, &len, err, sizeof(err)));
    ASSERT(body == NULL);
    ASSERT_STREQ(err, "Connection refused");
}

int main(void) {
    RUN_TEST(test_values);
    RUN_TEST(test_errors);
    RUN_TEST(test_url);
    RUN_TEST(test_http_response);
    RUN_TEST(test_http_unreachable);
    return 0;
}
