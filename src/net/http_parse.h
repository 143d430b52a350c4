/* HTTP/1.x request-head parser for the admin endpoint (docs/operations.md "Admin
 * endpoint"). Pure: no I/O, no allocation, no globals; the server calls it again on
 * the whole buffer whenever bytes arrive (a head is at most a few KiB).
 *
 * Accepted: HTTP/1.0 and HTTP/1.1, origin-form targets ("/path?query") and "*",
 * CRLF or bare LF line ends, empty lines before the request line (RFC 9112 2.2).
 * Refused with the status a server should send:
 *   400  bad syntax: method not a token, target not origin-form or with bytes outside
 *        0x21..0x7E, bad or NUL percent-escape, header name not a token, whitespace
 *        before the colon, obsolete line folding, control bytes in a value, a missing
 *        or repeated Host in HTTP/1.1, bad or conflicting Content-Length, both
 *        Content-Length and Transfer-Encoding, Transfer-Encoding not ending in chunked
 *        or in HTTP/1.0;
 *   431  the head (first byte to the blank line) longer than max_head, or more than
 *        GR_HTTP_MAX_HEADERS header lines;
 *   505  a well-formed version other than 1.0/1.1.
 * Garbage is refused as soon as the bytes seen cannot start a request line, without
 * waiting for a newline.
 * @locality pure, any thread. */
#ifndef GR_NET_HTTP_PARSE_H
#define GR_NET_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_HTTP_MAX_HEAD    8192 /* default request-head limit (431 above it) */
#define GR_HTTP_MAX_HEADERS 100
#define GR_HTTP_MAX_METHOD  31

typedef enum {
    GR_HTTP_OTHER = 0, /* a syntactically valid method we do not know */
    GR_HTTP_GET,
    GR_HTTP_HEAD,
    GR_HTTP_POST,
    GR_HTTP_PUT,
    GR_HTTP_DELETE,
    GR_HTTP_OPTIONS,
    GR_HTTP_PATCH,
    GR_HTTP_TRACE,
    GR_HTTP_CONNECT,
} gr_http_method_t;

typedef enum {
    GR_HTTP_PARSE_INCOMPLETE = 0, /* need more bytes */
    GR_HTTP_PARSE_DONE = 1,       /* a complete head; req->head_len bytes consumed */
    GR_HTTP_PARSE_ERROR = -1,     /* req->status and req->error say why */
} gr_http_parse_result_t;

typedef struct gr_http_request {
    gr_http_method_t method;
    char method_str[GR_HTTP_MAX_METHOD + 1];
    char path[GR_HTTP_MAX_HEAD]; /* percent-decoded, NUL-terminated, without the query */
    size_t path_len;
    size_t query_off, query_len; /* raw query (after '?') as offset/length in the input; 0/0 if none */
    int minor;                   /* 0 or 1 (HTTP/1.minor) */
    bool keep_alive;             /* 1.1 unless "Connection: close"; 1.0 only with "keep-alive" */
    int64_t content_length;      /* -1 when absent */
    bool chunked;                /* Transfer-Encoding ends in chunked */
    bool has_body;               /* content_length > 0 or chunked */
    size_t n_headers;
    size_t head_len;   /* bytes of the head, blank line included (DONE) */
    int status;        /* ERROR: 400, 431 or 505 */
    const char *error; /* ERROR: static reason for logs and the response body */
} gr_http_request_t;

/** Parse the request head at the start of buf[0..len). max_head bounds the head
 *  (0: GR_HTTP_MAX_HEAD). On DONE, bytes after req->head_len belong to the body or
 *  the next request. req is overwritten in every case. */
gr_http_parse_result_t gr_http_parse(const uint8_t *buf, size_t len, size_t max_head, gr_http_request_t *req);

/** Percent-decode src[0..n) into out (at least n+1 bytes), NUL-terminated. Returns the
 *  decoded length, or -1 for a malformed escape or a decoded NUL. */
long gr_http_percent_decode(const char *src, size_t n, char *out);

/** "OK", "Not Found", ...; "Unknown" for codes the admin endpoint never sends. */
const char *gr_http_reason(int status);

#endif
