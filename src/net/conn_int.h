/* Internals shared by conn.c and listener.c. Not for use outside src/net. */
#ifndef GR_NET_CONN_INT_H
#define GR_NET_CONN_INT_H

#include "base/metrics.h"
#include "net/conn.h"
#include "net/tls.h"

/* Shared read buffer per listener: a connection reads into it, parses, and
 * copies only bytes it cannot consume yet (backpressure) into its own `pend`,
 * so idle connections hold no read buffer at all. */
#define GR__CONN_RBUF_SIZE (64u << 10)

enum { GR__SLOT_EMPTY, GR__SLOT_WAITING, GR__SLOT_READY, GR__SLOT_SKIPPED };

/* One request between hand-out and the end of its response on the wire. */
typedef struct gr__slot {
    gr_wbuf_t wb;
    size_t frame_bytes; /* the request's frame, counted in the listener's memory pool until answered */
    uint8_t state;      /* GR__SLOT_* */
} gr__slot_t;

struct gr_conn {
    gr_loop_t *loop;
    gr_io_t io;
    gr_timer_t idle;
    gr_timer_t req_timer;    /* socket.request.read.timeout.ms: a frame (or the TLS handshake) must arrive in full */
    gr_timer_t tls_kick;     /* re-reads bytes OpenSSL buffered (epoll cannot see them) */
    gr_timer_t mute;         /* ends a quota throttle (gr_conn_mute) */
    int64_t muted_until;     /* loop ms; no reading before (client quotas) */
    gr_tls_conn_t *tls;      /* NULL on plain TCP */
    gr_listener_t *listener; /* NULL once closed */
    gr_conn_t *lprev, *lnext;
    gr_conn_opts_t opts;
    gr_conn_handler_t h;
    uint64_t id;
    void *user;
    char peer[64];
    char *principal; /* NULL: User:ANONYMOUS */
    const char
        *max_request_key; /* the config key of opts.max_request_bytes for the log; NULL: socket.request.max.bytes */
    uint32_t refs;        /* 1 while open + 1 per unanswered request + temporary holds */
    bool closed, busy, want_write;
    bool mem_paused; /* not reading because the listener's memory pool is full */
    int64_t last_active;
    uint8_t addr[16]; /* peer address (IPv4 mapped into IPv6) for max.connections.per.ip */
    void *ip_entry;   /* its per-IP counter (listener.c), NULL if not counted */

    /* input: partial header, partial frame, bytes parked by backpressure */
    uint8_t hdr[4];
    size_t hdr_have;
    uint8_t *frame;
    size_t frame_len, frame_have, frame_cap; /* the buffer grows as bytes arrive, up to frame_len */
    int64_t frame_start;                     /* loop time of the first byte of the frame being read */
    size_t queued_bytes;                     /* frames handed out and not answered yet */
    uint8_t *pend;
    size_t pend_pos, pend_len;

    /* output: ring of slots for seq in [head_seq, next_seq), indexed seq & (cap-1) */
    gr__slot_t *slots;
    size_t slot_cap;
    uint64_t head_seq, next_seq, unanswered;
    size_t out_bytes;        /* answered bytes not yet written */
    size_t cur_seg, cur_off; /* write cursor inside the head slot's wbuf */
};

/* The per-IP connection counters and the overrides of max.connections.per.ip. */
typedef struct gr__ip_limits gr__ip_limits_t;

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

    /* Memory pool (queued.max.request.bytes): capacity of frame buffers being read plus
     * frames handed out and not answered. At or above the bound no connection starts a new
     * frame or grows one, except mem_owner, so one frame can always complete. */
    size_t mem_used;
    gr_conn_t *mem_owner;
    gr_timer_t mem_timer; /* resumes paused connections after memory was freed */

    gr__ip_limits_t *ips;
    gr_timer_t resume;                 /* ends a max.connection.creation.rate pause of accepts */
    gr_timer_t retry_held;             /* closes held sockets when due */
    struct gr__held *held, *held_tail; /* sockets throttled by connection_creation_rate, closed when due */
    size_t n_held;
    int64_t reject_log_ms;                                        /* rate-limits the "connection rejected" log line */
    uint64_t rejected;                                            /* rejected since the last line */
    uint64_t n_accepted, n_closed, n_refused[GR_CONN_REFUSED__N]; /* gr_listener_stats */
    uint64_t n_tls_ok, n_tls_failed;                              /* TLS handshakes completed / failed */
};

/** Wrap an accepted, non-blocking fd in a connection linked into l, start
 *  reading and call on_accept. Takes ownership of fd and of the per-IP count ip_entry. */
void gr__conn_start(gr_listener_t *l, int fd, const char *peer, const uint8_t addr[16], void *ip_entry);

/** Memory pool bookkeeping (conn.c): release bytes, and resume paused connections
 *  when the pool has room again or its owner finished. */
void gr__mem_release(gr_listener_t *l, size_t bytes);
/** Timer callback of l->mem_timer. */
void gr__mem_resume(gr_timer_t *timer, int64_t now);

/** Per-IP limits (conn_limits.c). Parse overrides ("host:n,..."), NULL on error. */
gr__ip_limits_t *gr__ip_limits_new(const char *overrides, char *errstr, size_t errstr_size);
void gr__ip_limits_free(gr__ip_limits_t *ips);
/** Count a new connection from addr; NULL (and nothing counted) when the address is at its limit. */
void *gr__ip_limits_acquire(gr__ip_limits_t *ips, const uint8_t addr[16], int64_t per_ip, int64_t *limit);
void gr__ip_limits_release(gr__ip_limits_t *ips, void *entry);
struct sockaddr;
/** The 16-byte form of an IPv4/IPv6 socket address (zeros for anything else). */
void gr__addr_from_sockaddr(const struct sockaddr *sa, uint8_t out[16]);

#endif
