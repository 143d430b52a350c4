/* Generic, table-driven Kafka message codec.
 *
 * Every message is described once as data (src/proto/defs/NAME.def, our own
 * notation). tools/gencodec turns the definitions into C structs plus
 * descriptor tables (build/gen/proto_msgs.{h,c}); this codec walks the
 * descriptors to decode wire bytes into those structs and to encode them back.
 *
 * Conventions of the generated structs (see docs/codec.md):
 *   - message `ProduceRequest` -> `gr_ProduceRequest_t`, descriptor `gr_ProduceRequest_desc`;
 *     nested struct `TopicProduceData` of that message -> `gr_ProduceRequest_TopicProduceData_t`;
 *     a common struct is named the same way, after the message that holds it.
 *   - field names are Kafka's (`Acks`, `TopicData`).
 *   - int8..int64/uint16/uint32 -> <stdint.h> types, bool -> bool, float64 -> double,
 *     uuid -> gr_uuid_t, string -> gr_str_t, bytes/records -> gr_bytes_t,
 *     []T -> `struct { T *v; int32_t n; }` (n == -1 is a null array).
 *   - a non-array struct field is a pointer `T *Name`; NULL is a null struct
 *     (nullable fields) or "all defaults" (others). The decoder allocates it.
 *   - a field not present in the decoded version holds its default value.
 *   - every struct ends with a hidden `_unknown_tags` member: tagged fields
 *     the decoder did not know, kept raw so that re-encoding reproduces them.
 *   - api keys: `GR_API_<Api>` (GR_API_Produce = 0, GR_API_ShareFetch = 78).
 * Strings and bytes decoded from a frame point into the frame (no copy): the
 * frame must outlive the decoded struct. */
#ifndef GR_PROTO_CODEC_H
#define GR_PROTO_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/uuid.h" /* gr_uuid_t */

/** A string view; len == -1 is null. Not NUL-terminated. */
typedef struct gr_str {
    const char *ptr;
    int32_t len;
} gr_str_t;

/** A byte view; len == -1 is null. For records it may instead name a file
 *  range (fd >= 0): the encoder then splices it in with gr_wbuf_put_ext. */
typedef struct gr_bytes {
    const uint8_t *ptr;
    int32_t len;
    bool file_backed; /* true: the len bytes come from fd at off, ptr unused */
    int fd;
    int64_t off;
    void (*release)(void *owner); /* see gr_wbuf_put_ext */
    void *owner;
} gr_bytes_t;

#define GR_STR(lit) ((gr_str_t){(lit), (int32_t)(sizeof(lit) - 1)})
#define GR_STR_NULL ((gr_str_t){NULL, -1})
static inline gr_str_t gr_str_c(const char *s) {
    gr_str_t r = {s, -1};
    if (s) {
        r.len = 0;
        while (s[r.len]) r.len++;
    }
    return r;
}
static inline bool gr_str_is_null(gr_str_t s) { return s.len < 0; }
bool gr_str_eq(gr_str_t a, gr_str_t b);
bool gr_str_eq_c(gr_str_t a, const char *c);

/** An unknown tagged field kept raw: ptr/len is the value (no tag, no size). */
typedef struct gr_raw_tag {
    uint32_t tag;
    uint32_t len;
    const uint8_t *ptr;
} gr_raw_tag_t;

typedef struct gr_raw_tags {
    gr_raw_tag_t *v;
    int32_t n;
} gr_raw_tags_t;

/** The layout every generated array field shares (`struct { T *v; int32_t n; }`). */
typedef struct gr_array {
    void *v;
    int32_t n;
} gr_array_t;

typedef enum gr_ftype {
    GR_T_BOOL,
    GR_T_INT8,
    GR_T_INT16,
    GR_T_INT32,
    GR_T_INT64,
    GR_T_UINT16,
    GR_T_UINT32,
    GR_T_FLOAT64,
    GR_T_UUID,
    GR_T_STRING,
    GR_T_BYTES,
    GR_T_RECORDS,
    GR_T_STRUCT
} gr_ftype_t;

typedef struct gr_struct_desc gr_struct_desc_t;

/** Version ranges are inclusive; max 0x7fff means "and later"; min -1 means "never". */
typedef struct gr_field_desc {
    const char *name;
    uint8_t type; /* gr_ftype_t of the field, or of the element for arrays */
    bool is_array;
    bool noflex; /* "flexibleVersions": "none": never compact */
    int16_t ver_min, ver_max;
    int16_t null_min, null_max;
    int16_t tag_min, tag_max; /* tagged in these versions */
    int32_t tag;
    uint32_t offset;             /* offsetof in the parent struct */
    uint32_t elem_size;          /* size of one element (arrays) or of the value */
    const gr_struct_desc_t *sub; /* struct type (struct fields and struct arrays) */
    int64_t def_int;             /* default for numbers and bools */
    double def_float;
    const char *def_str; /* default for strings; NULL = "" */
    bool def_str_null;   /* the default is null (strings, bytes, arrays, structs) */
    bool ignorable;      /* may be dropped silently by versions without it */
} gr_field_desc_t;

struct gr_struct_desc {
    const char *name;
    uint32_t size;
    uint16_t n_fields;
    const gr_field_desc_t *fields;
    uint32_t unknown_off; /* offsetof the hidden gr_raw_tags_t _unknown_tags */
};

typedef struct gr_msg_desc {
    const char *name; /* "ProduceRequest" */
    int16_t api_key;  /* -1 for headers and non-API records */
    bool is_request;
    int16_t min_ver, max_ver; /* valid versions */
    int16_t flex_min;         /* first flexible version, 0x7fff if none */
    const gr_struct_desc_t *body;
} gr_msg_desc_t;

static inline bool gr_msg_flexible(const gr_msg_desc_t *m, int16_t ver) { return ver >= m->flex_min; }

/** Set every field of a struct to its default value for all versions
 *  (arrays empty, strings "" or null per definition). */
void gr_struct_init(const gr_struct_desc_t *sd, void *obj);
/** Allocate n default-initialised elements of a struct type in the arena. */
void *gr_struct_alloc(gr_arena_t *a, const gr_struct_desc_t *sd, int32_t n);

/** Decode a message body of version ver from rb into obj (sizeof == m->body->size),
 *  allocating arrays in a. Consumes exactly the struct; trailing bytes are left in rb.
 *  Returns GR_ERR_NONE, GR_ERR__INCOMPLETE (truncated) or GR_ERR__MALFORMED
 *  (rb->why says what, gr_rbuf_offset(rb) where). Never reads past rb->end and
 *  never allocates more than the remaining bytes could describe. */
gr_err_t gr_decode(const gr_msg_desc_t *m, int16_t ver, gr_rbuf_t *rb, gr_arena_t *a, void *obj);
/** Encode obj as version ver of m into wb. Fields not in ver are skipped; a
 *  non-default value in a non-ignorable missing field is silently dropped.
 *  Null in a field that is not nullable in ver goes out as empty. Tagged
 *  fields go out only when they differ from their default, merged in tag
 *  order with the struct's _unknown_tags. ver must be within m's range. */
void gr_encode(const gr_msg_desc_t *m, int16_t ver, const void *obj, gr_wbuf_t *wb);

/* ---- Headers ---- */

typedef struct gr_req_header {
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    gr_str_t client_id;
    int16_t header_version; /* 1 or 2 */
} gr_req_header_t;

/** Request header version for (api_key, version): 2 if that request version is
 *  flexible, else 1. Returns -1 for an unknown api key. */
int gr_req_header_version(int16_t api_key, int16_t api_version);
/** Response header version: 1 if flexible, else 0; ApiVersions always 0. */
int gr_resp_header_version(int16_t api_key, int16_t api_version);
/** Decode a request header. The tagged fields of v2 are skipped. For unknown
 *  api keys the header is decoded as v1 (enough to answer). A version above
 *  the range we know still follows the flexible rule of its API, so an
 *  ApiVersions request from a newer client parses as header v2. */
gr_err_t gr_req_header_decode(gr_rbuf_t *rb, gr_req_header_t *h);
void gr_req_header_encode(const gr_req_header_t *h, gr_wbuf_t *wb);
void gr_resp_header_encode(int32_t correlation_id, int header_version, gr_wbuf_t *wb);

/* ---- API table ---- */

/** Request and response descriptors for an api key, or NULL if undefined. */
const gr_msg_desc_t *gr_api_request(int16_t api_key);
const gr_msg_desc_t *gr_api_response(int16_t api_key);

#endif
