/* Loading and saving a partition's producer state (Kafka: producer snapshots and
 * the log read after the last one). */
#include "broker/producers_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file_replace.h"
#include "base/log.h"

#define TAIL_BYTES   (1u << 20)
#define READ_BYTES   (1u << 20)
#define SNAPSHOT_MAX (512u << 20)

void gr_producers_apply(gr_producer_state_t *ps, const gr_batch_view_t *bv) {
    if (!bv->has_header || bv->producer_id < 0) return;
    int64_t last = bv->base_offset + bv->last_offset_delta;
    if (bv->attributes & GR_BATCH_ATTR_CONTROL) {
        int16_t type;
        int32_t ce;
        if (gr_control_batch_marker(bv, &type, &ce) != GR_ERR_NONE) return;
        if (type == GR_CONTROL_ABORT || type == GR_CONTROL_COMMIT)
            gr_producers_complete(ps, bv->producer_id, bv->producer_epoch, ce, type == GR_CONTROL_COMMIT,
                                  bv->base_offset, bv->max_timestamp, -1);
        return;
    }
    if (bv->base_sequence < 0 && !(bv->attributes & GR_BATCH_ATTR_TRANSACTIONAL)) return;
    gr_producers_record(ps, bv->producer_id, bv->producer_epoch, bv->base_sequence, bv->last_offset_delta + 1,
                        bv->base_offset, last, bv->max_timestamp, (bv->attributes & GR_BATCH_ATTR_TRANSACTIONAL) != 0,
                        -1);
}

static void scan(gr_producer_state_t *ps, gr_plog_t *plog, int64_t off) {
    int64_t end = gr_plog_end_offset(plog);
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    while (off < end) {
        gr_plog_slice_t sl;
        char errstr[256];
        gr_wbuf_reset(&wb);
        if (gr_plog_read_copy(plog, off, READ_BYTES, end, &wb, &sl, errstr, sizeof(errstr)) || sl.len == 0) break;
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, wb.mem, wb.len);
        while (gr_batch_iter_next(&it, &bv, NULL, 0) == GR_ERR_NONE)
            if (bv.base_offset + bv.last_offset_delta >= off) gr_producers_apply(ps, &bv);
        off = sl.next_offset > off ? sl.next_offset : end;
    }
    gr_wbuf_free(&wb);
}

static gr_producer_state_t *read_snapshot(const char *dir, int64_t end, size_t max, bool *exists, int64_t *valid_to) {
    char *buf = NULL, errstr[256];
    size_t len = 0;
    *exists = false;
    if (gr_file_read_small(dir, GR_PRODUCERS_SNAPSHOT_FILE, SNAPSHOT_MAX, &buf, &len, errstr, sizeof(errstr))) {
        GR_WARN("producers", "%s; reading the whole log instead", errstr);
        *exists = true;
        return NULL;
    }
    if (!buf) return NULL;
    *exists = true;
    gr_producer_state_t *ps = NULL;
    const char *why = NULL;
    if (gr_producers_snapshot_decode((const uint8_t *)buf, len, max, &ps, valid_to, &why))
        GR_WARN("producers", "%s/%s: %s; reading the whole log instead", dir, GR_PRODUCERS_SNAPSHOT_FILE, why);
    else if (*valid_to > end) {
        GR_WARN("producers", "%s/%s covers offsets up to %lld, past the log end %lld; reading the whole log instead",
                dir, GR_PRODUCERS_SNAPSHOT_FILE, (long long)*valid_to, (long long)end);
        gr_producers_free(ps);
        ps = NULL;
    }
    free(buf);
    return ps;
}

gr_producer_state_t *gr_producers_load(gr_plog_t *plog, const char *dir, size_t max, gr_producers_load_info_t *info) {
    int64_t start = gr_plog_start_offset(plog), end = gr_plog_end_offset(plog), valid_to = 0;
    bool exists;
    gr_producers_load_info_t li = {0};
    gr_producer_state_t *ps = read_snapshot(dir, end, max, &exists, &valid_to);
    if (ps) {
        li.had_snapshot = true;
        li.scanned_from = valid_to > start ? valid_to : start;
    } else {
        ps = gr_producers_new();
        gr_producers_set_max(ps, max);
        li.full_scan = exists;
        li.scanned_from = exists ? start : gr_plog_tail_offset(plog, TAIL_BYTES);
    }
    scan(ps, plog, li.scanned_from);
    if (info) *info = li;
    return ps;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Temp file and rename without fsync: a snapshot lost or torn by a power failure
 * only makes the next start read more of the log (it is checked before use). */
static gr_err_t replace_fast(const char *dir, const uint8_t *data, size_t len) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, GR_PRODUCERS_SNAPSHOT_FILE);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return GR_ERR__IO;
    int rc = write_all(fd, data, len);
    close(fd);
    if (rc == 0 && rename(tmp, path) == 0) return GR_ERR_NONE;
    unlink(tmp);
    return GR_ERR__IO;
}

gr_err_t gr_producers_save(gr_producer_state_t *ps, gr_plog_t *plog, const char *dir, bool durable) {
    gr_producers_prune(ps, gr_plog_start_offset(plog));
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_producers_snapshot_encode(ps, gr_plog_end_offset(plog), &wb);
    char errstr[256] = "";
    gr_err_t err = durable ? gr_file_replace(dir, GR_PRODUCERS_SNAPSHOT_FILE, wb.mem, wb.len, errstr, sizeof(errstr))
                           : replace_fast(dir, wb.mem, wb.len);
    if (err)
        GR_WARN("producers", "cannot write %s/%s: %s", dir, GR_PRODUCERS_SNAPSHOT_FILE,
                errstr[0] ? errstr : strerror(errno));
    gr_wbuf_free(&wb);
    return err;
}
