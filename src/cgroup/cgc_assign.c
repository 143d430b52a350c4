/* Server-side assignors of the consumer protocol: "uniform" (Kafka's default: every
 * member gets as close to the same number of partitions as its subscriptions allow, and
 * keeps what it had where the balance permits) and "range" (per topic, contiguous ranges
 * of partitions to the topic's subscribers in member-id order, the first ones one more).
 * Own code; the exact partitions chosen may differ from Kafka's (the counts and the
 * stickiness rules are the same). */
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgc_int.h"

static cgc_set_t *new_targets(int32_t n) {
    cgc_set_t *t = calloc((size_t)n + 1, sizeof(*t));
    if (!t) abort();
    return t;
}

static void install(cgc_member_t **members, int32_t n, cgc_set_t *t) {
    for (int32_t i = 0; i < n; i++) {
        cgc_set_free(&members[i]->target);
        members[i]->target = t[i];
    }
    free(t);
}

/* The member that had (id, p) in its previous target and may keep it, or -1. */
static int32_t previous_owner(cgc_member_t **members, int32_t n, const bool *subs, int32_t n_topics, int32_t t,
                              const gr_uuid_t *id, int32_t p) {
    for (int32_t i = 0; i < n; i++)
        if (subs[i * n_topics + t] && cgc_set_has(&members[i]->target, id, p)) return i;
    return -1;
}

void cgc_assign_uniform(cgc_member_t **members, int32_t n, const cgc_topic_t *topics, int32_t n_topics,
                        const bool *subs) {
    cgc_set_t *t = new_targets(n);
    int32_t *count = calloc((size_t)n + 1, sizeof(int32_t));
    double *share = calloc((size_t)n + 1, sizeof(double));
    if (!count || !share) abort();
    /* Each member's fair share: a topic's partitions split among its subscribers. */
    for (int32_t k = 0; k < n_topics; k++) {
        int32_t s = 0;
        for (int32_t i = 0; i < n; i++) s += subs[i * n_topics + k];
        for (int32_t i = 0; s && i < n; i++)
            if (subs[i * n_topics + k]) share[i] += (double)topics[k].n_partitions / s;
    }
    /* Pass 1: keep previous partitions up to the floor of the share. */
    for (int32_t k = 0; k < n_topics; k++)
        for (int32_t p = 0; p < topics[k].n_partitions; p++) {
            int32_t o = previous_owner(members, n, subs, n_topics, k, &topics[k].id, p);
            if (o >= 0 && count[o] < (int32_t)share[o]) {
                cgc_set_add(&t[o], &topics[k].id, p);
                count[o]++;
            }
        }
    /* Pass 2: the rest to the least loaded subscriber (its previous owner wins a tie),
     * the topics with the fewest subscribers first so that the others can even out. */
    int32_t *order = calloc((size_t)n_topics + 1, sizeof(int32_t)),
            *nsubs = calloc((size_t)n_topics + 1, sizeof(int32_t));
    if (!order || !nsubs) abort();
    for (int32_t k = 0; k < n_topics; k++) {
        order[k] = k;
        for (int32_t i = 0; i < n; i++) nsubs[k] += subs[i * n_topics + k];
    }
    for (int32_t a = 1; a < n_topics; a++) /* stable insertion sort by subscriber count */
        for (int32_t b = a; b > 0 && nsubs[order[b - 1]] > nsubs[order[b]]; b--) {
            int32_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int32_t ki = 0; ki < n_topics; ki++)
        for (int32_t p = 0, k = order[ki]; p < topics[k].n_partitions; p++) {
            bool taken = false;
            for (int32_t i = 0; i < n && !taken; i++) taken = cgc_set_has(&t[i], &topics[k].id, p);
            if (taken) continue;
            int32_t o = previous_owner(members, n, subs, n_topics, k, &topics[k].id, p), best = -1;
            for (int32_t i = 0; i < n; i++) {
                if (!subs[i * n_topics + k]) continue;
                if (best < 0 || count[i] < count[best] || (count[i] == count[best] && i == o)) best = i;
            }
            if (best < 0) continue;
            cgc_set_add(&t[best], &topics[k].id, p);
            count[best]++;
        }
    free(order);
    free(nsubs);
    free(count);
    free(share);
    install(members, n, t);
}

static int by_member_id(const void *a, const void *b) {
    const cgc_member_t *x = *(cgc_member_t *const *)a, *y = *(cgc_member_t *const *)b;
    return strcmp(x->member_id, y->member_id);
}

void cgc_assign_range(cgc_member_t **members, int32_t n, const cgc_topic_t *topics, int32_t n_topics,
                      const bool *subs) {
    cgc_set_t *t = new_targets(n);
    cgc_member_t **sorted = calloc((size_t)n + 1, sizeof(*sorted));
    int32_t *idx = calloc((size_t)n + 1, sizeof(int32_t));
    if (!sorted || !idx) abort();
    for (int32_t k = 0; k < n_topics; k++) {
        int32_t s = 0;
        for (int32_t i = 0; i < n; i++)
            if (subs[i * n_topics + k]) sorted[s++] = members[i];
        if (!s) continue;
        qsort(sorted, (size_t)s, sizeof(*sorted), by_member_id);
        int32_t per = topics[k].n_partitions / s, extra = topics[k].n_partitions % s, p = 0;
        for (int32_t j = 0; j < s; j++) {
            int32_t i = 0;
            while (members[i] != sorted[j]) i++;
            for (int32_t c = 0; c < per + (j < extra); c++) cgc_set_add(&t[i], &topics[k].id, p++);
        }
    }
    free(sorted);
    free(idx);
    install(members, n, t);
}
