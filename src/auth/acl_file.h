/* ACL persistence: the whole ACL set in one file in the data directory, replaced
 * atomically and fsync'd (a success answer to CreateAcls/DeleteAcls means on disk).
 * Blocking file I/O: called on the loop thread for ACL changes, which are rare. */
#ifndef GR_AUTH_ACL_FILE_H
#define GR_AUTH_ACL_FILE_H

#include "auth/acl.h"

#define GR_ACL_FILE_NAME "gregor.acls"

/** Write every ACL of a to dir/gregor.acls (temp file, fsync, rename, fsync dir).
 *  GR_ERR__IO with the reason on failure (the old file stays). */
gr_err_t gr_acl_file_save(const gr_acl_authz_t *a, const char *dir, char *errstr, size_t errstr_size);
/** Add the ACLs of a gregor.acls text (len bytes) to a; origin names it in messages.
 *  GR_ERR__MALFORMED with the line on a damaged record or a missing/wrong end marker. */
gr_err_t gr_acl_file_parse(gr_acl_authz_t *a, const char *text, size_t len, const char *origin, char *errstr,
                           size_t errstr_size);
/** Add the ACLs of dir/gregor.acls to a; no file is no ACLs. GR_ERR__IO or
 *  GR_ERR__MALFORMED (damaged or incomplete file) with the path and line. */
gr_err_t gr_acl_file_load(gr_acl_authz_t *a, const char *dir, char *errstr, size_t errstr_size);

#endif
