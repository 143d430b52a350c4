/* Histogram and Prometheus text-format writer (see metrics.h). */
#include "base/metrics.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Ten steps per decade from 100 µs to 1000 s. */
const double gr_hist_bounds_s[GR_HIST_BOUNDS] = {
    1e-4, 1.25e-4, 1.5e-4, 2e-4, 2.5e-4, 3e-4, 4e-4,    5e-4,   6e-4, 8e-4,   1e-3, 1.25e-3, 1.5e-3, 2e-3, 2.5e-3,
    3e-3, 4e-3,    5e-3,   6e-3, 8e-3,   1e-2, 1.25e-2, 1.5e-2, 2e-2, 2.5e-2, 3e-2, 4e-2,    5e-2,   6e-2, 8e-2,
    0.1,  0.125,   0.15,   0.2,  0.25,   0.3,  0.4,     0.5,    0.6,  0.8,    1,    1.25,    1.5,    2,    2.5,
    3,    4,       5,      6,    8,      10,   12.5,    15,     20,   25,     30,   40,      50,     60,   80,
    100,  125,     150,    200,  250,    300,  400,     500,    600,  800,    1000,
};

/* The bounds in microseconds, for integer comparisons on the hot path. */
static const int64_t g_bounds_us[GR_HIST_BOUNDS] = {
    100,       125,       150,       200,       250,       300,       400,       500,        600,
    800,       1000,      1250,      1500,      2000,      2500,      3000,      4000,       5000,
    6000,      8000,      10000,     12500,     15000,     20000,     25000,     30000,      40000,
    50000,     60000,     80000,     100000,    125000,    150000,    200000,    250000,     300000,
    400000,    500000,    600000,    800000,    1000000,   1250000,   1500000,   2000000,    2500000,
    3000000,   4000000,   5000000,   6000000,   8000000,   10000000,  12500000,  15000000,   20000000,
    25000000,  30000000,  40000000,  50000000,  60000000,  80000000,  100000000, 125000000,  150000000,
    200000000, 250000000, 300000000, 400000000, 500000000, 600000000, 800000000, 1000000000,
};

bool gr_hist_exported(size_t i) {
    /* the 1, 2.5 and 5 steps of each decade, and the last bound (1000 s) */
    size_t step = i % 10;
    return i + 1 == GR_HIST_BOUNDS || step == 0 || step == 4 || step == 7;
}

static size_t bucket_of(int64_t us) {
    size_t lo = 0, hi = GR_HIST_BOUNDS; /* first bound >= us; GR_HIST_BOUNDS = +Inf */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_bounds_us[mid] >= us)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void gr_hist_observe(gr_hist_t *h, int64_t us) { gr_hist_observe_n(h, us, 1); }

void gr_hist_observe_n(gr_hist_t *h, int64_t us, uint64_t n) {
    if (us < 0) us = 0;
    h->bucket[bucket_of(us)] += n;
    h->count += n;
    h->sum_us += n * (uint64_t)us;
}

void gr_hist_observe_atomic(gr_hist_t *h, int64_t us) {
    if (us < 0) us = 0;
    __atomic_fetch_add(&h->bucket[bucket_of(us)], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&h->sum_us, (uint64_t)us, __ATOMIC_RELAXED);
    __atomic_fetch_add(&h->count, 1, __ATOMIC_RELEASE);
}

void gr_hist_load(const gr_hist_t *h, gr_hist_t *out) {
    /* count first: a reader never sees more observations than buckets hold */
    out->count = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
    out->sum_us = __atomic_load_n(&h->sum_us, __ATOMIC_RELAXED);
    uint64_t total = 0;
    for (size_t i = 0; i <= GR_HIST_BOUNDS; i++) {
        out->bucket[i] = __atomic_load_n(&h->bucket[i], __ATOMIC_RELAXED);
        total += out->bucket[i];
    }
    if (total > out->count) out->count = total; /* observations landed while we read */
}

void gr_hist_sub(gr_hist_t *out, const gr_hist_t *a, const gr_hist_t *b) {
    for (size_t i = 0; i <= GR_HIST_BOUNDS; i++)
        out->bucket[i] = a->bucket[i] >= b->bucket[i] ? a->bucket[i] - b->bucket[i] : 0;
    out->count = a->count >= b->count ? a->count - b->count : 0;
    out->sum_us = a->sum_us >= b->sum_us ? a->sum_us - b->sum_us : 0;
}

double gr_hist_quantile(const gr_hist_t *h, double q) {
    uint64_t total = 0;
    for (size_t i = 0; i <= GR_HIST_BOUNDS; i++) total += h->bucket[i];
    if (!total) return -1;
    if (q < 0) q = 0;
    if (q > 1) q = 1;
    double rank = q * (double)total, seen = 0;
    for (size_t i = 0; i < GR_HIST_BOUNDS; i++) {
        double n = (double)h->bucket[i];
        if (n > 0 && seen + n >= rank) {
            double lo = i ? gr_hist_bounds_s[i - 1] : 0, hi = gr_hist_bounds_s[i];
            return lo + (hi - lo) * ((rank - seen) / n);
        }
        seen += n;
    }
    return gr_hist_bounds_s[GR_HIST_BOUNDS - 1];
}

/* ---------------------------------------------------------------- labels */

void gr_prom_labels_init(gr_prom_labels_t *l) {
    l->n = 0;
    l->s[0] = 0;
    l->truncated = false;
}

static bool labels_put(gr_prom_labels_t *l, const char *p, size_t n) {
    if (l->n + n >= sizeof(l->s)) return false;
    memcpy(l->s + l->n, p, n);
    l->n += n;
    l->s[l->n] = 0;
    return true;
}

void gr_prom_label(gr_prom_labels_t *l, const char *key, const char *value) {
    size_t mark = l->n;
    /* room for the closing quote is kept back while the value is copied */
    if ((l->n && !labels_put(l, ",", 1)) || !labels_put(l, key, strlen(key)) || !labels_put(l, "=\"", 2)) {
        l->n = mark;
        l->s[mark] = 0;
        l->truncated = true;
        return;
    }
    for (const unsigned char *v = (const unsigned char *)value; *v; v++) {
        char esc[2] = {'\\', 0};
        const char *src = (const char *)v;
        size_t n = 1;
        if (*v == '\\' || *v == '"' || *v == '\n') {
            esc[1] = *v == '\n' ? 'n' : (char)*v;
            src = esc;
            n = 2;
        }
        if (l->n + n + 2 > sizeof(l->s)) {                                                /* keep `"` and the NUL */
            while (l->n > mark && ((unsigned char)l->s[l->n - 1] & 0xC0) == 0x80) l->n--; /* continuation */
            if (l->n > mark && ((unsigned char)l->s[l->n - 1] & 0xC0) == 0xC0) l->n--;    /* dangling lead */
            l->truncated = true;
            break;
        }
        memcpy(l->s + l->n, src, n);
        l->n += n;
    }
    l->s[l->n++] = '"';
    l->s[l->n] = 0;
}

void gr_prom_label_i64(gr_prom_labels_t *l, const char *key, int64_t value) {
    char num[24];
    snprintf(num, sizeof(num), "%" PRId64, value);
    gr_prom_label(l, key, num);
}

/* ---------------------------------------------------------------- writer */

void gr_prom_init(gr_prom_t *p, gr_wbuf_t *out) { p->out = out; }

static void put_str(gr_prom_t *p, const char *s) { gr_wbuf_put(p->out, s, strlen(s)); }

void gr_prom_family(gr_prom_t *p, const char *name, gr_prom_type_t type, const char *help) {
    static const char *const types[] = {"counter", "gauge", "histogram"};
    put_str(p, "# HELP ");
    put_str(p, name);
    gr_wbuf_put(p->out, " ", 1);
    for (const char *c = help; *c; c++) {
        if (*c == '\\')
            put_str(p, "\\\\");
        else if (*c == '\n')
            put_str(p, "\\n");
        else
            gr_wbuf_put(p->out, c, 1);
    }
    put_str(p, "\n# TYPE ");
    put_str(p, name);
    gr_wbuf_put(p->out, " ", 1);
    put_str(p, types[type]);
    gr_wbuf_put(p->out, "\n", 1);
}

static void sample_head(gr_prom_t *p, const char *name, const char *suffix, const gr_prom_labels_t *labels,
                        const char *extra) {
    put_str(p, name);
    if (suffix) put_str(p, suffix);
    bool have = labels && labels->n;
    if (have || extra) {
        gr_wbuf_put(p->out, "{", 1);
        if (have) gr_wbuf_put(p->out, labels->s, labels->n);
        if (have && extra) gr_wbuf_put(p->out, ",", 1);
        if (extra) put_str(p, extra);
        gr_wbuf_put(p->out, "}", 1);
    }
    gr_wbuf_put(p->out, " ", 1);
}

static void put_num(gr_prom_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_num(gr_prom_t *p, const char *fmt, ...) {
    char num[48];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(num, sizeof(num), fmt, ap);
    va_end(ap);
    gr_wbuf_put(p->out, num, n > 0 && (size_t)n < sizeof(num) ? (size_t)n : 0);
    gr_wbuf_put(p->out, "\n", 1);
}

void gr_prom_u64(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, uint64_t v) {
    sample_head(p, name, NULL, labels, NULL);
    put_num(p, "%" PRIu64, v);
}

void gr_prom_i64(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, int64_t v) {
    sample_head(p, name, NULL, labels, NULL);
    put_num(p, "%" PRId64, v);
}

void gr_prom_f64(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, double v) {
    sample_head(p, name, NULL, labels, NULL);
    if (isnan(v))
        put_num(p, "NaN");
    else if (isinf(v))
        put_num(p, v > 0 ? "+Inf" : "-Inf");
    else
        put_num(p, "%.17g", v);
}

void gr_prom_hist(gr_prom_t *p, const char *name, const gr_prom_labels_t *labels, const gr_hist_t *h) {
    uint64_t cum = 0;
    char le[32];
    for (size_t i = 0; i <= GR_HIST_BOUNDS; i++) {
        cum += h->bucket[i];
        if (i < GR_HIST_BOUNDS && !gr_hist_exported(i)) continue;
        if (i < GR_HIST_BOUNDS)
            snprintf(le, sizeof(le), "le=\"%g\"", gr_hist_bounds_s[i]);
        else
            snprintf(le, sizeof(le), "le=\"+Inf\"");
        sample_head(p, name, "_bucket", labels, le);
        put_num(p, "%" PRIu64, cum);
    }
    sample_head(p, name, "_sum", labels, NULL);
    put_num(p, "%.6f", (double)h->sum_us / 1e6);
    sample_head(p, name, "_count", labels, NULL);
    put_num(p, "%" PRIu64, cum); /* equal to the +Inf bucket, as the format requires */
}
