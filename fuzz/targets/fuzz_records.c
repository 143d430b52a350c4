/* libFuzzer target: arbitrary bytes as a Produce/Fetch records blob.
 *
 * Runs the batch iterator, the record iterator (with decompression bounded to
 * 1 MiB), produce validation and every decompressor, and checks invariants:
 * views stay inside the input, a batch that validates walks cleanly, and
 * decompression never exceeds its bound. Also rebuilds every valid batch with
 * the builder and checks the decoded records survive the round trip. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "proto/compress.h"
#include "proto/records.h"

#define FUZZ_MAX_OUT (1u << 20)

static void walk_records(const gr_batch_view_t *bv, gr_wbuf_t *scratch) {
    gr_record_iter_t ri;
    gr_record_t rec;
    char why[200];
    if (gr_record_iter_init(&ri, bv, scratch, FUZZ_MAX_OUT, why, sizeof(why))) return;
    assert(scratch->len <= FUZZ_MAX_OUT);
    int32_t n = 0;
    while (gr_record_iter_next(&ri, &rec, why, sizeof(why)) == GR_ERR_NONE) {
        gr_header_iter_t hi;
        gr_header_t h;
        gr_header_iter_init(&hi, &rec);
        while (gr_header_iter_next(&hi, &h)) assert(h.key_len >= 0);
        n++;
    }
    assert(n <= bv->record_count);
}

static void iterate(const uint8_t *data, size_t size, gr_wbuf_t *scratch) {
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    char why[200];
    gr_batch_iter_init(&it, data, size);
    while (gr_batch_iter_next(&it, &bv, why, sizeof(why)) == GR_ERR_NONE) {
        assert(bv.data >= data && bv.data + bv.size <= data + size);
        if (bv.has_header) walk_records(&bv, scratch);
    }
    assert(gr_batch_iter_offset(&it) <= size);
}

/* A batch that passed validation must rebuild into an equivalent valid batch. */
static void rebuild(const gr_produce_validate_result_t *res, gr_wbuf_t *scratch) {
    gr_record_iter_t ri;
    gr_record_t rec;
    gr_batch_builder_t bb;
    gr_wbuf_t out;
    gr_batch_builder_init(&bb);
    gr_wbuf_init(&out);
    int rc = gr_record_iter_init(&ri, &res->batch, scratch, FUZZ_MAX_OUT, NULL, 0);
    assert(rc == GR_ERR_NONE);
    while (gr_record_iter_next(&ri, &rec, NULL, 0) == GR_ERR_NONE)
        gr_batch_builder_add(&bb, rec.timestamp, rec.key, rec.key_len, rec.value, rec.value_len, NULL, 0);
    assert(bb.count == res->batch.record_count);
    gr_batch_builder_opts_t opts;
    gr_batch_builder_opts_init(&opts);
    rc = gr_batch_builder_finish(&bb, &opts, &out);
    assert(rc == GR_ERR_NONE);
    gr_produce_validate_opts_t vo;
    gr_produce_validate_result_t again;
    gr_produce_validate_opts_init(&vo, 0);
    vo.max_message_bytes = INT32_MAX;
    rc = gr_records_validate_produce(out.mem, out.len, &vo, &again);
    assert(rc == GR_ERR_NONE && again.batch.record_count == res->batch.record_count);
    gr_wbuf_free(&out);
    gr_batch_builder_free(&bb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gr_wbuf_t scratch;
    gr_arena_t arena;
    gr_wbuf_init(&scratch);
    gr_arena_init(&arena);
    iterate(data, size, &scratch);

    gr_produce_validate_opts_t opts;
    gr_produce_validate_result_t res;
    gr_produce_validate_opts_init(&opts, 0);
    opts.max_uncompressed_bytes = FUZZ_MAX_OUT;
    opts.arena = &arena;
    opts.compacted = size & 1;
    if (gr_records_validate_produce(data, size, &opts, &res) == GR_ERR_NONE) {
        assert(res.valid_bytes <= size && res.valid_bytes >= GR_RECORD_BATCH_OVERHEAD);
        rebuild(&res, &scratch);
    } else {
        assert(res.err != GR_ERR_NONE && res.message[0]);
    }

    if (size > 0) {
        int codec = data[0] % 5;
        gr_wbuf_reset(&scratch);
        if (gr_decompress(codec, data + 1, size - 1, &scratch, FUZZ_MAX_OUT, NULL, 0) == GR_ERR_NONE)
            assert(scratch.len <= FUZZ_MAX_OUT);
    }
    gr_arena_free(&arena);
    gr_wbuf_free(&scratch);
    return 0;
}
