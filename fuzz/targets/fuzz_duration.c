/* libFuzzer target: ISO-8601 durations (src/base/duration.c), which a client sends
 * in share.auto.offset.reset=by_duration:<duration> (group config requests).
 *
 * The input, up to its first NUL, is the duration text. Parsing never crashes; an
 * accepted duration has nanos in [0, 1e9); its canonical text ("PT<s>.<9 digits>S")
 * parses back to the same value; changing the case of P, D, H, M, S gives the same
 * answer; and share.auto.offset.reset validation (gr_sgc_parse_reset) accepts
 * "by_duration:<text>" exactly when the duration parses and is not negative, with the
 * same milliseconds. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/duration.h"
#include "share/group.h"

#define MAX_TEXT 256 /* longer values only repeat digits */

static bool same(gr_duration_t a, gr_duration_t b) { return a.seconds == b.seconds && a.nanos == b.nanos; }

/* Java's pattern letters; 'T' is left alone (Java checks a lone T case-sensitively). */
static void flip_case(char *s) {
    for (; *s; s++)
        if (strchr("PDHMSpdhms", *s)) *s ^= 'a' - 'A';
}

static void check_canonical(gr_duration_t d) {
    char text[64];
    gr_duration_t back;
    if (d.nanos == 0)
        snprintf(text, sizeof(text), "PT%" PRId64 "S", d.seconds);
    else if (d.seconds >= 0)
        snprintf(text, sizeof(text), "PT%" PRId64 ".%09dS", d.seconds, (int)d.nanos);
    else /* -(n + f): "-0.5" is minus half a second */
        snprintf(text, sizeof(text), "PT-%" PRIu64 ".%09dS", (uint64_t)(-(d.seconds + 1)), (int)(1000000000 - d.nanos));
    assert(gr_duration_parse(text, &back) && same(d, back));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char text[MAX_TEXT + 1], reset[MAX_TEXT + 16];
    size_t n = strnlen((const char *)data, size < MAX_TEXT ? size : MAX_TEXT);
    memcpy(text, data, n);
    text[n] = '\0';
    gr_duration_t d = {0, 0}, d2 = {0, 0};
    bool ok = gr_duration_parse(text, &d);
    if (ok) {
        assert(d.nanos >= 0 && d.nanos < 1000000000);
        check_canonical(d);
    }
    snprintf(reset, sizeof(reset), "by_duration:%s", text);
    gr_sgc_reset_t type;
    int64_t ms = -1;
    bool valid = gr_sgc_parse_reset(reset, &type, &ms);
    assert(valid == (ok && !gr_duration_is_negative(d)));
    if (valid) assert(type == GR_SGC_RESET_BY_DURATION && ms == gr_duration_to_ms(d));
    flip_case(text);
    assert(gr_duration_parse(text, &d2) == ok);
    if (ok) assert(same(d, d2));
    return 0;
}
