/* Data directory lock. See dirlock.h. */
#include "base/dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct gr_dirlock {
    int fd;
};

/* mkdir -p: each missing component with mode 0755. */
static gr_err_t make_dirs(const char *dir, char *errstr, size_t sz) {
    char p[4096];
    if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p)) {
        snprintf(errstr, sz, "directory name too long");
        return GR_ERR__IO;
    }
    for (char *c = p + 1;; c++) {
        if (*c != '/' && *c != '\0') continue;
        char save = *c;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            snprintf(errstr, sz, "cannot create directory %s: %s", p, strerror(errno));
            return GR_ERR__IO;
        }
        *c = save;
        if (!save) break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(errstr, sz, "%s is not a directory", dir);
        return GR_ERR__IO;
    }
    return GR_ERR_NONE;
}

/* The PID the holder wrote, or 0 if unreadable. */
static long holder_pid(int fd) {
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0) return 0;
    buf[n] = '\0';
    long pid = strtol(buf, NULL, 10);
    return pid > 0 ? pid : 0;
}

gr_err_t gr_dirlock_acquire(const char *dir, gr_dirlock_t **out, char *errstr, size_t errstr_size) {
    gr_err_t err = make_dirs(dir, errstr, errstr_size);
    if (err) return err;
    char path[4200];
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dl--; /* "data/" -> "data/.lock", not "data//.lock" */
    snprintf(path, sizeof(path), "%.*s/%s", (int)dl, dir, GR_DIRLOCK_FILE);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(errstr, errstr_size, "cannot open the lock file %s: %s", path, strerror(errno));
        return GR_ERR__IO;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        long pid = e == EWOULDBLOCK ? holder_pid(fd) : 0;
        close(fd);
        if (e != EWOULDBLOCK) {
            snprintf(errstr, errstr_size, "cannot lock %s: %s", path, strerror(e));
            return GR_ERR__IO;
        }
        if (pid)
            snprintf(errstr, errstr_size,
                     "directory is in use by another process (pid %ld holds %s); one directory, one broker", pid, path);
        else
            snprintf(errstr, errstr_size, "directory is in use by another process (it holds %s)", path);
        return GR_ERR__STATE;
    }
    /* Ours now: record the PID for the message above (best effort, the lock is what counts). */
    char pid[32];
    int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    bool wrote = ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) == n;
    (void)wrote;
    gr_dirlock_t *l = malloc(sizeof(*l));
    if (!l) abort();
    l->fd = fd;
    *out = l;
    return GR_ERR_NONE;
}

void gr_dirlock_release(gr_dirlock_t *l) {
    if (!l) return;
    close(l->fd); /* closing the only descriptor drops the flock */
    free(l);
}
