/* Logging: one line per event to stderr, with level and subsystem.
 * Thread-safe (one write(2) per line). */
#ifndef GR_BASE_LOG_H
#define GR_BASE_LOG_H

typedef enum gr_log_level { GR_LOG_DEBUG, GR_LOG_INFO, GR_LOG_WARN, GR_LOG_ERROR } gr_log_level_t;

/** Messages below this level are dropped (default INFO; GREGOR_LOG=debug overrides). */
void gr_log_set_level(gr_log_level_t lvl);
gr_log_level_t gr_log_get_level(void);
void gr_log(gr_log_level_t lvl, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define GR_DEBUG(sub, ...) do { if (gr_log_get_level() <= GR_LOG_DEBUG) gr_log(GR_LOG_DEBUG, sub, __VA_ARGS__); } while (0)
#define GR_INFO(sub, ...) gr_log(GR_LOG_INFO, sub, __VA_ARGS__)
#define GR_WARN(sub, ...) gr_log(GR_LOG_WARN, sub, __VA_ARGS__)
#define GR_ERROR(sub, ...) gr_log(GR_LOG_ERROR, sub, __VA_ARGS__)

#endif
