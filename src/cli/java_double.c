/* Java's Double.toString, for output that must match the Kafka tools'. Pure. */
#include "java_double.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

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
    if (!size) return;
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
