/* The snapshot form of a partition's producer state (docs/storage.md, "Producer
 * state and transactions"). Big-endian:
 *
 *   u32 magic "GRPS", u16 version 1, i64 valid_to (the log end offset it covers)
 *   u32 producers, each: i64 pid, i16 epoch, i32 coordinator epoch, i64 last
 *       timestamp, i64 ongoing transaction's first offset (-1 none), u8 batches
 *       (<= 5), each: i32 first seq, i32 last seq, i64 base offset, i64 last offset
 *   u32 aborted transactions, each: i64 pid, i64 first, i64 last, i64 lso
 *   u32 CRC-32C of everything before it
 *
 * The ongoing-transactions list is derived from the producers on decode. The
 * producers are in least-recently-used order (those without an ongoing transaction
 * first); version-1 files written before the cap existed list them by producer id,
 * which decodes the same way (ids are handed out in increasing order, so that order
 * approximates recency). Decoding applies the cap as appends do. */
#include <stdlib.h>
#include <string.h>

#include "base/crc32c.h"
#include "broker/producers.h"
#include "broker/producers_int.h"

#define SNAP_MAGIC   0x47525053u /* "GRPS" */
#define SNAP_VERSION 1

static void encode_producer(const gr_pentry_t *e, gr_wbuf_t *out) {
    gr_wbuf_i64(out, e->pid);
    gr_wbuf_i16(out, e->epoch);
    gr_wbuf_i32(out, e->coord_epoch);
    gr_wbuf_i64(out, e->last_ts);
    gr_wbuf_i64(out, e->txn_first);
    gr_wbuf_i8(out, (int8_t)e->n);
    for (int k = 0; k < e->n; k++) {
        gr_wbuf_i32(out, e->b[k].first_seq);
        gr_wbuf_i32(out, e->b[k].last_seq);
        gr_wbuf_i64(out, e->b[k].base_offset);
        gr_wbuf_i64(out, e->b[k].last_offset);
    }
}

void gr_producers_snapshot_encode(const gr_producer_state_t *ps, int64_t valid_to, gr_wbuf_t *out) {
    size_t start = out->len;
    gr_wbuf_u32(out, SNAP_MAGIC);
    gr_wbuf_i16(out, SNAP_VERSION);
    gr_wbuf_i64(out, valid_to);
    gr_wbuf_u32(out, (uint32_t)ps->tab.n);
    /* Least recently used first: the same state always gives the same bytes, and a
     * decode under a smaller cap keeps the most recent. */
    for (const gr_pentry_t *e = ps->idle.head; e; e = e->lru_next) encode_producer(e, out);
    for (const gr_pentry_t *e = ps->busy.head; e; e = e->lru_next) encode_producer(e, out);
    gr_wbuf_u32(out, (uint32_t)ps->n_aborted);
    for (size_t i = 0; i < ps->n_aborted; i++) {
        gr_wbuf_i64(out, ps->aborted[i].pid);
        gr_wbuf_i64(out, ps->aborted[i].first_offset);
        gr_wbuf_i64(out, ps->aborted[i].last_offset);
        gr_wbuf_i64(out, ps->aborted[i].lso);
    }
    gr_wbuf_u32(out, gr_crc32c(0, out->mem + start, out->len - start));
}

static bool decode_producer(gr_rbuf_t *rb, gr_producer_state_t *ps, int64_t valid_to, const char **why) {
    int64_t pid, ts, first;
    int16_t epoch;
    int32_t ce;
    int8_t n;
    if (!gr_rbuf_i64(rb, &pid) || !gr_rbuf_i16(rb, &epoch) || !gr_rbuf_i32(rb, &ce) || !gr_rbuf_i64(rb, &ts) ||
        !gr_rbuf_i64(rb, &first) || !gr_rbuf_i8(rb, &n))
        return (*why = "truncated producer"), false;
    if (pid < 0 || n < 0 || n > GR_PRODUCER_BATCHES || first < -1 || first >= valid_to)
        return (*why = "bad producer entry"), false;
    if (gr_producers_entry(ps, pid, false)) return (*why = "producer twice"), false;
    gr_pentry_t *e = gr_producers_entry(ps, pid, true);
    e->epoch = epoch;
    e->coord_epoch = ce;
    e->last_ts = ts;
    e->txn_first = first;
    for (int k = 0; k < n; k++) {
        gr_pbatch_t *b = &e->b[k];
        if (!gr_rbuf_i32(rb, &b->first_seq) || !gr_rbuf_i32(rb, &b->last_seq) || !gr_rbuf_i64(rb, &b->base_offset) ||
            !gr_rbuf_i64(rb, &b->last_offset))
            return (*why = "truncated batch"), false;
        if (b->base_offset < 0 || b->last_offset < b->base_offset || b->last_offset >= valid_to)
            return (*why = "bad batch offsets"), false;
    }
    e->n = n;
    if (first >= 0) gr_producers_ongoing_add(ps, pid, first);
    gr_producers_touch(ps, e); /* to the busy list if its transaction is ongoing */
    return true;
}

static bool decode_body(gr_rbuf_t *rb, gr_producer_state_t *ps, int64_t *valid_to, const char **why) {
    uint32_t magic, np, na;
    int16_t version;
    if (!gr_rbuf_u32(rb, &magic) || !gr_rbuf_i16(rb, &version) || !gr_rbuf_i64(rb, valid_to))
        return (*why = "truncated header"), false;
    if (magic != SNAP_MAGIC || version != SNAP_VERSION) return (*why = "not a version 1 snapshot"), false;
    if (*valid_to < 0) return (*why = "negative offset"), false;
    if (!gr_rbuf_u32(rb, &np) || np > gr_rbuf_remaining(rb) / 31) return (*why = "bad producer count"), false;
    for (uint32_t i = 0; i < np; i++)
        if (!decode_producer(rb, ps, *valid_to, why)) return false;
    if (!gr_rbuf_u32(rb, &na) || na > gr_rbuf_remaining(rb) / 32) return (*why = "bad aborted count"), false;
    int64_t prev_last = -1;
    for (uint32_t i = 0; i < na; i++) {
        gr_aborted_txn_t a;
        if (!gr_rbuf_i64(rb, &a.pid) || !gr_rbuf_i64(rb, &a.first_offset) || !gr_rbuf_i64(rb, &a.last_offset) ||
            !gr_rbuf_i64(rb, &a.lso))
            return (*why = "truncated aborted transaction"), false;
        if (a.first_offset < 0 || a.last_offset < a.first_offset || a.last_offset < prev_last ||
            a.last_offset >= *valid_to || a.lso > *valid_to || a.lso < 0)
            return (*why = "bad aborted transaction"), false;
        prev_last = a.last_offset;
        gr_producers_aborted_add(ps, &a);
    }
    return true;
}

gr_err_t gr_producers_snapshot_decode(const uint8_t *buf, size_t len, size_t max, gr_producer_state_t **out,
                                      int64_t *valid_to, const char **why) {
    *out = NULL;
    *why = NULL;
    if (len < 4 || gr_crc32c(0, buf, len - 4) != gr_be32(buf + len - 4)) {
        *why = "checksum mismatch";
        return GR_ERR_CORRUPT_MESSAGE;
    }
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, buf, len - 4);
    gr_producer_state_t *ps = gr_producers_new();
    gr_producers_set_max(ps, max);
    if (!decode_body(&rb, ps, valid_to, why) || gr_rbuf_remaining(&rb) != 0) {
        if (!*why) *why = "trailing bytes";
        gr_producers_free(ps);
        return GR_ERR_CORRUPT_MESSAGE;
    }
    *out = ps;
    return GR_ERR_NONE;
}
