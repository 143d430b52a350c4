/* SipHash (Aumasson & Bernstein, 2012), written from the paper's description; see hash.h.
 * Tables use 1 compression and 3 finalization rounds (as Python and Rust do): plenty
 * against flooding, cheaper than 2-4. */
#include "base/hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define C_ROUNDS 1
#define D_ROUNDS 3

static uint8_t g_key[16];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void key_init(void) {
    size_t got = 0;
    while (got < sizeof(g_key)) {
        ssize_t n = getrandom(g_key + got, sizeof(g_key) - got, 0);
        if (n > 0) {
            got += (size_t)n;
        } else if (n < 0 && errno != EINTR) {
            /* No getrandom (very old kernel): still unpredictable enough from outside. */
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t mix[2] = {(uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32), (uint64_t)(uintptr_t)&ts};
            memcpy(g_key, mix, sizeof(g_key));
            return;
        }
    }
}

static inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static inline uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static inline void sipround(gr_hasher_t *h) {
    h->v0 += h->v1;
    h->v1 = rotl(h->v1, 13) ^ h->v0;
    h->v0 = rotl(h->v0, 32);
    h->v2 += h->v3;
    h->v3 = rotl(h->v3, 16) ^ h->v2;
    h->v0 += h->v3;
    h->v3 = rotl(h->v3, 21) ^ h->v0;
    h->v2 += h->v1;
    h->v1 = rotl(h->v1, 17) ^ h->v2;
    h->v2 = rotl(h->v2, 32);
}

static void init_with(gr_hasher_t *h, const uint8_t k[16]) {
    uint64_t k0 = le64(k), k1 = le64(k + 8);
    h->v0 = k0 ^ 0x736f6d6570736575ull;
    h->v1 = k1 ^ 0x646f72616e646f6dull;
    h->v2 = k0 ^ 0x6c7967656e657261ull;
    h->v3 = k1 ^ 0x7465646279746573ull;
    h->tail = 0;
    h->len = 0;
}

static void compress(gr_hasher_t *h, uint64_t m, int c) {
    h->v3 ^= m;
    for (int i = 0; i < c; i++) sipround(h);
    h->v0 ^= m;
}

static void update_c(gr_hasher_t *h, const uint8_t *p, size_t n, int c) {
    size_t fill = h->len & 7;
    h->len += n;
    /* Complete a partial word first. */
    while (fill && n) {
        h->tail |= (uint64_t)*p++ << (8 * fill);
        n--;
        if (++fill == 8) {
            compress(h, h->tail, c);
            h->tail = 0;
            fill = 0;
        }
    }
    for (; n >= 8; p += 8, n -= 8) compress(h, le64(p), c);
    for (size_t i = 0; i < n; i++) h->tail |= (uint64_t)p[i] << (8 * i);
}

static uint64_t final_cd(const gr_hasher_t *in, int c, int d) {
    gr_hasher_t h = *in;
    compress(&h, h.tail | ((uint64_t)(h.len & 0xff) << 56), c);
    h.v2 ^= 0xff;
    for (int i = 0; i < d; i++) sipround(&h);
    return h.v0 ^ h.v1 ^ h.v2 ^ h.v3;
}

void gr_hasher_init(gr_hasher_t *h) {
    pthread_once(&g_once, key_init);
    init_with(h, g_key);
}

void gr_hasher_update(gr_hasher_t *h, const void *p, size_t n) { update_c(h, p, n, C_ROUNDS); }

uint64_t gr_hasher_final(const gr_hasher_t *h) { return final_cd(h, C_ROUNDS, D_ROUNDS); }

uint64_t gr_hash(const void *p, size_t n) {
    gr_hasher_t h;
    gr_hasher_init(&h);
    gr_hasher_update(&h, p, n);
    return gr_hasher_final(&h);
}

uint64_t gr_hash_str(const char *s) { return gr_hash(s, strlen(s)); }

uint64_t gr_siphash(const uint8_t k[16], int c_rounds, int d_rounds, const void *p, size_t n) {
    gr_hasher_t h;
    init_with(&h, k);
    update_c(&h, p, n, c_rounds);
    return final_cd(&h, c_rounds, d_rounds);
}
