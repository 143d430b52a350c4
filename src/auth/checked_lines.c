#include "auth/checked_lines.h"

#include <ctype.h>
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
    /* Up to 8 hex digits after "checksum=", read within len (text need not end with a NUL:
     * sscanf would look for one past the end). */
    unsigned long want = 0;
    size_t digits = 0;
    for (const char *h = ck ? ck + 9 : NULL; h && h < text + len && digits < 8; h++, digits++) {
        unsigned char c = (unsigned char)*h;
        if (!isxdigit(c)) break;
        want = want << 4 | (unsigned long)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    if (!ck || !digits || want != crc32(0, (const Bytef *)text, (uInt)(ck - text))) {
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
