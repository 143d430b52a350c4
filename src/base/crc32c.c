/* CRC-32C (Castagnoli), reflected polynomial 0x82F63B78.
 *
 * Two implementations: the SSE4.2 crc32 instruction (8 bytes per step) and a
 * portable slicing-by-8 table walk. The choice is made once, on first use,
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
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len) {
    uint64_t c = ~crc;
    while (len && ((uintptr_t)p & 7)) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
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
#else
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len) { return crc32c_sw(crc, p, len); }
static bool have_sse42(void) { return false; }
#endif

static uint32_t (*crc_impl)(uint32_t, const uint8_t *, size_t);

__attribute__((constructor)) static void crc32c_select(void) {
    if (crc_impl) return;
    build_tables();
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
