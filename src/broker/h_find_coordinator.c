/* FindCoordinator (10), v0-6: this node coordinates every group, transaction
 * (txn_coord.h) and share-state key. v4+ answers a batch of keys. */
#include <string.h>

#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

enum { KEY_GROUP = 0, KEY_TRANSACTION = 1, KEY_SHARE = 2 };

/* A share-state key is "groupId:topicId:partition" (KIP-932). */
static bool share_key_ok(gr_str_t key) {
    int colons = 0;
    int32_t last = -1;
    for (int32_t i = 0; i < key.len; i++)
        if (key.ptr[i] == ':') {
            colons++;
            last = i;
        }
    if (colons < 2 || last + 1 >= key.len) return false;
    for (int32_t i = last + 1; i < key.len; i++)
        if (key.ptr[i] < '0' || key.ptr[i] > '9') return false;
    return true;
}

static gr_err_t check_key(gr_req_t *req, int8_t type, gr_str_t key, gr_str_t *msg) {
    /* Authorization first (Kafka): DESCRIBE on the group or transactional id; share-state
     * keys are for brokers, CLUSTER_ACTION on the cluster. The message is the error's text. */
    gr_err_t denied = type == KEY_GROUP         ? gr_req_authz_s(req, GR_AZ_FIND_GROUP, key)
                      : type == KEY_TRANSACTION ? gr_req_authz_s(req, GR_AZ_FIND_TXN, key)
                      : type == KEY_SHARE       ? gr_req_authz(req, GR_AZ_FIND_SHARE, NULL)
                                                : GR_ERR_NONE;
    if (denied) {
        *msg = gr_str_c(denied == GR_ERR_GROUP_AUTHORIZATION_FAILED     ? "Group authorization failed."
                        : denied == GR_ERR_CLUSTER_AUTHORIZATION_FAILED ? "Cluster authorization failed."
                                                                        : "Transactional Id authorization failed.");
        return denied;
    }
    if (type != KEY_GROUP && type != KEY_TRANSACTION && !(type == KEY_SHARE && req->hdr.api_version >= 6)) {
        /* Kafka answers the generic text of INVALID_REQUEST here. */
        *msg = GR_STR("This most likely occurs because of a request being malformed by the client library or the "
                      "message was sent to an incompatible broker. See the broker logs for more details.");
        return GR_ERR_INVALID_REQUEST;
    }
    if (type == KEY_SHARE && !share_key_ok(key)) {
        *msg = GR_STR("Invalid share coordinator key");
        return GR_ERR_INVALID_REQUEST;
    }
    /* An empty transactional id is answered like any other (Kafka 4.4.0 does). */
    *msg = GR_STR(""); /* v4+ coordinators: Kafka sends "" on success (v0-3 say "NONE") */
    return GR_ERR_NONE;
}

void gr_h_find_coordinator(gr_req_t *req) {
    gr_FindCoordinatorRequest_t *freq = req->body;
    gr_FindCoordinatorResponse_t *resp = gr_req_resp_new(req);
    gr_str_t host = gr_str_c(gr_broker_host(req->b, req->conn));
    int32_t port = gr_broker_adv_port(req->b, req->conn), node = gr_broker_node_id(req->b);
    if (req->hdr.api_version < 4) {
        gr_str_t msg;
        gr_err_t err = check_key(req, freq->KeyType, freq->Key, &msg);
        resp->ErrorCode = (int16_t)err;
        resp->ErrorMessage = err ? msg : GR_STR("NONE");
        resp->NodeId = err ? -1 : node;
        resp->Host = err ? GR_STR("") : host;
        resp->Port = err ? -1 : port;
        gr_req_respond(req, resp);
        return;
    }
    int32_t n = freq->CoordinatorKeys.n > 0 ? freq->CoordinatorKeys.n : 0;
    resp->Coordinators.v = gr_req_alloc(req, &gr_FindCoordinatorResponse_Coordinator_sd, n);
    resp->Coordinators.n = n;
    for (int32_t i = 0; i < n; i++) {
        gr_FindCoordinatorResponse_Coordinator_t *c = &resp->Coordinators.v[i];
        c->Key = freq->CoordinatorKeys.v[i];
        gr_str_t msg;
        gr_err_t err = check_key(req, freq->KeyType, c->Key, &msg);
        c->ErrorCode = (int16_t)err;
        c->ErrorMessage = msg;
        c->NodeId = err ? -1 : node;
        c->Host = err ? GR_STR("") : host;
        c->Port = err ? -1 : port;
    }
    gr_req_respond(req, resp);
}
