/* java.time.Duration.parse, step for step: the text must match Java's pattern first;
 * only then are the numbers read (Long.parseLong), scaled to seconds with overflow
 * checks (multiplyExact), summed as minutes+seconds, then hours, then days
 * (addExact), and the fraction applied and the sign taken. Each overflow makes the
 * parse fail, as Java's ArithmeticException becomes DateTimeParseException. */
#include "base/duration.h"

#include <stddef.h>

#define NANOS_PER_SECOND 1000000000

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Java compiles its pattern CASE_INSENSITIVE without UNICODE_CASE: ASCII only. */
static bool letter_is(char c, char upper) { return c == upper || c == upper + ('a' - 'A'); }

/* [-+]?[0-9]+ at s. Returns its end (s itself when there is no number). *fits tells
 * whether Long.parseLong would accept it; *v is then its value. */
static const char *number(const char *s, int64_t *v, bool *fits) {
    const char *d = s;
    bool neg = false;
    if (*d == '+' || *d == '-') neg = *d++ == '-';
    if (!is_digit(*d)) return s;
    uint64_t m = 0;
    bool big = false;
    for (; is_digit(*d); d++) {
        if (m > (UINT64_MAX - 9) / 10)
            big = true; /* leading zeros never get here */
        else
            m = m * 10 + (uint64_t)(*d - '0');
    }
    uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    *fits = !big && m <= lim;
    if (*fits) *v = !neg ? (int64_t)m : m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    return d;
}

/* "<number>D|H|M" at *p, scaled by mult into *secs. Returns whether the text matches
 * (then *p moves past it); a value out of range clears *ok. */
static bool unit_part(const char **p, char unit, int64_t mult, int64_t *secs, bool *ok) {
    int64_t v = 0;
    bool fits = false;
    const char *e = number(*p, &v, &fits);
    if (e == *p || !letter_is(*e, unit)) return false;
    *p = e + 1;
    if (!fits || __builtin_mul_overflow(v, mult, secs)) *ok = false;
    return true;
}

/* "<number>[.,<0-9 digits>]S" at *p. The fraction takes the sign of the number's text
 * ("-0.5" is minus half a second), so *nanos is in (-1e9, 1e9). */
static bool seconds_part(const char **p, int64_t *secs, int32_t *nanos, bool *ok) {
    int64_t v = 0;
    bool fits = false;
    const char *e = number(*p, &v, &fits);
    if (e == *p) return false;
    int32_t frac = 0;
    if (*e == '.' || *e == ',') {
        const char *q = e + 1;
        int nd = 0;
        for (; is_digit(*q) && nd < 9; q++, nd++) frac = frac * 10 + (*q - '0');
        for (; nd < 9; nd++) frac *= 10;
        e = q; /* a tenth digit is then not 'S': no match */
    }
    if (!letter_is(*e, 'S')) return false;
    *nanos = **p == '-' ? -frac : frac;
    *p = e + 1;
    if (!fits) *ok = false;
    *secs = v;
    return true;
}

bool gr_duration_parse(const char *s, gr_duration_t *out) {
    bool neg = false, ok = true, any = false;
    int64_t d = 0, h = 0, m = 0, sec = 0, total;
    int32_t ns = 0;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    if (!letter_is(*s, 'P')) return false;
    s++;
    any = unit_part(&s, 'D', 86400, &d, &ok);
    if (letter_is(*s, 'T')) {
        char t_letter = *s++;
        bool t = unit_part(&s, 'H', 3600, &h, &ok);
        t |= unit_part(&s, 'M', 60, &m, &ok);
        t |= seconds_part(&s, &sec, &ns, &ok);
        /* Java refuses a "T" without a time part, but compares that letter case-
         * sensitively: "P1Dt" is one day, "P1DT" an error. */
        if (!t && t_letter == 'T') return false;
        any |= t;
    }
    if (*s || !any || !ok) return false;
    if (__builtin_add_overflow(m, sec, &total) || __builtin_add_overflow(h, total, &total) ||
        __builtin_add_overflow(d, total, &total))
        return false;
    if (ns < 0) { /* Duration.ofSeconds(total, ns) borrows a second */
        if (total == INT64_MIN) return false;
        total--, ns += NANOS_PER_SECOND;
    }
    if (neg) { /* negated(): fails only for exactly Long.MIN_VALUE seconds */
        if (ns == 0 && total == INT64_MIN) return false;
        if (ns == 0)
            total = -total;
        else /* -(total + 1) without the overflow at Long.MAX_VALUE: ~total */
            total = ~total, ns = NANOS_PER_SECOND - ns;
    }
    out->seconds = total;
    out->nanos = ns;
    return true;
}

int64_t gr_duration_to_ms(gr_duration_t dur) {
    __int128 ms = (__int128)dur.seconds * 1000 + dur.nanos / 1000000;
    if (dur.seconds < 0 && dur.nanos % 1000000) ms++; /* toward zero, as toMillis */
    if (ms > INT64_MAX) return INT64_MAX;
    if (ms < INT64_MIN) return INT64_MIN;
    return (int64_t)ms;
}
