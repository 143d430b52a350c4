/* Kafka record-batch compression codecs (attributes bits 0-2 of a v2 batch).
 *
 * Pure functions over byte buffers; any thread may call them. The output goes
 * to a caller-owned gr_wbuf_t and is appended (the buffer is not reset), so a
 * caller can put a header in front and compress straight after it.
 *
 * Wire formats, as the Java client writes them:
 *   gzip    RFC 1952 gzip member (zlib with the gzip wrapper).
 *   snappy  snappy-java ("xerial") framing: 8-byte magic 82 'SNAPPY' 00,
 *           int32 version (1), int32 compatible version (1), then blocks of
 *           int32 big-endian compressed length + raw snappy block. librdkafka
 *           writes *raw* snappy without framing, so decompression accepts both.
 *   lz4     LZ4 frame format (KafkaLZ4BlockOutputStream): 64 KiB independent
 *           blocks, no content size, no checksums except the header checksum.
 *   zstd    a zstd frame; the content size may be absent, so decompression
 *           streams. */
#ifndef GR_PROTO_COMPRESS_H
#define GR_PROTO_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef enum gr_codec {
    GR_CODEC_NONE = 0,
    GR_CODEC_GZIP = 1,
    GR_CODEC_SNAPPY = 2,
    GR_CODEC_LZ4 = 3,
    GR_CODEC_ZSTD = 4,
} gr_codec_t;

/** Lower-case Kafka name of a codec ("gzip"), or "unknown" for ids outside 0-4. */
const char *gr_codec_name(int codec);

/** Compress len bytes of in with codec and append the result to out.
 *  GR_CODEC_NONE copies. Returns GR_ERR_NONE, GR_ERR_UNSUPPORTED_COMPRESSION_TYPE
 *  for an unknown codec, or GR_ERR__INVALID_ARG if the library refuses the input. */
gr_err_t gr_compress(int codec, const void *in, size_t len, gr_wbuf_t *out);

/** Decompress len bytes of in and append the result to out.
 *
 *  At most max_out bytes are produced; a stream that would produce more fails
 *  with GR_ERR_MESSAGE_TOO_LARGE (decompression bombs never allocate more than
 *  max_out plus one block). Malformed, truncated or trailing-garbage input
 *  fails with GR_ERR_CORRUPT_MESSAGE. Unknown codec ids give
 *  GR_ERR_UNSUPPORTED_COMPRESSION_TYPE. On failure out keeps its old length.
 *  errstr (may be NULL) receives a one-line explanation. */
gr_err_t gr_decompress(int codec, const void *in, size_t len, gr_wbuf_t *out, size_t max_out, char *errstr,
                       size_t errstr_size);

#endif
