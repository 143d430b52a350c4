/* Consumer-protocol group records (records.h): encoding and the bounds-checked decoder. */
#include <string.h>

#include "cgroup/records.h"

void gr_cg_rec_cgroup_key(gr_wbuf_t *k, const char *group_id) {
    gr_wbuf_i8(k, GR_CG_REC_CGROUP);
    gr_wbuf_put(k, group_id, strlen(group_id));
}

void gr_cg_rec_cgroup_value(gr_wbuf_t *v, int32_t group_epoch, int32_t assignment_epoch, uint64_t topics_hash) {
    gr_wbuf_i8(v, 0);
    gr_wbuf_i32(v, group_epoch);
    gr_wbuf_i32(v, assignment_epoch);
    gr_wbuf_i64(v, (int64_t)topics_hash);
}

void gr_cg_rec_cmember_key(gr_wbuf_t *k, const char *group_id, const char *member_id) {
    gr_wbuf_i8(k, GR_CG_REC_CMEMBER);
    gr_wbuf_put(k, group_id, strlen(group_id) + 1);
    gr_wbuf_put(k, member_id, strlen(member_id));
}

static void put_str(gr_wbuf_t *v, const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n > 32767) n = 32767;
    gr_wbuf_i16(v, s ? (int16_t)n : -1);
    if (s) gr_wbuf_put(v, s, n);
}

static void put_set(gr_wbuf_t *v, const gr_cgc_assignment_t *a) {
    int32_t n = 0;
    for (int32_t t = 0; t < a->n_topics; t++) n += a->topics[t].n;
    gr_wbuf_i32(v, n);
    for (int32_t t = 0; t < a->n_topics; t++)
        for (int32_t i = 0; i < a->topics[t].n; i++) {
            gr_wbuf_put(v, a->topics[t].topic_id.b, 16);
            gr_wbuf_i32(v, a->topics[t].partitions[i]);
        }
}

void gr_cg_rec_cmember_value(gr_wbuf_t *v, const gr_cgc_member_rec_t *m) {
    gr_wbuf_i8(v, 0);
    gr_wbuf_i32(v, m->member_epoch);
    gr_wbuf_i32(v, m->previous_epoch);
    gr_wbuf_i32(v, m->rebalance_timeout_ms);
    gr_wbuf_i8(v, (int8_t)m->state);
    const char *s[6] = {m->instance_id, m->rack_id, m->client_id, m->client_host, m->regex, m->server_assignor};
    for (int i = 0; i < 6; i++) put_str(v, s[i]);
    gr_wbuf_i32(v, m->n_topics);
    for (int32_t i = 0; i < m->n_topics; i++) put_str(v, m->topics[i]);
    put_set(v, &m->assigned);
    put_set(v, &m->revoking);
    put_set(v, &m->target);
}

/* ------------------------------------------------------------------ decoding */

typedef struct rd {
    const uint8_t *p, *end;
    gr_arena_t *a;
    bool bad;
} rd_t;

static int32_t rd_i32(rd_t *r) {
    if (r->end - r->p < 4) return r->bad = true, 0;
    int32_t v = (int32_t)((uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3]);
    r->p += 4;
    return v;
}

static const char *rd_str(rd_t *r) {
    if (r->end - r->p < 2) return r->bad = true, NULL;
    int16_t n = (int16_t)((uint16_t)r->p[0] << 8 | r->p[1]);
    r->p += 2;
    if (n < 0) return n == -1 ? NULL : (r->bad = true, NULL);
    if (r->end - r->p < n || memchr(r->p, 0, (size_t)n)) return r->bad = true, NULL;
    const char *s = gr_arena_strndup(r->a, (const char *)r->p, (size_t)n);
    r->p += n;
    return s;
}

/* A partition set into an assignment (topics grouped as they come; sorted on restore). */
static void rd_set(rd_t *r, gr_cgc_assignment_t *a) {
    int32_t n = rd_i32(r);
    if (r->bad || n < 0 || n > (r->end - r->p) / 20) {
        r->bad = true;
        return;
    }
    a->parts = gr_arena_alloc(r->a, (size_t)n * sizeof(int32_t) + 1);
    a->topics = gr_arena_alloc(r->a, (size_t)n * sizeof(*a->topics) + 1);
    for (int32_t i = 0; i < n; i++) {
        gr_uuid_t id;
        memcpy(id.b, r->p, 16);
        r->p += 16;
        a->parts[i] = rd_i32(r);
        a->topics[a->n_topics++] = (gr_cgc_tparts_t){id, &a->parts[i], 1};
    }
}

gr_err_t gr_cg_rec_decode_consumer(const uint8_t *key, size_t kl, const uint8_t *val, size_t vl, gr_arena_t *a,
                                   gr_cg_rec_t *out, const char **why);
gr_err_t gr_cg_rec_decode_consumer(const uint8_t *key, size_t kl, const uint8_t *val, size_t vl, gr_arena_t *a,
                                   gr_cg_rec_t *out, const char **why) {
    rd_t r = {val + 1, val + vl, a, false};
    if (vl < 1 || val[0] != 0) return *why = "consumer group value: version 0 expected", GR_ERR__MALFORMED;
    if (key[0] == GR_CG_REC_CGROUP) {
        if (memchr(key + 1, 0, kl - 1) || vl != 17) return *why = "cgroup record: bad key or length", GR_ERR__MALFORMED;
        out->type = GR_CG_REC_CGROUP;
        out->group_id = gr_arena_strndup(a, (const char *)key + 1, kl - 1);
        out->generation = rd_i32(&r);
        out->assignment_epoch = rd_i32(&r);
        uint64_t hi = (uint32_t)rd_i32(&r), lo = (uint32_t)rd_i32(&r);
        out->topics_hash = hi << 32 | lo;
        return GR_ERR_NONE;
    }
    const uint8_t *z = memchr(key + 1, 0, kl - 1);
    if (!z || z == key + 1 || (size_t)(z - key) + 1 >= kl || memchr(z + 1, 0, kl - (size_t)(z - key) - 1))
        return *why = "cmember key: group \\0 member expected", GR_ERR__MALFORMED;
    out->type = GR_CG_REC_CMEMBER;
    out->group_id = gr_arena_strndup(a, (const char *)key + 1, (size_t)(z - key - 1));
    gr_cgc_member_rec_t *m = &out->member;
    m->member_id = gr_arena_strndup(a, (const char *)z + 1, kl - (size_t)(z - key) - 1);
    m->member_epoch = rd_i32(&r);
    m->previous_epoch = rd_i32(&r);
    m->rebalance_timeout_ms = rd_i32(&r);
    if (r.p >= r.end) return *why = "cmember value: short", GR_ERR__MALFORMED;
    m->state = *r.p++;
    const char **s[6] = {&m->instance_id, &m->rack_id, &m->client_id, &m->client_host, &m->regex, &m->server_assignor};
    for (int i = 0; i < 6; i++) *s[i] = rd_str(&r);
    int32_t nt = rd_i32(&r);
    if (r.bad || nt < 0 || nt > (r.end - r.p) / 2 || m->state < 0 || m->state > 2)
        return *why = "cmember value: bad fields", GR_ERR__MALFORMED;
    const char **topics = gr_arena_alloc(a, (size_t)nt * sizeof(char *) + 1);
    for (int32_t i = 0; i < nt; i++)
        if (!(topics[i] = rd_str(&r))) r.bad = true;
    m->topics = topics;
    m->n_topics = nt;
    rd_set(&r, &m->assigned);
    rd_set(&r, &m->revoking);
    rd_set(&r, &m->target);
    if (r.bad || r.p != r.end) return *why = "cmember value: bad or trailing bytes", GR_ERR__MALFORMED;
    return GR_ERR_NONE;
}
