/* libFuzzer target: the ConsumerProtocol decoders of libgregor's group consumer
 * (src/client/consumer_assignor.c), which read what other members of a classic group send
 * through the coordinator: a JoinGroup member's Subscription (the leader decodes every
 * member's) and a SyncGroup Assignment.
 *
 * Input byte 0 bit 0: 0 Subscription, 1 Assignment; the rest is the bytes.
 * Invariants: decoding never reads outside the input (ASan, exact-size copy); a refused
 * input leaves nothing allocated; a decoded value re-encodes (version 3) and decodes to
 * the same topics, partitions and generation; the assignors run on decoded subscriptions
 * without crashing and hand out each partition at most once. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "client/consumer_assignor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_list(const gr__tplist_t *a, const gr__tplist_t *b) {
    assert(a->n == b->n);
    for (size_t i = 0; i < a->n; i++)
        assert(a->v[i].partition == b->v[i].partition && !strcmp(a->v[i].topic, b->v[i].topic));
}

static void fuzz_sub(const uint8_t *p, size_t n) {
    gr__cp_sub_t s;
    if (gr__cp_sub_decode(p, n, &s)) {
        assert(!s.n_topics && !s.owned.n);
        return;
    }
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr__cp_sub_encode(&wb, (const char *const *)s.topics, s.n_topics, &s.owned, s.generation);
    gr__cp_sub_t back;
    assert(gr__cp_sub_decode(wb.mem, wb.len, &back) == GR_ERR_NONE);
    assert(back.n_topics == s.n_topics && back.generation == s.generation);
    for (size_t i = 0; i < s.n_topics; i++) assert(!strcmp(back.topics[i], s.topics[i]));
    same_list(&back.owned, &s.owned);
    /* Two members with this subscription over its topics (3 partitions each). */
    gr__cg_topic_t *t = calloc(s.n_topics + 1, sizeof(*t));
    for (size_t i = 0; i < s.n_topics; i++) t[i] = (gr__cg_topic_t){s.topics[i], 3};
    static const char *const assignors[] = {"range", "roundrobin", "cooperative-sticky"};
    for (int k = 0; k < 3; k++) {
        gr__cg_member_t m[2] = {{"m-1", NULL, s.topics, s.n_topics, {0}, &s.owned, s.generation},
                                {"m-2", "i", s.topics, s.n_topics, {0}, &back.owned, 0}};
        assert(gr__assign(assignors[k], m, 2, t, s.n_topics));
        for (size_t i = 0; i < m[0].out.n; i++)
            assert(!gr__tplist_has(&m[1].out, m[0].out.v[i].topic, m[0].out.v[i].partition));
        gr__tplist_free(&m[0].out);
        gr__tplist_free(&m[1].out);
    }
    free(t);
    gr__cp_sub_free(&back);
    gr__cp_sub_free(&s);
    gr_wbuf_free(&wb);
}

static void fuzz_assignment(const uint8_t *p, size_t n) {
    gr__tplist_t l = {0};
    if (gr__cp_assignment_decode(p, n, &l)) {
        assert(l.n == 0);
        gr__tplist_free(&l);
        return;
    }
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr__cp_assignment_encode(&wb, &l);
    gr__tplist_t back = {0};
    assert(gr__cp_assignment_decode(wb.mem, wb.len, &back) == GR_ERR_NONE);
    same_list(&back, &l);
    gr__tplist_free(&back);
    gr__tplist_free(&l);
    gr_wbuf_free(&wb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
    if (!copy) return 0;
    memcpy(copy, data + 1, size - 1);
    if (data[0] & 1)
        fuzz_assignment(copy, size - 1);
    else
        fuzz_sub(copy, size - 1);
    free(copy);
    return 0;
}
