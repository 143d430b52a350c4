/* Java's String.hashCode and java.util.HashMap iteration order (java_hash.h). Pure. */
#include "java_hash.h"

#include <stdlib.h>

/* The next code point of UTF-8 at *p (advancing), U+FFFD for a bad byte. */
static uint32_t utf8_next(const unsigned char **p) {
    const unsigned char *s = *p;
    uint32_t c = s[0];
    size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 1) return (*p)++, c;
    if (n == 0) return (*p)++, 0xfffd;
    uint32_t cp = c & (0xff >> (n + 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return (*p)++, 0xfffd;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return (*p)++, 0xfffd;
    *p += n;
    return cp;
}

int32_t cli_java_string_hash(const char *s) {
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t cp = utf8_next(&p);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xd800 + (cp >> 10));
            h = 31 * h + (0xdc00 + (cp & 0x3ff));
        } else {
            h = 31 * h + cp;
        }
    }
    return (int32_t)h;
}

/* HashMap.hash: the high half folded into the low one. */
static size_t spread(int32_t h, size_t mask) {
    uint32_t u = (uint32_t)h;
    return (size_t)((u ^ (u >> 16)) & mask);
}

/* Double the table: count[] recounted for the first `filled` keys; 0 if out of memory. */
static size_t grow(size_t **count, size_t cap, const int32_t *hash, size_t filled) {
    free(*count);
    if (!(*count = calloc(cap * 2, sizeof(**count)))) return 0;
    for (size_t j = 0; j < filled; j++) (*count)[spread(hash[j], cap * 2 - 1)]++;
    return cap * 2;
}

/* The table size after n puts: HashMap.resize, and treeifyBin's resize, step by step. */
static size_t final_capacity(const int32_t *hash, size_t n, size_t initial) {
    size_t cap = 1;
    while (cap < (initial ? initial : 16)) cap *= 2; /* tableSizeFor */
    size_t *count = calloc(cap, sizeof(*count));
    for (size_t i = 0; i < n && count; i++) {
        if (++count[spread(hash[i], cap - 1)] >= 9 && cap < 64) /* treeifyBin on a small table */
            cap = grow(&count, cap, hash, i + 1);
        if (count && i + 1 > cap * 3 / 4) cap = grow(&count, cap, hash, i + 1); /* ++size > threshold */
    }
    bool ok = count != NULL;
    free(count);
    return ok ? cap : 0;
}

static const int32_t *sort_hash;
static size_t sort_mask;

static int cmp_bucket(const void *x, const void *y) {
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    size_t ba = spread(sort_hash[a], sort_mask), bb = spread(sort_hash[b], sort_mask);
    if (ba != bb) return ba < bb ? -1 : 1;
    return a < b ? -1 : a > b; /* insertion order within a bucket */
}

bool cli_java_hashmap_order(const int32_t *hash, size_t n, size_t initial, size_t *idx) {
    for (size_t i = 0; i < n; i++) idx[i] = i;
    size_t cap = final_capacity(hash, n, initial);
    if (!cap) return false;
    sort_hash = hash;
    sort_mask = cap - 1;
    qsort(idx, n, sizeof(*idx), cmp_bucket);
    return true;
}
