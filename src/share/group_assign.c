/* The share-group SimpleAssignor (KIP-932; docs/share-groups.md) and the small
 * assignment-set helpers it shares with group.c. Homogeneous groups (every member
 * subscribes to the same topics) use Kafka 4.4.0's algorithm (group_assign_simple.c);
 * the hash-based assignor below serves heterogeneous groups.
 *
 * Goals, in order: every assignable partition with a subscriber gets at least one
 * member; balance (member partition counts differ by at most one when members <
 * partitions; every member exactly one partition when members >= partitions); then
 * stickiness. Steps, as §4.4 describes them:
 *   1. hash: each member gets partition E[abs(h(memberId) % |E|)] of its own eligible
 *      list E (subscribed partitions, topic by topic in the caller's topic order,
 *      partitions ascending), h = Java String.hashCode. Deviation: members that still
 *      hold valid partitions from the previous target skip this step (see step_hash);
 *   2. sticky: partitions of the previous target assignment not hit by the hash step
 *      stay with their members up to the member's fair share;
 *   3. round-robin: every partition still without a member goes to the least loaded
 *      subscriber (ties: previous owner, then member order). Where the hash step put
 *      several members on one partition, a member of the most shared partition is moved
 *      instead (its count is unchanged), which is what keeps members >= partitions at
 *      exactly one partition each and removes collisions when members < partitions.
 *   4. sharing is evened out: no partition has two more members than another partition
 *      its members could serve (members >= partitions).
 * Step 3 refines §4.4's "skip members holding more than desired" round-robin, which
 * can leave two members two partitions apart after the sticky step; the spec requires
 * only the properties above, not Java's iteration order. */
#include <math.h>
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

/* ---- the assignor ---- */

typedef struct held {
    int32_t *v;
    int32_t n, cap;
} held_t;

typedef struct asg {
    const gr_sg_assign_topic_t *topics;
    int32_t T, M, P; /* topics, members, slots */
    const gr_sg_assign_member_t *members;
    int32_t *first;          /* first slot of topic t; first[T] = P */
    int32_t *slot_topic;     /* topic of slot s */
    int32_t *subs_per_topic; /* M_t */
    bool *subscribed;        /* [m * T + t] */
    int32_t *hold;           /* members holding slot s */
    bool *hashed;            /* slot was hit by the hash step */
    held_t *held;            /* slots of member m */
    int64_t shared_excess;   /* sum over slots of max(0, hold - 1) */
} asg_t;

static bool member_holds(const asg_t *a, int32_t m, int32_t s) {
    for (int32_t i = 0; i < a->held[m].n; i++)
        if (a->held[m].v[i] == s) return true;
    return false;
}

static void give(asg_t *a, int32_t m, int32_t s) {
    held_t *h = &a->held[m];
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 4;
        h->v = gr__sg_xrealloc(h->v, (size_t)h->cap, sizeof(int32_t));
    }
    h->v[h->n++] = s;
    if (a->hold[s]++ >= 1) a->shared_excess++;
}

static void take(asg_t *a, int32_t m, int32_t idx) {
    held_t *h = &a->held[m];
    int32_t s = h->v[idx];
    h->v[idx] = h->v[--h->n];
    if (--a->hold[s] >= 1) a->shared_excess--;
}

/* Slot of (topic_id, partition) if it is assignable, else -1. */
static int32_t slot_of(const asg_t *a, const gr_uuid_t *topic_id, int32_t partition) {
    for (int32_t t = 0; t < a->T; t++) {
        if (gr__sg_uuid_cmp(&a->topics[t].topic_id, topic_id)) continue;
        const int32_t *v = a->topics[t].partitions;
        int32_t lo = 0, hi = a->topics[t].n_partitions - 1;
        while (lo <= hi) {
            int32_t mid = lo + (hi - lo) / 2;
            if (v[mid] == partition) return a->first[t] + mid;
            if (v[mid] < partition)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        return -1;
    }
    return -1;
}

static bool was_owner(const asg_t *a, int32_t m, int32_t s) {
    const gr_sg_assignment_t *cur = a->members[m].current;
    if (!cur) return false;
    int32_t t = a->slot_topic[s];
    return gr_sg_assignment_has(cur, &a->topics[t].topic_id, a->topics[t].partitions[s - a->first[t]]);
}

static void asg_init(asg_t *a, const gr_sg_assign_topic_t *topics, int32_t T, const gr_sg_assign_member_t *members,
                     int32_t M) {
    memset(a, 0, sizeof(*a));
    a->topics = topics, a->T = T, a->members = members, a->M = M;
    a->first = gr__sg_xcalloc((size_t)T + 1, sizeof(int32_t));
    for (int32_t t = 0; t < T; t++) a->first[t + 1] = a->first[t] + topics[t].n_partitions;
    a->P = a->first[T];
    a->slot_topic = gr__sg_xcalloc((size_t)a->P, sizeof(int32_t));
    for (int32_t t = 0; t < T; t++)
        for (int32_t s = a->first[t]; s < a->first[t + 1]; s++) a->slot_topic[s] = t;
    a->subs_per_topic = gr__sg_xcalloc((size_t)T, sizeof(int32_t));
    a->subscribed = gr__sg_xcalloc((size_t)M * (size_t)T, sizeof(bool));
    for (int32_t m = 0; m < M; m++)
        for (int32_t i = 0; i < members[m].n_topics; i++) {
            int32_t t = members[m].topics[i];
            if (t < 0 || t >= T || a->subscribed[(size_t)m * T + t]) continue;
            a->subscribed[(size_t)m * T + t] = true;
            a->subs_per_topic[t]++;
        }
    a->hold = gr__sg_xcalloc((size_t)a->P, sizeof(int32_t));
    a->hashed = gr__sg_xcalloc((size_t)a->P, sizeof(bool));
    a->held = gr__sg_xcalloc((size_t)M, sizeof(held_t));
}

static void asg_destroy(asg_t *a) {
    for (int32_t m = 0; m < a->M; m++) free(a->held[m].v);
    free(a->held);
    free(a->hashed);
    free(a->hold);
    free(a->subscribed);
    free(a->subs_per_topic);
    free(a->slot_topic);
    free(a->first);
}

/* True if member m held a partition that it may still be assigned. */
static bool has_valid_previous(const asg_t *a, int32_t m) {
    const gr_sg_assignment_t *cur = a->members[m].current;
    for (int32_t i = 0; cur && i < cur->n_topics; i++)
        for (int32_t j = 0; j < cur->topics[i].n_partitions; j++) {
            int32_t s = slot_of(a, &cur->topics[i].topic_id, cur->topics[i].partitions[j]);
            if (s >= 0 && a->subscribed[(size_t)m * a->T + a->slot_topic[s]]) return true;
        }
    return false;
}

/* Step 1: one partition per member from its own eligible list. Members that still hold
 * valid partitions skip it: their place comes from the sticky step, so that an unchanged
 * group gets an unchanged assignment even where hashes collide. */
static void step_hash(asg_t *a) {
    for (int32_t m = 0; m < a->M; m++) {
        if (has_valid_previous(a, m)) continue;
        int64_t n = 0;
        for (int32_t t = 0; t < a->T; t++)
            if (a->subscribed[(size_t)m * a->T + t]) n += a->topics[t].n_partitions;
        if (!n) continue;
        int64_t idx = llabs((int64_t)gr_sg_java_hash(a->members[m].member_id) % n);
        for (int32_t t = 0; t < a->T; t++) {
            if (!a->subscribed[(size_t)m * a->T + t]) continue;
            if (idx < a->topics[t].n_partitions) {
                int32_t s = a->first[t] + (int32_t)idx;
                give(a, m, s);
                a->hashed[s] = true;
                break;
            }
            idx -= a->topics[t].n_partitions;
        }
    }
}

/* Fair share of member m: sum over its topics of partitions / subscribers. */
static double fair_share(const asg_t *a, int32_t m) {
    double f = 0;
    for (int32_t t = 0; t < a->T; t++)
        if (a->subscribed[(size_t)m * a->T + t]) f += (double)a->topics[t].n_partitions / a->subs_per_topic[t];
    return f;
}

/* Keep previous partitions of member m while it holds fewer than cap. A partition is
 * kept by several members only while it needs sharing (subscribers > partitions). */
static int32_t keep_previous(asg_t *a, int32_t m, int32_t cap, int32_t budget) {
    const gr_sg_assignment_t *cur = a->members[m].current;
    int32_t kept = 0;
    for (int32_t i = 0; cur && i < cur->n_topics; i++)
        for (int32_t j = 0; j < cur->topics[i].n_partitions; j++) {
            if (a->held[m].n >= cap || kept >= budget) return kept;
            int32_t s = slot_of(a, &cur->topics[i].topic_id, cur->topics[i].partitions[j]);
            if (s < 0 || a->hashed[s] || !a->subscribed[(size_t)m * a->T + a->slot_topic[s]]) continue;
            int32_t t = a->slot_topic[s];
            int32_t share = (a->subs_per_topic[t] + a->topics[t].n_partitions - 1) / a->topics[t].n_partitions;
            if (a->hold[s] >= share || member_holds(a, m, s)) continue;
            give(a, m, s);
            kept++;
        }
    return kept;
}

/* Step 2: two passes, first up to floor(fair share), then up to ceil(fair share) for as
 * many extra partitions as the floors leave over (homogeneous: P % M members). */
static void step_sticky(asg_t *a) {
    int64_t floors = 0, covered = 0;
    for (int32_t m = 0; m < a->M; m++) floors += (int64_t)floor(fair_share(a, m) + 1e-9);
    for (int32_t s = 0; s < a->P; s++) covered += a->subs_per_topic[a->slot_topic[s]] > 0;
    int32_t budget = covered > floors ? (int32_t)(covered - floors) : 0;
    for (int32_t m = 0; m < a->M; m++) {
        int32_t cap = (int32_t)floor(fair_share(a, m) + 1e-9);
        keep_previous(a, m, cap > 0 ? cap : 1, INT32_MAX); /* members >= partitions: keep one */
    }
    for (int32_t m = 0; m < a->M && budget > 0; m++)
        budget -= keep_previous(a, m, (int32_t)ceil(fair_share(a, m) - 1e-9), budget);
}

/* Move one member from the most shared partition it holds to uncovered slot s. */
static bool steal_for(asg_t *a, int32_t s) {
    int32_t t = a->slot_topic[s], best_m = -1, best_i = -1, best_hold = 1;
    bool best_owner = false;
    for (int32_t m = 0; m < a->M; m++) {
        if (!a->subscribed[(size_t)m * a->T + t]) continue;
        bool owner = was_owner(a, m, s);
        for (int32_t i = 0; i < a->held[m].n; i++) {
            int32_t h = a->hold[a->held[m].v[i]];
            if (h > best_hold || (h == best_hold && h > 1 && owner && !best_owner)) {
                best_m = m, best_i = i, best_hold = h, best_owner = owner;
            }
        }
    }
    if (best_m < 0) return false;
    take(a, best_m, best_i);
    give(a, best_m, s);
    return true;
}

/* Step 3: cover every partition that has subscribers but no member. */
static void step_cover(asg_t *a) {
    for (int32_t s = 0; s < a->P; s++) {
        int32_t t = a->slot_topic[s];
        if (a->hold[s] || !a->subs_per_topic[t]) continue;
        if (a->shared_excess > 0 && steal_for(a, s)) continue;
        int32_t best = -1;
        bool best_owner = false;
        for (int32_t m = 0; m < a->M; m++) {
            if (!a->subscribed[(size_t)m * a->T + t]) continue;
            bool owner = was_owner(a, m, s);
            if (best < 0 || a->held[m].n < a->held[best].n || (a->held[m].n == a->held[best].n && owner && !best_owner))
                best = m, best_owner = owner;
        }
        give(a, best, s);
    }
}

/* Every member with something to consume gets at least one partition: the least shared
 * one it may take (ties: one it held before, then the first). Needed when members >=
 * partitions and a newcomer's hash took the only partition an old member kept. */
static void step_fill_empty(asg_t *a) {
    for (int32_t m = 0; m < a->M; m++) {
        if (a->held[m].n) continue;
        int32_t best = -1;
        bool best_owner = false;
        for (int32_t s = 0; s < a->P; s++) {
            if (!a->subscribed[(size_t)m * a->T + a->slot_topic[s]]) continue;
            bool owner = was_owner(a, m, s);
            if (best < 0 || a->hold[s] < a->hold[best] || (a->hold[s] == a->hold[best] && owner && !best_owner))
                best = s, best_owner = owner;
        }
        if (best >= 0) give(a, m, best);
    }
}

/* Step 4 (members > partitions): even out sharing. Move a member from a partition it
 * shares with at least two more members than partition s has. Member counts do not
 * change, and every move lowers the sum of squared holder counts, so this ends. */
static void step_even(asg_t *a) {
    for (bool moved = true; moved && a->shared_excess > 0;) {
        moved = false;
        for (int32_t s = 0; s < a->P; s++) {
            int32_t t = a->slot_topic[s];
            for (int32_t m = 0; m < a->M; m++) {
                if (!a->subscribed[(size_t)m * a->T + t] || member_holds(a, m, s)) continue;
                for (int32_t i = 0; i < a->held[m].n; i++)
                    if (a->hold[a->held[m].v[i]] >= a->hold[s] + 2) {
                        take(a, m, i);
                        give(a, m, s);
                        moved = true;
                        break;
                    }
            }
        }
    }
}

void gr_sg_assign(const gr_sg_assign_topic_t *topics, int32_t n_topics, const gr_sg_assign_member_t *members,
                  int32_t n_members, gr_sg_assignment_t *out) {
    if (gr__sg_assign_homogeneous(topics, n_topics, members, n_members, out)) return;
    asg_t a;
    asg_init(&a, topics, n_topics, members, n_members);
    if (a.P > 0) {
        step_hash(&a);
        step_sticky(&a);
        step_cover(&a);
        step_fill_empty(&a);
        step_even(&a);
    }
    for (int32_t m = 0; m < n_members; m++) {
        size_t n = (size_t)a.held[m].n;
        gr__sg_tp_t *tps = gr__sg_xmalloc((n ? n : 1) * sizeof(*tps));
        for (size_t i = 0; i < n; i++) {
            int32_t s = a.held[m].v[i], t = a.slot_topic[s];
            tps[i] = (gr__sg_tp_t){topics[t].topic_id, topics[t].partitions[s - a.first[t]]};
        }
        gr__sg_assignment_from_tps(tps, n, &out[m]);
        free(tps);
    }
    asg_destroy(&a);
}
