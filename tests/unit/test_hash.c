/* The keyed hash for client-chosen keys (base/hash.h): SipHash test vectors (key
 * 00..0f, message 00..n-1; values from OpenSSL 3's SIPHASH MAC with c-rounds/d-rounds),
 * incremental hashing equal to one-shot at every split, a key that differs between two
 * processes, and keys that all collide under unkeyed FNV-1a spreading evenly. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/htab.h"
#include "testutil.h"

static const uint8_t K[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void test_vectors(void) {
    uint8_t m[64];
    for (int i = 0; i < 64; i++) m[i] = (uint8_t)i;
    static const struct {
        size_t n;
        uint64_t v24, v13;
    } vec[] = {
        {0, 0x726fdb47dd0e0e31ull, 0xabac0158050fc4dcull},
        {8, 0x93f5f5799a932462ull, 0x369095118d299a8eull},
        {15, 0xa129ca6149be45e5ull, 0xd320d86d2a519956ull},
        {64, 0xacd2c40b8502cad8ull, 0xf17997ec4b4a6065ull},
    };
    for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
        ASSERT(gr_siphash(K, 2, 4, m, vec[i].n) == vec[i].v24);
        ASSERT(gr_siphash(K, 1, 3, m, vec[i].n) == vec[i].v13);
    }
}

static void test_incremental(void) {
    uint8_t m[40];
    for (int i = 0; i < 40; i++) m[i] = (uint8_t)(i * 7 + 3);
    for (size_t n = 0; n <= sizeof(m); n++) {
        uint64_t whole = gr_hash(m, n);
        for (size_t a = 0; a <= n; a++)
            for (size_t b = a; b <= n; b++) {
                gr_hasher_t h;
                gr_hasher_init(&h);
                gr_hasher_update(&h, m, a);
                gr_hasher_update(&h, m + a, b - a);
                gr_hasher_update(&h, m + b, n - b);
                ASSERT(gr_hasher_final(&h) == whole);
            }
    }
    ASSERT(gr_hash_str("topic") == gr_hash("topic", 5));
    ASSERT(gr_hash("topic", 5) != gr_hash("topiC", 5));
}

/* The same bytes hash differently in another process: the key is random per process.
 * The other process is this test run again with --print-hash (exec, not just fork,
 * which would copy the key). */
static void test_key_per_process(void) {
    char exe[4096], cmd[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    ASSERT(n > 0);
    exe[n] = '\0';
    snprintf(cmd, sizeof(cmd), "'%s' --print-hash", exe);
    FILE *f = popen(cmd, "r");
    ASSERT(f);
    unsigned long long other = 0;
    ASSERT(fscanf(f, "%llx", &other) == 1);
    ASSERT(pclose(f) == 0);
    ASSERT(other != gr_hash("orders", 6));
}

/* 2048 group ids chosen so that unkeyed FNV-1a puts them all in one of 256 buckets (what a
 * flooding client would send): under the keyed hash no bucket holds more than a few. */
static void test_flood_spread(void) {
    enum { N = 2048, BUCKETS = 256 };
    int count[BUCKETS] = {0};
    char id[32];
    int found = 0;
    for (int i = 0; found < N; i++) {
        int n = snprintf(id, sizeof(id), "group-%d", i);
        if ((gr_hash_fnv1a(GR_HASH_FNV1A_INIT, id, (size_t)n) & (BUCKETS - 1)) != 0) continue;
        count[gr_hash(id, (size_t)n) & (BUCKETS - 1)]++;
        found++;
    }
    int max = 0;
    for (int b = 0; b < BUCKETS; b++)
        if (count[b] > max) max = count[b];
    ASSERT(max < 32); /* mean 8; unkeyed FNV would put all 2048 in bucket 0 */
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--print-hash")) {
        printf("%llx\n", (unsigned long long)gr_hash("orders", 6));
        return 0;
    }
    RUN_TEST(test_vectors);
    RUN_TEST(test_incremental);
    RUN_TEST(test_key_per_process);
    RUN_TEST(test_flood_spread);
    return 0;
}
