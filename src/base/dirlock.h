/* Exclusive lock of a data directory, held for the life of the process (Kafka's `.lock`).
 *
 * Two brokers on one directory would reuse each other's offsets and overwrite each other's
 * state, so the lock is taken before anything in the directory is opened or written.
 * flock(2) on <dir>/.lock: the kernel drops it when the process exits, however it exits,
 * so a stale lock file never blocks a restart. The holder's PID is written into the file
 * for the error message of the next process that tries. Main thread, start-up only. */
#ifndef GR_BASE_DIRLOCK_H
#define GR_BASE_DIRLOCK_H

#include <stddef.h>

#include "base/err.h"

#define GR_DIRLOCK_FILE ".lock"

typedef struct gr_dirlock gr_dirlock_t;

/** Create dir (and its parents) if missing, then lock dir/.lock without waiting.
 *  GR_ERR__IO when the directory cannot be created or the lock file cannot be opened
 *  (permissions, not a directory, read-only file system...); GR_ERR__STATE when another
 *  process holds the lock ("locked by another process (pid N)"). errstr says what and why;
 *  the caller names the configuration key. */
gr_err_t gr_dirlock_acquire(const char *dir, gr_dirlock_t **out, char *errstr, size_t errstr_size);
/** Release and free (NULL is a no-op). The lock file stays (as Kafka's does). */
void gr_dirlock_release(gr_dirlock_t *l);

#endif
