/* Histogram and Prometheus writer (src/base/metrics.c). */
#include "base/metrics.h"

#include <math.h>
#include <string.h>

#include "testutil.h"

static char *text(gr_wbuf_t *wb) {
    gr_wbuf_put(wb, "", 1);
    return (char *)wb->mem;
}

static void test_hist_buckets(void) {
    gr_hist_t h;
    memset(&h, 0, sizeof(h));
    gr_hist_observe(&h, -5);         /* counts as 0 */
    gr_hist_observe(&h, 100);        /* le 0.0001: bound inclusive */
    gr_hist_observe(&h, 101);        /* le 0.00025 */
    gr_hist_observe(&h, 2000000000); /* above 1000 s */
    ASSERT_EQ(h.bucket[0], 2);
    ASSERT_EQ(h.bucket[1], 1);
    ASSERT_EQ(h.bucket[GR_HIST_BOUNDS], 1);
    ASSERT_EQ(h.count, 4);
    ASSERT_EQ(h.sum_us, 2000000201);
    gr_hist_t a;
    gr_hist_load(&h, &a);
    ASSERT_EQ(a.count, 4);
    gr_hist_observe_atomic(&h, 1000000); /* le 1 */
    gr_hist_t d;
    gr_hist_sub(&d, &h, &a);
    ASSERT_EQ(d.count, 1);
    ASSERT_EQ(d.bucket[40], 1); /* le 1 */
    ASSERT_EQ(d.sum_us, 1000000);
}

static void test_hist_quantile(void) {
    gr_hist_t h;
    memset(&h, 0, sizeof(h));
    ASSERT(gr_hist_quantile(&h, 0.5) < 0);
    /* 100 observations of 0.75 s: all in (0.6, 0.8] */
    for (int i = 0; i < 100; i++) gr_hist_observe(&h, 750000);
    double p50 = gr_hist_quantile(&h, 0.5);
    ASSERT(fabs(p50 - 0.7) < 1e-9); /* interpolated halfway through (0.6, 0.8] */
    double p99 = gr_hist_quantile(&h, 0.99);
    ASSERT(p99 > 0.79 && p99 <= 0.8);
    gr_hist_t big;
    memset(&big, 0, sizeof(big));
    gr_hist_observe(&big, 5000000000LL);
    ASSERT(gr_hist_quantile(&big, 0.5) == 1000);
}

static void test_labels(void) {
    gr_prom_labels_t l;
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "group", "a\"b\\c\nd");
    gr_prom_label_i64(&l, "partition", -3);
    ASSERT_STREQ(l.s, "group=\"a\\\"b\\\\c\\nd\",partition=\"-3\"");
    ASSERT(!l.truncated);
    /* an over-long value is cut at a UTF-8 boundary and stays quoted */
    char big[2000];
    for (size_t i = 0; i + 2 < sizeof(big); i += 2) {
        big[i] = (char)0xC3;
        big[i + 1] = (char)0xA9; /* é */
    }
    big[sizeof(big) - 2] = 0;
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "topic", big);
    ASSERT(l.truncated);
    ASSERT(l.n < sizeof(l.s));
    ASSERT_EQ(l.s[l.n - 1], '"');
    ASSERT_EQ((unsigned char)l.s[l.n - 2], 0xA9); /* whole characters only */
    ASSERT_EQ(strlen(l.s), l.n);
}

static void test_writer(void) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_prom_t p;
    gr_prom_init(&p, &wb);
    gr_prom_labels_t l;
    gr_prom_labels_init(&l);
    gr_prom_label(&l, "api", "Produce");
    gr_prom_family(&p, "x_total", GR_PROM_COUNTER, "Things\\done.");
    gr_prom_u64(&p, "x_total", &l, 7);
    gr_prom_family(&p, "g", GR_PROM_GAUGE, "A gauge.");
    gr_prom_i64(&p, "g", NULL, -2);
    gr_prom_f64(&p, "g", NULL, NAN);
    gr_prom_f64(&p, "g", NULL, 0.5);
    ASSERT_STREQ(text(&wb), "# HELP x_total Things\\\\done.\n# TYPE x_total counter\nx_total{api=\"Produce\"} 7\n"
                            "# HELP g A gauge.\n# TYPE g gauge\ng -2\ng NaN\ng 0.5\n");
    gr_wbuf_reset(&wb);
    gr_hist_t h;
    memset(&h, 0, sizeof(h));
    gr_hist_observe(&h, 300);
    gr_hist_observe(&h, 2000000000);
    gr_prom_hist(&p, "lat_seconds", &l, &h);
    char *t = text(&wb);
    ASSERT(strstr(t, "lat_seconds_bucket{api=\"Produce\",le=\"0.0001\"} 0\n"));
    ASSERT(strstr(t, "lat_seconds_bucket{api=\"Produce\",le=\"0.0005\"} 1\n"));
    ASSERT(strstr(t, "lat_seconds_bucket{api=\"Produce\",le=\"1000\"} 1\n"));
    /* only the 1-2.5-5 bounds are exported: 22 and +Inf */
    ASSERT(!strstr(t, "le=\"0.0003\""));
    size_t n_buckets = 0;
    for (const char *q = t; (q = strstr(q, "_bucket{")); q++) n_buckets++;
    ASSERT_EQ(n_buckets, 23);
    ASSERT(strstr(t, "lat_seconds_bucket{api=\"Produce\",le=\"+Inf\"} 2\n"));
    ASSERT(strstr(t, "lat_seconds_sum{api=\"Produce\"} 2000.000300\n"));
    ASSERT(strstr(t, "lat_seconds_count{api=\"Produce\"} 2\n"));
    gr_wbuf_free(&wb);
}

int main(void) {
    test_hist_buckets();
    test_hist_quantile();
    test_labels();
    test_writer();
    return 0;
}
