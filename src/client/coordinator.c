/* The client core: FindCoordinator for a group (key type 0) or a transactional id
 * (key type 1), retried on retriable errors until the deadline, as the Java clients do
 * (a fresh Kafka cluster answers COORDINATOR_NOT_AVAILABLE until its internal topic
 * exists). The coordinator becomes a known node of the client. */
#include <string.h>

#include "client/client.h"
#include "proto_msgs.h"

static void copy_host(char *host, size_t size, gr_str_t h) {
    int n = h.len < 0 ? 0 : h.len >= (int32_t)size ? (int32_t)size - 1 : h.len;
    memcpy(host, h.ptr, (size_t)n);
    host[n] = 0;
}

gr_err_t gr__coord_from_answer(gr__client_t *cl, int16_t ver, const void *resp, int32_t *node_id, gr_str_t *msg) {
    const gr_FindCoordinatorResponse_t *rs = resp;
    int16_t code = rs->ErrorCode;
    int32_t id = rs->NodeId, port = rs->Port;
    gr_str_t host = rs->Host;
    *msg = rs->ErrorMessage;
    if (ver >= 4 && rs->Coordinators.n > 0) { /* one key asked: one answer */
        const gr_FindCoordinatorResponse_Coordinator_t *c = &rs->Coordinators.v[0];
        code = c->ErrorCode, id = c->NodeId, port = c->Port, host = c->Host, *msg = c->ErrorMessage;
    }
    if (code) return (gr_err_t)code;
    char h[256];
    copy_host(h, sizeof(h), host);
    gr__client_upsert_broker(cl, id, h, port);
    *node_id = id;
    return GR_ERR_NONE;
}

static gr_err_t find_once(gr__client_t *cl, int8_t key_type, const char *key, int64_t deadline, int32_t *node_id,
                          char *errbuf, size_t size) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_FindCoordinatorRequest_t rq;
    gr_struct_init(&gr_FindCoordinatorRequest_sd, &rq);
    rq.Key = gr_str_c(key);
    rq.KeyType = key_type;
    rq.CoordinatorKeys.n = 1;
    rq.CoordinatorKeys.v = gr_arena_alloc(&ar, sizeof(gr_str_t));
    rq.CoordinatorKeys.v[0] = gr_str_c(key);
    void *resp;
    int16_t ver;
    gr_err_t err =
        gr__client_call(cl, INT32_MIN, GR_API_FindCoordinator, &rq, deadline, &ar, &resp, &ver, errbuf, size);
    if (!err) {
        gr_str_t msg;
        gr_err_t code = gr__coord_from_answer(cl, ver, resp, node_id, &msg);
        if (code)
            err = gr__fmt(
                code, errbuf, size, "FindCoordinator for %s %s: %.*s", key_type == 1 ? "transactional id" : "group",
                key, msg.len > 0 ? msg.len : (int)strlen(gr_err_str(code)), msg.len > 0 ? msg.ptr : gr_err_str(code));
    }
    gr_arena_free(&ar);
    return err;
}

gr_err_t gr__client_find_coordinator(gr__client_t *cl, int8_t key_type, const char *key, int64_t deadline,
                                     int32_t *node_id, char *errbuf, size_t size) {
    int64_t backoff = gr__conf_int(gr__client_conf(cl), GR__CP_RETRY_BACKOFF_MS);
    for (;;) {
        gr_err_t err = find_once(cl, key_type, key, deadline, node_id, errbuf, size);
        if (!err || !gr__err_retriable(err) || err == GR_ERR__TIMED_OUT) return err;
        int64_t now = gr__client_tick(cl);
        if (now + backoff >= deadline) return err;
        int64_t until = now + backoff;
        while (gr__client_tick(cl) < until) gr__client_io(cl, (int)(until - gr__client_now(cl)));
    }
}
