/* A small recursive-descent JSON reader: see json_parse.h. */
#include "json_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

typedef struct jp {
    const char *p, *end;
    const char *why;
} jp_t;

static bool fail(jp_t *j, const char *why) {
    if (!j->why) j->why = why;
    return false;
}

static void ws(jp_t *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static bool lit(jp_t *j, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return fail(j, "unexpected character");
    j->p += n;
    return true;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) return (size_t)(o[0] = (char)cp, 1);
    if (cp < 0x800) return o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000)
        return o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
               o[2] = (char)(0x80 | (cp & 0x3f)), 3;
    o[0] = (char)(0xf0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A \uXXXX escape (p after the 'u'), joining a surrogate pair; U+FFFD for a lone half. */
static uint32_t unicode_escape(jp_t *j) {
    int hi = j->end - j->p >= 4 ? hex4(j->p) : -1;
    if (hi < 0) return fail(j, "bad \\u escape"), 0;
    j->p += 4;
    if (hi < 0xd800 || hi > 0xdfff) return (uint32_t)hi;
    if (hi <= 0xdbff && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
        int lo = hex4(j->p + 2);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
            j->p += 6;
            return 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
        }
    }
    return 0xfffd;
}

static char *string(jp_t *j) {
    if (j->p >= j->end || *j->p != '"') return fail(j, "expected a string"), NULL;
    j->p++;
    /* Decoded text is never longer than its escaped form. */
    char *out = malloc((size_t)(j->end - j->p) + 1), *o = out;
    if (!out) abort();
    for (;;) {
        if (j->p >= j->end) goto bad;
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"') break;
        if (c < 0x20) goto bad;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        if (j->p >= j->end) goto bad;
        char e = *j->p++;
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *k = strchr(from, e);
        if (e == 'u') {
            uint32_t cp = unicode_escape(j);
            if (j->why) goto bad;
            o += put_utf8(o, cp);
        } else if (e && k) {
            *o++ = to[k - from];
        } else {
            goto bad;
        }
    }
    *o = 0;
    return out;
bad:
    free(out);
    return fail(j, "bad string"), NULL;
}

static bool number(jp_t *j, double *out) {
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-') j->p++;
    size_t digits = strspn(j->p, "0123456789");
    if (!digits || (digits > 1 && *j->p == '0')) return fail(j, "bad number");
    j->p += digits;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!(digits = strspn(j->p, "0123456789"))) return fail(j, "bad number");
        j->p += digits;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!(digits = strspn(j->p, "0123456789"))) return fail(j, "bad number");
        j->p += digits;
    }
    char buf[64];
    size_t n = (size_t)(j->p - s);
    if (n >= sizeof(buf)) return fail(j, "number too long");
    memcpy(buf, s, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return true;
}

static bool value(jp_t *j, cli_jv_t *v, int depth);

static void push(cli_jv_t *v, char *key, size_t *cap) {
    if (v->n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        v->vals = realloc(v->vals, *cap * sizeof(*v->vals));
        if (v->type == CLI_JOBJ) v->keys = realloc(v->keys, *cap * sizeof(*v->keys));
        if (!v->vals || (v->type == CLI_JOBJ && !v->keys)) abort();
    }
    memset(&v->vals[v->n], 0, sizeof(v->vals[0]));
    if (v->type == CLI_JOBJ) v->keys[v->n] = key;
    v->n++;
}

/* An array or object (j->p at the opening bracket). */
static bool container(jp_t *j, cli_jv_t *v, int depth) {
    bool obj = *j->p == '{';
    char close = obj ? '}' : ']';
    size_t cap = 0;
    v->type = obj ? CLI_JOBJ : CLI_JARR;
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == close) return j->p++, true;
    for (;;) {
        char *key = NULL;
        ws(j);
        if (obj) {
            if (!(key = string(j))) return false;
            ws(j);
            if (j->p >= j->end || *j->p != ':') return free(key), fail(j, "expected ':'");
            j->p++;
        }
        push(v, key, &cap);
        if (!value(j, &v->vals[v->n - 1], depth + 1)) return false;
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) return j->p++, true;
        return fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool value(jp_t *j, cli_jv_t *v, int depth) {
    if (depth > MAX_DEPTH) return fail(j, "nested too deeply");
    ws(j);
    if (j->p >= j->end) return fail(j, "unexpected end");
    switch (*j->p) {
    case '{':
    case '[': return container(j, v, depth);
    case '"': return v->type = CLI_JSTR, (v->str = string(j)) != NULL;
    case 't': return v->type = CLI_JBOOL, v->b = true, lit(j, "true");
    case 'f': return v->type = CLI_JBOOL, lit(j, "false");
    case 'n': return v->type = CLI_JNULL, lit(j, "null");
    default: return v->type = CLI_JNUM, number(j, &v->num);
    }
}

static void free_inner(cli_jv_t *v) {
    for (size_t i = 0; i < v->n; i++) {
        free_inner(&v->vals[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->vals);
    free(v->keys);
    free(v->str);
}

cli_jv_t *cli_jv_parse(const char *s, size_t len, char *err, size_t err_size) {
    /* The number scanner uses strspn: work on a NUL-terminated copy. */
    char *copy = malloc(len + 1);
    cli_jv_t *v = calloc(1, sizeof(*v));
    if (!copy || !v) abort();
    memcpy(copy, s, len);
    copy[len] = 0;
    jp_t j = {copy, copy + len, NULL};
    if (value(&j, v, 0)) {
        ws(&j);
        if (j.p != j.end) fail(&j, "trailing characters");
    }
    if (j.why) {
        snprintf(err, err_size, "%s at byte %zu", j.why, (size_t)(j.p - copy));
        cli_jv_free(v);
        v = NULL;
    }
    free(copy);
    return v;
}

void cli_jv_free(cli_jv_t *v) {
    if (!v) return;
    free_inner(v);
    free(v);
}

const cli_jv_t *cli_jv_get(const cli_jv_t *obj, const char *key) {
    if (!obj || obj->type != CLI_JOBJ) return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key)) return &obj->vals[i];
    return NULL;
}

double cli_jv_num(const cli_jv_t *obj, const char *key) {
    const cli_jv_t *v = cli_jv_get(obj, key);
    return v && v->type == CLI_JNUM ? v->num : NAN;
}

const char *cli_jv_str(const cli_jv_t *obj, const char *key) {
    const cli_jv_t *v = cli_jv_get(obj, key);
    return v && v->type == CLI_JSTR ? v->str : NULL;
}
