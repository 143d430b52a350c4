/* One request in flight inside the broker.
 *
 * A request owns its frame (the decoded body points into it) and an arena
 * holding the decoded body and the response being built. A handler answers
 * once, with gr_req_respond() or gr_req_respond_none(); both free the request.
 * A handler that cannot answer yet (long-poll fetch, acks=all waiting for
 * fsync) keeps the pointer and answers later from a timer or a completion.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_REQUEST_H
#define GR_BROKER_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "net/conn.h"
#include "proto/codec.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_req gr_req_t;

struct gr_req {
    gr_broker_t *b;
    gr_conn_t *conn;
    uint64_t seq;
    uint8_t *frame;
    size_t frame_len;
    gr_req_header_t hdr;
    gr_arena_t arena;
    const gr_msg_desc_t *req_desc;
    const gr_msg_desc_t *resp_desc;
    void *body;         /* decoded request, type per req_desc */
    int64_t recv_ms;    /* loop time when the frame arrived */
    int64_t recv_us;    /* monotonic µs when the frame arrived (request duration metric; 0: not set) */
    int64_t handler_us; /* monotonic µs when its handler started (request time quota) */
    bool quota_emptied; /* a throttled Fetch answered without its records (quotas.c) */
    /* Parking: a handler that answers later may use these. */
    gr_req_t *park_next, *park_prev;
    void *park; /* handler-specific state */
    void (*park_cancel)(gr_req_t *req);
};

/** A default-initialised response body for this request's API (in the arena). */
void *gr_req_resp_new(gr_req_t *req);
/** Encode resp (type per resp_desc) at the request's version, send it and free req. */
void gr_req_respond(gr_req_t *req, const void *resp);
/** Encode resp like gr_req_respond into *out (the caller owns it) and free req without
 *  answering: the caller answers *seq on req's connection later (a delayed SASL failure). */
void gr_req_encode_detach(gr_req_t *req, const void *resp, gr_wbuf_t *out, uint64_t *seq);
/** Encode resp with the response header and size prefix into wb (initialised here). */
void gr_req_encode_into(gr_req_t *req, const void *resp, gr_wbuf_t *wb);
/** Finish without a response (acks=0 produce) and free req. */
void gr_req_respond_none(gr_req_t *req);
/** Allocate n default-initialised structs of type sd in the request arena. */
static inline void *gr_req_alloc(gr_req_t *req, const gr_struct_desc_t *sd, int32_t n) {
    return gr_struct_alloc(&req->arena, sd, n);
}
/** A NUL-terminated copy of a wire string in the request arena ("" for null). */
char *gr_req_cstr(gr_req_t *req, gr_str_t s);
/** A printf-formatted gr_str_t in the request arena (for ErrorMessage fields). */
gr_str_t gr_req_msg(gr_req_t *req, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
