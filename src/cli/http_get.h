/* A minimal HTTP/1.1 GET over a plain TCP socket, for gregord's admin endpoint
 * (`gregor share-groups --describe --capacity`). No TLS, no redirects, no
 * keep-alive: one request per connection ("Connection: close"). */
#ifndef GR_CLI_HTTP_GET_H
#define GR_CLI_HTTP_GET_H

#include <stdbool.h>
#include <stddef.h>

/** "http://host[:port][/path]" split up (port 80 when absent; IPv6 in brackets).
 *  Returns false with the reason in err for anything else. */
typedef struct cli_url {
    char host[256];
    char port[8];
    char path[1024]; /* "" when absent */
} cli_url_t;

bool cli_url_parse(const char *url, cli_url_t *out, char *err, size_t err_size);

/** Append s to buf (size bytes, NUL-terminated), percent-encoding every byte
 *  but RFC 3986's unreserved characters. False if it does not fit. */
bool cli_url_escape(char *buf, size_t size, const char *s);

/** Split a whole response (raw: *len bytes plus a NUL) into its status and its body,
 *  which is moved to the front of raw (NUL-terminated, *len its length; a chunked body
 *  decoded, a Content-Length one cut there). False if it is not an HTTP response. */
bool cli_http_parse_response(char *raw, size_t *len, int *status);

/** GET u->path (plus path_suffix) from u within timeout_ms. On success: true, the
 *  status code in *status and the body (malloc'd, NUL-terminated, at most 16 MiB)
 *  in *body. On failure (cannot connect, timeout, not HTTP) false with the
 *  reason in err. */
bool cli_http_get(const cli_url_t *u, const char *path_suffix, int timeout_ms, int *status, char **body, size_t *len,
                  char *err, size_t err_size);

#endif
