#include "base/file_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"

static gr_err_t io_err(char *errstr, size_t sz, const char *what, const char *path) {
    snprintf(errstr, sz, "%s %s: %s", what, path, strerror(errno));
    return GR_ERR__IO;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return -1;
        }
        p += w, n -= (size_t)w;
    }
    return 0;
}

gr_err_t gr_file_replace(const char *dir, const char *name, const void *data, size_t len, char *errstr,
                         size_t errstr_size) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return io_err(errstr, errstr_size, "cannot create", tmp);
    gr_err_t err = GR_ERR_NONE;
    if (write_all(fd, data, len) != 0)
        err = io_err(errstr, errstr_size, "cannot write", tmp);
    else if (fsync(fd) != 0)
        err = io_err(errstr, errstr_size, "cannot fsync", tmp);
    close(fd);
    if (!err && rename(tmp, path) != 0) err = io_err(errstr, errstr_size, "cannot rename to", path);
    if (!err) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) != 0) err = io_err(errstr, errstr_size, "cannot fsync directory", dir);
        if (dfd >= 0) close(dfd);
    }
    if (err) unlink(tmp);
    return err;
}

gr_err_t gr_file_read_small(const char *dir, const char *name, size_t max, char **buf, size_t *len, char *errstr,
                            size_t errstr_size) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    *buf = NULL, *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? GR_ERR_NONE : io_err(errstr, errstr_size, "cannot open", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || (size_t)st.st_size > max) {
        close(fd);
        snprintf(errstr, errstr_size, "%s: cannot read or larger than %zu bytes", path, max);
        return GR_ERR__IO;
    }
    char *b = gr_xmalloc((size_t)st.st_size + 1);
    size_t have = 0;
    while (have < (size_t)st.st_size) {
        ssize_t r = read(fd, b + have, (size_t)st.st_size - have);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            gr_err_t err = io_err(errstr, errstr_size, "cannot read", path);
            close(fd);
            free(b);
            return err;
        }
        if (r == 0) break; /* shrank meanwhile: parse what is there */
        have += (size_t)r;
    }
    close(fd);
    b[have] = '\0';
    *buf = b, *len = have;
    return GR_ERR_NONE;
}
