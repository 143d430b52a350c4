/* DescribeTransactions (65) and ListTransactions (66, v0-2): the coordinator's view
 * of transactional ids, as Apache Kafka 4.4.0 answers them (kafka-transactions.sh). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "base/clock.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/txn_coord.h"
#include "proto_msgs.h"

typedef gr_DescribeTransactionsResponse_TransactionState_t dt_state_t;

/* The topics of t's transaction the principal may describe, grouped by topic. */
static void describe_topics(gr_req_t *req, const gr_txn_t *t, dt_state_t *s) {
    int32_t n = t->m.n_parts;
    s->Topics.v = gr_req_alloc(req, &gr_DescribeTransactionsResponse_TopicData_sd, n);
    s->Topics.n = 0;
    for (int32_t i = 0; i < n; i++) {
        const gr_txn_tpart_t *p = &t->m.parts[i];
        if (!gr_req_allowed(req, GR_AZ_DESCRIBE_TXNS_TOPIC, p->topic)) continue;
        gr_DescribeTransactionsResponse_TopicData_t *td = NULL;
        for (int32_t k = 0; k < s->Topics.n && !td; k++)
            if ((size_t)s->Topics.v[k].Topic.len == strlen(p->topic) &&
                !memcmp(s->Topics.v[k].Topic.ptr, p->topic, strlen(p->topic)))
                td = &s->Topics.v[k];
        if (!td) {
            td = &s->Topics.v[s->Topics.n++];
            td->Topic = gr_req_msg(req, "%s", p->topic);
            td->Partitions.v = gr_arena_alloc(&req->arena, (size_t)n * sizeof(int32_t));
        }
        td->Partitions.v[td->Partitions.n++] = p->partition;
    }
}

void gr_h_describe_transactions(gr_req_t *req) {
    gr_DescribeTransactionsRequest_t *q = req->body;
    gr_DescribeTransactionsResponse_t *resp = gr_req_resp_new(req);
    int32_t n = q->TransactionalIds.n > 0 ? q->TransactionalIds.n : 0;
    resp->TransactionStates.v = gr_req_alloc(req, &gr_DescribeTransactionsResponse_TransactionState_sd, n);
    resp->TransactionStates.n = n;
    for (int32_t i = 0; i < n; i++) {
        dt_state_t *s = &resp->TransactionStates.v[i];
        gr_str_t id = q->TransactionalIds.v[i];
        s->TransactionalId = id;
        s->TransactionState = GR_STR("");
        s->ProducerId = -1;
        s->ProducerEpoch = -1;
        s->TransactionStartTimeMs = -1;
        gr_err_t denied = gr_req_authz_s(req, GR_AZ_DESCRIBE_TXNS, id);
        const gr_txn_t *t =
            gr_str_is_null(id) || id.len == 0 ? NULL : gr_txn_find(&req->b->txn->reg, id.ptr, (size_t)id.len);
        if (denied)
            s->ErrorCode = (int16_t)denied;
        else if (gr_str_is_null(id) || id.len == 0)
            s->ErrorCode = GR_ERR_INVALID_REQUEST;
        else if (!t || t->m.state == GR_TXN_DEAD || !t->loaded)
            s->ErrorCode = GR_ERR_TRANSACTIONAL_ID_NOT_FOUND;
        if (s->ErrorCode) continue;
        s->TransactionState = gr_str_c(gr_txn_state_name(t->m.state));
        s->TransactionTimeoutMs = t->m.timeout_ms;
        s->TransactionStartTimeMs = t->m.start_ms;
        s->ProducerId = t->m.pid;
        s->ProducerEpoch = t->m.epoch;
        describe_topics(req, t, s);
    }
    gr_req_respond(req, resp);
}

typedef struct list_filter {
    int32_t states; /* bitmask of wanted states; 0: any */
    const int64_t *pids;
    int32_t n_pids;
    int64_t duration_ms, now;
    pcre2_code *re;
    pcre2_match_data *md;
} list_filter_t;

static bool list_include(const list_filter_t *f, const gr_txn_t *t) {
    if (t->m.state == GR_TXN_DEAD || !t->loaded) return false;
    if (f->n_pids) {
        bool found = false;
        for (int32_t i = 0; i < f->n_pids && !found; i++) found = f->pids[i] == t->m.pid;
        if (!found) return false;
    }
    if (f->states && !(f->states & (1 << t->m.state))) return false;
    if (f->duration_ms >= 0 && f->now - t->m.start_ms <= f->duration_ms) return false;
    if (f->re &&
        pcre2_match(f->re, (PCRE2_SPTR)t->id, strlen(t->id), 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, f->md, NULL) < 0)
        return false;
    return true;
}

/* State filters: Kafka's names; unknown ones are echoed back. */
static int32_t list_states(gr_req_t *req, gr_ListTransactionsRequest_t *q, gr_ListTransactionsResponse_t *resp) {
    int32_t mask = 0, ns = q->StateFilters.n > 0 ? q->StateFilters.n : 0;
    resp->UnknownStateFilters.v = gr_arena_alloc(&req->arena, (size_t)(ns ? ns : 1) * sizeof(gr_str_t));
    for (int32_t i = 0; i < ns; i++) {
        gr_str_t s = q->StateFilters.v[i];
        int st = gr_str_is_null(s) ? -1 : gr_txn_state_by_name(s.ptr, (size_t)s.len);
        if (st < 0)
            resp->UnknownStateFilters.v[resp->UnknownStateFilters.n++] = s;
        else
            mask |= 1 << st;
    }
    return mask;
}

void gr_h_list_transactions(gr_req_t *req) {
    gr_ListTransactionsRequest_t *q = req->body;
    gr_ListTransactionsResponse_t *resp = gr_req_resp_new(req);
    gr_txn_reg_t *reg = &req->b->txn->reg;
    list_filter_t f = {.pids = q->ProducerIdFilters.v,
                       .n_pids = q->ProducerIdFilters.n > 0 ? q->ProducerIdFilters.n : 0,
                       .duration_ms = q->DurationFilter,
                       .now = gr_clock_wall_ms()};
    f.states = list_states(req, q, resp);
    if (!gr_str_is_null(q->TransactionalIdPattern) && q->TransactionalIdPattern.len > 0) {
        int ec;
        PCRE2_SIZE off;
        f.re = pcre2_compile((PCRE2_SPTR)q->TransactionalIdPattern.ptr, (PCRE2_SIZE)q->TransactionalIdPattern.len,
                             PCRE2_UTF, &ec, &off, NULL);
        if (!f.re) {
            resp->ErrorCode = GR_ERR_INVALID_REGULAR_EXPRESSION;
            gr_req_respond(req, resp);
            return;
        }
        f.md = pcre2_match_data_create_from_pattern(f.re, NULL);
    }
    size_t cap = gr_txn_count(reg);
    resp->TransactionStates.v = gr_req_alloc(req, &gr_ListTransactionsResponse_TransactionState_sd, (int32_t)cap);
    for (gr_txn_t *t = gr_txn_first(reg); t; t = gr_txn_next(reg, t)) {
        if (!list_include(&f, t) || !gr_req_allowed(req, GR_AZ_LIST_TXNS, t->id)) continue;
        gr_ListTransactionsResponse_TransactionState_t *s = &resp->TransactionStates.v[resp->TransactionStates.n++];
        s->TransactionalId = gr_req_msg(req, "%s", t->id);
        s->ProducerId = t->m.pid;
        s->TransactionState = gr_str_c(gr_txn_state_name(t->m.state));
    }
    if (f.md) pcre2_match_data_free(f.md);
    if (f.re) pcre2_code_free(f.re);
    gr_req_respond(req, resp);
}
