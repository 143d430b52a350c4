/* libFuzzer target: the `gregor produce` line reader (src/cli/line_parse.c), which splits
 * each line of standard input into headers, key and value like Kafka's console producer.
 *
 * Input: byte 0 flags (bit 0 parse.key, 1 parse.headers, 2 ignore.error, 3 a null.marker),
 * then five NUL-terminated settings (key.separator, headers.delimiter, headers.separator,
 * headers.key.separator, null.marker), then the line (any bytes). Settings refused by
 * line_reader_check are not used, as produce refuses them.
 * Invariants: no crash; every span lies inside the line; on success the line is exactly
 * [headers delimiter] [key separator] value as configured, the reported headers are the
 * pairs of the header section in order, and the same line parses the same way again. */
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/line_parse.h"

typedef struct ctx {
    const char *line;
    size_t len;
    const line_reader_t *r;
    const char *next; /* where the next header pair must start */
    const char *end;  /* end of the header section */
    size_t n;
} ctx_t;

static bool inside(const ctx_t *c, line_span_t s) {
    return s.p >= c->line && s.len <= c->len && s.p + s.len <= c->line + c->len;
}

static void on_header(void *opaque, line_span_t pair, line_span_t key, line_span_t val) {
    ctx_t *c = opaque;
    assert(pair.p == c->next && inside(c, pair) && pair.p + pair.len <= c->end);
    assert(key.p == pair.p && key.len <= pair.len);
    assert(!memmem(pair.p, pair.len, c->r->h_sep, strlen(c->r->h_sep)));
    size_t lk = strlen(c->r->h_key_sep);
    if (key.len < pair.len) { /* key, separator, value */
        assert(!memcmp(key.p + key.len, c->r->h_key_sep, lk));
        assert(!memmem(key.p, key.len, c->r->h_key_sep, lk));
        assert(key.len + lk <= pair.len);
        if (val.p)
            assert(val.p == key.p + key.len + lk && val.p + val.len == pair.p + pair.len);
        else
            assert(c->r->null_marker && pair.len - key.len - lk == strlen(c->r->null_marker));
    } else { /* no separator: ignore.error gives a null value */
        assert(c->r->ignore_error && !val.p && !memmem(pair.p, pair.len, c->r->h_key_sep, lk));
    }
    const char *pair_end = pair.p + pair.len;
    size_t ls = strlen(c->r->h_sep);
    if (pair_end < c->end) assert(!memcmp(pair_end, c->r->h_sep, ls)); /* a separator follows */
    c->next = pair_end + ls;
    c->n++;
}

/* NUL-terminated string at *p (within end), advancing *p; "" when the input runs out. */
static const char *take(const uint8_t **p, const uint8_t *end) {
    const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
    if (!z) {
        *p = end;
        return "";
    }
    const char *s = (const char *)*p;
    *p = z + 1;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t *p = data + 1, *end = data + size;
    line_reader_t r;
    line_reader_init(&r);
    r.parse_key = data[0] & 1;
    r.parse_headers = data[0] & 2;
    r.ignore_error = data[0] & 4;
    const char *set[5];
    for (int i = 0; i < 5; i++) set[i] = take(&p, end);
    if (*set[0]) r.key_sep = set[0];
    if (*set[1]) r.h_delim = set[1];
    if (*set[2]) r.h_sep = set[2];
    if (*set[3]) r.h_key_sep = set[3];
    if (data[0] & 8) r.null_marker = set[4];
    char why[128];
    if (line_reader_check(&r, why, sizeof(why))) return 0;
    /* The line in its own allocation, so that ASan sees any read past its end. */
    size_t len = (size_t)(end - p);
    char *line = malloc(len ? len : 1);
    memcpy(line, p, len);
    line_record_t rec;
    ctx_t c = {line, len, &r, NULL, NULL, 0};
    line_err_t e = line_parse(&r, line, len, &rec, NULL, NULL);
    if (e == LINE_OK) {
        if (rec.key.p) assert(inside(&c, rec.key));
        if (rec.value.p) assert(inside(&c, rec.value));
        /* The value is the end of the line; what precedes it is headers and key. */
        const char *vstart = line + len;
        if (rec.value.p) {
            assert(rec.value.p + rec.value.len == line + len);
            vstart = rec.value.p;
        }
        if (rec.key.p) {
            assert(!r.parse_key || rec.key.p + rec.key.len + strlen(r.key_sep) == vstart || !rec.value.p);
            assert(!memmem(rec.key.p, rec.key.len, r.key_sep, strlen(r.key_sep)));
        } else {
            assert(!r.parse_key || r.ignore_error || r.null_marker);
        }
        if (rec.has_headers) {
            assert(r.parse_headers && inside(&c, rec.headers) && rec.headers.p == line);
            assert(!memcmp(line + rec.headers.len, r.h_delim, strlen(r.h_delim)));
            assert(!memmem(rec.headers.p, rec.headers.len, r.h_delim, strlen(r.h_delim)));
            c.next = rec.headers.p;
            c.end = rec.headers.p + rec.headers.len;
            line_record_t rec2;
            assert(line_parse(&r, line, len, &rec2, on_header, &c) == LINE_OK);
            assert(c.n >= 1 && c.next >= c.end);
            assert(rec.key.p == rec2.key.p && rec.key.len == rec2.key.len && rec.value.p == rec2.value.p &&
                   rec.value.len == rec2.value.len && rec2.has_headers && rec.headers.len == rec2.headers.len);
        }
    } else if (e == LINE_NO_HEADER_KEY_SEP) {
        assert(!r.ignore_error && rec.bad.p >= line && rec.bad.p + rec.bad.len <= line + len);
    } else if (e == LINE_HEADER_KEY_IS_NULL) {
        assert(r.null_marker);
    } else {
        assert(!r.ignore_error);
    }
    free(line);
    return 0;
}
