/* Bounded reader and growable writer for Kafka's big-endian wire format.
 *
 * gr_rbuf_t is a view over bytes it does not own; every read is bounds-checked
 * and a failed read latches `err` so decoders can check once at the end of a
 * struct (librdkafka's rd_slice_t, h2o's decoders).
 *
 * gr_wbuf_t owns a growable memory buffer plus an optional list of "external"
 * segments: byte ranges of a file (log segment) that go out with sendfile or
 * pread without being copied into the buffer first. The output is the
 * sequence: mem[0..ext[0].mem_pos) ext[0] mem[ext[0].mem_pos..ext[1].mem_pos) ... */
#ifndef GR_BASE_BUF_H
#define GR_BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct gr_rbuf {
    const uint8_t *start; /* first byte of the view */
    const uint8_t *pos;   /* next byte to read */
    const uint8_t *end;   /* one past the last byte */
    gr_err_t err;         /* first failure (GR_ERR__INCOMPLETE or GR_ERR__MALFORMED), latched */
    const char *why;      /* static description of the first failure */
} gr_rbuf_t;

static inline void gr_rbuf_init(gr_rbuf_t *rb, const void *p, size_t len) {
    rb->start = rb->pos = (const uint8_t *)p;
    rb->end = p ? rb->pos + len : rb->pos; /* NULL + 0 is undefined behaviour */
    rb->err = GR_ERR_NONE;
    rb->why = NULL;
}
static inline size_t gr_rbuf_remaining(const gr_rbuf_t *rb) { return (size_t)(rb->end - rb->pos); }
static inline size_t gr_rbuf_offset(const gr_rbuf_t *rb) { return (size_t)(rb->pos - rb->start); }

/** Latch an error (only the first one is kept). Always returns false. */
bool gr_rbuf_fail(gr_rbuf_t *rb, gr_err_t err, const char *why);

/* Each reader returns false (and leaves *out untouched) after an error. */
bool gr_rbuf_i8(gr_rbuf_t *rb, int8_t *out);
bool gr_rbuf_i16(gr_rbuf_t *rb, int16_t *out);
bool gr_rbuf_i32(gr_rbuf_t *rb, int32_t *out);
bool gr_rbuf_i64(gr_rbuf_t *rb, int64_t *out);
bool gr_rbuf_u16(gr_rbuf_t *rb, uint16_t *out);
bool gr_rbuf_u32(gr_rbuf_t *rb, uint32_t *out);
bool gr_rbuf_f64(gr_rbuf_t *rb, double *out);
bool gr_rbuf_uvarint(gr_rbuf_t *rb, uint32_t *out);  /* at most 5 bytes */
bool gr_rbuf_uvarlong(gr_rbuf_t *rb, uint64_t *out); /* at most 10 bytes */
bool gr_rbuf_varint(gr_rbuf_t *rb, int32_t *out);    /* zigzag */
bool gr_rbuf_varlong(gr_rbuf_t *rb, int64_t *out);   /* zigzag */
/** Point *out at the next n bytes without copying and skip them. */
bool gr_rbuf_bytes(gr_rbuf_t *rb, size_t n, const uint8_t **out);
bool gr_rbuf_skip(gr_rbuf_t *rb, size_t n);

typedef struct gr_wbuf_ext {
    size_t mem_pos;               /* position in mem where this segment is spliced in */
    int fd;                       /* file to read from */
    int64_t off;                  /* file offset */
    size_t len;                   /* bytes */
    void (*release)(void *owner); /* called once the bytes are sent or dropped; may be NULL */
    void *owner;                  /* keeps the file alive (a refcounted segment) */
} gr_wbuf_ext_t;

typedef struct gr_wbuf {
    uint8_t *mem;
    size_t len, cap;
    gr_wbuf_ext_t *ext;
    size_t n_ext, cap_ext;
    size_t ext_total; /* sum of ext[].len */
} gr_wbuf_t;

void gr_wbuf_init(gr_wbuf_t *wb);
void gr_wbuf_free(gr_wbuf_t *wb);
void gr_wbuf_reset(gr_wbuf_t *wb);
/** Total output size: memory bytes plus external segments. */
static inline size_t gr_wbuf_size(const gr_wbuf_t *wb) { return wb->len + wb->ext_total; }
/** Make room for n more bytes and return a pointer to them (aborts on OOM). */
uint8_t *gr_wbuf_reserve(gr_wbuf_t *wb, size_t n);
void gr_wbuf_put(gr_wbuf_t *wb, const void *p, size_t n);
/** Append printf-formatted text (no NUL), whatever its length. */
void gr_wbuf_printf(gr_wbuf_t *wb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gr_wbuf_i8(gr_wbuf_t *wb, int8_t v);
void gr_wbuf_i16(gr_wbuf_t *wb, int16_t v);
void gr_wbuf_i32(gr_wbuf_t *wb, int32_t v);
void gr_wbuf_i64(gr_wbuf_t *wb, int64_t v);
void gr_wbuf_u16(gr_wbuf_t *wb, uint16_t v);
void gr_wbuf_u32(gr_wbuf_t *wb, uint32_t v);
void gr_wbuf_f64(gr_wbuf_t *wb, double v);
void gr_wbuf_uvarint(gr_wbuf_t *wb, uint32_t v);
void gr_wbuf_uvarlong(gr_wbuf_t *wb, uint64_t v);
void gr_wbuf_varint(gr_wbuf_t *wb, int32_t v);
void gr_wbuf_varlong(gr_wbuf_t *wb, int64_t v);
/** Overwrite 4 bytes at memory position pos with a big-endian int32 (length prefixes). */
void gr_wbuf_patch_i32(gr_wbuf_t *wb, size_t pos, int32_t v);
/** Append a file range to the output without copying it (see gr_wbuf_ext_t).
 *  release(owner) is called exactly once when the wbuf is freed or reset. */
void gr_wbuf_put_ext(gr_wbuf_t *wb, int fd, int64_t off, size_t len, void (*release)(void *), void *owner);
/** Number of bytes a uvarint encoding of v takes. */
size_t gr_uvarint_size(uint32_t v);

/* Big-endian helpers for fixed layouts (record batches, index files). */
static inline uint16_t gr_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t gr_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t gr_be64(const uint8_t *p) { return ((uint64_t)gr_be32(p) << 32) | gr_be32(p + 4); }
static inline void gr_put_be16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void gr_put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void gr_put_be64(uint8_t *p, uint64_t v) {
    gr_put_be32(p, (uint32_t)(v >> 32));
    gr_put_be32(p + 4, (uint32_t)v);
}

#endif
