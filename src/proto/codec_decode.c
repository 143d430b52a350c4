/* Descriptor-driven decoder: wire bytes -> generated structs.
 *
 * Every length and count from the wire is checked against the bytes that
 * remain before anything is allocated or read, and all allocations sized from
 * the wire go through gr_arena_try_alloc. Errors latch in the rbuf: a value
 * cut short is GR_ERR__INCOMPLETE, a value that cannot be valid however many
 * bytes follow is GR_ERR__MALFORMED, and an arena over its limit is
 * GR_ERR__NOMEM. */
#include <string.h>

#include "proto/codec_int.h"

typedef struct dctx {
    gr_rbuf_t *rb;
    gr_arena_t *a;
    int16_t ver;
    bool flex;
} dctx_t;

static bool d_struct(dctx_t *c, const gr_struct_desc_t *sd, void *obj);

static bool fail(dctx_t *c, gr_err_t err, const char *why) { return gr_rbuf_fail(c->rb, err, why); }

/* A length or count: compact uvarint (N+1, 0 = null) or a fixed int16/int32.
 * *n is -1 for null. */
static bool d_len(dctx_t *c, bool compact, int width, int32_t *n) {
    if (compact) {
        uint32_t u;
        if (!gr_rbuf_uvarint(c->rb, &u)) return false;
        if (u > (uint32_t)INT32_MAX + 1) return fail(c, GR_ERR__MALFORMED, "compact length too large");
        *n = (int32_t)(u - 1);
        return true;
    }
    if (width == 2) {
        int16_t v;
        if (!gr_rbuf_i16(c->rb, &v)) return false;
        *n = v;
    } else if (!gr_rbuf_i32(c->rb, n)) {
        return false;
    }
    if (*n < -1) return fail(c, GR_ERR__MALFORMED, "negative length");
    return true;
}

static bool d_str(dctx_t *c, gr_str_t *s, bool compact, bool nullable) {
    int32_t n;
    const uint8_t *p;
    if (!d_len(c, compact, 2, &n)) return false;
    if (n < 0) {
        if (!nullable) return fail(c, GR_ERR__MALFORMED, "null in a non-nullable string");
        *s = GR_STR_NULL;
        return true;
    }
    if (!gr_rbuf_bytes(c->rb, (size_t)n, &p)) return false;
    *s = (gr_str_t){(const char *)p, n};
    return true;
}

static bool d_bytes(dctx_t *c, gr_bytes_t *b, bool compact, bool nullable) {
    int32_t n;
    const uint8_t *p = NULL;
    if (!d_len(c, compact, 4, &n)) return false;
    if (n < 0 && !nullable) return fail(c, GR_ERR__MALFORMED, "null in non-nullable bytes");
    if (n >= 0 && !gr_rbuf_bytes(c->rb, (size_t)n, &p)) return false;
    *b = (gr_bytes_t){.ptr = p, .len = n, .fd = -1};
    return true;
}

static bool d_uuid(dctx_t *c, gr_uuid_t *u) {
    const uint8_t *p;
    if (!gr_rbuf_bytes(c->rb, 16, &p)) return false;
    memcpy(u->b, p, 16);
    return true;
}

/* One value of a non-struct type (a scalar field or one array element). */
static bool d_scalar(dctx_t *c, const gr_field_desc_t *f, void *p, bool nullable) {
    bool compact = c->flex && !f->noflex;
    int8_t b;
    switch ((gr_ftype_t)f->type) {
    case GR_T_BOOL:
        if (!gr_rbuf_i8(c->rb, &b)) return false;
        *(bool *)p = b != 0;
        return true;
    case GR_T_INT8: return gr_rbuf_i8(c->rb, p);
    case GR_T_INT16: return gr_rbuf_i16(c->rb, p);
    case GR_T_INT32: return gr_rbuf_i32(c->rb, p);
    case GR_T_INT64: return gr_rbuf_i64(c->rb, p);
    case GR_T_UINT16: return gr_rbuf_u16(c->rb, p);
    case GR_T_UINT32: return gr_rbuf_u32(c->rb, p);
    case GR_T_FLOAT64: return gr_rbuf_f64(c->rb, p);
    case GR_T_UUID: return d_uuid(c, p);
    case GR_T_STRING: return d_str(c, p, compact, nullable);
    case GR_T_BYTES:
    case GR_T_RECORDS: return d_bytes(c, p, compact, nullable);
    case GR_T_STRUCT: break;
    }
    return fail(c, GR_ERR__MALFORMED, "bad field type in descriptor");
}

/* The fewest bytes one array element can occupy on the wire. */
static size_t min_elem_size(const gr_field_desc_t *f, bool compact) {
    switch ((gr_ftype_t)f->type) {
    case GR_T_INT16:
    case GR_T_UINT16: return 2;
    case GR_T_INT32:
    case GR_T_UINT32: return 4;
    case GR_T_INT64:
    case GR_T_FLOAT64: return 8;
    case GR_T_UUID: return 16;
    case GR_T_STRING: return compact ? 1 : 2;
    case GR_T_BYTES:
    case GR_T_RECORDS: return compact ? 1 : 4;
    default: return 1; /* like Kafka, a struct element counts as at least one byte */
    }
}

static bool d_array(dctx_t *c, const gr_field_desc_t *f, gr_array_t *arr, bool nullable) {
    bool compact = c->flex && !f->noflex;
    int32_t n;
    if (!d_len(c, compact, 4, &n)) return false;
    if (n < 0) {
        if (!nullable) return fail(c, GR_ERR__MALFORMED, "null in a non-nullable array");
        arr->v = NULL;
        arr->n = -1;
        return true;
    }
    if ((size_t)n > gr_rbuf_remaining(c->rb) / min_elem_size(f, compact))
        return fail(c, GR_ERR__INCOMPLETE, "array count exceeds the remaining bytes");
    arr->n = n;
    arr->v = NULL;
    if (!n) return true;
    char *v = gr_arena_try_alloc(c->a, (size_t)n, f->elem_size);
    if (!v) return fail(c, GR_ERR__NOMEM, "array does not fit the arena limit");
    arr->v = v;
    for (int32_t i = 0; i < n; i++) {
        void *e = v + (size_t)i * f->elem_size;
        bool ok = f->type == GR_T_STRUCT ? d_struct(c, f->sub, e) : d_scalar(c, f, e, false);
        if (!ok) return false;
    }
    return true;
}

/* A struct-typed field (not an array): a pointer, with an int8 marker when nullable. */
static bool d_struct_field(dctx_t *c, const gr_field_desc_t *f, void **pp, bool nullable) {
    if (nullable) {
        int8_t marker;
        if (!gr_rbuf_i8(c->rb, &marker)) return false;
        if (marker < 0) {
            *pp = NULL;
            return true;
        }
    }
    void *obj = gr_arena_try_alloc(c->a, 1, f->sub->size);
    if (!obj) return fail(c, GR_ERR__NOMEM, "struct does not fit the arena limit");
    *pp = obj;
    return d_struct(c, f->sub, obj);
}

static bool d_field(dctx_t *c, const gr_field_desc_t *f, void *obj) {
    void *p = (char *)obj + f->offset;
    bool nullable = gr__nullable(f, c->ver);
    if (f->is_array) return d_array(c, f, p, nullable);
    if (f->type == GR_T_STRUCT) return d_struct_field(c, f, p, nullable);
    return d_scalar(c, f, p, nullable);
}

static const gr_field_desc_t *find_tag(const gr_struct_desc_t *sd, int16_t ver, uint32_t tag) {
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        if ((uint32_t)f->tag == tag && f->tag >= 0 && gr__present(f, ver) && gr__tagged(f, ver)) return f;
    }
    return NULL;
}

/* A known tagged field: its value must fill exactly the announced size. */
static bool d_known_tag(dctx_t *c, const gr_field_desc_t *f, void *obj, uint32_t size) {
    gr_rbuf_t sub;
    gr_rbuf_init(&sub, c->rb->pos, size);
    dctx_t c2 = {&sub, c->a, c->ver, true};
    if (!d_field(&c2, f, obj)) {
        gr_err_t err = sub.err == GR_ERR__INCOMPLETE ? GR_ERR__MALFORMED : sub.err;
        return fail(c, err, sub.err == GR_ERR__INCOMPLETE ? "tagged field value overruns its size" : sub.why);
    }
    if (sub.pos != sub.end) return fail(c, GR_ERR__MALFORMED, "tagged field value shorter than its size");
    return gr_rbuf_skip(c->rb, size);
}

static bool d_tags(dctx_t *c, const gr_struct_desc_t *sd, void *obj) {
    uint32_t n, tag, size;
    int64_t prev = -1;
    gr_raw_tags_t *unk = (gr_raw_tags_t *)((char *)obj + sd->unknown_off);
    if (!gr_rbuf_uvarint(c->rb, &n)) return false;
    if (n > gr_rbuf_remaining(c->rb) / 2) return fail(c, GR_ERR__INCOMPLETE, "tag count exceeds the remaining bytes");
    for (uint32_t i = 0; i < n; i++) {
        if (!gr_rbuf_uvarint(c->rb, &tag)) return false;
        /* Strictly increasing, as Kafka requires: a repeated known tag would otherwise
         * overwrite the first value silently. */
        if ((int64_t)tag <= prev)
            return fail(c, GR_ERR__MALFORMED, "tagged fields not in strictly increasing tag order");
        prev = tag;
        if (!gr_rbuf_uvarint(c->rb, &size)) return false;
        if (size > gr_rbuf_remaining(c->rb)) return fail(c, GR_ERR__INCOMPLETE, "tagged field truncated");
        const gr_field_desc_t *f = find_tag(sd, c->ver, tag);
        if (f) {
            if (!d_known_tag(c, f, obj, size)) return false;
            continue;
        }
        if (!unk->v) {
            unk->v = gr_arena_try_alloc(c->a, n - i, sizeof(*unk->v));
            if (!unk->v) return fail(c, GR_ERR__NOMEM, "tags do not fit the arena limit");
        }
        unk->v[unk->n++] = (gr_raw_tag_t){.tag = tag, .len = size, .ptr = c->rb->pos};
        gr_rbuf_skip(c->rb, size);
    }
    return true;
}

static bool d_struct(dctx_t *c, const gr_struct_desc_t *sd, void *obj) {
    gr_struct_init(sd, obj);
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        if (!gr__present(f, c->ver) || gr__tagged(f, c->ver)) continue;
        if (!d_field(c, f, obj)) return false;
    }
    if (c->flex && !d_tags(c, sd, obj)) return false;
    return true;
}

gr_err_t gr_decode(const gr_msg_desc_t *m, int16_t ver, gr_rbuf_t *rb, gr_arena_t *a, void *obj) {
    gr_struct_init(m->body, obj);
    if (rb->err) return rb->err;
    if (ver < m->min_ver || ver > m->max_ver) {
        gr_rbuf_fail(rb, GR_ERR__MALFORMED, "unsupported message version");
        return rb->err;
    }
    dctx_t c = {rb, a, ver, gr_msg_flexible(m, ver)};
    d_struct(&c, m->body, obj);
    return rb->err;
}
