/* Java's Double.toString and Double.parseDouble, to print and read numbers as the Kafka
 * tools do. Pure. */
#include "java_double.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Java's text of a double: the shortest digits that read back the same value; plain
 * notation with at least one decimal for 1e-3 <= |v| < 1e7 ("100.0", "50.5"),
 * otherwise d.dddE<exp> ("2.0E7", "1.5E-4"). */
typedef struct text {
    char *p;
    size_t size, o;
} text_t;

static void put(text_t *t, char c) {
    if (t->o + 1 < t->size) t->p[t->o++] = c;
    t->p[t->o] = 0;
}

void cli_java_double(double v, char *out, size_t size) {
    if (!size) return;
    if (v != v || v == HUGE_VAL || v == -HUGE_VAL) {
        snprintf(out, size, "%s", v != v ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    char e[40];
    for (int prec = 0; prec < 17; prec++) { /* the shortest digits that read back as v */
        snprintf(e, sizeof(e), "%.*e", prec, v);
        if (strtod(e, NULL) == v) break;
    }
    /* e = [-]d[.ddd]e[+-]xx */
    char digits[24];
    size_t nd = 0;
    const char *p = e;
    bool neg = *p == '-';
    if (neg) p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && nd < sizeof(digits) - 1) digits[nd++] = *p;
    int exp = *p == 'e' ? atoi(p + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    double a = v < 0 ? -v : v;
    text_t t = {out, size, 0};
    out[0] = 0;
    if (neg) put(&t, '-');
    if (a == 0 || (a >= 1e-3 && a < 1e7)) {
        if (exp < 0) {
            put(&t, '0'), put(&t, '.');
            for (int i = -1; i > exp; i--) put(&t, '0');
            for (size_t i = 0; i < nd; i++) put(&t, digits[i]);
        } else {
            for (int i = 0; i <= exp; i++) put(&t, (size_t)i < nd ? digits[i] : '0');
            put(&t, '.');
            if ((size_t)exp + 1 >= nd) put(&t, '0');
            for (size_t i = (size_t)exp + 1; i < nd; i++) put(&t, digits[i]);
        }
        return;
    }
    put(&t, digits[0]), put(&t, '.');
    if (nd == 1) put(&t, '0');
    for (size_t i = 1; i < nd; i++) put(&t, digits[i]);
    char x[16];
    snprintf(x, sizeof(x), "E%d", exp);
    for (const char *q = x; *q; q++) put(&t, *q);
}

/* ---- Double.parseDouble ---- */

static bool is_hex(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
static bool is_dec(char c) { return c >= '0' && c <= '9'; }

/* Skip digits (hex or decimal) at *p; their number. */
static size_t digits_at(const char **p, bool hex) {
    size_t n = 0;
    while (hex ? is_hex(**p) : is_dec(**p)) (*p)++, n++;
    return n;
}

/* The number at p (after the sign) per Java's grammar, up to an optional f/F/d/D suffix;
 * where it ends in *end, or false. */
static bool java_number(const char *p, const char **end) {
    bool hex = p[0] == '0' && (p[1] | 0x20) == 'x';
    if (hex) p += 2;
    size_t n = digits_at(&p, hex);
    if (*p == '.') p++, n += digits_at(&p, hex);
    if (!n) return false;
    if ((*p | 0x20) == (hex ? 'p' : 'e')) {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!digits_at(&p, false)) return false;
    } else if (hex) {
        return false; /* a hex number needs its binary exponent */
    }
    *end = p;
    return true;
}

/* buf: a trimmed, non-empty string (the suffix is cut off in place). */
static bool parse_trimmed(char *buf, double *out) {
    const char *p = buf + (buf[0] == '+' || buf[0] == '-'), *end;
    bool neg = buf[0] == '-';
    if (!strcmp(p, "NaN") || !strcmp(p, "Infinity")) {
        *out = *p == 'N' ? NAN : neg ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    if (!java_number(p, &end)) return false;
    if (*end && (!strchr("fFdD", *end) || end[1])) return false;
    buf[end - buf] = 0; /* the suffix is only a type marker */
    *out = strtod(buf, NULL);
    return true;
}

bool cli_java_parse_double(const char *s, double *out) {
    size_t len = strlen(s);
    while (len && (unsigned char)s[len - 1] <= ' ') len--; /* String.trim */
    while (len && (unsigned char)*s <= ' ') s++, len--;
    char *buf = len ? strndup(s, len) : NULL;
    if (!buf) return false;
    bool ok = parse_trimmed(buf, out);
    free(buf);
    return ok;
}
