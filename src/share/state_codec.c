/* Share-state record encoding: our own compact format (facts, not layout, from
 * Kafka's ShareSnapshotValue / ShareUpdateValue). docs/share-state.md has the table.
 *
 * Key:   u8 type (0 = share-partition, v0) | uvarint group_len | group bytes |
 *        16-byte topic id | int32 partition (big-endian)
 * Value: u8 version (0) | u8 kind (0 snapshot, 1 update) | varint snapshot_epoch |
 *        varint state_epoch | varint leader_epoch | varlong start_offset |
 *        varint delivery_complete_count | uvarint n_batches | n x batch
 * Batch: uvarlong gap (first_offset - end of the previous batch, the first batch
 *        counts from 0) | uvarlong (last - first) | u8 state | uvarint count
 *        [| uvarlong due_ms: value version 1 only]
 *
 * Version 1 (delayed redelivery) is written only when some batch has a due time,
 * so every state without one keeps the version-0 bytes older builds read; a
 * version-1 value without any due time is refused (it would re-encode as 0).
 *
 * Gaps are unsigned, so a decoded list is sorted and non-overlapping by
 * construction; every value is range-checked, so decode(encode(x)) == x and a
 * decoded value always re-encodes to the same bytes. A null value is a tombstone. */
#include <string.h>

#include "share/state_store.h"

#define VALUE_VERSION   0
#define VALUE_VERSION_1 1 /* batches carry a redelivery due time */
#define KEY_TYPE_SP     0
#define MIN_BATCH_BYTES 4 /* gap, length, state, count: one byte each at least */

static bool has_due(const gr_sstore_batch_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (b[i].due_ms) return true;
    return false;
}

void gr_sstore_value_encode(const gr_sstore_value_t *val, gr_wbuf_t *wb) {
    bool v1 = has_due(val->batches, val->n_batches);
    gr_wbuf_i8(wb, v1 ? VALUE_VERSION_1 : VALUE_VERSION);
    gr_wbuf_i8(wb, (int8_t)val->kind);
    gr_wbuf_varint(wb, val->snapshot_epoch);
    gr_wbuf_varint(wb, val->state_epoch);
    gr_wbuf_varint(wb, val->leader_epoch);
    gr_wbuf_varlong(wb, val->start_offset);
    gr_wbuf_varint(wb, val->delivery_complete_count);
    gr_wbuf_uvarint(wb, (uint32_t)val->n_batches);
    int64_t next = 0;
    for (size_t i = 0; i < val->n_batches; i++) {
        const gr_sstore_batch_t *b = &val->batches[i];
        gr_wbuf_uvarlong(wb, (uint64_t)(b->first_offset - next));
        gr_wbuf_uvarlong(wb, (uint64_t)(b->last_offset - b->first_offset));
        gr_wbuf_i8(wb, b->state);
        gr_wbuf_uvarint(wb, (uint32_t)b->count);
        if (v1) gr_wbuf_uvarlong(wb, (uint64_t)b->due_ms);
        next = b->last_offset + 1;
    }
}

static gr_err_t fail(const char **why, const char *msg, gr_err_t err) {
    if (why) *why = msg;
    return err;
}

/* One batch after `*next`; advances *next. */
static gr_err_t decode_batch(gr_rbuf_t *rb, int version, int64_t *next, gr_sstore_batch_t *b, const char **why) {
    uint64_t gap = 0, span = 0, due = 0;
    int8_t state = 0;
    uint32_t count = 0;
    gr_rbuf_uvarlong(rb, &gap);
    gr_rbuf_uvarlong(rb, &span);
    gr_rbuf_i8(rb, &state);
    gr_rbuf_uvarint(rb, &count);
    if (version == VALUE_VERSION_1) gr_rbuf_uvarlong(rb, &due);
    if (rb->err) return fail(why, rb->why ? rb->why : "truncated batch", rb->err);
    if (gap > (uint64_t)(INT64_MAX - *next)) return fail(why, "batch offset overflows", GR_ERR__MALFORMED);
    int64_t first = *next + (int64_t)gap;
    if (span >= (uint64_t)(INT64_MAX - first)) return fail(why, "batch length overflows", GR_ERR__MALFORMED);
    if (count > INT16_MAX) return fail(why, "delivery count out of range", GR_ERR__MALFORMED);
    if (due > (uint64_t)INT64_MAX) return fail(why, "due time out of range", GR_ERR__MALFORMED);
    *b = (gr_sstore_batch_t){.first_offset = first,
                             .last_offset = first + (int64_t)span,
                             .state = state,
                             .count = (int16_t)count,
                             .due_ms = (int64_t)due};
    if (!gr_sstore_batch_valid(b)) return fail(why, "invalid delivery state", GR_ERR__MALFORMED);
    *next = b->last_offset + 1;
    return GR_ERR_NONE;
}

static gr_err_t decode_header(gr_rbuf_t *rb, gr_sstore_value_t *val, uint32_t *n, int *version_out, const char **why) {
    int8_t version = 0, kind = 0;
    gr_rbuf_i8(rb, &version);
    gr_rbuf_i8(rb, &kind);
    gr_rbuf_varint(rb, &val->snapshot_epoch);
    gr_rbuf_varint(rb, &val->state_epoch);
    gr_rbuf_varint(rb, &val->leader_epoch);
    gr_rbuf_varlong(rb, &val->start_offset);
    gr_rbuf_varint(rb, &val->delivery_complete_count);
    gr_rbuf_uvarint(rb, n);
    if (rb->err) return fail(why, rb->why ? rb->why : "truncated header", rb->err);
    if (version != VALUE_VERSION && version != VALUE_VERSION_1)
        return fail(why, "unknown value version", GR_ERR__MALFORMED);
    *version_out = version;
    if (kind != GR_SSTORE_REC_SNAPSHOT && kind != GR_SSTORE_REC_UPDATE)
        return fail(why, "unknown record kind", GR_ERR__MALFORMED);
    val->kind = kind;
    if (val->start_offset < -1) return fail(why, "start offset below -1", GR_ERR__MALFORMED);
    if (val->delivery_complete_count < -1) return fail(why, "delivery complete count below -1", GR_ERR__MALFORMED);
    /* Check the count against the bytes left before allocating anything (STYLE §5). */
    if (*n > gr_rbuf_remaining(rb) / MIN_BATCH_BYTES)
        return fail(why, "batch count exceeds the value", GR_ERR__MALFORMED);
    return GR_ERR_NONE;
}

gr_err_t gr_sstore_value_decode(const void *p, size_t len, gr_sstore_value_t *val, gr_sstore_bvec_t *bv,
                                const char **why) {
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, p, len);
    memset(val, 0, sizeof(*val));
    bv->n = 0;
    uint32_t n = 0;
    int version = 0;
    gr_err_t err = decode_header(&rb, val, &n, &version, why);
    if (err) return err;
    int64_t next = 0;
    for (uint32_t i = 0; i < n; i++) {
        gr_sstore_batch_t b;
        if ((err = decode_batch(&rb, version, &next, &b, why))) return err;
        if (i == 0 && val->start_offset >= 0 && b.first_offset < val->start_offset)
            return fail(why, "batch below the start offset", GR_ERR__MALFORMED);
        gr_sstore_bvec_push(bv, &b);
    }
    if (gr_rbuf_remaining(&rb) != 0) return fail(why, "trailing bytes after the value", GR_ERR__MALFORMED);
    if (version == VALUE_VERSION_1 && !has_due(bv->v, bv->n))
        return fail(why, "version 1 value without a due time", GR_ERR__MALFORMED);
    val->batches = bv->v;
    val->n_batches = bv->n;
    return GR_ERR_NONE;
}

void gr_sstore_key_encode(const gr_sstore_key_t *key, gr_wbuf_t *wb) {
    gr_wbuf_i8(wb, KEY_TYPE_SP);
    gr_wbuf_uvarint(wb, (uint32_t)key->group_len);
    gr_wbuf_put(wb, key->group, key->group_len);
    gr_wbuf_put(wb, key->topic_id.b, 16);
    gr_wbuf_i32(wb, key->partition);
}

gr_err_t gr_sstore_key_decode(const void *p, size_t len, gr_sstore_key_t *key, const char **why) {
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, p, len);
    int8_t type = 0;
    uint32_t glen = 0;
    const uint8_t *g = NULL, *tid = NULL;
    gr_rbuf_i8(&rb, &type);
    gr_rbuf_uvarint(&rb, &glen);
    if (!rb.err && glen > GR_SSTORE_MAX_GROUP_LEN) return fail(why, "group id too long", GR_ERR__MALFORMED);
    gr_rbuf_bytes(&rb, glen, &g);
    gr_rbuf_bytes(&rb, 16, &tid);
    gr_rbuf_i32(&rb, &key->partition);
    if (rb.err) return fail(why, rb.why ? rb.why : "truncated key", rb.err);
    if (type != KEY_TYPE_SP) return fail(why, "unknown key type", GR_ERR__MALFORMED);
    if (key->partition < 0) return fail(why, "negative partition", GR_ERR__MALFORMED);
    if (gr_rbuf_remaining(&rb) != 0) return fail(why, "trailing bytes after the key", GR_ERR__MALFORMED);
    key->group = (const char *)g;
    key->group_len = glen;
    memcpy(key->topic_id.b, tid, 16);
    return GR_ERR_NONE;
}
