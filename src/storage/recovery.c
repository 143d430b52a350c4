/* Opening a log: find the segments, decide what can be trusted, and recover
 * the rest.
 *
 * Clean open (the recovery checkpoint carries the shutdown marker and the
 * active segment still has the size it had at shutdown): no data is read,
 * except the active segment's batch headers after its last index entry (at
 * most index.interval.bytes plus one batch). Sealed segments' indexes are
 * loaded lazily, on first use.
 *
 * Unclean open: every segment whose offsets reach the recovery point or beyond
 * is scanned from the start; each batch's header is checked (length, magic,
 * offsets moving forward) and its CRC-32C verified. The file is cut after the
 * last whole valid batch, later segments are removed and indexes are rebuilt;
 * the result is made durable by the first fsync pass (see mark_recovered). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/crc32c.h"
#include "base/log.h"
#include "storage/plog_int.h"

#define SCAN_CHUNK (64 * 1024)
/* After a batch of at least SCAN_BIG bytes only the next header is read: a 64 KiB
 * window would hold few headers and copy mostly record bytes that a header scan (a
 * ShareFetch's, a Fetch's) never looks at. */
#define SCAN_BIG (8 * 1024)

void gr__scan_init(gr__scan_t *sc, int fd, int64_t pos, int64_t end) {
    memset(sc, 0, sizeof(*sc));
    sc->fd = fd;
    sc->pos = pos;
    sc->end = end;
}

void gr__scan_free(gr__scan_t *sc) {
    free(sc->buf);
    sc->buf = NULL;
}

/* Make [pos, pos + need) available in the window; pos + need <= end. */
static int scan_fill(gr__scan_t *sc, int64_t pos, size_t need) {
    if (pos >= sc->wpos && pos + (int64_t)need <= sc->wpos + (int64_t)sc->wlen) return 0;
    size_t chunk = sc->b_len >= SCAN_BIG ? need : SCAN_CHUNK;
    size_t want = need > chunk ? need : chunk;
    if ((int64_t)want > sc->end - pos) want = (size_t)(sc->end - pos);
    if (want > sc->cap) {
        uint8_t *b = realloc(sc->buf, want);
        if (!b) abort();
        sc->buf = b;
        sc->cap = want;
    }
    sc->wlen = 0;
    int r = gr__pread_full(sc->fd, sc->buf, want, pos);
    if (r < 0) return r;
    sc->wpos = pos;
    sc->wlen = want;
    return 0;
}

static int scan_bad(gr__scan_t *sc, const char *why) {
    sc->why = why;
    return -1;
}

int gr__scan_next(gr__scan_t *sc, bool check_crc) {
    if (sc->pos >= sc->end) return 0;
    if (sc->end - sc->pos < GR__SCAN_HDR) return scan_bad(sc, "torn batch header");
    int r = scan_fill(sc, sc->pos, GR__SCAN_HDR);
    if (r < 0) {
        errno = -r;
        return -2;
    }
    const uint8_t *p = sc->buf + (sc->pos - sc->wpos);
    int64_t base = (int64_t)gr_be64(p);
    int32_t blen = (int32_t)gr_be32(p + 8);
    int32_t delta = (int32_t)gr_be32(p + 23);
    if (blen < GR__BATCH_HDR - GR__LOG_OVERHEAD || blen > GR__MAX_BATCH) return scan_bad(sc, "bad batch length");
    if (p[16] != 2) return scan_bad(sc, "bad magic");
    if (base < 0 || delta < 0) return scan_bad(sc, "bad offsets");
    int64_t total = GR__LOG_OVERHEAD + (int64_t)blen;
    if (sc->pos + total > sc->end) return scan_bad(sc, "torn batch");
    sc->b_data = NULL;
    if (check_crc) {
        if ((r = scan_fill(sc, sc->pos, (size_t)total)) < 0) {
            errno = -r;
            return -2;
        }
        p = sc->buf + (sc->pos - sc->wpos);
        if (gr_crc32c(0, p + 21, (size_t)total - 21) != gr_be32(p + 17)) return scan_bad(sc, "CRC mismatch");
        sc->b_data = p;
    }
    sc->b_pos = sc->pos;
    sc->b_base = base;
    sc->b_last = base + delta;
    sc->b_max_ts = (int64_t)gr_be64(p + 35);
    sc->b_len = total;
    sc->pos += total;
    return 1;
}

int gr__seg_rebuild(gr__seg_t *seg, int32_t interval, bool validate, int64_t *truncated) {
    struct stat st;
    if (fstat(seg->fd, &st) < 0) return -errno;
    /* Validate what is on the disk, not what the page cache says: after a failed
     * fsync the kernel may keep pages it could not write, marked clean, and a
     * restarted broker would read them back as valid. Clean pages are dropped
     * here (dirty ones stay and are written back), so the scan sees the disk. */
    if (validate) posix_fadvise(seg->fd, 0, 0, POSIX_FADV_DONTNEED);
    gr__index_reset(&seg->ix);
    seg->max_ts = seg->max_ts_off = seg->first_ts = -1;
    seg->next_offset = seg->base;
    gr__scan_t sc;
    gr__scan_init(&sc, seg->fd, 0, st.st_size);
    int r;
    while ((r = gr__scan_next(&sc, validate)) == 1) {
        if (sc.b_base < seg->next_offset) {
            r = scan_bad(&sc, "offsets go backwards");
            sc.pos = sc.b_pos;
            break;
        }
        gr__seg_note_batch(seg, sc.b_base, sc.b_last, sc.b_max_ts, sc.b_pos, sc.b_len, interval);
    }
    int64_t valid = sc.pos;
    const char *why = sc.why;
    gr__scan_free(&sc);
    if (r == -2) return -errno;
    seg->ix_loaded = true;
    *truncated = 0;
    if (r == -1 && !validate)
        GR_WARN("storage", "%s.log: %s at position %" PRId64 ", not indexed past it", seg->path, why, valid);
    if (validate && valid < st.st_size) {
        if (ftruncate(seg->fd, (off_t)valid) < 0) return -errno;
        *truncated = st.st_size - valid;
        GR_DEBUG("storage", "%s.log: %s at position %" PRId64, seg->path, why ? why : "?", valid);
    }
    seg->size = validate ? valid : st.st_size;
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Base offsets of the *.log files, sorted. Also removes leftover checkpoint temp files. */
static int list_bases(gr_plog_t *plog, int64_t **bases, size_t *n) {
    DIR *d = opendir(plog->dir);
    if (!d) return -errno;
    size_t cap = 0;
    *bases = NULL;
    *n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *nm = de->d_name;
        size_t len = strlen(nm);
        if (len > 4 && !strcmp(nm + len - 4, ".tmp")) {
            unlinkat(dirfd(d), nm, 0);
            continue;
        }
        if (len != 24 || strcmp(nm + 20, ".log") || strspn(nm, "0123456789") != 20) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *bases = realloc(*bases, cap * sizeof(**bases));
            if (!*bases) abort();
        }
        (*bases)[(*n)++] = strtoll(nm, NULL, 10);
    }
    closedir(d);
    if (*n) qsort(*bases, *n, sizeof(**bases), cmp_i64);
    return 0;
}

static gr_err_t open_segments(gr_plog_t *plog, int64_t now_ms, char *errstr, size_t n) {
    int64_t *bases = NULL;
    size_t nb = 0;
    int r = list_bases(plog, &bases, &nb);
    if (r < 0) {
        GR__ERRSTR(errstr, n, "list %s: %s", plog->dir, strerror(-r));
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    for (size_t i = 0; i < nb; i++) {
        char fn[4096];
        struct stat st;
        snprintf(fn, sizeof(fn), "%s/%020" PRId64 ".log", plog->dir, bases[i]);
        int fd = open(fn, O_RDWR | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
            GR__ERRSTR(errstr, n, "open %s: %s", fn, strerror(errno));
            if (fd >= 0) close(fd);
            free(bases);
            return GR_ERR_KAFKA_STORAGE_ERROR;
        }
        gr__seg_t *seg = gr__seg_new(plog->dir, bases[i], fd, now_ms);
        seg->size = st.st_size;
        seg->next_offset = i + 1 < nb ? bases[i + 1] : -1;
        seg->sealed = i + 1 < nb;
        gr__plog_push_seg(plog, seg);
    }
    free(bases);
    return GR_ERR_NONE;
}

typedef struct rec_ckpt {
    bool found; /* a valid recovery checkpoint was read */
    int64_t rp;
    int clean;
    int64_t base, size, end;
} rec_ckpt_t;

static void read_ckpts(gr_plog_t *plog, rec_ckpt_t *rc) {
    char buf[256];
    long long a = 0, b = 0, c = 0, d = 0;
    int cl = 0;
    memset(rc, 0, sizeof(*rc));
    if (gr__ckpt_read(plog->dir, GR__CKPT_RECOVERY, buf, sizeof(buf)) == 0 &&
        sscanf(buf, "gregor-recovery 1\nrp %lld\nclean %d %lld %lld %lld", &a, &cl, &b, &c, &d) == 5 && a >= 0) {
        *rc = (rec_ckpt_t){.found = true, .rp = a, .clean = cl == 1, .base = b, .size = c, .end = d};
    }
    plog->start_offset = 0;
    if (gr__ckpt_read(plog->dir, GR__CKPT_START, buf, sizeof(buf)) == 0 &&
        sscanf(buf, "gregor-log-start 1\n%lld", &a) == 1 && a >= 0)
        plog->start_offset = a;
}

/* Trust the active segment after a clean shutdown: load its index and walk the
 * headers after the last index entry. False if anything does not add up. */
static bool open_active_clean(gr_plog_t *plog, const rec_ckpt_t *rc) {
    gr__seg_t *seg = plog->segs[plog->n_segs - 1];
    if (!rc->clean || seg->base != rc->base || seg->size != rc->size) return false;
    if (seg->size == 0 && rc->end == seg->base) { /* empty active segment: nothing to index */
        seg->next_offset = seg->base;
        seg->ix_loaded = true;
        return true;
    }
    if (!gr__index_load(&seg->ix, seg->path, seg->size, seg->base, -1)) return false;
    gr__index_t *ix = &seg->ix;
    int64_t pos = ix->n_o ? ix->o[ix->n_o - 1].pos : 0;
    seg->next_offset = ix->n_o ? seg->base + ix->o[ix->n_o - 1].rel : seg->base;
    if (ix->n_t) {
        seg->max_ts = ix->t[ix->n_t - 1].ts;
        seg->max_ts_off = seg->base + ix->t[ix->n_t - 1].rel;
    }
    gr__scan_t sc;
    gr__scan_init(&sc, seg->fd, pos, seg->size);
    int r;
    while ((r = gr__scan_next(&sc, false)) == 1) {
        if (sc.b_base < seg->next_offset) break;
        if (sc.b_max_ts > seg->max_ts) {
            seg->max_ts = sc.b_max_ts;
            seg->max_ts_off = sc.b_base;
        }
        seg->next_offset = sc.b_last + 1;
        ix->bytes_since += sc.b_len;
    }
    gr__scan_free(&sc);
    if (r != 0 || seg->next_offset != rc->end) {
        gr__index_reset(ix);
        return false;
    }
    uint8_t h[GR__SCAN_HDR];
    if (seg->size >= GR__SCAN_HDR && gr__pread_full(seg->fd, h, sizeof(h), 0) == 0)
        seg->first_ts = (int64_t)gr_be64(h + 35);
    seg->ix_loaded = true;
    return true;
}

/* Remove segments after index i (they follow a corrupt tail). */
static int drop_after(gr_plog_t *plog, size_t i) {
    int dropped = 0;
    while (plog->n_segs > i + 1) {
        gr__seg_t *seg = plog->segs[--plog->n_segs];
        gr__seg_unlink(seg);
        gr__seg_unref(seg);
        dropped++;
    }
    return dropped;
}

/* Recovered segments are not fsynced here (that would cost several fsyncs per
 * partition at start-up): they are marked dirty, so the first fsync pass makes them
 * durable and only then moves the recovery point. Until then the durable offset
 * stays at the old recovery point, and a second crash simply recovers again.
 * Index files of recovered sealed segments are written now (fsynced by that pass). */
static void mark_recovered(gr_plog_t *plog, size_t from) {
    for (size_t i = from; i < plog->n_segs; i++) {
        gr__seg_t *seg = plog->segs[i];
        seg->dirty = true;
        if (seg->sealed) {
            int r = gr__index_write(&seg->ix, seg->path);
            if (r < 0) GR_WARN("storage", "%s: writing index: %s", seg->path, strerror(-r));
            seg->ix_unsynced = true;
        }
    }
    plog->dir_dirty = true;
}

static gr_err_t recover(gr_plog_t *plog, int64_t rp, int64_t *durable, char *errstr, size_t n) {
    size_t i = 0;
    while (i + 1 < plog->n_segs && plog->segs[i + 1]->base <= rp) i++;
    size_t from = i;
    int64_t cut = 0, cut_seg = -1, cut_at = 0;
    int dropped = 0;
    for (; i < plog->n_segs; i++) {
        gr__seg_t *seg = plog->segs[i];
        int r = gr__seg_rebuild(seg, plog->cfg.index_interval_bytes, true, &cut);
        if (r < 0) {
            GR__ERRSTR(errstr, n, "%s.log: recovery: %s", seg->path, strerror(-r));
            return GR_ERR_KAFKA_STORAGE_ERROR;
        }
        bool gap = i + 1 < plog->n_segs && seg->next_offset != plog->segs[i + 1]->base;
        if (cut > 0 || gap) {
            cut_seg = seg->base;
            cut_at = seg->next_offset;
            dropped = drop_after(plog, i);
            break;
        }
    }
    gr__seg_t *act = plog->segs[plog->n_segs - 1];
    act->sealed = false;
    for (size_t j = from; j < plog->n_segs; j++) /* sealed ones get their final time entry */
        if (plog->segs[j]->sealed && plog->segs[j]->max_ts >= 0)
            gr__index_add_t(&plog->segs[j]->ix, plog->segs[j]->max_ts,
                            (int32_t)(plog->segs[j]->max_ts_off - plog->segs[j]->base));
    plog->end_offset = act->next_offset;
    *durable = rp < plog->end_offset ? rp : plog->end_offset;
    if (cut_seg >= 0)
        GR_INFO("storage",
                "%s: recovered: truncated %" PRId64 " bytes at offset %" PRId64 " in segment %" PRId64
                ", removed %d later segment(s), log end offset %" PRId64,
                plog->name, cut, cut_at, cut_seg, dropped, plog->end_offset);
    mark_recovered(plog, from);
    return GR_ERR_NONE;
}

/* The log start offset is past the end (data lost after a DeleteRecords): start
 * over empty at the log start, as Kafka's truncateFullyAndStartAt does. */
static gr_err_t restart_at_start(gr_plog_t *plog, int64_t now_ms, char *errstr, size_t n) {
    GR_WARN("storage", "%s: log start offset %" PRId64 " is past the end offset %" PRId64 ", emptying the log",
            plog->name, plog->start_offset, plog->end_offset);
    drop_after(plog, 0);
    gr__seg_t *old = plog->segs[0], *seg;
    plog->n_segs = 0;
    gr__seg_unlink(old);
    gr__seg_unref(old);
    gr_err_t err = gr__seg_create(plog->dir, plog->start_offset, now_ms, &seg, errstr, n);
    if (err) return err;
    gr__plog_push_seg(plog, seg);
    plog->end_offset = plog->start_offset;
    mark_recovered(plog, 0);
    return GR_ERR_NONE;
}

gr_err_t gr__plog_load(gr_plog_t *plog, int64_t now_ms, char *errstr, size_t n) {
    rec_ckpt_t rc;
    read_ckpts(plog, &rc);
    gr_err_t err = open_segments(plog, now_ms, errstr, n);
    if (err) return err;
    if (plog->n_segs == 0) {
        gr__seg_t *seg;
        if ((err = gr__seg_create(plog->dir, plog->start_offset, now_ms, &seg, errstr, n))) return err;
        gr__plog_push_seg(plog, seg);
        rc = (rec_ckpt_t){.rp = plog->start_offset, .clean = 1, .base = seg->base, .end = seg->base};
        plog->dir_dirty = true;
    } else if (!rc.found && plog->n_segs == 1 && plog->segs[0]->size == 0) {
        /* A lone empty segment holds nothing to recover: no marker is needed (a new
         * partition closed without ever being written leaves exactly this). */
        rc = (rec_ckpt_t){
            .rp = plog->segs[0]->base, .clean = 1, .base = plog->segs[0]->base, .end = plog->segs[0]->base};
    }
    int64_t durable;
    if (open_active_clean(plog, &rc)) {
        plog->end_offset = durable = plog->segs[plog->n_segs - 1]->next_offset;
        plog->disk_clean = true;
    } else if ((err = recover(plog, rc.rp, &durable, errstr, n))) {
        return err;
    }
    if (plog->start_offset < plog->segs[0]->base) plog->start_offset = plog->segs[0]->base;
    if (plog->start_offset > plog->end_offset) {
        if ((err = restart_at_start(plog, now_ms, errstr, n))) return err;
        durable = plog->end_offset;
        plog->disk_clean = false; /* the new segment is not what the marker describes */
    }
    __atomic_store_n(&plog->durable_offset, durable, __ATOMIC_RELEASE);
    gr__plog_shape(plog, plog->open_shape);
    return GR_ERR_NONE;
}
