/* LD_PRELOAD shim for test_admin_http.sh: while the file named by GR_FSYNC_FAULT_FILE
 * exists, fsync(2) and fdatasync(2) fail with EIO (a disk that lost a write), so that
 * gregord takes a partition log offline and /health reports it. Otherwise both pass
 * through to libc. Built by the test with the system compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static int failing(void) {
    const char *t = getenv("GR_FSYNC_FAULT_FILE");
    return t && *t && access(t, F_OK) == 0;
}

int fsync(int fd) {
    static int (*real)(int);
    if (failing()) {
        errno = EIO;
        return -1;
    }
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (failing()) {
        errno = EIO;
        return -1;
    }
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    return real(fd);
}
