/* libFuzzer target: the Java .properties parser and formatter (src/base/props.c), which
 * read server.properties, libgregor property files and dynamic config layers.
 *
 * Input byte 0, bit 0 selects the mode; the rest is the payload.
 *   0: the payload is .properties text. Parsing never crashes; a map that parses
 *      formats (gr_props_format) to text that parses back to the same map, and that
 *      text formats again to the same bytes.
 *   1: the payload is a map: NUL-separated key, value, key, value... (any other byte).
 *      Formatting it and parsing the text gives the same map (every key and value
 *      survives, whatever whitespace, escapes or comment characters it holds). */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/props.h"

static void assert_same(const gr_props_t *a, const gr_props_t *b) {
    assert(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert(strcmp(a->v[i].key, b->v[i].key) == 0);
        assert(strcmp(a->v[i].value, b->v[i].value) == 0);
    }
}

/* format(m) parses to m, and formatting that again gives the same text. */
static void check_round_trip(const gr_props_t *m) {
    char err[256];
    char *text = gr_props_format(m);
    gr_props_t back;
    gr_props_init(&back);
    gr_err_t e = gr_props_parse(&back, text, strlen(text), err, sizeof(err));
    assert(e == GR_ERR_NONE);
    assert_same(m, &back);
    char *again = gr_props_format(&back);
    assert(strcmp(text, again) == 0);
    gr_props_t copy;
    gr_props_init(&copy);
    gr_props_copy(&copy, &back);
    assert_same(m, &copy);
    free(again);
    free(text);
    gr_props_free(&copy);
    gr_props_free(&back);
}

static void fuzz_text(const char *t, size_t n) {
    gr_props_t m;
    char err[256];
    gr_props_init(&m);
    if (gr_props_parse(&m, t, n, err, sizeof(err)) == GR_ERR_NONE) {
        for (size_t i = 0; i < m.n; i++) assert(gr_props_get(&m, m.v[i].key) == m.v[i].value);
        check_round_trip(&m);
    } else {
        assert(err[0] != '\0');
    }
    gr_props_free(&m);
}

static void fuzz_map(const char *t, size_t n) {
    gr_props_t m;
    gr_props_init(&m);
    char *copy = malloc(n + 1);
    memcpy(copy, t, n);
    copy[n] = '\0';
    const char *key = NULL;
    for (size_t i = 0, start = 0; i <= n; i++) {
        if (i < n && copy[i] != '\0') continue;
        copy[i] = '\0';
        if (!key) {
            key = copy + start;
        } else {
            gr_props_set(&m, key, copy + start, 0);
            key = NULL;
        }
        start = i + 1;
    }
    if (key) gr_props_set(&m, key, "", 0);
    check_round_trip(&m);
    if (m.n) { /* unset keeps the others in order */
        char *k0 = strdup(m.v[0].key);
        assert(gr_props_unset(&m, k0) && gr_props_get(&m, k0) == NULL);
        free(k0);
    }
    gr_props_free(&m);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (data[0] & 1)
        fuzz_map((const char *)data + 1, size - 1);
    else
        fuzz_text((const char *)data + 1, size - 1);
    return 0;
}
