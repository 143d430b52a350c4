/* Loading and durably replacing <dir>/gregor.scram (format in scram_store.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/scram_store.h"

#define FILE_NAME "gregor.scram"
#define MAX_FILE  (64u << 20)

static gr_err_t io_err(char *errstr, size_t sz, const char *what, const char *path) {
    snprintf(errstr, sz, "%s %s: %s", what, path, strerror(errno));
    return GR_ERR__IO;
}

gr_err_t gr_scram_store_load(gr_scram_store_t *s, const char *dir, char *errstr, size_t errstr_size) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, FILE_NAME);
    gr_scram_store_init(s);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? GR_ERR_NONE : io_err(errstr, errstr_size, "cannot open", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size > (off_t)MAX_FILE) {
        close(fd);
        snprintf(errstr, errstr_size, "%s: cannot read or larger than %u bytes", path, MAX_FILE);
        return GR_ERR__IO;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) abort();
    size_t have = 0;
    while (have < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + have, (size_t)st.st_size - have);
        if (r <= 0) break;
        have += (size_t)r;
    }
    close(fd);
    char why[256];
    gr_err_t err = gr_scram_store_parse(s, buf, have, why, sizeof(why));
    free(buf);
    if (err) snprintf(errstr, errstr_size, "%s: %s", path, why);
    return err;
}

gr_err_t gr_scram_store_save(const gr_scram_store_t *s, const char *dir, char *errstr, size_t errstr_size) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, FILE_NAME);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    size_t len;
    char *text = gr_scram_store_format(s, &len);
    gr_err_t err = GR_ERR_NONE;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = io_err(errstr, errstr_size, "cannot create", tmp);
        goto out;
    }
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            err = io_err(errstr, errstr_size, "cannot write", tmp);
            break;
        }
        off += (size_t)w;
    }
    if (!err && fsync(fd) != 0) err = io_err(errstr, errstr_size, "cannot fsync", tmp);
    close(fd);
    if (!err && rename(tmp, path) != 0) err = io_err(errstr, errstr_size, "cannot rename to", path);
    if (!err) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) != 0) err = io_err(errstr, errstr_size, "cannot fsync directory", dir);
        if (dfd >= 0) close(dfd);
    }
    if (err) unlink(tmp);
out:
    free(text);
    return err;
}
