/* ISO-8601 durations as java.time.Duration.parse reads them (JDK 17, which runs
 * Kafka 4.4.0): `[+-]P[nD][T[nH][nM][n[.f]S]]`, letters in either case, a sign
 * allowed on each number, 0-9 fraction digits after '.' or ',' on seconds only.
 * Kafka's share.auto.offset.reset "by_duration:" values are read this way. */
#ifndef GR_BASE_DURATION_H
#define GR_BASE_DURATION_H

#include <stdbool.h>
#include <stdint.h>

/** A java.time.Duration: seconds (any sign) plus nanos in [0, 999999999]. */
typedef struct gr_duration {
    int64_t seconds;
    int32_t nanos;
} gr_duration_t;

/** Parse the whole NUL-terminated string s. Returns false exactly where Java throws
 *  DateTimeParseException: bad syntax, "P"/"PT" without a number, a number outside
 *  a long, a component or sum whose seconds overflow a long (checked in Java's
 *  order), or a negation that does not fit. *out is set only on success. Pure. */
bool gr_duration_parse(const char *s, gr_duration_t *out);

/** Duration.isNegative(): below zero (nanos never make a duration negative). */
static inline bool gr_duration_is_negative(gr_duration_t d) { return d.seconds < 0; }

/** Milliseconds, truncated toward zero as Duration.toMillis, but saturated at the
 *  int64 bounds where Java would throw. */
int64_t gr_duration_to_ms(gr_duration_t d);

#endif
