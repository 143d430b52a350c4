/* Unit tests for the share-group SimpleAssignor (src/share/group_assign_simple.c, Kafka 4.4.0). */
#include <math.h>
#include <stdlib.h>

#include "share/group.h"
#include "testutil.h"

#define MAXP 64
#define MAXM 64

static gr_uuid_t tid(int i) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)(i + 1);
    u.b[15] = 0x5a;
    return u;
}

typedef struct world {
    int32_t nt;
    gr_sg_assign_topic_t topics[8];
    int32_t parts[8][MAXP];
    int32_t nm;
    char ids[MAXM][40];
    int32_t subs[MAXM][8];
    gr_sg_assign_member_t members[MAXM];
    gr_sg_assignment_t cur[MAXM], out[MAXM];
} world_t;

static void world_topic(world_t *w, int32_t n_parts) {
    int32_t t = w->nt++;
    for (int32_t p = 0; p < n_parts; p++) w->parts[t][p] = p;
    w->topics[t] = (gr_sg_assign_topic_t){tid(t), w->parts[t], n_parts};
}

/* Member subscribed to topics given as a bit mask. */
static void world_member(world_t *w, const char *id, unsigned mask) {
    int32_t m = w->nm++;
    snprintf(w->ids[m], sizeof(w->ids[m]), "%s", id);
    int32_t k = 0;
    for (int32_t t = 0; t < w->nt; t++)
        if (mask & (1u << t)) w->subs[m][k++] = t;
    w->members[m] = (gr_sg_assign_member_t){w->ids[m], w->subs[m], k, NULL};
}

static void world_run(world_t *w) {
    for (int32_t m = 0; m < w->nm; m++) w->members[m].current = w->cur[m].n_topics ? &w->cur[m] : NULL;
    gr_sg_assign(w->topics, w->nt, w->members, w->nm, w->out);
}

/* Previous output becomes the current assignment. */
static void world_advance(world_t *w) {
    for (int32_t m = 0; m < w->nm; m++) {
        gr_sg_assignment_free(&w->cur[m]);
        w->cur[m] = w->out[m];
        memset(&w->out[m], 0, sizeof(w->out[m]));
    }
}

static void world_free(world_t *w) {
    for (int32_t m = 0; m < MAXM; m++) gr_sg_assignment_free(&w->cur[m]), gr_sg_assignment_free(&w->out[m]);
}

static int32_t holders(const world_t *w, int32_t t, int32_t p) {
    int32_t n = 0;
    for (int32_t m = 0; m < w->nm; m++) n += gr_sg_assignment_has(&w->out[m], &w->topics[t].topic_id, p);
    return n;
}

static bool subscribes(const world_t *w, int32_t m, const gr_uuid_t *id) {
    for (int32_t k = 0; k < w->members[m].n_topics; k++)
        if (!memcmp(&w->topics[w->members[m].topics[k]].topic_id, id, sizeof(*id))) return true;
    return false;
}

static void test_java_hash(void) {
    ASSERT_EQ(gr_sg_java_hash(""), 0);
    ASSERT_EQ(gr_sg_java_hash("a"), 97);
    ASSERT_EQ(gr_sg_java_hash("hello"), 99162322);
    ASSERT_EQ(gr_sg_java_hash("polygenelubricants"), INT32_MIN);
    ASSERT_EQ(gr_sg_java_hash("\xc3\xa9"), 233);             /* U+00E9 */
    ASSERT_EQ(gr_sg_java_hash("\xf0\x9f\x98\x80"), 1772899); /* U+1F600 as a surrogate pair */
    ASSERT_EQ(gr_sg_java_hash("3qNrp1m3TKGqmdQ9rj6ukw"), gr_sg_java_hash("3qNrp1m3TKGqmdQ9rj6ukw"));
}

static void random_id(char *out, unsigned *seed) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (int i = 0; i < 22; i++) out[i] = a[rand_r(seed) % 64];
    out[22] = '\0';
}

/* Kafka 4.4.0's targets for M members on P partitions (SimpleHomogeneousAssignmentBuilder):
 * S = ceil(M / P) members per partition, member i wants ceil(q(i+1)) - ceil(qi) partitions
 * with q = S * P / M. */
static int32_t kafka_desired(int32_t M, int32_t P, int32_t i) {
    int32_t S = (M + P - 1) / P;
    double q = (double)(S * P) / (double)M;
    return (int32_t)ceil(q * (i + 1)) - (int32_t)ceil(q * i);
}

/* exact: every partition has S members and every member its count (a fresh or unchanged
 * group); otherwise (after churn) at most that, and every partition at least one. */
static void check_homogeneous_mode(world_t *w, bool exact) {
    int32_t P = w->topics[0].n_partitions, M = w->nm, S = (M + P - 1) / P;
    int32_t total = 0, want = 0;
    for (int32_t m = 0; m < M; m++) {
        int32_t c = gr_sg_assignment_count(&w->out[m]), d = kafka_desired(M, P, m);
        ASSERT(c <= d);
        total += c, want += d;
    }
    /* The counts can sum to more than S * P (ceil of a double a hair above an integer, in
     * Java as here, e.g. M=19, P=3): then some member stays one short. */
    if (exact) ASSERT_EQ(total, S * P);
    if (exact && want == S * P) ASSERT_EQ(total, want);
    for (int32_t p = 0; p < P; p++) {
        int32_t h = holders(w, 0, p);
        if (exact) ASSERT_EQ(h, S);
        ASSERT(h >= 1 && h <= S);
    }
}

static void check_homogeneous(world_t *w) { check_homogeneous_mode(w, true); }

/* Exact results worked out by hand from Kafka 4.4.0's algorithm (members in the order
 * given, partitions ascending): the round-robin over unfilled members restarts from the
 * first one while the previous pass placed something. */
static void expect_fresh(int32_t M, int32_t P, const char *want) {
    world_t *w = calloc(1, sizeof(*w));
    world_topic(w, P);
    for (int32_t m = 0; m < M; m++) {
        char id[16];
        snprintf(id, sizeof(id), "m%d", m);
        world_member(w, id, 1);
    }
    world_run(w);
    char got[512] = "";
    for (int32_t m = 0; m < M; m++) {
        size_t n = strlen(got);
        snprintf(got + n, sizeof(got) - n, "%s%d:", m ? " " : "", m);
        for (int32_t p = 0; p < P; p++)
            if (gr_sg_assignment_has(&w->out[m], &w->topics[0].topic_id, p)) {
                n = strlen(got);
                snprintf(got + n, sizeof(got) - n, "%s%d", got[n - 1] == ':' ? "" : ",", p);
            }
    }
    ASSERT_STREQ(got, want);
    world_free(w);
    free(w);
}

static void test_kafka_exact(void) {
    expect_fresh(5, 3, "0:0,2 1:0 2:1 3:1 4:2");           /* S=2, counts 2,1,1,1,1: 2/2/2 per partition */
    expect_fresh(4, 3, "0:0,2 1:0 2:1,2 3:1");             /* S=2, counts 2,1,2,1 */
    expect_fresh(2, 3, "0:0,2 1:1");                       /* S=1, counts 2,1 */
    expect_fresh(3, 7, "0:0,3,6 1:1,4 2:2,5");             /* S=1, counts 3,2,2 */
    expect_fresh(7, 3, "0:0,2 1:0 2:0 3:1,2 4:1 5:1 6:2"); /* S=3, counts 2,1,1,2,1,1,1 */
    expect_fresh(3, 3, "0:0 1:1 2:2");
    expect_fresh(6, 2, "0:0 1:0 2:0 3:1 4:1 5:1");
    /* Heterogeneous (SimpleHeterogeneousAssignmentBuilder): each topic alone over its
     * subscribers in member order. t0 (4 partitions): a, b -> a {0,2}, b {1,3}; t1 (2
     * partitions): b, c, e, f -> S = 2, one each: b, c on 0 and e, f on 1. */
    {
        world_t *h = calloc(1, sizeof(*h));
        world_topic(h, 4);
        world_topic(h, 2);
        world_member(h, "a", 1);
        world_member(h, "b", 3);
        world_member(h, "c", 2);
        world_member(h, "e", 2);
        world_member(h, "f", 2);
        world_run(h);
        static const int want[5][2][4] = {
            {{0, 2, -1}, {-1}}, {{1, 3, -1}, {0, -1}}, {{-1}, {0, -1}}, {{-1}, {1, -1}}, {{-1}, {1, -1}}};
        for (int32_t m = 0; m < 5; m++) {
            int32_t n = 0;
            for (int32_t t = 0; t < 2; t++)
                for (int k = 0; want[m][t][k] >= 0; k++, n++)
                    ASSERT(gr_sg_assignment_has(&h->out[m], &h->topics[t].topic_id, want[m][t][k]));
            ASSERT_EQ(gr_sg_assignment_count(&h->out[m]), n);
        }
        world_free(h);
        free(h);
    }
    /* Sticky: a holds all three partitions, b joins (counts 2,1): a drops its lowest. */
    world_t *w = calloc(1, sizeof(*w));
    world_topic(w, 3);
    world_member(w, "a", 1);
    world_run(w);
    world_advance(w);
    world_member(w, "b", 1);
    world_run(w);
    ASSERT_EQ(gr_sg_assignment_count(&w->out[0]), 2);
    ASSERT(!gr_sg_assignment_has(&w->out[0], &w->topics[0].topic_id, 0));
    ASSERT_EQ(gr_sg_assignment_count(&w->out[1]), 1);
    ASSERT(gr_sg_assignment_has(&w->out[1], &w->topics[0].topic_id, 0));
    world_free(w);
    free(w);
}

static void test_homogeneous_properties(void) {
    unsigned seed = 42;
    for (int32_t P = 1; P <= 24; P++)
        for (int32_t M = 1; M <= 30; M++) {
            world_t *w = calloc(1, sizeof(*w));
            world_topic(w, P);
            for (int32_t m = 0; m < M; m++) {
                char id[23];
                random_id(id, &seed);
                world_member(w, id, 1);
            }
            world_run(w);
            check_homogeneous(w);
            /* Nothing changed: the assignment is stable. */
            world_advance(w);
            world_run(w);
            check_homogeneous(w);
            for (int32_t m = 0; m < M; m++) ASSERT(gr_sg_assignment_equal(&w->cur[m], &w->out[m]));
            world_free(w);
            free(w);
        }
}

/* Two topics, same subscription: partitions spread topic by topic, still balanced. */
static void test_homogeneous_two_topics(void) {
    world_t *w = calloc(1, sizeof(*w));
    world_topic(w, 3);
    world_topic(w, 5);
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof(id), "m%d", i);
        world_member(w, id, 3);
    }
    world_run(w);
    int32_t total = 0;
    for (int32_t m = 0; m < 3; m++) {
        int32_t c = gr_sg_assignment_count(&w->out[m]);
        ASSERT(c == 2 || c == 3);
        total += c;
    }
    ASSERT_EQ(total, 8);
    for (int32_t t = 0; t < 2; t++)
        for (int32_t p = 0; p < w->topics[t].n_partitions; p++) ASSERT_EQ(holders(w, t, p), 1);
    world_free(w);
    free(w);
}

/* A member joins or leaves: the others keep what they can. */
static void test_stickiness(void) {
    unsigned seed = 7;
    int32_t moved_total = 0, kept_total = 0;
    for (int round = 0; round < 50; round++) {
        world_t *w = calloc(1, sizeof(*w));
        int32_t P = 6 + round % 20, M = 2 + round % 5;
        world_topic(w, P);
        for (int32_t m = 0; m < M; m++) {
            char id[23];
            random_id(id, &seed);
            world_member(w, id, 1);
        }
        world_run(w);
        world_advance(w);
        /* Remove the last member: remaining members must keep every partition they had
         * (their fair share only grows). */
        w->nm--;
        gr_sg_assignment_free(&w->cur[w->nm]);
        world_run(w);
        check_homogeneous_mode(w, false);
        for (int32_t m = 0; m < w->nm; m++) {
            const gr_sg_assignment_t *c = &w->cur[m];
            for (int32_t i = 0; i < c->n_topics; i++)
                for (int32_t j = 0; j < c->topics[i].n_partitions; j++) {
                    bool kept = gr_sg_assignment_has(&w->out[m], &c->topics[i].topic_id, c->topics[i].partitions[j]);
                    kept_total += kept, moved_total += !kept;
                }
        }
        world_free(w);
        free(w);
    }
    ASSERT_EQ(moved_total, 0);
    ASSERT(kept_total > 0);
}

/* Adding a member moves only about a fair share of partitions. */
static void test_stickiness_on_join(void) {
    world_t *w = calloc(1, sizeof(*w));
    world_topic(w, 12);
    world_member(w, "alpha", 1);
    world_member(w, "bravo", 1);
    world_member(w, "charlie", 1);
    world_run(w);
    world_advance(w);
    world_member(w, "delta", 1);
    world_run(w);
    check_homogeneous(w);
    int32_t moved = 0;
    for (int32_t m = 0; m < 3; m++) {
        const gr_sg_assignment_t *c = &w->cur[m];
        for (int32_t j = 0; j < c->topics[0].n_partitions; j++)
            moved += !gr_sg_assignment_has(&w->out[m], &c->topics[0].topic_id, c->topics[0].partitions[j]);
    }
    ASSERT(moved <= 3 + 1); /* the new member's 3, plus at most one hash-step move */
    world_free(w);
    free(w);
}

/* Members >= partitions: joins and leaves keep one partition per member and even sharing. */
static void test_many_members_churn(void) {
    unsigned seed = 99;
    for (int round = 0; round < 40; round++) {
        world_t *w = calloc(1, sizeof(*w));
        int32_t P = 1 + round % 6, M = P + round % 7;
        world_topic(w, P);
        for (int32_t m = 0; m < M; m++) {
            char id[23];
            random_id(id, &seed);
            world_member(w, id, 1);
        }
        world_run(w);
        check_homogeneous_mode(w, false);
        for (int step = 0; step < 6; step++) {
            world_advance(w);
            if (step % 2 == 0) {
                char id[23];
                random_id(id, &seed);
                world_member(w, id, 1);
            } else {
                w->nm--;
                gr_sg_assignment_free(&w->cur[w->nm]);
            }
            world_run(w);
            check_homogeneous_mode(w, false);
        }
        world_free(w);
        free(w);
    }
}

/* Heterogeneous: members only get what they subscribe to; every partition with a
 * subscriber is covered; a member whose topics have nothing assignable gets nothing. */
static void test_heterogeneous(void) {
    world_t *w = calloc(1, sizeof(*w));
    world_topic(w, 4); /* t0 */
    world_topic(w, 2); /* t1 */
    world_topic(w, 0); /* t2: nothing initialized yet */
    world_member(w, "a", 1);
    world_member(w, "b", 3);
    world_member(w, "c", 2);
    world_member(w, "d", 4);
    world_member(w, "e", 2);
    world_member(w, "f", 2);
    world_run(w);
    for (int32_t m = 0; m < w->nm; m++)
        for (int32_t i = 0; i < w->out[m].n_topics; i++) ASSERT(subscribes(w, m, &w->out[m].topics[i].topic_id));
    for (int32_t t = 0; t < 2; t++)
        for (int32_t p = 0; p < w->topics[t].n_partitions; p++) ASSERT(holders(w, t, p) >= 1);
    ASSERT_EQ(w->out[3].n_topics, 0);
    for (int32_t m = 0; m < w->nm; m++)
        if (m != 3) ASSERT(gr_sg_assignment_count(&w->out[m]) >= 1);
    /* t1 has 2 partitions and 4 subscribers (b, c, e, f): shared 2/2 at most 3/1. */
    ASSERT(holders(w, 1, 0) >= 1 && holders(w, 1, 1) >= 1);
    world_advance(w);
    world_run(w);
    for (int32_t m = 0; m < w->nm; m++) ASSERT(gr_sg_assignment_equal(&w->cur[m], &w->out[m]));
    world_free(w);
    free(w);
}

static void test_empty_inputs(void) {
    world_t *w = calloc(1, sizeof(*w));
    world_member(w, "x", 0);
    world_run(w);
    ASSERT_EQ(w->out[0].n_topics, 0);
    world_free(w);
    free(w);
    gr_sg_assign(NULL, 0, NULL, 0, NULL);
}

int main(void) {
    RUN_TEST(test_java_hash);
    RUN_TEST(test_kafka_exact);
    RUN_TEST(test_homogeneous_properties);
    RUN_TEST(test_homogeneous_two_topics);
    RUN_TEST(test_stickiness);
    RUN_TEST(test_stickiness_on_join);
    RUN_TEST(test_many_members_churn);
    RUN_TEST(test_heterogeneous);
    RUN_TEST(test_empty_inputs);
    return 0;
}
