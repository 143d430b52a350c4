/* Java .properties parser and ordered string map. See props.h. */
#include "base/props.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void gr_props_init(gr_props_t *p) { memset(p, 0, sizeof(*p)); }

void gr_props_free(gr_props_t *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].key);
        free(p->v[i].value);
    }
    free(p->v);
    gr_props_init(p);
}

void gr_props_copy(gr_props_t *dst, const gr_props_t *src) {
    gr_props_free(dst);
    for (size_t i = 0; i < src->n; i++) gr_props_set(dst, src->v[i].key, src->v[i].value, src->v[i].line);
}

const gr_prop_t *gr_props_find(const gr_props_t *p, const char *key) {
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].key, key) == 0) return &p->v[i];
    return NULL;
}

const char *gr_props_get(const gr_props_t *p, const char *key) {
    const gr_prop_t *e = gr_props_find(p, key);
    return e ? e->value : NULL;
}

void gr_props_set(gr_props_t *p, const char *key, const char *value, int line) {
    gr_prop_t *e = (gr_prop_t *)gr_props_find(p, key);
    if (e) {
        char *v = gr_xstrdup(value); /* value may alias e->value */
        free(e->value);
        e->value = v;
        e->line = line;
        return;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->v = gr_xrealloc(p->v, p->cap * sizeof(*p->v));
    }
    p->v[p->n].key = gr_xstrdup(key);
    p->v[p->n].value = gr_xstrdup(value);
    p->v[p->n].line = line;
    p->n++;
}

bool gr_props_unset(gr_props_t *p, const char *key) {
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->v[i].key, key) != 0) continue;
        free(p->v[i].key);
        free(p->v[i].value);
        memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(*p->v));
        p->n--;
        return true;
    }
    return false;
}

/* ---- parsing ---- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf_t;

static void sb_put(sbuf_t *b, char c) {
    if (b->n + 1 >= b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->p = gr_xrealloc(b->p, b->cap);
    }
    b->p[b->n++] = c;
    b->p[b->n] = '\0';
}

static void sb_puts(sbuf_t *b, const char *s) {
    while (*s) sb_put(b, *s++);
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\f'; }

/* Length of the line terminator at pos (0 if none): \n, \r or \r\n. */
static size_t eol_len(const char *t, size_t len, size_t pos) {
    if (pos >= len) return 0;
    if (t[pos] == '\n') return 1;
    if (t[pos] == '\r') return (pos + 1 < len && t[pos + 1] == '\n') ? 2 : 1;
    return 0;
}

static void put_utf8(sbuf_t *b, uint32_t cp) {
    if (cp < 0x80) {
        sb_put(b, (char)cp);
    } else if (cp < 0x800) {
        sb_put(b, (char)(0xc0 | (cp >> 6)));
        sb_put(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        sb_put(b, (char)(0xe0 | (cp >> 12)));
        sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_put(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        sb_put(b, (char)(0xf0 | (cp >> 18)));
        sb_put(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_put(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* Four hex digits at s (n bytes available) into *cp. */
static bool hex4(const char *s, size_t n, uint32_t *cp) {
    if (n < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
        if (d < 0) return false;
        v = (v << 4) | (uint32_t)d;
    }
    *cp = v;
    return true;
}

/* \uXXXX at s[i] (s[i-1] was the backslash, s[i] is 'u'); combines surrogate pairs.
 * Returns the number of bytes consumed after the backslash, 0 if malformed. */
static size_t unescape_u(const char *s, size_t n, size_t i, sbuf_t *out) {
    uint32_t cp, lo;
    if (!hex4(s + i + 1, n - i - 1, &cp)) return 0;
    size_t used = 5;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        size_t j = i + 5;
        if (j + 1 >= n || s[j] != '\\' || s[j + 1] != 'u' || !hex4(s + j + 2, n - j - 2, &lo) || lo < 0xdc00 ||
            lo > 0xdfff)
            return 0;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        used += 6;
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        return 0;
    }
    put_utf8(out, cp);
    return used;
}

/* Unescape s[0..n) into out. If trim, unescaped trailing whitespace is dropped. */
static bool unescape(const char *s, size_t n, bool trim, sbuf_t *out) {
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\') {
            sb_put(out, c);
            if (!is_ws(c)) keep = out->n;
            continue;
        }
        if (++i >= n) break; /* lone trailing backslash: dropped, as Java does */
        c = s[i];
        if (c == 'u') {
            size_t used = unescape_u(s, n, i, out);
            if (!used) return false;
            i += used - 1;
        } else {
            sb_put(out, c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == 'f' ? '\f' : c);
        }
        keep = out->n;
    }
    if (trim && out->n > keep) {
        out->n = keep;
        out->p[keep] = '\0';
    }
    return true;
}

/* Split one logical line into key and value and store it. */
static bool store_logical(gr_props_t *p, const char *raw, size_t n, int line) {
    size_t i = 0;
    while (i < n) {
        if (raw[i] == '\\') {
            i += 2;
            continue;
        }
        if (raw[i] == '=' || raw[i] == ':' || is_ws(raw[i])) break;
        i++;
    }
    if (i > n) i = n;
    size_t key_end = i;
    while (i < n && is_ws(raw[i])) i++;
    if (i < n && (raw[i] == '=' || raw[i] == ':')) i++;
    while (i < n && is_ws(raw[i])) i++;
    sbuf_t k = {0}, v = {0};
    bool ok = unescape(raw, key_end, false, &k) && unescape(raw + i, n - i, true, &v);
    if (ok) gr_props_set(p, k.p ? k.p : "", v.p ? v.p : "", line);
    free(k.p);
    free(v.p);
    return ok;
}

/* Gather the logical line starting at *pos (leading whitespace already skipped) into raw,
 * following backslash continuations. Advances *pos past its terminator and *line. */
static void read_logical(const char *t, size_t len, size_t *pos, int *line, sbuf_t *raw) {
    size_t i = *pos;
    for (;;) {
        size_t seg = raw->n;
        while (i < len && !eol_len(t, len, i)) sb_put(raw, t[i++]);
        size_t bs = 0;
        while (bs < raw->n - seg && raw->p[raw->n - 1 - bs] == '\\') bs++;
        size_t el = eol_len(t, len, i);
        i += el;
        if (el) (*line)++;
        if (bs % 2 == 0 || i >= len) {
            if (bs % 2) raw->p[--raw->n] = '\0';
            break;
        }
        raw->p[--raw->n] = '\0'; /* drop the continuation backslash */
        while (i < len && is_ws(t[i])) i++;
    }
    *pos = i;
}

gr_err_t gr_props_parse(gr_props_t *p, const char *t, size_t len, char *errstr, size_t errstr_size) {
    size_t pos = 0;
    int line = 1;
    if (memchr(t, '\0', len)) {
        const char *z = memchr(t, '\0', len);
        int zl = 1;
        for (const char *c = t; c < z; c++) zl += (*c == '\n');
        snprintf(errstr, errstr_size, "line %d: NUL byte in properties text", zl);
        return GR_ERR__MALFORMED;
    }
    while (pos < len) {
        while (pos < len && is_ws(t[pos])) pos++;
        size_t el = eol_len(t, len, pos);
        if (el || pos >= len) {
            pos += el;
            line++;
            continue;
        }
        if (t[pos] == '#' || t[pos] == '!') {
            while (pos < len && !eol_len(t, len, pos)) pos++;
            pos += eol_len(t, len, pos);
            line++;
            continue;
        }
        int start = line;
        sbuf_t raw = {0};
        read_logical(t, len, &pos, &line, &raw);
        bool ok = store_logical(p, raw.p ? raw.p : "", raw.n, start);
        free(raw.p);
        if (!ok) {
            snprintf(errstr, errstr_size, "line %d: malformed \\uxxxx encoding", start);
            return GR_ERR__MALFORMED;
        }
    }
    return GR_ERR_NONE;
}

gr_err_t gr_props_load_file(gr_props_t *p, const char *path, char *errstr, size_t errstr_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(errstr, errstr_size, "%s: %s", path, strerror(errno));
        return GR_ERR__IO;
    }
    sbuf_t b = {0};
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
        for (size_t i = 0; i < r; i++) sb_put(&b, chunk[i]);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b.p);
        snprintf(errstr, errstr_size, "%s: read error", path);
        return GR_ERR__IO;
    }
    char tmp[256];
    gr_err_t err = gr_props_parse(p, b.p ? b.p : "", b.n, tmp, sizeof(tmp));
    if (err) snprintf(errstr, errstr_size, "%s: %s", path, tmp);
    free(b.p);
    return err;
}

/* ---- formatting ---- */

static void put_escaped(sbuf_t *b, const char *s, bool is_key) {
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        bool lead = (i == 0) && !is_key;
        switch (c) {
        case '\\': sb_puts(b, "\\\\"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\f': sb_puts(b, "\\f"); break;
        case '=':
        case ':':
        case '#':
        case '!':
            sb_put(b, '\\');
            sb_put(b, (char)c);
            break;
        case ' ':
            /* Spaces in keys, and leading or trailing spaces in values, would be lost. */
            if (is_key || lead || s[i + 1] == '\0') sb_put(b, '\\');
            sb_put(b, ' ');
            break;
        default: sb_put(b, (char)c);
        }
    }
}

char *gr_props_format(const gr_props_t *p) {
    sbuf_t b = {0};
    for (size_t i = 0; i < p->n; i++) {
        put_escaped(&b, p->v[i].key, true);
        sb_put(&b, '=');
        put_escaped(&b, p->v[i].value, false);
        sb_put(&b, '\n');
    }
    if (!b.p) b.p = gr_xstrdup("");
    return b.p;
}
