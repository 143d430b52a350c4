#include "net/heap.h"

#include <assert.h>
#include <stdlib.h>

void gr_heap_init(gr_heap_t *h, gr_heap_less_cb less) {
    h->nodes = NULL;
    h->n = h->cap = 0;
    h->less = less;
}

void gr_heap_free(gr_heap_t *h) {
    for (size_t i = 0; i < h->n; i++) gr_heap_node_init(h->nodes[i]);
    free(h->nodes);
    h->nodes = NULL;
    h->n = h->cap = 0;
}

static void place(gr_heap_t *h, size_t i, gr_heap_node_t *node) {
    h->nodes[i] = node;
    node->_idx = i;
}

static void sift_up(gr_heap_t *h, size_t i) {
    gr_heap_node_t *node = h->nodes[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!h->less(node, h->nodes[parent])) break;
        place(h, i, h->nodes[parent]);
        i = parent;
    }
    place(h, i, node);
}

static void sift_down(gr_heap_t *h, size_t i) {
    gr_heap_node_t *node = h->nodes[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->n) break;
        if (child + 1 < h->n && h->less(h->nodes[child + 1], h->nodes[child])) child++;
        if (!h->less(h->nodes[child], node)) break;
        place(h, i, h->nodes[child]);
        i = child;
    }
    place(h, i, node);
}

void gr_heap_insert(gr_heap_t *h, gr_heap_node_t *node) {
    assert(!gr_heap_node_linked(node));
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 16;
        gr_heap_node_t **nodes = realloc(h->nodes, cap * sizeof(*nodes));
        if (!nodes) abort();
        h->nodes = nodes;
        h->cap = cap;
    }
    place(h, h->n++, node);
    sift_up(h, h->n - 1);
}

void gr_heap_remove(gr_heap_t *h, gr_heap_node_t *node) {
    size_t i = node->_idx;
    assert(i < h->n && h->nodes[i] == node);
    gr_heap_node_init(node);
    gr_heap_node_t *last = h->nodes[--h->n];
    if (last == node) return;
    place(h, i, last);
    /* The moved node may belong above or below its new spot, never both. */
    if (i > 0 && h->less(last, h->nodes[(i - 1) / 2]))
        sift_up(h, i);
    else
        sift_down(h, i);
}
