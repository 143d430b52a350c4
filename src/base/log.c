#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static gr_log_level_t g_level = GR_LOG_INFO; /* process-wide setting, written once at start-up */

void gr_log_set_level(gr_log_level_t lvl) { g_level = lvl; }
gr_log_level_t gr_log_get_level(void) { return g_level; }

int gr_log_level_parse(const char *s, gr_log_level_t *out) {
    static const char *names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++)
        if (s && !strcasecmp(s, names[i])) {
            *out = (gr_log_level_t)i;
            return 0;
        }
    return -1;
}

/* Length of the valid, printable UTF-8 sequence at s (n bytes left), 0 if the lead byte
 * must be escaped. Overlongs, surrogates and C1 controls are rejected. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0xa0; /* U+0080..U+009F are C1 controls */
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (len > n) return 0;
    unsigned cp = c & (0x3f >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

size_t gr_log_escape(char *dst, size_t dst_size, const char *src, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0;
    if (!dst_size) return 0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c >= 0x20 && c < 0x7f ? 1 : c >= 0x80 ? utf8_len(s + i, n - i) : 0;
        if (len) {
            if (o + len >= dst_size) break;
            memcpy(dst + o, s + i, len);
            o += len, i += len;
        } else {
            if (o + 4 >= dst_size) break;
            dst[o++] = '\\', dst[o++] = 'x', dst[o++] = hex[c >> 4], dst[o++] = hex[c & 15];
            i++;
        }
    }
    dst[o] = '\0';
    return o;
}

void gr_log(gr_log_level_t lvl, const char *subsys, const char *fmt, ...) {
    static const char *names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if (lvl < g_level) return;
    char msg[2048], line[4096];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    int n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s [%s] ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)(tv.tv_usec / 1000), names[lvl],
                     subsys);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t mlen = m < 0 ? 0 : (size_t)m < sizeof(msg) ? (size_t)m : sizeof(msg) - 1;
    /* The whole message is escaped, so no caller can forget it for a client string. */
    size_t len = (size_t)n + gr_log_escape(line + n, sizeof(line) - (size_t)n - 1, msg, mlen);
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

static int g_limit_burst = GR_LOG_LIMIT_BURST;

void gr_log_set_limit_burst(int burst) { g_limit_burst = burst < 0 ? 0 : burst; }

bool gr_log_limit_allow(gr_log_limit_t *l, int64_t now_ms, uint64_t *suppressed) {
    if (g_limit_burst == 0) {
        *suppressed = l->suppressed;
        l->suppressed = 0;
        return true;
    }
    if (l->in_window == 0 || now_ms - l->window_start_ms >= GR_LOG_LIMIT_WINDOW_MS || now_ms < l->window_start_ms) {
        l->window_start_ms = now_ms;
        l->in_window = 0;
    }
    if (l->in_window >= (uint32_t)g_limit_burst) {
        l->suppressed++;
        return false;
    }
    l->in_window++;
    *suppressed = l->suppressed;
    l->suppressed = 0;
    return true;
}

int64_t gr_log_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
