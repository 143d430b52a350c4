#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gr_rbuf_fail(gr_rbuf_t *rb, gr_err_t err, const char *why) {
    if (rb->err == GR_ERR_NONE) {
        rb->err = err;
        rb->why = why;
    }
    return false;
}

static inline bool need(gr_rbuf_t *rb, size_t n) {
    if (rb->err) return false;
    if ((size_t)(rb->end - rb->pos) < n) return gr_rbuf_fail(rb, GR_ERR__INCOMPLETE, "truncated field");
    return true;
}

bool gr_rbuf_i8(gr_rbuf_t *rb, int8_t *out) {
    if (!need(rb, 1)) return false;
    *out = (int8_t)*rb->pos++;
    return true;
}
bool gr_rbuf_i16(gr_rbuf_t *rb, int16_t *out) {
    if (!need(rb, 2)) return false;
    *out = (int16_t)gr_be16(rb->pos);
    rb->pos += 2;
    return true;
}
bool gr_rbuf_u16(gr_rbuf_t *rb, uint16_t *out) {
    if (!need(rb, 2)) return false;
    *out = gr_be16(rb->pos);
    rb->pos += 2;
    return true;
}
bool gr_rbuf_i32(gr_rbuf_t *rb, int32_t *out) {
    if (!need(rb, 4)) return false;
    *out = (int32_t)gr_be32(rb->pos);
    rb->pos += 4;
    return true;
}
bool gr_rbuf_u32(gr_rbuf_t *rb, uint32_t *out) {
    if (!need(rb, 4)) return false;
    *out = gr_be32(rb->pos);
    rb->pos += 4;
    return true;
}
bool gr_rbuf_i64(gr_rbuf_t *rb, int64_t *out) {
    if (!need(rb, 8)) return false;
    *out = (int64_t)gr_be64(rb->pos);
    rb->pos += 8;
    return true;
}
bool gr_rbuf_f64(gr_rbuf_t *rb, double *out) {
    if (!need(rb, 8)) return false;
    uint64_t u = gr_be64(rb->pos);
    memcpy(out, &u, 8);
    rb->pos += 8;
    return true;
}

bool gr_rbuf_uvarlong(gr_rbuf_t *rb, uint64_t *out) {
    if (rb->err) return false;
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (rb->pos >= rb->end) return gr_rbuf_fail(rb, GR_ERR__INCOMPLETE, "truncated varint");
        uint8_t b = *rb->pos++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return gr_rbuf_fail(rb, GR_ERR__MALFORMED, "varlong longer than 10 bytes");
}

bool gr_rbuf_uvarint(gr_rbuf_t *rb, uint32_t *out) {
    if (rb->err) return false;
    uint32_t v = 0;
    for (int i = 0; i < 5; i++) {
        if (rb->pos >= rb->end) return gr_rbuf_fail(rb, GR_ERR__INCOMPLETE, "truncated varint");
        uint8_t b = *rb->pos++;
        if (i == 4 && (b & 0xf0)) return gr_rbuf_fail(rb, GR_ERR__MALFORMED, "varint overflows 32 bits");
        v |= (uint32_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return gr_rbuf_fail(rb, GR_ERR__MALFORMED, "varint longer than 5 bytes");
}

bool gr_rbuf_varint(gr_rbuf_t *rb, int32_t *out) {
    uint32_t u;
    if (!gr_rbuf_uvarint(rb, &u)) return false;
    *out = (int32_t)((u >> 1) ^ (~(u & 1) + 1));
    return true;
}

bool gr_rbuf_varlong(gr_rbuf_t *rb, int64_t *out) {
    uint64_t u;
    if (!gr_rbuf_uvarlong(rb, &u)) return false;
    *out = (int64_t)((u >> 1) ^ (~(u & 1) + 1));
    return true;
}

bool gr_rbuf_bytes(gr_rbuf_t *rb, size_t n, const uint8_t **out) {
    if (!need(rb, n)) return false;
    *out = rb->pos;
    rb->pos += n;
    return true;
}

bool gr_rbuf_skip(gr_rbuf_t *rb, size_t n) {
    if (!need(rb, n)) return false;
    rb->pos += n;
    return true;
}

void gr_wbuf_init(gr_wbuf_t *wb) { memset(wb, 0, sizeof(*wb)); }

static void release_ext(gr_wbuf_t *wb) {
    for (size_t i = 0; i < wb->n_ext; i++)
        if (wb->ext[i].release) wb->ext[i].release(wb->ext[i].owner);
    wb->n_ext = 0;
    wb->ext_total = 0;
}

void gr_wbuf_free(gr_wbuf_t *wb) {
    release_ext(wb);
    free(wb->mem);
    free(wb->ext);
    memset(wb, 0, sizeof(*wb));
}

void gr_wbuf_reset(gr_wbuf_t *wb) {
    release_ext(wb);
    wb->len = 0;
}

uint8_t *gr_wbuf_reserve(gr_wbuf_t *wb, size_t n) {
    if (wb->cap - wb->len < n || !wb->mem) {
        size_t cap = wb->cap ? wb->cap : 256;
        while (cap - wb->len < n) cap *= 2;
        uint8_t *m = realloc(wb->mem, cap);
        if (!m) abort();
        wb->mem = m;
        wb->cap = cap;
    }
    uint8_t *p = wb->mem + wb->len;
    wb->len += n;
    return p;
}

void gr_wbuf_put(gr_wbuf_t *wb, const void *p, size_t n) {
    if (n) memcpy(gr_wbuf_reserve(wb, n), p, n);
}
void gr_wbuf_printf(gr_wbuf_t *wb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    char *dst = (char *)gr_wbuf_reserve(wb, (size_t)n + 1); /* vsnprintf writes the NUL too */
    va_start(ap, fmt);
    vsnprintf(dst, (size_t)n + 1, fmt, ap);
    va_end(ap);
    wb->len--; /* the NUL is not part of the output */
}
void gr_wbuf_i8(gr_wbuf_t *wb, int8_t v) { *gr_wbuf_reserve(wb, 1) = (uint8_t)v; }
void gr_wbuf_i16(gr_wbuf_t *wb, int16_t v) { gr_put_be16(gr_wbuf_reserve(wb, 2), (uint16_t)v); }
void gr_wbuf_u16(gr_wbuf_t *wb, uint16_t v) { gr_put_be16(gr_wbuf_reserve(wb, 2), v); }
void gr_wbuf_i32(gr_wbuf_t *wb, int32_t v) { gr_put_be32(gr_wbuf_reserve(wb, 4), (uint32_t)v); }
void gr_wbuf_u32(gr_wbuf_t *wb, uint32_t v) { gr_put_be32(gr_wbuf_reserve(wb, 4), v); }
void gr_wbuf_i64(gr_wbuf_t *wb, int64_t v) { gr_put_be64(gr_wbuf_reserve(wb, 8), (uint64_t)v); }
void gr_wbuf_f64(gr_wbuf_t *wb, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    gr_put_be64(gr_wbuf_reserve(wb, 8), u);
}

void gr_wbuf_uvarlong(gr_wbuf_t *wb, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    gr_wbuf_put(wb, tmp, n);
}
void gr_wbuf_uvarint(gr_wbuf_t *wb, uint32_t v) { gr_wbuf_uvarlong(wb, v); }
void gr_wbuf_varint(gr_wbuf_t *wb, int32_t v) {
    gr_wbuf_uvarlong(wb, (uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31)));
}
void gr_wbuf_varlong(gr_wbuf_t *wb, int64_t v) { gr_wbuf_uvarlong(wb, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

void gr_wbuf_patch_i32(gr_wbuf_t *wb, size_t pos, int32_t v) { gr_put_be32(wb->mem + pos, (uint32_t)v); }

void gr_wbuf_put_ext(gr_wbuf_t *wb, int fd, int64_t off, size_t len, void (*release)(void *), void *owner) {
    if (!len) {
        if (release) release(owner);
        return;
    }
    if (wb->n_ext == wb->cap_ext) {
        size_t cap = wb->cap_ext ? wb->cap_ext * 2 : 8;
        gr_wbuf_ext_t *e = realloc(wb->ext, cap * sizeof(*e));
        if (!e) abort();
        wb->ext = e;
        wb->cap_ext = cap;
    }
    wb->ext[wb->n_ext++] =
        (gr_wbuf_ext_t){.mem_pos = wb->len, .fd = fd, .off = off, .len = len, .release = release, .owner = owner};
    wb->ext_total += len;
}

size_t gr_uvarint_size(uint32_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
