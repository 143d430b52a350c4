/* libFuzzer target: the readers of outside input of `gregor consumer-groups --reset-offsets`
 * (src/cli/cg_plan.c): the --from-file CSV plan (a file the user hands in, often written by
 * another tool), the --topic argument and the --to-datetime value.
 *
 * Input: byte 0 selects the single-group form of the plan (bit 0); the rest is the CSV file,
 * also tried (up to its first NUL) as a --topic argument and as a datetime.
 * Invariants: no crash or leak; parsing is deterministic; the plan has at most max_entries
 * entries, each with a topic (and a group exactly in the 4-field form); each entry's topic,
 * written back with cg_csv_field, reads back unchanged; --topic partitions are bounded. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cg_plan.h"

static void check_roundtrip(const cg_entry_t *e) {
    char line[4096];
    size_t len = 0;
    cg_csv_field(line, sizeof(line), &len, e->topic);
    if (len + 64 >= sizeof(line) || strchr(e->topic, '\n') || strchr(e->topic, '\r')) return;
    len += (size_t)snprintf(line + len, sizeof(line) - len, ",%d,%lld", e->partition, (long long)e->offset);
    cg_entry_t *v;
    size_t n;
    char err[256];
    assert(cg_parse_plan(line, len, true, 4, &v, &n, err, sizeof(err)));
    assert(n == 1 && !strcmp(v[0].topic, e->topic) && v[0].partition == e->partition && v[0].offset == e->offset);
    cg_entries_free(v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    bool single = data[0] & 1;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    cg_entry_t *v = NULL, *v2 = NULL;
    size_t n = 0, n2 = 0;
    char err[512];
    bool ok = cg_parse_plan(text, len, single, 64, &v, &n, err, sizeof(err));
    assert(cg_parse_plan(text, len, single, 64, &v2, &n2, err, sizeof(err)) == ok && n == n2);
    for (size_t i = 0; ok && i < n; i++) {
        assert(n <= 64 && v[i].topic && v[i].partition == v2[i].partition && v[i].offset == v2[i].offset);
        if (v[i].group == NULL && strlen(v[i].topic) == 0) continue;
        check_roundtrip(&v[i]);
    }
    cg_entries_free(v, n);
    cg_entries_free(v2, n2);

    char *s = malloc(len + 1); /* as a C string: --topic and --to-datetime */
    if (!s) return 0;
    memcpy(s, text, len);
    s[len] = 0;
    char topic[256];
    int32_t parts[16];
    size_t np;
    bool whole;
    if (cg_parse_topic_arg(s, topic, sizeof(topic), parts, 16, &np, &whole, err, sizeof(err)))
        assert(np <= 16 && (!whole || np == 0));
    int64_t ms, ms2;
    bool d1 = cg_parse_datetime(s, &ms, err, sizeof(err)), d2 = cg_parse_datetime(s, &ms2, err, sizeof(err));
    assert(d1 == d2 && (!d1 || ms == ms2));
    (void)cg_java_string_hash(s);
    free(s);
    return 0;
}
