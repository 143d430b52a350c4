/* Request lifecycle: encode the response with its header, hand it to the
 * connection, free the request. */
#include "broker/request.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "broker/broker_int.h"
#include "broker/quotas.h"

void *gr_req_resp_new(gr_req_t *req) { return gr_struct_alloc(&req->arena, req->resp_desc->body, 1); }

static void req_free(gr_req_t *req) {
    gr_broker_req_done(req->b, req);
    gr_arena_free(&req->arena);
    free(req->frame);
    free(req);
}

void gr_req_respond(gr_req_t *req, const void *resp) {
    gr_wbuf_t wb;
    uint64_t seq;
    gr_conn_t *conn = req->conn;
    gr_req_encode_detach(req, resp, &wb, &seq);
    gr_conn_respond(conn, seq, &wb);
    gr_wbuf_free(&wb);
}

void gr_req_encode_into(gr_req_t *req, const void *resp, gr_wbuf_t *wb) {
    gr_wbuf_init(wb);
    size_t len_pos = wb->len;
    gr_wbuf_i32(wb, 0); /* size, patched below */
    gr_resp_header_encode(req->hdr.correlation_id, gr_resp_header_version(req->hdr.api_key, req->hdr.api_version), wb);
    gr_encode(req->resp_desc, req->hdr.api_version, resp, wb);
    gr_wbuf_patch_i32(wb, len_pos, (int32_t)(gr_wbuf_size(wb) - 4));
}

void gr_req_encode_detach(gr_req_t *req, const void *resp, gr_wbuf_t *out, uint64_t *seq) {
    gr_wbuf_t wb;
    gr_req_encode_into(req, resp, &wb);
    /* Quotas may set ThrottleTimeMs (or empty a throttled fetch) and encode again. */
    gr_broker_quota_on_response(req, (void *)resp, &wb);
    *out = wb;
    *seq = req->seq;
    GR_METRIC(gr_cm_response(&req->b->cm, req, resp));
    req_free(req);
}

void gr_req_respond_none(gr_req_t *req) {
    gr_broker_quota_on_response(req, NULL, NULL);
    gr_conn_skip(req->conn, req->seq);
    GR_METRIC(gr_cm_response(&req->b->cm, req, NULL));
    req_free(req);
}

char *gr_req_cstr(gr_req_t *req, gr_str_t s) {
    return gr_arena_strndup(&req->arena, s.len > 0 ? s.ptr : "", s.len > 0 ? (size_t)s.len : 0);
}

gr_str_t gr_req_msg(gr_req_t *req, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof(tmp)) n = sizeof(tmp) - 1;
    return (gr_str_t){gr_arena_strndup(&req->arena, tmp, (size_t)n), n};
}
