/* libFuzzer target: the redrive's readers of outside input (src/cli/redrive_plan.c): the
 * __dlq.errors.* headers of any record in a DLQ topic and the gregor.redrive.* provenance
 * headers of any record in a target topic.
 *
 * Input: a list of headers, each "<key>\0<value>\0"; a value starting with byte 0x01 is null.
 * Invariants: no crash or leak; a parsed dead letter has a non-empty topic, partition >= 0,
 * offset >= 0, and parsing is deterministic; a parsed provenance formats back
 * (rd_prov_headers) into headers that parse to the same values; the done set then knows the
 * DLQ record the provenance names. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/redrive_plan.h"

#define MAX_H 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rd_hdr_t h[MAX_H];
    size_t n = 0, i = 0;
    while (i < size && n < MAX_H) {
        const uint8_t *k = data + i, *z = memchr(k, 0, size - i);
        if (!z) break;
        i = (size_t)(z - data) + 1;
        const uint8_t *v = data + i, *z2 = i < size ? memchr(v, 0, size - i) : NULL;
        size_t vl = z2 ? (size_t)(z2 - v) : size - i;
        i += vl + 1;
        bool null = vl && v[0] == 1;
        h[n++] = (rd_hdr_t){(const char *)k, (size_t)(z - k), null ? NULL : v, null ? 0 : vl};
    }
    rd_dlq_t d, d2;
    rd_parse_t r = rd_parse_dlq(h, n, &d);
    assert(rd_parse_dlq(h, n, &d2) == r);
    if (r == RD_OK) {
        assert(d.topic && *d.topic && d.group && d.partition >= 0 && d.offset >= 0);
        assert(!strcmp(d.topic, d2.topic) && d.offset == d2.offset && d.delivery_count == d2.delivery_count);
    }
    rd_dlq_free(&d);
    rd_dlq_free(&d2);

    rd_prov_t p;
    if (rd_parse_prov(h, n, &p)) {
        assert(p.dlq_partition >= 0 && p.dlq_offset >= 0);
        if (p.group) {
            const char *names[RD_PROV_N], *vals[RD_PROV_N];
            char bufs[5][24];
            size_t m = rd_prov_headers(&p, 3, "dlq", names, vals, bufs);
            rd_hdr_t h2[RD_PROV_N];
            for (size_t j = 0; j < m; j++) h2[j] = (rd_hdr_t){names[j], strlen(names[j]), vals[j], strlen(vals[j])};
            rd_prov_t q;
            assert(rd_parse_prov(h2, m, &q));
            assert(!strcmp(q.dlq_topic, p.dlq_topic) && q.dlq_offset == p.dlq_offset && q.src_offset == p.src_offset &&
                   !strcmp(q.group, p.group) && !strcmp(q.src_topic, p.src_topic));
            rd_prov_free(&q);
        }
        rd_set_t s;
        rd_set_init(&s);
        rd_prov_mark(&s, &p, p.dlq_topic, NULL);
        char *key;
        size_t kl = rd_key_dlq(&key, p.dlq_topic, p.dlq_partition, p.dlq_offset);
        assert(rd_set_has(&s, key, kl));
        free(key);
        rd_set_free(&s);
        rd_prov_free(&p);
    }
    return 0;
}
