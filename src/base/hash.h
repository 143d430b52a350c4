/* Keyed hashing for hash tables whose keys clients choose (topic names, group and
 * member ids, peer addresses): SipHash-1-3 under a 128-bit key drawn once per process
 * from getrandom(2), so nobody outside the process can predict which keys collide
 * (hash flooding). Not for anything that must be stable across processes: the value of
 * the same bytes changes with every start.
 *
 * Thread-safe: the key is set once (pthread_once); the state is caller-owned. */
#ifndef GR_BASE_HASH_H
#define GR_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/** Incremental hashing of a key made of several parts; hashing the parts one after the
 *  other gives the same value as hashing their concatenation. */
typedef struct gr_hasher {
    uint64_t v0, v1, v2, v3;
    uint64_t tail; /* bytes not yet forming a full 8-byte word */
    size_t len;    /* total bytes so far */
} gr_hasher_t;

/** Start with the process key. */
void gr_hasher_init(gr_hasher_t *h);
void gr_hasher_update(gr_hasher_t *h, const void *p, size_t n);
uint64_t gr_hasher_final(const gr_hasher_t *h);

/** The keyed hash of n bytes at p (gr_hasher_* in one call). */
uint64_t gr_hash(const void *p, size_t n);
/** The keyed hash of a NUL-terminated string (without the NUL). */
uint64_t gr_hash_str(const char *s);

/** SipHash-c-d of n bytes under key k (16 bytes, little-endian words as in the
 *  reference). Exposed for the test vectors; tables use gr_hash. */
uint64_t gr_siphash(const uint8_t k[16], int c_rounds, int d_rounds, const void *p, size_t n);

#endif
