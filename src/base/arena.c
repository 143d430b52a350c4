#include "base/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gr_arena_chunk {
    gr_arena_chunk_t *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define GR_ARENA_CHUNK 16384

void gr_arena_init(gr_arena_t *a) { memset(a, 0, sizeof(*a)); }

void gr_arena_free(gr_arena_t *a) {
    gr_arena_chunk_t *c = a->head;
    while (c) {
        gr_arena_chunk_t *n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
    a->total = 0;
}

static void *arena_take(gr_arena_t *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    gr_arena_chunk_t *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > GR_ARENA_CHUNK / 2 ? size : GR_ARENA_CHUNK;
        c = malloc(sizeof(*c) + cap);
        if (!c) return NULL;
        c->used = 0;
        c->cap = cap;
        /* A big dedicated chunk goes behind the current one so the current
         * chunk's free space stays usable for small allocations. */
        if (a->head && cap != GR_ARENA_CHUNK) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = c->data + c->used;
    c->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

void *gr_arena_alloc(gr_arena_t *a, size_t size) {
    void *p = arena_take(a, size ? size : 1);
    if (!p) abort();
    return p;
}

void *gr_arena_try_alloc(gr_arena_t *a, size_t nmemb, size_t size) {
    if (size && nmemb > SIZE_MAX / size) return NULL;
    size_t n = nmemb * size;
    if (a->limit && (n > a->limit || a->total > a->limit - n)) return NULL;
    return arena_take(a, n ? n : 1);
}

char *gr_arena_strndup(gr_arena_t *a, const char *s, size_t len) {
    char *p = gr_arena_alloc(a, len + 1);
    if (len) memcpy(p, s, len);
    p[len] = 0;
    return p;
}

char *gr_arena_sprintf(gr_arena_t *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    char *p = gr_arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
