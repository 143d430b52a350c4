/* Monotonic time for the open-loop bench tools (gregor_latency, gregor_hold). */
#ifndef GR_BENCH_CLOCK_H
#define GR_BENCH_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleep until monotonic time t (ns); a signal does not cut the sleep short. */
static inline void sleep_until(int64_t t) {
    struct timespec ts = {t / 1000000000, t % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

#endif
