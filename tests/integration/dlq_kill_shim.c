/* LD_PRELOAD shim for test_dlq_crash.sh: while the file named by GR_DLQ_KILL_FILE exists,
 * the first pwrite(2) to a file whose path contains GR_DLQ_KILL_PATH (the DLQ topic's
 * partition directory) is carried out and then the process is killed with SIGKILL: a
 * kill -9 exactly between the DLQ append and the share-state record of the same
 * transition, the moment gregord's recovery exists for (docs/dlq.md §7). Other calls
 * pass through to libc. Built by the test with the system compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int armed(int fd) {
    const char *t = getenv("GR_DLQ_KILL_FILE"), *want = getenv("GR_DLQ_KILL_PATH");
    if (!t || !*t || !want || !*want || access(t, F_OK) != 0) return 0;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strstr(path, want) && n > 4 && !strcmp(path + n - 4, ".log");
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    ssize_t r = real(fd, buf, count, offset);
    if (r > 0 && armed(fd)) raise(SIGKILL);
    return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) { return pwrite(fd, buf, count, offset); }
