/* libFuzzer target: the admin endpoint's HTTP request-head parser (src/net/http_parse.c),
 * which reads bytes from any client that can reach admin.listener.
 *
 * Byte 0 picks the head limit (64..8192 bytes); the rest is what the client sent.
 * Invariants:
 *   - the parser never reads beyond len, never crashes, and a result is one of
 *     INCOMPLETE / DONE / ERROR;
 *   - ERROR carries a status of 400, 431 or 505 and a reason; DONE consumed a head of at
 *     most max_head bytes ending in a blank line, with a path that is NUL-terminated and
 *     of path_len bytes (no NUL inside), a query inside the input, and keep-alive/body
 *     flags consistent with the version and the framing headers;
 *   - parsing is incremental-safe: any prefix of an input that parses DONE is INCOMPLETE
 *     or the same DONE (never an ERROR), so a client sending byte by byte is treated alike.
 *   - a DONE head parses the same again with the bytes after it removed. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/http_parse.h"

static gr_http_request_t g_a, g_b;

static void check_done(const uint8_t *d, size_t n, size_t max_head, const gr_http_request_t *r) {
    assert(r->head_len >= 2 && r->head_len <= n && r->head_len <= max_head);
    assert(d[r->head_len - 1] == '\n');
    assert(r->path_len == strlen(r->path) && r->path_len >= 1);
    assert(r->path[0] == '/' || (r->path[0] == '*' && r->path_len == 1));
    assert(r->query_off + r->query_len <= r->head_len);
    assert(r->minor == 0 || r->minor == 1);
    assert(r->has_body == (r->chunked || r->content_length > 0));
    assert(r->content_length >= -1);
    assert(!(r->chunked && r->content_length >= 0));
    assert(strlen(r->method_str) >= 1 && strlen(r->method_str) <= GR_HTTP_MAX_METHOD);
    assert(r->n_headers <= GR_HTTP_MAX_HEADERS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t max_head = 64 + (size_t)data[0] * 32; /* 64 .. 8224, capped below */
    if (max_head > GR_HTTP_MAX_HEAD) max_head = GR_HTTP_MAX_HEAD;
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    /* An exact-size copy, so ASan catches any read past the end. */
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, d, n);
    gr_http_parse_result_t r = gr_http_parse(copy, n, max_head, &g_a);
    if (r == GR_HTTP_PARSE_ERROR) {
        assert(g_a.status == 400 || g_a.status == 431 || g_a.status == 505);
        assert(g_a.error && g_a.error[0]);
    } else if (r == GR_HTTP_PARSE_DONE) {
        check_done(copy, n, max_head, &g_a);
        /* Every shorter prefix is INCOMPLETE or DONE (the same head if it is complete). */
        size_t step = g_a.head_len > 64 ? g_a.head_len / 64 : 1;
        for (size_t k = 0; k < g_a.head_len; k += step) {
            gr_http_parse_result_t rk = gr_http_parse(copy, k, max_head, &g_b);
            assert(rk != GR_HTTP_PARSE_ERROR);
            if (rk == GR_HTTP_PARSE_DONE) assert(g_b.head_len <= k);
        }
        gr_http_parse_result_t again = gr_http_parse(copy, g_a.head_len, max_head, &g_b);
        assert(again == GR_HTTP_PARSE_DONE && g_b.head_len == g_a.head_len);
        assert(g_b.path_len == g_a.path_len && !memcmp(g_b.path, g_a.path, g_a.path_len));
        assert(g_b.keep_alive == g_a.keep_alive && g_b.content_length == g_a.content_length);
    } else {
        assert(r == GR_HTTP_PARSE_INCOMPLETE);
        assert(n < max_head);
    }
    free(copy);
    return 0;
}
