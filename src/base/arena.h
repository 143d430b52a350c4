/* Per-request arena: many small allocations, freed all at once.
 *
 * A request decodes into an arena, the handler builds its response in the same
 * arena, and the whole thing is released after the response is encoded
 * (nginx pools, h2o mem pools). Small internal allocations abort on OOM;
 * sizes that come from the wire go through gr_arena_try_alloc. */
#ifndef GR_BASE_ARENA_H
#define GR_BASE_ARENA_H

#include <stddef.h>

typedef struct gr_arena_chunk gr_arena_chunk_t;

typedef struct gr_arena {
    gr_arena_chunk_t *head; /* newest chunk first */
    size_t total;           /* bytes handed out, for limits and stats */
    size_t limit;           /* 0 = unlimited; try_alloc fails past it */
} gr_arena_t;

/** Initialise an empty arena. No allocation happens until first use. */
void gr_arena_init(gr_arena_t *a);
/** Free every chunk. The arena may be reused after gr_arena_init. */
void gr_arena_free(gr_arena_t *a);
/** Zeroed, 16-byte aligned memory. Aborts when out of memory. */
void *gr_arena_alloc(gr_arena_t *a, size_t size);
/** Like gr_arena_alloc but returns NULL on overflow, past the limit or on OOM. */
__attribute__((warn_unused_result)) void *gr_arena_try_alloc(gr_arena_t *a, size_t nmemb, size_t size);
/** Copy of a byte range, NUL-terminated. */
char *gr_arena_strndup(gr_arena_t *a, const char *s, size_t len);
/** printf into the arena. */
char *gr_arena_sprintf(gr_arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
