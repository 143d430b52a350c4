/* libFuzzer target for client quotas: the store file (src/auth/quota_file.c) and Kafka's
 * validation of decoded AlterClientQuotas / DescribeClientQuotas requests
 * (src/auth/quota_alter.c, quota_resolve.c). The request decoders themselves are fuzzed by
 * fuzz_req_48 and fuzz_req_49.
 *
 * Input: first byte selects: 0 a gregor.quotas file; 1 an AlterClientQuotas v1 body; 2 a
 * DescribeClientQuotas v1 body. Invariants (abort on violation): nothing reads outside the
 * input (ASan); an applied alteration leaves a store whose file parses back to the same
 * entities and values; a filter that passes the check matches without crashing; every
 * entity resolves for each key. Host names are never looked up (no network). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/quota.h"
#include "base/arena.h"
#include "proto/codec.h"
#include "proto_msgs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool no_dns(const char *name) { return name[0] == 'h'; }

static void roundtrip(const gr_quota_store_t *s) {
    size_t len;
    char *text = gr_quota_store_format(s, &len), why[256];
    gr_quota_store_t back;
    if (gr_quota_store_parse(&back, text, len, why, sizeof(why))) abort();
    if (back.n != s->n) abort();
    for (size_t i = 0; i < s->n; i++)
        if (back.e[i].types != s->e[i].types || back.e[i].set != s->e[i].set) abort();
    gr_quota_store_free(&back);
    free(text);
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < GR_QK__N; k++) {
            gr_quota_resolved_t r;
            gr_quota_resolve(s, (gr_quota_key_t)k, s->e[i].user ? s->e[i].user : "u",
                             s->e[i].client ? s->e[i].client : "c", &r);
        }
}

static char *cstr(gr_arena_t *a, gr_str_t s) { return s.len < 0 ? NULL : gr_arena_strndup(a, s.ptr, (size_t)s.len); }

static void alter(gr_arena_t *a, const gr_AlterClientQuotasRequest_t *r) {
    size_t n = r->Entries.n > 0 ? (size_t)r->Entries.n : 0;
    gr_quota_alter_t *al = gr_arena_alloc(a, (n + 1) * sizeof(*al));
    memset(al, 0, (n + 1) * sizeof(*al));
    for (size_t i = 0; i < n; i++) {
        const gr_AlterClientQuotasRequest_EntryData_t *e = &r->Entries.v[i];
        size_t np = e->Entity.n > 0 ? (size_t)e->Entity.n : 0, no = e->Ops.n > 0 ? (size_t)e->Ops.n : 0;
        gr_quota_pair_t *pairs = gr_arena_alloc(a, (np + 1) * sizeof(*pairs));
        gr_quota_op_t *ops = gr_arena_alloc(a, (no + 1) * sizeof(*ops));
        for (size_t k = 0; k < np; k++) {
            char *t = cstr(a, e->Entity.v[k].EntityType);
            pairs[k].type = t ? t : "";
            pairs[k].name = cstr(a, e->Entity.v[k].EntityName);
        }
        for (size_t k = 0; k < no; k++) {
            char *key = cstr(a, e->Ops.v[k].Key);
            ops[k] = (gr_quota_op_t){key ? key : "", e->Ops.v[k].Value, e->Ops.v[k].Remove};
        }
        al[i] = (gr_quota_alter_t){.pairs = pairs, .n_pairs = np, .ops = ops, .n_ops = no};
        al[i].map = gr_arena_alloc(a, (np + 1) * sizeof(*al[i].map));
    }
    gr_quota_store_t s;
    gr_quota_store_init(&s);
    gr_quota_alter_validate(&s, al, n);
    gr_quota_alter_apply(&s, al, n);
    roundtrip(&s);
    gr_quota_store_free(&s);
}

static void describe(gr_arena_t *a, const gr_DescribeClientQuotasRequest_t *r) {
    size_t n = r->Components.n > 0 ? (size_t)r->Components.n : 0;
    gr_quota_filter_comp_t *c = gr_arena_alloc(a, (n + 1) * sizeof(*c));
    for (size_t i = 0; i < n; i++) {
        char *t = cstr(a, r->Components.v[i].EntityType);
        c[i] = (gr_quota_filter_comp_t){t ? t : "", r->Components.v[i].MatchType, cstr(a, r->Components.v[i].Match)};
    }
    char msg[512];
    if (gr_quota_filter_check(c, n, msg, sizeof(msg))) return;
    gr_quota_entry_t e[3] = {{.types = GR_QE_USER, .user = "alice"},
                             {.types = GR_QE_USER | GR_QE_CLIENT, .client = "c"},
                             {.types = GR_QE_IP, .ip = "1.2.3.4"}};
    for (int i = 0; i < 3; i++) gr_quota_filter_match(c, n, r->Strict, &e[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gr_quota_host_resolves = no_dns;
    if (size < 1) return 0;
    uint8_t sel = data[0] % 3;
    data++, size--;
    if (sel == 0) {
        gr_quota_store_t s;
        char why[256];
        if (!gr_quota_store_parse(&s, (const char *)data, size, why, sizeof(why))) {
            roundtrip(&s);
            gr_quota_store_free(&s);
        }
        return 0;
    }
    gr_arena_t a;
    gr_arena_init(&a);
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, data, size);
    const gr_msg_desc_t *m = gr_api_request(sel == 1 ? GR_API_AlterClientQuotas : GR_API_DescribeClientQuotas);
    void *body = gr_struct_alloc(&a, m->body, 1);
    if (gr_decode(m, 1, &rb, &a, body) == GR_ERR_NONE) {
        if (sel == 1)
            alter(&a, body);
        else
            describe(&a, body);
    }
    gr_arena_free(&a);
    return 0;
}
