/* Acquisition for ShareFetch: read a partition log at the SP's next fetch
 * offset, hand the batch headers to the SP (gr_sp_acquire) and serve the
 * acquired ranges as one file-backed slice (sendfile), trimmed to the whole
 * batches that cover [first acquired, last acquired] (spec §2.6).
 *
 * Only batch headers are read, in the one header scan of the log read
 * (gr_plog_read_batches, which starts at the offset index entry and stops at the
 * batch covering the last offset the record budget can use), never record bytes:
 * those go out of the page cache by sendfile.
 *
 * Under share.isolation.level=read_committed the read stops at the last stable
 * offset, and when the partition's aborted-transactions index has transactions
 * overlapping the read, the producer id and attributes of its batches (61-byte
 * headers, read only then) tell which are aborted data: the SP archives what it
 * acquires of them instead of delivering it (share/acquire_plan.h, sp_aborted.c).
 *
 * @locality loop thread. */
#include "broker/share_acquire.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "broker/broker_int.h"
#include "broker/producers.h"
#include "proto/records.h"

/* gr_plog_batch_cb: collect the headers of the slice's batches. */
static void on_batch(void *arg, const gr_plog_batch_t *b) {
    gr_share_hdrs_push(arg, b->base, b->last, b->pos, b->pos + b->len);
}

static void put_slice(gr_bytes_t *rec, const gr_plog_slice_t *sl, int64_t pos, int64_t len) {
    rec->file_backed = true;
    rec->fd = sl->fd;
    rec->off = pos;
    rec->len = (int32_t)len;
    rec->release = gr_plog_slice_release;
    rec->owner = sl->owner;
}

/* AcquiredRecords as Kafka 4.4.0 answers them (share/acquire_plan.h;
 * docs/share-partition.md, "AcquiredRecords"). */
static void copy_ranges(gr_req_t *req, const gr_sp_acquire_res_t *res, gr_share_acq_out_t *out) {
    out->ranges = gr_arena_alloc(&req->arena, (res->n ? res->n : 1) * sizeof(*out->ranges));
    out->n_ranges = gr_share_merge_ranges(res->ranges, res->n, out->ranges);
    out->n_records = res->n_records;
}

static int64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return (int64_t)v;
}

/* read_committed: the aborted data batches among hs (into *out, caller frees), from the
 * aborted transactions overlapping [from, bound). Returns how many ranges, or -1 when a
 * batch header cannot be read. */
static ssize_t aborted_ranges(gr_partition_t *p, const gr_plog_slice_t *sl, const gr_share_hdrs_t *hs, int64_t from,
                              int64_t bound, gr_sp_offsets_t **out) {
    *out = NULL;
    size_t n_ab = gr_producers_aborted(p->producers, from, bound, NULL, 0);
    if (!n_ab) return 0;
    gr_aborted_txn_t *txns = gr_xmalloc(n_ab * sizeof(*txns));
    gr_share_abort_t *ab = gr_xmalloc(n_ab * sizeof(*ab));
    gr_producers_aborted(p->producers, from, bound, txns, n_ab);
    for (size_t i = 0; i < n_ab; i++)
        ab[i] = (gr_share_abort_t){txns[i].pid, txns[i].first_offset, txns[i].last_offset};
    free(txns);
    gr_share_txn_batch_t *tb = gr_xmalloc(hs->n * sizeof(*tb));
    ssize_t n = 0;
    for (size_t i = 0; i < hs->n; i++) {
        uint8_t h[GR_RECORD_BATCH_OVERHEAD];
        ssize_t got = pread(sl->fd, h, sizeof(h), hs->pos[i]);
        tb[i] = (gr_share_txn_batch_t){hs->v[i].base_offset, hs->v[i].last_offset, -1, false, false};
        if (got > 16 && h[16] != 2) continue; /* magic 0/1: no producer id, never transactional */
        if (got != (ssize_t)sizeof(h)) {
            n = -1;
            break;
        }
        int attrs = h[GR_BATCH_ATTRIBUTES_OFFSET] << 8 | h[GR_BATCH_ATTRIBUTES_OFFSET + 1];
        tb[i].pid = be64(h + 43);
        tb[i].transactional = (attrs & GR_BATCH_ATTR_TRANSACTIONAL) != 0;
        tb[i].control = (attrs & GR_BATCH_ATTR_CONTROL) != 0;
    }
    if (n == 0) {
        *out = gr_xmalloc(hs->n * sizeof(**out));
        n = (ssize_t)gr_share_aborted_batches(tb, hs->n, ab, n_ab, *out);
    }
    free(tb);
    free(ab);
    return n;
}

/* The end (exclusive) of what hs read: the aborted transactions that matter overlap it. */
static int64_t read_end(const gr_share_hdrs_t *hs, int64_t bound) {
    int64_t e = hs->v[hs->n - 1].last_offset + 1;
    return e < bound ? e : bound;
}

/* Acquire from the slice sl (its batch headers in hs) and serve. Takes sl's reference.
 * Returns the wire error for the partition. */
static gr_err_t acquire_read(gr_share_acq_t *aq, const gr_plog_slice_t *sl, gr_share_hdrs_t *hs, bool rc, int64_t bound,
                             gr_share_acq_out_t *out) {
    gr_share_part_t *part = aq->part;
    gr_err_t err;
    if (hs->n == 0) {
        gr_plog_slice_release(sl->owner);
        return GR_ERR_NONE;
    }
    gr_sp_offsets_t *aborted = NULL;
    ssize_t n_aborted = 0;
    if (rc && (n_aborted = aborted_ranges(aq->p, sl, hs, hs->v[0].base_offset, read_end(hs, bound), &aborted)) < 0) {
        GR_ERROR("share", "batch header read of %s-%d failed", aq->p->topic, aq->p->index);
        gr_plog_slice_release(sl->owner);
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    gr_sp_acquire_req_t ar = {
        aq->member, (int32_t)(aq->budget > INT32_MAX ? INT32_MAX : aq->budget), aq->batch_size, aq->mode, hs->v, hs->n};
    gr_sp_acquire_res_t res;
    gr_sp_acquire_res_init(&res);
    bool written;
    /* What the acquisition archived (records gone from the log, §1.8) is written
     * with it; if that write fails nothing was acquired (rolled back, answered 56). */
    gr_share_part_begin(part);
    err = gr_sp_acquire(part->sp, &ar, aq->conf, aq->now, &res, &part->delta);
    if (!err && n_aborted > 0) gr_sp_drop_aborted(part->sp, aborted, (size_t)n_aborted, &res, &part->delta);
    err = gr_share_part_end(part, err, NULL, NULL, &written);
    gr_share_part_touched(part);
    if (!err && res.n > 0) {
        int64_t pos, len;
        gr_share_hdrs_cover(hs, res.read_first, res.read_last, &pos, &len);
        put_slice(out->records, sl, pos, len);
        copy_ranges(aq->req, &res, out);
        out->bytes = len;
    } else {
        gr_plog_slice_release(sl->owner);
    }
    gr_sp_acquire_res_free(&res);
    free(aborted);
    return err == GR_ERR__INVALID_ARG ? GR_ERR_CORRUPT_MESSAGE : err;
}

gr_err_t gr_share_acquire(gr_share_acq_t *aq, gr_share_acq_out_t *out) {
    out->n_records = 0;
    out->bytes = 0;
    out->n_ranges = 0;
    gr_share_part_t *part = aq->part;
    gr_plog_t *plog = aq->p->plog;
    if (aq->budget <= 0 || !gr_sp_can_acquire(part->sp, aq->conf)) return GR_ERR_NONE;
    int64_t next = gr_sp_next_fetch_offset(part->sp);
    bool rc = gr_share_part_read_committed(part);
    int64_t hwm = gr_share_read_bound(rc, gr_plog_end_offset(plog), gr_partition_lso(aq->p));
    if (next >= hwm) return GR_ERR_NONE;
    if (aq->max_bytes <= 0 && !aq->min_one) return GR_ERR_NONE;
    /* The SP can use offsets up to `until` at most (the record budget past its window), so
     * the read stops at the batch that covers it: the headers of that one scan go to the SP. */
    int64_t spe = gr_sp_end_offset(part->sp);
    int64_t until = gr_share_read_until(next, spe, aq->budget);
    gr_plog_slice_t sl;
    gr_share_hdrs_t hs = {0};
    char errstr[256];
    gr_err_t err = gr_plog_read_batches(plog, next, (size_t)(aq->max_bytes > 0 ? aq->max_bytes : 1), hwm, until,
                                        on_batch, &hs, &sl, errstr, sizeof(errstr));
    if (err == GR_ERR_OFFSET_OUT_OF_RANGE) {
        err = GR_ERR_NONE; /* §1.8: the log start moved; next fetch */
    } else if (err) {
        GR_ERROR("share", "read of %s-%d at %lld failed: %s", aq->p->topic, aq->p->index, (long long)next, errstr);
        aq->p->offline = true;
        err = GR_ERR_KAFKA_STORAGE_ERROR;
    } else if (sl.len > 0 && !aq->min_one && (int64_t)sl.len > aq->max_bytes) {
        gr_plog_slice_release(sl.owner);
    } else if (sl.len > 0) {
        err = acquire_read(aq, &sl, &hs, rc, hwm, out);
    }
    gr_share_hdrs_free(&hs);
    return err;
}

int64_t gr_share_probe_bytes(gr_share_part_t *part, gr_partition_t *p, const gr_sp_conf_t *conf, int64_t want) {
    if (!gr_sp_can_acquire(part->sp, conf)) return 0;
    int64_t next = gr_sp_next_fetch_offset(part->sp);
    int64_t hwm =
        gr_share_read_bound(gr_share_part_read_committed(part), gr_plog_end_offset(p->plog), gr_partition_lso(p));
    if (next >= hwm) return 0;
    gr_plog_slice_t sl;
    char errstr[128];
    if (gr_plog_read(p->plog, next, (size_t)(want > 0 ? want : 1), hwm, &sl, errstr, sizeof(errstr))) return 0;
    int64_t n = (int64_t)sl.len;
    gr_plog_slice_release(sl.owner);
    return n;
}
