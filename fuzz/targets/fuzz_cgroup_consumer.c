/* libFuzzer target: the input bytes are a sequence of consumer-protocol (KIP-848)
 * operations on two groups of up to six members (cgroup/consumer.h): joins with topic
 * names, regexes (valid or not), assignors and instance ids; heartbeats at the member's
 * epoch (owning what it was told, or an arbitrary subset), at arbitrary epochs, leaves
 * (-1, -2, classic LeaveGroup), time passing (session and rebalance timeouts), offset
 * commit/fetch checks, and a store round trip (export into records, restore into a new
 * registry). Checked after every step: no partition is held (assigned or pending
 * revocation) by two members of a group; nothing leaks at the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/consumer.h"

typedef struct in {
    const uint8_t *p;
    size_t n;
} in_t;

static uint32_t take(in_t *in, uint32_t mod) {
    uint32_t v = 0;
    for (int i = 0; i < 2 && in->n; i++, in->p++, in->n--) v = (v << 8) | *in->p;
    return mod ? v % mod : v;
}

static const char *TOPICS[3] = {"ta", "tb", "tc"};
static const int32_t NPART[3] = {4, 2, 3};
static const char *GROUPS[2] = {"g0", "g1"};
static const char *MEMBERS[6] = {"m0", "m1", "m2", "m3", "m4", "m5"};
static const char *REGEX[4] = {"t[ab]", "t.*", "(x", "(?=t)t"};

static gr_uuid_t tid(int i) {
    gr_uuid_t u;
    memset(&u, 0, sizeof(u));
    u.b[15] = (uint8_t)(i + 1);
    return u;
}

static bool by_name(void *ctx, const char *name, gr_uuid_t *id, int32_t *n) {
    (void)ctx;
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, TOPICS[i])) {
            *id = tid(i);
            *n = NPART[i];
            return true;
        }
    return false;
}

static bool by_id(void *ctx, const gr_uuid_t *id, const char **name, int32_t *n) {
    (void)ctx;
    for (int i = 0; i < 3; i++) {
        gr_uuid_t u = tid(i);
        if (gr_uuid_eq(&u, id)) {
            *name = TOPICS[i];
            *n = NPART[i];
            return true;
        }
    }
    return false;
}

static void each(void *ctx, void (*fn)(void *arg, const char *name), void *arg) {
    (void)ctx;
    for (int i = 0; i < 3; i++) fn(arg, TOPICS[i]);
}

static int32_t g_epoch[2][6];
static int32_t g_owned[2][6][16];
static int32_t g_n_owned[2][6];

static void remember(int g, int m, const gr_cgc_hb_res_t *r) {
    if (r->error) return;
    g_epoch[g][m] = r->member_epoch;
    if (!r->has_assignment) return;
    g_n_owned[g][m] = 0;
    for (int32_t t = 0; t < r->assignment.n_topics; t++)
        for (int32_t i = 0; i < r->assignment.topics[t].n && g_n_owned[g][m] < 16; i++)
            g_owned[g][m][g_n_owned[g][m]++] =
                (r->assignment.topics[t].topic_id.b[15] << 8) | r->assignment.topics[t].partitions[i];
}

/* The owned partitions of a member as request topic-partitions (by topic). */
static int32_t owned_req(int g, int m, gr_cgc_tparts_t *tp, int32_t parts[3][16], in_t *in, bool subset) {
    int32_t n[3] = {0};
    for (int32_t i = 0; i < g_n_owned[g][m]; i++) {
        int t = (g_owned[g][m][i] >> 8) - 1;
        if (t < 0 || t > 2 || (subset && take(in, 2))) continue;
        parts[t][n[t]++] = g_owned[g][m][i] & 0xff;
    }
    int32_t k = 0;
    for (int t = 0; t < 3; t++)
        if (n[t]) tp[k++] = (gr_cgc_tparts_t){tid(t), parts[t], n[t]};
    return k;
}

static void check_disjoint(const gr_cg_registry_t *reg) {
    for (int g = 0; g < 2; g++) {
        gr_cgc_group_view_t v;
        char msg[128];
        if (gr_cgc_describe(reg, GROUPS[g], "uniform", &v, msg, sizeof(msg))) continue;
        uint8_t held[3][8] = {{0}};
        for (int32_t i = 0; i < v.n_members; i++)
            for (int32_t t = 0; t < v.members[i].assigned.n_topics; t++) {
                const gr_cgc_tparts_t *tp = &v.members[i].assigned.topics[t];
                int k = tp->topic_id.b[15] - 1;
                for (int32_t j = 0; j < tp->n; j++) {
                    if (k < 0 || k > 2 || tp->partitions[j] < 0 || tp->partitions[j] >= 8) abort();
                    if (held[k][tp->partitions[j]]++) abort(); /* held by two members */
                }
            }
        gr_cgc_view_free(&v);
    }
}

static void heartbeat(gr_cg_registry_t *reg, in_t *in, int64_t now, gr_cg_out_t *out) {
    static const gr_cgc_cfg_t cfg = {45000, 5000, 4, 1000, {"uniform", "range"}, 2};
    gr_cgc_topics_t view = {by_name, by_id, each, NULL};
    int g = (int)take(in, 2), m = (int)take(in, 6), kind = (int)take(in, 5);
    const char *topics[3];
    int32_t nt = 0;
    uint32_t mask = take(in, 8);
    for (int t = 0; t < 3; t++)
        if (mask & (1u << t)) topics[nt++] = TOPICS[t];
    gr_cgc_tparts_t tp[3];
    int32_t parts[3][16];
    gr_cgc_hb_req_t r = {.group_id = GROUPS[g],
                         .member_id = MEMBERS[m],
                         .rebalance_timeout_ms = -1,
                         .n_topics = -1,
                         .n_owned = -1,
                         .client_id = "c",
                         .client_host = "/h",
                         .version = 1};
    if (kind == 0) { /* join */
        r.member_epoch = 0;
        r.rebalance_timeout_ms = 30000;
        r.topics = take(in, 4) ? topics : NULL;
        r.n_topics = r.topics ? nt : -1;
        r.regex = take(in, 3) ? NULL : REGEX[take(in, 4)];
        r.server_assignor = take(in, 3) ? NULL : take(in, 2) ? "range" : "uniform";
        r.instance_id = take(in, 3) ? NULL : m % 2 ? "i1" : "i0";
        r.owned = tp;
        r.n_owned = 0;
    } else if (kind <= 2) { /* at its epoch, owning its partitions (or some of them) */
        r.member_epoch = g_epoch[g][m];
        r.n_owned = take(in, 4) ? owned_req(g, m, tp, parts, in, kind == 2) : -1;
        r.owned = r.n_owned >= 0 ? tp : NULL;
    } else if (kind == 3) { /* arbitrary epoch */
        r.member_epoch = (int32_t)take(in, 12) - 3;
    } else { /* leave */
        r.member_epoch = take(in, 2) ? -1 : -2;
        r.instance_id = take(in, 2) ? NULL : m % 2 ? "i1" : "i0";
    }
    gr_cgc_hb_res_t res;
    gr_cgc_heartbeat(reg, &r, &cfg, &view, now, &res, out);
    remember(g, m, &res);
    gr_cgc_hb_res_free(&res);
}

typedef struct rt {
    gr_cg_registry_t *to;
    const char *group;
} rt_t;

static void restore_member(void *arg, const gr_cgc_member_rec_t *m) {
    rt_t *t = arg;
    gr_cgc_restore_member(t->to, t->group, m, 45000, 0);
}

/* Export both groups and restore them into a new registry: the copy must hold too. */
static void round_trip(const gr_cg_registry_t *reg) {
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    gr_cg_registry_t *copy = gr_cg_registry_new(&c);
    for (int g = 0; g < 2; g++) {
        int32_t ge, ae;
        uint64_t h;
        rt_t t = {copy, GROUPS[g]};
        if (!gr_cgc_export(reg, GROUPS[g], &ge, &ae, &h, NULL, NULL)) continue;
        gr_cgc_restore_group(copy, GROUPS[g], ge, ae, h, 0);
        gr_cgc_export(reg, GROUPS[g], &ge, &ae, &h, restore_member, &t);
    }
    check_disjoint(copy);
    gr_cg_registry_free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    in_t in = {data, size};
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    gr_cg_registry_t *reg = gr_cg_registry_new(&c);
    memset(g_epoch, 0, sizeof(g_epoch));
    memset(g_n_owned, 0, sizeof(g_n_owned));
    int64_t now = 1000000;
    for (int steps = 0; in.n && steps < 400; steps++) {
        gr_cg_out_t out;
        gr_cg_out_init(&out);
        uint32_t op = take(&in, 8);
        if (op < 4) {
            heartbeat(reg, &in, now, &out);
        } else if (op == 4) {
            now += take(&in, 0) * 10;
            if (now >= gr_cg_next_deadline(reg)) gr_cg_tick(reg, now, &out);
        } else if (op == 5) {
            gr_cg_leave_member_t lm = {MEMBERS[take(&in, 6)], take(&in, 2) ? NULL : "i0", 0};
            gr_cgc_classic_leave(reg, GROUPS[take(&in, 2)], &lm, 1, now, &out);
        } else if (op == 6) {
            int g = (int)take(&in, 2), m = (int)take(&in, 6);
            (void)gr_cgc_commit_check(reg, GROUPS[g], MEMBERS[m], (int32_t)take(&in, 10) - 1, 9);
            (void)gr_cgc_fetch_check(reg, GROUPS[g], take(&in, 2) ? MEMBERS[m] : NULL, (int32_t)take(&in, 10) - 1);
        } else {
            round_trip(reg);
        }
        check_disjoint(reg);
        gr_cg_out_free(&out);
    }
    gr_cg_registry_free(reg);
    return 0;
}
