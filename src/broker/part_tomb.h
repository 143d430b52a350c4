/* Tombstones of deleted topics: <log dir>/.gregor-deleting-<topic id>, one small file per
 * deleted topic whose partition directories are not all removed yet. Written (durably)
 * before the topic leaves the metadata and removed once its last directory is gone, so a
 * restart during a pending delete finishes the removal instead of leaving the directories
 * behind for a later topic of the same name to pick up. @locality loop thread. */
#ifndef GR_BROKER_PART_TOMB_H
#define GR_BROKER_PART_TOMB_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/uuid.h"

/** Write the tombstone of topic id (name, partition count) and fsync it and the log dir. */
gr_err_t gr_tomb_write(const char *log_dir, const gr_uuid_t *id, const char *name, int32_t count, char *errstr,
                       size_t errstr_size);
/** Remove the tombstone of topic id (and fsync the log dir). */
void gr_tomb_remove(const char *log_dir, const gr_uuid_t *id);

typedef void (*gr_tomb_fn)(void *arg, const gr_uuid_t *id, const char *name, int32_t count);
/** Call fn for every readable tombstone in log_dir; unreadable ones are logged and removed. */
void gr_tomb_scan(const char *log_dir, gr_tomb_fn fn, void *arg);

/** Remove a partition directory: its files, then the directory. 0 or -errno (ENOENT is 0). */
int gr_tomb_rmdir(const char *dir);

#endif
