/* base/log: gr_log_escape (client strings cannot break or forge a log line), the level
 * names, and gr_log writing one escaped line per call (stderr captured through a pipe). */
#include <fcntl.h>
#include <unistd.h>

#include "base/log.h"
#include "testutil.h"

static const char *esc(const char *s, size_t n) {
    static char out[256];
    gr_log_escape(out, sizeof(out), s, n);
    return out;
}
#define ESC(lit) esc(lit, sizeof(lit) - 1)

static void test_escape(void) {
    ASSERT_STREQ(ESC("plain-client.id_1"), "plain-client.id_1");
    ASSERT_STREQ(ESC("a\nb"), "a\\x0ab");
    ASSERT_STREQ(ESC("\r\t\x1b[31mred"), "\\x0d\\x09\\x1b[31mred");
    ASSERT_STREQ(ESC("del\x7f"), "del\\x7f");
    ASSERT_STREQ(ESC("nul\0x"), "nul\\x00x");
    /* valid UTF-8 passes, C1 controls, stray continuation bytes, overlongs, surrogates do not */
    ASSERT_STREQ(ESC("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"),
                 "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
    ASSERT_STREQ(ESC("\xc2\x85"), "\\xc2\\x85");
    ASSERT_STREQ(ESC("\x80x"), "\\x80x");
    ASSERT_STREQ(ESC("\xc0\xaf"), "\\xc0\\xaf");
    ASSERT_STREQ(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");
    ASSERT_STREQ(ESC("\xe2\x82"), "\\xe2\\x82"); /* truncated sequence */
    ASSERT_STREQ(ESC("\xff"), "\\xff");
    ASSERT_STREQ(ESC("back\\slash"), "back\\slash");
}

static void test_escape_bounds(void) {
    char out[8];
    /* never a partial escape or a partial UTF-8 sequence, always NUL-terminated */
    ASSERT_EQ(gr_log_escape(out, sizeof(out), "abc\n\n", 5), 7);
    ASSERT_STREQ(out, "abc\\x0a");
    ASSERT_EQ(gr_log_escape(out, 5, "ab\xe2\x82\xac", 5), 2);
    ASSERT_STREQ(out, "ab");
    ASSERT_EQ(gr_log_escape(out, 1, "abc", 3), 0);
    ASSERT_STREQ(out, "");
}

static void test_levels(void) {
    gr_log_level_t l;
    ASSERT_EQ(gr_log_level_parse("debug", &l), 0);
    ASSERT_EQ(l, GR_LOG_DEBUG);
    ASSERT_EQ(gr_log_level_parse("WARN", &l), 0);
    ASSERT_EQ(l, GR_LOG_WARN);
    ASSERT_EQ(gr_log_level_parse("error", &l), 0);
    ASSERT_EQ(l, GR_LOG_ERROR);
    ASSERT_EQ(gr_log_level_parse("info", &l), 0);
    ASSERT_EQ(l, GR_LOG_INFO);
    ASSERT_EQ(gr_log_level_parse("verbose", &l), -1);
    ASSERT_EQ(gr_log_level_parse("", &l), -1);
    ASSERT_EQ(gr_log_level_parse(NULL, &l), -1);
}

/* gr_log itself: one line per call, the client string escaped, levels below the setting dropped. */
static void test_log_line(void) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    int saved = dup(STDERR_FILENO);
    ASSERT(saved >= 0);
    ASSERT(dup2(p[1], STDERR_FILENO) >= 0);
    gr_log_set_level(GR_LOG_INFO);
    GR_INFO("test", "client %s connected", "evil\n2026-01-01T00:00:00.000Z ERROR [fake] forged");
    GR_DEBUG("test", "dropped %d", 1);
    gr_log_set_level(GR_LOG_ERROR);
    GR_WARN("test", "dropped too");
    gr_log_set_level(GR_LOG_INFO);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(p[1]);
    char buf[4096];
    ssize_t n = read(p[0], buf, sizeof(buf) - 1);
    close(p[0]);
    ASSERT(n > 0);
    buf[n] = '\0';
    ASSERT(strstr(buf, "INFO  [test] client evil\\x0a2026-01-01T00:00:00.000Z ERROR [fake] forged connected\n"));
    ASSERT_EQ(strchr(buf, '\n') - buf, n - 1); /* exactly one line */
    ASSERT(!strstr(buf, "dropped"));
}

/* The limiter: a burst per window, then silence counted and reported on the next line allowed. */
static void test_limit(void) {
    gr_log_limit_t l = {0};
    uint64_t sup = 99;
    for (int i = 0; i < GR_LOG_LIMIT_BURST; i++) {
        ASSERT(gr_log_limit_allow(&l, 1000 + i, &sup));
        ASSERT_EQ(sup, 0);
    }
    for (int i = 0; i < 25; i++) ASSERT(!gr_log_limit_allow(&l, 2000 + i, &sup));
    ASSERT(!gr_log_limit_allow(&l, 1000 + GR_LOG_LIMIT_WINDOW_MS - 1, &sup)); /* still the same window */
    ASSERT(gr_log_limit_allow(&l, 1000 + GR_LOG_LIMIT_WINDOW_MS, &sup));
    ASSERT_EQ(sup, 26);
    ASSERT(gr_log_limit_allow(&l, 1000 + GR_LOG_LIMIT_WINDOW_MS + 1, &sup));
    ASSERT_EQ(sup, 0);
}

/* GR_LOG_LIMITED writes the burst, drops the rest of the window. */
static void test_limited_macro(void) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    int saved = dup(STDERR_FILENO);
    ASSERT(dup2(p[1], STDERR_FILENO) >= 0);
    for (int i = 0; i < 3 * GR_LOG_LIMIT_BURST; i++) GR_LOG_LIMITED(GR_LOG_INFO, "test", "hostile %d", i);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(p[1]);
    char buf[16384];
    ssize_t n = read(p[0], buf, sizeof(buf) - 1);
    close(p[0]);
    ASSERT(n > 0);
    buf[n] = '\0';
    int lines = 0;
    for (ssize_t i = 0; i < n; i++) lines += buf[i] == '\n';
    ASSERT_EQ(lines, GR_LOG_LIMIT_BURST);
    ASSERT(strstr(buf, "hostile 29\n") && !strstr(buf, "hostile 30"));
}

/* log.client.errors.max.per.10s=0: no limit. */
static void test_limit_off(void) {
    gr_log_limit_t l = {0};
    uint64_t sup;
    gr_log_set_limit_burst(0);
    for (int i = 0; i < 1000; i++) ASSERT(gr_log_limit_allow(&l, 5, &sup));
    gr_log_set_limit_burst(2);
    ASSERT(gr_log_limit_allow(&l, 5, &sup) && gr_log_limit_allow(&l, 5, &sup) && !gr_log_limit_allow(&l, 5, &sup));
    gr_log_set_limit_burst(GR_LOG_LIMIT_BURST);
}

int main(void) {
    RUN_TEST(test_escape);
    RUN_TEST(test_escape_bounds);
    RUN_TEST(test_levels);
    RUN_TEST(test_log_line);
    RUN_TEST(test_limit);
    RUN_TEST(test_limited_macro);
    RUN_TEST(test_limit_off);
    fprintf(stderr, "test_log: ok\n");
    return 0;
}
