/* libFuzzer target: arbitrary bytes as a share-state record (value, key) and as a
 * group-store value.
 *
 * Invariants: decoding never crashes; a value that decodes re-encodes to bytes
 * that decode to the same value and re-encode to the same bytes (stable round
 * trip); decoded batches are valid, sorted and non-overlapping; merging them into
 * themselves (the §7.2 combiner) yields a valid, sorted, coalesced list covering
 * exactly the same offsets. The first input byte selects nothing: every decoder
 * sees every input. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "share/group_store.h"
#include "share/state_store.h"

static void check_batches(const gr_sstore_batch_t *b, size_t n, int64_t start) {
    for (size_t i = 0; i < n; i++) {
        assert(gr_sstore_batch_valid(&b[i]));
        if (start >= 0) assert(b[i].first_offset >= start);
        if (i) assert(b[i].first_offset > b[i - 1].last_offset);
    }
}

static uint64_t covered(const gr_sstore_batch_t *b, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += (uint64_t)(b[i].last_offset - b[i].first_offset) + 1;
    return sum;
}

static void fuzz_value(const uint8_t *data, size_t size) {
    gr_sstore_bvec_t bv1 = {0}, bv2 = {0}, merged = {0};
    gr_sstore_value_t v1, v2;
    const char *why = NULL;
    if (gr_sstore_value_decode(data, size, &v1, &bv1, &why) == GR_ERR_NONE) {
        check_batches(v1.batches, v1.n_batches, v1.start_offset);
        gr_wbuf_t w1, w2;
        gr_wbuf_init(&w1);
        gr_wbuf_init(&w2);
        gr_sstore_value_encode(&v1, &w1);
        assert(gr_sstore_value_decode(w1.mem, w1.len, &v2, &bv2, &why) == GR_ERR_NONE);
        assert(v1.kind == v2.kind && v1.snapshot_epoch == v2.snapshot_epoch && v1.state_epoch == v2.state_epoch &&
               v1.leader_epoch == v2.leader_epoch && v1.start_offset == v2.start_offset &&
               v1.delivery_complete_count == v2.delivery_complete_count && v1.n_batches == v2.n_batches);
        for (size_t i = 0; i < v1.n_batches; i++) /* field by field: the struct has padding */
            assert(v1.batches[i].first_offset == v2.batches[i].first_offset &&
                   v1.batches[i].last_offset == v2.batches[i].last_offset &&
                   v1.batches[i].state == v2.batches[i].state && v1.batches[i].count == v2.batches[i].count &&
                   v1.batches[i].due_ms == v2.batches[i].due_ms);
        gr_sstore_value_encode(&v2, &w2);
        assert(w1.len == w2.len && !memcmp(w1.mem, w2.mem, w1.len));
        /* The combiner on decoded data: merging a list with itself keeps every offset. */
        gr_sstore_merge(v1.batches, v1.n_batches, v1.batches, v1.n_batches, -1, &merged);
        check_batches(merged.v, merged.n, -1);
        assert(covered(merged.v, merged.n) == covered(v1.batches, v1.n_batches));
        gr_wbuf_free(&w1);
        gr_wbuf_free(&w2);
    } else {
        assert(why != NULL);
    }
    gr_sstore_bvec_free(&bv1);
    gr_sstore_bvec_free(&bv2);
    gr_sstore_bvec_free(&merged);
}

static void fuzz_key(const uint8_t *data, size_t size) {
    gr_sstore_key_t k1, k2;
    const char *why = NULL;
    if (gr_sstore_key_decode(data, size, &k1, &why) != GR_ERR_NONE) return;
    gr_wbuf_t w;
    gr_wbuf_init(&w);
    gr_sstore_key_encode(&k1, &w);
    assert(gr_sstore_key_decode(w.mem, w.len, &k2, &why) == GR_ERR_NONE);
    assert(k1.group_len == k2.group_len && k1.partition == k2.partition && !memcmp(k1.topic_id.b, k2.topic_id.b, 16) &&
           !memcmp(k1.group, k2.group, k1.group_len));
    gr_wbuf_t w2;
    gr_wbuf_init(&w2);
    gr_sstore_key_encode(&k2, &w2);
    assert(w.len == w2.len && !memcmp(w.mem, w2.mem, w.len));
    gr_wbuf_free(&w);
    gr_wbuf_free(&w2);
}

static void fuzz_group(const uint8_t *data, size_t size) {
    gr_arena_t a;
    gr_arena_init(&a);
    a.limit = 16u << 20;
    gr_gstore_group_t g1, g2;
    const char *why = NULL;
    if (gr_gstore_group_decode(data, size, &a, &g1, &why) == GR_ERR_NONE) {
        gr_wbuf_t w1, w2;
        gr_wbuf_init(&w1);
        gr_wbuf_init(&w2);
        gr_gstore_group_encode(&g1, &w1);
        assert(gr_gstore_group_decode(w1.mem, w1.len, &a, &g2, &why) == GR_ERR_NONE);
        gr_gstore_group_encode(&g2, &w2);
        assert(w1.len == w2.len && !memcmp(w1.mem, w2.mem, w1.len));
        gr_wbuf_free(&w1);
        gr_wbuf_free(&w2);
    }
    gr_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_value(data, size);
    fuzz_key(data, size);
    fuzz_group(data, size);
    return 0;
}
