/* Unit tests for share/sp_registry.c: the share-partitions in memory by (group, topic,
 * partition): find, insert (past several growths), removal by group / topic /
 * partition / all, per-group iteration. */
#include "share/sp_registry.h"

#include "testutil.h"

typedef struct entry {
    int tag;
    gr_sp_key_t key; /* not first: the registry must not assume it is */
    bool freed;
} entry_t;

#define ENTRY(k) ((entry_t *)(void *)((char *)(k)-offsetof(entry_t, key)))

static gr_uuid_t tid(int i) {
    gr_uuid_t u = {{0}};
    u.b[0] = (uint8_t)i;
    u.b[7] = 0x42;
    return u;
}

#define N_GROUPS 5
#define N_TOPICS 4
#define N_PARTS  30
static entry_t ents[N_GROUPS][N_TOPICS][N_PARTS];
static char gids[N_GROUPS][8];

static void fill(gr_sp_registry_t *reg) {
    for (int g = 0; g < N_GROUPS; g++) {
        snprintf(gids[g], sizeof(gids[g]), "g%d", g);
        for (int t = 0; t < N_TOPICS; t++)
            for (int p = 0; p < N_PARTS; p++) {
                entry_t *e = &ents[g][t][p];
                *e = (entry_t){g * 10000 + t * 100 + p, {NULL, gids[g], tid(t), p}, false};
                gr_sp_registry_insert(reg, &e->key);
            }
    }
}

static void on_remove(void *arg, gr_sp_key_t *k) {
    ++*(int *)arg;
    ASSERT(!ENTRY(k)->freed);
    ENTRY(k)->freed = true;
}

static void count_each(void *arg, gr_sp_key_t *k) {
    ASSERT(!ENTRY(k)->freed);
    ++*(int *)arg;
}

static void test_find_insert(void) {
    gr_sp_registry_t *reg = gr_sp_registry_new();
    ASSERT_EQ(gr_sp_registry_count(reg), 0);
    gr_uuid_t t0 = tid(0);
    ASSERT(!gr_sp_registry_find(reg, "g0", &t0, 0));
    fill(reg); /* 600 entries: the table grows from 64 buckets several times */
    ASSERT_EQ(gr_sp_registry_count(reg), N_GROUPS * N_TOPICS * N_PARTS);
    for (int g = 0; g < N_GROUPS; g++)
        for (int t = 0; t < N_TOPICS; t++)
            for (int p = 0; p < N_PARTS; p++) {
                gr_uuid_t u = tid(t);
                gr_sp_key_t *k = gr_sp_registry_find(reg, gids[g], &u, p);
                ASSERT(k);
                ASSERT_EQ(ENTRY(k)->tag, g * 10000 + t * 100 + p);
            }
    gr_uuid_t other = tid(9);
    ASSERT(!gr_sp_registry_find(reg, "g0", &other, 0));
    ASSERT(!gr_sp_registry_find(reg, "g9", &t0, 0));
    ASSERT(!gr_sp_registry_find(reg, "g0", &t0, N_PARTS));
    ASSERT(!gr_sp_registry_find(NULL, "g0", &t0, 0));
    int n = 0;
    gr_sp_registry_each(reg, "g2", count_each, &n);
    ASSERT_EQ(n, N_TOPICS * N_PARTS);
    n = 0;
    gr_sp_registry_each(reg, NULL, count_each, &n);
    ASSERT_EQ(n, N_GROUPS * N_TOPICS * N_PARTS);
    int removed = 0;
    gr_sp_registry_remove(reg, NULL, NULL, -1, on_remove, &removed);
    gr_sp_registry_free(reg);
}

static void test_remove(void) {
    gr_sp_registry_t *reg = gr_sp_registry_new();
    fill(reg);
    int removed = 0;
    gr_uuid_t t1 = tid(1), t2 = tid(2);
    /* one partition of one group */
    ASSERT_EQ(gr_sp_registry_remove(reg, "g0", &t1, 7, on_remove, &removed), 1);
    ASSERT(ents[0][1][7].freed);
    ASSERT(!gr_sp_registry_find(reg, "g0", &t1, 7));
    ASSERT(gr_sp_registry_find(reg, "g1", &t1, 7));
    /* a topic in every group (a deleted topic) */
    ASSERT_EQ(gr_sp_registry_remove(reg, NULL, &t2, -1, on_remove, &removed), N_GROUPS * N_PARTS);
    for (int g = 0; g < N_GROUPS; g++) ASSERT(ents[g][2][0].freed && ents[g][2][N_PARTS - 1].freed);
    ASSERT(!ents[1][1][0].freed);
    /* a whole group */
    ASSERT_EQ(gr_sp_registry_remove(reg, "g3", NULL, -1, on_remove, &removed), (N_TOPICS - 1) * N_PARTS);
    int n = 0;
    gr_sp_registry_each(reg, "g3", count_each, &n);
    ASSERT_EQ(n, 0);
    ASSERT_EQ(gr_sp_registry_remove(reg, "g3", NULL, -1, on_remove, &removed), 0); /* nothing left */
    size_t left = gr_sp_registry_count(reg);
    ASSERT_EQ(left, (size_t)(N_GROUPS * N_TOPICS * N_PARTS) - 1 - N_GROUPS * N_PARTS - (N_TOPICS - 1) * N_PARTS);
    ASSERT_EQ((size_t)removed + left, (size_t)(N_GROUPS * N_TOPICS * N_PARTS));
    /* everything */
    ASSERT_EQ(gr_sp_registry_remove(reg, NULL, NULL, -1, on_remove, &removed), left);
    ASSERT_EQ(gr_sp_registry_count(reg), 0);
    for (int g = 0; g < N_GROUPS; g++)
        for (int t = 0; t < N_TOPICS; t++)
            for (int p = 0; p < N_PARTS; p++) ASSERT(ents[g][t][p].freed);
    /* re-insert after removal */
    entry_t e = {1, {NULL, "g0", tid(1), 7}, false};
    gr_sp_registry_insert(reg, &e.key);
    ASSERT(gr_sp_registry_find(reg, "g0", &t1, 7) == &e.key);
    ASSERT_EQ(gr_sp_registry_remove(NULL, NULL, NULL, -1, on_remove, &removed), 0);
    gr_sp_registry_remove(reg, NULL, NULL, -1, on_remove, &removed);
    gr_sp_registry_free(reg);
    gr_sp_registry_free(NULL);
}

int main(void) {
    RUN_TEST(test_find_insert);
    RUN_TEST(test_remove);
    return 0;
}
