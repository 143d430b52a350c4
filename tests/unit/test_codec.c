/* Unit tests for the descriptor-driven codec (src/proto/codec*.c).
 *
 * - property: every message, every valid version, pseudo-random contents:
 *   encode, decode, re-encode must give the same bytes;
 * - known-answer vectors written by hand from the protocol rules;
 * - truncation: every strict prefix fails with GR_ERR__INCOMPLETE;
 * - hostile inputs: bad lengths and huge counts fail without big allocations. */
#include <string.h>

#include "proto/codec.h"
#include "proto_msgs.h"
#include "testutil.h"

/* ---- pseudo-random filling ---- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static uint32_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static void fill_struct(gr_arena_t *a, const gr_struct_desc_t *sd, void *obj, int16_t ver, bool flex, int depth);

static void fill_bytes(gr_arena_t *a, const uint8_t **ptr, int32_t *len) {
    int32_t n = (int32_t)(rnd() % 12);
    uint8_t *p = gr_arena_alloc(a, (size_t)n + 1);
    for (int32_t i = 0; i < n; i++) p[i] = (uint8_t)('a' + rnd() % 26);
    *ptr = p;
    *len = n;
}

static void fill_scalar(gr_arena_t *a, const gr_field_desc_t *f, void *p, bool nullable) {
    uint64_t r = ((uint64_t)rnd() << 32) | rnd();
    switch ((gr_ftype_t)f->type) {
    case GR_T_BOOL: *(bool *)p = r & 1; break;
    case GR_T_INT8: *(int8_t *)p = (int8_t)r; break;
    case GR_T_INT16: *(int16_t *)p = (int16_t)r; break;
    case GR_T_INT32: *(int32_t *)p = (int32_t)r; break;
    case GR_T_INT64: *(int64_t *)p = (int64_t)r; break;
    case GR_T_UINT16: *(uint16_t *)p = (uint16_t)r; break;
    case GR_T_UINT32: *(uint32_t *)p = (uint32_t)r; break;
    case GR_T_FLOAT64: *(double *)p = (double)(int32_t)r / 7.0; break;
    case GR_T_UUID:
        for (int i = 0; i < 16; i++) ((gr_uuid_t *)p)->b[i] = (uint8_t)rnd();
        break;
    case GR_T_STRING: {
        gr_str_t *s = p;
        if (nullable && rnd() % 5 == 0)
            *s = GR_STR_NULL;
        else
            fill_bytes(a, (const uint8_t **)&s->ptr, &s->len);
        break;
    }
    case GR_T_BYTES:
    case GR_T_RECORDS: {
        gr_bytes_t *b = p;
        b->fd = -1;
        if (nullable && rnd() % 5 == 0)
            b->len = -1;
        else
            fill_bytes(a, &b->ptr, &b->len);
        break;
    }
    case GR_T_STRUCT: break;
    }
}

static void fill_field(gr_arena_t *a, const gr_field_desc_t *f, void *obj, int16_t ver, bool flex, int depth) {
    void *p = (char *)obj + f->offset;
    bool nullable = f->null_min >= 0 && ver >= f->null_min && ver <= f->null_max;
    if (f->is_array) {
        gr_array_t *arr = p;
        if (nullable && rnd() % 5 == 0) {
            arr->n = -1;
            arr->v = NULL;
            return;
        }
        arr->n = depth > 5 ? 0 : (int32_t)(rnd() % 4);
        arr->v = arr->n ? gr_arena_alloc(a, (size_t)arr->n * f->elem_size) : NULL;
        for (int32_t i = 0; i < arr->n; i++) {
            void *e = (char *)arr->v + (size_t)i * f->elem_size;
            if (f->type == GR_T_STRUCT)
                fill_struct(a, f->sub, e, ver, flex, depth + 1);
            else
                fill_scalar(a, f, e, false);
        }
    } else if (f->type == GR_T_STRUCT) {
        void **pp = p;
        if (nullable && rnd() % 3 == 0) return;
        *pp = gr_arena_alloc(a, f->sub->size);
        fill_struct(a, f->sub, *pp, ver, flex, depth + 1);
    } else {
        fill_scalar(a, f, p, nullable);
    }
}

/* Adds unknown tags above every known tag so re-encoding must merge them. */
static void fill_unknown_tags(gr_arena_t *a, const gr_struct_desc_t *sd, void *obj) {
    gr_raw_tags_t *unk = (gr_raw_tags_t *)((char *)obj + sd->unknown_off);
    if (rnd() % 3) return;
    unk->n = 1 + (int32_t)(rnd() % 2);
    unk->v = gr_arena_alloc(a, (size_t)unk->n * sizeof(*unk->v));
    for (int32_t i = 0; i < unk->n; i++) {
        int32_t len;
        unk->v[i].tag = 100 + (uint32_t)i * 50 + rnd() % 40;
        fill_bytes(a, &unk->v[i].ptr, &len);
        unk->v[i].len = (uint32_t)len;
    }
}

static void fill_struct(gr_arena_t *a, const gr_struct_desc_t *sd, void *obj, int16_t ver, bool flex, int depth) {
    gr_struct_init(sd, obj);
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        if (f->ver_min < 0 || ver < f->ver_min || ver > f->ver_max) continue;
        fill_field(a, f, obj, ver, flex, depth);
    }
    if (flex) fill_unknown_tags(a, sd, obj);
}

/* ---- helpers ---- */

static gr_err_t decode_buf(const gr_msg_desc_t *m, int16_t ver, const uint8_t *p, size_t n, gr_arena_t *a, void *obj,
                           size_t *consumed) {
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, p, n);
    gr_err_t err = gr_decode(m, ver, &rb, a, obj);
    if (consumed) *consumed = gr_rbuf_offset(&rb);
    return err;
}

static void roundtrip_one(const gr_msg_desc_t *m, int16_t ver) {
    gr_arena_t a;
    gr_wbuf_t w1, w2;
    gr_arena_init(&a);
    gr_wbuf_init(&w1);
    gr_wbuf_init(&w2);
    void *obj = gr_arena_alloc(&a, m->body->size), *obj2 = gr_arena_alloc(&a, m->body->size);
    fill_struct(&a, m->body, obj, ver, gr_msg_flexible(m, ver), 0);
    gr_encode(m, ver, obj, &w1);
    size_t used = 0;
    gr_err_t err = decode_buf(m, ver, w1.mem, w1.len, &a, obj2, &used);
    if (err) GR__FAIL("%s v%d: decode failed: %s", m->name, ver, gr_err_name(err));
    if (used != w1.len) GR__FAIL("%s v%d: decode used %zu of %zu bytes", m->name, ver, used, w1.len);
    gr_encode(m, ver, obj2, &w2);
    if (w1.len != w2.len || (w1.len && memcmp(w1.mem, w2.mem, w1.len)))
        GR__FAIL("%s v%d: re-encoding differs (%zu vs %zu bytes)", m->name, ver, w1.len, w2.len);
    gr_wbuf_free(&w1);
    gr_wbuf_free(&w2);
    gr_arena_free(&a);
}

static void test_roundtrip_all(void) {
    int n = 0;
    for (int i = 0; i < gr_n_msg_descs; i++) {
        const gr_msg_desc_t *m = gr_msg_descs[i];
        for (int16_t v = m->min_ver; v <= m->max_ver; v++)
            for (int k = 0; k < 25; k++, n++) roundtrip_one(m, v);
    }
    fprintf(stderr, "   %d round trips over %d messages\n", n, gr_n_msg_descs);
    ASSERT_EQ(gr_n_msg_descs,
              122); /* + UpdateFeatures, Describe/AlterUserScramCredentials, Describe/AlterClientQuotas */
}

static void test_api_tables(void) {
    int n = 0;
    for (int16_t k = 0; k <= GR_API__MAX; k++) {
        const gr_msg_desc_t *rq = gr_api_request(k), *rs = gr_api_response(k);
        ASSERT_EQ(rq == NULL, rs == NULL);
        if (!rq) continue;
        n++;
        ASSERT(rq->is_request && !rs->is_request);
        ASSERT_EQ(rq->api_key, k);
        ASSERT_EQ(rq->min_ver, rs->min_ver);
        ASSERT_EQ(rq->max_ver, rs->max_ver);
    }
    ASSERT_EQ(n, 60); /* 55 + UpdateFeatures (57), Describe/AlterUserScramCredentials, Describe/AlterClientQuotas */
    ASSERT(gr_api_request(-1) == NULL && gr_api_request(GR_API__MAX + 1) == NULL && gr_api_request(4) == NULL);
    ASSERT_STREQ(gr_api_request(GR_API_ShareFetch)->name, "ShareFetchRequest");
    ASSERT_EQ(gr_api_request(GR_API_InitProducerId)->max_ver, 5); /* v6 is unstable */
    ASSERT_EQ(gr_api_request(GR_API_Produce)->flex_min, 9);
    ASSERT_EQ(gr_api_request(GR_API_SaslHandshake)->flex_min, 0x7fff);
    ASSERT_EQ(gr_req_header_version(GR_API_ApiVersions, 3), 2);
    ASSERT_EQ(gr_req_header_version(GR_API_ApiVersions, 2), 1);
    ASSERT_EQ(gr_req_header_version(4, 0), -1);
    ASSERT_EQ(gr_resp_header_version(GR_API_ApiVersions, 3), 0);
    ASSERT_EQ(gr_resp_header_version(GR_API_Metadata, 9), 1);
    ASSERT_EQ(gr_resp_header_version(GR_API_Metadata, 8), 0);
}

/* ---- known-answer vectors ---- */

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static void expect_encoding(const gr_msg_desc_t *m, int16_t ver, const void *obj, const uint8_t *want, size_t n) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_encode(m, ver, obj, &wb);
    if (wb.len != n || (n && memcmp(wb.mem, want, n))) {
        fprintf(stderr, "got:");
        for (size_t i = 0; i < wb.len; i++) fprintf(stderr, " %02x", wb.mem[i]);
        GR__FAIL("%s v%d: encoding differs from the expected %zu bytes", m->name, ver, n);
    }
    gr_wbuf_free(&wb);
}

static void test_apiversions_v3_request(void) {
    static const uint8_t body[] = {0x0b, 'l',  'i', 'b', 'r', 'd', 'k', 'a', 'f', 'k',
                                   'a',  0x07, '2', '.', '1', '5', '.', '0', 0x00};
    gr_arena_t a;
    gr_arena_init(&a);
    gr_ApiVersionsRequest_t rq;
    size_t used;
    ASSERT_EQ(decode_buf(&gr_ApiVersionsRequest_desc, 3, body, sizeof(body), &a, &rq, &used), GR_ERR_NONE);
    ASSERT_EQ(used, sizeof(body));
    ASSERT(gr_str_eq_c(rq.ClientSoftwareName, "librdkafka"));
    ASSERT(gr_str_eq_c(rq.ClientSoftwareVersion, "2.15.0"));
    ASSERT_EQ(rq._unknown_tags.n, 0);
    expect_encoding(&gr_ApiVersionsRequest_desc, 3, &rq, body, sizeof(body));
    /* v0 has no fields at all: the default strings are "" and nothing is written. */
    gr_struct_init(&gr_ApiVersionsRequest_sd, &rq);
    ASSERT(gr_str_eq_c(rq.ClientSoftwareName, ""));
    expect_encoding(&gr_ApiVersionsRequest_desc, 0, &rq, (const uint8_t *)"", 0);
    /* The full frame with header v2. */
    static const uint8_t hdr[] = {0, 18, 0, 3, 0, 0, 0, 1, 0, 7, 'r', 'd', 'k', 'a', 'f', 'k', 'a', 0};
    gr_rbuf_t rb;
    gr_req_header_t h;
    gr_rbuf_init(&rb, hdr, sizeof(hdr));
    ASSERT_EQ(gr_req_header_decode(&rb, &h), GR_ERR_NONE);
    ASSERT_EQ(gr_rbuf_remaining(&rb), 0);
    ASSERT_EQ(h.api_key, 18);
    ASSERT_EQ(h.api_version, 3);
    ASSERT_EQ(h.correlation_id, 1);
    ASSERT_EQ(h.header_version, 2);
    ASSERT(gr_str_eq_c(h.client_id, "rdkafka"));
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_req_header_encode(&h, &wb);
    ASSERT_EQ(wb.len, sizeof(hdr));
    ASSERT_MEMEQ(wb.mem, hdr, sizeof(hdr));
    gr_wbuf_reset(&wb);
    gr_resp_header_encode(7, 1, &wb);
    ASSERT_EQ(wb.len, 5);
    ASSERT_MEMEQ(wb.mem, "\0\0\0\7\0", 5);
    gr_wbuf_free(&wb);
    gr_arena_free(&a);
}

static void test_varints(void) {
    static const struct {
        int32_t v;
        uint8_t b[5];
        size_t n;
    } zz[] = {{0, {0}, 1},
              {-1, {1}, 1},
              {1, {2}, 1},
              {63, {0x7e}, 1},
              {-64, {0x7f}, 1},
              {64, {0x80, 1}, 2},
              {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
              {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5}};
    for (size_t i = 0; i < sizeof(zz) / sizeof(zz[0]); i++) {
        gr_wbuf_t wb;
        gr_wbuf_init(&wb);
        gr_wbuf_varint(&wb, zz[i].v);
        ASSERT_EQ(wb.len, zz[i].n);
        ASSERT_MEMEQ(wb.mem, zz[i].b, zz[i].n);
        gr_rbuf_t rb;
        int32_t out;
        gr_rbuf_init(&rb, wb.mem, wb.len);
        ASSERT(gr_rbuf_varint(&rb, &out));
        ASSERT_EQ(out, zz[i].v);
        gr_wbuf_free(&wb);
    }
    gr_rbuf_t rb;
    uint32_t u;
    gr_rbuf_init(&rb, BYTES(0xff, 0xff, 0xff, 0xff, 0x0f));
    ASSERT(gr_rbuf_uvarint(&rb, &u) && u == UINT32_MAX);
    gr_rbuf_init(&rb, BYTES(0xff, 0xff, 0xff, 0xff, 0x1f));
    ASSERT(!gr_rbuf_uvarint(&rb, &u) && rb.err == GR_ERR__MALFORMED);
    gr_rbuf_init(&rb, BYTES(0x80, 0x80));
    ASSERT(!gr_rbuf_uvarint(&rb, &u) && rb.err == GR_ERR__INCOMPLETE);
    ASSERT_EQ(gr_uvarint_size(127), 1);
    ASSERT_EQ(gr_uvarint_size(128), 2);
    ASSERT_EQ(gr_uvarint_size(UINT32_MAX), 5);
}

/* ShareFetch v1 with a compact null GroupId, then MemberId "m", empty arrays. */
static void test_compact_null_string(void) {
    gr_arena_t a;
    gr_arena_init(&a);
    gr_ShareFetchRequest_t rq;
    const uint8_t *p;
    size_t n;
    static const uint8_t body[] = {0x00, 0x02, 'm',        /* GroupId null, MemberId "m" */
                                   0,    0,    0,    5,    /* ShareSessionEpoch */
                                   0,    0,    0x01, 0xf4, /* MaxWaitMs */
                                   0,    0,    0,    1,    /* MinBytes */
                                   0,    0x10, 0,    0,    /* MaxBytes */
                                   0,    0,    0x01, 0xf4, /* MaxRecords */
                                   0,    0,    0x01, 0xf4, /* BatchSize */
                                   0x01, 0x01, 0x00};      /* Topics [], ForgottenTopicsData [], no tags */
    p = body;
    n = sizeof(body);
    ASSERT_EQ(decode_buf(&gr_ShareFetchRequest_desc, 1, p, n, &a, &rq, NULL), GR_ERR_NONE);
    ASSERT(gr_str_is_null(rq.GroupId));
    ASSERT(gr_str_eq_c(rq.MemberId, "m"));
    ASSERT_EQ(rq.ShareSessionEpoch, 5);
    ASSERT_EQ(rq.MaxWaitMs, 500);
    ASSERT_EQ(rq.MinBytes, 1);
    ASSERT_EQ(rq.MaxBytes, 0x100000);
    ASSERT_EQ(rq.MaxRecords, 500);
    ASSERT_EQ(rq.BatchSize, 500);
    ASSERT_EQ(rq.Topics.n, 0);
    ASSERT_EQ(rq.ForgottenTopicsData.n, 0);
    ASSERT_EQ(rq.ShareAcquireMode, 0); /* v2 only: the default */
    expect_encoding(&gr_ShareFetchRequest_desc, 1, &rq, body, sizeof(body));
    /* MemberId is nullable too, so 0x00 decodes; the non-nullable ClientSoftwareName is not. */
    gr_ApiVersionsRequest_t av;
    ASSERT_EQ(decode_buf(&gr_ApiVersionsRequest_desc, 3, BYTES(0x00, 0x01, 0x00), &a, &av, NULL), GR_ERR__MALFORMED);
    gr_arena_free(&a);
}

/* ApiVersions v3 response: known tags are written only when not default and
 * merged in tag order with unknown ones, which survive a decode. */
static void test_tagged_fields(void) {
    gr_arena_t a;
    gr_arena_init(&a);
    gr_ApiVersionsResponse_t rs;
    gr_struct_init(&gr_ApiVersionsResponse_sd, &rs);
    rs.ApiKeys.n = 1;
    rs.ApiKeys.v = gr_struct_alloc(&a, &gr_ApiVersionsResponse_ApiVersion_sd, 1);
    rs.ApiKeys.v[0] = (gr_ApiVersionsResponse_ApiVersion_t){.ApiKey = 18, .MinVersion = 0, .MaxVersion = 4};
    ASSERT_EQ(rs.FinalizedFeaturesEpoch, -1);
    expect_encoding(&gr_ApiVersionsResponse_desc, 3, &rs, BYTES(0, 0, 2, 0, 18, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0));
    rs.FinalizedFeaturesEpoch = 7;
    gr_raw_tag_t unk = {.tag = 9, .len = 2, .ptr = (const uint8_t *)"ab"};
    rs._unknown_tags = (gr_raw_tags_t){&unk, 1};
    static const uint8_t want[] = {0, 0, 2, 0, 18, 0, 0, 0, 4, 0, 0, 0, 0,   0,  2,
                                   1, 8, 0, 0, 0,  0, 0, 0, 0, 7, 9, 2, 'a', 'b'};
    expect_encoding(&gr_ApiVersionsResponse_desc, 3, &rs, want, sizeof(want));
    gr_ApiVersionsResponse_t back;
    ASSERT_EQ(decode_buf(&gr_ApiVersionsResponse_desc, 3, want, sizeof(want), &a, &back, NULL), GR_ERR_NONE);
    ASSERT_EQ(back.FinalizedFeaturesEpoch, 7);
    ASSERT_EQ(back._unknown_tags.n, 1);
    ASSERT_EQ(back._unknown_tags.v[0].tag, 9);
    ASSERT_EQ(back.ApiKeys.v[0].MaxVersion, 4);
    ASSERT_EQ(back.SupportedFeatures.n, 0);
    expect_encoding(&gr_ApiVersionsResponse_desc, 3, &back, want, sizeof(want));
    /* A known tag whose value overruns its size is malformed, not incomplete. */
    static const uint8_t bad[] = {0, 0, 1, 0, 0, 0, 0, 1, 1, 4, 0, 0, 0, 0, 0, 0, 7};
    ASSERT_EQ(decode_buf(&gr_ApiVersionsResponse_desc, 3, bad, sizeof(bad), &a, &back, NULL), GR_ERR__MALFORMED);
    gr_arena_free(&a);
}

static void test_hostile_inputs(void) {
    gr_arena_t a;
    gr_arena_init(&a);
    a.limit = 1 << 16;
    gr_MetadataRequest_t md;
    /* v4: int32 count 0x7fffffff topics in a 5-byte body: rejected before allocating. */
    ASSERT_EQ(decode_buf(&gr_MetadataRequest_desc, 4, BYTES(0x7f, 0xff, 0xff, 0xff, 0), &a, &md, NULL),
              GR_ERR__INCOMPLETE);
    ASSERT_EQ(decode_buf(&gr_MetadataRequest_desc, 4, BYTES(0xff, 0xff, 0xff, 0xfe, 0), &a, &md, NULL),
              GR_ERR__MALFORMED);
    /* v12: a compact count near 2^32. */
    ASSERT_EQ(decode_buf(&gr_MetadataRequest_desc, 12, BYTES(0xfe, 0xff, 0xff, 0xff, 0x0f, 0), &a, &md, NULL),
              GR_ERR__MALFORMED);
    ASSERT_EQ(decode_buf(&gr_MetadataRequest_desc, 12, BYTES(0xfe, 0xff, 0xff, 0x7f, 0), &a, &md, NULL),
              GR_ERR__INCOMPLETE);
    /* v4: a null topic array is allowed (all topics), a negative string length is not. */
    ASSERT_EQ(decode_buf(&gr_MetadataRequest_desc, 4, BYTES(0xff, 0xff, 0xff, 0xff, 0), &a, &md, NULL), GR_ERR_NONE);
    ASSERT_EQ(md.Topics.n, -1);
    ASSERT_EQ(decode_buf(&gr_MetadataRequest_desc, 4, BYTES(0, 0, 0, 1, 0xff, 0xfe, 0), &a, &md, NULL),
              GR_ERR__MALFORMED);
    /* a huge tag count and a tag size beyond the end */
    gr_ApiVersionsRequest_t av;
    ASSERT_EQ(decode_buf(&gr_ApiVersionsRequest_desc, 3, BYTES(1, 1, 0xff, 0xff, 0x03), &a, &av, NULL),
              GR_ERR__INCOMPLETE);
    ASSERT_EQ(decode_buf(&gr_ApiVersionsRequest_desc, 3, BYTES(1, 1, 1, 5, 9, 0), &a, &av, NULL), GR_ERR__INCOMPLETE);
    /* out-of-range version */
    gr_ProduceRequest_t pr;
    ASSERT_EQ(decode_buf(&gr_ProduceRequest_desc, 2, BYTES(0), &a, &pr, NULL), GR_ERR__MALFORMED);
    ASSERT(a.total < (1 << 16));
    gr_arena_free(&a);
}

static void truncation_one(const gr_msg_desc_t *m, int16_t ver) {
    gr_arena_t a;
    gr_wbuf_t wb;
    gr_arena_init(&a);
    gr_wbuf_init(&wb);
    void *obj = gr_arena_alloc(&a, m->body->size);
    fill_struct(&a, m->body, obj, ver, gr_msg_flexible(m, ver), 0);
    gr_encode(m, ver, obj, &wb);
    for (size_t n = 0; n < wb.len; n++) {
        gr_arena_t a2;
        gr_arena_init(&a2);
        uint8_t *copy = malloc(n ? n : 1); /* exact-size copy so ASan sees any overread */
        memcpy(copy, wb.mem, n);
        void *obj2 = gr_arena_alloc(&a2, m->body->size);
        gr_err_t err = decode_buf(m, ver, copy, n, &a2, obj2, NULL);
        if (err != GR_ERR__INCOMPLETE) GR__FAIL("%s v%d prefix %zu/%zu: %s", m->name, ver, n, wb.len, gr_err_name(err));
        free(copy);
        gr_arena_free(&a2);
    }
    gr_wbuf_free(&wb);
    gr_arena_free(&a);
}

/* gr_wbuf_printf appends text of any length, without the NUL. */
static void test_wbuf_printf(void) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_wbuf_put(&wb, "a", 1);
    gr_wbuf_printf(&wb, "%d-%s", 42, "x");
    ASSERT_EQ(wb.len, 5);
    ASSERT_MEMEQ(wb.mem, "a42-x", 5);
    char big[3000];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    gr_wbuf_printf(&wb, "[%s]", big);
    ASSERT_EQ(wb.len, 5 + 2 + sizeof(big) - 1);
    ASSERT_EQ(wb.mem[wb.len - 1], ']');
    gr_wbuf_printf(&wb, "%s", ""); /* nothing */
    ASSERT_EQ(wb.len, 5 + 2 + sizeof(big) - 1);
    gr_wbuf_free(&wb);
}

static void test_truncation(void) {
    const gr_msg_desc_t *ms[] = {&gr_ProduceRequest_desc,
                                 &gr_ShareFetchRequest_desc,
                                 &gr_MetadataRequest_desc,
                                 &gr_FetchResponse_desc,
                                 &gr_ApiVersionsResponse_desc,
                                 &gr_ShareAcknowledgeRequest_desc,
                                 &gr_ConsumerGroupHeartbeatResponse_desc,
                                 &gr_DescribeTopicPartitionsRequest_desc};
    for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
        for (int16_t v = ms[i]->min_ver; v <= ms[i]->max_ver; v++)
            for (int k = 0; k < 4; k++) truncation_one(ms[i], v);
}

static void run_kat_tests(void) {
    RUN_TEST(test_apiversions_v3_request);
    RUN_TEST(test_varints);
    RUN_TEST(test_wbuf_printf);
    RUN_TEST(test_compact_null_string);
    RUN_TEST(test_tagged_fields);
    RUN_TEST(test_hostile_inputs);
    RUN_TEST(test_truncation);
}

int main(void) {
    RUN_TEST(test_api_tables);
    RUN_TEST(test_roundtrip_all);
    run_kat_tests();
    return 0;
}
