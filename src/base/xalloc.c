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

char *gr_xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }
