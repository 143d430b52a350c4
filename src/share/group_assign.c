/* The small assignment-set helpers the share-group code shares (group.c and the
 * SimpleAssignor in group_assign_simple.c): allocation, canonical assignment sets and
 * Java's String.hashCode. */
#include <stdlib.h>
#include <string.h>

#include "share/group_int.h"

/* ---- allocation and assignment-set helpers ---- */

void *gr__sg_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

void *gr__sg_xcalloc(size_t nmemb, size_t size) {
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p) abort();
    return p;
}

void *gr__sg_xrealloc(void *p, size_t nmemb, size_t size) {
    if (size && nmemb > SIZE_MAX / size) abort();
    size_t bytes = nmemb * size;
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) abort();
    return q;
}

char *gr__sg_xstrdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = gr__sg_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

int gr__sg_uuid_cmp(const gr_uuid_t *a, const gr_uuid_t *b) { return memcmp(a->b, b->b, sizeof(a->b)); }

static int tp_cmp(const void *x, const void *y) {
    const gr__sg_tp_t *a = x, *b = y;
    int c = gr__sg_uuid_cmp(&a->topic_id, &b->topic_id);
    if (c) return c;
    return (a->partition > b->partition) - (a->partition < b->partition);
}

void gr__sg_assignment_from_tps(gr__sg_tp_t *tps, size_t n, gr_sg_assignment_t *out) {
    memset(out, 0, sizeof(*out));
    if (!n) return;
    qsort(tps, n, sizeof(*tps), tp_cmp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (!w || tp_cmp(&tps[w - 1], &tps[i])) tps[w++] = tps[i];
    int32_t nt = 0;
    for (size_t i = 0; i < w; i++)
        if (!i || gr__sg_uuid_cmp(&tps[i - 1].topic_id, &tps[i].topic_id)) nt++;
    out->topics = gr__sg_xcalloc((size_t)nt, sizeof(*out->topics));
    out->n_topics = nt;
    gr_sg_topic_parts_t *t = NULL;
    for (size_t i = 0; i < w; i++) {
        if (!i || gr__sg_uuid_cmp(&tps[i - 1].topic_id, &tps[i].topic_id)) {
            t = t ? t + 1 : out->topics;
            t->topic_id = tps[i].topic_id;
            size_t j = i;
            while (j < w && !gr__sg_uuid_cmp(&tps[j].topic_id, &tps[i].topic_id)) j++;
            t->partitions = gr__sg_xmalloc((j - i) * sizeof(int32_t));
        }
        t->partitions[t->n_partitions++] = tps[i].partition;
    }
}

void gr__sg_assignment_to_tps(const gr_sg_assignment_t *a, gr__sg_tp_t **tps, size_t *n, size_t *cap) {
    for (int32_t i = 0; a && i < a->n_topics; i++)
        for (int32_t j = 0; j < a->topics[i].n_partitions; j++) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 16;
                *tps = gr__sg_xrealloc(*tps, *cap, sizeof(**tps));
            }
            (*tps)[(*n)++] = (gr__sg_tp_t){a->topics[i].topic_id, a->topics[i].partitions[j]};
        }
}

void gr_sg_assignment_free(gr_sg_assignment_t *a) {
    if (!a) return;
    for (int32_t i = 0; i < a->n_topics; i++) free(a->topics[i].partitions);
    free(a->topics);
    a->topics = NULL;
    a->n_topics = 0;
}

void gr_sg_assignment_copy(gr_sg_assignment_t *dst, const gr_sg_assignment_t *src) {
    memset(dst, 0, sizeof(*dst));
    if (!src || !src->n_topics) return;
    dst->topics = gr__sg_xcalloc((size_t)src->n_topics, sizeof(*dst->topics));
    dst->n_topics = src->n_topics;
    for (int32_t i = 0; i < src->n_topics; i++) {
        const gr_sg_topic_parts_t *s = &src->topics[i];
        dst->topics[i].topic_id = s->topic_id;
        dst->topics[i].n_partitions = s->n_partitions;
        dst->topics[i].partitions = gr__sg_xmalloc((size_t)s->n_partitions * sizeof(int32_t));
        memcpy(dst->topics[i].partitions, s->partitions, (size_t)s->n_partitions * sizeof(int32_t));
    }
}

bool gr_sg_assignment_equal(const gr_sg_assignment_t *a, const gr_sg_assignment_t *b) {
    if (a->n_topics != b->n_topics) return false;
    for (int32_t i = 0; i < a->n_topics; i++) {
        const gr_sg_topic_parts_t *x = &a->topics[i], *y = &b->topics[i];
        if (gr__sg_uuid_cmp(&x->topic_id, &y->topic_id) || x->n_partitions != y->n_partitions) return false;
        if (memcmp(x->partitions, y->partitions, (size_t)x->n_partitions * sizeof(int32_t))) return false;
    }
    return true;
}

int32_t gr_sg_assignment_count(const gr_sg_assignment_t *a) {
    int32_t n = 0;
    for (int32_t i = 0; i < a->n_topics; i++) n += a->topics[i].n_partitions;
    return n;
}

static bool parts_has(const int32_t *v, int32_t n, int32_t p) {
    int32_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (v[mid] == p) return true;
        if (v[mid] < p)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return false;
}

bool gr_sg_assignment_has(const gr_sg_assignment_t *a, const gr_uuid_t *topic_id, int32_t partition) {
    for (int32_t i = 0; i < a->n_topics; i++)
        if (!gr__sg_uuid_cmp(&a->topics[i].topic_id, topic_id))
            return parts_has(a->topics[i].partitions, a->topics[i].n_partitions, partition);
    return false;
}

/* Java's String.hashCode: s[0]*31^(n-1) + ... over UTF-16 code units, wrapping int32.
 * Invalid UTF-8 bytes count as U+FFFD, as Java's decoder would produce. */
int32_t gr_sg_java_hash(const char *s) {
    uint32_t h = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = 0xFFFD;
        int len = 1;
        if (*p < 0x80)
            cp = *p;
        else if ((*p & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80)
            cp = ((*p & 0x1Fu) << 6) | (p[1] & 0x3Fu), len = 2;
        else if ((*p & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80)
            cp = ((*p & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu), len = 3;
        else if ((*p & 0xF8) == 0xF0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80)
            cp = ((*p & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu), len = 4;
        p += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = h * 31u + (0xD800u + (cp >> 10));
            h = h * 31u + (0xDC00u + (cp & 0x3FFu));
        } else {
            h = h * 31u + cp;
        }
    }
    return (int32_t)h;
}
