/* Intrusive chained hash table: the entry embeds a gr_hnode_t, the table only
 * links nodes and never allocates or frees them (the caller owns the entries).
 * The bucket count is a power of two and doubles when the table holds as many
 * nodes as it has buckets. Iteration (gr_htab_first / gr_htab_next) walks the
 * buckets in order and each chain front to back.
 *
 * Threads: none of its own; a table belongs to whoever embeds it. */
#ifndef GR_BASE_HTAB_H
#define GR_BASE_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

/** The link an entry embeds. hash is set by gr_htab_insert. */
typedef struct gr_hnode {
    struct gr_hnode *next;
    uint64_t hash;
} gr_hnode_t;

typedef struct gr_htab {
    gr_hnode_t **buckets;
    size_t n_buckets; /* a power of two */
    size_t n;         /* nodes linked */
} gr_htab_t;

/** The entry of type `type` whose member `member` is the node `node`; NULL for a NULL node. */
#define GR_HTAB_ENTRY(node, type, member) ((type *)gr_htab_entry_at((node), offsetof(type, member)))
static inline void *gr_htab_entry_at(const gr_hnode_t *node, size_t offset) {
    return node ? (void *)((char *)node - offset) : NULL;
}

/** True if node holds key (the hashes already match). */
typedef bool gr_htab_eq_fn(const gr_hnode_t *node, const void *key);

/** A seed for gr_hash_fnv1a. (It is not the published FNV offset basis
 *  14695981039346656037, one digit shorter; any seed serves.) */
#define GR_HASH_FNV1A_INIT 1469598103934665603ull
/** FNV-1a of n bytes at p, continuing from h. Unkeyed: anyone can compute colliding
 *  keys, so a table whose keys a client chooses hashes them with gr_hash (base/hash.h,
 *  keyed per process) instead. */
uint64_t gr_hash_fnv1a(uint64_t h, const void *p, size_t n);

/** An empty table of n_buckets buckets (a power of two, > 0). Aborts when out of memory. */
void gr_htab_init(gr_htab_t *t, size_t n_buckets);
/** Free the bucket array. The entries are the caller's: free them first (iterate). */
void gr_htab_free(gr_htab_t *t);

/** The link that points at the node holding key (hash h): *slot is that node, or
 *  NULL (key absent; then the slot is the end of its chain). Valid until the next
 *  insert or unlink. */
gr_hnode_t **gr_htab_slot(const gr_htab_t *t, uint64_t h, gr_htab_eq_fn *eq, const void *key);

/** Link node under hash h (at the front of its chain), growing the table first
 *  when it is full. The key must not be in the table already. */
void gr_htab_insert(gr_htab_t *t, gr_hnode_t *node, uint64_t h);

/** Unlink the node *slot (from gr_htab_slot; must not be NULL) and return it. */
gr_hnode_t *gr_htab_unlink(gr_htab_t *t, gr_hnode_t **slot);

/** The first node, or NULL for an empty table. */
gr_hnode_t *gr_htab_first(const gr_htab_t *t);
/** The node after node, or NULL. Reads only node's link and hash, so node may be
 *  freed once this returns (free-while-iterating takes next first). */
gr_hnode_t *gr_htab_next(const gr_htab_t *t, const gr_hnode_t *node);

#endif
