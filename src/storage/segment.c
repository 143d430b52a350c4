/* One log segment: the .log file, its in-memory indexes and its reference count.
 *
 * References: the log's segment list holds one; every fetch slice and every
 * flusher pass over the segment takes one more. The fd is closed when the last
 * reference goes, so retention or topic deletion (which unlink the files) never
 * pull a file out from under a sendfile or an fsync. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "storage/plog_int.h"

gr__seg_t *gr__seg_new(const char *dir, int64_t base, int fd, int64_t now_ms) {
    gr__seg_t *seg = calloc(1, sizeof(*seg));
    if (!seg) abort();
    size_t n = strlen(dir) + 32;
    seg->path = malloc(n);
    if (!seg->path) abort();
    snprintf(seg->path, n, "%s/%020lld", dir, (long long)base);
    seg->base = base;
    seg->fd = fd;
    seg->next_offset = base;
    seg->max_ts = seg->max_ts_off = seg->first_ts = -1;
    seg->created_ms = now_ms;
    seg->refcnt = 1;
    return seg;
}

gr_err_t gr__seg_create(const char *dir, int64_t base, int64_t now_ms, gr__seg_t **out, char *errstr, size_t n) {
    char fn[4096];
    snprintf(fn, sizeof(fn), "%s/%020lld.log", dir, (long long)base);
    /* O_TRUNC: a file with this base can only be a leftover empty segment. */
    int fd = open(fn, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        GR__ERRSTR(errstr, n, "create %s: %s", fn, strerror(e));
        errno = e; /* callers tell a full disk from other errors */
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    gr__seg_t *seg = gr__seg_new(dir, base, fd, now_ms);
    seg->ix_loaded = true;
    *out = seg;
    return GR_ERR_NONE;
}

void gr__seg_ref(gr__seg_t *seg) { __atomic_add_fetch(&seg->refcnt, 1, __ATOMIC_RELAXED); }

void gr__seg_unref(gr__seg_t *seg) {
    if (!seg || __atomic_sub_fetch(&seg->refcnt, 1, __ATOMIC_ACQ_REL) != 0) return;
    if (seg->fd >= 0) close(seg->fd);
    gr__index_free(&seg->ix);
    free(seg->path);
    free(seg);
}

void gr__seg_unlink(gr__seg_t *seg) {
    static const char *ext[] = {".log", ".index", ".timeindex"};
    char fn[4096];
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        snprintf(fn, sizeof(fn), "%s%s", seg->path, ext[i]);
        if (unlink(fn) < 0 && errno != ENOENT) GR_WARN("storage", "unlink %s: %s", fn, strerror(errno));
    }
}

int gr__pread_full(int fd, void *buf, size_t len, int64_t pos) {
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t r = pread(fd, p, len, (off_t)pos);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -errno;
        if (r == 0) return -EINVAL; /* file shorter than expected */
        p += r;
        len -= (size_t)r;
        pos += r;
    }
    return 0;
}

/* A failed write left bytes after seg->size that the truncation could not cut.
 * Overwrite the start of the torn batch with zeros (in place: no new blocks
 * needed) so that recovery after a crash stops there and never keeps whole
 * batches of an append that was answered with an error. */
static void void_tail(gr__seg_t *seg) {
    static const uint8_t zero[GR__LOG_OVERHEAD];
    ssize_t w;
    do w = pwrite(seg->fd, zero, sizeof(zero), (off_t)seg->size);
    while (w < 0 && errno == EINTR);
}

int gr__seg_write(gr__seg_t *seg, const uint8_t *buf, size_t len, bool *rollback_failed) {
    int64_t pos = seg->size;
    size_t left = len;
    while (left > 0) {
        ssize_t w = pwrite(seg->fd, buf, left, (off_t)pos);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            /* Cut the partial write so the file ends at a batch boundary again. */
            if (pos > seg->size && ftruncate(seg->fd, (off_t)seg->size) < 0) {
                *rollback_failed = true;
                void_tail(seg);
            }
            return -e;
        }
        buf += w;
        left -= (size_t)w;
        pos += w;
    }
    return 0;
}

void gr__seg_note_batch(gr__seg_t *seg, int64_t base_off, int64_t last_off, int64_t max_ts, int64_t pos, int64_t len,
                        int32_t interval) {
    gr__index_t *ix = &seg->ix;
    if (pos == 0) seg->first_ts = max_ts;
    if (max_ts > seg->max_ts) {
        seg->max_ts = max_ts;
        seg->max_ts_off = base_off;
    }
    if (ix->bytes_since >= interval) {
        gr__index_add_o(ix, (int32_t)(base_off - seg->base), (int32_t)pos);
        if (seg->max_ts >= 0 && (ix->n_t == 0 || seg->max_ts > ix->t[ix->n_t - 1].ts))
            gr__index_add_t(ix, seg->max_ts, (int32_t)(seg->max_ts_off - seg->base));
        ix->bytes_since = 0;
    }
    ix->bytes_since += len;
    seg->next_offset = last_off + 1;
}

int gr__seg_ensure_index(gr__seg_t *seg, int32_t interval) {
    if (seg->ix_loaded) return 0;
    if (gr__index_load(&seg->ix, seg->path, seg->size, seg->base, seg->next_offset)) {
        gr__index_t *ix = &seg->ix;
        if (ix->n_t) {
            seg->max_ts = ix->t[ix->n_t - 1].ts;
            seg->max_ts_off = seg->base + ix->t[ix->n_t - 1].rel;
        }
        seg->ix_loaded = true;
        return 0;
    }
    int64_t next = seg->next_offset, cut = 0;
    int r = gr__seg_rebuild(seg, interval, false, &cut);
    if (r < 0) return r;
    if (seg->next_offset != next)
        GR_WARN("storage", "%s.log: batches end at offset %lld, next segment starts at %lld", seg->path,
                (long long)seg->next_offset, (long long)next);
    seg->next_offset = next;
    /* Sealed segment: give it its final time entry, as a roll would have. */
    if (seg->max_ts >= 0 && (seg->ix.n_t == 0 || seg->max_ts > seg->ix.t[seg->ix.n_t - 1].ts))
        gr__index_add_t(&seg->ix, seg->max_ts, (int32_t)(seg->max_ts_off - seg->base));
    GR_INFO("storage", "%s: rebuilt missing or corrupt index", seg->path);
    if ((r = gr__index_write(&seg->ix, seg->path)) < 0)
        GR_WARN("storage", "%s: writing index: %s", seg->path, strerror(-r));
    return 0;
}

int gr__fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return r;
}
