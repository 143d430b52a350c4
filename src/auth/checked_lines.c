#include "auth/checked_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/xalloc.h"

gr_err_t gr_checked_lines(const char *text, size_t len, bool (*line)(void *ctx, char *l), void *ctx, const char *what,
                          char *errstr, size_t errstr_size) {
    const char *ck = NULL;
    for (size_t i = 0; i + 9 <= len; i++)
        if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "checksum=", 9)) ck = text + i;
    unsigned long want;
    if (!ck || sscanf(ck + 9, "%8lx", &want) != 1 || want != crc32(0, (const Bytef *)text, (uInt)(ck - text))) {
        snprintf(errstr, errstr_size, "checksum missing or wrong (the file was edited or truncated)");
        return GR_ERR__MALFORMED;
    }
    int lineno = 0;
    for (const char *p = text; p < ck;) {
        const char *nl = memchr(p, '\n', (size_t)(ck - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(ck - p);
        lineno++;
        if (n && p[0] != '#') {
            char *l = gr_xstrndup(p, n);
            bool ok = line(ctx, l);
            free(l);
            if (!ok) {
                snprintf(errstr, errstr_size, "line %d: malformed %s", lineno, what);
                return GR_ERR__MALFORMED;
            }
        }
        p += n + 1;
    }
    return GR_ERR_NONE;
}
