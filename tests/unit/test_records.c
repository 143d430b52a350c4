/* Record batches: CRC-32C, batch iteration, produce validation with Kafka's
 * error codes, offset assignment, and builder -> iterator round trips. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/crc32c.h"
#include "proto/compress.h"
#include "proto/records.h"
#include "testutil.h"

uint32_t gr__crc32c_sw(uint32_t crc, const void *data, size_t len);

static const int codecs[] = {GR_CODEC_NONE, GR_CODEC_GZIP, GR_CODEC_SNAPPY, GR_CODEC_LZ4, GR_CODEC_ZSTD};
#define N_CODECS (sizeof(codecs) / sizeof(codecs[0]))
#define T0       1700000000000LL

static void test_crc32c(void) {
    ASSERT_EQ(gr_crc32c(0, "123456789", 9), 0xE3069283u);
    ASSERT_EQ(gr__crc32c_sw(0, "123456789", 9), 0xE3069283u);
    ASSERT_EQ(gr_crc32c(0, "", 0), 0);
    uint8_t buf[4096 + 8];
    memset(buf, 0, 32);
    ASSERT_EQ(gr_crc32c(0, buf, 32), 0x8A9136AAu); /* RFC 3720 B.4 vectors */
    memset(buf, 0xff, 32);
    ASSERT_EQ(gr_crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++) buf[i] = (uint8_t)i;
    ASSERT_EQ(gr_crc32c(0, buf, 32), 0x46DD794Eu);
    unsigned seed = 1;
    for (size_t i = 0; i < sizeof(buf); i++) buf[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
    for (size_t off = 0; off < 8; off++) {
        for (size_t len = 0; len < 300; len += 7) {
            uint32_t want = gr__crc32c_sw(0, buf + off, len);
            ASSERT_EQ(gr_crc32c(0, buf + off, len), want);
            size_t half = len / 3;
            ASSERT_EQ(gr_crc32c(gr_crc32c(0, buf + off, half), buf + off + half, len - half), want);
        }
    }
    ASSERT_EQ(gr_crc32c(0, buf, 4096), gr__crc32c_sw(0, buf, 4096));
    /* the three-stream loops (3 x 256 and 3 x 8192 bytes) and their edges */
    size_t big_len = 3 * 3 * 8192 + 4096;
    uint8_t *big = malloc(big_len + 8);
    ASSERT(big != NULL);
    for (size_t i = 0; i < big_len + 8; i++) big[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
    const size_t lens[] = {767, 768, 769, 1535, 1536, 2311, 24575, 24576, 24577, 24576 + 768, 49152, 49159, big_len};
    for (size_t off = 0; off < 8; off += 3)
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            uint32_t want = gr__crc32c_sw(0, big + off, lens[i]);
            ASSERT_EQ(gr_crc32c(0, big + off, lens[i]), want);
            ASSERT_EQ(gr_crc32c(gr_crc32c(0, big + off, lens[i] / 2), big + off + lens[i] / 2, lens[i] - lens[i] / 2),
                      want);
        }
    for (int k = 0; k < 200; k++) { /* random lengths */
        size_t len = ((seed = seed * 1103515245u + 12345u) >> 8) % big_len, off = k % 8;
        ASSERT_EQ(gr_crc32c(0, big + off, len), gr__crc32c_sw(0, big + off, len));
    }
    free(big);
}

/* A batch of n records: key "key-i", value "value i", header h=i on even records. */
static void build(gr_wbuf_t *out, int codec, int n, const gr_batch_builder_opts_t *o) {
    gr_batch_builder_t bb;
    gr_batch_builder_opts_t opts;
    if (o)
        opts = *o;
    else
        gr_batch_builder_opts_init(&opts);
    opts.codec = codec;
    gr_batch_builder_init(&bb);
    for (int i = 0; i < n; i++) {
        char k[32], v[32], hv[16];
        int kl = snprintf(k, sizeof(k), "key-%d", i), vl = snprintf(v, sizeof(v), "value %d", i);
        int hl = snprintf(hv, sizeof(hv), "%d", i);
        gr_header_t h[2] = {{(const uint8_t *)"h", 1, (const uint8_t *)hv, hl}, {(const uint8_t *)"nul", 3, NULL, -1}};
        gr_batch_builder_add(&bb, T0 + i * 10, k, kl, i == 3 ? NULL : v, i == 3 ? -1 : vl, h, i % 2 ? 0 : 2);
    }
    ASSERT_EQ(gr_batch_builder_finish(&bb, &opts, out), GR_ERR_NONE);
    gr_batch_builder_free(&bb);
}

static void check_records(const uint8_t *blob, size_t len, int n, int64_t lat) {
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    gr_record_iter_t ri;
    gr_record_t rec;
    gr_wbuf_t scratch;
    char why[200];
    gr_wbuf_init(&scratch);
    gr_batch_iter_init(&it, blob, len);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR_NONE);
    ASSERT(gr_batch_crc_ok(&bv));
    ASSERT_EQ(gr_record_iter_init(&ri, &bv, &scratch, 0, why, sizeof(why)), GR_ERR_NONE);
    for (int i = 0; i < n; i++) {
        char k[32], v[32];
        int kl = snprintf(k, sizeof(k), "key-%d", i), vl = snprintf(v, sizeof(v), "value %d", i);
        ASSERT_EQ(gr_record_iter_next(&ri, &rec, why, sizeof(why)), GR_ERR_NONE);
        ASSERT_EQ(rec.offset, bv.base_offset + i);
        ASSERT_EQ(rec.timestamp, lat >= 0 ? lat : T0 + i * 10);
        ASSERT_EQ(rec.key_len, kl);
        ASSERT_MEMEQ(rec.key, k, (size_t)kl);
        if (i == 3)
            ASSERT(rec.value == NULL && rec.value_len == -1);
        else
            ASSERT(rec.value_len == vl && !memcmp(rec.value, v, (size_t)vl));
        ASSERT_EQ(rec.header_count, i % 2 ? 0 : 2);
        gr_header_iter_t hi;
        gr_header_t h;
        gr_header_iter_init(&hi, &rec);
        if (i % 2 == 0) {
            ASSERT(gr_header_iter_next(&hi, &h) && h.key_len == 1 && h.key[0] == 'h' && h.value_len >= 1);
            ASSERT(gr_header_iter_next(&hi, &h) && h.key_len == 3 && h.value == NULL && h.value_len == -1);
        }
        ASSERT(!gr_header_iter_next(&hi, &h));
    }
    ASSERT_EQ(gr_record_iter_next(&ri, &rec, why, sizeof(why)), GR_ERR__NOENT);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR__NOENT);
    gr_wbuf_free(&scratch);
}

static gr_err_t validate(const uint8_t *p, size_t len, gr_produce_validate_result_t *res) {
    gr_produce_validate_opts_t opts;
    gr_produce_validate_opts_init(&opts, T0);
    return gr_records_validate_produce(p, len, &opts, res);
}

static void test_round_trip_all_codecs(void) {
    for (size_t c = 0; c < N_CODECS; c++) {
        gr_wbuf_t wb;
        gr_wbuf_init(&wb);
        build(&wb, codecs[c], 50, NULL);
        check_records(wb.mem, wb.len, 50, -1);
        gr_produce_validate_result_t res;
        ASSERT_EQ(validate(wb.mem, wb.len, &res), GR_ERR_NONE);
        ASSERT_EQ(res.err, GR_ERR_NONE);
        ASSERT_STREQ(res.message, "");
        ASSERT_EQ(res.valid_bytes, wb.len);
        ASSERT_EQ(res.batch.record_count, 50);
        ASSERT_EQ(res.max_timestamp, T0 + 490);
        ASSERT_EQ(res.offset_delta_of_max_timestamp, 49);
        ASSERT_EQ(gr_batch_codec(&res.batch), codecs[c]);
        gr_wbuf_free(&wb);
    }
}

static void fix_crc(uint8_t *p, size_t len) {
    gr_put_be32(p + GR_BATCH_CRC_OFFSET,
                gr_crc32c(0, p + GR_BATCH_ATTRIBUTES_OFFSET, len - GR_BATCH_ATTRIBUTES_OFFSET));
}

/* Copy the batch, apply a mutation, validate, compare error and message prefix. */
static void expect(const gr_wbuf_t *src, void (*mut)(uint8_t *, size_t), bool crc, gr_err_t want, const char *prefix) {
    uint8_t *p = malloc(src->len);
    memcpy(p, src->mem, src->len);
    if (mut) mut(p, src->len);
    if (crc) fix_crc(p, src->len);
    gr_produce_validate_result_t res;
    gr_err_t err = validate(p, src->len, &res);
    if (err != want || strncmp(res.message, prefix, strlen(prefix)))
        GR__FAIL("want %d '%s', got %d '%s'", want, prefix, err, res.message);
    ASSERT_EQ(res.err, err);
    free(p);
}

static void m_flip_payload(uint8_t *p, size_t len) { p[len - 1] ^= 1; }
static void m_flip_crc(uint8_t *p, size_t len) {
    p[GR_BATCH_CRC_OFFSET] ^= 0x80;
    (void)len;
}
static void m_len_13(uint8_t *p, size_t len) {
    gr_put_be32(p + 8, 13);
    (void)len;
}
static void m_len_neg(uint8_t *p, size_t len) {
    gr_put_be32(p + 8, 0xffffffffu);
    (void)len;
}
static void m_len_plus(uint8_t *p, size_t len) { gr_put_be32(p + 8, (uint32_t)(len - 12 + 1)); }
static void m_len_minus(uint8_t *p, size_t len) { gr_put_be32(p + 8, (uint32_t)(len - 12 - 5)); }
static void m_magic0(uint8_t *p, size_t len) {
    p[16] = 0;
    (void)len;
}
static void m_magic1(uint8_t *p, size_t len) {
    p[16] = 1;
    (void)len;
}
static void m_magic3(uint8_t *p, size_t len) {
    p[16] = 3;
    (void)len;
}
static void m_count_plus(uint8_t *p, size_t len) {
    gr_put_be32(p + 57, gr_be32(p + 57) + 1);
    (void)len;
}
static void m_both_plus(uint8_t *p, size_t len) {
    gr_put_be32(p + 57, gr_be32(p + 57) + 1);
    gr_put_be32(p + 23, gr_be32(p + 23) + 1);
    (void)len;
}
static void m_both_minus(uint8_t *p, size_t len) {
    gr_put_be32(p + 57, gr_be32(p + 57) - 1);
    gr_put_be32(p + 23, gr_be32(p + 23) - 1);
    (void)len;
}
static void m_count_zero(uint8_t *p, size_t len) {
    gr_put_be32(p + 57, 0);
    gr_put_be32(p + 23, 0xffffffffu);
    (void)len;
}
static void m_base_offset(uint8_t *p, size_t len) {
    gr_put_be64(p, 5);
    (void)len;
}
static void m_control(uint8_t *p, size_t len) {
    p[22] |= GR_BATCH_ATTR_CONTROL;
    (void)len;
}
static void m_pid_noseq(uint8_t *p, size_t len) {
    gr_put_be64(p + 43, 77);
    (void)len;
}
static void m_codec5(uint8_t *p, size_t len) {
    p[22] = (uint8_t)((p[22] & ~7) | 5);
    (void)len;
}
static void m_codec_gzip(uint8_t *p, size_t len) {
    p[22] = (uint8_t)((p[22] & ~7) | 1);
    (void)len;
}
static void m_offset_delta(uint8_t *p, size_t len) {
    p[GR_RECORD_BATCH_OVERHEAD + 3] = 2 << 1;
    (void)len;
}
static void m_rec_len(uint8_t *p, size_t len) {
    p[GR_RECORD_BATCH_OVERHEAD] += 2;
    (void)len;
}

static void test_corruptions(void) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    build(&wb, GR_CODEC_NONE, 10, NULL);
    const char *one = "Produce requests with version 13 must have at least one record batch per partition";
    expect(&wb, NULL, false, GR_ERR_NONE, "");
    expect(&wb, m_flip_payload, false, GR_ERR_CORRUPT_MESSAGE, "Record is corrupt (stored crc = ");
    expect(&wb, m_flip_crc, false, GR_ERR_CORRUPT_MESSAGE, "Record is corrupt");
    expect(&wb, m_len_13, false, GR_ERR_CORRUPT_MESSAGE,
           "Record size 13 is less than the minimum record overhead (14)");
    expect(&wb, m_len_neg, false, GR_ERR_CORRUPT_MESSAGE, "Record size -1 is less");
    expect(&wb, m_len_plus, false, GR_ERR_INVALID_RECORD, one);
    expect(&wb, m_len_minus, false, GR_ERR_CORRUPT_MESSAGE, "Record is corrupt");
    expect(&wb, m_magic0, false, GR_ERR_INVALID_RECORD,
           "Produce requests with version 13 are only allowed to contain record batches with magic version 2");
    expect(&wb, m_magic1, false, GR_ERR_INVALID_RECORD, "Produce requests with version 13 are only allowed");
    expect(&wb, m_magic3, false, GR_ERR_CORRUPT_MESSAGE, "Invalid magic found in record: 3");
    expect(&wb, m_count_plus, true, GR_ERR_INVALID_RECORD,
           "Inconsistent batch offset range [0, 9] and count of records 11");
    expect(&wb, m_both_plus, true, GR_ERR_INVALID_RECORD, "Incorrect declared batch size, premature EOF reached");
    expect(&wb, m_both_minus, true, GR_ERR_INVALID_RECORD, "Incorrect declared batch size, records still remaining");
    expect(&wb, m_count_zero, true, GR_ERR_INVALID_RECORD, "Batch has an invalid offset range: [0, -1]");
    expect(&wb, m_base_offset, false, GR_ERR_INVALID_RECORD, "The baseOffset of the record batch in the append to");
    expect(&wb, m_control, true, GR_ERR_INVALID_RECORD, "Clients are not allowed to write control records");
    expect(&wb, m_pid_noseq, true, GR_ERR_INVALID_RECORD,
           "Invalid sequence number -1 in record batch with producerId 77");
    expect(&wb, m_codec5, true, GR_ERR_UNSUPPORTED_COMPRESSION_TYPE, "Unknown compression type id: 5");
    expect(&wb, m_codec_gzip, true, GR_ERR_CORRUPT_MESSAGE, "gzip: ");
    expect(&wb, m_offset_delta, true, GR_ERR_INVALID_RECORD, "Record 0 has offset delta 2, expected 0");
    expect(&wb, m_rec_len, true, GR_ERR_INVALID_RECORD, "Invalid record size: expected to read");

    /* Every truncation: Kafka's batch iterator sees no complete batch. */
    gr_produce_validate_result_t res;
    for (size_t k = 0; k < wb.len; k++) {
        ASSERT_EQ(validate(wb.mem, k, &res), GR_ERR_INVALID_RECORD);
        ASSERT_STREQ(res.message, one);
    }
    /* A batch of 12 + 20 bytes: complete, but shorter than the v2 header. */
    uint8_t small[32];
    memcpy(small, wb.mem, sizeof(small));
    gr_put_be32(small + 8, 20);
    ASSERT_EQ(validate(small, sizeof(small), &res), GR_ERR_CORRUPT_MESSAGE);
    ASSERT_STREQ(res.message, "Record batch is corrupt (the size 32 is smaller than the minimum allowed overhead 61)");
    gr_wbuf_free(&wb);
}

static void test_sizes_and_shapes(void) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    build(&wb, GR_CODEC_NONE, 10, NULL);
    size_t size = wb.len;
    gr_produce_validate_opts_t opts;
    gr_produce_validate_result_t res;
    gr_produce_validate_opts_init(&opts, T0);
    opts.max_message_bytes = (int32_t)size;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, size, &opts, &res), GR_ERR_NONE);
    opts.max_message_bytes = (int32_t)size - 1;
    opts.topic_partition = "t-0";
    ASSERT_EQ(gr_records_validate_produce(wb.mem, size, &opts, &res), GR_ERR_MESSAGE_TOO_LARGE);
    ASSERT(strstr(res.message, "The record batch size in the append to t-0 is") == res.message);
    ASSERT(!res.message_on_wire);
    /* Trailing partial bytes are trimmed, as Kafka does. */
    gr_wbuf_put(&wb, "\0\0\0\0\0", 5);
    ASSERT_EQ(validate(wb.mem, wb.len, &res), GR_ERR_NONE);
    ASSERT_EQ(res.valid_bytes, size);
    /* A second complete batch is refused. */
    wb.len = size;
    build(&wb, GR_CODEC_NONE, 2, NULL);
    ASSERT_EQ(validate(wb.mem, wb.len, &res), GR_ERR_INVALID_RECORD);
    ASSERT_STREQ(res.message,
                 "Produce requests with version 13 are only allowed to contain exactly one record batch per partition");
    /* Garbage after the batch that cannot be a batch header. */
    wb.len = size;
    gr_wbuf_put(&wb, "\0\0\0\0\0\0\0\0\0\0\0\1", 12);
    ASSERT_EQ(validate(wb.mem, wb.len, &res), GR_ERR_CORRUPT_MESSAGE);
    /* zstd needs Produce v7. */
    gr_wbuf_reset(&wb);
    build(&wb, GR_CODEC_ZSTD, 3, NULL);
    opts.max_message_bytes = 1 << 20;
    opts.produce_version = 6;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_UNSUPPORTED_COMPRESSION_TYPE);
    opts.produce_version = 7;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_NONE);
    /* Decompression cap. */
    opts.max_uncompressed_bytes = 16;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_MESSAGE_TOO_LARGE);
    ASSERT_EQ(validate(wb.mem, 0, &res), GR_ERR_INVALID_RECORD);
    gr_wbuf_free(&wb);
}

static void test_record_errors(void) {
    gr_arena_t arena;
    gr_arena_init(&arena);
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    build(&wb, GR_CODEC_LZ4, 5, NULL);
    gr_produce_validate_opts_t opts;
    gr_produce_validate_result_t res;
    gr_produce_validate_opts_init(&opts, T0 + 100000);
    opts.arena = &arena;
    opts.timestamp_before_max_ms = 1000;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_INVALID_TIMESTAMP);
    ASSERT_STREQ(res.message, "One or more records have been rejected due to invalid timestamp");
    ASSERT(res.message_on_wire);
    ASSERT_EQ(res.n_record_errors, 5);
    ASSERT_EQ(res.record_errors[4].batch_index, 4);
    ASSERT(strstr(res.record_errors[0].message, "Timestamp 1700000000000 of message with offset 0 is out of range"));
    /* Within bounds on both sides. */
    opts.timestamp_before_max_ms = 100000;
    opts.timestamp_after_max_ms = 0;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_NONE);
    opts.now_ms = T0;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_INVALID_TIMESTAMP);
    ASSERT_EQ(res.n_record_errors, 4); /* the first record is exactly now */
    /* Compacted topic: record 3 has a key, so build one without. */
    gr_wbuf_reset(&wb);
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    gr_batch_builder_add(&bb, T0, "k", 1, "v", 1, NULL, 0);
    gr_batch_builder_add(&bb, T0, NULL, -1, "v", 1, NULL, 0);
    ASSERT_EQ(gr_batch_builder_finish(&bb, NULL, &wb), GR_ERR_NONE);
    gr_batch_builder_free(&bb);
    gr_produce_validate_opts_init(&opts, T0);
    opts.arena = &arena;
    opts.compacted = true;
    opts.topic_partition = "c-0";
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_INVALID_RECORD);
    ASSERT_STREQ(res.message,
                 "One or more records have been rejected due to 1 record errors in total, and only showing "
                 "the first three errors at most: [RecordError(batchIndex=1, message='Compacted topic "
                 "cannot accept message without key in topic partition c-0')]");
    /* A client batch claiming LogAppendTime on a LogAppendTime topic. */
    gr_wbuf_reset(&wb);
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    bo.log_append_time = true;
    bo.log_append_time_ms = T0;
    build(&wb, GR_CODEC_NONE, 2, &bo);
    opts.compacted = false;
    opts.timestamp_type = GR_TIMESTAMP_LOG_APPEND_TIME;
    ASSERT_EQ(gr_records_validate_produce(wb.mem, wb.len, &opts, &res), GR_ERR_INVALID_TIMESTAMP);
    ASSERT_EQ(res.n_record_errors, 2);
    gr_wbuf_free(&wb);
    gr_arena_free(&arena);
}

static void test_assign_offsets(void) {
    for (size_t c = 0; c < N_CODECS; c++) {
        gr_wbuf_t wb;
        gr_wbuf_init(&wb);
        build(&wb, codecs[c], 7, NULL);
        uint32_t crc = gr_be32(wb.mem + GR_BATCH_CRC_OFFSET);
        ASSERT_EQ(gr_records_assign_offsets(wb.mem, wb.len, 1000, 42, -1), GR_ERR_NONE);
        ASSERT_EQ(gr_be64(wb.mem), 1000);
        ASSERT_EQ(gr_be32(wb.mem + 12), 42);
        ASSERT_EQ(gr_be32(wb.mem + GR_BATCH_CRC_OFFSET), crc); /* not covered by the CRC */
        check_records(wb.mem, wb.len, 7, -1);
        ASSERT_EQ(gr_records_assign_offsets(wb.mem, wb.len, 2000, 43, T0 + 5555), GR_ERR_NONE);
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, wb.mem, wb.len);
        ASSERT_EQ(gr_batch_iter_next(&it, &bv, NULL, 0), GR_ERR_NONE);
        ASSERT(gr_batch_crc_ok(&bv));
        ASSERT(bv.attributes & GR_BATCH_ATTR_LOG_APPEND_TIME);
        ASSERT_EQ(gr_batch_codec(&bv), codecs[c]);
        ASSERT_EQ(bv.max_timestamp, T0 + 5555);
        ASSERT_EQ(bv.base_offset, 2000);
        check_records(wb.mem, wb.len, 7, T0 + 5555);
        /* Back to CreateTime with the real maximum: CRC recomputed again. */
        ASSERT_EQ(gr_records_set_max_timestamp(wb.mem, wb.len, GR_TIMESTAMP_CREATE_TIME, T0 + 60), GR_ERR_NONE);
        ASSERT_EQ(gr_be32(wb.mem + GR_BATCH_CRC_OFFSET), crc);
        ASSERT_EQ(gr_records_assign_offsets(wb.mem, wb.len - 1, 0, 0, -1), GR_ERR__INVALID_ARG);
        gr_wbuf_free(&wb);
    }
}

static void test_batch_iter(void) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    build(&wb, GR_CODEC_NONE, 3, NULL);
    size_t first = wb.len;
    build(&wb, GR_CODEC_SNAPPY, 4, NULL);
    size_t full = wb.len;
    build(&wb, GR_CODEC_NONE, 1, NULL);
    gr_batch_iter_t it;
    gr_batch_view_t bv;
    char why[128];
    gr_batch_iter_init(&it, wb.mem, wb.len - 3); /* fetch-style cut in the last batch */
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(bv.size, first);
    ASSERT_EQ(bv.record_count, 3);
    ASSERT_EQ(bv.producer_id, -1);
    ASSERT_EQ(bv.base_sequence, -1);
    ASSERT_EQ(bv.base_timestamp, T0);
    ASSERT_EQ(bv.max_timestamp, T0 + 20);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR_NONE);
    ASSERT_EQ(gr_batch_codec(&bv), GR_CODEC_SNAPPY);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR__INCOMPLETE);
    ASSERT_EQ(gr_batch_iter_offset(&it), full);
    gr_batch_iter_init(&it, wb.mem, 0);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR__NOENT);
    static const uint8_t junk[20] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    gr_batch_iter_init(&it, junk, sizeof(junk));
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, why, sizeof(why)), GR_ERR_CORRUPT_MESSAGE);
    /* Idempotent producer fields survive the builder. */
    gr_wbuf_reset(&wb);
    gr_batch_builder_opts_t bo;
    gr_batch_builder_opts_init(&bo);
    bo.producer_id = 4242;
    bo.producer_epoch = 3;
    bo.base_sequence = 17;
    bo.transactional = true;
    build(&wb, GR_CODEC_ZSTD, 2, &bo);
    gr_produce_validate_result_t res;
    ASSERT_EQ(validate(wb.mem, wb.len, &res), GR_ERR_NONE);
    ASSERT_EQ(res.batch.producer_id, 4242);
    ASSERT_EQ(res.batch.producer_epoch, 3);
    ASSERT_EQ(res.batch.base_sequence, 17);
    ASSERT(res.batch.attributes & GR_BATCH_ATTR_TRANSACTIONAL);
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    ASSERT_EQ(gr_batch_builder_finish(&bb, NULL, &wb), GR_ERR__INVALID_ARG);
    gr_batch_builder_free(&bb);
    gr_wbuf_free(&wb);
}

int main(void) {
    RUN_TEST(test_crc32c);
    RUN_TEST(test_round_trip_all_codecs);
    RUN_TEST(test_corruptions);
    RUN_TEST(test_sizes_and_shapes);
    RUN_TEST(test_record_errors);
    RUN_TEST(test_assign_offsets);
    RUN_TEST(test_batch_iter);
    return 0;
}
