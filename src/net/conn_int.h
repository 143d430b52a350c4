/* Internals shared by conn.c and listener.c. Not for use outside src/net. */
#ifndef GR_NET_CONN_INT_H
#define GR_NET_CONN_INT_H

#include "net/conn.h"

/* Shared read buffer per listener: a connection reads into it, parses, and
 * copies only bytes it cannot consume yet (backpressure) into its own `pend`,
 * so idle connections hold no read buffer at all. */
#define GR__CONN_RBUF_SIZE (64u << 10)

enum { GR__SLOT_EMPTY, GR__SLOT_WAITING, GR__SLOT_READY, GR__SLOT_SKIPPED };

/* One request between hand-out and the end of its response on the wire. */
typedef struct gr__slot {
    gr_wbuf_t wb;
    uint8_t state; /* GR__SLOT_* */
} gr__slot_t;

struct gr_conn {
    gr_loop_t *loop;
    gr_io_t io;
    gr_timer_t idle;
    gr_listener_t *listener; /* NULL once closed */
    gr_conn_t *lprev, *lnext;
    gr_conn_opts_t opts;
    gr_conn_handler_t h;
    uint64_t id;
    void *user;
    char peer[64];
    uint32_t refs; /* 1 while open + 1 per unanswered request + temporary holds */
    bool closed, busy, want_write;
    int64_t last_active;

    /* input: partial header, partial frame, bytes parked by backpressure */
    uint8_t hdr[4];
    size_t hdr_have;
    uint8_t *frame;
    size_t frame_len, frame_have;
    uint8_t *pend;
    size_t pend_pos, pend_len;

    /* output: ring of slots for seq in [head_seq, next_seq), indexed seq & (cap-1) */
    gr__slot_t *slots;
    size_t slot_cap;
    uint64_t head_seq, next_seq, unanswered;
    size_t out_bytes;        /* answered bytes not yet written */
    size_t cur_seg, cur_off; /* write cursor inside the head slot's wbuf */
};

struct gr_listener {
    gr_loop_t *loop;
    int fd;
    uint16_t port;
    gr_io_t io;
    gr_timer_t retry; /* re-enables accept after EMFILE/ENFILE */
    gr_conn_opts_t opts;
    gr_conn_handler_t h;
    gr_conn_t *conns; /* open connections, linked through lprev/lnext */
    size_t n_conns;
    uint64_t next_id;
    uint8_t *rbuf; /* GR__CONN_RBUF_SIZE bytes */
};

/** Wrap an accepted, non-blocking fd in a connection linked into l, start
 *  reading and call on_accept. Takes ownership of fd. */
void gr__conn_start(gr_listener_t *l, int fd, const char *peer);

#endif
