/* libFuzzer target: the input bytes are a sequence of classic-group operations
 * (JoinGroup at any version with arbitrary protocol metadata, SyncGroup with
 * arbitrary assignments, Heartbeat, batch LeaveGroup, OffsetCommit checks and
 * offsets, OffsetDelete subscription checks that parse the members' metadata,
 * forgotten waiters, time passing) on two groups. Checked: every answer goes to
 * a request still waiting (never twice), and tearing down leaks nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup.h"

typedef struct in {
    const uint8_t *p;
    size_t n;
} in_t;

static uint32_t take(in_t *in, uint32_t mod) {
    uint32_t v = 0;
    for (int i = 0; i < 2 && in->n; i++, in->p++, in->n--) v = (v << 8) | *in->p;
    return mod ? v % mod : v;
}

#define N_WAITERS 64
static bool g_waiting[N_WAITERS];
static char g_ids[8][96]; /* member ids seen in answers */
static const char *GROUPS[2] = {"g0", "g1"};
static const char *INST[3] = {"i0", "i1", "i2"};

static void *new_waiter(in_t *in) {
    uint32_t w = take(in, N_WAITERS);
    if (g_waiting[w]) return NULL; /* still parked: use no waiter id twice */
    g_waiting[w] = true;
    return (void *)(uintptr_t)(w + 1);
}

static void drain(gr_cg_out_t *out) {
    for (int32_t i = 0; i < out->n_answers; i++) {
        uintptr_t w = (uintptr_t)out->answers[i].waiter;
        if (w < 1 || w > N_WAITERS || !g_waiting[w - 1]) abort(); /* answered twice or never asked */
        g_waiting[w - 1] = false;
        if (out->answers[i].member_id && out->answers[i].member_id[0])
            snprintf(g_ids[w % 8], sizeof(g_ids[0]), "%s", out->answers[i].member_id);
    }
    gr_cg_out_free(out);
    gr_cg_out_init(out);
}

static const char *member(in_t *in) {
    uint32_t k = take(in, 10);
    return k < 8 ? g_ids[k] : k == 8 ? "" : "stranger";
}

static void op_join(gr_cg_registry_t *r, in_t *in, int64_t now, gr_cg_out_t *out) {
    void *w = new_waiter(in);
    if (!w) return;
    gr_cg_protocol_t ps[2];
    int32_t np = (int32_t)take(in, 3);
    for (int32_t i = 0; i < np; i++) {
        const char *name = take(in, 2) ? "range" : "roundrobin";
        int32_t len = (int32_t)take(in, 24);
        if ((size_t)len > in->n) len = (int32_t)in->n;
        ps[i] = (gr_cg_protocol_t){name, in->p, len};
        in->p += len;
        in->n -= (size_t)len;
    }
    uint32_t inst = take(in, 4);
    gr_cg_join_req_t req = {.group_id = GROUPS[take(in, 2)],
                            .member_id = member(in),
                            .instance_id = inst < 3 ? INST[inst] : NULL,
                            .protocol_type = take(in, 4) ? "consumer" : "connect",
                            .client_id = "c",
                            .client_host = "/h",
                            .session_timeout_ms = (int32_t)take(in, 20000),
                            .rebalance_timeout_ms = (int32_t)take(in, 30000),
                            .protocols = ps,
                            .n_protocols = np,
                            .version = (int16_t)take(in, 10),
                            .waiter = w};
    gr_cg_join(r, &req, now, out);
}

static void op_sync(gr_cg_registry_t *r, in_t *in, int64_t now, gr_cg_out_t *out) {
    void *w = new_waiter(in);
    if (!w) return;
    gr_cg_assignment_t as[3];
    int32_t n = (int32_t)take(in, 4);
    for (int32_t i = 0; i < n; i++)
        as[i] = (gr_cg_assignment_t){member(in), (const uint8_t *)"xyz", (int32_t)take(in, 4)};
    gr_cg_sync_req_t s = {.group_id = GROUPS[take(in, 2)],
                          .member_id = member(in),
                          .instance_id = take(in, 2) ? NULL : INST[take(in, 3)],
                          .protocol_type = take(in, 2) ? "consumer" : NULL,
                          .protocol_name = take(in, 2) ? "range" : NULL,
                          .generation = (int32_t)take(in, 5) - 1,
                          .assignments = as,
                          .n_assignments = n,
                          .waiter = w};
    gr_cg_sync(r, &s, now, out);
}

static void op_other(gr_cg_registry_t *r, in_t *in, uint32_t op, int64_t *now, gr_cg_out_t *out) {
    const char *g = GROUPS[take(in, 2)];
    bool created;
    switch (op) {
    case 2: gr_cg_heartbeat(r, g, member(in), NULL, (int32_t)take(in, 5) - 1, *now, out); break;
    case 3: {
        gr_cg_leave_member_t ls[2] = {{member(in), take(in, 2) ? NULL : INST[take(in, 3)], 0}, {member(in), NULL, 0}};
        gr_cg_leave(r, g, ls, (int32_t)take(in, 3), *now, out);
        break;
    }
    case 4:
        if (!gr_cg_commit_check(r, g, member(in), NULL, (int32_t)take(in, 5) - 1, (int16_t)take(in, 11), *now,
                                &created))
            gr_cg_offset_put(r, g, take(in, 2) ? "t" : "u", (int32_t)take(in, 3),
                             &(gr_cg_offset_t){take(in, 0), -1, "m", *now, -1});
        break;
    case 5:
        if (!gr_cg_offset_delete_check(r, g) && !gr_cg_subscribed_to(r, g, "t")) gr_cg_offset_delete(r, g, "t", 0);
        break;
    case 6: gr_cg_forget_waiter(r, g, (void *)(uintptr_t)(take(in, N_WAITERS) + 1)); break;
    case 7:
        if (!gr_cg_delete_check(r, g)) gr_cg_delete(r, g, out);
        break;
    default: {
        *now += take(in, 40000);
        int64_t d = gr_cg_next_deadline(r);
        if (d <= *now) gr_cg_tick(r, *now, out);
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    in_t in = {data, size};
    memset(g_waiting, 0, sizeof(g_waiting));
    memset(g_ids, 0, sizeof(g_ids));
    gr_cg_config_t c;
    gr_cg_config_default(&c);
    c.initial_rebalance_delay_ms = (int32_t)take(&in, 3) * 100;
    c.max_size = 1 + (int32_t)take(&in, 4);
    c.offsets_retention_ms = 60000;
    c.retention_check_ms = 1000;
    gr_cg_registry_t *r = gr_cg_registry_new(&c);
    gr_cg_out_t out;
    gr_cg_out_init(&out);
    int64_t now = 1000;
    for (int steps = 0; in.n && steps < 400; steps++) {
        uint32_t op = take(&in, 10);
        if (op == 0)
            op_join(r, &in, now, &out);
        else if (op == 1)
            op_sync(r, &in, now, &out);
        else
            op_other(r, &in, op, &now, &out);
        drain(&out);
    }
    gr_cg_out_free(&out);
    gr_cg_registry_free(r);
    return 0;
}
