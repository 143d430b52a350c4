/* Small checkpoint files (log start offset, recovery point), replaced atomically:
 * write a temp file, fsync it, rename it over the old one, fsync the directory.
 * A crash leaves either the old or the new file, never a mix; leftover temp
 * files are removed when the log is opened. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "storage/plog_int.h"

int gr__ckpt_write_opt(const char *dir, const char *name, const char *text, bool sync) {
    char tmp[4096], fn[4096];
    snprintf(fn, sizeof(fn), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    size_t len = strlen(text);
    int r = 0;
    while (len > 0 && r == 0) {
        ssize_t w = write(fd, text, len);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0)
            r = -errno;
        else {
            text += w;
            len -= (size_t)w;
        }
    }
    if (r == 0 && sync && fsync(fd) < 0) r = -errno;
    close(fd);
    if (r == 0 && rename(tmp, fn) < 0) r = -errno;
    if (r == 0 && sync) r = gr__fsync_dir(dir);
    if (r < 0) unlink(tmp);
    return r;
}

int gr__ckpt_read(const char *dir, const char *name, char *buf, size_t cap) {
    char fn[4096];
    snprintf(fn, sizeof(fn), "%s/%s", dir, name);
    int fd = open(fn, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    ssize_t r = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (r < 0) return -e;
    buf[r] = '\0';
    return 0;
}

int gr__ckpt_write(const char *dir, const char *name, const char *text) {
    return gr__ckpt_write_opt(dir, name, text, true);
}
