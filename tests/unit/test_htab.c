/* The intrusive hash table under the share stores (base/htab.h): lookups through
 * growth, forced collisions, unlink, iteration that visits each node once, and
 * free-while-iterating. Checked against a plain array of what should be there. */
#include <stdlib.h>

#include "base/htab.h"
#include "testutil.h"

typedef struct item {
    int pad; /* the node is not the first member: GR_HTAB_ENTRY must subtract its offset */
    gr_hnode_t node;
    int key;
    int seen;
} item_t;

#define ITEM(hn) GR_HTAB_ENTRY(hn, item_t, node)

static bool item_eq(const gr_hnode_t *hn, const void *key) { return ITEM(hn)->key == *(const int *)key; }

/* mask_bits 0: the FNV hash of the key; otherwise only that many low bits of it,
 * so that many keys share a hash and chains are long. */
static uint64_t hash_of(int key, int mask_bits) {
    uint64_t h = gr_hash_fnv1a(GR_HASH_FNV1A_INIT, &key, sizeof(key));
    return mask_bits ? h & ((1ull << mask_bits) - 1) : h;
}

static item_t *lookup(gr_htab_t *t, int key, int mask_bits) {
    gr_hnode_t *hn = *gr_htab_slot(t, hash_of(key, mask_bits), item_eq, &key);
    return hn ? ITEM(hn) : NULL;
}

static void check_iteration(gr_htab_t *t, item_t **present, int n_keys) {
    size_t visited = 0;
    for (int k = 0; k < n_keys; k++)
        if (present[k]) present[k]->seen = 0;
    for (gr_hnode_t *hn = gr_htab_first(t); hn; hn = gr_htab_next(t, hn)) {
        item_t *it = ITEM(hn);
        ASSERT(it->key >= 0 && it->key < n_keys);
        ASSERT(present[it->key] == it);
        ASSERT_EQ(it->seen, 0);
        it->seen = 1;
        visited++;
    }
    ASSERT_EQ(visited, t->n);
}

static void run(int mask_bits) {
    enum { N_KEYS = 2000 };
    item_t **present = calloc(N_KEYS, sizeof(*present));
    ASSERT(present);
    gr_htab_t t;
    gr_htab_init(&t, 4);
    ASSERT(gr_htab_first(&t) == NULL);
    srand(7 + (unsigned)mask_bits);
    size_t n = 0;
    for (int step = 0; step < 20000; step++) {
        int k = rand() % N_KEYS;
        item_t *found = lookup(&t, k, mask_bits);
        ASSERT(found == present[k]);
        if (!found) {
            item_t *it = calloc(1, sizeof(*it));
            ASSERT(it);
            it->key = k;
            gr_htab_insert(&t, &it->node, hash_of(k, mask_bits));
            present[k] = it;
            n++;
        } else if (rand() % 3 == 0) {
            gr_hnode_t **slot = gr_htab_slot(&t, hash_of(k, mask_bits), item_eq, &k);
            ASSERT(gr_htab_unlink(&t, slot) == &found->node);
            free(found);
            present[k] = NULL;
            n--;
        }
        ASSERT_EQ(t.n, n);
        if (step % 997 == 0) check_iteration(&t, present, N_KEYS);
    }
    ASSERT(t.n_buckets > 4 && t.n_buckets >= t.n); /* it grew from 4 buckets */
    ASSERT_EQ(t.n_buckets & (t.n_buckets - 1), 0); /* a power of two */
    check_iteration(&t, present, N_KEYS);
    /* Free while iterating: take the next node before freeing this one. */
    size_t freed = 0;
    for (gr_hnode_t *hn = gr_htab_first(&t), *next; hn; hn = next) {
        next = gr_htab_next(&t, hn);
        free(ITEM(hn));
        freed++;
    }
    ASSERT_EQ(freed, n);
    gr_htab_free(&t);
    free(present);
}

static void test_spread(void) { run(0); }
static void test_collisions(void) { run(3); }

static void test_fnv1a(void) {
    /* Published FNV-1a 64 test vectors ("", "a", "foobar") from the published offset basis. */
    const uint64_t basis = 0xcbf29ce484222325ull;
    ASSERT(gr_hash_fnv1a(basis, "", 0) == basis);
    ASSERT(gr_hash_fnv1a(basis, "a", 1) == 0xaf63dc4c8601ec8cull);
    ASSERT(gr_hash_fnv1a(basis, "foobar", 6) == 0x85944171f73967e8ull);
    /* Continuing a hash equals hashing the concatenation. */
    ASSERT(gr_hash_fnv1a(gr_hash_fnv1a(GR_HASH_FNV1A_INIT, "ab", 2), "cd", 2) ==
           gr_hash_fnv1a(GR_HASH_FNV1A_INIT, "abcd", 4));
}

int main(void) {
    RUN_TEST(test_fnv1a);
    RUN_TEST(test_spread);
    RUN_TEST(test_collisions);
    return 0;
}
