/* The `gregor produce` line reader. See line_parse.h. */
#include "line_parse.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void line_reader_init(line_reader_t *r) { *r = (line_reader_t){false, false, false, "\t", "\t", ",", ":", NULL}; }

static bool is_true(const char *s) { return !strcasecmp(s, "true"); }

bool line_reader_set(line_reader_t *r, const char *p) {
    const char *eq = strchr(p, '=');
    if (!eq) return false;
    const char *val = eq + 1;
    size_t l = (size_t)(eq - p);
#define IS(s) (l == strlen(s) && !strncmp(p, s, l))
    if (IS("parse.key"))
        r->parse_key = is_true(val);
    else if (IS("parse.headers"))
        r->parse_headers = is_true(val);
    else if (IS("ignore.error"))
        r->ignore_error = is_true(val);
    else if (IS("key.separator"))
        r->key_sep = val;
    else if (IS("headers.delimiter"))
        r->h_delim = val;
    else if (IS("headers.separator"))
        r->h_sep = val;
    else if (IS("headers.key.separator"))
        r->h_key_sep = val;
    else if (IS("null.marker"))
        r->null_marker = val;
    else
        return false;
#undef IS
    return true;
}

const char *line_reader_check(const line_reader_t *r, char *buf, size_t buf_size) {
    const struct {
        const char *a, *b, *an, *bn;
    } differ[] = {
        {r->h_delim, r->h_sep, "headers.delimiter", "headers.separator"},
        {r->h_delim, r->h_key_sep, "headers.delimiter", "headers.key.separator"},
        {r->h_sep, r->h_key_sep, "headers.separator", "headers.key.separator"},
        {r->null_marker, r->key_sep, "null.marker", "key.separator"},
        {r->null_marker, r->h_sep, "null.marker", "headers.separator"},
        {r->null_marker, r->h_delim, "null.marker", "headers.delimiter"},
        {r->null_marker, r->h_key_sep, "null.marker", "headers.key.separator"},
    };
    for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++)
        if (differ[i].a && differ[i].b && !strcmp(differ[i].a, differ[i].b)) {
            snprintf(buf, buf_size, "%s and %s may not be equal", differ[i].an, differ[i].bn);
            return buf;
        }
    if (!*r->key_sep || !*r->h_delim || !*r->h_sep || !*r->h_key_sep) return "Reader separators must not be empty";
    return NULL;
}

static bool is_null(const line_reader_t *r, line_span_t s) {
    return r->null_marker && strlen(r->null_marker) == s.len && !memcmp(s.p, r->null_marker, s.len);
}

/* Split [s, s+len) at the first sep: *head before it; false if absent. */
static bool cut(const char *s, size_t len, const char *sep, line_span_t *head) {
    const char *x = memmem(s, len, sep, strlen(sep));
    if (!x) return false;
    *head = (line_span_t){s, (size_t)(x - s)};
    return true;
}

/* Walk the "k:v,k2:v2" pairs of hs: check them (on_header NULL) or report them. An empty
 * section, or one ending with the separator, has an empty last pair (as before the split). */
static line_err_t walk_headers(const line_reader_t *r, line_span_t hs, line_record_t *out, line_header_fn on_header,
                               void *opaque) {
    size_t ls = strlen(r->h_sep), lk = strlen(r->h_key_sep);
    const char *p = hs.p, *end = hs.p + hs.len;
    while (p <= end) {
        line_span_t pair, key;
        if (!cut(p, (size_t)(end - p), r->h_sep, &pair)) pair = (line_span_t){p, (size_t)(end - p)};
        if (!cut(pair.p, pair.len, r->h_key_sep, &key)) {
            if (!r->ignore_error) {
                out->bad = pair;
                return LINE_NO_HEADER_KEY_SEP;
            }
            if (on_header) on_header(opaque, pair, pair, (line_span_t){NULL, 0});
        } else {
            if (is_null(r, key)) return LINE_HEADER_KEY_IS_NULL;
            line_span_t val = {key.p + key.len + lk, pair.len - key.len - lk};
            if (is_null(r, val)) val.p = NULL;
            if (on_header) on_header(opaque, pair, key, val);
        }
        if (end - (pair.p + pair.len) < (ptrdiff_t)ls) break; /* no separator after this pair */
        p = pair.p + pair.len + ls;
    }
    return LINE_OK;
}

line_err_t line_parse(const line_reader_t *r, const char *line, size_t len, line_record_t *out,
                      line_header_fn on_header, void *opaque) {
    const char *s = line;
    size_t rest = len;
    line_span_t hs = {NULL, 0}, key = {NULL, 0};
    bool has_h = false, has_k = false;
    *out = (line_record_t){{NULL, 0}, {NULL, 0}, false, {NULL, 0}, {NULL, 0}};
    if (r->parse_headers) {
        has_h = cut(s, rest, r->h_delim, &hs);
        if (!has_h && !r->ignore_error) return LINE_NO_HEADERS_DELIM;
        if (has_h) s += hs.len + strlen(r->h_delim), rest -= hs.len + strlen(r->h_delim);
    }
    if (r->parse_key) {
        has_k = cut(s, rest, r->key_sep, &key);
        if (!has_k && !r->ignore_error) return LINE_NO_KEY_SEP;
        if (has_k) s += key.len + strlen(r->key_sep), rest -= key.len + strlen(r->key_sep);
    }
    line_span_t val = {s, rest};
    if (has_h && !is_null(r, hs)) {
        line_err_t err = walk_headers(r, hs, out, NULL, NULL);
        if (err) return err;
        out->has_headers = true;
        out->headers = hs;
    }
    if (!has_k || is_null(r, key)) key = (line_span_t){NULL, 0};
    if (is_null(r, val)) val = (line_span_t){NULL, 0};
    out->key = key;
    out->value = val;
    if (out->has_headers && on_header) walk_headers(r, hs, out, on_header, opaque);
    return LINE_OK;
}
