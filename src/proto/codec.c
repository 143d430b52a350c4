/* Codec pieces that are neither decoding nor encoding of bodies: default
 * initialisation, string helpers and the request/response headers. */
#include <string.h>

#include "proto/codec_int.h"
#include "proto_msgs.h"

bool gr_str_eq(gr_str_t a, gr_str_t b) {
    if (a.len != b.len) return false;
    return a.len <= 0 || !memcmp(a.ptr, b.ptr, (size_t)a.len);
}

bool gr_str_eq_c(gr_str_t a, const char *c) {
    if (!c) return a.len < 0;
    return gr_str_eq(a, gr_str_c(c));
}

static void init_scalar(const gr_field_desc_t *f, void *p) {
    switch ((gr_ftype_t)f->type) {
    case GR_T_BOOL: *(bool *)p = f->def_int != 0; break;
    case GR_T_INT8: *(int8_t *)p = (int8_t)f->def_int; break;
    case GR_T_INT16: *(int16_t *)p = (int16_t)f->def_int; break;
    case GR_T_INT32: *(int32_t *)p = (int32_t)f->def_int; break;
    case GR_T_INT64: *(int64_t *)p = f->def_int; break;
    case GR_T_UINT16: *(uint16_t *)p = (uint16_t)f->def_int; break;
    case GR_T_UINT32: *(uint32_t *)p = (uint32_t)f->def_int; break;
    case GR_T_FLOAT64: *(double *)p = f->def_float; break;
    case GR_T_UUID: memset(p, 0, sizeof(gr_uuid_t)); break;
    case GR_T_STRING: *(gr_str_t *)p = f->def_str_null ? GR_STR_NULL : gr_str_c(f->def_str ? f->def_str : ""); break;
    case GR_T_BYTES:
    case GR_T_RECORDS: *(gr_bytes_t *)p = (gr_bytes_t){.ptr = NULL, .len = f->def_str_null ? -1 : 0, .fd = -1}; break;
    case GR_T_STRUCT: *(void **)p = NULL; break;
    }
}

void gr__field_init(const gr_field_desc_t *f, void *obj) {
    void *p = (char *)obj + f->offset;
    if (f->is_array) {
        gr_array_t *arr = p;
        arr->v = NULL;
        arr->n = f->def_str_null ? -1 : 0;
        return;
    }
    init_scalar(f, p);
}

void gr_struct_init(const gr_struct_desc_t *sd, void *obj) {
    memset(obj, 0, sd->size);
    for (uint16_t i = 0; i < sd->n_fields; i++) gr__field_init(&sd->fields[i], obj);
}

void *gr_struct_alloc(gr_arena_t *a, const gr_struct_desc_t *sd, int32_t n) {
    if (n <= 0) return NULL;
    char *v = gr_arena_alloc(a, (size_t)n * sd->size);
    for (int32_t i = 0; i < n; i++) gr_struct_init(sd, v + (size_t)i * sd->size);
    return v;
}

/* ---- headers ---- */

int gr_req_header_version(int16_t api_key, int16_t api_version) {
    const gr_msg_desc_t *m = gr_api_request(api_key);
    if (!m) return -1;
    return gr_msg_flexible(m, api_version) ? 2 : 1;
}

int gr_resp_header_version(int16_t api_key, int16_t api_version) {
    if (api_key == GR_API_ApiVersions) return 0; /* so any client can read it (KIP-511) */
    const gr_msg_desc_t *m = gr_api_response(api_key);
    if (!m) return 0;
    return gr_msg_flexible(m, api_version) ? 1 : 0;
}

/* Tags in a section must be strictly increasing (Kafka rejects a header whose tags are out
 * of order or repeated), so a duplicate cannot be read two ways. */
static bool skip_tags(gr_rbuf_t *rb) {
    uint32_t n, tag, size;
    int64_t prev = -1;
    if (!gr_rbuf_uvarint(rb, &n)) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!gr_rbuf_uvarint(rb, &tag)) return false;
        if ((int64_t)tag <= prev)
            return gr_rbuf_fail(rb, GR_ERR__MALFORMED, "tagged fields not in strictly increasing tag order");
        prev = tag;
        if (!gr_rbuf_uvarint(rb, &size) || !gr_rbuf_skip(rb, size)) return false;
    }
    return true;
}

gr_err_t gr_req_header_decode(gr_rbuf_t *rb, gr_req_header_t *h) {
    int16_t len;
    const uint8_t *p = NULL;
    memset(h, 0, sizeof(*h));
    h->client_id = GR_STR_NULL;
    if (!gr_rbuf_i16(rb, &h->api_key) || !gr_rbuf_i16(rb, &h->api_version) || !gr_rbuf_i32(rb, &h->correlation_id) ||
        !gr_rbuf_i16(rb, &len))
        return rb->err;
    if (len < -1) {
        gr_rbuf_fail(rb, GR_ERR__MALFORMED, "negative client_id length");
        return rb->err;
    }
    if (len >= 0) {
        if (!gr_rbuf_bytes(rb, (size_t)len, &p)) return rb->err;
        h->client_id = (gr_str_t){(const char *)p, len};
    }
    int hv = gr_req_header_version(h->api_key, h->api_version);
    h->header_version = (int16_t)(hv < 0 ? 1 : hv);
    if (h->header_version == 2 && !skip_tags(rb)) return rb->err;
    return GR_ERR_NONE;
}

void gr_req_header_encode(const gr_req_header_t *h, gr_wbuf_t *wb) {
    gr_wbuf_i16(wb, h->api_key);
    gr_wbuf_i16(wb, h->api_version);
    gr_wbuf_i32(wb, h->correlation_id);
    if (h->client_id.len < 0) {
        gr_wbuf_i16(wb, -1);
    } else {
        gr_wbuf_i16(wb, (int16_t)h->client_id.len);
        gr_wbuf_put(wb, h->client_id.ptr, (size_t)h->client_id.len);
    }
    if (h->header_version >= 2) gr_wbuf_uvarint(wb, 0);
}

void gr_resp_header_encode(int32_t correlation_id, int header_version, gr_wbuf_t *wb) {
    gr_wbuf_i32(wb, correlation_id);
    if (header_version >= 1) gr_wbuf_uvarint(wb, 0);
}
