/* Consumer-group store records: see records.h. */
#include <string.h>

#include "cgroup/records.h"

void gr_cg_rec_group_key(gr_wbuf_t *k, const char *group_id) {
    gr_wbuf_i8(k, GR_CG_REC_GROUP);
    gr_wbuf_put(k, group_id, strlen(group_id));
}

void gr_cg_rec_group_value(gr_wbuf_t *v, const char *protocol_type, int32_t generation) {
    gr_wbuf_i8(v, 0);
    gr_wbuf_i32(v, generation);
    gr_wbuf_put(v, protocol_type, strlen(protocol_type));
}

void gr_cg_rec_offset_key(gr_wbuf_t *k, const char *group_id, const char *topic, int32_t partition) {
    gr_wbuf_i8(k, GR_CG_REC_OFFSET);
    gr_wbuf_put(k, group_id, strlen(group_id) + 1);
    gr_wbuf_put(k, topic, strlen(topic) + 1);
    gr_wbuf_i32(k, partition);
}

void gr_cg_rec_txn_offset_key(gr_wbuf_t *k, const char *group_id, const char *topic, int32_t partition, int64_t pid) {
    gr_wbuf_i8(k, GR_CG_REC_TXN_OFFSET);
    gr_wbuf_put(k, group_id, strlen(group_id) + 1);
    gr_wbuf_put(k, topic, strlen(topic) + 1);
    gr_wbuf_i32(k, partition);
    gr_wbuf_i64(k, pid);
}

void gr_cg_rec_offset_value(gr_wbuf_t *v, const gr_cg_offset_t *o) {
    gr_wbuf_i8(v, 0);
    gr_wbuf_i64(v, o->offset);
    gr_wbuf_i32(v, o->leader_epoch);
    gr_wbuf_i64(v, o->commit_ms);
    gr_wbuf_i64(v, o->expire_ms);
    gr_wbuf_put(v, o->metadata, strlen(o->metadata));
}

gr_err_t gr_cg_rec_decode_consumer(const uint8_t *key, size_t kl, const uint8_t *val, size_t vl, gr_arena_t *a,
                                   gr_cg_rec_t *out, const char **why);

static int64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return (int64_t)v;
}

static int32_t be32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static char *dup(gr_arena_t *a, const void *p, size_t n) { return gr_arena_strndup(a, (const char *)p, n); }

static gr_err_t bad(const char **why, const char *w) {
    if (why) *why = w;
    return GR_ERR__MALFORMED;
}

static gr_err_t decode_offset(const uint8_t *key, size_t kl, const uint8_t *val, size_t vl, gr_arena_t *a,
                              gr_cg_rec_t *out, const char **why) {
    const uint8_t *p = key + 1, *end = key + kl;
    const uint8_t *z1 = memchr(p, 0, (size_t)(end - p));
    const uint8_t *z2 = z1 ? memchr(z1 + 1, 0, (size_t)(end - z1 - 1)) : NULL;
    size_t tail = key[0] == GR_CG_REC_TXN_OFFSET ? 12 : 4;
    if (!z2 || (size_t)(end - z2 - 1) != tail || z1 == p)
        return bad(why, "offset key: group \\0 topic \\0 partition (producer id) expected");
    if (vl < 29 || val[0] != 0) return bad(why, "offset value: version 0 and 28 bytes expected");
    if (memchr(val + 29, 0, vl - 29)) return bad(why, "offset value: NUL in the metadata");
    out->type = key[0];
    if (tail == 12) out->pid = be64(z2 + 5);
    out->group_id = dup(a, p, (size_t)(z1 - p));
    out->topic = dup(a, z1 + 1, (size_t)(z2 - z1 - 1));
    out->partition = be32(z2 + 1);
    out->offset =
        (gr_cg_offset_t){be64(val + 1), be32(val + 9), dup(a, val + 29, vl - 29), be64(val + 13), be64(val + 21)};
    return GR_ERR_NONE;
}

gr_err_t gr_cg_rec_decode(const uint8_t *key, size_t kl, const uint8_t *val, size_t vl, gr_arena_t *a, gr_cg_rec_t *out,
                          const char **why) {
    memset(out, 0, sizeof(*out));
    if (kl < 2 || !val) return bad(why, "short key or no value");
    if (key[0] == GR_CG_REC_OFFSET || key[0] == GR_CG_REC_TXN_OFFSET)
        return decode_offset(key, kl, val, vl, a, out, why);
    if (key[0] == GR_CG_REC_CGROUP || key[0] == GR_CG_REC_CMEMBER) {
        const char *w = "";
        gr_err_t e = gr_cg_rec_decode_consumer(key, kl, val, vl, a, out, &w);
        if (e && why) *why = w;
        return e;
    }
    if (key[0] != GR_CG_REC_GROUP) return bad(why, "unknown record type");
    if (memchr(key + 1, 0, kl - 1)) return bad(why, "group key: NUL in the id");
    if (vl < 5 || val[0] != 0) return bad(why, "group value: version 0 and 4 bytes expected");
    if (memchr(val + 5, 0, vl - 5)) return bad(why, "group value: NUL in the protocol type");
    out->type = GR_CG_REC_GROUP;
    out->group_id = dup(a, key + 1, kl - 1);
    out->generation = be32(val + 1);
    out->protocol_type = dup(a, val + 5, vl - 5);
    return GR_ERR_NONE;
}
