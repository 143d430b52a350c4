/* Tombstones of deleted topics (see part_tomb.h). Format:
 *   gregor-deleting 1\n<partition count>\n<topic name>\n
 * The name needs no escaping: topic names are [a-zA-Z0-9._-]. */
#include "broker/part_tomb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

#define TOMB_PREFIX ".gregor-deleting-"

static void tomb_path(const char *log_dir, const gr_uuid_t *id, char *out, size_t n) {
    char b64[23];
    gr_uuid_to_base64(id, b64);
    snprintf(out, n, "%s/" TOMB_PREFIX "%s", log_dir, b64);
}

static int fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return r;
}

gr_err_t gr_tomb_write(const char *log_dir, const gr_uuid_t *id, const char *name, int32_t count, char *errstr,
                       size_t errstr_size) {
    char path[4096], tmp[4200], text[512];
    tomb_path(log_dir, id, path, sizeof(path));
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int len = snprintf(text, sizeof(text), "gregor-deleting 1\n%d\n%s\n", count, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int r = fd < 0 ? -errno : 0;
    if (r == 0 && write(fd, text, (size_t)len) != len) r = errno ? -errno : -EIO;
    if (r == 0 && fsync(fd) < 0) r = -errno;
    if (fd >= 0) close(fd);
    if (r == 0 && rename(tmp, path) < 0) r = -errno;
    if (r == 0) r = fsync_dir(log_dir);
    if (r < 0) {
        unlink(tmp);
        snprintf(errstr, errstr_size, "writing %s: %s", path, strerror(-r));
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    return GR_ERR_NONE;
}

void gr_tomb_remove(const char *log_dir, const gr_uuid_t *id) {
    char path[4096];
    tomb_path(log_dir, id, path, sizeof(path));
    if (unlink(path) < 0 && errno != ENOENT) GR_WARN("partitions", "removing %s: %s", path, strerror(errno));
    fsync_dir(log_dir);
}

static bool tomb_read(const char *path, char *name, size_t name_size, int32_t *count) {
    char buf[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    char fmt[64];
    snprintf(fmt, sizeof(fmt), "gregor-deleting 1\n%%d\n%%%zu[a-zA-Z0-9._-]\n", name_size - 1);
    return sscanf(buf, fmt, count, name) == 2 && *count >= 0;
}

void gr_tomb_scan(const char *log_dir, gr_tomb_fn fn, void *arg) {
    DIR *d = opendir(log_dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, TOMB_PREFIX, strlen(TOMB_PREFIX))) continue;
        char path[4096], name[256];
        snprintf(path, sizeof(path), "%s/%s", log_dir, de->d_name);
        gr_uuid_t id;
        int32_t count;
        const char *b64 = de->d_name + strlen(TOMB_PREFIX);
        /* A leftover .tmp (crash while writing) was never acted on: the topic was not deleted yet. */
        if (strlen(b64) == 22 && gr_uuid_from_base64(b64, &id) && tomb_read(path, name, sizeof(name), &count)) {
            fn(arg, &id, name, count);
            continue;
        }
        GR_WARN("partitions", "removing unreadable deletion marker %s", path);
        unlink(path);
    }
    closedir(d);
}

int gr_tomb_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : -errno;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
    return rmdir(dir) < 0 && errno != ENOENT ? -errno : 0;
}
