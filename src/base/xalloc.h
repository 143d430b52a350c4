/* Allocation that cannot fail: small internal allocations abort on OOM (docs/style.md)
 * instead of threading an error every caller would only turn into an abort. Memory
 * bounded by client input is checked before it gets here. */
#ifndef GR_BASE_XALLOC_H
#define GR_BASE_XALLOC_H

#include <stddef.h>

/** malloc(n); n == 0 still gives a unique pointer. Aborts on OOM. */
void *gr_xmalloc(size_t n);
/** calloc(nmemb, size), zeroed; a zero size still gives a unique pointer. Aborts on
 *  OOM or when nmemb * size overflows. */
void *gr_xcalloc(size_t nmemb, size_t size);
/** realloc(p, n); n == 0 keeps a unique pointer (never frees). Aborts on OOM. */
void *gr_xrealloc(void *p, size_t n);
/** Copy of s; s == NULL gives "" (some callers copy optional strings). Aborts on OOM. */
char *gr_xstrdup(const char *s);
/** Copy of at most n bytes of s, NUL-terminated. Aborts on OOM. */
char *gr_xstrndup(const char *s, size_t n);

#endif
