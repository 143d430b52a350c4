/* Compression codecs: round trips, Kafka framing details, bounds, and real
 * compressed batches produced by kcat (librdkafka) from the wire captures. */
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "proto/compress.h"
#include "proto/records.h"
#include "testutil.h"

#ifndef GR_SOURCE_DIR
#define GR_SOURCE_DIR "."
#endif

static const int codecs[] = {GR_CODEC_NONE, GR_CODEC_GZIP, GR_CODEC_SNAPPY, GR_CODEC_LZ4, GR_CODEC_ZSTD};

static uint8_t *make_input(size_t n, unsigned seed) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (i % 7 == 0) ? (uint8_t)(seed >> 16) : (uint8_t)("kafka record "[i % 13]);
    }
    return p;
}

static void test_round_trip(void) {
    static const size_t sizes[] = {0, 1, 17, 1000, 32 * 1024, 32 * 1024 + 1, 200000};
    for (size_t c = 0; c < sizeof(codecs) / sizeof(codecs[0]); c++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            uint8_t *in = make_input(sizes[s], (unsigned)(c * 31 + s));
            gr_wbuf_t z, out;
            gr_wbuf_init(&z);
            gr_wbuf_init(&out);
            gr_wbuf_put(&out, "pre", 3); /* output is appended */
            ASSERT_EQ(gr_compress(codecs[c], in, sizes[s], &z), GR_ERR_NONE);
            char why[128] = "";
            ASSERT_EQ(gr_decompress(codecs[c], z.mem, z.len, &out, sizes[s], why, sizeof(why)), GR_ERR_NONE);
            ASSERT_EQ(out.len, sizes[s] + 3);
            ASSERT_MEMEQ(out.mem, "pre", 3);
            if (sizes[s]) ASSERT_MEMEQ(out.mem + 3, in, sizes[s]);
            /* One byte less room than needed: refused, output untouched. */
            if (sizes[s]) {
                ASSERT_EQ(gr_decompress(codecs[c], z.mem, z.len, &out, sizes[s] - 1, why, sizeof(why)),
                          GR_ERR_MESSAGE_TOO_LARGE);
                ASSERT_EQ(out.len, sizes[s] + 3);
            }
            gr_wbuf_free(&z);
            gr_wbuf_free(&out);
            free(in);
        }
    }
}

static void test_framing(void) {
    uint8_t *in = make_input(100000, 3);
    gr_wbuf_t z;
    gr_wbuf_init(&z);
    /* LZ4 frame as KafkaLZ4BlockOutputStream: FLG 0x60 (v01, independent blocks),
     * BD 0x40 (64 KiB), header checksum 0x82 = (xxh32(FLG,BD) >> 8) & 0xff. */
    ASSERT_EQ(gr_compress(GR_CODEC_LZ4, in, 100000, &z), GR_ERR_NONE);
    static const uint8_t lz4_hdr[] = {0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82};
    ASSERT_MEMEQ(z.mem, lz4_hdr, sizeof(lz4_hdr));
    gr_wbuf_reset(&z);
    /* snappy-java framing: magic, version 1, compatible 1, 32 KiB blocks. */
    ASSERT_EQ(gr_compress(GR_CODEC_SNAPPY, in, 100000, &z), GR_ERR_NONE);
    static const uint8_t xerial[] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
    ASSERT_MEMEQ(z.mem, xerial, sizeof(xerial));
    size_t off = 16, blocks = 0, total = 0;
    while (off < z.len) {
        uint32_t n = gr_be32(z.mem + off);
        size_t ulen;
        ASSERT_EQ(snappy_uncompressed_length((const char *)z.mem + off + 4, n, &ulen), SNAPPY_OK);
        ASSERT(ulen <= 32 * 1024);
        total += ulen;
        off += 4 + n;
        blocks++;
    }
    ASSERT_EQ(off, z.len);
    ASSERT_EQ(blocks, 4);
    ASSERT_EQ(total, 100000);
    gr_wbuf_reset(&z);
    /* gzip member. */
    ASSERT_EQ(gr_compress(GR_CODEC_GZIP, in, 100000, &z), GR_ERR_NONE);
    ASSERT_EQ(z.mem[0], 0x1f);
    ASSERT_EQ(z.mem[1], 0x8b);
    gr_wbuf_free(&z);
    free(in);
}

static void test_raw_snappy(void) {
    uint8_t *in = make_input(70000, 9);
    size_t cap = snappy_max_compressed_length(70000), n = cap;
    char *z = malloc(cap);
    ASSERT_EQ(snappy_compress((const char *)in, 70000, z, &n), SNAPPY_OK);
    gr_wbuf_t out;
    gr_wbuf_init(&out);
    ASSERT_EQ(gr_decompress(GR_CODEC_SNAPPY, z, n, &out, 70000, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(out.len, 70000);
    ASSERT_MEMEQ(out.mem, in, 70000);
    gr_wbuf_free(&out);
    free(z);
    free(in);
}

static void test_bombs_and_garbage(void) {
    size_t big = 8u << 20;
    uint8_t *zeros = calloc(1, big);
    char why[128];
    for (size_t c = 1; c < sizeof(codecs) / sizeof(codecs[0]); c++) {
        gr_wbuf_t z, out;
        gr_wbuf_init(&z);
        gr_wbuf_init(&out);
        ASSERT_EQ(gr_compress(codecs[c], zeros, big, &z), GR_ERR_NONE);
        ASSERT_EQ(gr_decompress(codecs[c], z.mem, z.len, &out, 1 << 20, why, sizeof(why)), GR_ERR_MESSAGE_TOO_LARGE);
        ASSERT_EQ(out.len, 0);
        ASSERT(out.cap <= (2u << 20)); /* never allocated the whole bomb */
        /* Every truncation is refused, never crashes. xerial framing has no end
         * marker, so a cut right after the 16-byte header is a valid empty stream. */
        for (size_t k = 0; k < z.len && k < 64; k++) {
            if (codecs[c] == GR_CODEC_SNAPPY && k == 16) continue;
            gr_err_t err = gr_decompress(codecs[c], z.mem, k, &out, big, why, sizeof(why));
            ASSERT_EQ(err, GR_ERR_CORRUPT_MESSAGE);
            ASSERT_EQ(out.len, 0);
        }
        gr_err_t err = gr_decompress(codecs[c], "garbage!garbage!garbage!", 24, &out, big, why, sizeof(why));
        if (err != GR_ERR_CORRUPT_MESSAGE) fprintf(stderr, "codec %d: %d %s\n", codecs[c], err, why);
        ASSERT_EQ(err, GR_ERR_CORRUPT_MESSAGE);
        gr_wbuf_free(&z);
        gr_wbuf_free(&out);
    }
    gr_wbuf_t out;
    gr_wbuf_init(&out);
    ASSERT_EQ(gr_decompress(5, "x", 1, &out, 10, why, sizeof(why)), GR_ERR_UNSUPPORTED_COMPRESSION_TYPE);
    ASSERT_EQ(gr_compress(7, "x", 1, &out), GR_ERR_UNSUPPORTED_COMPRESSION_TYPE);
    ASSERT_STREQ(gr_codec_name(3), "lz4");
    ASSERT_STREQ(gr_codec_name(9), "unknown");
    gr_wbuf_free(&out);
    free(zeros);
}

/* ---- wire captures ---- */

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n);
    ASSERT_EQ(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void skip_str16(gr_rbuf_t *rb) {
    int16_t n;
    ASSERT(gr_rbuf_i16(rb, &n));
    if (n > 0) ASSERT(gr_rbuf_skip(rb, (size_t)n));
}

/* Produce v7: size, header v1 (key, version, correlation id, client id), then
 * TransactionalId, Acks, TimeoutMs, [Topic: Name, [Partition: Index, Records]]. */
static void find_records(const uint8_t *frame, size_t len, const uint8_t **records, size_t *rlen) {
    gr_rbuf_t rb;
    int16_t key, ver, acks;
    int32_t size, corr, timeout, ntopics, nparts, index, n;
    gr_rbuf_init(&rb, frame, len);
    ASSERT(gr_rbuf_i32(&rb, &size) && (size_t)size == len - 4);
    ASSERT(gr_rbuf_i16(&rb, &key) && key == 0);
    ASSERT(gr_rbuf_i16(&rb, &ver) && ver == 7);
    ASSERT(gr_rbuf_i32(&rb, &corr));
    skip_str16(&rb);
    skip_str16(&rb);
    ASSERT(gr_rbuf_i16(&rb, &acks) && gr_rbuf_i32(&rb, &timeout));
    ASSERT(gr_rbuf_i32(&rb, &ntopics) && ntopics == 1);
    skip_str16(&rb);
    ASSERT(gr_rbuf_i32(&rb, &nparts) && nparts == 1);
    ASSERT(gr_rbuf_i32(&rb, &index) && gr_rbuf_i32(&rb, &n) && n > 0);
    ASSERT(gr_rbuf_bytes(&rb, (size_t)n, records));
    ASSERT_EQ(gr_rbuf_remaining(&rb), 0);
    *rlen = (size_t)n;
}

static void check_capture(const char *dir, const char *codec_name, int codec) {
    char path[512];
    size_t len = 0;
    uint8_t *frame = NULL;
    for (int seq = 1; seq < 20 && !frame; seq++) {
        snprintf(path, sizeof(path), "%s/1-kcat-produce-%s/%03d-Produce-v7-request.bin", dir, codec_name, seq);
        frame = read_file(path, &len);
    }
    ASSERT(frame != NULL);
    const uint8_t *records;
    size_t rlen;
    find_records(frame, len, &records, &rlen);

    gr_batch_iter_t it;
    gr_batch_view_t bv;
    gr_batch_iter_init(&it, records, rlen);
    ASSERT_EQ(gr_batch_iter_next(&it, &bv, NULL, 0), GR_ERR_NONE);
    ASSERT_EQ(gr_batch_codec(&bv), codec);
    ASSERT(gr_batch_crc_ok(&bv));
    ASSERT_EQ(bv.record_count, 20);

    gr_record_iter_t ri;
    gr_record_t rec;
    gr_wbuf_t scratch;
    gr_wbuf_init(&scratch);
    char why[200];
    ASSERT_EQ(gr_record_iter_init(&ri, &bv, &scratch, 0, why, sizeof(why)), GR_ERR_NONE);
    for (int i = 1; i <= 20; i++) {
        char want[64], wkey[16];
        ASSERT_EQ(gr_record_iter_next(&ri, &rec, why, sizeof(why)), GR_ERR_NONE);
        snprintf(want, sizeof(want), "kcat %s message %d", codec_name, i);
        snprintf(wkey, sizeof(wkey), "key-%d", i);
        ASSERT_EQ(rec.value_len, strlen(want));
        ASSERT_MEMEQ(rec.value, want, strlen(want));
        ASSERT_EQ(rec.key_len, strlen(wkey));
        ASSERT_MEMEQ(rec.key, wkey, strlen(wkey));
        ASSERT_EQ(rec.offset_delta, i - 1);
    }
    ASSERT_EQ(gr_record_iter_next(&ri, &rec, why, sizeof(why)), GR_ERR__NOENT);

    gr_produce_validate_opts_t opts;
    gr_produce_validate_result_t res;
    gr_produce_validate_opts_init(&opts, 0);
    opts.produce_version = 7;
    ASSERT_EQ(gr_records_validate_produce(records, rlen, &opts, &res), GR_ERR_NONE);
    ASSERT_EQ(res.valid_bytes, rlen);
    gr_wbuf_free(&scratch);
    free(frame);
}

static void test_wire_captures(void) {
    /* Real kcat frames, checked in (tests/data/wire-captures/README.md). */
    const char *dir = GR_SOURCE_DIR "/tests/data/wire-captures";
    check_capture(dir, "none", GR_CODEC_NONE);
    check_capture(dir, "gzip", GR_CODEC_GZIP);
    check_capture(dir, "snappy", GR_CODEC_SNAPPY);
    check_capture(dir, "lz4", GR_CODEC_LZ4);
    check_capture(dir, "zstd", GR_CODEC_ZSTD);
}

int main(void) {
    RUN_TEST(test_round_trip);
    RUN_TEST(test_framing);
    RUN_TEST(test_raw_snappy);
    RUN_TEST(test_bombs_and_garbage);
    RUN_TEST(test_wire_captures);
    return 0;
}
