/* CRC-32C (Castagnoli), reflected polynomial 0x82F63B78.
 *
 * Two implementations: the SSE4.2 crc32 instruction (8 bytes per step, three
 * independent streams at a time, combined by shifting) and a portable slicing-by-8
 * table walk. The choice is made once, on first use,
 * from __builtin_cpu_supports, so the binary still runs on CPUs without
 * SSE4.2. Tables and choice are set up by a constructor before main(), so no
 * thread can race on them; gr_crc32c also checks in case it runs before that
 * constructor (from another constructor).
 */
#include "base/crc32c.h"

#include <stdbool.h>
#include <string.h>

#define GR__CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];

static void build_tables(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ GR__CRC32C_POLY : c >> 1;
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = crc_table[0][n];
        for (int k = 1; k < 8; k++) {
            c = crc_table[0][c & 0xff] ^ (c >> 8);
            crc_table[k][n] = c;
        }
    }
}

/* Slicing-by-8: eight table lookups consume eight input bytes per step.
 * The 8-byte load is assembled little-endian explicitly so the code does not
 * depend on host byte order or alignment. */
static uint32_t crc32c_sw(uint32_t crc, const uint8_t *p, size_t len) {
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
              crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--) crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
/* ---- shifting a CRC register over zero bytes ----
 * Feeding n zero bytes into the (raw, unconditioned) register is a linear map over GF(2),
 * a 32x32 bit matrix kept as 32 columns (col[i]: the image of bit i). So the CRC of A||B is
 * shift_|B|(crc(A)) ^ crc_from_0(B), which lets three independent streams run at once. */

static uint32_t gf2_apply(const uint32_t *col, uint32_t v) {
    uint32_t r = 0;
    for (int i = 0; v; i++, v >>= 1)
        if (v & 1) r ^= col[i];
    return r;
}

/* out = a after b (both maps over the same register; out may not alias a or b) */
static void gf2_compose(uint32_t *out, const uint32_t *a, const uint32_t *b) {
    for (int i = 0; i < 32; i++) out[i] = gf2_apply(a, b[i]);
}

/* The 4 x 256 lookup tables of the map that feeds `bytes` zero bytes into the register. */
static void build_shift_table(uint32_t table[4][256], size_t bytes) {
    uint32_t power[32], result[32], tmp[32];
    power[0] = GR__CRC32C_POLY; /* one zero bit: shift right, folding the polynomial in */
    for (int i = 1; i < 32; i++) power[i] = 1u << (i - 1);
    for (int k = 0; k < 3; k++) { /* 8 bits: one byte */
        gf2_compose(tmp, power, power);
        memcpy(power, tmp, sizeof(power));
    }
    for (int i = 0; i < 32; i++) result[i] = 1u << i;
    for (; bytes; bytes >>= 1) { /* result = power^bytes, by squaring */
        if (bytes & 1) {
            gf2_compose(tmp, power, result);
            memcpy(result, tmp, sizeof(result));
        }
        gf2_compose(tmp, power, power);
        memcpy(power, tmp, sizeof(power));
    }
    for (int k = 0; k < 4; k++)
        for (uint32_t b = 0; b < 256; b++) table[k][b] = gf2_apply(result, b << (8 * k));
}

#include <nmmintrin.h>

/* Block sizes of the three-stream loops: the crc32 instruction takes 3 cycles but can start
 * one per cycle, so three independent streams run about 3x faster than one. */
#define GR__CRC_LONG  8192
#define GR__CRC_SHORT 256
static uint32_t shift_long[4][256], shift_short[4][256];

static uint32_t shift(const uint32_t table[4][256], uint32_t crc) {
    return table[0][crc & 0xff] ^ table[1][(crc >> 8) & 0xff] ^ table[2][(crc >> 16) & 0xff] ^ table[3][crc >> 24];
}

static uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Three streams of `block` bytes each, as long as 3 blocks remain; returns the register. */
__attribute__((target("sse4.2"))) static uint64_t crc_3way(uint64_t c0, const uint8_t **pp, size_t *lenp, size_t block,
                                                           const uint32_t table[4][256]) {
    const uint8_t *p = *pp;
    size_t len = *lenp;
    while (len >= 3 * block) {
        uint64_t c1 = 0, c2 = 0;
        for (const uint8_t *end = p + block; p < end; p += 8) {
            c0 = _mm_crc32_u64(c0, load64(p));
            c1 = _mm_crc32_u64(c1, load64(p + block));
            c2 = _mm_crc32_u64(c2, load64(p + 2 * block));
        }
        c0 = shift(table, (uint32_t)c0) ^ (uint32_t)c1;
        c0 = shift(table, (uint32_t)c0) ^ (uint32_t)c2;
        p += 2 * block;
        len -= 3 * block;
    }
    *pp = p, *lenp = len;
    return c0;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len) {
    uint64_t c = ~crc;
    while (len && ((uintptr_t)p & 7)) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        len--;
    }
    c = crc_3way(c, &p, &len, GR__CRC_LONG, shift_long);
    c = crc_3way(c, &p, &len, GR__CRC_SHORT, shift_short);
    while (len >= 8) {
        c = _mm_crc32_u64(c, load64(p));
        p += 8;
        len -= 8;
    }
    while (len--) c = _mm_crc32_u8((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

static bool have_sse42(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

static void build_shift_tables(void) {
    build_shift_table(shift_long, GR__CRC_LONG);
    build_shift_table(shift_short, GR__CRC_SHORT);
}
#else
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len) { return crc32c_sw(crc, p, len); }
static bool have_sse42(void) { return false; }
static void build_shift_tables(void) {}
#endif

static uint32_t (*crc_impl)(uint32_t, const uint8_t *, size_t);

__attribute__((constructor)) static void crc32c_select(void) {
    if (crc_impl) return;
    build_tables();
    build_shift_tables();
    crc_impl = have_sse42() ? crc32c_hw : crc32c_sw;
}

uint32_t gr_crc32c(uint32_t crc, const void *data, size_t len) {
    if (!crc_impl) crc32c_select();
    return crc_impl(crc, (const uint8_t *)data, len);
}

/** Portable implementation, exported for tests and benchmarks (not in crc32c.h). */
uint32_t gr__crc32c_sw(uint32_t crc, const void *data, size_t len) {
    if (!crc_impl) crc32c_select();
    return crc32c_sw(crc, (const uint8_t *)data, len);
}
