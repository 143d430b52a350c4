/* The SimpleAssignor of Kafka 4.4.0 (SimpleHomogeneousAssignmentBuilder and
 * SimpleHeterogeneousAssignmentBuilder), rewritten from their behaviour
 * (docs/share-groups.md). A homogeneous group (every member subscribes to the same
 * topics) is balanced over all its partitions at once; otherwise each topic is
 * balanced alone over its subscribers, and a member's topics add up.
 *
 * With M members and P target partitions (of the whole group or of one topic), every
 * partition wants
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

typedef struct sasg {
    const gr_sg_assign_topic_t *topics;
    const gr_sg_assign_member_t *members;
    int32_t T, M, P;  /* topics, members, slots (partitions of all topics) */
    int32_t *first;   /* first slot of topic t; first[T] = P */
    int32_t *slot_t;  /* topic of slot s */
    bool *subscribed; /* [m * T + t] */
    bool *has;        /* [m * P + s]: the result */
    int32_t *pcount;  /* members slot s has */
} sasg_t;

/* One balancing run over the members L[0..n) and the slots SL[0..np), both ascending. */
typedef struct run {
    sasg_t *a;
    const int32_t *L, *SL;
    int32_t n, np, S;
    int32_t *desired, *mcount; /* by position in L */
    bool *unfilled;
    bool *in_run; /* [slot]: slot belongs to this run */
} run_t;

static bool *has_at(const run_t *r, int32_t i, int32_t s) { return &r->a->has[(size_t)r->L[i] * r->a->P + s]; }

static void hold(run_t *r, int32_t i, int32_t s, bool on) {
    bool *h = has_at(r, i, s);
    if (*h == on) return;
    *h = on;
    r->mcount[i] += on ? 1 : -1;
    r->a->pcount[s] += on ? 1 : -1;
}

/* Step 1: the previous partitions of member i that are targets of this run. */
static void keep_previous(run_t *r, int32_t i) {
    const sasg_t *a = r->a;
    const gr_sg_assignment_t *cur = a->members[r->L[i]].current;
    for (int32_t c = 0; cur && c < cur->n_topics; c++)
        for (int32_t t = 0; t < a->T; t++) {
            if (gr__sg_uuid_cmp(&a->topics[t].topic_id, &cur->topics[c].topic_id)) continue;
            for (int32_t j = 0; j < cur->topics[c].n_partitions; j++)
                for (int32_t k = 0; k < a->topics[t].n_partitions; k++)
                    if (a->topics[t].partitions[k] == cur->topics[c].partitions[j] && r->in_run[a->first[t] + k])
                        hold(r, i, a->first[t] + k, true);
        }
}

static bool any_unfilled(const run_t *r) {
    for (int32_t i = 0; i < r->n; i++)
        if (r->unfilled[i]) return true;
    return false;
}

/* Step 4: walk the unfilled members, again from the first one while the last pass
 * placed something; a member leaves the walk at its count. */
static void assign_remaining(run_t *r) {
    int32_t pos = 0;
    bool placed = false;
    for (int32_t k = 0; k < r->np && any_unfilled(r); k++) {
        int32_t s = r->SL[k];
        for (int32_t need = r->S - r->a->pcount[s]; need > 0;) {
            while (pos < r->n && !r->unfilled[pos]) pos++;
            if (pos == r->n) {
                if (!placed) break;
                pos = 0, placed = false;
                while (pos < r->n && !r->unfilled[pos]) pos++;
                if (pos == r->n) return;
            }
            int32_t i = pos++;
            if (*has_at(r, i, s)) continue;
            hold(r, i, s, true);
            need--, placed = true;
            if (r->mcount[i] >= r->desired[i]) r->unfilled[i] = false;
        }
    }
}

static void balance(sasg_t *a, const int32_t *L, int32_t n, const int32_t *SL, int32_t np) {
    if (n <= 0 || np <= 0) return;
    run_t r = {a, L, SL, n, np, (n + np - 1) / np, NULL, NULL, NULL, NULL};
    r.desired = gr__sg_xcalloc((size_t)n, sizeof(int32_t));
    r.mcount = gr__sg_xcalloc((size_t)n, sizeof(int32_t));
    r.unfilled = gr__sg_xcalloc((size_t)n, sizeof(bool));
    r.in_run = gr__sg_xcalloc((size_t)a->P, sizeof(bool));
    for (int32_t k = 0; k < np; k++) r.in_run[SL[k]] = true;
    double q = (double)(r.S * np) / (double)n; /* Java: int product, then double */
    for (int32_t i = 0; i < n; i++) r.desired[i] = (int32_t)ceil(q * (double)(i + 1)) - (int32_t)ceil(q * (double)i);
    for (int32_t i = 0; i < n; i++) keep_previous(&r, i);
    for (int32_t i = 0; i < n; i++) /* step 2: down to the count, lowest partitions first */
        for (int32_t k = 0; k < np && r.mcount[i] > r.desired[i]; k++) hold(&r, i, SL[k], false);
    for (int32_t k = 0; k < np; k++) /* step 3: down to S members, lowest members first */
        for (int32_t i = 0; i < n && a->pcount[SL[k]] > r.S; i++)
            if (*has_at(&r, i, SL[k])) hold(&r, i, SL[k], false);
    for (int32_t i = 0; i < n; i++) r.unfilled[i] = r.mcount[i] < r.desired[i];
    assign_remaining(&r);
    free(r.in_run);
    free(r.unfilled);
    free(r.mcount);
    free(r.desired);
}

static bool homogeneous(const sasg_t *a) {
    for (int32_t m = 1; m < a->M; m++)
        if (memcmp(&a->subscribed[(size_t)m * a->T], a->subscribed, (size_t)a->T * sizeof(bool))) return false;
    return true;
}

/* Members subscribed to any of the topics marked in tmask, and the slots of those topics. */
static void collect(const sasg_t *a, const bool *tmask, int32_t *L, int32_t *n, int32_t *SL, int32_t *np) {
    *n = *np = 0;
    for (int32_t m = 0; m < a->M; m++)
        for (int32_t t = 0; t < a->T; t++)
            if (tmask[t] && a->subscribed[(size_t)m * a->T + t]) {
                L[(*n)++] = m;
                break;
            }
    for (int32_t s = 0; s < a->P; s++)
        if (tmask[a->slot_t[s]]) SL[(*np)++] = s;
}

static void init(sasg_t *a, const gr_sg_assign_topic_t *topics, int32_t T, const gr_sg_assign_member_t *members,
                 int32_t M) {
    *a = (sasg_t){topics, members, T, M, 0, NULL, NULL, NULL, NULL, NULL};
    a->subscribed = gr__sg_xcalloc((size_t)M * (size_t)T + 1, sizeof(bool));
    for (int32_t m = 0; m < M; m++)
        for (int32_t i = 0; i < members[m].n_topics; i++)
            if (members[m].topics[i] >= 0 && members[m].topics[i] < T)
                a->subscribed[(size_t)m * T + members[m].topics[i]] = true;
    a->first = gr__sg_xcalloc((size_t)T + 1, sizeof(int32_t));
    for (int32_t t = 0; t < T; t++) a->first[t + 1] = a->first[t] + topics[t].n_partitions;
    a->P = a->first[T];
    a->slot_t = gr__sg_xcalloc((size_t)a->P + 1, sizeof(int32_t));
    for (int32_t t = 0; t < T; t++)
        for (int32_t s = a->first[t]; s < a->first[t + 1]; s++) a->slot_t[s] = t;
    a->has = gr__sg_xcalloc((size_t)M * (size_t)a->P + 1, sizeof(bool));
    a->pcount = gr__sg_xcalloc((size_t)a->P + 1, sizeof(int32_t));
}

void gr_sg_assign(const gr_sg_assign_topic_t *topics, int32_t n_topics, const gr_sg_assign_member_t *members,
                  int32_t n_members, gr_sg_assignment_t *out) {
    sasg_t a;
    init(&a, topics, n_topics, members, n_members);
    int32_t *L = gr__sg_xcalloc((size_t)n_members + 1, sizeof(int32_t)), n, *SL, np;
    SL = gr__sg_xcalloc((size_t)a.P + 1, sizeof(int32_t));
    bool *tmask = gr__sg_xcalloc((size_t)n_topics + 1, sizeof(bool));
    if (n_members > 0 && homogeneous(&a)) { /* all partitions of the common topics at once */
        memcpy(tmask, a.subscribed, (size_t)n_topics * sizeof(bool));
        collect(&a, tmask, L, &n, SL, &np);
        balance(&a, L, n, SL, np);
    } else { /* each topic alone over its subscribers */
        for (int32_t t = 0; t < n_topics; t++) {
            memset(tmask, 0, (size_t)n_topics * sizeof(bool));
            tmask[t] = true;
            collect(&a, tmask, L, &n, SL, &np);
            balance(&a, L, n, SL, np);
        }
    }
    gr__sg_tp_t *tps = gr__sg_xmalloc(((size_t)a.P + 1) * sizeof(*tps));
    for (int32_t m = 0; m < n_members; m++) {
        size_t k = 0;
        for (int32_t s = 0; s < a.P; s++)
            if (a.has[(size_t)m * a.P + s])
                tps[k++] = (gr__sg_tp_t){topics[a.slot_t[s]].topic_id,
                                         topics[a.slot_t[s]].partitions[s - a.first[a.slot_t[s]]]};
        gr__sg_assignment_from_tps(tps, k, &out[m]);
    }
    free(tps);
    free(tmask);
    free(SL);
    free(L);
    free(a.pcount);
    free(a.has);
    free(a.slot_t);
    free(a.first);
    free(a.subscribed);
}
