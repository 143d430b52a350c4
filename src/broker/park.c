/* Parked requests: answered later (long polls, acks=all), listed so that a
 * closing connection or a shutdown can answer them at once. */
#include "broker/broker_int.h"
#include "broker/share_sessions.h"

static void ensure_head(gr_broker_t *b) {
    if (!b->parked.park_next) b->parked.park_next = b->parked.park_prev = &b->parked;
}

void gr_broker_park(gr_broker_t *b, gr_req_t *req, void (*cancel)(gr_req_t *req)) {
    ensure_head(b);
    req->park_cancel = cancel;
    req->park_next = &b->parked;
    req->park_prev = b->parked.park_prev;
    req->park_prev->park_next = req;
    b->parked.park_prev = req;
}

void gr_broker_unpark(gr_broker_t *b, gr_req_t *req) {
    if (!req->park_next) return;
    req->park_prev->park_next = req->park_next;
    req->park_next->park_prev = req->park_prev;
    req->park_next = req->park_prev = NULL;
}

static void cancel_matching(gr_broker_t *b, gr_conn_t *conn) {
    ensure_head(b);
    /* Cancelling answers and frees the request; restart from the head each time. */
    for (;;) {
        gr_req_t *r = b->parked.park_next;
        while (r != &b->parked && conn && r->conn != conn) r = r->park_next;
        if (r == &b->parked) return;
        gr_broker_unpark(b, r);
        r->park_cancel(r);
    }
}

void gr_broker_on_close(void *ctx, gr_conn_t *conn) {
    gr_broker_t *b = ctx;
    cancel_matching(b, conn);
    gr_share_sessions_on_close(b, conn); /* share sessions die with their connection (§2.3) */
    gr_broker_sasl_on_close(b, conn);
}

void gr_broker_cancel_parked(gr_broker_t *b) { cancel_matching(b, NULL); }
