/* gregor consumer-groups: --topic arguments, --to-datetime, the --from-file CSV plan,
 * the --export CSV fields and Java's HashMap order (cg_plan.h). Pure. */
#include "cg_plan.h"

#include "java_hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Java's Integer.parseInt: optional sign, decimal digits, within int32. */
static bool java_int(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (len && (s[0] == '-' || s[0] == '+')) neg = s[0] == '-', i = 1;
    if (i == len) return false;
    int64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        if (v > (INT64_MAX - 9) / 10) return false;
        v = v * 10 + (s[i] - '0');
    }
    if (neg) v = -v;
    if (v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool cg_parse_topic_arg(const char *arg, char *topic, size_t topic_size, int32_t *parts, size_t max, size_t *n,
                        bool *whole, char *err, size_t err_size) {
    *n = 0;
    *whole = !strchr(arg, ':');
    const char *colon = strchr(arg, ':');
    size_t tl = colon ? (size_t)(colon - arg) : strlen(arg);
    if (tl >= topic_size) {
        snprintf(err, err_size, "Invalid topic arg '%s': topic name too long", arg);
        return false;
    }
    memcpy(topic, arg, tl);
    topic[tl] = 0;
    if (*whole) return true;
    /* Java's split(":") drops trailing empty pieces and must leave exactly two. */
    const char *rest = colon + 1;
    size_t rl = strlen(rest);
    while (rl && rest[rl - 1] == ':') rl--;
    if (rl == 0 || memchr(rest, ':', rl)) {
        snprintf(err, err_size, "Invalid topic arg '%s', expected topic name and partitions", arg);
        return false;
    }
    while (rl && rest[rl - 1] == ',') rl--; /* split(",") drops trailing empty pieces too */
    for (size_t i = 0; i <= rl;) {
        size_t k = i;
        while (k < rl && rest[k] != ',') k++;
        int64_t p;
        if (!java_int(rest + i, k - i, INT32_MIN, INT32_MAX, &p)) {
            snprintf(err, err_size, "Invalid partition '%.*s' specified in topic arg '%s''", (int)(k - i), rest + i,
                     arg);
            return false;
        }
        if (*n == max) {
            snprintf(err, err_size, "Invalid topic arg '%s': more than %zu partitions", arg, max);
            return false;
        }
        parts[(*n)++] = (int32_t)p;
        i = k + 1;
        if (k == rl) break;
    }
    return true;
}

/* ---- datetime ---- */

/* Digits at *p (at least one) as a number; false if none or too large. */
static bool digits(const char **p, int64_t *v) {
    const char *s = *p;
    *v = 0;
    while (**p >= '0' && **p <= '9') {
        if (*v > 100000000000LL) return false;
        *v = *v * 10 + (**p - '0');
        (*p)++;
    }
    return *p > s;
}

static bool lit(const char **p, char c) {
    if (**p != c) return false;
    (*p)++;
    return true;
}

/* The zone at p: SimpleDateFormat's XXX (Z or +hh:mm), else its X (Z or +hh, the rest
 * ignored); seconds east. */
static bool zone(const char *p, int64_t *off) {
    if (*p == 'Z') return *off = 0, true;
    if (*p != '+' && *p != '-') return false;
    int sign = *p == '-' ? -1 : 1;
    p++;
    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9') return false;
    int h = (p[0] - '0') * 10 + (p[1] - '0'), m = 0;
    if (p[2] == ':' && p[3] >= '0' && p[3] <= '9' && p[4] >= '0' && p[4] <= '9') m = (p[3] - '0') * 10 + (p[4] - '0');
    if (h > 23 || m > 59) return false;
    *off = sign * (h * 3600 + m * 60);
    return true;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; y >= 1). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool cg_parse_datetime(const char *s, int64_t *ms, char *err, size_t err_size) {
    const char *t = strchr(s, 'T');
    if (!t || !t[1] || t[1] == 'T') {
        snprintf(err, err_size, "Error parsing timestamp. It does not contain a 'T' according to ISO8601 format");
        return false;
    }
    const char *p = s;
    int64_t y, mo, d, h, mi, sec, milli, off;
    bool ok = digits(&p, &y) && lit(&p, '-') && digits(&p, &mo) && lit(&p, '-') && digits(&p, &d) && lit(&p, 'T') &&
              digits(&p, &h) && lit(&p, ':') && digits(&p, &mi) && lit(&p, ':') && digits(&p, &sec) && lit(&p, '.') &&
              digits(&p, &milli);
    /* Kafka appends 'Z' when the time part has no zone marker. */
    size_t seg = strcspn(t + 1, "T");
    bool has_zone = memchr(t + 1, '+', seg) || memchr(t + 1, '-', seg) || memchr(t + 1, 'Z', seg);
    if (ok) ok = has_zone ? zone(p, &off) : (*p == 0 && (off = 0, true));
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (ok)
        ok = y >= 1 && y <= 292278994 && mo >= 1 && mo <= 12 && d >= 1 && d <= mdays[mo - 1] + (mo == 2 && leap(y)) &&
             h <= 23 && mi <= 59 && sec <= 59 && milli <= 999;
    if (!ok) {
        snprintf(err, err_size, "Unparseable date: \"%s%s\"", s, has_zone ? "" : "Z");
        return false;
    }
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
    *ms = secs * 1000 + milli;
    return true;
}

/* ---- CSV ---- */

/* Split one line into at most max fields (quotes as RFC 4180); the fields are written
 * NUL-terminated into out (the line is copied there). Returns the count, or -1. */
static int csv_split(const char *line, size_t len, char *out, char **fields, int max) {
    int n = 0;
    size_t i = 0, o = 0;
    for (;;) {
        if (n == max) return -1;
        fields[n++] = out + o;
        if (i < len && line[i] == '"') {
            for (i++;; i++) {
                if (i >= len) return -1;
                if (line[i] == '"') {
                    if (i + 1 < len && line[i + 1] == '"') {
                        out[o++] = '"', i++;
                        continue;
                    }
                    i++;
                    break;
                }
                out[o++] = line[i];
            }
            if (i < len && line[i] != ',') return -1;
        } else {
            while (i < len && line[i] != ',') out[o++] = line[i++];
        }
        out[o++] = 0;
        if (i >= len) return n;
        i++; /* the comma */
    }
}

void cg_entries_free(cg_entry_t *v, size_t n) {
    for (size_t i = 0; v && i < n; i++) free(v[i].group), free(v[i].topic);
    free(v);
}

static char *xstrdup(const char *s) {
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

/* One line into e; false with the reason in err. */
static bool plan_line(const char *line, size_t len, int want, size_t lineno, cg_entry_t *e, char *err,
                      size_t err_size) {
    char *buf = malloc(len + 8), *f[5];
    if (!buf) abort();
    int nf = csv_split(line, len, buf, f, 5);
    int64_t p, off;
    bool ok = nf == want;
    if (!ok)
        snprintf(err, err_size, "line %zu: expected %d fields (%s), found %d", lineno, want,
                 want == 3 ? "topic,partition,offset" : "group,topic,partition,offset", nf < 0 ? 0 : nf);
    else if (!java_int(f[want - 2], strlen(f[want - 2]), INT32_MIN, INT32_MAX, &p) ||
             !java_int(f[want - 1], strlen(f[want - 1]), INT64_MIN + 1, INT64_MAX, &off))
        ok = false, snprintf(err, err_size, "line %zu: partition and offset must be numbers", lineno);
    if (ok) {
        e->group = want == 4 ? xstrdup(f[0]) : NULL;
        e->topic = xstrdup(f[want - 3]);
        e->partition = (int32_t)p;
        e->offset = off;
    }
    free(buf);
    return ok;
}

bool cg_parse_plan(const char *text, size_t len, bool single_group, size_t max_entries, cg_entry_t **out, size_t *n,
                   char *err, size_t err_size) {
    *out = NULL;
    *n = 0;
    int want = 0;
    cg_entry_t *v = NULL;
    size_t cap = 0, lineno = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        size_t l = e - i;
        lineno++;
        if (l && text[i + l - 1] == '\r') l--;
        if (l) {
            if (!want) { /* the form is decided by the first line, as Kafka's tool does */
                char *tmp = malloc(l + 8), *f[5];
                if (!tmp) abort();
                int nf = csv_split(text + i, l, tmp, f, 5);
                free(tmp);
                want = single_group && nf == 3 ? 3 : 4;
            }
            if (*n == max_entries) {
                snprintf(err, err_size, "line %zu: more than %zu entries", lineno, max_entries);
                cg_entries_free(v, *n);
                return false;
            }
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                v = realloc(v, cap * sizeof(*v));
                if (!v) abort();
            }
            if (!plan_line(text + i, l, want, lineno, &v[*n], err, err_size)) {
                cg_entries_free(v, *n);
                *n = 0;
                return false;
            }
            (*n)++;
        }
        i = e + 1;
    }
    *out = v;
    return true;
}

void cg_csv_field(char *buf, size_t size, size_t *len, const char *field) {
    size_t fl = strlen(field);
    bool quote = strpbrk(field, ",\"\r\n") != NULL || (fl && (field[0] == ' ' || field[fl - 1] == ' '));
    if (quote && *len + 1 < size) buf[(*len)++] = '"';
    for (const char *p = field; *p && *len + 2 < size; p++) {
        if (*p == '"' && quote) buf[(*len)++] = '"';
        buf[(*len)++] = *p;
    }
    if (quote && *len + 1 < size) buf[(*len)++] = '"';
    buf[*len < size ? *len : size - 1] = 0;
}

/* ---- Java hash codes and HashMap order ---- */

int32_t cg_java_string_hash(const char *s) { return cli_java_string_hash(s); }

int32_t cg_java_tp_hash(const char *topic, int32_t partition) {
    uint32_t r = 31u * 1u + (uint32_t)partition;
    r = 31u * r + (uint32_t)cg_java_string_hash(topic);
    return (int32_t)r;
}

void cg_java_hash_order(const int32_t *hash, size_t n, size_t *idx) {
    (void)cli_java_hashmap_order(hash, n, 0, idx); /* out of memory: index order */
}
