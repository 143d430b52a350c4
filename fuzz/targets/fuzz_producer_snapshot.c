/* libFuzzer target: arbitrary bytes as a producer-state snapshot file
 * (gregor-producers.snapshot, src/broker/producers_snap.c) and as a control batch.
 *
 * Invariants: decoding never crashes; a snapshot that decodes re-encodes to bytes
 * of the same length that decode again to the same state (same counts, same first
 * unstable offset, same aborted index) and re-encode to the same bytes; decoded under
 * a cap of 3 it keeps every ongoing transaction and at most the cap otherwise; the aborted
 * index answers the full-range query with its size; a control batch's marker is
 * decoded without reading outside the input. Every input is tried as it is and
 * again with its checksum patched in, so the body decoder is reached. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/crc32c.h"
#include "broker/producers.h"
#include "proto/records.h"

static void fuzz_snapshot(const uint8_t *data, size_t size) {
    gr_producer_state_t *ps = NULL;
    int64_t vt;
    const char *why;
    if (gr_producers_snapshot_decode(data, size, SIZE_MAX, &ps, &vt, &why) != GR_ERR_NONE) {
        assert(ps == NULL && why != NULL);
        return;
    }
    assert(vt >= 0);
    gr_wbuf_t w1, w2;
    gr_wbuf_init(&w1);
    gr_wbuf_init(&w2);
    gr_producers_snapshot_encode(ps, vt, &w1);
    assert(w1.len == size);
    gr_producer_state_t *ps2 = NULL;
    int64_t vt2;
    assert(gr_producers_snapshot_decode(w1.mem, w1.len, SIZE_MAX, &ps2, &vt2, &why) == GR_ERR_NONE);
    assert(vt2 == vt);
    assert(gr_producers_count(ps2) == gr_producers_count(ps));
    assert(gr_producers_ongoing(ps2) == gr_producers_ongoing(ps));
    assert(gr_producers_first_unstable(ps2) == gr_producers_first_unstable(ps));
    size_t na = gr_producers_aborted(ps, INT64_MIN, INT64_MAX, NULL, 0);
    assert(gr_producers_aborted(ps2, INT64_MIN, INT64_MAX, NULL, 0) == na);
    gr_producers_snapshot_encode(ps2, vt2, &w2);
    assert(w2.len == w1.len && !memcmp(w1.mem, w2.mem, w1.len));
    /* Under a cap of 3: every ongoing transaction stays, and at most one idle producer
     * beyond the cap (the last one decoded when the others are all ongoing). */
    gr_producer_state_t *ps3 = NULL;
    assert(gr_producers_snapshot_decode(w1.mem, w1.len, 3, &ps3, &vt2, &why) == GR_ERR_NONE);
    size_t on = gr_producers_ongoing(ps3), bound = on + 1 > 3 ? on + 1 : 3;
    assert(on == gr_producers_ongoing(ps) && gr_producers_count(ps3) <= bound);
    assert(gr_producers_first_unstable(ps3) == gr_producers_first_unstable(ps));
    gr_wbuf_free(&w1);
    gr_wbuf_free(&w2);
    gr_producers_free(ps);
    gr_producers_free(ps2);
    gr_producers_free(ps3);
}

static void fuzz_control(const uint8_t *data, size_t size) {
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    gr_batch_iter_init(&it, data, size);
    for (int i = 0; i < 16 && gr_batch_iter_next(&it, &bv, NULL, 0) == GR_ERR_NONE; i++) {
        int16_t type;
        int32_t ce;
        gr_err_t err = gr_control_batch_marker(&bv, &type, &ce);
        if (!(bv.attributes & GR_BATCH_ATTR_CONTROL)) assert(err == GR_ERR_CORRUPT_MESSAGE);
        if (err == GR_ERR_NONE && type != GR_CONTROL_ABORT && type != GR_CONTROL_COMMIT) assert(ce == -1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_control(data, size);
    fuzz_snapshot(data, size);
    if (size >= 4) {
        uint8_t *copy = malloc(size);
        assert(copy);
        memcpy(copy, data, size);
        gr_put_be32(copy + size - 4, gr_crc32c(0, copy, size - 4));
        fuzz_snapshot(copy, size);
        free(copy);
    }
    return 0;
}
