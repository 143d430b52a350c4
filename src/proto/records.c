/* Record batch v2: iteration, produce validation, offset assignment, records, builder.
 *
 * The produce checks follow Apache Kafka's broker, in its order:
 *   1. ProduceRequest.validateRecords (KafkaApis): at least one complete batch,
 *      the first one magic 2, zstd only from Produce v7, exactly one batch.
 *      Iterating batches (ByteBufferLogInputStream) throws CorruptRecordException
 *      for batchLength < 14 or a magic outside 0-2, and silently stops at a partial
 *      batch, so trailing partial bytes are accepted and later trimmed.
 *   2. UnifiedLog.analyzeAndValidateRecords: baseOffset 0, size <= max.message.bytes,
 *      size >= 61 and CRC-32C.
 *   3. LogValidator.validateBatch: offset range vs record count, no control batch,
 *      producer id needs a base sequence; then every record (DefaultRecord.readFrom
 *      structure checks, then key on compacted topics and timestamp bounds as
 *      record errors).
 *
 * Deliberate deviations (Kafka answers these with UNKNOWN_SERVER_ERROR, or
 * accepts and rewrites):
 *   - codec 5-7: UNSUPPORTED_COMPRESSION_TYPE (Kafka: IllegalArgumentException -> -1);
 *   - compressed data that does not decode: CORRUPT_MESSAGE (Kafka: KafkaException -> -1);
 *   - decompressed records above the cap: MESSAGE_TOO_LARGE (Kafka has no cap);
 *   - record offset deltas that are not 0..n-1: INVALID_RECORD (Kafka ignores them
 *     for uncompressed batches and recompresses compressed ones). */
#include "proto/records.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/crc32c.h"
#include "proto/compress.h"

/* ---- batch iteration ---- */

void gr_batch_iter_init(gr_batch_iter_t *it, const void *blob, size_t len) {
    it->start = it->pos = (const uint8_t *)blob;
    it->end = it->pos + len;
}

static void decode_header(const uint8_t *p, size_t size, gr_batch_view_t *bv) {
    memset(bv, 0, sizeof(*bv));
    bv->data = p;
    bv->size = size;
    bv->base_offset = (int64_t)gr_be64(p);
    bv->batch_length = (int32_t)gr_be32(p + 8);
    bv->partition_leader_epoch = (int32_t)gr_be32(p + 12);
    bv->magic = (int8_t)p[16];
    if (bv->magic != 2 || size < GR_RECORD_BATCH_OVERHEAD) return;
    bv->has_header = true;
    bv->crc = gr_be32(p + 17);
    bv->attributes = (int16_t)gr_be16(p + 21);
    bv->last_offset_delta = (int32_t)gr_be32(p + 23);
    bv->base_timestamp = (int64_t)gr_be64(p + 27);
    bv->max_timestamp = (int64_t)gr_be64(p + 35);
    bv->producer_id = (int64_t)gr_be64(p + 43);
    bv->producer_epoch = (int16_t)gr_be16(p + 51);
    bv->base_sequence = (int32_t)gr_be32(p + 53);
    bv->record_count = (int32_t)gr_be32(p + 57);
}

gr_err_t gr_batch_iter_next(gr_batch_iter_t *it, gr_batch_view_t *bv, char *errstr, size_t errstr_size) {
    size_t remaining = (size_t)(it->end - it->pos);
    if (remaining == 0) return GR_ERR__NOENT;
    if (remaining < GR_LOG_OVERHEAD) return GR_ERR__INCOMPLETE;
    int32_t length = (int32_t)gr_be32(it->pos + 8);
    /* 14 is the legacy v0 record overhead, the smallest any magic allows. */
    if (length < 14)
        return gr_err_fmt(GR_ERR_CORRUPT_MESSAGE, errstr, errstr_size,
                          "Record size %" PRId32 " is less than the minimum record overhead (14)", length);
    if (remaining < 17) return GR_ERR__INCOMPLETE;
    int8_t magic = (int8_t)it->pos[16];
    if (magic < 0 || magic > 2)
        return gr_err_fmt(GR_ERR_CORRUPT_MESSAGE, errstr, errstr_size, "Invalid magic found in record: %d", magic);
    size_t size = (size_t)length + GR_LOG_OVERHEAD;
    if (remaining < size) return GR_ERR__INCOMPLETE;
    decode_header(it->pos, size, bv);
    it->pos += size;
    return GR_ERR_NONE;
}

static uint32_t batch_crc(const uint8_t *p, size_t size) {
    return gr_crc32c(0, p + GR_BATCH_ATTRIBUTES_OFFSET, size - GR_BATCH_ATTRIBUTES_OFFSET);
}

bool gr_batch_crc_ok(const gr_batch_view_t *bv) { return bv->has_header && batch_crc(bv->data, bv->size) == bv->crc; }

/* ---- records ---- */

gr_err_t gr_record_iter_init(gr_record_iter_t *it, const gr_batch_view_t *bv, gr_wbuf_t *scratch,
                             size_t max_uncompressed, char *errstr, size_t errstr_size) {
    memset(it, 0, sizeof(*it));
    if (!bv->has_header) return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size, "not a complete magic 2 batch");
    if (bv->record_count < 0)
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size,
                          "Found invalid record count %" PRId32 " in magic v2 batch", bv->record_count);
    it->base_offset = bv->base_offset;
    it->base_timestamp = bv->base_timestamp;
    it->log_append_time = (bv->attributes & GR_BATCH_ATTR_LOG_APPEND_TIME) ? bv->max_timestamp : -1;
    it->count = bv->record_count;
    const uint8_t *recs = bv->data + GR_RECORD_BATCH_OVERHEAD;
    size_t n = bv->size - GR_RECORD_BATCH_OVERHEAD;
    int codec = gr_batch_codec(bv);
    if (codec == GR_CODEC_NONE || it->count == 0) {
        gr_rbuf_init(&it->rb, recs, n);
        return GR_ERR_NONE;
    }
    if (!max_uncompressed) max_uncompressed = GR_RECORDS_DEFAULT_MAX_UNCOMPRESSED;
    gr_wbuf_reset(scratch);
    gr_err_t err = gr_decompress(codec, recs, n, scratch, max_uncompressed, errstr, errstr_size);
    if (err) return err;
    gr_rbuf_init(&it->rb, scratch->mem, scratch->len);
    return GR_ERR_NONE;
}

/* Read a zigzag varint length; a negative value means null (Kafka: any size < 0). */
static bool read_nullable(gr_rbuf_t *rb, const uint8_t **p, int32_t *len) {
    int32_t n;
    if (!gr_rbuf_varint(rb, &n)) return false;
    if (n < 0) {
        *p = NULL;
        *len = -1;
        return true;
    }
    *len = n;
    return gr_rbuf_bytes(rb, (size_t)n, p);
}

/* Headers: count already read; checks key sizes as DefaultRecord.readHeaders does. */
static gr_err_t read_headers(gr_rbuf_t *rb, int32_t count, char *errstr, size_t errstr_size) {
    for (int32_t i = 0; i < count; i++) {
        int32_t klen;
        const uint8_t *p;
        if (!gr_rbuf_varint(rb, &klen)) return GR_ERR_INVALID_RECORD;
        if (klen < 0)
            return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size, "Invalid negative header key size %" PRId32,
                              klen);
        if (!gr_rbuf_bytes(rb, (size_t)klen, &p) || !read_nullable(rb, &p, &klen)) return GR_ERR_INVALID_RECORD;
    }
    return GR_ERR_NONE;
}

/* Decode one record body of exactly size bytes (DefaultRecord.readFrom). */
static gr_err_t read_body(gr_record_iter_t *it, gr_rbuf_t *rb, int32_t size, gr_record_t *rec, char *errstr,
                          size_t errstr_size) {
    const char *structure = "Found invalid record structure";
    int64_t ts_delta;
    if (!gr_rbuf_i8(rb, &rec->attributes) || !gr_rbuf_varlong(rb, &ts_delta) ||
        !gr_rbuf_varint(rb, &rec->offset_delta) || !read_nullable(rb, &rec->key, &rec->key_len) ||
        !read_nullable(rb, &rec->value, &rec->value_len) || !gr_rbuf_varint(rb, &rec->header_count))
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size, "%s", structure);
    if (rec->header_count < 0)
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size, "Found invalid number of record headers %" PRId32,
                          rec->header_count);
    if ((size_t)rec->header_count > gr_rbuf_remaining(rb))
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size,
                          "Found invalid number of record headers. %" PRId32
                          " is larger than the remaining size of the buffer",
                          rec->header_count);
    rec->headers = rb->pos;
    gr_err_t err = read_headers(rb, rec->header_count, errstr, errstr_size);
    if (err && rb->err) return gr_err_fmt(err, errstr, errstr_size, "%s", structure);
    if (err) return err;
    rec->headers_size = (size_t)(rb->pos - rec->headers);
    if (gr_rbuf_remaining(rb) != 0)
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size,
                          "Invalid record size: expected to read %" PRId32
                          " bytes in record payload, but instead read %zu",
                          size, gr_rbuf_offset(rb));
    /* Java long arithmetic wraps; so does ours, through unsigned. */
    rec->timestamp =
        it->log_append_time >= 0 ? it->log_append_time : (int64_t)((uint64_t)it->base_timestamp + (uint64_t)ts_delta);
    rec->offset = (int64_t)((uint64_t)it->base_offset + (uint64_t)(int64_t)rec->offset_delta);
    return GR_ERR_NONE;
}

static gr_err_t records_left_over(gr_record_iter_t *it, char *errstr, size_t errstr_size) {
    if (gr_rbuf_remaining(&it->rb) == 0) return GR_ERR_NONE;
    return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size,
                      "Incorrect declared batch size, records still remaining in file");
}

gr_err_t gr_record_iter_next(gr_record_iter_t *it, gr_record_t *rec, char *errstr, size_t errstr_size) {
    if (it->read >= it->count) return GR_ERR__NOENT;
    memset(rec, 0, sizeof(*rec));
    const uint8_t *begin = it->rb.pos;
    int32_t size;
    if (!gr_rbuf_varint(&it->rb, &size)) {
        if (it->rb.err == GR_ERR__INCOMPLETE)
            return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size,
                              "Incorrect declared batch size, premature EOF reached");
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size, "Found invalid record structure");
    }
    if (size < 0 || (size_t)size > gr_rbuf_remaining(&it->rb))
        return gr_err_fmt(GR_ERR_INVALID_RECORD, errstr, errstr_size,
                          "Invalid record size: expected %" PRId32
                          " bytes in record payload, but instead the buffer has only %zu remaining bytes.",
                          size, gr_rbuf_remaining(&it->rb));
    gr_rbuf_t body;
    gr_rbuf_init(&body, it->rb.pos, (size_t)size);
    gr_err_t err = read_body(it, &body, size, rec, errstr, errstr_size);
    if (err) return err;
    it->rb.pos += size;
    rec->size = (size_t)(it->rb.pos - begin);
    if (++it->read == it->count) return records_left_over(it, errstr, errstr_size);
    return GR_ERR_NONE;
}

void gr_header_iter_init(gr_header_iter_t *hi, const gr_record_t *rec) {
    gr_rbuf_init(&hi->rb, rec->headers, rec->headers_size);
    hi->left = rec->header_count;
}

bool gr_header_iter_next(gr_header_iter_t *hi, gr_header_t *h) {
    if (hi->left <= 0) return false;
    hi->left--;
    if (!gr_rbuf_varint(&hi->rb, &h->key_len) || h->key_len < 0) return false;
    return gr_rbuf_bytes(&hi->rb, (size_t)h->key_len, &h->key) && read_nullable(&hi->rb, &h->value, &h->value_len);
}

/* ---- produce validation ---- */

void gr_produce_validate_opts_init(gr_produce_validate_opts_t *opts, int64_t now_ms) {
    memset(opts, 0, sizeof(*opts));
    opts->produce_version = 13;
    opts->max_message_bytes = 1048588;
    opts->now_ms = now_ms;
    opts->timestamp_type = GR_TIMESTAMP_CREATE_TIME;
    opts->timestamp_before_max_ms = INT64_MAX;
    opts->timestamp_after_max_ms = INT64_MAX;
}

typedef struct vctx {
    const gr_produce_validate_opts_t *opts;
    gr_produce_validate_result_t *res;
    const char *tp; /* " in topic partition X" or "" */
    char tpbuf[200];
    size_t cap_errors;
    bool timestamp_error;
} vctx_t;

__attribute__((format(printf, 3, 4))) static gr_err_t vfail(vctx_t *v, gr_err_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->res->message, sizeof(v->res->message), fmt, ap);
    va_end(ap);
    v->res->err = err;
    return err;
}

/* Step 1: ProduceRequest.validateRecords. */
static gr_err_t check_request_shape(vctx_t *v, const uint8_t *blob, size_t len) {
    int16_t ver = v->opts->produce_version;
    gr_batch_iter_t it;
    gr_batch_view_t *bv = &v->res->batch, extra;
    char why[160];
    gr_batch_iter_init(&it, blob, len);
    gr_err_t err = gr_batch_iter_next(&it, bv, why, sizeof(why));
    if (err == GR_ERR_CORRUPT_MESSAGE) return vfail(v, err, "%s", why);
    if (err)
        return vfail(v, GR_ERR_INVALID_RECORD,
                     "Produce requests with version %d must have at least one record batch per partition", ver);
    if (bv->magic != 2)
        return vfail(v, GR_ERR_INVALID_RECORD,
                     "Produce requests with version %d are only allowed to contain record batches with magic version 2",
                     ver);
    if (ver < 7 && bv->has_header && gr_batch_codec(bv) == GR_CODEC_ZSTD)
        return vfail(v, GR_ERR_UNSUPPORTED_COMPRESSION_TYPE,
                     "Produce requests with version %d are not allowed to use ZStandard compression", ver);
    v->res->valid_bytes = bv->size;
    err = gr_batch_iter_next(&it, &extra, why, sizeof(why));
    if (err == GR_ERR_CORRUPT_MESSAGE) return vfail(v, err, "%s", why);
    if (err == GR_ERR_NONE)
        return vfail(
            v, GR_ERR_INVALID_RECORD,
            "Produce requests with version %d are only allowed to contain exactly one record batch per partition", ver);
    return GR_ERR_NONE; /* _NOENT or a trailing partial batch, which Kafka trims */
}

/* Step 2: UnifiedLog.analyzeAndValidateRecords, plus our codec check. */
static gr_err_t check_log_append(vctx_t *v) {
    const gr_batch_view_t *bv = &v->res->batch;
    if (bv->base_offset != 0)
        return vfail(v, GR_ERR_INVALID_RECORD,
                     "The baseOffset of the record batch in the append to %s should be 0, but it is %" PRId64,
                     v->opts->topic_partition ? v->opts->topic_partition : "the partition", bv->base_offset);
    if (bv->size > (size_t)(v->opts->max_message_bytes < 0 ? 0 : v->opts->max_message_bytes))
        return vfail(v, GR_ERR_MESSAGE_TOO_LARGE,
                     "The record batch size in the append to %s is %zu bytes which exceeds the maximum configured "
                     "value of %" PRId32 ".",
                     v->opts->topic_partition ? v->opts->topic_partition : "the partition", bv->size,
                     v->opts->max_message_bytes);
    if (!bv->has_header)
        return vfail(v, GR_ERR_CORRUPT_MESSAGE,
                     "Record batch is corrupt (the size %zu is smaller than the minimum allowed overhead 61)",
                     bv->size);
    if (!gr_batch_crc_ok(bv))
        return vfail(v, GR_ERR_CORRUPT_MESSAGE, "Record is corrupt (stored crc = %" PRIu32 ")%s.", bv->crc, v->tp);
    if (gr_batch_codec(bv) > GR_CODEC_ZSTD)
        return vfail(v, GR_ERR_UNSUPPORTED_COMPRESSION_TYPE, "Unknown compression type id: %d", gr_batch_codec(bv));
    return GR_ERR_NONE;
}

/* Step 3a: LogValidator.validateBatch for a batch from a client. */
static gr_err_t check_batch(vctx_t *v) {
    const gr_batch_view_t *bv = &v->res->batch;
    int64_t from_offsets = (int64_t)bv->last_offset_delta + 1;
    if (from_offsets <= 0)
        return vfail(v, GR_ERR_INVALID_RECORD, "Batch has an invalid offset range: [%" PRId64 ", %" PRId64 "]%s",
                     bv->base_offset, bv->base_offset + bv->last_offset_delta, v->tp);
    if (bv->record_count <= 0)
        return vfail(v, GR_ERR_INVALID_RECORD, "Invalid reported count for record batch: %" PRId32 "%s",
                     bv->record_count, v->tp);
    if (from_offsets != bv->record_count)
        return vfail(v, GR_ERR_INVALID_RECORD,
                     "Inconsistent batch offset range [%" PRId64 ", %" PRId64 "] and count of records %" PRId32 "%s",
                     bv->base_offset, bv->base_offset + bv->last_offset_delta, bv->record_count, v->tp);
    if (bv->attributes & GR_BATCH_ATTR_CONTROL)
        return vfail(v, GR_ERR_INVALID_RECORD, "Clients are not allowed to write control records%s", v->tp);
    if (bv->producer_id >= 0 && bv->base_sequence < 0)
        return vfail(v, GR_ERR_INVALID_RECORD,
                     "Invalid sequence number %" PRId32 " in record batch with producerId %" PRId64 "%s",
                     bv->base_sequence, bv->producer_id, v->tp);
    return GR_ERR_NONE;
}

__attribute__((format(printf, 3, 4))) static void record_error(vctx_t *v, int32_t index, const char *fmt, ...) {
    gr_produce_validate_result_t *res = v->res;
    if (v->opts->arena) {
        if (res->n_record_errors == v->cap_errors) {
            size_t cap = v->cap_errors ? v->cap_errors * 2 : 8;
            gr_record_error_t *n = gr_arena_alloc(v->opts->arena, cap * sizeof(*n));
            if (res->n_record_errors) memcpy(n, res->record_errors, res->n_record_errors * sizeof(*n));
            res->record_errors = n;
            v->cap_errors = cap;
        }
        char msg[320];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        res->record_errors[res->n_record_errors].batch_index = index;
        res->record_errors[res->n_record_errors].message = gr_arena_strndup(v->opts->arena, msg, strlen(msg));
    }
    res->n_record_errors++;
}

/* Step 3b: LogValidator.validateRecord (key, timestamp); errors are collected. */
static void check_record(vctx_t *v, const gr_record_t *rec, int32_t index) {
    const gr_produce_validate_opts_t *o = v->opts;
    if (o->compacted && rec->key_len < 0) {
        record_error(v, index, "Compacted topic cannot accept message without key%s", v->tp);
        return;
    }
    if (o->timestamp_type == GR_TIMESTAMP_CREATE_TIME && rec->timestamp != -1) {
        int64_t diff = (int64_t)((uint64_t)o->now_ms - (uint64_t)rec->timestamp);
        if (diff > o->timestamp_before_max_ms || (int64_t)(0 - (uint64_t)diff) > o->timestamp_after_max_ms) {
            v->timestamp_error = true;
            record_error(v, index,
                         "Timestamp %" PRId64 " of message with offset %" PRId64
                         " is out of range. The timestamp should be within [%" PRId64 ", %" PRId64 "]",
                         rec->timestamp, rec->offset,
                         (int64_t)((uint64_t)o->now_ms - (uint64_t)o->timestamp_before_max_ms),
                         (int64_t)((uint64_t)o->now_ms + (uint64_t)o->timestamp_after_max_ms));
        }
    } else if (v->res->batch.attributes & GR_BATCH_ATTR_LOG_APPEND_TIME) {
        v->timestamp_error = true;
        record_error(v, index,
                     "Invalid timestamp type in message. Producer should not set timestamp type to "
                     "LogAppendTime.");
    }
}

/* LogValidator.processRecordErrors: any timestamp error makes it INVALID_TIMESTAMP. */
static gr_err_t finish_record_errors(vctx_t *v) {
    gr_produce_validate_result_t *res = v->res;
    if (!res->n_record_errors) return GR_ERR_NONE;
    res->message_on_wire = true;
    if (v->timestamp_error)
        return vfail(v, GR_ERR_INVALID_TIMESTAMP, "One or more records have been rejected due to invalid timestamp");
    size_t off = (size_t)snprintf(res->message, sizeof(res->message),
                                  "One or more records have been rejected due to %zu record errors in total, and only "
                                  "showing the first three errors at most: [",
                                  res->n_record_errors);
    for (size_t i = 0; i < res->n_record_errors && i < 3 && res->record_errors && off < sizeof(res->message); i++)
        off += (size_t)snprintf(res->message + off, sizeof(res->message) - off,
                                "%sRecordError(batchIndex=%" PRId32 ", message='%s')", i ? ", " : "",
                                res->record_errors[i].batch_index, res->record_errors[i].message);
    if (off < sizeof(res->message)) snprintf(res->message + off, sizeof(res->message) - off, "]");
    res->err = GR_ERR_INVALID_RECORD;
    return res->err;
}

/* Walk every record: structure errors stop the walk, record errors are collected. */
static gr_err_t check_records(vctx_t *v, gr_wbuf_t *scratch) {
    gr_produce_validate_result_t *res = v->res;
    gr_record_iter_t it;
    gr_record_t rec;
    char why[200];
    gr_err_t err = gr_record_iter_init(&it, &res->batch, scratch, v->opts->max_uncompressed_bytes, why, sizeof(why));
    if (err) return vfail(v, err, "%s", why);
    res->uncompressed_bytes = gr_rbuf_remaining(&it.rb);
    for (int32_t i = 0; (err = gr_record_iter_next(&it, &rec, why, sizeof(why))) == GR_ERR_NONE; i++) {
        if (rec.offset_delta != i)
            return vfail(v, GR_ERR_INVALID_RECORD,
                         "Record %" PRId32 " has offset delta %" PRId32 ", expected %" PRId32 "%s", i, rec.offset_delta,
                         i, v->tp);
        if (rec.timestamp > res->max_timestamp) {
            res->max_timestamp = rec.timestamp;
            res->offset_delta_of_max_timestamp = rec.offset_delta;
        }
        check_record(v, &rec, i);
    }
    if (err != GR_ERR__NOENT) return vfail(v, err, "%s", why);
    return finish_record_errors(v);
}

gr_err_t gr_records_validate_produce(const void *blob, size_t len, const gr_produce_validate_opts_t *opts,
                                     gr_produce_validate_result_t *res) {
    vctx_t v;
    memset(&v, 0, sizeof(v));
    memset(res, 0, sizeof(*res));
    v.opts = opts;
    v.res = res;
    v.tp = "";
    if (opts->topic_partition) {
        snprintf(v.tpbuf, sizeof(v.tpbuf), " in topic partition %s", opts->topic_partition);
        v.tp = v.tpbuf;
    }
    res->max_timestamp = -1;
    res->offset_delta_of_max_timestamp = -1;
    gr_err_t err = check_request_shape(&v, blob, len);
    if (!err) err = check_log_append(&v);
    if (!err) err = check_batch(&v);
    if (!err) {
        gr_wbuf_t scratch;
        gr_wbuf_init(&scratch);
        err = check_records(&v, &scratch);
        gr_wbuf_free(&scratch);
    }
    if (err) res->valid_bytes = 0;
    return err;
}

/* ---- offset assignment ---- */

static bool whole_v2_batch(const uint8_t *p, size_t len) {
    return len >= GR_RECORD_BATCH_OVERHEAD && p[16] == 2 &&
           (int64_t)(int32_t)gr_be32(p + 8) + GR_LOG_OVERHEAD == (int64_t)len;
}

gr_err_t gr_records_assign_offsets(void *batch, size_t len, int64_t base_offset, int32_t partition_leader_epoch,
                                   int64_t log_append_time_ms) {
    uint8_t *p = batch;
    if (!whole_v2_batch(p, len)) return GR_ERR__INVALID_ARG;
    gr_put_be64(p, (uint64_t)base_offset);
    gr_put_be32(p + 12, (uint32_t)partition_leader_epoch);
    if (log_append_time_ms < 0) return GR_ERR_NONE;
    return gr_records_set_max_timestamp(batch, len, GR_TIMESTAMP_LOG_APPEND_TIME, log_append_time_ms);
}

gr_err_t gr_records_set_max_timestamp(void *batch, size_t len, gr_timestamp_type_t type, int64_t max_timestamp) {
    uint8_t *p = batch;
    if (!whole_v2_batch(p, len)) return GR_ERR__INVALID_ARG;
    uint16_t attrs = gr_be16(p + GR_BATCH_ATTRIBUTES_OFFSET);
    uint16_t want = type == GR_TIMESTAMP_LOG_APPEND_TIME ? (attrs | GR_BATCH_ATTR_LOG_APPEND_TIME)
                                                         : (attrs & ~GR_BATCH_ATTR_LOG_APPEND_TIME);
    if (attrs == want && (int64_t)gr_be64(p + 35) == max_timestamp) return GR_ERR_NONE;
    gr_put_be16(p + GR_BATCH_ATTRIBUTES_OFFSET, want);
    gr_put_be64(p + 35, (uint64_t)max_timestamp);
    gr_put_be32(p + GR_BATCH_CRC_OFFSET, batch_crc(p, len));
    return GR_ERR_NONE;
}

/* ---- batch builder ---- */

void gr_batch_builder_opts_init(gr_batch_builder_opts_t *opts) {
    memset(opts, 0, sizeof(*opts));
    opts->partition_leader_epoch = -1;
    opts->producer_id = -1;
    opts->producer_epoch = -1;
    opts->base_sequence = -1;
    opts->log_append_time_ms = -1;
}

void gr_batch_builder_init(gr_batch_builder_t *bb) {
    memset(bb, 0, sizeof(*bb));
    gr_wbuf_init(&bb->records);
    bb->base_timestamp = bb->max_timestamp = -1;
}

void gr_batch_builder_free(gr_batch_builder_t *bb) { gr_wbuf_free(&bb->records); }

static size_t uvarlong_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
static size_t varint_size(int32_t v) { return uvarlong_size((uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31))); }
static size_t varlong_size(int64_t v) { return uvarlong_size(((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static size_t nullable_size(int32_t len) { return varint_size(len < 0 ? -1 : len) + (len > 0 ? (size_t)len : 0); }

static void put_nullable(gr_wbuf_t *wb, const void *p, int32_t len) {
    gr_wbuf_varint(wb, len < 0 ? -1 : len);
    if (len > 0) gr_wbuf_put(wb, p, (size_t)len);
}

void gr_batch_builder_add(gr_batch_builder_t *bb, int64_t timestamp, const void *key, int32_t key_len,
                          const void *value, int32_t value_len, const gr_header_t *headers, size_t n_headers) {
    if (bb->count == 0) bb->base_timestamp = timestamp;
    if (timestamp > bb->max_timestamp) bb->max_timestamp = timestamp;
    int64_t ts_delta = (int64_t)((uint64_t)timestamp - (uint64_t)bb->base_timestamp);
    size_t body = 1 + varlong_size(ts_delta) + varint_size(bb->count) + nullable_size(key_len) +
                  nullable_size(value_len) + varint_size((int32_t)n_headers);
    for (size_t i = 0; i < n_headers; i++)
        body += nullable_size(headers[i].key_len) + nullable_size(headers[i].value_len);
    gr_wbuf_t *wb = &bb->records;
    gr_wbuf_varint(wb, (int32_t)body);
    gr_wbuf_i8(wb, 0);
    gr_wbuf_varlong(wb, ts_delta);
    gr_wbuf_varint(wb, bb->count);
    put_nullable(wb, key, key_len);
    put_nullable(wb, value, value_len);
    gr_wbuf_varint(wb, (int32_t)n_headers);
    for (size_t i = 0; i < n_headers; i++) {
        put_nullable(wb, headers[i].key, headers[i].key_len < 0 ? 0 : headers[i].key_len);
        put_nullable(wb, headers[i].value, headers[i].value_len);
    }
    bb->count++;
}

static int16_t builder_attributes(const gr_batch_builder_opts_t *o) {
    int a = o->codec & GR_BATCH_ATTR_CODEC_MASK;
    if (o->log_append_time) a |= GR_BATCH_ATTR_LOG_APPEND_TIME;
    if (o->transactional) a |= GR_BATCH_ATTR_TRANSACTIONAL;
    if (o->control) a |= GR_BATCH_ATTR_CONTROL;
    return (int16_t)a;
}

gr_err_t gr_batch_builder_finish(gr_batch_builder_t *bb, const gr_batch_builder_opts_t *opts, gr_wbuf_t *out) {
    gr_batch_builder_opts_t defaults;
    if (!opts) {
        gr_batch_builder_opts_init(&defaults);
        opts = &defaults;
    }
    if (bb->count == 0) return GR_ERR__INVALID_ARG;
    size_t start = out->len;
    gr_wbuf_i64(out, opts->base_offset);
    gr_wbuf_i32(out, 0); /* batchLength, patched below */
    gr_wbuf_i32(out, opts->partition_leader_epoch);
    gr_wbuf_i8(out, 2);
    gr_wbuf_u32(out, 0); /* crc, patched below */
    gr_wbuf_i16(out, builder_attributes(opts));
    gr_wbuf_i32(out, bb->count - 1);
    gr_wbuf_i64(out, bb->base_timestamp);
    gr_wbuf_i64(out, opts->log_append_time ? opts->log_append_time_ms : bb->max_timestamp);
    gr_wbuf_i64(out, opts->producer_id);
    gr_wbuf_i16(out, opts->producer_epoch);
    gr_wbuf_i32(out, opts->base_sequence);
    gr_wbuf_i32(out, bb->count);
    gr_err_t err = gr_compress(opts->codec, bb->records.mem, bb->records.len, out);
    if (err) {
        out->len = start;
        return err;
    }
    size_t size = out->len - start;
    gr_wbuf_patch_i32(out, start + 8, (int32_t)(size - GR_LOG_OVERHEAD));
    gr_put_be32(out->mem + start + GR_BATCH_CRC_OFFSET, batch_crc(out->mem + start, size));
    return GR_ERR_NONE;
}

void gr_control_batch_build(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                            int64_t timestamp, gr_wbuf_t *out) {
    uint8_t key[4] = {0, 0, 0, commit ? GR_CONTROL_COMMIT : GR_CONTROL_ABORT};
    uint8_t val[6] = {0, 0};
    gr_put_be32(val + 2, (uint32_t)coordinator_epoch);
    gr_batch_builder_t bb;
    gr_batch_builder_init(&bb);
    gr_batch_builder_add(&bb, timestamp, key, sizeof(key), val, sizeof(val), NULL, 0);
    gr_batch_builder_opts_t o;
    gr_batch_builder_opts_init(&o);
    o.producer_id = producer_id;
    o.producer_epoch = producer_epoch;
    o.transactional = true;
    o.control = true;
    gr_batch_builder_finish(&bb, &o, out); /* cannot fail: one record, no compression */
    gr_batch_builder_free(&bb);
}

gr_err_t gr_control_batch_marker(const gr_batch_view_t *bv, int16_t *type, int32_t *coordinator_epoch) {
    *type = -1;
    *coordinator_epoch = -1;
    if (!bv->has_header || !(bv->attributes & GR_BATCH_ATTR_CONTROL)) return GR_ERR_CORRUPT_MESSAGE;
    gr_wbuf_t scratch;
    gr_wbuf_init(&scratch);
    gr_record_iter_t it;
    gr_record_t rec;
    gr_err_t err = gr_record_iter_init(&it, bv, &scratch, 1u << 20, NULL, 0);
    if (!err) err = gr_record_iter_next(&it, &rec, NULL, 0);
    if (err == GR_ERR__NOENT) goto out;
    if (err || rec.key_len < 4) {
        err = GR_ERR_CORRUPT_MESSAGE;
        goto out;
    }
    /* The key's version is not checked: Kafka reads the type of any version. */
    *type = (int16_t)gr_be16(rec.key + 2);
    if (*type == GR_CONTROL_ABORT || *type == GR_CONTROL_COMMIT) {
        if (rec.value_len < 6) {
            err = GR_ERR_CORRUPT_MESSAGE;
            goto out;
        }
        *coordinator_epoch = (int32_t)gr_be32(rec.value + 2);
    }
out:
    gr_wbuf_free(&scratch);
    return err;
}
