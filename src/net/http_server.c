/* HTTP/1.1 server on the event loop: accept, bounded reads, one buffered response
 * per connection, deadlines. See http_server.h. */
#include "net/http_server.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/sock_listen.h"

#define SWEEP_MS        250
#define LINGER_MS       2000
#define LINGER_BYTES    (64u << 10)
#define ACCEPT_BATCH    16
#define REJECT_LOG_MS   10000
#define ACCEPT_RETRY_MS 100
#define TEXT_PLAIN      "text/plain; charset=utf-8"

enum { ST_READ, ST_WRITE, ST_LINGER };

typedef struct hconn {
    gr_http_server_t *s;
    struct hconn *prev, *next;
    gr_io_t io;
    int state;
    int64_t deadline;
    uint8_t *in; /* max_head bytes */
    size_t in_len;
    bool close_after;
    bool pipelined; /* a buffered request waits for the next iteration (GR_IO_WRITE) */
    char head[1024];
    size_t head_len;
    uint8_t *body; /* malloc'd (taken from the route's wbuf) */
    size_t body_len, out_pos;
    size_t discarded;
} hconn_t;

struct gr_http_server {
    gr_loop_t *loop;
    int fd;
    uint16_t port;
    gr_io_t io;
    gr_timer_t sweep;
    gr_timer_t retry; /* resumes accepting after EMFILE and the like */
    gr_http_opts_t opts;
    gr_http_handler_t h;
    hconn_t *conns;
    size_t n_conns;
    uint64_t rejected;
    int64_t reject_log_ms;
    gr_http_request_t req; /* shared: requests are handled synchronously */
};

void gr_http_opts_default(gr_http_opts_t *o) {
    o->max_head = GR_HTTP_MAX_HEAD;
    o->max_conns = GR_HTTP_DEFAULT_MAX_CONNS;
    o->head_timeout_ms = GR_HTTP_DEFAULT_HEAD_TIMEOUT;
    o->idle_timeout_ms = GR_HTTP_DEFAULT_IDLE_TIMEOUT;
    o->write_timeout_ms = GR_HTTP_DEFAULT_WRITE_TIMEOUT;
}

static void conn_close(hconn_t *c) {
    gr_http_server_t *s = c->s;
    gr_io_stop(&c->io);
    close(c->io.fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    s->n_conns--;
    if (!s->n_conns) gr_timer_stop(&s->sweep);
    free(c->body);
    free(c->in);
    free(c);
}

static bool watch(hconn_t *c, uint32_t events) {
    if (gr_io_start(c->s->loop, &c->io, events) == GR_ERR_NONE) return true;
    conn_close(c);
    return false;
}

/* Status line and headers; the body (if any, and not for HEAD) follows. */
static void build_head(hconn_t *c, const gr_http_response_t *r, size_t body_len, bool keep_alive) {
    int n = snprintf(c->head, sizeof(c->head),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%sConnection: %s\r\n\r\n",
                     r->status, gr_http_reason(r->status), r->content_type ? r->content_type : TEXT_PLAIN, body_len,
                     r->allow ? "Allow: " : "", r->allow ? r->allow : "", r->allow ? "\r\n" : "",
                     keep_alive ? "keep-alive" : "close");
    c->head_len = n < 0 ? 0 : (size_t)n < sizeof(c->head) ? (size_t)n : sizeof(c->head) - 1;
}

static void queue_response(hconn_t *c, gr_http_response_t *r, bool head_only, bool keep_alive, int64_t now) {
    if (c->s->h.on_status) c->s->h.on_status(c->s->h.ctx, r->status);
    build_head(c, r, r->body.len, keep_alive);
    free(c->body);
    c->body = NULL;
    c->body_len = 0;
    if (!head_only) { /* take the wbuf's memory instead of copying a large /metrics */
        c->body = r->body.mem;
        c->body_len = r->body.len;
        r->body.mem = NULL;
        r->body.len = r->body.cap = 0;
    }
    gr_wbuf_free(&r->body);
    c->out_pos = 0;
    c->close_after = !keep_alive;
    c->state = ST_WRITE;
    c->deadline = now + c->s->opts.write_timeout_ms;
}

static void queue_error(hconn_t *c, int status, const char *why, int64_t now) {
    gr_http_response_t r = {.status = status, .content_type = TEXT_PLAIN};
    gr_wbuf_init(&r.body);
    gr_wbuf_put(&r.body, why, strlen(why));
    gr_wbuf_put(&r.body, "\n", 1);
    queue_response(c, &r, false, false, now);
}

/* Parse what is buffered; queue a response when a head is complete or wrong.
 * Returns true when a response was queued. */
static bool handle_input(hconn_t *c, int64_t now) {
    gr_http_server_t *s = c->s;
    gr_http_request_t *req = &s->req;
    gr_http_parse_result_t r = gr_http_parse(c->in, c->in_len, s->opts.max_head, req);
    if (r == GR_HTTP_PARSE_INCOMPLETE) return false;
    if (r == GR_HTTP_PARSE_ERROR) {
        GR_DEBUG("http", "bad request (%d): %s", req->status, req->error);
        queue_error(c, req->status, req->error, now);
        return true;
    }
    if (req->has_body) { /* its length is not ours to trust, and no route takes one */
        queue_error(c, 400, "request bodies are not accepted", now);
        return true;
    }
    gr_http_response_t resp = {.status = 200, .content_type = TEXT_PLAIN};
    gr_wbuf_init(&resp.body);
    s->h.route(s->h.ctx, req, &resp);
    memmove(c->in, c->in + req->head_len, c->in_len - req->head_len);
    c->in_len -= req->head_len;
    queue_response(c, &resp, req->method == GR_HTTP_HEAD, req->keep_alive, now);
    return true;
}

static void start_linger(hconn_t *c, int64_t now) {
    shutdown(c->io.fd, SHUT_WR);
    c->state = ST_LINGER;
    c->deadline = now + LINGER_MS;
    c->discarded = 0;
    watch(c, GR_IO_READ);
}

/* Write as much as the socket takes, then go back to reading. */
static void do_write(hconn_t *c, int64_t now) {
    size_t total = c->head_len + c->body_len;
    while (c->out_pos < total) {
        struct iovec iov[2];
        int n = 0;
        if (c->out_pos < c->head_len) iov[n++] = (struct iovec){c->head + c->out_pos, c->head_len - c->out_pos};
        size_t boff = c->out_pos > c->head_len ? c->out_pos - c->head_len : 0;
        if (c->body_len > boff) iov[n++] = (struct iovec){c->body + boff, c->body_len - boff};
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(c->io.fd, &mh, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            watch(c, GR_IO_WRITE);
            return;
        }
        if (w <= 0) {
            conn_close(c);
            return;
        }
        c->out_pos += (size_t)w;
    }
    free(c->body);
    c->body = NULL;
    c->body_len = 0;
    if (c->close_after) {
        start_linger(c, now);
        return;
    }
    c->state = ST_READ;
    c->deadline = now + (c->in_len ? c->s->opts.head_timeout_ms : c->s->opts.idle_timeout_ms);
    /* Bytes of a pipelined request are already here: they are handled at the next
     * iteration (the socket is writable, so that fires at once). One response per
     * connection per iteration: a client pipelining /metrics cannot hold the loop. */
    c->pipelined = c->in_len > 0;
    watch(c, c->pipelined ? GR_IO_WRITE : GR_IO_READ);
}

static void do_read(hconn_t *c, int64_t now) {
    gr_http_server_t *s = c->s;
    if (c->state == ST_LINGER) {
        uint8_t junk[4096];
        ssize_t r = read(c->io.fd, junk, sizeof(junk));
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
        c->discarded += r > 0 ? (size_t)r : 0;
        if (r <= 0 || c->discarded > LINGER_BYTES) conn_close(c);
        return;
    }
    ssize_t r = read(c->io.fd, c->in + c->in_len, s->opts.max_head - c->in_len);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (r <= 0) { /* EOF or error; nothing half-sent is worth keeping */
        conn_close(c);
        return;
    }
    if (c->in_len == 0) c->deadline = now + s->opts.head_timeout_ms;
    c->in_len += (size_t)r;
    if (handle_input(c, now)) do_write(c, now);
}

static void conn_cb(gr_io_t *io, uint32_t events, int64_t now) {
    hconn_t *c = io->data;
    if (c->state == ST_WRITE) {
        if (events & (GR_IO_WRITE | GR_IO_ERROR)) do_write(c, now);
    } else if (c->pipelined && (events & GR_IO_WRITE)) {
        c->pipelined = false;
        if (handle_input(c, now))
            do_write(c, now);
        else
            watch(c, GR_IO_READ);
    } else if (events & (GR_IO_READ | GR_IO_ERROR)) {
        do_read(c, now);
    }
}

static void sweep(gr_http_server_t *s, int64_t now) {
    hconn_t *c = s->conns;
    while (c) {
        hconn_t *next = c->next;
        if (now >= c->deadline) {
            GR_DEBUG("http", "closing an admin connection: %s timeout",
                     c->state == ST_WRITE ? "write"
                     : c->in_len          ? "request head"
                                          : "idle");
            conn_close(c);
        }
        c = next;
    }
}

static void sweep_cb(gr_timer_t *t, int64_t now) { sweep(t->data, now); }

static void reject(gr_http_server_t *s, int fd, int64_t now) {
    close(fd);
    s->rejected++;
    if (s->reject_log_ms && now - s->reject_log_ms < REJECT_LOG_MS) return;
    GR_WARN("http", "admin listener on port %u: closed %llu connection(s) over the limit of %d", s->port,
            (unsigned long long)s->rejected, s->opts.max_conns);
    s->reject_log_ms = now;
    s->rejected = 0;
}

static void accept_cb(gr_io_t *io, uint32_t events, int64_t now) {
    gr_http_server_t *s = io->data;
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            GR_WARN("http", "accept on the admin port %u: %s; pausing accepts for %d ms", s->port, strerror(errno),
                    ACCEPT_RETRY_MS);
            /* Level-triggered: the pending connection would wake the loop at once, again and again. */
            gr_io_stop(&s->io);
            gr_timer_start(&s->retry, ACCEPT_RETRY_MS, 0);
            return;
        }
        if ((int)s->n_conns >= s->opts.max_conns) {
            reject(s, fd, now);
            continue;
        }
        hconn_t *c = calloc(1, sizeof(*c));
        if (!c || !(c->in = malloc(s->opts.max_head))) abort();
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c->s = s;
        c->state = ST_READ;
        c->deadline = now + s->opts.idle_timeout_ms;
        gr_io_init(&c->io, fd, conn_cb, c);
        c->next = s->conns;
        if (s->conns) s->conns->prev = c;
        s->conns = c;
        if (!s->n_conns++) gr_timer_start(&s->sweep, SWEEP_MS, SWEEP_MS);
        watch(c, GR_IO_READ);
    }
}

static void retry_cb(gr_timer_t *t, int64_t now) {
    gr_http_server_t *s = t->data;
    if (gr_io_start(s->loop, &s->io, GR_IO_READ)) GR_ERROR("http", "cannot resume accepting on port %u", s->port);
}

gr_err_t gr_http_server_open(gr_loop_t *loop, const char *host, uint16_t port, const gr_http_opts_t *opts,
                             const gr_http_handler_t *handler, gr_http_server_t **out, char *errstr,
                             size_t errstr_size) {
    snprintf(errstr, errstr_size, "no usable address");
    int fd = gr_net_listen(host, port, 64, errstr, errstr_size);
    if (fd < 0) return GR_ERR__IO;
    gr_http_server_t *s = calloc(1, sizeof(*s));
    if (!s) abort();
    s->loop = loop;
    s->fd = fd;
    s->h = *handler;
    if (opts)
        s->opts = *opts;
    else
        gr_http_opts_default(&s->opts);
    if (s->opts.max_head < 64) s->opts.max_head = 64;
    s->port = gr_net_bound_port(fd);
    gr_timer_init(loop, &s->sweep, sweep_cb, s);
    gr_timer_init(loop, &s->retry, retry_cb, s);
    gr_io_init(&s->io, fd, accept_cb, s);
    if (gr_io_start(loop, &s->io, GR_IO_READ)) {
        snprintf(errstr, errstr_size, "cannot watch the listening socket");
        gr_http_server_close(s);
        return GR_ERR__IO;
    }
    *out = s;
    return GR_ERR_NONE;
}

uint16_t gr_http_server_port(const gr_http_server_t *s) { return s->port; }
size_t gr_http_server_conn_count(const gr_http_server_t *s) { return s->n_conns; }

static uint32_t wanted(const hconn_t *c) { return c->state == ST_WRITE || c->pipelined ? GR_IO_WRITE : GR_IO_READ; }

void gr_http_server_pump(gr_http_server_t *s) {
    struct pollfd pfd[1 + 256];
    hconn_t *who[1 + 256];
    nfds_t n = 0;
    pfd[n] = (struct pollfd){.fd = s->fd, .events = POLLIN};
    who[n++] = NULL;
    for (hconn_t *c = s->conns; c && n < sizeof(pfd) / sizeof(pfd[0]); c = c->next) {
        pfd[n] = (struct pollfd){.fd = c->io.fd, .events = wanted(c) == GR_IO_WRITE ? POLLOUT : POLLIN};
        who[n++] = c;
    }
    int64_t now = gr_clock_mono_ms();
    if (poll(pfd, n, 0) > 0) {
        for (nfds_t i = 1; i < n; i++) {
            if (!pfd[i].revents) continue;
            /* An earlier callback may have closed it: only dispatch to live connections. */
            bool live = false;
            for (hconn_t *c = s->conns; c && !live; c = c->next) live = c == who[i] && c->io.fd == pfd[i].fd;
            if (!live) continue;
            uint32_t ev = (pfd[i].revents & POLLIN ? GR_IO_READ : 0) | (pfd[i].revents & POLLOUT ? GR_IO_WRITE : 0) |
                          (pfd[i].revents & (POLLERR | POLLHUP) ? GR_IO_ERROR : 0);
            conn_cb(&who[i]->io, ev, now);
        }
        if (pfd[0].revents & POLLIN) accept_cb(&s->io, GR_IO_READ, now);
    }
    sweep(s, now);
}

void gr_http_server_close(gr_http_server_t *s) {
    if (!s) return;
    gr_io_stop(&s->io);
    gr_timer_stop(&s->retry);
    close(s->fd);
    while (s->conns) conn_close(s->conns);
    gr_timer_stop(&s->sweep);
    free(s);
}
