/* HTTP request-head parser (src/net/http_parse.c): exact results, limits, every error. */
#include "net/http_parse.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static gr_http_request_t g_req; /* 8 KiB path: not on the stack of every test */

static gr_http_parse_result_t parse(const char *s) { return gr_http_parse((const uint8_t *)s, strlen(s), 0, &g_req); }

/* The request must fail with this status. */
static void expect_error(const char *s, int status) {
    gr_http_parse_result_t r = parse(s);
    if (r != GR_HTTP_PARSE_ERROR || g_req.status != status) {
        fprintf(stderr, "input: %s\n", s);
        ASSERT_EQ(r, GR_HTTP_PARSE_ERROR);
        ASSERT_EQ(g_req.status, status);
    }
    ASSERT(g_req.error && g_req.error[0]);
}

static void test_simple_get(void) {
    const char *s = "GET /metrics HTTP/1.1\r\nHost: localhost:9644\r\nAccept: */*\r\n\r\nNEXT";
    ASSERT_EQ(parse(s), GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.method, GR_HTTP_GET);
    ASSERT_STREQ(g_req.method_str, "GET");
    ASSERT_STREQ(g_req.path, "/metrics");
    ASSERT_EQ(g_req.path_len, 8);
    ASSERT_EQ(g_req.minor, 1);
    ASSERT(g_req.keep_alive);
    ASSERT_EQ(g_req.content_length, -1);
    ASSERT(!g_req.chunked && !g_req.has_body);
    ASSERT_EQ(g_req.n_headers, 2);
    ASSERT_EQ(g_req.head_len, strlen(s) - 4);
    ASSERT_EQ(g_req.query_len, 0);
}

static void test_methods_and_versions(void) {
    static const struct {
        const char *m;
        gr_http_method_t e;
    } ms[] = {{"GET", GR_HTTP_GET},     {"HEAD", GR_HTTP_HEAD},     {"POST", GR_HTTP_POST},
              {"PUT", GR_HTTP_PUT},     {"DELETE", GR_HTTP_DELETE}, {"OPTIONS", GR_HTTP_OPTIONS},
              {"PATCH", GR_HTTP_PATCH}, {"TRACE", GR_HTTP_TRACE},   {"CONNECT", GR_HTTP_CONNECT},
              {"BREW", GR_HTTP_OTHER},  {"get", GR_HTTP_OTHER},     {"M-SEARCH", GR_HTTP_OTHER}};
    char buf[128];
    for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
        snprintf(buf, sizeof(buf), "%s / HTTP/1.1\r\nHost: x\r\n\r\n", ms[i].m);
        ASSERT_EQ(parse(buf), GR_HTTP_PARSE_DONE);
        ASSERT_EQ(g_req.method, ms[i].e);
        ASSERT_STREQ(g_req.method_str, ms[i].m);
    }
    /* HTTP/1.0: no Host needed, closes unless keep-alive is asked for. */
    ASSERT_EQ(parse("GET /health HTTP/1.0\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.minor, 0);
    ASSERT(!g_req.keep_alive);
    ASSERT_EQ(parse("GET /health HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT(g_req.keep_alive);
    ASSERT_EQ(parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: foo, close\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT(!g_req.keep_alive);
    ASSERT_EQ(parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: CLOSE\r\n\r\n"),
              GR_HTTP_PARSE_DONE);
    ASSERT(!g_req.keep_alive);
    /* A method of exactly the maximum length passes; one more byte does not. */
    char m[GR_HTTP_MAX_METHOD + 2];
    memset(m, 'X', sizeof(m));
    m[GR_HTTP_MAX_METHOD] = '\0';
    snprintf(buf, sizeof(buf), "%s / HTTP/1.1\r\nHost: x\r\n\r\n", m);
    ASSERT_EQ(parse(buf), GR_HTTP_PARSE_DONE);
    m[GR_HTTP_MAX_METHOD] = 'X';
    m[GR_HTTP_MAX_METHOD + 1] = '\0';
    snprintf(buf, sizeof(buf), "%s / HTTP/1.1\r\nHost: x\r\n\r\n", m);
    expect_error(buf, 400);
}

static void test_targets(void) {
    ASSERT_EQ(parse("GET /v1/share-groups/a%2Fb%20c/capacity?x=1&y=%41 HTTP/1.1\r\nHost: x\r\n\r\n"),
              GR_HTTP_PARSE_DONE);
    ASSERT_STREQ(g_req.path, "/v1/share-groups/a/b c/capacity");
    const char *s = "GET /p?x=1&y=%41 HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_EQ(parse(s), GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.query_len, 9);
    ASSERT_MEMEQ(s + g_req.query_off, "x=1&y=%41", 9);
    ASSERT_EQ(parse("GET /%e2%82%ac HTTP/1.1\r\nHost: x\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT_STREQ(g_req.path, "/\xe2\x82\xac");
    ASSERT_EQ(parse("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT_STREQ(g_req.path, "*");
    ASSERT_EQ(parse("GET http://h:9644/metrics?a HTTP/1.1\r\nHost: h\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT_STREQ(g_req.path, "/metrics");
    ASSERT_EQ(g_req.query_len, 1);
    ASSERT_EQ(parse("GET HTTPS://h HTTP/1.1\r\nHost: h\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT_STREQ(g_req.path, "/");
    expect_error("GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET /a%2 HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET /a%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET /a%00b HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET /a#frag HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET /a\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET /\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    char out[16];
    ASSERT_EQ(gr_http_percent_decode("%41%62c", 7, out), 3);
    ASSERT_STREQ(out, "Abc");
    ASSERT_EQ(gr_http_percent_decode("%4", 2, out), -1);
    ASSERT_EQ(gr_http_percent_decode("%", 1, out), -1);
}

static void test_request_line_errors(void) {
    expect_error("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400);
    expect_error("GET /\r\nHost: x\r\n\r\n", 400);
    expect_error("GET / http/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET / HTTP/1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1x\r\nHost: x\r\n\r\n", 400);
    expect_error("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error(" GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    expect_error("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505);
    expect_error("GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505);
    expect_error("GET / HTTP/0.9\r\n\r\n", 505);
    expect_error("GET / HTTP/1.1\rX\r\nHost: x\r\n\r\n", 400); /* bare CR */
}

static void test_headers(void) {
    ASSERT_EQ(parse("GET / HTTP/1.1\r\nHost:x\r\nX-Empty:\r\nX-Sp: \t a b \t\r\nX-Obs: caf\xc3\xa9\r\n\r\n"),
              GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.n_headers, 4);
    expect_error("GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400);           /* space before the colon */
    expect_error("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400); /* obs-fold */
    expect_error("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1\r\nHost: x\r\nA\"B: v\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1\r\nHost: x\r\nA: v\x01w\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1\r\nHost: x\r\nA: v\x7f\r\n\r\n", 400);
    char with_nul[] = "GET / HTTP/1.1\r\nHost: x\r\nA: v?w\r\n\r\n";
    with_nul[strlen("GET / HTTP/1.1\r\nHost: x\r\nA: v")] = '\0';
    ASSERT_EQ(gr_http_parse((const uint8_t *)with_nul, sizeof(with_nul) - 1, 0, &g_req), GR_HTTP_PARSE_ERROR);
    ASSERT_EQ(g_req.status, 400);
    /* Host: required once in 1.1, at most once in 1.0. */
    expect_error("GET / HTTP/1.1\r\n\r\n", 400);
    expect_error("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400);
    expect_error("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400);
}

static void test_bodies(void) {
    ASSERT_EQ(parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.content_length, 0);
    ASSERT(!g_req.has_body);
    ASSERT_EQ(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\ncontent-length: 12\r\n\r\n"),
              GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.content_length, 12);
    ASSERT(g_req.has_body);
    ASSERT_EQ(parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n"), GR_HTTP_PARSE_DONE);
    ASSERT(g_req.chunked && g_req.has_body);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1 2\r\n\r\n", 400);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\n", 400);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999999999999999\r\n\r\n", 400);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400);
    expect_error("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400);
    expect_error("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
}

static void test_incomplete_and_line_ends(void) {
    const char *full = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    size_t n = strlen(full);
    for (size_t i = 0; i < n; i++) { /* every prefix is incomplete, never an error */
        ASSERT_EQ(gr_http_parse((const uint8_t *)full, i, 0, &g_req), GR_HTTP_PARSE_INCOMPLETE);
    }
    ASSERT_EQ(gr_http_parse((const uint8_t *)full, n, 0, &g_req), GR_HTTP_PARSE_DONE);
    /* Bare LF line ends and empty lines before the request line. */
    const char *lf = "\r\n\nGET /health HTTP/1.1\nHost: x\n\nrest";
    ASSERT_EQ(parse(lf), GR_HTTP_PARSE_DONE);
    ASSERT_STREQ(g_req.path, "/health");
    ASSERT_EQ(g_req.head_len, strlen(lf) - 4);
    ASSERT_EQ(parse("\r\n"), GR_HTTP_PARSE_INCOMPLETE);
    /* Garbage is refused before any newline arrives. */
    expect_error("\x16\x03\x01\x02\x00", 400);
    expect_error("GET /a b", 400);
    expect_error("GET /a HTTP/1.1x", 400);
    ASSERT_EQ(parse("GET /a HTTP/1.1\r"), GR_HTTP_PARSE_INCOMPLETE);
    expect_error("GET /\x01", 400);
    expect_error("GE\x80", 400);
    ASSERT_EQ(parse("GET /a HTTP/1"), GR_HTTP_PARSE_INCOMPLETE);
    ASSERT_EQ(parse("GET"), GR_HTTP_PARSE_INCOMPLETE);
    ASSERT_EQ(parse("GET /a\r"), GR_HTTP_PARSE_INCOMPLETE);
}

/* A head of n bytes: request line, filler header, blank line. */
static char *head_of(size_t n) {
    const char *start = "GET / HTTP/1.1\r\nHost: x\r\nX: ";
    char *s = malloc(n + 1);
    size_t sl = strlen(start);
    memcpy(s, start, sl);
    memset(s + sl, 'a', n - sl - 4);
    memcpy(s + n - 4, "\r\n\r\n", 4);
    s[n] = '\0';
    return s;
}

static void test_limits(void) {
    char *ok = head_of(GR_HTTP_MAX_HEAD);
    ASSERT_EQ(parse(ok), GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.head_len, GR_HTTP_MAX_HEAD);
    free(ok);
    char *big = head_of(GR_HTTP_MAX_HEAD + 1);
    expect_error(big, 431);
    /* Incomplete but already at the limit: 431 without waiting for more. */
    ASSERT_EQ(gr_http_parse((const uint8_t *)big, GR_HTTP_MAX_HEAD, 0, &g_req), GR_HTTP_PARSE_ERROR);
    ASSERT_EQ(g_req.status, 431);
    ASSERT_EQ(gr_http_parse((const uint8_t *)big, GR_HTTP_MAX_HEAD - 1, 0, &g_req), GR_HTTP_PARSE_INCOMPLETE);
    free(big);
    /* A custom limit; a request line alone over it. */
    ASSERT_EQ(gr_http_parse((const uint8_t *)"GET /abcdef HTTP/1.1\r\n", 22, 16, &g_req), GR_HTTP_PARSE_ERROR);
    ASSERT_EQ(g_req.status, 431);
    /* Header count. */
    size_t cap = 64 + (GR_HTTP_MAX_HEADERS + 1) * 8;
    char *many = malloc(cap);
    size_t len = (size_t)snprintf(many, cap, "GET / HTTP/1.1\r\nHost: x\r\n");
    for (int i = 1; i < GR_HTTP_MAX_HEADERS; i++) len += (size_t)snprintf(many + len, cap - len, "A: b\r\n");
    memcpy(many + len, "\r\n", 3);
    ASSERT_EQ(parse(many), GR_HTTP_PARSE_DONE);
    ASSERT_EQ(g_req.n_headers, GR_HTTP_MAX_HEADERS);
    memcpy(many + len, "A: b\r\n\r\n", 9);
    expect_error(many, 431);
    free(many);
}

static void test_reasons(void) {
    ASSERT_STREQ(gr_http_reason(200), "OK");
    ASSERT_STREQ(gr_http_reason(400), "Bad Request");
    ASSERT_STREQ(gr_http_reason(404), "Not Found");
    ASSERT_STREQ(gr_http_reason(405), "Method Not Allowed");
    ASSERT_STREQ(gr_http_reason(431), "Request Header Fields Too Large");
    ASSERT_STREQ(gr_http_reason(503), "Service Unavailable");
    ASSERT_STREQ(gr_http_reason(505), "HTTP Version Not Supported");
}

int main(void) {
    RUN_TEST(test_simple_get);
    RUN_TEST(test_methods_and_versions);
    RUN_TEST(test_targets);
    RUN_TEST(test_request_line_errors);
    RUN_TEST(test_headers);
    RUN_TEST(test_bodies);
    RUN_TEST(test_incomplete_and_line_ends);
    RUN_TEST(test_limits);
    RUN_TEST(test_reasons);
    return 0;
}
