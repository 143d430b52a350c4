/* From a connection's frame to a handler call: header, version checks, body
 * decode. Anything we cannot parse closes that connection with one log line;
 * other connections never notice. */
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/quotas.h"
#include "proto_msgs.h"

/* Decoded structures of one request may not use more than this much memory
 * beyond the frame itself (arrays are also bounded by the frame length). */
#define GR_REQ_ARENA_LIMIT (256u << 20)

static void reject_frame(gr_broker_t *b, gr_conn_t *conn, uint64_t seq, uint8_t *frame, const char *why,
                         const gr_req_header_t *h, size_t at) {
    if (h)
        GR_LOG_LIMITED(GR_LOG_WARN, "broker",
                       "closing connection from %s: %s (api key %d, version %d, correlation id %d, byte %zu)",
                       gr_conn_peer(conn), why, h->api_key, h->api_version, h->correlation_id, at);
    else
        GR_LOG_LIMITED(GR_LOG_WARN, "broker", "closing connection from %s: %s (byte %zu)", gr_conn_peer(conn), why, at);
    free(frame);
    gr_conn_close(conn);
    gr_conn_skip(conn, seq);
}

static gr_req_t *req_new(gr_broker_t *b, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len) {
    gr_req_t *req = calloc(1, sizeof(*req));
    if (!req) abort();
    req->b = b;
    req->conn = conn;
    req->seq = seq;
    req->frame = frame;
    req->frame_len = len;
    req->recv_ms = gr_loop_now(b->loop);
    GR_METRIC(req->recv_us = gr_cm_now_us());
    gr_arena_init(&req->arena);
    req->arena.limit = GR_REQ_ARENA_LIMIT;
    gr_broker_req_start(b, req);
    return req;
}

void gr_broker_on_frame(void *ctx, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len) {
    gr_broker_t *b = ctx;
    if (gr_broker_sasl_raw(b, conn, seq, frame, len)) return;
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, frame, len);
    gr_req_header_t h;
    if (gr_req_header_decode(&rb, &h) != GR_ERR_NONE) {
        reject_frame(b, conn, seq, frame, rb.why ? rb.why : "malformed request header", NULL, gr_rbuf_offset(&rb));
        return;
    }
    if (gr_broker_sasl_gate(b, conn, seq, frame, h.api_key)) return;
    const gr_handler_t *hd = gr_handler_find(h.api_key);
    if (!hd) {
        reject_frame(b, conn, seq, frame, "unknown or unsupported api key", &h, gr_rbuf_offset(&rb));
        return;
    }
    if (h.api_version < hd->min_ver || h.api_version > hd->max_ver) {
        if (h.api_key == GR_API_ApiVersions && h.api_version > hd->max_ver) {
            /* KIP-511: answer a newer ApiVersions with a v0 body and error 35 so the
             * client can retry at a version we support. */
            gr_req_t *req = req_new(b, conn, seq, frame, len);
            req->hdr = h;
            GR_METRIC(gr_cm_request(&b->cm, h.api_key, h.api_version));
            gr_h_api_versions_unsupported(req);
            return;
        }
        reject_frame(b, conn, seq, frame, "unsupported api version", &h, gr_rbuf_offset(&rb));
        return;
    }
    gr_req_t *req = req_new(b, conn, seq, frame, len);
    req->hdr = h;
    req->req_desc = gr_api_request(h.api_key);
    req->resp_desc = gr_api_response(h.api_key);
    req->body = gr_struct_alloc(&req->arena, req->req_desc->body, 1);
    gr_err_t err = gr_decode(req->req_desc, h.api_version, &rb, &req->arena, req->body);
    if (err != GR_ERR_NONE) {
        char why[160];
        snprintf(why, sizeof(why), "malformed %s body: %s", req->req_desc->name, rb.why ? rb.why : gr_err_str(err));
        size_t at = gr_rbuf_offset(&rb);
        req->frame = NULL; /* reject_frame frees it */
        gr_broker_req_done(b, req);
        gr_arena_free(&req->arena);
        free(req);
        reject_frame(b, conn, seq, frame, why, &h, at);
        return;
    }
    GR_METRIC(gr_cm_request(&b->cm, h.api_key, h.api_version));
    gr_broker_quota_handler_start(req);
    hd->fn(req);
    gr_broker_quota_handler_end(b, req);
}
