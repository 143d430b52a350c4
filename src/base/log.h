/* Logging: one line per event to stderr, with level and subsystem.
 * Thread-safe (one write(2) per line).
 *
 * Every message is escaped before it is written (gr_log_escape): client-supplied strings
 * (client.id, group and member ids, topic names) are printed with %s at the call sites and
 * cannot break a line, forge a second one or send terminal escapes. */
#ifndef GR_BASE_LOG_H
#define GR_BASE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gr_log_level { GR_LOG_DEBUG, GR_LOG_INFO, GR_LOG_WARN, GR_LOG_ERROR } gr_log_level_t;

/** Messages below this level are dropped (default INFO; gregord sets it from GREGOR_LOG or log.level). */
void gr_log_set_level(gr_log_level_t lvl);
gr_log_level_t gr_log_get_level(void);
/** "error", "warn", "info" or "debug" (case-insensitive) -> *out; -1 for anything else. */
int gr_log_level_parse(const char *s, gr_log_level_t *out);
void gr_log(gr_log_level_t lvl, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** Copy n bytes of src into dst (NUL-terminated, at most dst_size - 1 bytes) with every byte that
 *  is not printable as \xNN: control bytes (< 0x20, 0x7f), C1 controls (U+0080..U+009F) and bytes
 *  that are not part of valid UTF-8. A backslash stays a backslash; valid UTF-8 text passes
 *  unchanged. Never splits an escape or a UTF-8 sequence. Returns the length written. */
size_t gr_log_escape(char *dst, size_t dst_size, const char *src, size_t n);

/* ---------------------------------------------------------------- rate limit */

/** A log line that a remote peer can cause (a failed handshake or authentication, a
 *  malformed frame) is written at most GR_LOG_LIMIT_BURST times per GR_LOG_LIMIT_WINDOW_MS
 *  per call site, so a client opening connections in a loop cannot flood the log; the next
 *  line written says how many were dropped (the burst is settable). One limiter per site (GR_LOG_LIMITED keeps it
 *  static): not thread-safe, use it on one thread. */
#define GR_LOG_LIMIT_BURST     30 /* default; gr_log_set_limit_burst (log.client.errors.max.per.10s) */
#define GR_LOG_LIMIT_WINDOW_MS 10000

/** Lines per window and site from now on; 0 lifts the limit. Set once at start-up. */
void gr_log_set_limit_burst(int burst);

typedef struct gr_log_limit {
    int64_t window_start_ms;
    uint32_t in_window;
    uint64_t suppressed;
} gr_log_limit_t;

/** True when a line may be written at now_ms; then *suppressed is the number of lines
 *  refused since the last one allowed (and the count restarts). */
bool gr_log_limit_allow(gr_log_limit_t *l, int64_t now_ms, uint64_t *suppressed);
/** A monotonic clock in milliseconds for the limiter. */
int64_t gr_log_now_ms(void);

#define GR_LOG_LIMITED(lvl, sub, fmt, ...)                                                                         \
    do {                                                                                                           \
        static gr_log_limit_t lim_;                                                                                \
        uint64_t sup_;                                                                                             \
        if (gr_log_get_level() <= (lvl) && gr_log_limit_allow(&lim_, gr_log_now_ms(), &sup_)) {                    \
            if (sup_)                                                                                              \
                gr_log(lvl, sub, fmt " (%llu similar line(s) suppressed)", __VA_ARGS__, (unsigned long long)sup_); \
            else                                                                                                   \
                gr_log(lvl, sub, fmt, __VA_ARGS__);                                                                \
        }                                                                                                          \
    } while (0)

#define GR_DEBUG(sub, ...)                                                              \
    do {                                                                                \
        if (gr_log_get_level() <= GR_LOG_DEBUG) gr_log(GR_LOG_DEBUG, sub, __VA_ARGS__); \
    } while (0)
#define GR_INFO(sub, ...)  gr_log(GR_LOG_INFO, sub, __VA_ARGS__)
#define GR_WARN(sub, ...)  gr_log(GR_LOG_WARN, sub, __VA_ARGS__)
#define GR_ERROR(sub, ...) gr_log(GR_LOG_ERROR, sub, __VA_ARGS__)

#endif
