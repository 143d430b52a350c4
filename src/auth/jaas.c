/* JAAS configuration parser: the subset of java.io.StreamTokenizer that Kafka's JaasConfig
 * relies on, then Kafka's grammar and error messages. */
#include "auth/jaas.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { T_EOF = -1, T_WORD = -3, T_NUMBER = -2 }; /* anything >= 0 is an ordinary character */

typedef struct lexer {
    const unsigned char *p, *end;
    int type;  /* T_* or the character */
    char *str; /* word or quoted text (T_WORD, or type == the quote char), else NULL */
} lexer_t;

/* Bytes >= 0x80 count as word characters: Java sees the decoded characters, nearly all
 * of which are word characters (only U+0080..U+009F are not). */
static bool is_alpha(int c) { return isalpha(c) || c == '_' || c == '$' || c == '-' || c >= 0x80; }
static bool is_digit(int c) { return (c >= '0' && c <= '9') || c == '.' || c == '-'; }
static bool is_space(int c) { return c <= ' '; }

static int peek(const lexer_t *lx) { return lx->p < lx->end ? *lx->p : -1; }

static void skip_line(lexer_t *lx) {
    while (lx->p < lx->end && *lx->p != '\n' && *lx->p != '\r') lx->p++;
}

/* A backslash escape inside a quoted string; lx->p is just past the backslash. */
static int read_escape(lexer_t *lx) {
    int c = peek(lx);
    if (c < 0) return -1;
    lx->p++;
    if (c >= '0' && c <= '7') {
        int v = c - '0', max = c <= '3' ? 2 : 1;
        for (int i = 0; i < max && peek(lx) >= '0' && peek(lx) <= '7'; i++) v = v * 8 + (*lx->p++ - '0');
        return v;
    }
    switch (c) {
    case 'a': return 7;
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    default: return c;
    }
}

static void set_str(lexer_t *lx, const unsigned char *s, size_t n) {
    free(lx->str);
    lx->str = malloc(n + 1);
    if (!lx->str) abort();
    memcpy(lx->str, s, n);
    lx->str[n] = '\0';
}

static void read_quoted(lexer_t *lx, int q) {
    size_t cap = (size_t)(lx->end - lx->p) + 1, n = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) abort();
    for (;;) {
        int c = peek(lx);
        if (c < 0 || c == q || c == '\n' || c == '\r') {
            if (c == q) lx->p++;
            break;
        }
        lx->p++;
        if (c == '\\') c = read_escape(lx);
        if (c < 0) break;
        buf[n++] = (unsigned char)c; /* an escape yields at most one byte per input byte */
    }
    set_str(lx, buf, n);
    free(buf);
    lx->type = q;
}

static int next(lexer_t *lx) {
    free(lx->str);
    lx->str = NULL;
    for (;;) {
        int c = peek(lx);
        if (c < 0) return lx->type = T_EOF;
        if (is_space(c)) {
            lx->p++;
            continue;
        }
        if (c == '/') {
            lx->p++;
            if (peek(lx) == '*') {
                const unsigned char *e = lx->p + 1;
                while (e + 1 < lx->end && !(e[0] == '*' && e[1] == '/')) e++;
                lx->p = e + 1 < lx->end ? e + 2 : lx->end;
            } else {
                skip_line(lx); /* "//" and a lone '/' (the default comment character) */
            }
            continue;
        }
        if (is_digit(c)) {
            lx->p++;
            if (c == '-' && peek(lx) != '.' && !(peek(lx) >= '0' && peek(lx) <= '9')) return lx->type = '-';
            bool dot = c == '.';
            while ((peek(lx) >= '0' && peek(lx) <= '9') || (peek(lx) == '.' && !dot)) dot |= *lx->p++ == '.';
            return lx->type = T_NUMBER;
        }
        if (is_alpha(c)) {
            const unsigned char *s = lx->p;
            while (lx->p < lx->end && (is_alpha(*lx->p) || is_digit(*lx->p))) lx->p++;
            set_str(lx, s, (size_t)(lx->p - s));
            return lx->type = T_WORD;
        }
        lx->p++;
        if (c == '"' || c == '\'') {
            read_quoted(lx, c);
            return lx->type;
        }
        return lx->type = c;
    }
}

static char *take(lexer_t *lx) {
    char *s = lx->str;
    lx->str = NULL;
    return s;
}

static void put_option(gr_jaas_entry_t *e, char *key, char *value) {
    for (size_t i = 0; i < e->n_opts; i++)
        if (!strcmp(e->opts[i].key, key)) {
            free(key);
            free(e->opts[i].value);
            e->opts[i].value = value;
            return;
        }
    gr_jaas_option_t *o = realloc(e->opts, (e->n_opts + 1) * sizeof(*o));
    if (!o) abort();
    e->opts = o;
    e->opts[e->n_opts++] = (gr_jaas_option_t){key, value};
}

static void entry_free(gr_jaas_entry_t *e) {
    free(e->login_module);
    for (size_t i = 0; i < e->n_opts; i++) free(e->opts[i].key), free(e->opts[i].value);
    free(e->opts);
}

static gr_err_t fail(char *errstr, size_t sz, const char *fmt, const char *arg) {
    snprintf(errstr, sz, fmt, arg ? arg : "null");
    return GR_ERR__INVALID_ARG;
}

static gr_err_t parse_flag(const char *s, gr_jaas_flag_t *f, char *errstr, size_t sz) {
    static const char *const names[] = {"REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL"};
    if (!s) return fail(errstr, sz, "Login module control flag is not available in the JAAS config%s", "");
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(s, names[i])) {
            *f = (gr_jaas_flag_t)i;
            return GR_ERR_NONE;
        }
    return fail(errstr, sz, "Invalid login module control flag '%s' in JAAS config", s);
}

/* One entry; the lexer stands on its first token. */
static gr_err_t parse_entry(lexer_t *lx, gr_jaas_entry_t *e, char *errstr, size_t sz) {
    if (lx->type != T_WORD) return fail(errstr, sz, "Login module not specified in JAAS config%s", "");
    e->login_module = take(lx);
    if (next(lx) == T_EOF) return fail(errstr, sz, "Login module control flag not specified in JAAS config%s", "");
    gr_err_t err = parse_flag(lx->str, &e->flag, errstr, sz);
    if (err) return err;
    while (next(lx) != T_EOF && lx->type != ';') {
        char *key = take(lx);
        if (next(lx) != '=' || next(lx) == T_EOF || !lx->str) {
            err = fail(errstr, sz, "Value not specified for key '%s' in JAAS config", key);
            free(key);
            return err;
        }
        put_option(e, key ? key : strdup("null"), take(lx));
    }
    if (lx->type != ';') return fail(errstr, sz, "JAAS config entry not terminated by semi-colon%s", "");
    return GR_ERR_NONE;
}

gr_err_t gr_jaas_parse(const char *text, size_t len, gr_jaas_t *out, char *errstr, size_t errstr_size) {
    lexer_t lx = {(const unsigned char *)text, (const unsigned char *)text + len, 0, NULL};
    memset(out, 0, sizeof(*out));
    gr_err_t err = GR_ERR_NONE;
    while (next(&lx) != T_EOF) {
        gr_jaas_entry_t *v = realloc(out->entries, (out->n + 1) * sizeof(*v));
        if (!v) abort();
        out->entries = v;
        memset(&v[out->n], 0, sizeof(v[0]));
        out->n++;
        if ((err = parse_entry(&lx, &v[out->n - 1], errstr, errstr_size))) break;
    }
    free(lx.str);
    if (!err && out->n == 0) err = fail(errstr, errstr_size, "Login module not specified in JAAS config%s", "");
    if (err) gr_jaas_free(out);
    return err;
}

void gr_jaas_free(gr_jaas_t *j) {
    for (size_t i = 0; i < j->n; i++) entry_free(&j->entries[i]);
    free(j->entries);
    memset(j, 0, sizeof(*j));
}

const char *gr_jaas_option(const gr_jaas_entry_t *e, const char *key) {
    for (size_t i = 0; i < e->n_opts; i++)
        if (!strcmp(e->opts[i].key, key)) return e->opts[i].value;
    return NULL;
}
