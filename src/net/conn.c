/* Connections: framing, in-order responses, backpressure and lifetime.
 * See conn.h for the contract and docs/event-loop.md for how it sits in the loop. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/log.h"
#include "net/conn_int.h"

#define IOV_BATCH 64

/* First buffer of a frame; it doubles as bytes arrive, up to the frame's size. */
#define FRAME_FIRST_CAP (64u << 10)

static void settle(gr_conn_t *conn);
static void conn_io_cb(gr_io_t *io, uint32_t events, int64_t now);
static void idle_cb(gr_timer_t *timer, int64_t now);
static void req_timer_cb(gr_timer_t *timer, int64_t now);
static void tls_kick_cb(gr_timer_t *timer, int64_t now);
static void mute_cb(gr_timer_t *timer, int64_t now);

void gr_conn_opts_default(gr_conn_opts_t *opts) {
    memset(opts, 0, sizeof(*opts));
    opts->max_request_bytes = GR_CONN_DEFAULT_MAX_REQUEST_BYTES;
    opts->max_inflight = GR_CONN_DEFAULT_MAX_INFLIGHT;
    opts->max_out_bytes = GR_CONN_DEFAULT_MAX_OUT_BYTES;
    opts->idle_ms = GR_CONN_DEFAULT_IDLE_MS;
    opts->queued_max_bytes = GR_CONN_DEFAULT_QUEUED_MAX_BYTES;
    opts->request_timeout_ms = GR_CONN_DEFAULT_REQUEST_TIMEOUT_MS;
    opts->max_connections = GR_CONN_DEFAULT_MAX_CONNECTIONS;
    opts->max_connections_per_ip = GR_CONN_DEFAULT_MAX_CONNECTIONS;
}

/* ---------------------------------------------------------------- memory pool */

static bool mem_full(const gr_listener_t *l) {
    return l->opts.queued_max_bytes && l->mem_used >= l->opts.queued_max_bytes;
}

/* Resume paused connections from a timer, never from inside another connection's callbacks. */
static void mem_kick(gr_listener_t *l) {
    if (!gr_timer_is_active(&l->mem_timer)) gr_timer_start(&l->mem_timer, 0, 0);
}

void gr__mem_release(gr_listener_t *l, size_t bytes) {
    bool was_full = mem_full(l);
    assert(l->mem_used >= bytes);
    l->mem_used -= bytes;
    if (was_full && !mem_full(l)) mem_kick(l);
}

static bool mid_frame(const gr_conn_t *conn) { return conn->frame && conn->frame_have < conn->frame_len; }

/* The connection allowed to grow its frame while the pool is full: the one furthest
 * along, so a trickling client does not hold everyone up. */
static gr_conn_t *pick_owner(gr_listener_t *l) {
    gr_conn_t *best = NULL;
    for (gr_conn_t *c = l->conns; c; c = c->lnext)
        if (mid_frame(c) && (!best || c->frame_have > best->frame_have)) best = c;
    return best;
}

static void owner_done(gr_conn_t *conn) {
    gr_listener_t *l = conn->listener;
    if (!l || l->mem_owner != conn) return;
    l->mem_owner = NULL;
    if (mem_full(l)) mem_kick(l); /* hand the right to grow to the next connection */
}

static bool may_grow(gr_conn_t *conn) {
    gr_listener_t *l = conn->listener;
    if (!mem_full(l)) return true;
    if (!l->mem_owner) {
        l->mem_owner = pick_owner(l);
        if (l->mem_owner != conn) mem_kick(l);
    }
    return l->mem_owner == conn;
}

/* Grow the frame buffer to hold at least `want` bytes (geometrically, at most frame_len). */
static void grow_frame(gr_conn_t *conn, size_t want) {
    size_t cap = conn->frame_cap ? conn->frame_cap : FRAME_FIRST_CAP / 2;
    while (cap < want) cap *= 2;
    if (cap > conn->frame_len) cap = conn->frame_len;
    if (cap <= conn->frame_cap) return;
    uint8_t *p = realloc(conn->frame, cap);
    if (!p) abort();
    conn->frame = p;
    conn->listener->mem_used += cap - conn->frame_cap;
    conn->frame_cap = cap;
}

/* ---------------------------------------------------------------- lifetime */

static void conn_ref(gr_conn_t *conn) { conn->refs++; }

static void conn_unref(gr_conn_t *conn) {
    assert(conn->refs > 0);
    if (--conn->refs) return;
    assert(conn->closed && conn->unanswered == 0);
    free(conn->principal);
    free(conn);
}

void gr__conn_start(gr_listener_t *l, int fd, const char *peer, const uint8_t addr[16], void *ip_entry) {
    gr_conn_t *conn = calloc(1, sizeof(*conn));
    if (!conn) abort();
    conn->loop = l->loop;
    conn->opts = l->opts;
    conn->h = l->h;
    conn->id = l->next_id++;
    conn->refs = 1;
    conn->last_active = gr_loop_now(l->loop);
    snprintf(conn->peer, sizeof(conn->peer), "%s", peer);
    memcpy(conn->addr, addr, sizeof(conn->addr));
    conn->ip_entry = ip_entry;
    conn->listener = l;
    conn->lnext = l->conns;
    if (l->conns) l->conns->lprev = conn;
    l->conns = conn;
    l->n_conns++;
    gr_io_init(&conn->io, fd, conn_io_cb, conn);
    gr_timer_init(l->loop, &conn->idle, idle_cb, conn);
    gr_timer_init(l->loop, &conn->req_timer, req_timer_cb, conn);
    gr_timer_init(l->loop, &conn->tls_kick, tls_kick_cb, conn);
    gr_timer_init(l->loop, &conn->mute, mute_cb, conn);
    if (conn->opts.idle_ms > 0) gr_timer_start(&conn->idle, conn->opts.idle_ms, 0);
    if (conn->opts.tls) {
        conn->tls = gr_tls_conn_new(conn->opts.tls, fd);
        int64_t hs =
            conn->opts.request_timeout_ms > 0 ? conn->opts.request_timeout_ms : GR_CONN_DEFAULT_REQUEST_TIMEOUT_MS;
        gr_timer_start(&conn->req_timer, hs, 0); /* the handshake's bound */
    }
    conn_ref(conn); /* on_accept may close the connection */
    if (conn->h.on_accept) conn->h.on_accept(conn->h.ctx, conn);
    settle(conn); /* registers read interest unless on_accept closed it */
    conn_unref(conn);
}

static void unlink_listener(gr_conn_t *conn) {
    gr_listener_t *l = conn->listener;
    if (!l) return;
    if (conn->lprev)
        conn->lprev->lnext = conn->lnext;
    else
        l->conns = conn->lnext;
    if (conn->lnext) conn->lnext->lprev = conn->lprev;
    conn->lprev = conn->lnext = NULL;
    owner_done(conn);
    gr__mem_release(l, conn->frame_cap + conn->queued_bytes);
    conn->frame_cap = conn->queued_bytes = 0;
    if (conn->ip_entry) gr__ip_limits_release(l->ips, conn->ip_entry);
    conn->ip_entry = NULL;
    conn->listener = NULL;
    l->n_conns--;
    GR_METRIC(l->n_closed++);
}

static void drop_output(gr_conn_t *conn) {
    for (uint64_t seq = conn->head_seq; seq < conn->next_seq; seq++) {
        gr__slot_t *slot = &conn->slots[seq & (conn->slot_cap - 1)];
        if (slot->state == GR__SLOT_READY) gr_wbuf_free(&slot->wb); /* runs ext release callbacks */
    }
    free(conn->slots);
    conn->slots = NULL;
    conn->slot_cap = 0;
    conn->out_bytes = 0;
}

/* Close the fd and release everything but the struct itself, which lives on
 * while the broker still holds unanswered sequence numbers. */
static void conn_close(gr_conn_t *conn) {
    if (conn->closed) return;
    conn->closed = true;
    conn_ref(conn);
    gr_io_stop(&conn->io);
    gr_tls_conn_free(conn->tls, true); /* close_notify, best effort */
    conn->tls = NULL;
    close(conn->io.fd);
    gr_timer_stop(&conn->idle);
    gr_timer_stop(&conn->req_timer);
    gr_timer_stop(&conn->tls_kick);
    gr_timer_stop(&conn->mute);
    free(conn->frame);
    free(conn->pend);
    conn->frame = conn->pend = NULL;
    drop_output(conn);
    unlink_listener(conn);
    if (conn->h.on_close) conn->h.on_close(conn->h.ctx, conn);
    conn->refs--;     /* the temporary hold; the "open" reference below still keeps conn alive */
    conn_unref(conn); /* the "open" reference */
}

void gr_conn_close(gr_conn_t *conn) { conn_close(conn); }

/* ---------------------------------------------------------------- accessors */

bool gr_conn_is_closed(const gr_conn_t *conn) { return conn->closed; }
const char *gr_conn_peer(const gr_conn_t *conn) { return conn->peer; }
uint64_t gr_conn_id(const gr_conn_t *conn) { return conn->id; }
void gr_conn_set_user(gr_conn_t *conn, void *user) { conn->user = user; }
void *gr_conn_user(const gr_conn_t *conn) { return conn->user; }

const char *gr_conn_principal(const gr_conn_t *conn) { return conn->principal ? conn->principal : "User:ANONYMOUS"; }

gr_sec_proto_t gr_conn_sec_proto(const gr_conn_t *conn) { return conn->opts.sec_proto; }

void gr_conn_set_max_request_bytes(gr_conn_t *conn, size_t max, const char *key) {
    conn->opts.max_request_bytes = max;
    conn->max_request_key = key;
}

const char *gr_conn_listener_name(const gr_conn_t *conn) {
    return conn->opts.listener_name ? conn->opts.listener_name : "PLAINTEXT";
}

void gr_conn_set_principal(gr_conn_t *conn, const char *principal) {
    free(conn->principal);
    conn->principal = principal ? strndup(principal, GR_CONN_PRINCIPAL_MAX - 1) : NULL;
}
uint64_t gr_conn_pending(const gr_conn_t *conn) { return conn->unanswered; }
size_t gr_conn_out_bytes(const gr_conn_t *conn) { return conn->out_bytes; }

static bool over_limits(const gr_conn_t *conn) {
    if (conn->muted_until && gr_timer_is_active(&conn->mute)) return true;
    return conn->next_seq - conn->head_seq >= conn->opts.max_inflight || conn->out_bytes > conn->opts.max_out_bytes;
}

bool gr_conn_is_paused(const gr_conn_t *conn) { return !conn->closed && over_limits(conn); }

/* ---------------------------------------------------------------- input */

static void ensure_slot(gr_conn_t *conn) {
    uint64_t used = conn->next_seq - conn->head_seq;
    if (used < conn->slot_cap) return;
    size_t cap = conn->slot_cap ? conn->slot_cap * 2 : 4;
    gr__slot_t *slots = calloc(cap, sizeof(*slots));
    if (!slots) abort();
    for (uint64_t seq = conn->head_seq; seq < conn->next_seq; seq++)
        slots[seq & (cap - 1)] = conn->slots[seq & (conn->slot_cap - 1)];
    free(conn->slots);
    conn->slots = slots;
    conn->slot_cap = cap;
}

static void deliver(gr_conn_t *conn) {
    ensure_slot(conn);
    uint64_t seq = conn->next_seq++;
    gr__slot_t *slot = &conn->slots[seq & (conn->slot_cap - 1)];
    gr_wbuf_init(&slot->wb);
    slot->state = GR__SLOT_WAITING;
    /* The buffer is exactly frame_len now; it stays in the pool until answered. */
    slot->frame_bytes = conn->frame_cap;
    conn->queued_bytes += conn->frame_cap;
    conn->unanswered++;
    conn_ref(conn); /* dropped when seq is answered */
    uint8_t *frame = conn->frame;
    size_t len = conn->frame_len;
    conn->frame = NULL;
    conn->frame_len = conn->frame_have = conn->frame_cap = 0;
    conn->hdr_have = 0;
    owner_done(conn);
    conn->h.on_frame(conn->h.ctx, conn, seq, frame, len);
}

/* The first byte of a frame arrived: its socket.request.read.timeout.ms starts. */
static void frame_begun(gr_conn_t *conn) {
    conn->frame_start = gr_loop_now(conn->loop);
    if (conn->opts.request_timeout_ms > 0 && !gr_timer_is_active(&conn->req_timer))
        gr_timer_start(&conn->req_timer, conn->opts.request_timeout_ms, 0);
}

/* Validate the size prefix in conn->hdr and start the frame with a small buffer;
 * the size is only a claim, memory follows the bytes that actually arrive. */
static bool start_frame(gr_conn_t *conn) {
    int32_t size = (int32_t)gr_be32(conn->hdr);
    if (size < 0 || (size_t)size > conn->opts.max_request_bytes) {
        GR_LOG_LIMITED(GR_LOG_WARN, "net", "closing connection from %s: request size %d outside [0, %zu] (%s)",
                       conn->peer, size, conn->opts.max_request_bytes,
                       conn->max_request_key ? conn->max_request_key : "socket.request.max.bytes");
        conn_close(conn);
        return false;
    }
    conn->frame_len = (size_t)size;
    conn->frame_have = conn->frame_cap = 0;
    conn->frame = malloc(1); /* a zero-size frame still gets a pointer to hand out */
    if (!conn->frame) abort();
    grow_frame(conn, (size_t)size < FRAME_FIRST_CAP ? (size_t)size : FRAME_FIRST_CAP);
    return true;
}

/* Consume frames from p[0..n). Stops at a frame boundary under backpressure or
 * while the memory pool is full, and when the connection closes. Bytes of the
 * frame in progress are always taken (at most one shared read buffer's worth).
 * Returns the bytes consumed. */
static size_t parse(gr_conn_t *conn, const uint8_t *p, size_t n) {
    size_t off = 0;
    while (!conn->closed) {
        if (!conn->frame) {
            if (conn->hdr_have == 0 && (over_limits(conn) || mem_full(conn->listener))) break;
            if (conn->hdr_have == 0) frame_begun(conn);
            size_t take = 4 - conn->hdr_have < n - off ? 4 - conn->hdr_have : n - off;
            memcpy(conn->hdr + conn->hdr_have, p + off, take);
            conn->hdr_have += take;
            off += take;
            if (conn->hdr_have < 4 || !start_frame(conn)) break;
        }
        size_t need = conn->frame_len - conn->frame_have;
        size_t take = need < n - off ? need : n - off;
        if (conn->frame_have + take > conn->frame_cap) grow_frame(conn, conn->frame_have + take);
        memcpy(conn->frame + conn->frame_have, p + off, take);
        conn->frame_have += take;
        off += take;
        if (conn->frame_have < conn->frame_len) break;
        deliver(conn);
        if (off == n) break;
    }
    return off;
}

static void park_rest(gr_conn_t *conn, const uint8_t *p, size_t n) {
    if (conn->closed || n == 0) return;
    assert(conn->pend_pos == conn->pend_len);
    free(conn->pend);
    conn->pend = malloc(n);
    if (!conn->pend) abort();
    memcpy(conn->pend, p, n);
    conn->pend_pos = 0;
    conn->pend_len = n;
}

/* May the connection read now? Backpressure and parked input say no; so does a
 * full memory pool, unless the frame in progress still has room or this
 * connection owns the pool. Remembers a memory pause for gr__mem_resume. */
static bool can_read(gr_conn_t *conn) {
    conn->mem_paused = false;
    if (conn->closed || conn->pend || over_limits(conn)) return false;
    if (mid_frame(conn) && conn->frame_have < conn->frame_cap) return true;
    bool ok = mid_frame(conn) ? may_grow(conn) : !mem_full(conn->listener);
    conn->mem_paused = !ok;
    return ok;
}

#define TLS_RETRY (-3) /* tls_recv: nothing now, epoll will tell */

/* Advance a TLS handshake; true once it is done (the principal set). Closes on failure. */
static bool tls_ready(gr_conn_t *conn) {
    if (gr_tls_done(conn->tls)) return true;
    char principal[GR_CONN_PRINCIPAL_MAX], err[256] = "";
    int rc = gr_tls_handshake(conn->tls, principal, sizeof(principal), err, sizeof(err));
    if (rc == GR_TLS_AGAIN) return false;
    if (rc != GR_TLS_OK) {
        GR_LOG_LIMITED(GR_LOG_INFO, "net", "closing connection from %s: TLS handshake failed: %s", conn->peer, err);
        if (conn->listener) GR_METRIC(conn->listener->n_tls_failed++);
        conn_close(conn);
        return false;
    }
    gr_timer_stop(&conn->req_timer);
    if (conn->listener) GR_METRIC(conn->listener->n_tls_ok++);
    if (principal[0]) gr_conn_set_principal(conn, principal);
    GR_DEBUG("net", "TLS connection from %s as %s", conn->peer, gr_conn_principal(conn));
    return true;
}

/* read(2) through TLS: >0 bytes; TLS_RETRY to retry later; GR_TLS_EOF; other
 * negatives after logging. Never 0, which read_some takes for end of stream.
 * SSL_read hands out one TLS record (at most 16 KiB) per call, so it is called until cap
 * is full or the socket is drained: the same byte budget per readiness event as a plain
 * read, instead of a loop iteration per record. An error after some bytes is left for
 * the next call, which meets it again. */
static ssize_t tls_recv(gr_conn_t *conn, uint8_t *buf, size_t cap) {
    char err[256] = "";
    if (!tls_ready(conn)) return conn->closed ? GR_TLS_ERR : TLS_RETRY;
    size_t got = 0;
    while (got < cap) {
        ssize_t n = gr_tls_read(conn->tls, buf + got, cap - got, err, sizeof(err));
        if (n > 0) {
            got += (size_t)n;
            continue;
        }
        if (got) break;
        if (n == GR_TLS_AGAIN) return TLS_RETRY;
        if (n == GR_TLS_ERR) GR_DEBUG("net", "TLS read from %s: %s", conn->peer, err);
        return n;
    }
    return (ssize_t)got;
}

/* One read(2) per readiness event keeps many busy connections fair. A frame in
 * progress is read straight into its buffer (grown first when full), so big
 * produce requests are not copied twice; everything else goes through the
 * listener's shared buffer. */
static void read_some(gr_conn_t *conn) {
    bool direct = mid_frame(conn);
    if (direct && conn->frame_have == conn->frame_cap) grow_frame(conn, conn->frame_cap + 1);
    uint8_t *buf = direct ? conn->frame + conn->frame_have : conn->listener->rbuf;
    size_t cap = direct ? conn->frame_cap - conn->frame_have : GR__CONN_RBUF_SIZE;
    ssize_t n = conn->tls ? tls_recv(conn, buf, cap) : read(conn->io.fd, buf, cap);
    if (n == 0 || (conn->tls && n == GR_TLS_EOF)) { /* GR_TLS_EOF is -1: plain read errors are below */
        GR_DEBUG("net", "connection from %s closed by peer", conn->peer);
        conn_close(conn);
        return;
    }
    if (n < 0) {
        if (!conn->tls && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
        if (conn->tls && n == TLS_RETRY) return; /* tls_recv: try again */
        if (!conn->tls) GR_DEBUG("net", "read from %s: %s", conn->peer, strerror(errno));
        conn_close(conn);
        return;
    }
    conn->last_active = gr_loop_now(conn->loop);
    if (direct) {
        conn->frame_have += (size_t)n;
        if (conn->frame_have == conn->frame_len) deliver(conn);
        return;
    }
    size_t used = parse(conn, buf, (size_t)n);
    park_rest(conn, buf + used, (size_t)n - used);
}

/* Parse bytes parked by backpressure. Returns true if anything was consumed. */
static bool parse_pend(gr_conn_t *conn) {
    size_t used = parse(conn, conn->pend + conn->pend_pos, conn->pend_len - conn->pend_pos);
    if (conn->closed) return false;
    conn->pend_pos += used;
    if (conn->pend_pos == conn->pend_len) {
        free(conn->pend);
        conn->pend = NULL;
        conn->pend_pos = conn->pend_len = 0;
    }
    return used > 0;
}

/* ---------------------------------------------------------------- output */

/* Output of a wbuf as segments: even k = memory, odd k = ext[k / 2]. */
static size_t seg_count(const gr_wbuf_t *wb) { return 2 * wb->n_ext + 1; }

static size_t seg_len(const gr_wbuf_t *wb, size_t k, size_t *mem_start) {
    if (k & 1) return wb->ext[k / 2].len;
    size_t start = k == 0 ? 0 : wb->ext[k / 2 - 1].mem_pos;
    size_t end = k / 2 < wb->n_ext ? wb->ext[k / 2].mem_pos : wb->len;
    if (mem_start) *mem_start = start;
    return end - start;
}

static gr__slot_t *head_slot(gr_conn_t *conn) {
    if (conn->head_seq == conn->next_seq) return NULL;
    return &conn->slots[conn->head_seq & (conn->slot_cap - 1)];
}

static void pop_head(gr_conn_t *conn, gr__slot_t *slot) {
    if (slot->state == GR__SLOT_READY) gr_wbuf_free(&slot->wb); /* runs ext release callbacks */
    slot->state = GR__SLOT_EMPTY;
    conn->head_seq++;
    conn->cur_seg = conn->cur_off = 0;
}

/* Skip finished segments and retire finished responses at the head, so the
 * cursor ends on a non-empty segment of a READY slot, or on a WAITING slot,
 * or the ring is empty. */
static void normalize(gr_conn_t *conn) {
    gr__slot_t *slot;
    while ((slot = head_slot(conn)) && slot->state != GR__SLOT_WAITING) {
        if (slot->state == GR__SLOT_SKIPPED || conn->cur_seg == seg_count(&slot->wb)) {
            pop_head(conn, slot);
        } else if (seg_len(&slot->wb, conn->cur_seg, NULL) == conn->cur_off) {
            conn->cur_seg++;
            conn->cur_off = 0;
        } else {
            break;
        }
    }
}

static void advance(gr_conn_t *conn, size_t n) {
    conn->out_bytes -= n;
    while (n) {
        normalize(conn);
        gr__slot_t *slot = head_slot(conn);
        assert(slot && slot->state == GR__SLOT_READY);
        size_t rem = seg_len(&slot->wb, conn->cur_seg, NULL) - conn->cur_off;
        size_t take = rem < n ? rem : n;
        conn->cur_off += take;
        n -= take;
    }
    normalize(conn);
}

/* Collect memory segments from the cursor on, across consecutive answered
 * responses, up to the next file segment or unanswered request. *file_next:
 * the gathering stopped at a file segment (more of this answer follows at once). */
static int gather(gr_conn_t *conn, struct iovec *iov, bool *file_next) {
    int n = 0;
    *file_next = false;
    for (uint64_t seq = conn->head_seq; seq < conn->next_seq && n < IOV_BATCH; seq++) {
        gr__slot_t *slot = &conn->slots[seq & (conn->slot_cap - 1)];
        if (slot->state == GR__SLOT_WAITING) break;
        if (slot->state != GR__SLOT_READY) continue;
        bool first = seq == conn->head_seq;
        for (size_t k = first ? conn->cur_seg : 0; k < seg_count(&slot->wb) && n < IOV_BATCH; k++) {
            size_t start = 0, len = seg_len(&slot->wb, k, &start);
            size_t skip = first && k == conn->cur_seg ? conn->cur_off : 0;
            if (len == skip) continue;
            if (k & 1) {
                *file_next = true;
                return n;
            }
            iov[n].iov_base = slot->wb.mem + start + skip;
            iov[n].iov_len = len - skip;
            n++;
        }
    }
    return n;
}

/* write_batch through TLS: small memory segments are coalesced (up to TLS_COALESCE bytes)
 * so pipelined answers share records; a retry after "again" rebuilds the same bytes from
 * the unchanged cursor, which is what SSL_write asks of a retry. */
#define TLS_COALESCE (16u << 10)
static ssize_t tls_write_batch(gr_conn_t *conn, gr__slot_t *slot) {
    char err[256] = "";
    ssize_t w;
    if (!gr_tls_done(conn->tls)) return 0;
    if (conn->cur_seg & 1) {
        const gr_wbuf_ext_t *ext = &slot->wb.ext[conn->cur_seg / 2];
        w = gr_tls_sendfile(conn->tls, ext->fd, (off_t)(ext->off + (int64_t)conn->cur_off), ext->len - conn->cur_off,
                            err, sizeof(err));
    } else {
        struct iovec iov[IOV_BATCH];
        bool file_next;
        int n = gather(conn, iov, &file_next);
        static uint8_t co[TLS_COALESCE]; /* one loop thread */
        size_t used = 0;
        for (int i = 0; i < n && iov[0].iov_len < TLS_COALESCE && used + iov[i].iov_len <= TLS_COALESCE; i++) {
            memcpy(co + used, iov[i].iov_base, iov[i].iov_len);
            used += iov[i].iov_len;
        }
        w = used ? gr_tls_write(conn->tls, co, used, err, sizeof(err))
                 : gr_tls_write(conn->tls, iov[0].iov_base, iov[0].iov_len, err, sizeof(err));
    }
    if (w > 0) return w;
    if (w == GR_TLS_AGAIN) return 0;
    GR_DEBUG("net", "TLS write to %s: %s", conn->peer, err[0] ? err : "closed");
    conn_close(conn);
    return -1;
}

/* Write one batch. Returns >0 bytes written, 0 if the socket is full, -1 after
 * closing the connection on an error. */
static ssize_t write_batch(gr_conn_t *conn, gr__slot_t *slot) {
    struct iovec iov[IOV_BATCH];
    ssize_t w;
    if (conn->tls) return tls_write_batch(conn, slot);
    if (conn->cur_seg & 1) {
        const gr_wbuf_ext_t *ext = &slot->wb.ext[conn->cur_seg / 2];
        off_t off = (off_t)(ext->off + (int64_t)conn->cur_off);
        w = sendfile(conn->io.fd, ext->fd, &off, ext->len - conn->cur_off);
        if (w == 0) {
            GR_WARN("net", "closing connection from %s: file segment ended early (fd %d)", conn->peer, ext->fd);
            conn_close(conn);
            return -1;
        }
    } else {
        bool file_next;
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)gather(conn, iov, &file_next)};
        /* A response header followed by its records (sendfile): MSG_MORE holds the header
         * back so it leaves in the same segment as the first records, instead of a packet
         * (and a wake-up of the reader) of its own; sendfile pushes at its end. */
        w = sendmsg(conn->io.fd, &msg, MSG_NOSIGNAL | (file_next ? MSG_MORE : 0));
    }
    if (w >= 0) return w;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
    GR_DEBUG("net", "write to %s: %s", conn->peer, strerror(errno));
    conn_close(conn);
    return -1;
}

/* Write as much as the socket takes. Sets want_write when it is full. */
static void flush(gr_conn_t *conn) {
    conn->want_write = false;
    while (!conn->closed) {
        normalize(conn);
        gr__slot_t *slot = head_slot(conn);
        if (!slot || slot->state == GR__SLOT_WAITING) return;
        ssize_t w = write_batch(conn, slot);
        if (w < 0) return;
        if (w == 0) {
            conn->want_write = true;
            return;
        }
        conn->last_active = gr_loop_now(conn->loop);
        advance(conn, (size_t)w);
    }
}

/* Extra epoll interest of a TLS connection: the handshake's direction, the other direction
 * when OpenSSL needs it (TLS 1.3 key updates), and a kick for records OpenSSL already
 * decrypted, which epoll cannot report. */
static uint32_t tls_interest(gr_conn_t *conn, bool rd) {
    if (!gr_tls_done(conn->tls)) return gr_tls_wants_write(conn->tls) ? GR_IO_WRITE : GR_IO_READ;
    uint32_t ev = 0;
    if (rd && gr_tls_wants_write(conn->tls)) ev |= GR_IO_WRITE;
    if (conn->want_write && gr_tls_wants_read(conn->tls)) ev |= GR_IO_READ;
    if (rd && gr_tls_pending(conn->tls) && !gr_timer_is_active(&conn->tls_kick)) gr_timer_start(&conn->tls_kick, 0, 0);
    return ev;
}

/* Bring the connection to a stable state: write what can be written, parse
 * parked input that backpressure no longer holds back, then set the epoll
 * interest. Re-entrant calls (a response sent from inside on_frame) return at
 * once; the outer call picks their work up. */
static void settle(gr_conn_t *conn) {
    if (conn->busy || conn->closed) return;
    conn->busy = true;
    conn_ref(conn);
    for (;;) {
        flush(conn);
        if (conn->closed || !conn->pend || over_limits(conn) || !parse_pend(conn)) break;
    }
    if (!conn->closed) {
        uint32_t ev = conn->want_write ? GR_IO_WRITE : 0;
        bool rd = can_read(conn);
        if (rd) ev |= GR_IO_READ;
        if (conn->tls) ev |= tls_interest(conn, rd);
        if (gr_io_start(conn->loop, &conn->io, ev)) conn_close(conn);
    }
    conn->busy = false;
    conn_unref(conn);
}

static void conn_io_cb(gr_io_t *io, uint32_t events, int64_t now) {
    gr_conn_t *conn = io->data;
    conn_ref(conn);
    conn->busy = true;
    if (conn->tls && !gr_tls_done(conn->tls)) {
        if (tls_ready(conn) && can_read(conn)) read_some(conn); /* application data may follow at once */
    } else {
        if ((events & GR_IO_WRITE) || (conn->tls && (events & GR_IO_READ) && gr_tls_wants_read(conn->tls))) flush(conn);
        bool rd = (events & GR_IO_READ) || (conn->tls && (events & GR_IO_WRITE) && gr_tls_wants_write(conn->tls));
        if (rd && !conn->closed && can_read(conn)) read_some(conn);
    }
    if ((events & GR_IO_ERROR) && !(events & GR_IO_READ) && !conn->closed) {
        GR_DEBUG("net", "socket error or hang-up on connection from %s", conn->peer);
        conn_close(conn);
    }
    conn->busy = false;
    settle(conn);
    conn_unref(conn);
}

static void idle_cb(gr_timer_t *timer, int64_t now) {
    gr_conn_t *conn = timer->data;
    int64_t idle_for = now - conn->last_active;
    /* A connection waiting for us (a long-poll fetch) or for its peer to read is not idle. */
    if (conn->unanswered || conn->out_bytes) {
        gr_timer_start(timer, conn->opts.idle_ms, 0);
        return;
    }
    if (idle_for < conn->opts.idle_ms) {
        gr_timer_start(timer, conn->opts.idle_ms - idle_for, 0);
        return;
    }
    GR_LOG_LIMITED(GR_LOG_INFO, "net", "closing connection from %s: idle for %" PRId64 " ms (connections.max.idle.ms)",
                   conn->peer, idle_for);
    conn_close(conn);
}

/* A frame must be complete socket.request.read.timeout.ms after its first byte, so a
 * client trickling bytes cannot hold a connection (and its buffer) forever. Time
 * spent paused by our own output backpressure does not count; time paused by a full
 * memory pool does, so frames stuck behind a full pool give their memory back too. */
static void req_timer_cb(gr_timer_t *timer, int64_t now) {
    gr_conn_t *conn = timer->data;
    int64_t limit = conn->opts.request_timeout_ms;
    if (conn->tls && !gr_tls_done(conn->tls)) {
        GR_LOG_LIMITED(GR_LOG_INFO, "net",
                       "closing connection from %s: TLS handshake not complete %lld ms after the connection (%s)",
                       conn->peer, (long long)(limit > 0 ? limit : GR_CONN_DEFAULT_REQUEST_TIMEOUT_MS),
                       "socket.request.read.timeout.ms");
        if (conn->listener) GR_METRIC(conn->listener->n_tls_failed++);
        conn_close(conn);
        return;
    }
    if (!conn->frame && conn->hdr_have == 0) return; /* between frames: nothing to time */
    if (conn->pend || over_limits(conn)) {
        conn->frame_start = now;
        gr_timer_start(timer, limit, 0);
        return;
    }
    int64_t age = now - conn->frame_start;
    if (age < limit) {
        gr_timer_start(timer, limit - age, 0);
        return;
    }
    GR_LOG_LIMITED(GR_LOG_INFO, "net",
                   "closing connection from %s: request incomplete %" PRId64
                   " ms after its first byte (%zu of %zu bytes; "
                   "socket.request.read.timeout.ms)",
                   conn->peer, age, conn->frame ? conn->frame_have : conn->hdr_have, conn->frame ? conn->frame_len : 4);
    conn_close(conn);
}

static void tls_kick_cb(gr_timer_t *timer, int64_t now) {
    gr_conn_t *conn = timer->data;
    conn_io_cb(&conn->io, GR_IO_READ, now);
}

/* The pool has room again, or its owner finished: let paused connections try again
 * (each settles, and pauses again if it still cannot read). */
void gr__mem_resume(gr_timer_t *timer, int64_t now) {
    gr_listener_t *l = timer->data;
    size_t n = 0, cap = 16;
    gr_conn_t **v = malloc(cap * sizeof(*v));
    if (!v) abort();
    for (gr_conn_t *c = l->conns; c; c = c->lnext) {
        if (!c->mem_paused) continue;
        if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof(*v)))) abort();
        conn_ref(c);
        v[n++] = c;
    }
    for (size_t i = 0; i < n; i++) {
        settle(v[i]);
        conn_unref(v[i]);
    }
    free(v);
}

/* ---------------------------------------------------------------- answers */

static gr__slot_t *answer_slot(gr_conn_t *conn, uint64_t seq) {
    assert(seq < conn->next_seq && conn->unanswered > 0);
    if (conn->closed) return NULL;
    assert(seq >= conn->head_seq);
    gr__slot_t *slot = &conn->slots[seq & (conn->slot_cap - 1)];
    assert(slot->state == GR__SLOT_WAITING);
    return slot;
}

/* The request's frame leaves the pool when it is answered (the broker frees it then). */
static void unqueue(gr_conn_t *conn, gr__slot_t *slot) {
    conn->queued_bytes -= slot->frame_bytes;
    gr__mem_release(conn->listener, slot->frame_bytes);
    slot->frame_bytes = 0;
}

static void answered(gr_conn_t *conn) {
    conn->unanswered--;
    bool closed = conn->closed;
    conn_unref(conn); /* the request's reference; frees a closed conn after its last answer */
    if (!closed) settle(conn);
}

void gr_conn_respond(gr_conn_t *conn, uint64_t seq, gr_wbuf_t *wb) {
    gr__slot_t *slot = answer_slot(conn, seq);
    if (slot) unqueue(conn, slot);
    if (!slot || gr_wbuf_size(wb) == 0) {
        gr_wbuf_free(wb);
        if (slot) slot->state = GR__SLOT_SKIPPED;
    } else {
        slot->wb = *wb;
        gr_wbuf_init(wb);
        slot->state = GR__SLOT_READY;
        conn->out_bytes += gr_wbuf_size(&slot->wb);
    }
    answered(conn);
}

void gr_conn_skip(gr_conn_t *conn, uint64_t seq) {
    gr__slot_t *slot = answer_slot(conn, seq);
    if (slot) unqueue(conn, slot);
    if (slot) slot->state = GR__SLOT_SKIPPED;
    answered(conn);
}

/* ---------------------------------------------------------------- quota throttling */

void gr_conn_mute(gr_conn_t *conn, int64_t ms) {
    if (conn->closed || ms <= 0) return;
    int64_t until = gr_loop_now(conn->loop) + ms;
    if (gr_timer_is_active(&conn->mute) && until <= conn->muted_until) return;
    conn->muted_until = until;
    gr_timer_start(&conn->mute, ms, 0);
    settle(conn);
}

bool gr_conn_is_muted(const gr_conn_t *conn) { return !conn->closed && gr_timer_is_active(&conn->mute); }

static void mute_cb(gr_timer_t *timer, int64_t now) {
    (void)now;
    gr_conn_t *conn = timer->data;
    conn->muted_until = 0;
    settle(conn);
}
