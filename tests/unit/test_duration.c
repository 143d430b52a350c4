/* Unit tests for src/base/duration.c. Every expected answer below is what
 * java.time.Duration.parse answered on the JDK 17 that runs the Kafka 4.4.0
 * reference (seconds, nanos, toMillis; "false" where it threw), including the
 * overflow edges and the quirks (a lone lowercase 't', "-0.5" seconds). */
#include <stdbool.h>

#include "base/duration.h"
#include "testutil.h"

typedef struct {
    const char *text;
    bool ok;
    int64_t seconds;
    int32_t nanos;
    int64_t ms; /* Java throws past the int64 range; gr_duration_to_ms saturates */
} dcase_t;

static const dcase_t cases[] = {
    {"PT1.5S", true, 1, 500000000, 1500},
    {"P1D", true, 86400, 0, 86400000},
    {"-PT1S", true, -1, 0, -1000},
    {"PT-1S", true, -1, 0, -1000},
    {"pt1s", true, 1, 0, 1000},
    {"p1d", true, 86400, 0, 86400000},
    {"Pt1H", true, 3600, 0, 3600000},
    {"PT1,5S", true, 1, 500000000, 1500},
    {"PT0.123456789S", true, 0, 123456789, 123},
    {"PT0.1234567891S", false, 0, 0, 0},
    {"PT.5S", false, 0, 0, 0},
    {"PT1.S", true, 1, 0, 1000},
    {"PT-0.5S", true, -1, 500000000, -500},
    {"-PT-0.5S", true, 0, 500000000, 500},
    {"PT1H-30M", true, 1800, 0, 1800000},
    {"-PT-1M", true, 60, 0, 60000},
    {"P1DT-1H", true, 82800, 0, 82800000},
    {"P-1DT25H", true, 3600, 0, 3600000},
    {"PT", false, 0, 0, 0},
    {"P", false, 0, 0, 0},
    {"P1DT", false, 0, 0, 0},
    {"PT1D", false, 0, 0, 0},
    {"P1H", false, 0, 0, 0},
    {"PT1M1H", false, 0, 0, 0},
    {"PT1S1M", false, 0, 0, 0},
    {"P1W", false, 0, 0, 0},
    {"P1Y", false, 0, 0, 0},
    {"P1M", false, 0, 0, 0},
    {"PT0S", true, 0, 0, 0},
    {"+PT1S", true, 1, 0, 1000},
    {"P+1D", true, 86400, 0, 86400000},
    {"PT+1.5S", true, 1, 500000000, 1500},
    {"PT+-1S", false, 0, 0, 0},
    {"--PT1S", false, 0, 0, 0},
    {"PT1S ", false, 0, 0, 0},
    {" PT1S", false, 0, 0, 0},
    {"PT1s", true, 1, 0, 1000},
    {"PT1.5s", true, 1, 500000000, 1500},
    {"PT9223372036854775807S", true, INT64_MAX, 0, INT64_MAX},
    {"PT9223372036854775808S", false, 0, 0, 0},
    {"PT-9223372036854775808S", true, INT64_MIN, 0, INT64_MIN},
    {"-PT-9223372036854775808S", false, 0, 0, 0},
    {"PT9223372036854775807.999999999S", true, INT64_MAX, 999999999, INT64_MAX},
    {"PT9223372036854775807S1S", false, 0, 0, 0},
    /* negated() of a fraction at the ends of the range (found by fuzz_duration) */
    {"-PT-0M9223372036854775807.5S", true, INT64_MIN, 500000000, INT64_MIN},
    {"-PT-9223372036854775807.5S", true, INT64_MAX, 500000000, INT64_MAX},
    {"-PT-9223372036854775808S", false, 0, 0, 0},
    {"P106751991167300D", true, 9223372036854720000LL, 0, INT64_MAX},
    {"P106751991167301D", false, 0, 0, 0},
    {"P106751991167300DT15H30M7S", true, INT64_MAX, 0, INT64_MAX},
    {"P106751991167300DT15H30M8S", false, 0, 0, 0},
    {"PT2562047788015215H", true, 9223372036854774000LL, 0, INT64_MAX},
    {"PT2562047788015216H", false, 0, 0, 0},
    {"PT153722867280912930M", true, 9223372036854775800LL, 0, INT64_MAX},
    {"PT153722867280912931M", false, 0, 0, 0},
    {"P9223372036854775807D", false, 0, 0, 0},
    {"PT9223372036854775.807S", true, 9223372036854775LL, 807000000, 9223372036854775807LL},
    {"PT9223372036854775.808S", true, 9223372036854775LL, 808000000, INT64_MAX},
    {"PT9223372036854776S", true, 9223372036854776LL, 0, INT64_MAX},
    {"P0D", true, 0, 0, 0},
    {"PT0.0001S", true, 0, 100000, 0},
    {"PT-0.0001S", true, -1, 999900000, 0},
    {"P00001D", true, 86400, 0, 86400000},
    {"PT1H1H", false, 0, 0, 0},
    {"P1DT1H2M3.4S", true, 90123, 400000000, 90123400},
    {"PT\xd9\xa3S", false, 0, 0, 0},
    {"PT1M.5S", false, 0, 0, 0},
    {"PT1.5M", false, 0, 0, 0},
    {"P1.5D", false, 0, 0, 0},
    {"pT1S", true, 1, 0, 1000},
    {"-PT9223372036854775807.999999999S", true, INT64_MIN, 1, INT64_MIN},
    {"PT-9223372036854775808.5S", false, 0, 0, 0},
    {"-PT-9223372036854775807.5S", true, INT64_MAX, 500000000, INT64_MAX},
    {"P-106751991167300DT2562047788015215H153722867280912930M", false, 0, 0, 0},
    {"P-1DT2562047788015215H153722867280912930M", false, 0, 0, 0},
    {"-PT0S", true, 0, 0, 0},
    {"PT-0S", true, 0, 0, 0},
    {"PT-0.0S", true, 0, 0, 0},
    {"-PT0.000000001S", true, -1, 999999999, 0},
    {"PT1.000000000S", true, 1, 0, 1000},
    {"", false, 0, 0, 0},
    {"P1DT1H1M1S1S", false, 0, 0, 0},
    {"PT-9223372036854775808S0.5S", false, 0, 0, 0},
    {"PT00000000000000000000000000001S", true, 1, 0, 1000},
    {"PT-00000000000000000000009223372036854775808S", true, INT64_MIN, 0, INT64_MIN},
    {"+P1D", true, 86400, 0, 86400000},
    {"-P-1D", true, 86400, 0, 86400000},
    {"P-0D", true, 0, 0, 0},
    {"PT1H2M", true, 3720, 0, 3720000},
    {"PT2M3S", true, 123, 0, 123000},
    {"P1DT3S", true, 86403, 0, 86403000},
    {"PT0,S", true, 0, 0, 0},
    {"PT1.,5S", false, 0, 0, 0},
    {"PT1..5S", false, 0, 0, 0},
    {"PT1H.5S", false, 0, 0, 0},
    {"pt1.5s", true, 1, 500000000, 1500},
    {"P1d", true, 86400, 0, 86400000},
    {"PTS", false, 0, 0, 0},
    {"PT-S", false, 0, 0, 0},
    {"PT+S", false, 0, 0, 0},
    {"PT1", false, 0, 0, 0},
    {"1S", false, 0, 0, 0},
    {"Pt", false, 0, 0, 0},
    {"P1Dt", true, 86400, 0, 86400000},
    {"P1DT", false, 0, 0, 0},
    {"pt", false, 0, 0, 0},
    {"p1dt", true, 86400, 0, 86400000},
    {"P1Dt1H", true, 90000, 0, 90000000},
    {"P1DTt", false, 0, 0, 0},
};

static void test_java_answers(void) {
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const dcase_t *c = &cases[i];
        gr_duration_t d = {-7, -7};
        bool ok = gr_duration_parse(c->text, &d);
        if (ok != c->ok) GR__FAIL("\"%s\": parsed %d, Java %d", c->text, ok, c->ok);
        if (!ok) {
            ASSERT(d.seconds == -7 && d.nanos == -7); /* untouched on failure */
            continue;
        }
        if (d.seconds != c->seconds || d.nanos != c->nanos || gr_duration_to_ms(d) != c->ms)
            GR__FAIL("\"%s\": %" PRId64 "s %dns %" PRId64 "ms, Java %" PRId64 "s %dns %" PRId64 "ms", c->text,
                     d.seconds, d.nanos, gr_duration_to_ms(d), c->seconds, c->nanos, c->ms);
    }
}

static void test_negative(void) {
    gr_duration_t d;
    ASSERT(gr_duration_parse("PT-0.0001S", &d));
    ASSERT(gr_duration_is_negative(d)); /* -1 s + 0.9999 s */
    ASSERT_EQ(gr_duration_to_ms(d), 0);
    ASSERT(gr_duration_parse("-PT0S", &d));
    ASSERT(!gr_duration_is_negative(d));
    ASSERT(gr_duration_parse("-PT-1S", &d));
    ASSERT(!gr_duration_is_negative(d));
    ASSERT(gr_duration_parse("PT-0.5S", &d));
    ASSERT_EQ(gr_duration_to_ms(d), -500); /* toward zero, as toMillis */
}

int main(void) {
    RUN_TEST(test_java_answers);
    RUN_TEST(test_negative);
    return 0;
}
