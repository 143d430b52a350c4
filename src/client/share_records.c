/* The share consumer's data: acknowledgement lists, decoding a ShareFetch partition's
 * Records into records (only offsets inside AcquiredRecords, KIP-932 client rule;
 * every other acquired offset is acknowledged as GAP, a corrupt batch's offsets as
 * REJECT), batches, acknowledgement results and the public accessors. */
#include <stdlib.h>
#include <string.h>

#include "client/share_int.h"
#include "proto/records.h"

/* ---- acknowledgement lists ---- */

void gr__acks_add(gr__acks_t *a, int64_t off, int8_t type) {
    /* Offsets mostly arrive in ascending order: one above every offset listed cannot be a
     * repeat, so only the others are searched (a whole batch was quadratic before). */
    if (a->n && off <= a->max) {
        for (size_t i = a->n; i-- > 0;) {
            if (a->off[i] == off) { /* a newer acknowledgement of the same offset wins */
                a->type[i] = type;
                return;
            }
        }
    }
    if (!a->n || off > a->max) a->max = off;
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->off = realloc(a->off, a->cap * sizeof(*a->off));
        a->type = realloc(a->type, a->cap * sizeof(*a->type));
        if (!a->off || !a->type) abort();
    }
    a->off[a->n] = off;
    a->type[a->n++] = type;
}

void gr__acks_free(gr__acks_t *a) {
    free(a->off);
    free(a->type);
    memset(a, 0, sizeof(*a));
}

void gr__acks_sort(gr__acks_t *a) {
    for (size_t i = 1; i < a->n; i++) { /* insertion sort: lists are short and mostly sorted */
        int64_t o = a->off[i];
        int8_t t = a->type[i];
        size_t j = i;
        for (; j > 0 && a->off[j - 1] > o; j--) {
            a->off[j] = a->off[j - 1];
            a->type[j] = a->type[j - 1];
        }
        a->off[j] = o;
        a->type[j] = t;
    }
}

int32_t gr__acks_batches(const gr__acks_t *a, gr_arena_t *ar, int64_t **first, int64_t **last, int8_t ***types,
                         int32_t **ntypes) {
    size_t cap = a->n ? a->n : 1;
    *first = gr_arena_alloc(ar, cap * sizeof(int64_t));
    *last = gr_arena_alloc(ar, cap * sizeof(int64_t));
    *types = gr_arena_alloc(ar, cap * sizeof(int8_t *));
    *ntypes = gr_arena_alloc(ar, cap * sizeof(int32_t));
    int32_t nb = 0;
    for (size_t i = 0; i < a->n;) {
        size_t j = i + 1;
        bool uniform = true;
        while (j < a->n && a->off[j] == a->off[j - 1] + 1) {
            uniform &= a->type[j] == a->type[i];
            j++;
        }
        (*first)[nb] = a->off[i];
        (*last)[nb] = a->off[j - 1];
        size_t nt = uniform ? 1 : j - i;
        (*types)[nb] = gr_arena_alloc(ar, nt);
        memcpy((*types)[nb], a->type + i, nt);
        (*ntypes)[nb] = (int32_t)nt;
        nb++;
        i = j;
    }
    return nb;
}

/* ---- record lists and batches ---- */

void gr__rlist_push(gr__rlist_t *l, gr_share_record_t *r) {
    r->next = NULL;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
}

void gr__rlist_free(gr__rlist_t *l) {
    for (gr_share_record_t *r = l->head, *n; r; r = n) {
        n = r->next;
        free(r);
    }
    l->head = l->tail = NULL;
}

void gr__batch_push(gr_share_batch_t *b, gr_share_record_t *r) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->v = realloc(b->v, b->cap * sizeof(*b->v));
        if (!b->v) abort();
    }
    b->v[b->n++] = r;
}

/* ---- decoding ---- */

/* One allocation holds the record, its header table and the key/value/header bytes. */
static gr_share_record_t *copy_record(gr__spart_t *part, const gr_record_t *rec, int16_t dc) {
    size_t need = sizeof(gr_share_record_t) + (size_t)rec->header_count * sizeof(gr__shdr_t);
    need += (rec->key_len > 0 ? (size_t)rec->key_len : 0) + (rec->value_len > 0 ? (size_t)rec->value_len : 0);
    need += rec->headers_size + (size_t)rec->header_count; /* header keys get a NUL */
    gr_share_record_t *r = calloc(1, need);
    if (!r) abort();
    r->part = part;
    r->offset = rec->offset;
    r->timestamp = rec->timestamp;
    r->delivery_count = dc;
    r->ack = GR__ACK_NONE;
    r->headers = (gr__shdr_t *)(r + 1);
    uint8_t *p = (uint8_t *)(r->headers + rec->header_count);
    r->key_len = rec->key_len;
    if (rec->key_len >= 0) {
        memcpy(p, rec->key, (size_t)rec->key_len);
        r->key = p;
        p += rec->key_len;
    }
    r->value_len = rec->value_len;
    if (rec->value_len >= 0) {
        memcpy(p, rec->value, (size_t)rec->value_len);
        r->value = p;
        p += rec->value_len;
    }
    gr_header_iter_t hi;
    gr_header_t h;
    gr_header_iter_init(&hi, rec);
    while (r->n_headers < (uint32_t)rec->header_count && gr_header_iter_next(&hi, &h)) {
        gr__shdr_t *sh = &r->headers[r->n_headers++];
        memcpy(p, h.key, (size_t)h.key_len);
        p[h.key_len] = 0;
        sh->key = (const char *)p;
        p += h.key_len + 1;
        sh->value_len = h.value_len;
        if (h.value_len >= 0) {
            memcpy(p, h.value, (size_t)h.value_len);
            sh->value = p;
            p += h.value_len;
        }
    }
    return r;
}

typedef struct decode_ctx {
    const int64_t *first, *last;
    const int16_t *dc;
    size_t n;
    int64_t *done; /* offsets delivered or rejected, ascending */
    size_t n_done, cap_done;
} decode_ctx_t;

static int range_of(const decode_ctx_t *d, int64_t off) {
    for (size_t i = 0; i < d->n; i++)
        if (off >= d->first[i] && off <= d->last[i]) return (int)i;
    return -1;
}

static void mark_done(decode_ctx_t *d, int64_t off) {
    if (d->n_done == d->cap_done) {
        d->cap_done = d->cap_done ? d->cap_done * 2 : 256;
        d->done = realloc(d->done, d->cap_done * sizeof(int64_t));
        if (!d->done) abort();
    }
    d->done[d->n_done++] = off;
}

/* A batch that fails its CRC or cannot be decoded: its acquired offsets are rejected. */
static void reject_batch(gr__spart_t *part, decode_ctx_t *d, const gr_batch_view_t *bv) {
    int64_t last = bv->base_offset + (bv->has_header ? bv->last_offset_delta : 0);
    for (int64_t o = bv->base_offset; o <= last; o++) {
        if (range_of(d, o) < 0) continue;
        gr__acks_add(&part->pending, o, GR_ACK_REJECT);
        mark_done(d, o);
    }
}

static void decode_batch(gr_share_consumer_t *c, gr__spart_t *part, decode_ctx_t *d, const gr_batch_view_t *bv) {
    if (bv->magic != 2 || !gr_batch_crc_ok(bv)) {
        reject_batch(part, d, bv);
        return;
    }
    if (bv->attributes & GR_BATCH_ATTR_CONTROL) return; /* its offsets become GAPs */
    gr_record_iter_t ri;
    if (gr_record_iter_init(&ri, bv, &c->scratch, 0, NULL, 0)) {
        reject_batch(part, d, bv);
        return;
    }
    gr_record_t rec;
    while (gr_record_iter_next(&ri, &rec, NULL, 0) == GR_ERR_NONE) {
        int k = range_of(d, rec.offset);
        if (k < 0) continue; /* inside the batch but acquired by someone else */
        gr__rlist_push(&c->fetched, copy_record(part, &rec, d->dc[k]));
        mark_done(d, rec.offset);
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool was_done(const decode_ctx_t *d, int64_t off) {
    return d->n_done && bsearch(&off, d->done, d->n_done, sizeof(int64_t), cmp_i64) != NULL;
}

void gr__share_decode(gr_share_consumer_t *c, gr__spart_t *part, const uint8_t *recs, size_t len, const int64_t *first,
                      const int64_t *last, const int16_t *dc, size_t n_ranges) {
    decode_ctx_t d = {first, last, dc, n_ranges, NULL, 0, 0};
    int64_t gap_limit = INT64_MAX; /* offsets past a truncated batch are released, not GAPped */
    gr_batch_iter_t it;
    gr_batch_iter_init(&it, recs, recs ? len : 0);
    gr_batch_view_t bv;
    for (;;) {
        gr_err_t err = gr_batch_iter_next(&it, &bv, NULL, 0);
        if (err == GR_ERR__NOENT) break;
        if (err) {
            size_t at = gr_batch_iter_offset(&it);
            if (len - at >= 8) {
                const uint8_t *p = recs + at;
                int64_t base = 0;
                for (int i = 0; i < 8; i++) base = (base << 8) | p[i];
                gap_limit = base;
            } else {
                gap_limit = INT64_MIN;
            }
            break;
        }
        decode_batch(c, part, &d, &bv);
    }
    if (d.n_done) qsort(d.done, d.n_done, sizeof(int64_t), cmp_i64);
    for (size_t i = 0; i < n_ranges; i++) {
        for (int64_t o = first[i]; o <= last[i]; o++) {
            if (was_done(&d, o)) continue;
            gr__acks_add(&part->pending, o, o < gap_limit ? GR__ACK_GAP : GR_ACK_RELEASE);
        }
    }
    free(d.done);
}

/* ---- results ---- */

void gr__result_add(gr_share_ack_result_t *res, const gr__spart_t *part, gr_err_t err, const char *msg,
                    const gr__acks_t *acks) {
    if (res->n == res->cap) {
        res->cap = res->cap ? res->cap * 2 : 8;
        res->rows = realloc(res->rows, res->cap * sizeof(*res->rows));
        if (!res->rows) abort();
    }
    gr__arow_t *row = &res->rows[res->n++];
    row->topic = strdup(part->topic);
    row->partition = part->partition;
    row->err = err;
    row->errstr = strdup(err ? (msg && *msg ? msg : gr_err_str(err)) : "");
    row->n = 0;
    row->off = malloc((acks->n ? acks->n : 1) * sizeof(int64_t));
    if (!row->topic || !row->errstr || !row->off) abort();
    for (size_t i = 0; i < acks->n; i++)
        if (acks->type[i] != GR__ACK_GAP) row->off[row->n++] = acks->off[i];
}

void gr__result_clear(gr_share_ack_result_t *res) {
    for (size_t i = 0; i < res->n; i++) {
        free(res->rows[i].topic);
        free(res->rows[i].errstr);
        free(res->rows[i].off);
    }
    free(res->rows);
    memset(res, 0, sizeof(*res));
}

size_t gr_share_ack_result_count(const gr_share_ack_result_t *res) { return res ? res->n : 0; }
const char *gr_share_ack_result_topic(const gr_share_ack_result_t *res, size_t i) {
    return i < gr_share_ack_result_count(res) ? res->rows[i].topic : NULL;
}
int32_t gr_share_ack_result_partition(const gr_share_ack_result_t *res, size_t i) {
    return i < gr_share_ack_result_count(res) ? res->rows[i].partition : -1;
}
gr_err_t gr_share_ack_result_error(const gr_share_ack_result_t *res, size_t i) {
    return i < gr_share_ack_result_count(res) ? res->rows[i].err : GR_ERR__NOENT;
}
const char *gr_share_ack_result_errstr(const gr_share_ack_result_t *res, size_t i) {
    return i < gr_share_ack_result_count(res) ? res->rows[i].errstr : "";
}
size_t gr_share_ack_result_offsets(const gr_share_ack_result_t *res, size_t i, const int64_t **offsets) {
    if (i >= gr_share_ack_result_count(res)) {
        if (offsets) *offsets = NULL;
        return 0;
    }
    if (offsets) *offsets = res->rows[i].off;
    return res->rows[i].n;
}
void gr_share_ack_result_destroy(gr_share_ack_result_t *res) {
    if (!res) return;
    gr__result_clear(res);
    free(res);
}

/* ---- batch and record accessors ---- */

size_t gr_share_batch_count(const gr_share_batch_t *b) { return b ? b->n : 0; }
const gr_share_record_t *gr_share_batch_record(const gr_share_batch_t *b, size_t i) {
    return b && i < b->n ? b->v[i] : NULL;
}
const char *gr_share_record_topic(const gr_share_record_t *r) { return r->part->topic; }
int32_t gr_share_record_partition(const gr_share_record_t *r) { return r->part->partition; }
int64_t gr_share_record_offset(const gr_share_record_t *r) { return r->offset; }
int64_t gr_share_record_timestamp(const gr_share_record_t *r) { return r->timestamp; }
int16_t gr_share_record_delivery_count(const gr_share_record_t *r) { return r->delivery_count; }
const void *gr_share_record_key(const gr_share_record_t *r, size_t *len) {
    if (len) *len = r->key_len > 0 ? (size_t)r->key_len : 0;
    return r->key_len >= 0 ? (const void *)(r->key ? r->key : (const uint8_t *)"") : NULL;
}
const void *gr_share_record_value(const gr_share_record_t *r, size_t *len) {
    if (len) *len = r->value_len > 0 ? (size_t)r->value_len : 0;
    return r->value_len >= 0 ? (const void *)(r->value ? r->value : (const uint8_t *)"") : NULL;
}
size_t gr_share_record_header_count(const gr_share_record_t *r) { return r->n_headers; }
gr_err_t gr_share_record_header(const gr_share_record_t *r, size_t i, const char **key, const void **value,
                                size_t *value_len) {
    if (i >= r->n_headers) return GR_ERR__NOENT;
    const gr__shdr_t *h = &r->headers[i];
    if (key) *key = h->key;
    if (value) *value = h->value_len >= 0 ? (const void *)(h->value ? h->value : (const uint8_t *)"") : NULL;
    if (value_len) *value_len = h->value_len > 0 ? (size_t)h->value_len : 0;
    return GR_ERR_NONE;
}
