/* The SimpleAssignor of Kafka 4.4.0 for a homogeneous group (every member subscribes
 * to the same topics): SimpleHomogeneousAssignmentBuilder, rewritten from its
 * behaviour (docs/share-groups.md).
 *
 * With M members and P target partitions, every partition wants
 * S = ceil(M / P) members, and member i (in member order) wants
 * ceil(q * (i + 1)) - ceil(q * i) partitions, q = S * P / M. Steps:
 *   1. keep each member's previous partitions that are still targets;
 *   2. members above their count drop partitions (lowest first) until at it;
 *   3. partitions with more than S members drop members (lowest first), who
 *      become unfilled;
 *   4. partitions below S take unfilled members by a round-robin that walks the
 *      unfilled members in order and starts again from the first while the last
 *      pass placed something; a member leaves the walk at its count.
 * So 5 members on 3 partitions give 2 members per partition and one member two
 * partitions. Kafka walks Java hash sets and maps; here members go in the
 * caller's order and partitions in topic order, ascending: the shape (counts
 * per member and per partition) is Kafka's, which member gets the extra
 * partition follows that order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "share/group_int.h"

typedef struct hasg {
    int32_t M, P, S;
    int32_t *desired; /* partitions member m wants */
    int32_t *mcount;  /* partitions member m holds */
    int32_t *pcount;  /* members partition s has */
    bool *has;        /* [m * P + s] */
    bool *unfilled;
} hasg_t;

static bool same_topics(const gr_sg_assign_member_t *a, const gr_sg_assign_member_t *b, int32_t T, bool *scratch) {
    memset(scratch, 0, (size_t)T * sizeof(bool));
    int32_t na = 0, nb = 0;
    for (int32_t i = 0; i < a->n_topics; i++) {
        int32_t t = a->topics[i];
        if (t >= 0 && t < T && !scratch[t]) scratch[t] = true, na++;
    }
    bool *seen = scratch + T;
    memset(seen, 0, (size_t)T * sizeof(bool));
    for (int32_t i = 0; i < b->n_topics; i++) {
        int32_t t = b->topics[i];
        if (t < 0 || t >= T || seen[t]) continue;
        if (!scratch[t]) return false;
        seen[t] = true, nb++;
    }
    return na == nb;
}

static void hold(hasg_t *h, int32_t m, int32_t s, bool on) {
    if (h->has[(size_t)m * h->P + s] == on) return;
    h->has[(size_t)m * h->P + s] = on;
    h->mcount[m] += on ? 1 : -1;
    h->pcount[s] += on ? 1 : -1;
}

/* Step 4. Returns when every partition has S members or no unfilled member can help. */
static void assign_remaining(hasg_t *h) {
    int32_t pos = 0;
    bool placed = false;
    for (int32_t s = 0; s < h->P; s++) {
        for (int32_t need = h->S - h->pcount[s]; need > 0;) {
            while (pos < h->M && !h->unfilled[pos]) pos++;
            if (pos == h->M) { /* walk exhausted: again from the start if it placed something */
                if (!placed) break;
                pos = 0, placed = false;
                while (pos < h->M && !h->unfilled[pos]) pos++;
                if (pos == h->M) return;
            }
            int32_t m = pos++;
            if (h->has[(size_t)m * h->P + s]) continue;
            hold(h, m, s, true);
            need--, placed = true;
            if (h->mcount[m] >= h->desired[m]) h->unfilled[m] = false;
        }
        bool any = false;
        for (int32_t m = 0; m < h->M && !any; m++) any = h->unfilled[m];
        if (!any) return;
    }
}

static void run(hasg_t *h, const gr_sg_assign_topic_t *topics, const int32_t *first, const bool *subscribed, int32_t T,
                const gr_sg_assign_member_t *members) {
    double q = (double)(h->S * h->P) / (double)h->M;
    for (int32_t m = 0; m < h->M; m++)
        h->desired[m] = (int32_t)ceil(q * (double)(m + 1)) - (int32_t)ceil(q * (double)m);
    for (int32_t m = 0; m < h->M; m++) { /* step 1 */
        const gr_sg_assignment_t *cur = members[m].current;
        for (int32_t i = 0; cur && i < cur->n_topics; i++)
            for (int32_t t = 0; t < T; t++) {
                if (!subscribed[t] || gr__sg_uuid_cmp(&topics[t].topic_id, &cur->topics[i].topic_id)) continue;
                for (int32_t j = 0; j < cur->topics[i].n_partitions; j++)
                    for (int32_t k = 0; k < topics[t].n_partitions; k++)
                        if (topics[t].partitions[k] == cur->topics[i].partitions[j]) hold(h, m, first[t] + k, true);
            }
        h->unfilled[m] = h->mcount[m] < h->desired[m];
    }
    for (int32_t m = 0; m < h->M; m++) /* step 2 */
        for (int32_t s = 0; s < h->P && h->mcount[m] > h->desired[m]; s++) hold(h, m, s, false);
    for (int32_t s = 0; s < h->P; s++) /* step 3 */
        for (int32_t m = 0; m < h->M && h->pcount[s] > h->S; m++)
            if (h->has[(size_t)m * h->P + s]) hold(h, m, s, false), h->unfilled[m] = true;
    assign_remaining(h);
}

bool gr__sg_assign_homogeneous(const gr_sg_assign_topic_t *topics, int32_t T, const gr_sg_assign_member_t *members,
                               int32_t M, gr_sg_assignment_t *out) {
    if (M <= 0) return true;
    bool *scratch = gr__sg_xcalloc((size_t)T * 2 + 2, sizeof(bool));
    for (int32_t m = 1; m < M; m++)
        if (!same_topics(&members[0], &members[m], T, scratch)) {
            free(scratch);
            return false;
        }
    bool *subscribed = scratch; /* member 0's topics, left there by same_topics(0, 0) */
    same_topics(&members[0], &members[0], T, scratch);
    int32_t *first = gr__sg_xcalloc((size_t)T + 1, sizeof(int32_t));
    for (int32_t t = 0; t < T; t++) first[t + 1] = first[t] + (subscribed[t] ? topics[t].n_partitions : 0);
    hasg_t h = {.M = M, .P = first[T]};
    h.S = h.P ? (M + h.P - 1) / h.P : 0;
    h.desired = gr__sg_xcalloc((size_t)M, sizeof(int32_t));
    h.mcount = gr__sg_xcalloc((size_t)M, sizeof(int32_t));
    h.pcount = gr__sg_xcalloc((size_t)h.P + 1, sizeof(int32_t));
    h.has = gr__sg_xcalloc((size_t)M * (size_t)h.P + 1, sizeof(bool));
    h.unfilled = gr__sg_xcalloc((size_t)M, sizeof(bool));
    if (h.P) run(&h, topics, first, subscribed, T, members);
    gr__sg_tp_t *tps = gr__sg_xmalloc(((size_t)h.P + 1) * sizeof(*tps));
    for (int32_t m = 0; m < M; m++) {
        size_t n = 0;
        for (int32_t t = 0; t < T; t++)
            for (int32_t k = 0; subscribed[t] && k < topics[t].n_partitions; k++)
                if (h.has[(size_t)m * h.P + first[t] + k])
                    tps[n++] = (gr__sg_tp_t){topics[t].topic_id, topics[t].partitions[k]};
        gr__sg_assignment_from_tps(tps, n, &out[m]);
    }
    free(tps);
    free(h.unfilled);
    free(h.has);
    free(h.pcount);
    free(h.mcount);
    free(h.desired);
    free(first);
    free(scratch);
    return true;
}
