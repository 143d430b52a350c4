/* Transaction log records: see txn_record.h. */
#include <string.h>

#include "txn/txn_record.h"

void gr_txn_rec_key(gr_wbuf_t *k, const char *id, size_t id_len) {
    gr_wbuf_i16(k, 0);
    gr_wbuf_put(k, id, id_len);
}

void gr_txn_rec_value(gr_wbuf_t *v, const gr_txn_meta_t *m) {
    gr_wbuf_i16(v, 0);
    gr_wbuf_i64(v, m->pid);
    gr_wbuf_i64(v, m->prev_pid);
    gr_wbuf_i64(v, m->next_pid);
    gr_wbuf_i16(v, m->epoch);
    gr_wbuf_i16(v, m->last_epoch);
    gr_wbuf_i32(v, m->timeout_ms);
    gr_wbuf_i8(v, (int8_t)m->state);
    gr_wbuf_i64(v, m->start_ms);
    gr_wbuf_i64(v, m->update_ms);
    gr_wbuf_i8(v, m->tv);
    gr_wbuf_i32(v, m->n_parts);
    for (int32_t i = 0; i < m->n_parts; i++) {
        size_t n = strlen(m->parts[i].topic);
        gr_wbuf_i16(v, (int16_t)n);
        gr_wbuf_put(v, m->parts[i].topic, n);
        gr_wbuf_i32(v, m->parts[i].partition);
    }
}

static gr_err_t bad(const char **why, const char *w) {
    if (why) *why = w;
    return GR_ERR__MALFORMED;
}

gr_err_t gr_txn_rec_decode_key(const uint8_t *key, size_t kl, const char **id, size_t *id_len, const char **why) {
    if (kl < 3 || kl > 2 + 32767) return bad(why, "key: version and a transactional id expected");
    if (key[0] != 0 || key[1] != 0) return bad(why, "key: unknown version");
    if (memchr(key + 2, 0, kl - 2)) return bad(why, "key: NUL in the transactional id");
    *id = (const char *)key + 2;
    *id_len = kl - 2;
    return GR_ERR_NONE;
}

typedef struct rd {
    const uint8_t *p, *end;
} rd_t;

static bool need(const rd_t *r, size_t n) { return (size_t)(r->end - r->p) >= n; }

static uint64_t be(rd_t *r, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | *r->p++;
    return v;
}

enum { FIXED = 2 + 8 * 3 + 2 * 2 + 4 + 1 + 8 * 2 + 1 + 4 };

gr_err_t gr_txn_rec_decode_value(const uint8_t *val, size_t vl, gr_txn_meta_t *m, const char **why) {
    gr_txn_meta_init(m);
    rd_t r = {val, val + vl};
    if (!val || !need(&r, FIXED)) return bad(why, "value: too short");
    if (be(&r, 2) != 0) return bad(why, "value: unknown version");
    m->pid = (int64_t)be(&r, 8);
    m->prev_pid = (int64_t)be(&r, 8);
    m->next_pid = (int64_t)be(&r, 8);
    m->epoch = (int16_t)be(&r, 2);
    m->last_epoch = (int16_t)be(&r, 2);
    m->timeout_ms = (int32_t)be(&r, 4);
    int state = (int8_t)be(&r, 1);
    m->start_ms = (int64_t)be(&r, 8);
    m->update_ms = (int64_t)be(&r, 8);
    m->tv = (int8_t)be(&r, 1);
    int32_t n = (int32_t)be(&r, 4);
    if (state < 0 || state > GR_TXN_COMPLETE_ABORT) return bad(why, "value: bad state");
    m->state = (gr_txn_state_t)state;
    if (m->pid < 0 || m->timeout_ms <= 0 || m->tv < 0 || m->tv > 2) return bad(why, "value: bad field");
    if (n < 0 || (size_t)n > vl / 7) return bad(why, "value: bad partition count");
    for (int32_t i = 0; i < n; i++) {
        if (!need(&r, 2)) return bad(why, "value: truncated partition");
        int16_t tl = (int16_t)be(&r, 2);
        if (tl <= 0 || !need(&r, (size_t)tl + 4)) return bad(why, "value: truncated topic");
        if (memchr(r.p, 0, (size_t)tl)) return bad(why, "value: NUL in a topic");
        char topic[32768];
        memcpy(topic, r.p, (size_t)tl);
        topic[tl] = 0;
        r.p += tl;
        int32_t part = (int32_t)be(&r, 4);
        if (part < 0 || !gr_txn_meta_add(m, topic, part)) return bad(why, "value: bad or repeated partition");
    }
    if (r.p != r.end) return bad(why, "value: trailing bytes");
    return GR_ERR_NONE;
}
