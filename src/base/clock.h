/* Clock readings. Only the event loop (and client poll loops) read the real
 * clock; everything else gets `now` passed in. */
#ifndef GR_BASE_CLOCK_H
#define GR_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

/** Monotonic milliseconds (for timers and timeouts). */
static inline int64_t gr_clock_mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
/** Wall-clock milliseconds since the epoch (for record timestamps). */
static inline int64_t gr_clock_wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
