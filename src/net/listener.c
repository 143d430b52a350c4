/* Listening socket: bind/listen, non-blocking accept, connection bookkeeping. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "net/conn_int.h"
#include "net/sock_listen.h"

#define ACCEPT_BATCH    64
#define ACCEPT_RETRY_MS 100
#define REJECT_LOG_MS   10000 /* at most one "connection rejected" line per this period */

static void format_addr(const struct sockaddr *sa, char *out, size_t size) {
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
        snprintf(out, size, "%s:%u", host, port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
        snprintf(out, size, "[%s]:%u", host, port);
    } else {
        snprintf(out, size, "unknown");
    }
}

/* Over max.connections or max.connections.per.ip the connection is accepted and closed at
 * once, as Kafka does; the log says so once per REJECT_LOG_MS with a count. */
static void reject(gr_listener_t *l, int fd, const char *peer, gr_conn_refusal_t reason, int64_t limit) {
    const char *why = gr_conn_refusal_name(reason);
    close(fd);
    l->rejected++;
    GR_METRIC(l->n_refused[reason]++);
    int64_t now = gr_loop_now(l->loop);
    if (l->reject_log_ms && now - l->reject_log_ms < REJECT_LOG_MS) return;
    GR_WARN("net", "rejected %llu connection(s) on port %u, the last from %s: too many connections (%s=%lld)",
            (unsigned long long)l->rejected, l->port, peer, why, (long long)limit);
    l->reject_log_ms = now;
    l->rejected = 0;
}

/* Sockets of a throttled IP: kept open and unread until their throttle time ends (Kafka's
 * DelayedCloseSocket), in due order when the throttle times are equal; at most MAX_HELD. */
#define MAX_HELD 1024
typedef struct gr__held {
    struct gr__held *next;
    int fd;
    int64_t due;
} gr__held_t;

static void held_cb(gr_timer_t *timer, int64_t now) {
    gr_listener_t *l = timer->data;
    while (l->held && l->held->due <= now) {
        gr__held_t *h = l->held;
        l->held = h->next;
        if (!l->held) l->held_tail = NULL;
        close(h->fd);
        free(h);
        l->n_held--;
    }
    if (l->held) gr_timer_start(&l->retry_held, l->held->due - now, 0);
}

static void hold(gr_listener_t *l, int fd, int64_t ms) {
    GR_METRIC(l->n_refused[GR_CONN_REFUSED_RATE_PER_IP]++);
    if (l->n_held >= MAX_HELD) {
        close(fd);
        return;
    }
    gr__held_t *h = calloc(1, sizeof(*h));
    if (!h) abort();
    h->fd = fd;
    h->due = gr_loop_now(l->loop) + ms;
    /* Insert in due order (a later throttle usually ends later: walk from the head). */
    gr__held_t **p = &l->held;
    while (*p && (*p)->due <= h->due) p = &(*p)->next;
    h->next = *p;
    *p = h;
    if (!h->next) l->held_tail = h;
    l->n_held++;
    if (l->held == h) gr_timer_start(&l->retry_held, ms, 0);
}

static void resume_cb(gr_timer_t *timer, int64_t now) {
    (void)now;
    gr_listener_t *l = timer->data;
    if (gr_io_start(l->loop, &l->io, GR_IO_READ)) GR_ERROR("net", "cannot resume accepting on port %u", l->port);
}

/* The broker's connection creation quotas; true if the socket was admitted. */
static bool admit(gr_listener_t *l, int fd, const uint8_t addr[16], const struct sockaddr *sa) {
    if (!l->h.on_admit) return true;
    char ip[INET6_ADDRSTRLEN] = "";
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, ip, sizeof(ip));
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, ip, sizeof(ip));
    int64_t pause = 0;
    int64_t thr =
        l->h.on_admit(l->h.ctx, l->opts.listener_name ? l->opts.listener_name : "PLAINTEXT", addr, ip, &pause);
    if (pause > 0) { /* the acceptor waits: no accept on this listener until then */
        gr_io_stop(&l->io);
        gr_timer_start(&l->resume, pause, 0);
    }
    if (thr > 0) hold(l, fd, thr);
    return thr <= 0;
}

static void accept_one(gr_listener_t *l, int fd, const struct sockaddr *sa) {
    char peer[64];
    format_addr(sa, peer, sizeof(peer));
    if ((int64_t)l->n_conns >= l->opts.max_connections) {
        reject(l, fd, peer, GR_CONN_REFUSED_MAX_CONNECTIONS, l->opts.max_connections);
        return;
    }
    uint8_t addr[16];
    int64_t limit;
    gr__addr_from_sockaddr(sa, addr);
    if (!admit(l, fd, addr, sa)) return; /* Kafka records the connection rates before the per-IP count */
    void *ip = gr__ip_limits_acquire(l->ips, addr, l->opts.max_connections_per_ip, &limit);
    if (!ip) {
        reject(l, fd, peer, GR_CONN_REFUSED_MAX_PER_IP, limit);
        return;
    }
    int one = 1;
    /* Kafka responses are already batched by the broker; Nagle only adds latency. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
        GR_DEBUG("net", "TCP_NODELAY: %s", strerror(errno));
    GR_DEBUG("net", "accepted connection from %s", peer);
    GR_METRIC(l->n_accepted++);
    gr__conn_start(l, fd, peer, addr, ip);
}

static void retry_cb(gr_timer_t *timer, int64_t now) {
    gr_listener_t *l = timer->data;
    if (gr_io_start(l->loop, &l->io, GR_IO_READ)) GR_ERROR("net", "cannot resume accepting on port %u", l->port);
}

static void accept_cb(gr_io_t *io, uint32_t events, int64_t now) {
    gr_listener_t *l = io->data;
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        int fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            accept_one(l, fd, (struct sockaddr *)&ss);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            /* Level-triggered epoll would spin on the pending connection; back off. */
            GR_WARN("net", "accept on port %u: %s; pausing accepts for %d ms", l->port, strerror(errno),
                    ACCEPT_RETRY_MS);
            gr_io_stop(&l->io);
            gr_timer_start(&l->retry, ACCEPT_RETRY_MS, 0);
            return;
        }
        GR_WARN("net", "accept on port %u: %s", l->port, strerror(errno));
        return;
    }
}

gr_err_t gr_listener_open(gr_loop_t *loop, const char *host, uint16_t port, const gr_conn_opts_t *opts,
                          const gr_conn_handler_t *handler, gr_listener_t **out, char *errstr, size_t errstr_size) {
    if (!handler || !handler->on_frame || (opts && opts->max_inflight == 0)) {
        snprintf(errstr, errstr_size, "listener needs an on_frame callback and max_inflight >= 1");
        return GR_ERR__INVALID_ARG;
    }
    gr__ip_limits_t *ips = gr__ip_limits_new(opts ? opts->per_ip_overrides : NULL, errstr, errstr_size);
    if (!ips) return GR_ERR__INVALID_ARG;
    int fd = gr_net_listen(host, port, SOMAXCONN, errstr, errstr_size);
    if (fd < 0) {
        gr__ip_limits_free(ips);
        return GR_ERR__IO;
    }
    gr_listener_t *l = calloc(1, sizeof(*l));
    if (!l) abort();
    l->rbuf = malloc(GR__CONN_RBUF_SIZE);
    if (!l->rbuf) abort();
    l->loop = loop;
    l->fd = fd;
    l->port = gr_net_bound_port(fd);
    l->h = *handler;
    if (opts)
        l->opts = *opts;
    else
        gr_conn_opts_default(&l->opts);
    l->opts.per_ip_overrides = NULL; /* parsed into ips; the string is the caller's */
    l->ips = ips;
    gr_timer_init(loop, &l->retry, retry_cb, l);
    gr_timer_init(loop, &l->resume, resume_cb, l);
    gr_timer_init(loop, &l->retry_held, held_cb, l);
    gr_timer_init(loop, &l->mem_timer, gr__mem_resume, l);
    gr_io_init(&l->io, fd, accept_cb, l);
    if (gr_io_start(loop, &l->io, GR_IO_READ)) {
        snprintf(errstr, errstr_size, "cannot watch the listening socket");
        gr_listener_close(l);
        return GR_ERR__IO;
    }
    const char *shown = host && *host ? host : "*";
    bool v6 = strchr(shown, ':') != NULL;
    GR_INFO("net", "listening on %s%s%s:%u", v6 ? "[" : "", shown, v6 ? "]" : "", l->port);
    *out = l;
    return GR_ERR_NONE;
}

uint16_t gr_listener_port(const gr_listener_t *l) { return l->port; }
size_t gr_listener_conn_count(const gr_listener_t *l) { return l->n_conns; }
size_t gr_listener_mem_used(const gr_listener_t *l) { return l->mem_used; }

const char *gr_conn_refusal_name(gr_conn_refusal_t r) {
    static const char *const names[GR_CONN_REFUSED__N] = {"max.connections", "max.connections.per.ip",
                                                          "connection_creation_rate"};
    return r < GR_CONN_REFUSED__N ? names[r] : "unknown";
}

void gr_listener_stats(const gr_listener_t *l, gr_listener_stats_t *out) {
    out->open = l->n_conns;
    out->accepted = l->n_accepted;
    out->closed = l->n_closed;
    out->tls_ok = l->n_tls_ok;
    out->tls_failed = l->n_tls_failed;
    for (int i = 0; i < GR_CONN_REFUSED__N; i++) out->refused[i] = l->n_refused[i];
}

void gr_listener_close(gr_listener_t *l) {
    if (!l) return;
    gr_io_stop(&l->io);
    gr_timer_stop(&l->retry);
    gr_timer_stop(&l->resume);
    gr_timer_stop(&l->retry_held);
    while (l->held) {
        gr__held_t *h = l->held;
        l->held = h->next;
        close(h->fd);
        free(h);
    }
    close(l->fd);
    /* Closing unlinks the connection, so always take the current head. */
    while (l->conns) gr_conn_close(l->conns);
    gr_timer_stop(&l->mem_timer);
    gr__ip_limits_free(l->ips);
    free(l->rbuf);
    free(l);
}
