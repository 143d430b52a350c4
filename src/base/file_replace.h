/* Small state files that must survive a crash whole (gregor.scram, gregor.acls,
 * gregor.quotas): read one at start-up, replace it as one unit on every change. */
#ifndef GR_BASE_FILE_REPLACE_H
#define GR_BASE_FILE_REPLACE_H

#include <stddef.h>

#include "base/err.h"

/** Replace dir/name with the len bytes at data: write dir/name.tmp, fsync it, rename it over
 *  dir/name, fsync dir. A crash at any moment leaves the old file or the new one. On error the
 *  temp file is removed, the old file is untouched, and errstr names the step and the path
 *  ("cannot fsync /d/gregor.acls.tmp: Input/output error"); GR_ERR__IO. */
gr_err_t gr_file_replace(const char *dir, const char *name, const void *data, size_t len, char *errstr,
                         size_t errstr_size);

/** Read dir/name whole into a malloc'd, NUL-terminated *buf (*len bytes). A file that does not
 *  exist is GR_ERR_NONE with *buf NULL and *len 0; a file larger than max bytes or unreadable is
 *  GR_ERR__IO with errstr saying so. */
gr_err_t gr_file_read_small(const char *dir, const char *name, size_t max, char **buf, size_t *len, char *errstr,
                            size_t errstr_size);

#endif
