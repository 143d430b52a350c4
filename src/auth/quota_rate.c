/* Kafka's windowed Rate (a SampledStat of quota.window.num samples, each
 * quota.window.size.seconds long) and its quota throttle time (QuotaUtils.throttleTime). */
#include <math.h>
#include <string.h>

#include "auth/quota.h"

void gr_quota_rate_init(gr_quota_rate_t *r) { memset(r, 0, sizeof(*r)); }

static int samples_of(const gr_quota_window_t *w) {
    int n = w->n_samples;
    return n < 1 ? 1 : n > GR_QUOTA_MAX_SAMPLES ? GR_QUOTA_MAX_SAMPLES : n;
}

static void new_sample(gr_quota_rate_t *r, int i, int64_t now_ms) {
    r->start[i] = now_ms;
    r->value[i] = 0;
}

/* Samples older than all the windows together start over (value 0, starting now). */
static void purge(gr_quota_rate_t *r, const gr_quota_window_t *w, int64_t now_ms) {
    int64_t expire = (int64_t)samples_of(w) * w->window_ms;
    for (int i = 0; i < r->used; i++)
        if (now_ms - r->start[i] >= expire) new_sample(r, i, now_ms);
}

void gr_quota_rate_record(gr_quota_rate_t *r, const gr_quota_window_t *w, double value, int64_t now_ms) {
    if (r->used == 0) {
        new_sample(r, 0, now_ms);
        r->used = 1;
        r->current = 0;
    }
    if (now_ms - r->start[r->current] >= w->window_ms) { /* the current sample is complete: advance */
        r->current = (r->current + 1) % samples_of(w);
        if (r->current >= r->used) r->used = r->current + 1;
        new_sample(r, r->current, now_ms);
    }
    r->value[r->current] += value;
}

int64_t gr_quota_rate_window_ms(gr_quota_rate_t *r, const gr_quota_window_t *w, int64_t now_ms) {
    if (r->used == 0) {
        new_sample(r, 0, now_ms);
        r->used = 1;
        r->current = 0;
    }
    int64_t oldest = r->start[0];
    for (int i = 1; i < r->used; i++)
        if (r->start[i] < oldest) oldest = r->start[i];
    int64_t elapsed = now_ms - oldest;
    int64_t full = elapsed / w->window_ms, min_full = samples_of(w) - 1;
    if (full < min_full) elapsed += (min_full - full) * w->window_ms;
    return elapsed < 1 ? 1 : elapsed;
}

double gr_quota_rate_measure(gr_quota_rate_t *r, const gr_quota_window_t *w, int64_t now_ms) {
    purge(r, w, now_ms);
    double total = 0;
    for (int i = 0; i < r->used; i++) total += r->value[i];
    return total / ((double)gr_quota_rate_window_ms(r, w, now_ms) / 1000.0);
}

int64_t gr_quota_record_throttle(gr_quota_rate_t *r, const gr_quota_window_t *w, double value, double limit,
                                 int64_t max_ms, int64_t now_ms) {
    gr_quota_rate_record(r, w, value, now_ms);
    double rate = gr_quota_rate_measure(r, w, now_ms);
    if (rate <= limit || limit <= 0) return 0;
    double t = round((rate - limit) / limit * (double)gr_quota_rate_window_ms(r, w, now_ms));
    if (t > 9.0e15) t = 9.0e15;
    int64_t ms = (int64_t)t;
    return max_ms > 0 && ms > max_ms ? max_ms : ms;
}
