/* HTTP/1.x request-head parser (RFC 9110/9112 subset). See http_parse.h. */
#include "net/http_parse.h"

#include <string.h>

/* RFC 9110 5.6.2 tchar. */
static bool is_tchar(uint8_t c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* A byte allowed in a request target (visible ASCII; '#' starts a fragment, never sent). */
static bool is_target_char(uint8_t c) { return c >= 0x21 && c <= 0x7e && c != '#'; }

/* Header values: HTAB, SP, VCHAR and obs-text. */
static bool is_value_char(uint8_t c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }

static int hexval(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

long gr_http_percent_decode(const char *src, size_t n, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)src[i];
        if (c == '%') {
            if (i + 2 >= n) return -1; /* fewer than two bytes follow */
            int h = hexval((uint8_t)src[i + 1]), l = hexval((uint8_t)src[i + 2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0)) return -1;
            c = (uint8_t)(h << 4 | l);
            i += 2;
        }
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return (long)o;
}

static gr_http_parse_result_t fail(gr_http_request_t *req, int status, const char *why) {
    req->status = status;
    req->error = why;
    return GR_HTTP_PARSE_ERROR;
}

static bool ieq(const uint8_t *p, size_t n, const char *s) {
    size_t sl = strlen(s);
    if (n != sl) return false;
    for (size_t i = 0; i < n; i++) {
        uint8_t a = p[i], b = (uint8_t)s[i];
        if (a >= 'A' && a <= 'Z') a = (uint8_t)(a - 'A' + 'a');
        if (a != b) return false;
    }
    return true;
}

static gr_http_method_t method_of(const char *m) {
    static const char *const names[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(m, names[i])) return (gr_http_method_t)(i + 1);
    return GR_HTTP_OTHER;
}

/* The bytes of an unfinished first line must still be able to start a request line:
 * refuse binary garbage (a TLS hello, random bytes) at once. */
static gr_http_parse_result_t check_prefix(const uint8_t *p, size_t n, gr_http_request_t *req) {
    size_t i = 0;
    while (i < n && p[i] != ' ') {
        if (!is_tchar(p[i]) && !(p[i] == '\r' && i + 1 == n)) return fail(req, 400, "malformed request line");
        if (++i > GR_HTTP_MAX_METHOD) return fail(req, 400, "method too long");
    }
    if (i == n) return GR_HTTP_PARSE_INCOMPLETE;
    if (i == 0) return fail(req, 400, "malformed request line");
    size_t t = ++i;
    while (i < n && p[i] != ' ') {
        if (!is_target_char(p[i]) && !(p[i] == '\r' && i + 1 == n)) return fail(req, 400, "malformed request target");
        i++;
    }
    if (i < n && i == t) return fail(req, 400, "malformed request target");
    /* What has arrived of the version must fit "HTTP/d.d" (then CR). */
    static const char tmpl[] = "HTTP/0.0\r";
    for (size_t v = i + 1, k = 0; v < n; v++, k++) {
        bool digit = tmpl[k] == '0' && p[v] >= '0' && p[v] <= '9';
        if (k >= sizeof(tmpl) - 1 || (!digit && p[v] != (uint8_t)tmpl[k]))
            return fail(req, 400, "malformed HTTP version");
    }
    return GR_HTTP_PARSE_INCOMPLETE;
}

/* Origin-form "/p?q", absolute-form "http://host/p?q" (its path is used) or "*". */
static gr_http_parse_result_t parse_target(const uint8_t *buf, size_t off, size_t n, gr_http_request_t *req) {
    const uint8_t *t = buf + off;
    for (size_t i = 0; i < n; i++)
        if (!is_target_char(t[i])) return fail(req, 400, "malformed request target");
    if (n == 1 && t[0] == '*') {
        memcpy(req->path, "*", 2);
        req->path_len = 1;
        return GR_HTTP_PARSE_DONE;
    }
    size_t skip = 0;
    if (n > 7 && (ieq(t, 7, "http://") || (n > 8 && ieq(t, 8, "https://")))) {
        skip = t[4] == ':' ? 7 : 8;
        while (skip < n && t[skip] != '/' && t[skip] != '?') skip++;
    } else if (t[0] != '/') {
        return fail(req, 400, "request target must start with /");
    }
    size_t pl = skip;
    while (pl < n && t[pl] != '?') pl++;
    if (pl < n) {
        req->query_off = off + pl + 1;
        req->query_len = n - pl - 1;
    }
    if (pl == skip) { /* absolute-form without a path */
        memcpy(req->path, "/", 2);
        req->path_len = 1;
        return GR_HTTP_PARSE_DONE;
    }
    long dl = gr_http_percent_decode((const char *)t + skip, pl - skip, req->path);
    if (dl < 0) return fail(req, 400, "bad percent-encoding in the path");
    req->path_len = (size_t)dl;
    return GR_HTTP_PARSE_DONE;
}

static gr_http_parse_result_t parse_request_line(const uint8_t *buf, size_t off, size_t n, gr_http_request_t *req) {
    const uint8_t *p = buf + off;
    const uint8_t *sp1 = memchr(p, ' ', n);
    if (!sp1 || sp1 == p) return fail(req, 400, "malformed request line");
    size_t ml = (size_t)(sp1 - p);
    if (ml > GR_HTTP_MAX_METHOD) return fail(req, 400, "method too long");
    for (size_t i = 0; i < ml; i++)
        if (!is_tchar(p[i])) return fail(req, 400, "malformed request line");
    memcpy(req->method_str, p, ml);
    req->method_str[ml] = '\0';
    req->method = method_of(req->method_str);
    const uint8_t *t = sp1 + 1, *end = p + n;
    const uint8_t *sp2 = memchr(t, ' ', (size_t)(end - t));
    if (!sp2 || sp2 == t) return fail(req, 400, "malformed request line");
    const uint8_t *v = sp2 + 1;
    size_t vl = (size_t)(end - v);
    if (vl != 8 || memcmp(v, "HTTP/", 5) || v[5] < '0' || v[5] > '9' || v[6] != '.' || v[7] < '0' || v[7] > '9')
        return fail(req, 400, "malformed HTTP version");
    if (v[5] != '1' || v[7] > '1') return fail(req, 505, "HTTP version not supported (1.0 and 1.1 are)");
    req->minor = v[7] - '0';
    return parse_target(buf, (size_t)(t - buf), (size_t)(sp2 - t), req);
}

/* Header state that only matters once the head is complete. */
typedef struct hdr_state {
    int hosts;
    bool conn_close, conn_keep_alive, te_seen;
} hdr_state_t;

/* Comma-separated tokens of a Connection value. */
static void parse_connection(const uint8_t *v, size_t n, hdr_state_t *st) {
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ',' || v[i] == ' ' || v[i] == '\t')) i++;
        size_t s = i;
        while (i < n && v[i] != ',') i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t')) e--;
        if (ieq(v + s, e - s, "close")) st->conn_close = true;
        if (ieq(v + s, e - s, "keep-alive")) st->conn_keep_alive = true;
    }
}

static gr_http_parse_result_t parse_content_length(const uint8_t *v, size_t n, gr_http_request_t *req) {
    if (n == 0 || n > 18) return fail(req, 400, "bad Content-Length");
    int64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') return fail(req, 400, "bad Content-Length");
        x = x * 10 + (v[i] - '0');
    }
    if (req->content_length >= 0 && req->content_length != x) return fail(req, 400, "conflicting Content-Length");
    req->content_length = x;
    return GR_HTTP_PARSE_DONE;
}

/* The last coding of a Transfer-Encoding list must be chunked (RFC 9112 6.3). */
static gr_http_parse_result_t parse_te(const uint8_t *v, size_t n, gr_http_request_t *req, hdr_state_t *st) {
    st->te_seen = true;
    size_t e = n, s;
    while (e > 0 && (v[e - 1] == ' ' || v[e - 1] == '\t' || v[e - 1] == ',')) e--;
    s = e;
    while (s > 0 && v[s - 1] != ',' && v[s - 1] != ' ' && v[s - 1] != '\t') s--;
    req->chunked = ieq(v + s, e - s, "chunked");
    if (!req->chunked) return fail(req, 400, "Transfer-Encoding must end in chunked");
    return GR_HTTP_PARSE_DONE;
}

static gr_http_parse_result_t parse_header(const uint8_t *p, size_t n, gr_http_request_t *req, hdr_state_t *st) {
    if (p[0] == ' ' || p[0] == '\t') return fail(req, 400, "obsolete header line folding");
    size_t c = 0;
    while (c < n && p[c] != ':') {
        if (!is_tchar(p[c])) return fail(req, 400, "malformed header name");
        c++;
    }
    if (c == n || c == 0) return fail(req, 400, "malformed header line");
    if (++req->n_headers > GR_HTTP_MAX_HEADERS) return fail(req, 431, "too many header fields");
    size_t vs = c + 1, ve = n;
    while (vs < ve && (p[vs] == ' ' || p[vs] == '\t')) vs++;
    while (ve > vs && (p[ve - 1] == ' ' || p[ve - 1] == '\t')) ve--;
    for (size_t i = vs; i < ve; i++)
        if (!is_value_char(p[i])) return fail(req, 400, "control character in a header value");
    const uint8_t *v = p + vs;
    size_t vl = ve - vs;
    if (ieq(p, c, "host")) st->hosts++;
    if (ieq(p, c, "connection")) parse_connection(v, vl, st);
    if (ieq(p, c, "content-length")) return parse_content_length(v, vl, req);
    if (ieq(p, c, "transfer-encoding")) return parse_te(v, vl, req, st);
    return GR_HTTP_PARSE_DONE;
}

/* Rules that need the whole head. */
static gr_http_parse_result_t finish(gr_http_request_t *req, const hdr_state_t *st, size_t head_len) {
    if (req->minor == 1 && st->hosts != 1) return fail(req, 400, "HTTP/1.1 needs exactly one Host header");
    if (st->hosts > 1) return fail(req, 400, "more than one Host header");
    if (st->te_seen && req->content_length >= 0) return fail(req, 400, "both Content-Length and Transfer-Encoding");
    if (st->te_seen && req->minor == 0) return fail(req, 400, "Transfer-Encoding in an HTTP/1.0 request");
    req->keep_alive = !st->conn_close && (req->minor == 1 || st->conn_keep_alive);
    req->has_body = req->chunked || req->content_length > 0;
    req->head_len = head_len;
    return GR_HTTP_PARSE_DONE;
}

gr_http_parse_result_t gr_http_parse(const uint8_t *buf, size_t len, size_t max_head, gr_http_request_t *req) {
    /* Not a whole memset: path is 8 KiB and the server parses on every read. */
    req->method = GR_HTTP_OTHER;
    req->method_str[0] = req->path[0] = '\0';
    req->path_len = req->query_off = req->query_len = 0;
    req->minor = 0;
    req->keep_alive = req->chunked = req->has_body = false;
    req->content_length = -1;
    req->n_headers = req->head_len = 0;
    req->status = 0;
    req->error = NULL;
    if (!max_head) max_head = GR_HTTP_MAX_HEAD;
    size_t pos = 0;
    /* RFC 9112 2.2: ignore empty lines before the request line. */
    while (pos < len && (buf[pos] == '\n' || (buf[pos] == '\r' && (pos + 1 == len || buf[pos + 1] == '\n')))) pos++;
    if (pos > max_head) return fail(req, 431, "request head too large");
    hdr_state_t st = {0};
    bool first = true;
    while (pos < len) {
        const uint8_t *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl) {
            if (len >= max_head) return fail(req, 431, "request head too large");
            return first ? check_prefix(buf + pos, len - pos, req) : GR_HTTP_PARSE_INCOMPLETE;
        }
        size_t next = (size_t)(nl - buf) + 1;
        if (next > max_head) return fail(req, 431, "request head too large");
        size_t n = (size_t)(nl - buf) - pos;
        if (n && buf[pos + n - 1] == '\r') n--;
        if (memchr(buf + pos, '\r', n)) return fail(req, 400, "bare CR in the request head");
        gr_http_parse_result_t r;
        if (first) {
            r = parse_request_line(buf, pos, n, req);
            first = false;
        } else if (n == 0) {
            return finish(req, &st, next);
        } else {
            r = parse_header(buf + pos, n, req, &st);
        }
        if (r == GR_HTTP_PARSE_ERROR) return r;
        pos = next;
    }
    if (len >= max_head) return fail(req, 431, "request head too large");
    return first ? check_prefix(buf + pos, len - pos, req) : GR_HTTP_PARSE_INCOMPLETE;
}

const char *gr_http_reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}
