/* LD_PRELOAD shim for test_dlq_fsync_order.sh (docs/dlq.md §7, "Order on disk").
 *
 * Journal: every pwrite(2) and every completed fsync(2)/fdatasync(2) on a file whose path
 * contains GR_ORDER_DLQ (the DLQ partition's directory) or GR_ORDER_STATE (the share-state
 * store's directory) is appended to the file GR_ORDER_LOG as one line, "W dlq", "S dlq",
 * "W state", "S state" (fsync lines after the call returned; "F dlq" if it failed), in the
 * order the calls happened (one O_APPEND write per line, so the flusher thread's lines
 * interleave whole).
 * Fault: while the file named by GR_ORDER_FAULT exists, fsync/fdatasync of a DLQ file
 * fail with EIO. Other calls pass through to libc. Built by the test with the system compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "dlq", "state" or NULL for fd (only *.log segment files). */
static const char *kind(int fd) {
    const char *dlq = getenv("GR_ORDER_DLQ"), *state = getenv("GR_ORDER_STATE");
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n <= 4) return NULL;
    path[n] = 0;
    if (strcmp(path + n - 4, ".log")) return NULL;
    if (dlq && *dlq && strstr(path, dlq)) return "dlq";
    if (state && *state && strstr(path, state)) return "state";
    return NULL;
}

static void journal(char op, const char *k) {
    const char *fn = getenv("GR_ORDER_LOG");
    if (!fn || !*fn) return;
    int saved = errno;
    int fd = open(fn, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        char line[32];
        int len = snprintf(line, sizeof(line), "%c %s\n", op, k);
        if (write(fd, line, (size_t)len) < 0) { /* a test journal: nothing to do */
        }
        close(fd);
    }
    errno = saved;
}

static int faulty(void) {
    const char *t = getenv("GR_ORDER_FAULT");
    return t && *t && access(t, F_OK) == 0;
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    ssize_t r = real(fd, buf, count, offset);
    const char *k = r > 0 ? kind(fd) : NULL;
    if (k) journal('W', k);
    return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) { return pwrite(fd, buf, count, offset); }

static int sync_call(int fd, const char *name) {
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);
    const char *k = kind(fd);
    if (k && !strcmp(k, "dlq") && faulty()) {
        journal('F', k);
        errno = EIO;
        return -1;
    }
    int r = real(fd);
    if (k) journal(r == 0 ? 'S' : 'F', k);
    return r;
}

int fsync(int fd) { return sync_call(fd, "fsync"); }
int fdatasync(int fd) { return sync_call(fd, "fdatasync"); }
