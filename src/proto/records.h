/* Kafka record batches (magic 2): iteration, produce validation, offset
 * assignment, record decoding and a batch builder.
 *
 * Everything here is a pure function over byte buffers owned by the caller;
 * nothing keeps pointers past the call except the views, which point into the
 * caller's bytes (or into the caller's scratch buffer for decompressed
 * records). Any thread may call these functions on its own buffers.
 *
 * Layout reference: the record batch section of the Kafka protocol guide
 * (https://kafka.apache.org/documentation/#recordbatch); summary in docs/codec.md. */
#ifndef GR_PROTO_RECORDS_H
#define GR_PROTO_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"

#define GR_LOG_OVERHEAD            12 /* baseOffset + batchLength */
#define GR_RECORD_BATCH_OVERHEAD   61 /* fixed v2 batch header, up to and including recordsCount */
#define GR_BATCH_CRC_OFFSET        17
#define GR_BATCH_ATTRIBUTES_OFFSET 21

#define GR_BATCH_ATTR_CODEC_MASK      0x07
#define GR_BATCH_ATTR_LOG_APPEND_TIME 0x08
#define GR_BATCH_ATTR_TRANSACTIONAL   0x10
#define GR_BATCH_ATTR_CONTROL         0x20
#define GR_BATCH_ATTR_DELETE_HORIZON  0x40

/** Default cap on the decompressed records of one batch (64 MiB). */
#define GR_RECORDS_DEFAULT_MAX_UNCOMPRESSED (64u << 20)

/** One batch header, decoded. Fields after `magic` are only filled for magic 2
 *  batches of at least GR_RECORD_BATCH_OVERHEAD bytes (`has_header`). */
typedef struct gr_batch_view {
    int64_t base_offset;
    int32_t batch_length; /* bytes after the batchLength field */
    int32_t partition_leader_epoch;
    int8_t magic;
    bool has_header;
    uint32_t crc;
    int16_t attributes;
    int32_t last_offset_delta;
    int64_t base_timestamp;
    int64_t max_timestamp;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t record_count;
    const uint8_t *data; /* the whole batch, from baseOffset; points into the iterated blob */
    size_t size;         /* GR_LOG_OVERHEAD + batch_length */
} gr_batch_view_t;

static inline int gr_batch_codec(const gr_batch_view_t *bv) { return bv->attributes & GR_BATCH_ATTR_CODEC_MASK; }

/** Iterator over the batches of a records blob (Produce/Fetch `Records`). */
typedef struct gr_batch_iter {
    const uint8_t *start, *pos, *end;
} gr_batch_iter_t;

/** Start iterating len bytes at blob (not copied; must outlive the iterator and its views). */
void gr_batch_iter_init(gr_batch_iter_t *it, const void *blob, size_t len);

/** Next batch. Returns:
 *  - GR_ERR_NONE: *bv describes the batch, which lies entirely inside the blob;
 *  - GR_ERR__NOENT: no bytes left;
 *  - GR_ERR__INCOMPLETE: the remaining bytes (from gr_batch_iter_offset) are a
 *    partial batch, as a size-limited Fetch response may end with; not an error there;
 *  - GR_ERR_CORRUPT_MESSAGE: the next bytes cannot be a batch (batchLength below
 *    14 or magic outside 0-2, the checks Kafka's ByteBufferLogInputStream makes).
 *  The CRC is not checked here (see gr_batch_crc_ok). errstr may be NULL. */
gr_err_t gr_batch_iter_next(gr_batch_iter_t *it, gr_batch_view_t *bv, char *errstr, size_t errstr_size);

/** Byte offset of the iterator in the blob (start of the next batch). */
static inline size_t gr_batch_iter_offset(const gr_batch_iter_t *it) { return (size_t)(it->pos - it->start); }

/** True if the batch is magic 2, at least GR_RECORD_BATCH_OVERHEAD bytes and its CRC-32C matches. */
bool gr_batch_crc_ok(const gr_batch_view_t *bv);

/* ------------------------------------------------------------------------- */

/** One record inside a batch. Pointers point into the batch or the scratch buffer
 *  given to gr_record_iter_init. A negative length on the wire means null and is
 *  reported as -1 with a NULL pointer. */
typedef struct gr_record {
    int8_t attributes;
    int64_t timestamp; /* baseTimestamp + delta, or maxTimestamp for LogAppendTime batches */
    int32_t offset_delta;
    int64_t offset; /* base_offset + offset_delta */
    const uint8_t *key;
    int32_t key_len;
    const uint8_t *value;
    int32_t value_len;
    int32_t header_count;
    const uint8_t *headers; /* header_count encoded headers; walk them with gr_header_iter */
    size_t headers_size;
    size_t size; /* encoded size including the length varint */
} gr_record_t;

typedef struct gr_record_iter {
    gr_rbuf_t rb;
    int64_t base_offset, base_timestamp, log_append_time; /* log_append_time -1 if CreateTime */
    int32_t count, read;
} gr_record_iter_t;

/** Prepare to walk the records of a magic-2 batch. A compressed batch is
 *  decompressed into scratch (caller-owned, reset first; at most max_uncompressed
 *  bytes, 0 = GR_RECORDS_DEFAULT_MAX_UNCOMPRESSED). The records then point into
 *  scratch, so keep it until done. Errors: GR_ERR_CORRUPT_MESSAGE (bad compressed
 *  data), GR_ERR_MESSAGE_TOO_LARGE (over the cap), GR_ERR_UNSUPPORTED_COMPRESSION_TYPE,
 *  GR_ERR_INVALID_RECORD (negative record count, not magic 2 or short header). */
gr_err_t gr_record_iter_init(gr_record_iter_t *it, const gr_batch_view_t *bv, gr_wbuf_t *scratch,
                             size_t max_uncompressed, char *errstr, size_t errstr_size);

/** Next record: GR_ERR_NONE, GR_ERR__NOENT after record_count records (and no
 *  bytes left over), or GR_ERR_INVALID_RECORD with Kafka's explanation when the
 *  records do not match the declared count/size or a record is malformed. */
gr_err_t gr_record_iter_next(gr_record_iter_t *it, gr_record_t *rec, char *errstr, size_t errstr_size);

/** A record header. The key is never null; value_len -1 means a null value. */
typedef struct gr_header {
    const uint8_t *key;
    int32_t key_len;
    const uint8_t *value;
    int32_t value_len;
} gr_header_t;

typedef struct gr_header_iter {
    gr_rbuf_t rb;
    int32_t left;
} gr_header_iter_t;

/** Walk the headers of a record that gr_record_iter_next returned (already validated). */
void gr_header_iter_init(gr_header_iter_t *hi, const gr_record_t *rec);
/** False when there are no more headers. */
bool gr_header_iter_next(gr_header_iter_t *hi, gr_header_t *h);

/* ------------------------------------------------------------------------- */

typedef enum gr_timestamp_type {
    GR_TIMESTAMP_CREATE_TIME = 0,
    GR_TIMESTAMP_LOG_APPEND_TIME = 1,
} gr_timestamp_type_t;

/** What the broker knows when it validates one partition's records of a Produce. */
typedef struct gr_produce_validate_opts {
    int16_t produce_version;            /* Produce ApiVersion (3+); zstd needs 7+ */
    int32_t max_message_bytes;          /* topic max.message.bytes */
    int64_t now_ms;                     /* broker clock, for timestamp bounds */
    gr_timestamp_type_t timestamp_type; /* topic message.timestamp.type */
    int64_t timestamp_before_max_ms;    /* message.timestamp.before.max.ms; INT64_MAX = unbounded */
    int64_t timestamp_after_max_ms;     /* message.timestamp.after.max.ms; INT64_MAX = unbounded */
    bool compacted;                     /* cleanup.policy has compact: every record needs a key */
    size_t max_uncompressed_bytes;      /* decompression cap; 0 = GR_RECORDS_DEFAULT_MAX_UNCOMPRESSED */
    const char *topic_partition;        /* "topic-0", used in messages; may be NULL */
    gr_arena_t *arena;                  /* record errors are allocated here; NULL = only counted */
} gr_produce_validate_opts_t;

/** Fill opts with Kafka's defaults: version 13, 1048588 bytes, CreateTime, unbounded timestamps. */
void gr_produce_validate_opts_init(gr_produce_validate_opts_t *opts, int64_t now_ms);

/** A rejected record: its index in the batch and why (Kafka's RecordErrors). */
typedef struct gr_record_error {
    int32_t batch_index;
    const char *message; /* in opts->arena */
} gr_record_error_t;

typedef struct gr_produce_validate_result {
    gr_err_t err;
    char message[320];                /* Kafka's exception text for the error ("" on success) */
    bool message_on_wire;             /* Kafka puts ErrorMessage on the wire only for record-level errors */
    gr_record_error_t *record_errors; /* n_record_errors entries in opts->arena, or NULL */
    size_t n_record_errors;
    /* Filled on success (and as far as parsed on failure): */
    gr_batch_view_t batch;
    size_t valid_bytes;    /* bytes to append: the batch; Kafka drops trailing partial bytes */
    int64_t max_timestamp; /* largest record timestamp (-1 if none) */
    int32_t offset_delta_of_max_timestamp;
    size_t uncompressed_bytes; /* size of the records region after decompression */
} gr_produce_validate_result_t;

/** Validate one partition's Records of a Produce request (v3+) the way Kafka's
 *  broker does (ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords,
 *  LogValidator), in Kafka's order. Returns res->err:
 *  - INVALID_RECORD (87): no complete batch, magic 0/1, more than one batch,
 *    baseOffset != 0, bad offset range / count, control batch, producer id without
 *    sequence, malformed records, record/offset-delta mismatch, a record without a
 *    key on a compacted topic (record error);
 *  - CORRUPT_MESSAGE (2): batchLength < 14, magic > 2 or < 0, batch shorter than 61
 *    bytes, CRC mismatch, undecodable compressed data;
 *  - MESSAGE_TOO_LARGE (10): batch larger than max_message_bytes, or decompressed
 *    records above the decompression cap;
 *  - UNSUPPORTED_COMPRESSION_TYPE (76): codec 5-7, or zstd before Produce v7;
 *  - INVALID_TIMESTAMP (32): record timestamps out of bounds, or a client batch
 *    claiming LogAppendTime (record errors).
 *  Deviations from Kafka are listed in records.c. */
gr_err_t gr_records_validate_produce(const void *blob, size_t len, const gr_produce_validate_opts_t *opts,
                                     gr_produce_validate_result_t *res);

/** Stamp a validated batch for the log: set baseOffset and partitionLeaderEpoch
 *  (not covered by the CRC). If log_append_time_ms >= 0, also set the LogAppendTime
 *  attribute and maxTimestamp and recompute the CRC. Returns GR_ERR__INVALID_ARG if
 *  batch is not a whole magic-2 batch of len bytes. */
gr_err_t gr_records_assign_offsets(void *batch, size_t len, int64_t base_offset, int32_t partition_leader_epoch,
                                   int64_t log_append_time_ms);

/** Set maxTimestamp (and the timestamp-type bit) and recompute the CRC, unless both
 *  already hold these values (Kafka's setMaxTimestamp: the broker rewrites a CreateTime
 *  batch's maxTimestamp to the largest record timestamp it found). */
gr_err_t gr_records_set_max_timestamp(void *batch, size_t len, gr_timestamp_type_t type, int64_t max_timestamp);

/* ------------------------------------------------------------------------- */

/** Builds one v2 batch (tests, the client). Records are encoded as they are added. */
typedef struct gr_batch_builder {
    gr_wbuf_t records; /* uncompressed records */
    int32_t count;
    int64_t base_timestamp, max_timestamp;
} gr_batch_builder_t;

typedef struct gr_batch_builder_opts {
    int codec;                      /* GR_CODEC_* */
    int64_t base_offset;            /* 0 for a produce */
    int32_t partition_leader_epoch; /* -1 for a produce */
    int64_t producer_id;            /* -1: not idempotent */
    int16_t producer_epoch;
    int32_t base_sequence;
    bool transactional, control, log_append_time;
    int64_t log_append_time_ms; /* maxTimestamp when log_append_time */
} gr_batch_builder_opts_t;

/** Defaults: no compression, offset 0, epoch -1, no producer id/epoch/sequence. */
void gr_batch_builder_opts_init(gr_batch_builder_opts_t *opts);
void gr_batch_builder_init(gr_batch_builder_t *bb);
void gr_batch_builder_free(gr_batch_builder_t *bb);
/** Append a record. key_len / value_len -1 mean null; headers may be NULL when n_headers is 0. */
void gr_batch_builder_add(gr_batch_builder_t *bb, int64_t timestamp, const void *key, int32_t key_len,
                          const void *value, int32_t value_len, const gr_header_t *headers, size_t n_headers);
/** Append the finished batch to out. The builder may then be freed or reset with init after free.
 *  Returns GR_ERR__INVALID_ARG for an empty builder, or a compression error. */
gr_err_t gr_batch_builder_finish(gr_batch_builder_t *bb, const gr_batch_builder_opts_t *opts, gr_wbuf_t *out);

/* ------------------------------------------------------------------------- */
/* Control batches (transaction markers). A COMMIT or ABORT marker is a v2 batch with
 * the transactional and control attributes, the producer's id and epoch, base
 * sequence -1, and one record: key = int16 version 0 + int16 type (0 ABORT, 1 COMMIT),
 * value = int16 version 0 + int32 coordinator epoch (Kafka's EndTransactionMarker). */

#define GR_CONTROL_ABORT  0
#define GR_CONTROL_COMMIT 1

/** Append one marker batch (offset 0, leader epoch -1: the log sets both) to out. */
void gr_control_batch_build(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                            int64_t timestamp, gr_wbuf_t *out);

/** The marker of a control batch: its type (GR_CONTROL_*, or another control type such
 *  as Kafka's leader-change records) and, for ABORT/COMMIT, the coordinator epoch.
 *  GR_ERR__NOENT for an empty control batch (Kafka: a transaction cleaned away);
 *  GR_ERR_CORRUPT_MESSAGE when the batch is not a control batch or the record is malformed. */
gr_err_t gr_control_batch_marker(const gr_batch_view_t *bv, int16_t *type, int32_t *coordinator_epoch);

#endif
