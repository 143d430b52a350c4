#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void *check(void *p) {
    if (!p) abort();
    return p;
}

void *gr_xmalloc(size_t n) { return check(malloc(n ? n : 1)); }

void *gr_xcalloc(size_t nmemb, size_t size) { return check(calloc(nmemb ? nmemb : 1, size ? size : 1)); }

void *gr_xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }

char *gr_xstrdup(const char *s) { return check(strdup(s ? s : "")); }

/* Not strndup: s may be n bytes with no NUL after them (a record's key), which strndup
 * may read past (ASan's strict_string_checks does). */
char *gr_xstrndup(const char *s, size_t n) {
    const char *z = memchr(s, 0, n);
    size_t len = z ? (size_t)(z - s) : n;
    char *d = check(malloc(len + 1));
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}
