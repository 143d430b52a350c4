/* Kafka compression codecs over zlib, snappy, lz4frame and zstd.
 *
 * Every decompressor writes into the output through out_window(), which never
 * hands out more than max_out + 1 bytes in total: producing that one extra
 * byte proves the stream is larger than allowed, without ever allocating the
 * whole bomb. */
#include "proto/compress.h"

#include <limits.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define GR__CHUNK (64 * 1024)
/* snappy-java's default block size (SnappyOutputStream), which Kafka uses. */
#define GR__XERIAL_BLOCK (32 * 1024)

static const uint8_t xerial_magic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
#define GR__XERIAL_HDR 16 /* magic, int32 version, int32 compatible version */

const char *gr_codec_name(int codec) {
    static const char *names[] = {"none", "gzip", "snappy", "lz4", "zstd"};
    return codec >= 0 && codec <= 4 ? names[codec] : "unknown";
}

/* Decompression state shared by the codecs: where the output started and the cap. */
typedef struct dctx {
    gr_wbuf_t *out;
    size_t start, max_out;
    char *errstr;
    size_t errstr_size;
} dctx_t;

/* Reserve the next output window (at most max_out + 1 bytes produced overall). */
static uint8_t *out_window(dctx_t *d, size_t *avail) {
    size_t produced = d->out->len - d->start;
    size_t left = d->max_out + 1 - produced;
    *avail = left < GR__CHUNK ? left : GR__CHUNK;
    return gr_wbuf_reserve(d->out, *avail);
}

/* Give back the unused tail of a window; true if the output is over the cap. */
static bool out_commit(dctx_t *d, size_t avail, size_t used) {
    d->out->len -= avail - used;
    return d->out->len - d->start > d->max_out;
}

static gr_err_t too_large(dctx_t *d, const char *codec) {
    d->out->len = d->start;
    return gr_err_fmt(GR_ERR_MESSAGE_TOO_LARGE, d->errstr, d->errstr_size,
                      "%s: decompressed size exceeds the limit of %zu bytes", codec, d->max_out);
}

static gr_err_t corrupt(dctx_t *d, const char *codec, const char *why) {
    d->out->len = d->start;
    return gr_err_fmt(GR_ERR_CORRUPT_MESSAGE, d->errstr, d->errstr_size, "%s: %s", codec, why);
}

/* ---- gzip ---- */

static gr_err_t gzip_compress(const uint8_t *in, size_t len, gr_wbuf_t *out) {
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (len > UINT_MAX) return GR_ERR__INVALID_ARG;
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return GR_ERR__NOMEM;
    size_t bound = deflateBound(&zs, (uLong)len);
    uint8_t *p = gr_wbuf_reserve(out, bound);
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)len;
    zs.next_out = p;
    zs.avail_out = (uInt)bound;
    int rc = deflate(&zs, Z_FINISH);
    out->len -= zs.avail_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        out->len -= bound - zs.avail_out;
        return GR_ERR__INVALID_ARG;
    }
    return GR_ERR_NONE;
}

/* One inflate pass over a gzip member; concatenated members are allowed,
 * as java.util.zip.GZIPInputStream reads them. */
static gr_err_t gzip_decompress(dctx_t *d, const uint8_t *in, size_t len) {
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (len > UINT_MAX) return corrupt(d, "gzip", "input too large");
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return gr_err_fmt(GR_ERR__NOMEM, d->errstr, d->errstr_size, "gzip: init");
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)len;
    gr_err_t err = GR_ERR_NONE;
    for (;;) {
        size_t avail;
        zs.next_out = out_window(d, &avail);
        zs.avail_out = (uInt)avail;
        int rc = inflate(&zs, Z_NO_FLUSH);
        if (out_commit(d, avail, avail - zs.avail_out)) {
            err = too_large(d, "gzip");
            break;
        }
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0) break;
            inflateReset(&zs);
            continue;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
            err = corrupt(d, "gzip", "truncated stream");
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            err = corrupt(d, "gzip", zs.msg ? zs.msg : "invalid stream");
            break;
        }
    }
    inflateEnd(&zs);
    return err;
}

/* ---- snappy ---- */

static gr_err_t snappy_block(const uint8_t *in, size_t len, gr_wbuf_t *out, size_t *written) {
    size_t cap = snappy_max_compressed_length(len);
    uint8_t *p = gr_wbuf_reserve(out, cap);
    size_t n = cap;
    if (snappy_compress((const char *)in, len, (char *)p, &n) != SNAPPY_OK) {
        out->len -= cap;
        return GR_ERR__INVALID_ARG;
    }
    out->len -= cap - n;
    *written = n;
    return GR_ERR_NONE;
}

/* xerial framing, 32 KiB blocks, like snappy-java's SnappyOutputStream. */
static gr_err_t snappy_compress_xerial(const uint8_t *in, size_t len, gr_wbuf_t *out) {
    size_t start = out->len;
    gr_wbuf_put(out, xerial_magic, sizeof(xerial_magic));
    gr_wbuf_i32(out, 1);
    gr_wbuf_i32(out, 1);
    for (size_t off = 0; off < len; off += GR__XERIAL_BLOCK) {
        size_t n = len - off < GR__XERIAL_BLOCK ? len - off : GR__XERIAL_BLOCK;
        size_t lenpos = out->len, written;
        gr_wbuf_i32(out, 0);
        if (snappy_block(in + off, n, out, &written)) {
            out->len = start;
            return GR_ERR__INVALID_ARG;
        }
        gr_wbuf_patch_i32(out, lenpos, (int32_t)written);
    }
    return GR_ERR_NONE;
}

/* One raw snappy block, checked against the cap before allocating. */
static gr_err_t snappy_raw(dctx_t *d, const uint8_t *in, size_t len) {
    size_t n;
    if (snappy_uncompressed_length((const char *)in, len, &n) != SNAPPY_OK)
        return corrupt(d, "snappy", "invalid block length header");
    if (n > d->max_out - (d->out->len - d->start)) return too_large(d, "snappy");
    size_t pos = d->out->len;
    uint8_t *p = gr_wbuf_reserve(d->out, n);
    size_t got = n;
    if (snappy_uncompress((const char *)in, len, (char *)p, &got) != SNAPPY_OK || got != n) {
        d->out->len = pos;
        return corrupt(d, "snappy", "invalid block");
    }
    return GR_ERR_NONE;
}

static gr_err_t snappy_xerial(dctx_t *d, const uint8_t *in, size_t len) {
    size_t off = GR__XERIAL_HDR;
    while (off < len) {
        if (len - off < 4) return corrupt(d, "snappy", "truncated xerial block length");
        uint32_t blen = gr_be32(in + off);
        off += 4;
        if (blen > len - off) return corrupt(d, "snappy", "xerial block exceeds input");
        gr_err_t err = snappy_raw(d, in + off, blen);
        if (err) return err;
        off += blen;
    }
    return GR_ERR_NONE;
}

static gr_err_t snappy_decompress(dctx_t *d, const uint8_t *in, size_t len) {
    if (len >= GR__XERIAL_HDR && !memcmp(in, xerial_magic, sizeof(xerial_magic))) return snappy_xerial(d, in, len);
    return snappy_raw(d, in, len);
}

/* ---- lz4 ---- */

static gr_err_t lz4_compress(const uint8_t *in, size_t len, gr_wbuf_t *out) {
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof(prefs));
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    size_t cap = LZ4F_compressFrameBound(len, &prefs);
    uint8_t *p = gr_wbuf_reserve(out, cap);
    size_t n = LZ4F_compressFrame(p, cap, in, len, &prefs);
    if (LZ4F_isError(n)) {
        out->len -= cap;
        return GR_ERR__INVALID_ARG;
    }
    out->len -= cap - n;
    return GR_ERR_NONE;
}

static gr_err_t lz4_decompress(dctx_t *d, const uint8_t *in, size_t len) {
    LZ4F_dctx *dc;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)))
        return gr_err_fmt(GR_ERR__NOMEM, d->errstr, d->errstr_size, "lz4: init");
    gr_err_t err = GR_ERR_NONE;
    size_t off = 0, hint = 1;
    while (hint != 0) {
        size_t avail, used_in = len - off;
        uint8_t *p = out_window(d, &avail);
        size_t used_out = avail;
        hint = LZ4F_decompress(dc, p, &used_out, in + off, &used_in, NULL);
        off += used_in;
        if (LZ4F_isError(hint)) {
            err = corrupt(d, "lz4", LZ4F_getErrorName(hint));
            break;
        }
        if (out_commit(d, avail, used_out)) {
            err = too_large(d, "lz4");
            break;
        }
        if (hint != 0 && off == len && used_out == 0) {
            err = corrupt(d, "lz4", "truncated frame");
            break;
        }
    }
    if (!err && off != len) err = corrupt(d, "lz4", "trailing bytes after frame");
    LZ4F_freeDecompressionContext(dc);
    return err;
}

/* ---- zstd ---- */

static gr_err_t zstd_compress(const uint8_t *in, size_t len, gr_wbuf_t *out) {
    size_t cap = ZSTD_compressBound(len);
    uint8_t *p = gr_wbuf_reserve(out, cap);
    size_t n = ZSTD_compress(p, cap, in, len, ZSTD_CLEVEL_DEFAULT);
    if (ZSTD_isError(n)) {
        out->len -= cap;
        return GR_ERR__INVALID_ARG;
    }
    out->len -= cap - n;
    return GR_ERR_NONE;
}

/* Streaming, since producers (librdkafka, zstd-jni) may leave the content size out. */
static gr_err_t zstd_decompress(dctx_t *d, const uint8_t *in, size_t len) {
    ZSTD_DStream *zs = ZSTD_createDStream();
    if (!zs) return gr_err_fmt(GR_ERR__NOMEM, d->errstr, d->errstr_size, "zstd: init");
    ZSTD_inBuffer ib = {in, len, 0};
    gr_err_t err = GR_ERR_NONE;
    size_t hint = 1;
    while (hint != 0 || ib.pos < ib.size) {
        size_t avail;
        ZSTD_outBuffer ob = {out_window(d, &avail), 0, 0};
        ob.size = avail;
        size_t before = ib.pos;
        hint = ZSTD_decompressStream(zs, &ob, &ib);
        if (ZSTD_isError(hint)) {
            err = corrupt(d, "zstd", ZSTD_getErrorName(hint));
            break;
        }
        if (out_commit(d, avail, ob.pos)) {
            err = too_large(d, "zstd");
            break;
        }
        if (hint != 0 && ib.pos == before && ob.pos == 0) {
            err = corrupt(d, "zstd", "truncated frame");
            break;
        }
    }
    ZSTD_freeDStream(zs);
    return err;
}

gr_err_t gr_compress(int codec, const void *in, size_t len, gr_wbuf_t *out) {
    const uint8_t *p = in;
    switch (codec) {
    case GR_CODEC_NONE: gr_wbuf_put(out, p, len); return GR_ERR_NONE;
    case GR_CODEC_GZIP: return gzip_compress(p, len, out);
    case GR_CODEC_SNAPPY: return snappy_compress_xerial(p, len, out);
    case GR_CODEC_LZ4: return lz4_compress(p, len, out);
    case GR_CODEC_ZSTD: return zstd_compress(p, len, out);
    default: return GR_ERR_UNSUPPORTED_COMPRESSION_TYPE;
    }
}

gr_err_t gr_decompress(int codec, const void *in, size_t len, gr_wbuf_t *out, size_t max_out, char *errstr,
                       size_t errstr_size) {
    /* Clamp so that max_out + 1 in out_window cannot wrap. */
    dctx_t d = {out, out->len, max_out < SIZE_MAX / 2 ? max_out : SIZE_MAX / 2, errstr, errstr_size};
    const uint8_t *p = in;
    switch (codec) {
    case GR_CODEC_NONE:
        if (len > max_out) return too_large(&d, "none");
        gr_wbuf_put(out, p, len);
        return GR_ERR_NONE;
    case GR_CODEC_GZIP: return gzip_decompress(&d, p, len);
    case GR_CODEC_SNAPPY: return snappy_decompress(&d, p, len);
    case GR_CODEC_LZ4: return lz4_decompress(&d, p, len);
    case GR_CODEC_ZSTD: return zstd_decompress(&d, p, len);
    default:
        return gr_err_fmt(GR_ERR_UNSUPPORTED_COMPRESSION_TYPE, errstr, errstr_size, "unknown compression codec %d",
                          codec);
    }
}
