/* Sparse offset index and time index of one segment.
 *
 * Both live in memory (arrays grown by doubling) and are written to their
 * files whole when the segment is sealed (rolled) or the log is closed; the
 * active segment's files are never updated in place. Files are therefore
 * "simply grown" rather than preallocated to segment.index.bytes and trimmed:
 * there is nothing to trim, and segment.index.bytes only bounds the entry
 * count (the log rolls when the offset index would exceed it).
 *
 * Formats (big-endian, like Kafka):
 *   .index      8 bytes per entry: int32 relative base offset, int32 position
 *   .timeindex 12 bytes per entry: int64 max timestamp so far, int32 relative offset
 * Any prefix of a valid index is a valid sparse index, so a file cut short by a
 * crash is harmless; garbage is caught by the sanity check at load. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "storage/plog_int.h"

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return p;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *q = realloc(p, c * elem);
    if (!q) abort();
    *cap = c;
    return q;
}

void gr__index_free(gr__index_t *ix) {
    free(ix->o);
    free(ix->t);
    memset(ix, 0, sizeof(*ix));
}

void gr__index_reset(gr__index_t *ix) {
    ix->n_o = ix->n_t = 0;
    ix->bytes_since = 0;
}

void gr__index_add_o(gr__index_t *ix, int32_t rel, int32_t pos) {
    ix->o = grow(ix->o, &ix->cap_o, ix->n_o + 1, sizeof(*ix->o));
    ix->o[ix->n_o++] = (gr__oix_t){rel, pos};
}

void gr__index_add_t(gr__index_t *ix, int64_t ts, int32_t rel) {
    ix->t = grow(ix->t, &ix->cap_t, ix->n_t + 1, sizeof(*ix->t));
    ix->t[ix->n_t++] = (gr__tix_t){ts, rel};
}

int64_t gr__index_lookup_o(const gr__index_t *ix, int32_t rel) {
    size_t lo = 0, hi = ix->n_o; /* first entry with o.rel > rel */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->o[mid].rel <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? ix->o[lo - 1].pos : 0;
}

int32_t gr__index_lookup_t(const gr__index_t *ix, int64_t target) {
    size_t lo = 0, hi = ix->n_t; /* first entry with ts >= target */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->t[mid].ts < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? ix->t[lo - 1].rel : -1;
}

/* Read a whole small file. Returns 0 (and *buf malloc'd, possibly NULL when empty) or -errno. */
static int slurp(const char *path, uint8_t **buf, size_t *len) {
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    int r = 0;
    if (fstat(fd, &st) < 0)
        r = -errno;
    else if (st.st_size > 0) {
        *buf = malloc((size_t)st.st_size);
        if (!*buf) abort();
        r = gr__pread_full(fd, *buf, (size_t)st.st_size, 0);
        *len = (size_t)st.st_size;
    }
    close(fd);
    if (r < 0) {
        free(*buf);
        *buf = NULL;
    }
    return r;
}

static bool load_o(gr__index_t *ix, const uint8_t *p, size_t len, int64_t seg_size, int64_t span) {
    if (len % 8) return false;
    for (size_t i = 0; i < len / 8; i++) {
        int32_t rel = (int32_t)gr_be32(p + i * 8), pos = (int32_t)gr_be32(p + i * 8 + 4);
        if (rel < 0 || pos < 0 || pos >= seg_size || rel >= span) return false;
        if (ix->n_o && (rel <= ix->o[ix->n_o - 1].rel || pos <= ix->o[ix->n_o - 1].pos)) return false;
        gr__index_add_o(ix, rel, pos);
    }
    return true;
}

static bool load_t(gr__index_t *ix, const uint8_t *p, size_t len, int64_t span) {
    if (len % 12) return false;
    for (size_t i = 0; i < len / 12; i++) {
        int64_t ts = (int64_t)gr_be64(p + i * 12);
        int32_t rel = (int32_t)gr_be32(p + i * 12 + 8);
        if (rel < 0 || rel >= span) return false;
        if (ix->n_t && (ts <= ix->t[ix->n_t - 1].ts || rel < ix->t[ix->n_t - 1].rel)) return false;
        gr__index_add_t(ix, ts, rel);
    }
    return true;
}

bool gr__index_load(gr__index_t *ix, const char *path, int64_t seg_size, int64_t seg_base, int64_t next_offset) {
    char fn[4096];
    uint8_t *o = NULL, *t = NULL;
    size_t olen = 0, tlen = 0;
    bool ok = false;
    gr__index_reset(ix);
    snprintf(fn, sizeof(fn), "%s.index", path);
    if (slurp(fn, &o, &olen) < 0) goto out;
    snprintf(fn, sizeof(fn), "%s.timeindex", path);
    if (slurp(fn, &t, &tlen) < 0) goto out;
    /* next_offset < 0: unknown (active segment), only bound by the int32 range. */
    int64_t span = next_offset >= 0 ? next_offset - seg_base : INT32_MAX;
    if (!load_o(ix, o, olen, seg_size, span) || !load_t(ix, t, tlen, span)) goto out;
    /* A non-empty segment always has at least its final time entry. */
    ok = seg_size == 0 ? (olen == 0 && tlen == 0) : tlen > 0;
out:
    free(o);
    free(t);
    if (!ok) gr__index_reset(ix);
    return ok;
}

/* Overwrite in place and cut to length. Not O_TRUNC: ext4 (auto_da_alloc) starts a
 * synchronous writeback when a truncated-to-zero file is closed, which made index
 * rewrites at start-up cost as much as an fsync each. */
static int write_file(const char *fn, const uint8_t *p, size_t len) {
    int fd = open(fn, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    int r = 0;
    off_t pos = 0;
    while ((size_t)pos < len) {
        ssize_t w = pwrite(fd, p + pos, len - (size_t)pos, pos);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            r = -errno;
            break;
        }
        pos += w;
    }
    if (r == 0 && ftruncate(fd, (off_t)len) < 0) r = -errno;
    close(fd);
    return r;
}

int gr__index_write(const gr__index_t *ix, const char *path) {
    char fn[4096];
    size_t n = ix->n_o * 8 > ix->n_t * 12 ? ix->n_o * 8 : ix->n_t * 12;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) abort();
    for (size_t i = 0; i < ix->n_o; i++) {
        gr_put_be32(buf + i * 8, (uint32_t)ix->o[i].rel);
        gr_put_be32(buf + i * 8 + 4, (uint32_t)ix->o[i].pos);
    }
    snprintf(fn, sizeof(fn), "%s.index", path);
    int r = write_file(fn, buf, ix->n_o * 8);
    for (size_t i = 0; r == 0 && i < ix->n_t; i++) {
        gr_put_be64(buf + i * 12, (uint64_t)ix->t[i].ts);
        gr_put_be32(buf + i * 12 + 8, (uint32_t)ix->t[i].rel);
    }
    snprintf(fn, sizeof(fn), "%s.timeindex", path);
    if (r == 0) r = write_file(fn, buf, ix->n_t * 12);
    free(buf);
    if (r < 0) { /* a torn .timeindex could pass the load check with a too small max timestamp */
        snprintf(fn, sizeof(fn), "%s.index", path);
        unlink(fn);
        snprintf(fn, sizeof(fn), "%s.timeindex", path);
        unlink(fn);
    }
    return r;
}

static int fsync_path(const char *fn) {
    int fd = open(fn, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -errno;
    int r = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return r;
}

int gr__index_fsync(const char *path) {
    char fn[4096];
    snprintf(fn, sizeof(fn), "%s.index", path);
    int r = fsync_path(fn);
    snprintf(fn, sizeof(fn), "%s.timeindex", path);
    if (r == 0) r = fsync_path(fn);
    return r;
}
