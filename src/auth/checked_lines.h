/* The body of gregor.scram and gregor.quotas: text lines ('#' comments, blank lines skipped)
 * followed by "checksum=<crc32 hex>" over everything before it. */
#ifndef GR_AUTH_CHECKED_LINES_H
#define GR_AUTH_CHECKED_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/** Verify the checksum, then hand each line (a NUL-terminated copy) to line(ctx, l); false
 *  from it stops with "line N: malformed <what>". GR_ERR__MALFORMED on either failure. */
gr_err_t gr_checked_lines(const char *text, size_t len, bool (*line)(void *ctx, char *l), void *ctx, const char *what,
                          char *errstr, size_t errstr_size);

#endif
