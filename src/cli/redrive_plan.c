/* The pure part of the share-group redrive: header parsing, the done set, the target
 * partition (redrive_plan.h). */
#include "redrive_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static char *dup_mem(const void *p, size_t len) {
    char *s = xmalloc(len + 1);
    if (len) memcpy(s, p, len);
    s[len] = 0;
    return s;
}

bool rd_parse_i64(const void *p, size_t len, int64_t min, int64_t max, int64_t *out) {
    const char *s = p;
    if (!s || !len || len > 20) return false;
    bool neg = s[0] == '-';
    size_t i = neg ? 1 : 0;
    if (i == len) return false;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return false;
    int64_t x = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    if (x < min || x > max) return false;
    *out = x;
    return true;
}

static bool key_is(const rd_hdr_t *h, const char *name) {
    size_t n = strlen(name);
    return h->key && h->key_len == n && !memcmp(h->key, name, n);
}

/* A text value: not null, no NUL byte (names and ids are C strings downstream). */
static bool text_ok(const rd_hdr_t *h) { return h->val && !memchr(h->val, 0, h->val_len); }

void rd_dlq_free(rd_dlq_t *d) {
    free(d->topic), free(d->group), free(d->message);
    memset(d, 0, sizeof(*d));
}

rd_parse_t rd_parse_dlq(const rd_hdr_t *h, size_t n, rd_dlq_t *out) {
    static const char *const names[] = {RD_DLQ_TOPIC, RD_DLQ_PARTITION, RD_DLQ_OFFSET,
                                        RD_DLQ_GROUP, RD_DLQ_COUNT,     RD_DLQ_MESSAGE};
    const rd_hdr_t *seen[6] = {0};
    bool repeated = false;
    memset(out, 0, sizeof(*out));
    out->delivery_count = -1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 6; k++)
            if (key_is(&h[i], names[k])) {
                if (seen[k]) repeated = true;
                seen[k] = &h[i];
            }
    if (!seen[3]) return RD_NOT_DLQ;
    if (text_ok(seen[3])) out->group = dup_mem(seen[3]->val, seen[3]->val_len);
    int64_t part, off, count = -1;
    bool ok = !repeated && out->group && seen[0] && text_ok(seen[0]) && seen[0]->val_len > 0 && seen[1] &&
              rd_parse_i64(seen[1]->val, seen[1]->val_len, 0, INT32_MAX, &part) && seen[2] &&
              rd_parse_i64(seen[2]->val, seen[2]->val_len, 0, INT64_MAX, &off) &&
              (!seen[4] || rd_parse_i64(seen[4]->val, seen[4]->val_len, 0, INT32_MAX, &count)) &&
              (!seen[5] || text_ok(seen[5]));
    if (!ok) return RD_BAD;
    out->topic = dup_mem(seen[0]->val, seen[0]->val_len);
    out->partition = (int32_t)part;
    out->offset = off;
    out->delivery_count = count;
    if (seen[5]) out->message = dup_mem(seen[5]->val, seen[5]->val_len);
    return RD_OK;
}

void rd_prov_free(rd_prov_t *p) {
    free(p->dlq_topic), free(p->dlq_topic_id), free(p->group), free(p->src_topic);
    memset(p, 0, sizeof(*p));
}

bool rd_parse_prov(const rd_hdr_t *h, size_t n, rd_prov_t *out) {
    static const char *const names[] = {RD_PROV_DLQ_TOPIC,     RD_PROV_DLQ_TOPIC_ID, RD_PROV_DLQ_PARTITION,
                                        RD_PROV_DLQ_OFFSET,    RD_PROV_GROUP,        RD_PROV_SRC_TOPIC,
                                        RD_PROV_SRC_PARTITION, RD_PROV_SRC_OFFSET};
    const rd_hdr_t *last[8] = {0};
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        if (!h[i].key || h[i].key_len < sizeof(RD_PROV_PREFIX) - 1 ||
            memcmp(h[i].key, RD_PROV_PREFIX, sizeof(RD_PROV_PREFIX) - 1))
            continue;
        for (size_t k = 0; k < 8; k++)
            if (key_is(&h[i], names[k])) last[k] = &h[i];
    }
    int64_t part, off, sp = -1, so = -1;
    if (!last[0] || !text_ok(last[0]) || !last[2] ||
        !rd_parse_i64(last[2]->val, last[2]->val_len, 0, INT32_MAX, &part) || !last[3] ||
        !rd_parse_i64(last[3]->val, last[3]->val_len, 0, INT64_MAX, &off))
        return false;
    out->dlq_topic = dup_mem(last[0]->val, last[0]->val_len);
    out->dlq_partition = (int32_t)part;
    out->dlq_offset = off;
    if (last[1] && text_ok(last[1])) out->dlq_topic_id = dup_mem(last[1]->val, last[1]->val_len);
    /* The source identity counts only when complete. */
    if (last[4] && text_ok(last[4]) && last[5] && text_ok(last[5]) && last[6] &&
        rd_parse_i64(last[6]->val, last[6]->val_len, 0, INT32_MAX, &sp) && last[7] &&
        rd_parse_i64(last[7]->val, last[7]->val_len, 0, INT64_MAX, &so)) {
        out->group = dup_mem(last[4]->val, last[4]->val_len);
        out->src_topic = dup_mem(last[5]->val, last[5]->val_len);
    } else {
        sp = so = -1;
    }
    out->src_partition = (int32_t)sp;
    out->src_offset = so;
    return true;
}

size_t rd_prov_headers(const rd_prov_t *p, int64_t delivery_count, const char *payload, const char **names,
                       const char **vals, char bufs[][24]) {
    size_t n = 0;
    names[n] = RD_PROV_DLQ_TOPIC, vals[n++] = p->dlq_topic;
    if (p->dlq_topic_id) names[n] = RD_PROV_DLQ_TOPIC_ID, vals[n++] = p->dlq_topic_id;
    snprintf(bufs[0], 24, "%d", (int)p->dlq_partition);
    names[n] = RD_PROV_DLQ_PARTITION, vals[n++] = bufs[0];
    snprintf(bufs[1], 24, "%lld", (long long)p->dlq_offset);
    names[n] = RD_PROV_DLQ_OFFSET, vals[n++] = bufs[1];
    names[n] = RD_PROV_GROUP, vals[n++] = p->group;
    names[n] = RD_PROV_SRC_TOPIC, vals[n++] = p->src_topic;
    snprintf(bufs[2], 24, "%d", (int)p->src_partition);
    names[n] = RD_PROV_SRC_PARTITION, vals[n++] = bufs[2];
    snprintf(bufs[3], 24, "%lld", (long long)p->src_offset);
    names[n] = RD_PROV_SRC_OFFSET, vals[n++] = bufs[3];
    if (delivery_count >= 0) {
        snprintf(bufs[4], 24, "%lld", (long long)delivery_count);
        names[n] = RD_PROV_COUNT, vals[n++] = bufs[4];
    }
    names[n] = RD_PROV_PAYLOAD, vals[n++] = payload;
    return n;
}

/* ---- the set: open addressing over length-prefixed keys ---- */

static uint64_t hash(const char *k, size_t len) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ULL;
    return h;
}

void rd_set_init(rd_set_t *s) { memset(s, 0, sizeof(*s)); }

void rd_set_free(rd_set_t *s) {
    for (size_t i = 0; i < s->cap; i++) free(s->slots[i]);
    free(s->slots), free(s->lens);
    memset(s, 0, sizeof(*s));
}

static size_t find(const rd_set_t *s, const char *key, size_t len) {
    size_t i = (size_t)hash(key, len) & (s->cap - 1);
    while (s->slots[i] && (s->lens[i] != len || memcmp(s->slots[i], key, len))) i = (i + 1) & (s->cap - 1);
    return i;
}

bool rd_set_has(const rd_set_t *s, const char *key, size_t len) { return s->cap && s->slots[find(s, key, len)]; }

static void grow(rd_set_t *s) {
    rd_set_t g = {.cap = s->cap ? s->cap * 2 : 64};
    g.slots = calloc(g.cap, sizeof(*g.slots));
    g.lens = calloc(g.cap, sizeof(*g.lens));
    if (!g.slots || !g.lens) abort();
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i]) {
            size_t j = find(&g, s->slots[i], s->lens[i]);
            g.slots[j] = s->slots[i], g.lens[j] = s->lens[i], g.n++;
        }
    free(s->slots), free(s->lens);
    *s = g;
}

bool rd_set_add(rd_set_t *s, const char *key, size_t len) {
    if ((s->n + 1) * 2 > s->cap) grow(s);
    size_t i = find(s, key, len);
    if (s->slots[i]) return false;
    s->slots[i] = dup_mem(key, len), s->lens[i] = len, s->n++;
    return true;
}

/* "<tag>" then each string as "<len>:<bytes>" and each number as "<n>;". */
static size_t make_key(char **buf, char tag, const char *a, const char *b, int32_t p, int64_t o) {
    size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0, size = la + lb + 80;
    *buf = xmalloc(size);
    int n = snprintf(*buf, size, "%c%zu:%s%zu:%s%d;%lld;", tag, la, a ? a : "", lb, b ? b : "", (int)p, (long long)o);
    return (size_t)n;
}

size_t rd_key_dlq(char **buf, const char *dlq_topic, int32_t partition, int64_t offset) {
    return make_key(buf, 'd', dlq_topic, NULL, partition, offset);
}

size_t rd_key_src(char **buf, const char *group, const char *topic, int32_t partition, int64_t offset) {
    return make_key(buf, 's', group, topic, partition, offset);
}

void rd_prov_mark(rd_set_t *done, const rd_prov_t *p, const char *dlq_topic, const char *dlq_topic_id) {
    if (strcmp(p->dlq_topic, dlq_topic)) return;
    if (p->dlq_topic_id && dlq_topic_id && strcmp(p->dlq_topic_id, dlq_topic_id)) return;
    char *k;
    size_t n = rd_key_dlq(&k, p->dlq_topic, p->dlq_partition, p->dlq_offset);
    rd_set_add(done, k, n);
    free(k);
    if (p->group && p->src_topic && p->src_partition >= 0 && p->src_offset >= 0) {
        n = rd_key_src(&k, p->group, p->src_topic, p->src_partition, p->src_offset);
        rd_set_add(done, k, n);
        free(k);
    }
}

rd_action_t rd_decide(rd_set_t *done, const char *dlq_topic, int32_t dlq_partition, int64_t dlq_offset,
                      const rd_dlq_t *d) {
    char *k;
    size_t n = rd_key_dlq(&k, dlq_topic, dlq_partition, dlq_offset);
    bool was = rd_set_has(done, k, n);
    free(k);
    if (was) return RD_DONE;
    n = rd_key_src(&k, d->group, d->topic, d->partition, d->offset);
    bool fresh = rd_set_add(done, k, n);
    free(k);
    return fresh ? RD_REDRIVE : RD_DUP_SRC;
}

int32_t rd_target_partition(int32_t src_partition, int32_t count, bool has_key, int32_t key_hash) {
    if (count <= 0) return -1;
    if (src_partition >= 0 && src_partition < count) return src_partition;
    if (has_key) return (int32_t)(((uint32_t)key_hash & 0x7fffffffu) % (uint32_t)count);
    return (int32_t)((uint32_t)src_partition % (uint32_t)count);
}
