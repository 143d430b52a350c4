/* The pure parts of the group consumer (consumer_assignor.h): topic-partition lists,
 * the ConsumerProtocol encodings, the range and roundrobin assignors, reconciliation. */
#include "client/consumer_assignor.h"

#include <stdlib.h>
#include <string.h>

/* ---- topic-partition lists ---- */

void gr__tplist_add(gr__tplist_t *l, const char *topic, size_t topic_len, int32_t partition) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        if (!l->v) abort();
    }
    char *t = malloc(topic_len + 1);
    if (!t) abort();
    memcpy(t, topic, topic_len);
    t[topic_len] = 0;
    l->v[l->n++] = (gr__tp_t){t, partition};
}

bool gr__tplist_has(const gr__tplist_t *l, const char *topic, int32_t partition) {
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].partition == partition && !strcmp(l->v[i].topic, topic)) return true;
    return false;
}

static int tp_cmp(const void *a, const void *b) {
    const gr__tp_t *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

void gr__tplist_sort(gr__tplist_t *l) {
    if (l->n > 1) qsort(l->v, l->n, sizeof(*l->v), tp_cmp);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (k && !tp_cmp(&l->v[k - 1], &l->v[i])) {
            free(l->v[i].topic);
            continue;
        }
        l->v[k++] = l->v[i];
    }
    l->n = k;
}

void gr__tplist_clear(gr__tplist_t *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i].topic);
    l->n = 0;
}

void gr__tplist_free(gr__tplist_t *l) {
    gr__tplist_clear(l);
    free(l->v);
    l->v = NULL;
    l->cap = 0;
}

void gr__tplist_diff(const gr__tplist_t *owned, const gr__tplist_t *target, gr__tplist_t *revoked,
                     gr__tplist_t *added) {
    for (size_t i = 0; i < owned->n; i++)
        if (!gr__tplist_has(target, owned->v[i].topic, owned->v[i].partition))
            gr__tplist_add(revoked, owned->v[i].topic, strlen(owned->v[i].topic), owned->v[i].partition);
    for (size_t i = 0; i < target->n; i++)
        if (!gr__tplist_has(owned, target->v[i].topic, target->v[i].partition))
            gr__tplist_add(added, target->v[i].topic, strlen(target->v[i].topic), target->v[i].partition);
    gr__tplist_sort(revoked);
    gr__tplist_sort(added);
}

/* ---- encodings ---- */

static void put_str(gr_wbuf_t *wb, const char *s, size_t n) {
    gr_wbuf_i16(wb, (int16_t)n);
    gr_wbuf_put(wb, s, n);
}

/* [TopicPartition]: topic string, [int32] partitions, for a sorted list. */
static void put_tparray(gr_wbuf_t *wb, const gr__tplist_t *l) {
    int32_t topics = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!i || strcmp(l->v[i].topic, l->v[i - 1].topic)) topics++;
    gr_wbuf_i32(wb, topics);
    for (size_t i = 0; i < l->n;) {
        size_t k = i;
        while (k < l->n && !strcmp(l->v[k].topic, l->v[i].topic)) k++;
        put_str(wb, l->v[i].topic, strlen(l->v[i].topic));
        gr_wbuf_i32(wb, (int32_t)(k - i));
        for (size_t j = i; j < k; j++) gr_wbuf_i32(wb, l->v[j].partition);
        i = k;
    }
}

void gr__cp_sub_encode(gr_wbuf_t *wb, const char *const *topics, size_t n_topics, const gr__tplist_t *owned,
                       int32_t generation) {
    gr_wbuf_i16(wb, 3);
    gr_wbuf_i32(wb, (int32_t)n_topics);
    for (size_t i = 0; i < n_topics; i++) put_str(wb, topics[i], strlen(topics[i]));
    gr_wbuf_i32(wb, -1); /* user data: null */
    gr__tplist_t none = {0};
    put_tparray(wb, owned ? owned : &none);
    gr_wbuf_i32(wb, generation);
    gr_wbuf_i16(wb, -1); /* rack: null */
}

void gr__cp_assignment_encode(gr_wbuf_t *wb, const gr__tplist_t *parts) {
    gr_wbuf_i16(wb, 3);
    put_tparray(wb, parts);
    gr_wbuf_i32(wb, -1);
}

/* A non-null string without NUL bytes (no topic name has one; C strings would cut it). */
static bool get_str(gr_rbuf_t *rb, const uint8_t **s, int16_t *n) {
    if (!gr_rbuf_i16(rb, n)) return false;
    if (*n < 0) return gr_rbuf_fail(rb, GR_ERR__MALFORMED, "null string");
    if (!gr_rbuf_bytes(rb, (size_t)*n, s)) return false;
    return !memchr(*s, 0, (size_t)*n) || gr_rbuf_fail(rb, GR_ERR__MALFORMED, "NUL in a name");
}

/* An array count, bounded by the bytes left (each element takes at least min bytes). */
static bool get_count(gr_rbuf_t *rb, size_t min, int32_t *n) {
    if (!gr_rbuf_i32(rb, n)) return false;
    if (*n < 0 || (size_t)*n > gr_rbuf_remaining(rb) / min) return gr_rbuf_fail(rb, GR_ERR__MALFORMED, "bad count");
    return true;
}

static bool get_tparray(gr_rbuf_t *rb, gr__tplist_t *out) {
    int32_t nt;
    if (!get_count(rb, 6, &nt)) return false;
    for (int32_t t = 0; t < nt; t++) {
        const uint8_t *s;
        int16_t sl;
        int32_t np;
        if (!get_str(rb, &s, &sl) || !get_count(rb, 4, &np)) return false;
        for (int32_t i = 0; i < np; i++) {
            int32_t p;
            if (!gr_rbuf_i32(rb, &p)) return false;
            gr__tplist_add(out, (const char *)s, (size_t)sl, p);
        }
    }
    return true;
}

/* Skip a nullable bytes field (user data). */
static bool skip_bytes(gr_rbuf_t *rb) {
    int32_t n;
    if (!gr_rbuf_i32(rb, &n)) return false;
    return n < 0 || gr_rbuf_skip(rb, (size_t)n);
}

static bool sub_topics(gr_rbuf_t *rb, gr__cp_sub_t *out) {
    int32_t n;
    if (!get_count(rb, 2, &n)) return false;
    out->topics = calloc((size_t)n + 1, sizeof(char *));
    if (!out->topics) abort();
    for (int32_t i = 0; i < n; i++) {
        const uint8_t *s;
        int16_t sl;
        if (!get_str(rb, &s, &sl)) return false;
        char *t = malloc((size_t)sl + 1);
        if (!t) abort();
        memcpy(t, s, (size_t)sl);
        t[sl] = 0;
        out->topics[out->n_topics++] = t;
    }
    return true;
}

gr_err_t gr__cp_sub_decode(const uint8_t *p, size_t len, gr__cp_sub_t *out) {
    memset(out, 0, sizeof(*out));
    out->generation = -1;
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, p, len);
    bool ok = gr_rbuf_i16(&rb, &out->version) && out->version >= 0 && sub_topics(&rb, out) && skip_bytes(&rb);
    if (ok && out->version >= 1) ok = get_tparray(&rb, &out->owned);
    if (ok && out->version >= 2) ok = gr_rbuf_i32(&rb, &out->generation);
    if (!ok) {
        gr__cp_sub_free(out);
        return GR_ERR__MALFORMED;
    }
    gr__tplist_sort(&out->owned);
    return GR_ERR_NONE;
}

void gr__cp_sub_free(gr__cp_sub_t *s) {
    for (size_t i = 0; i < s->n_topics; i++) free(s->topics[i]);
    free(s->topics);
    s->topics = NULL;
    s->n_topics = 0;
    gr__tplist_free(&s->owned);
}

gr_err_t gr__cp_assignment_decode(const uint8_t *p, size_t len, gr__tplist_t *out) {
    if (!len) return GR_ERR_NONE;
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, p, len);
    int16_t ver;
    size_t before = out->n;
    if (!gr_rbuf_i16(&rb, &ver) || ver < 0 || !get_tparray(&rb, out)) {
        while (out->n > before) free(out->v[--out->n].topic);
        return GR_ERR__MALFORMED;
    }
    gr__tplist_sort(out);
    return GR_ERR_NONE;
}

/* ---- assignors ---- */

bool gr__assignor_known(const char *name) {
    return !strcmp(name, "range") || !strcmp(name, "roundrobin") || !strcmp(name, "cooperative-sticky");
}

/* Kafka orders members by group.instance.id when they have one, else by member id. */
static int member_cmp(const void *a, const void *b) {
    const gr__cg_member_t *x = *(gr__cg_member_t *const *)a, *y = *(gr__cg_member_t *const *)b;
    if (x->instance_id && y->instance_id) {
        int c = strcmp(x->instance_id, y->instance_id);
        if (c) return c;
    } else if (x->instance_id || y->instance_id) {
        return x->instance_id ? -1 : 1;
    }
    return strcmp(x->member_id, y->member_id);
}

static bool subscribes(const gr__cg_member_t *m, const char *topic) {
    for (size_t i = 0; i < m->n_topics; i++)
        if (!strcmp(m->topics[i], topic)) return true;
    return false;
}

static gr__cg_member_t **sorted_members(gr__cg_member_t *members, size_t n) {
    gr__cg_member_t **s = malloc((n ? n : 1) * sizeof(*s));
    if (!s) abort();
    for (size_t i = 0; i < n; i++) s[i] = &members[i];
    if (n > 1) qsort(s, n, sizeof(*s), member_cmp);
    return s;
}

/* range: per topic, its subscribers in order each take a contiguous run; the first
 * (partitions % subscribers) take one more. */
static void assign_range(gr__cg_member_t **m, size_t n, const gr__cg_topic_t *topics, size_t nt) {
    gr__cg_member_t **subs = malloc((n ? n : 1) * sizeof(*subs));
    if (!subs) abort();
    for (size_t t = 0; t < nt; t++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (subscribes(m[i], topics[t].name)) subs[k++] = m[i];
        if (!k || topics[t].n_parts <= 0) continue;
        int32_t per = topics[t].n_parts / (int32_t)k, extra = topics[t].n_parts % (int32_t)k, p = 0;
        for (size_t i = 0; i < k; i++) {
            int32_t cnt = per + ((int32_t)i < extra ? 1 : 0);
            for (int32_t j = 0; j < cnt; j++, p++)
                gr__tplist_add(&subs[i]->out, topics[t].name, strlen(topics[t].name), p);
        }
    }
    free(subs);
}

static int topic_cmp(const void *a, const void *b) {
    return strcmp(((const gr__cg_topic_t *)a)->name, ((const gr__cg_topic_t *)b)->name);
}

/* roundrobin: every partition of every topic, by topic name then partition, dealt to
 * the members in a circle, skipping members that do not subscribe to its topic. */
static void assign_roundrobin(gr__cg_member_t **m, size_t n, const gr__cg_topic_t *topics, size_t nt) {
    gr__cg_topic_t *ts = malloc((nt ? nt : 1) * sizeof(*ts));
    if (!ts) abort();
    memcpy(ts, topics, nt * sizeof(*ts));
    if (nt > 1) qsort(ts, nt, sizeof(*ts), topic_cmp);
    size_t next = 0;
    for (size_t t = 0; t < nt && n; t++) {
        for (int32_t p = 0; p < ts[t].n_parts; p++) {
            for (size_t tries = 0; tries < n; tries++, next = (next + 1) % n) {
                if (!subscribes(m[next], ts[t].name)) continue;
                gr__tplist_add(&m[next]->out, ts[t].name, strlen(ts[t].name), p);
                next = (next + 1) % n;
                break;
            }
        }
    }
    free(ts);
}

/* cooperative-sticky, step 1: who owns partition t/p now (the claim of the highest
 * generation among members still subscribed to t), or -1. */
static int owner_of(gr__cg_member_t **m, size_t n, const char *t, int32_t p) {
    int best = -1;
    for (size_t i = 0; i < n; i++)
        if (m[i]->owned && subscribes(m[i], t) && gr__tplist_has(m[i]->owned, t, p) &&
            (best < 0 || m[i]->generation > m[best]->generation))
            best = (int)i;
    return best;
}

static size_t least_loaded(gr__cg_member_t **m, size_t n, const char *t) {
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (subscribes(m[i], t) && (best == n || m[i]->out.n < m[best]->out.n)) best = i;
    return best;
}

/* cooperative-sticky: keep owned partitions up to a balanced share (the members owning
 * most may keep one more), deal the rest to the least loaded, then hold back every
 * partition whose owner changes (its owner revokes it first, then rejoins). */
static void assign_sticky(gr__cg_member_t **m, size_t n, const gr__cg_topic_t *ts, size_t nt) {
    size_t total = 0, eligible = 0;
    for (size_t t = 0; t < nt; t++)
        for (size_t i = 0; i < n; i++)
            if (subscribes(m[i], ts[t].name)) {
                total += ts[t].n_parts > 0 ? (size_t)ts[t].n_parts : 0;
                break;
            }
    for (size_t i = 0; i < n; i++) eligible += m[i]->n_topics > 0;
    size_t floor_q = eligible ? total / eligible : 0, extra = eligible ? total % eligible : 0;
    int *own = NULL;
    size_t np = 0;
    for (size_t t = 0; t < nt; t++) np += ts[t].n_parts > 0 ? (size_t)ts[t].n_parts : 0;
    own = malloc((np ? np : 1) * sizeof(int));
    if (!own) abort();
    size_t k = 0; /* keep: in member order, up to the share */
    for (size_t t = 0; t < nt; t++)
        for (int32_t p = 0; p < ts[t].n_parts; p++, k++) {
            int o = owner_of(m, n, ts[t].name, p);
            own[k] = o;
            if (o < 0) continue;
            size_t cap = floor_q + (extra ? 1 : 0);
            if (m[o]->out.n >= cap) continue;
            if (m[o]->out.n == floor_q && extra) extra--; /* it takes one of the larger shares */
            gr__tplist_add(&m[o]->out, ts[t].name, strlen(ts[t].name), p);
        }
    for (size_t t = 0; t < nt; t++)
        for (int32_t p = 0; p < ts[t].n_parts; p++) {
            bool taken = false;
            for (size_t i = 0; i < n && !taken; i++) taken = gr__tplist_has(&m[i]->out, ts[t].name, p);
            size_t to = taken ? n : least_loaded(m, n, ts[t].name);
            if (to < n) gr__tplist_add(&m[to]->out, ts[t].name, strlen(ts[t].name), p);
        }
    k = 0; /* hold back what another member still owns */
    for (size_t t = 0; t < nt; t++)
        for (int32_t p = 0; p < ts[t].n_parts; p++, k++)
            for (size_t i = 0; own[k] >= 0 && i < n; i++) {
                if ((int)i == own[k] || !gr__tplist_has(&m[i]->out, ts[t].name, p)) continue;
                for (size_t j = 0; j < m[i]->out.n; j++)
                    if (m[i]->out.v[j].partition == p && !strcmp(m[i]->out.v[j].topic, ts[t].name)) {
                        free(m[i]->out.v[j].topic);
                        m[i]->out.v[j] = m[i]->out.v[--m[i]->out.n];
                        break;
                    }
            }
    free(own);
}

bool gr__assign(const char *name, gr__cg_member_t *members, size_t n_members, const gr__cg_topic_t *topics,
                size_t n_topics) {
    if (!gr__assignor_known(name)) return false;
    gr__cg_member_t **m = sorted_members(members, n_members);
    /* Each topic once, whatever the caller passed. */
    gr__cg_topic_t *ts = malloc((n_topics ? n_topics : 1) * sizeof(*ts));
    if (!ts) abort();
    memcpy(ts, topics, n_topics * sizeof(*ts));
    if (n_topics > 1) qsort(ts, n_topics, sizeof(*ts), topic_cmp);
    size_t nt = 0;
    for (size_t i = 0; i < n_topics; i++)
        if (!nt || strcmp(ts[nt - 1].name, ts[i].name)) ts[nt++] = ts[i];
    if (!strcmp(name, "range"))
        assign_range(m, n_members, ts, nt);
    else if (!strcmp(name, "roundrobin"))
        assign_roundrobin(m, n_members, ts, nt);
    else
        assign_sticky(m, n_members, ts, nt);
    free(ts);
    for (size_t i = 0; i < n_members; i++) gr__tplist_sort(&members[i].out);
    free(m);
    return true;
}
