/* Logging: one line per event to stderr, with level and subsystem.
 * Thread-safe (one write(2) per line).
 *
 * Every message is escaped before it is written (gr_log_escape): client-supplied strings
 * (client.id, group and member ids, topic names) are printed with %s at the call sites and
 * cannot break a line, forge a second one or send terminal escapes. */
#ifndef GR_BASE_LOG_H
#define GR_BASE_LOG_H

#include <stddef.h>

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

#define GR_DEBUG(sub, ...)                                                              \
    do {                                                                                \
        if (gr_log_get_level() <= GR_LOG_DEBUG) gr_log(GR_LOG_DEBUG, sub, __VA_ARGS__); \
    } while (0)
#define GR_INFO(sub, ...)  gr_log(GR_LOG_INFO, sub, __VA_ARGS__)
#define GR_WARN(sub, ...)  gr_log(GR_LOG_WARN, sub, __VA_ARGS__)
#define GR_ERROR(sub, ...) gr_log(GR_LOG_ERROR, sub, __VA_ARGS__)

#endif
