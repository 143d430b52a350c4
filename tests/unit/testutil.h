/* Minimal typed asserts for unit tests (libuv's test/task.h style).
 * A failed assert prints file:line and the values, then aborts. */
#ifndef GR_TESTUTIL_H
#define GR_TESTUTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GR__FAIL(...)                                                     \
    do {                                                                  \
        fprintf(stderr, "%s:%d: assertion failed: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                     \
        fprintf(stderr, "\n");                                            \
        abort();                                                          \
    } while (0)

#define ASSERT(c)                     \
    do {                              \
        if (!(c)) GR__FAIL("%s", #c); \
    } while (0)
#define ASSERT_EQ(a, b)                                                    \
    do {                                                                   \
        long long _a = (long long)(a), _b = (long long)(b);                \
        if (_a != _b) GR__FAIL("%s == %s (%lld vs %lld)", #a, #b, _a, _b); \
    } while (0)
#define ASSERT_NE(a, b)                                             \
    do {                                                            \
        long long _a = (long long)(a), _b = (long long)(b);         \
        if (_a == _b) GR__FAIL("%s != %s (both %lld)", #a, #b, _a); \
    } while (0)
#define ASSERT_STREQ(a, b)                                                           \
    do {                                                                             \
        const char *_a = (a), *_b = (b);                                             \
        if (strcmp(_a, _b)) GR__FAIL("%s == %s (\"%s\" vs \"%s\")", #a, #b, _a, _b); \
    } while (0)
#define ASSERT_MEMEQ(a, b, n)                                                            \
    do {                                                                                 \
        if (memcmp((a), (b), (n))) GR__FAIL("memcmp(%s, %s, %zu)", #a, #b, (size_t)(n)); \
    } while (0)

/* Run one test function, printing its name. */
#define RUN_TEST(fn)                     \
    do {                                 \
        fprintf(stderr, "-- %s\n", #fn); \
        fn();                            \
    } while (0)

#endif
