/* Descriptor-driven encoder: generated structs -> wire bytes.
 *
 * The encoder trusts its input (it comes from our own handlers or from our
 * own decoder), so misuse such as an unsupported version is asserted rather
 * than reported. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "proto/codec_int.h"

typedef struct ectx {
    gr_wbuf_t *wb;
    int16_t ver;
    bool flex;
} ectx_t;

static void e_struct(ectx_t *c, const gr_struct_desc_t *sd, const void *obj);

static void e_len(ectx_t *c, bool compact, int width, int32_t n) {
    if (compact)
        gr_wbuf_uvarint(c->wb, (uint32_t)n + 1); /* -1 (null) becomes 0 */
    else if (width == 2)
        gr_wbuf_i16(c->wb, (int16_t)n);
    else
        gr_wbuf_i32(c->wb, n);
}

static void e_str(ectx_t *c, const gr_str_t *s, bool compact, bool nullable) {
    int32_t n = s->len < 0 && !nullable ? 0 : s->len;
    assert(n <= INT16_MAX || compact);
    e_len(c, compact, 2, n);
    if (n > 0) gr_wbuf_put(c->wb, s->ptr, (size_t)n);
}

static void e_bytes(ectx_t *c, const gr_bytes_t *b, bool compact, bool nullable) {
    int32_t n = b->len < 0 && !nullable ? 0 : b->len;
    e_len(c, compact, 4, n);
    if (n <= 0) return;
    if (b->file_backed)
        gr_wbuf_put_ext(c->wb, b->fd, b->off, (size_t)n, b->release, b->owner);
    else
        gr_wbuf_put(c->wb, b->ptr, (size_t)n);
}

static void e_scalar(ectx_t *c, const gr_field_desc_t *f, const void *p, bool nullable) {
    bool compact = c->flex && !f->noflex;
    switch ((gr_ftype_t)f->type) {
    case GR_T_BOOL: gr_wbuf_i8(c->wb, *(const bool *)p ? 1 : 0); break;
    case GR_T_INT8: gr_wbuf_i8(c->wb, *(const int8_t *)p); break;
    case GR_T_INT16: gr_wbuf_i16(c->wb, *(const int16_t *)p); break;
    case GR_T_INT32: gr_wbuf_i32(c->wb, *(const int32_t *)p); break;
    case GR_T_INT64: gr_wbuf_i64(c->wb, *(const int64_t *)p); break;
    case GR_T_UINT16: gr_wbuf_u16(c->wb, *(const uint16_t *)p); break;
    case GR_T_UINT32: gr_wbuf_u32(c->wb, *(const uint32_t *)p); break;
    case GR_T_FLOAT64: gr_wbuf_f64(c->wb, *(const double *)p); break;
    case GR_T_UUID: gr_wbuf_put(c->wb, ((const gr_uuid_t *)p)->b, 16); break;
    case GR_T_STRING: e_str(c, p, compact, nullable); break;
    case GR_T_BYTES:
    case GR_T_RECORDS: e_bytes(c, p, compact, nullable); break;
    case GR_T_STRUCT: assert(!"struct in e_scalar"); break;
    }
}

static void e_array(ectx_t *c, const gr_field_desc_t *f, const gr_array_t *arr, bool nullable) {
    bool compact = c->flex && !f->noflex;
    int32_t n = arr->n < 0 && !nullable ? 0 : arr->n;
    e_len(c, compact, 4, n);
    for (int32_t i = 0; i < n; i++) {
        const void *e = (const char *)arr->v + (size_t)i * f->elem_size;
        if (f->type == GR_T_STRUCT)
            e_struct(c, f->sub, e);
        else
            e_scalar(c, f, e, false);
    }
}

/* A struct-typed field: NULL is null when nullable, otherwise all defaults. */
static void e_struct_field(ectx_t *c, const gr_field_desc_t *f, const void *obj, bool nullable) {
    if (nullable) gr_wbuf_i8(c->wb, obj ? 1 : -1);
    if (obj) {
        e_struct(c, f->sub, obj);
    } else if (!nullable) {
        void *tmp = malloc(f->sub->size);
        if (!tmp) abort();
        gr_struct_init(f->sub, tmp);
        e_struct(c, f->sub, tmp);
        free(tmp);
    }
}

static void e_field(ectx_t *c, const gr_field_desc_t *f, const void *obj) {
    const void *p = (const char *)obj + f->offset;
    bool nullable = gr__nullable(f, c->ver);
    if (f->is_array)
        e_array(c, f, p, nullable);
    else if (f->type == GR_T_STRUCT)
        e_struct_field(c, f, *(void *const *)p, nullable);
    else
        e_scalar(c, f, p, nullable);
}

typedef struct tagent {
    uint32_t tag;
    gr_wbuf_t *val;          /* a known field's encoded value, or NULL */
    const gr_raw_tag_t *raw; /* an unknown field kept by the decoder */
} tagent_t;

/* Encode one field in flexible form into its own buffer (for the size prefix). */
static void e_tag_value(ectx_t *c, const gr_field_desc_t *f, const void *obj, gr_wbuf_t *out) {
    ectx_t c2 = {out, c->ver, true};
    gr_wbuf_init(out);
    e_field(&c2, f, obj);
}

/* Kafka writes a tagged field only when it differs from its default. */
static bool tag_is_default(ectx_t *c, const gr_struct_desc_t *sd, const gr_field_desc_t *f, const gr_wbuf_t *val) {
    void *tmp = calloc(1, sd->size);
    if (!tmp) abort();
    gr__field_init(f, tmp);
    gr_wbuf_t def;
    e_tag_value(c, f, tmp, &def);
    bool same =
        def.len == val->len && gr_wbuf_size(val) == val->len && (!val->len || !memcmp(def.mem, val->mem, val->len));
    gr_wbuf_free(&def);
    free(tmp);
    return same;
}

static int cmp_tagent(const void *a, const void *b) {
    const tagent_t *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void e_tags(ectx_t *c, const gr_struct_desc_t *sd, const void *obj) {
    const gr_raw_tags_t *unk = (const gr_raw_tags_t *)((const char *)obj + sd->unknown_off);
    size_t cap = sd->n_fields + (unk->n > 0 ? (size_t)unk->n : 0), n = 0;
    tagent_t *ents = cap ? calloc(cap, sizeof(*ents)) : NULL;
    gr_wbuf_t *vals = cap ? calloc(cap, sizeof(*vals)) : NULL;
    if (cap && (!ents || !vals)) abort();
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        if (!gr__present(f, c->ver) || !gr__tagged(f, c->ver)) continue;
        e_tag_value(c, f, obj, &vals[n]);
        if (tag_is_default(c, sd, f, &vals[n])) {
            gr_wbuf_free(&vals[n]);
            continue;
        }
        ents[n] = (tagent_t){(uint32_t)f->tag, &vals[n], NULL};
        n++;
    }
    for (int32_t i = 0; i < unk->n; i++) ents[n++] = (tagent_t){unk->v[i].tag, NULL, &unk->v[i]};
    qsort(ents, n, sizeof(*ents), cmp_tagent);
    gr_wbuf_uvarint(c->wb, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        gr_wbuf_uvarint(c->wb, ents[i].tag);
        if (ents[i].val) {
            gr_wbuf_t *v = ents[i].val;
            assert(v->n_ext == 0); /* file-backed records cannot be tagged */
            gr_wbuf_uvarint(c->wb, (uint32_t)gr_wbuf_size(v));
            gr_wbuf_put(c->wb, v->mem, v->len);
            gr_wbuf_free(v);
        } else {
            gr_wbuf_uvarint(c->wb, ents[i].raw->len);
            gr_wbuf_put(c->wb, ents[i].raw->ptr, ents[i].raw->len);
        }
    }
    free(ents);
    free(vals);
}

static void e_struct(ectx_t *c, const gr_struct_desc_t *sd, const void *obj) {
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        if (!gr__present(f, c->ver) || gr__tagged(f, c->ver)) continue;
        e_field(c, f, obj);
    }
    if (c->flex) e_tags(c, sd, obj);
}

void gr_encode(const gr_msg_desc_t *m, int16_t ver, const void *obj, gr_wbuf_t *wb) {
    assert(ver >= m->min_ver && ver <= m->max_ver);
    ectx_t c = {wb, ver, gr_msg_flexible(m, ver)};
    e_struct(&c, m->body, obj);
}
