/* Share-partition transactions (gr_sp_begin / commit / rollback): a
 * transition whose durable write fails is undone completely (spec §3.4, §1.4;
 * docs/share-state.md "Failed writes").
 *
 * For every transition that produces a write (acquire with §1.8 archival,
 * ACCEPT, REJECT, RELEASE, GAP, RENEW, mixed per-offset types, SPSO moves,
 * lock expiry, member release, log-start movement) a rollback must give back
 * exactly the state before: per-range state, count, owner, deadline, SPSO,
 * SPEO, counters, timers (the next deadline and what expiry does later) and
 * the next fetch offset. A randomized test runs two SPs side by side: one
 * runs every operation inside a transaction and rolls back a random half, the
 * other runs only the committed operations; they must stay identical. */
#include <stdint.h>

#include "share/share_stats.h"
#include "share/sp.h"
#include "share/sp_int.h"
#include "testutil.h"

static const gr_sp_conf_t CONF = {5, 2000, 30000};

static void chk(const gr_sp_t *sp) {
    char why[256];
    if (gr_sp_check(sp, &CONF, why, sizeof(why))) GR__FAIL("invariant: %s", why);
}

/* Whole observable state, member ids by name (indexes may differ). */
static void same(gr_sp_t *a, gr_sp_t *b) {
    chk(a);
    chk(b);
    ASSERT_EQ(a->spso, b->spso);
    ASSERT_EQ(a->end, b->end);
    ASSERT_EQ(a->dcc, b->dcc);
    ASSERT_EQ(a->n_acquired, b->n_acquired);
    ASSERT_EQ(a->avail_hint, b->avail_hint);
    ASSERT_EQ(a->state_epoch, b->state_epoch);
    ASSERT_EQ(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const gr__sp_rng_t *x = GR__SP_AT(a, i), *y = GR__SP_AT(b, i);
        ASSERT_EQ(x->first, y->first);
        ASSERT_EQ(x->last, y->last);
        ASSERT_EQ(x->state, y->state);
        ASSERT_EQ(x->count, y->count);
        ASSERT_EQ(x->dl, y->dl);
        ASSERT_EQ(x->acq_at, y->acq_at);
        ASSERT_EQ(x->tracked, y->tracked);
        ASSERT_EQ(!x->member, !y->member);
        if (x->member) ASSERT_STREQ(a->members[x->member].id, b->members[y->member].id);
    }
    ASSERT_EQ(gr_sp_next_deadline(a), gr_sp_next_deadline(b));
    ASSERT_EQ(gr_sp_next_fetch_offset(a), gr_sp_next_fetch_offset(b));
}

static gr_sp_acquire_res_t g_res;

static int64_t acquire(gr_sp_t *sp, const char *m, int32_t max, int64_t now, const int64_t *lb, size_t nlb,
                       gr_sp_delta_t *d) {
    gr_sp_log_batch_t b[32];
    for (size_t i = 0; i < nlb; i++) b[i] = (gr_sp_log_batch_t){lb[2 * i], lb[2 * i + 1]};
    gr_sp_acquire_req_t req = {m, max, max, GR_SP_MODE_BATCH_OPTIMIZED, b, nlb};
    ASSERT_EQ(gr_sp_acquire(sp, &req, &CONF, now, &g_res, d), GR_ERR_NONE);
    return g_res.n_records;
}

#define LB(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / 16

static gr_err_t ack(gr_sp_t *sp, const char *m, int64_t first, int64_t last, const int8_t *types, size_t nt,
                    int64_t now, gr_sp_delta_t *d) {
    gr_sp_ack_batch_t b = {first, last, types, nt};
    gr_sp_ack_req_t req = {m, &b, 1, true, true};
    return gr_sp_acknowledge(sp, &req, &CONF, now, d, NULL, 0);
}

/* A window with variety: 0-9 ACQUIRED by a (one batch), 10-19 by b, 20-29
 * AVAILABLE count 1 (released by c), a per-offset split in 10-19. */
static void setup(gr_sp_t *sp) {
    gr_sp_init_offset(sp, 0, 3);
    ASSERT_EQ(acquire(sp, "a", 10, 1000, LB(0, 9), NULL), 10);
    ASSERT_EQ(acquire(sp, "b", 10, 2000, LB(10, 19), NULL), 10);
    ASSERT_EQ(acquire(sp, "c", 10, 3000, LB(20, 29), NULL), 10);
    ASSERT_EQ(gr_sp_release_member(sp, &CONF, "c", NULL), 10);
    int8_t t[] = {4, 4, 1, 4, 4, 4, 4, 4, 4, 4};
    ASSERT_EQ(ack(sp, "b", 10, 19, t, 10, 2500, NULL), GR_ERR_NONE); /* renew all but 12, accept 12 */
    chk(sp);
}

typedef void (*op_fn)(gr_sp_t *sp, gr_sp_delta_t *d);

static void op_accept(gr_sp_t *sp, gr_sp_delta_t *d) {
    int8_t t = GR_SP_ACK_ACCEPT;
    ASSERT_EQ(ack(sp, "a", 0, 9, &t, 1, 4000, d), GR_ERR_NONE);
    ASSERT_EQ(gr_sp_start_offset(sp), 10); /* SPSO moved */
}
static void op_reject(gr_sp_t *sp, gr_sp_delta_t *d) {
    int8_t t = GR_SP_ACK_REJECT;
    ASSERT_EQ(ack(sp, "a", 2, 5, &t, 1, 4000, d), GR_ERR_NONE);
}
static void op_release(gr_sp_t *sp, gr_sp_delta_t *d) {
    int8_t t = GR_SP_ACK_RELEASE;
    ASSERT_EQ(ack(sp, "b", 13, 19, &t, 1, 4000, d), GR_ERR_NONE);
}
static void op_mixed(gr_sp_t *sp, gr_sp_delta_t *d) {
    int8_t t[] = {1, 2, 3, 0, 4, 1, 1, 2, 3, 1};
    ASSERT_EQ(ack(sp, "a", 0, 9, t, 10, 4000, d), GR_ERR_NONE);
}
static void op_renew(gr_sp_t *sp, gr_sp_delta_t *d) {
    int8_t t = GR_SP_ACK_RENEW;
    ASSERT_EQ(ack(sp, "a", 0, 9, &t, 1, 9000, d), GR_ERR_NONE);
}
static void op_acquire(gr_sp_t *sp, gr_sp_delta_t *d) { /* redelivery of 20-29, new 30-39 */
    ASSERT_EQ(acquire(sp, "d", 20, 5000, LB(20, 29, 30, 39), d), 20);
}
static void op_acquire_gone(gr_sp_t *sp, gr_sp_delta_t *d) { /* §1.8: 20-29 vanished from the log */
    ASSERT(acquire(sp, "d", 20, 5000, LB(35, 39), d) > 0);
    ASSERT(d->n > 0);
}
static void op_expire(gr_sp_t *sp, gr_sp_delta_t *d) {
    gr_sp_expire(sp, &CONF, 100000, d);
    ASSERT_EQ(gr_sp_acquired_count(sp), 0);
}
static void op_release_member(gr_sp_t *sp, gr_sp_delta_t *d) { ASSERT_EQ(gr_sp_release_member(sp, &CONF, "b", d), 9); }
static void op_log_start(gr_sp_t *sp, gr_sp_delta_t *d) {
    gr_sp_update_log_start(sp, 25, d);
    ASSERT_EQ(gr_sp_start_offset(sp), 25);
}

static void test_rollback_each(void) {
    static const struct {
        const char *name;
        op_fn fn;
    } ops[] = {{"accept", op_accept},
               {"reject", op_reject},
               {"release", op_release},
               {"mixed", op_mixed},
               {"renew", op_renew},
               {"acquire", op_acquire},
               {"acquire_gone", op_acquire_gone},
               {"expire", op_expire},
               {"release_member", op_release_member},
               {"log_start", op_log_start}};
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        fprintf(stderr, "   %s\n", ops[k].name);
        gr_sp_t *a = gr_sp_new(), *ref = gr_sp_new();
        setup(a);
        setup(ref);
        gr_sp_delta_t d;
        gr_sp_delta_init(&d);
        gr_sp_begin(a);
        ASSERT(gr_sp_in_txn(a));
        ops[k].fn(a, &d);
        chk(a);
        gr_sp_rollback(a);
        ASSERT(!gr_sp_in_txn(a));
        same(a, ref);
        /* The restored SP behaves as before: the same op applies again and a
         * commit keeps it, as on a never-touched copy. */
        gr_sp_delta_reset(&d);
        gr_sp_begin(a);
        ops[k].fn(a, &d);
        gr_sp_commit(a);
        gr_sp_delta_t d2;
        gr_sp_delta_init(&d2);
        ops[k].fn(ref, &d2);
        same(a, ref);
        ASSERT_EQ(d.n, d2.n);
        for (size_t i = 0; i < d.n; i++) ASSERT_MEMEQ(&d.batches[i], &d2.batches[i], sizeof(d.batches[i]));
        gr_sp_delta_free(&d);
        gr_sp_delta_free(&d2);
        gr_sp_destroy(a);
        gr_sp_destroy(ref);
    }
}

/* §1.4/§3.4 as the issue states it: a rolled-back ACCEPT or REJECT leaves
 * the records ACQUIRED by the same member with the same count and lock; the
 * lock still expires on time and the records come back with their count. */
static void test_failed_ack_stays_acquired(void) {
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    ASSERT_EQ(acquire(sp, "m", 10, 0, LB(0, 9), NULL), 10);
    for (int type = GR_SP_ACK_ACCEPT; type <= GR_SP_ACK_REJECT; type++) {
        int8_t t = (int8_t)type;
        gr_sp_begin(sp);
        ASSERT_EQ(ack(sp, "m", 0, 9, &t, 1, 100, NULL), GR_ERR_NONE);
        gr_sp_rollback(sp);
        for (int64_t o = 0; o < 10; o++) {
            int s;
            int16_t c;
            const char *m;
            int64_t dl;
            ASSERT(gr_sp_record(sp, o, &s, &c, &m, &dl));
            ASSERT_EQ(s, GR_SP_ACQUIRED);
            ASSERT_EQ(c, 1);
            ASSERT_STREQ(m, "m");
            ASSERT_EQ(dl, CONF.lock_duration_ms);
        }
        ASSERT_EQ(gr_sp_start_offset(sp), 0);
        ASSERT_EQ(gr_sp_delivery_complete_count(sp), 0);
    }
    /* The same acknowledgement succeeds once the write does. */
    int8_t t = GR_SP_ACK_REJECT;
    gr_sp_begin(sp);
    ASSERT_EQ(ack(sp, "m", 0, 4, &t, 1, 100, NULL), GR_ERR_NONE);
    gr_sp_commit(sp);
    ASSERT_EQ(gr_sp_start_offset(sp), 5);
    gr_sp_expire(sp, &CONF, CONF.lock_duration_ms, NULL);
    ASSERT_EQ(acquire(sp, "n", 10, CONF.lock_duration_ms, LB(0, 9), NULL), 5);
    ASSERT_EQ(g_res.ranges[0].delivery_count, 2);
    gr_sp_destroy(sp);
}

/* Ids interned inside a rolled-back transaction are freed (ASan: no leak),
 * and ids released inside a committed one are collected later. */
static void test_members(void) {
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, 0, 0);
    char id[32];
    for (int i = 0; i < 300; i++) {
        snprintf(id, sizeof(id), "member-%d", i);
        gr_sp_begin(sp);
        int64_t got = acquire(sp, id, 1, i, (const int64_t[]){i, i}, 1, NULL);
        ASSERT(got >= 1);
        if (i % 2) {
            gr_sp_rollback(sp);
            continue;
        }
        gr_sp_commit(sp);
        gr_sp_begin(sp);
        ASSERT(gr_sp_release_member(sp, &CONF, id, NULL) >= 1);
        gr_sp_commit(sp);
        chk(sp);
    }
    ASSERT(sp->members_live < 200); /* collected after the commits */
    gr_sp_destroy(sp);
}

/* ---- randomized: rollbacks are invisible ---- */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static const char *MEM[] = {"m0", "m1", "m2", "m3"};

/* One random operation, the same on both SPs (choices drawn once). */
typedef struct rop {
    int kind, mem, type;
    int64_t first, last, now, arg;
} rop_t;

static void run_op(gr_sp_t *sp, const rop_t *o, int64_t hwm, gr_sp_delta_t *d) {
    switch (o->kind) {
    case 0: { /* acquire from the log 0..hwm in batches of 5 */
        int64_t next = gr_sp_next_fetch_offset(sp), lb[64];
        size_t n = 0;
        for (int64_t b = next - next % 5 + o->arg * 5; b < hwm && n < 16; b += 5, n++) {
            lb[2 * n] = b;
            lb[2 * n + 1] = b + 4 < hwm ? b + 4 : hwm - 1;
        }
        if (n && gr_sp_can_acquire(sp, &CONF)) acquire(sp, MEM[o->mem], (int32_t)(1 + o->type * 3), o->now, lb, n, d);
        break;
    }
    case 1: {
        int8_t t = (int8_t)o->type;
        (void)ack(sp, MEM[o->mem], o->first, o->last, &t, 1, o->now, d);
        break;
    }
    case 2: gr_sp_expire(sp, &CONF, o->now, d); break;
    case 3: gr_sp_release_member(sp, &CONF, MEM[o->mem], d); break;
    default: gr_sp_update_log_start(sp, o->arg, d); break;
    }
}

static void test_random(void) {
    for (int seq = 0; seq < 200; seq++) {
        gr_sp_t *a = gr_sp_new(), *b = gr_sp_new();
        gr_share_stats_t sa = {0}, sb = {0}; /* metrics: a rollback restores them too */
        gr_sp_set_stats(a, &sa);
        gr_sp_set_stats(b, &sb);
        gr_sp_init_offset(a, 0, 0);
        gr_sp_init_offset(b, 0, 0);
        gr_sp_delta_t d;
        gr_sp_delta_init(&d);
        int64_t now = 0, hwm = 200, log_start = 0;
        for (int step = 0; step < 300; step++) {
            now += rnd(3000);
            int64_t base = gr_sp_start_offset(a);
            rop_t o = {.kind = (int)rnd(20), .mem = (int)rnd(4), .type = (int)rnd(5), .now = now};
            o.kind = o.kind < 8 ? 0 : o.kind < 16 ? 1 : o.kind < 18 ? 2 : o.kind < 19 ? 3 : 4;
            o.first = base + rnd(20);
            o.last = o.first + rnd(6);
            o.arg = o.kind == 0 ? rnd(2) : log_start + rnd(3);
            if (o.kind == 4) log_start = o.arg;
            bool keep = rnd(2);
            gr_sp_begin(a);
            run_op(a, &o, hwm, &d);
            chk(a);
            if (keep) {
                gr_sp_commit(a);
                run_op(b, &o, hwm, NULL);
            } else {
                gr_sp_rollback(a);
            }
            gr_sp_delta_reset(&d);
            same(a, b);
            ASSERT_MEMEQ(&sa, &sb, sizeof(sa));
        }
        gr_sp_delta_free(&d);
        gr_sp_destroy(a);
        gr_sp_destroy(b);
    }
}

int main(void) {
    gr_sp_acquire_res_init(&g_res);
    RUN_TEST(test_rollback_each);
    RUN_TEST(test_failed_ack_stays_acquired);
    RUN_TEST(test_members);
    RUN_TEST(test_random);
    gr_sp_acquire_res_free(&g_res);
    return 0;
}
