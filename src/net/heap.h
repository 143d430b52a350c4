/* Binary min-heap of intrusive nodes, used for the loop's timers.
 *
 * The heap stores pointers to caller-embedded gr_heap_node_t; each node
 * remembers its own array index, so removing an arbitrary node (stopping a
 * timer) is O(log n) without a search. Only the pointer array is allocated,
 * and it grows geometrically, so there is no allocation per entry
 * (compare libuv's heap-inl.h, which links nodes into a pointer tree).
 *
 * @locality: single-threaded; the owner (the loop) serialises access. */
#ifndef GR_NET_HEAP_H
#define GR_NET_HEAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gr_heap_node {
    size_t _idx; /* position in gr_heap_t.nodes; SIZE_MAX when not in a heap */
} gr_heap_node_t;

/** Strict "a sorts before b". Must be a total order for FIFO-stable results. */
typedef bool (*gr_heap_less_cb)(const gr_heap_node_t *a, const gr_heap_node_t *b);

typedef struct gr_heap {
    gr_heap_node_t **nodes;
    size_t n, cap;
    gr_heap_less_cb less;
} gr_heap_t;

/** Initialise an empty heap ordered by `less`. Allocates nothing. */
void gr_heap_init(gr_heap_t *h, gr_heap_less_cb less);
/** Free the pointer array. The nodes themselves belong to the caller. */
void gr_heap_free(gr_heap_t *h);
/** Mark a node as not in any heap (so gr_heap_node_linked() is false). */
static inline void gr_heap_node_init(gr_heap_node_t *n) { n->_idx = (size_t)-1; }
static inline bool gr_heap_node_linked(const gr_heap_node_t *n) { return n->_idx != (size_t)-1; }
/** Insert a node that is not linked. O(log n); aborts when out of memory. */
void gr_heap_insert(gr_heap_t *h, gr_heap_node_t *node);
/** Remove a linked node from h. O(log n). */
void gr_heap_remove(gr_heap_t *h, gr_heap_node_t *node);
/** The smallest node, or NULL when the heap is empty. */
static inline gr_heap_node_t *gr_heap_min(const gr_heap_t *h) { return h->n ? h->nodes[0] : NULL; }
static inline size_t gr_heap_size(const gr_heap_t *h) { return h->n; }

#endif
