/* One broker connection: a non-blocking TCP socket driven by the client's poll()
 * loop, Kafka framing, correlation ids, ApiVersions negotiation (v3 first, then the
 * version the broker says it supports after UNSUPPORTED_VERSION, KIP-511), in-order
 * responses, request timeouts and reconnect backoff.
 *
 * Requests form one doubly-linked list in send order. `send_pos` is the first one
 * not completely written. Brokers answer in order, so the first request that wants
 * a response and is fully written owns the next response frame. A request that
 * wants no response (Produce acks=0) completes once written. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "client/client_int.h"
#include "client/sasl_client.h"
#include "proto_msgs.h"

#define GR__MAX_FRAME (256u << 20)
#define GR__IOV_MAX   64

enum { NODE_DOWN, NODE_CONNECTING, NODE_TLS, NODE_APIVERSIONS, NODE_SASL, NODE_UP };

typedef struct gr__req {
    struct gr__req *prev, *next;
    int32_t corr;
    int16_t api_key, ver;
    bool want_resp;
    gr__resp_cb *cb;
    void *opaque;
    int64_t deadline;
    gr_wbuf_t wb;      /* size prefix + header + body */
    struct iovec *seg; /* what goes on the wire: wb's memory with the GR__MEMSEG_FD records spliced in */
    int n_seg;
    struct iovec seg1; /* seg when there is nothing spliced */
    size_t total, sent;
} gr__req_t;

struct gr__node {
    gr__client_t *cl;
    int32_t id;
    char *host;
    int port;
    char name[300];
    int fd;
    int state;
    gr__tls_t *tls; /* security.protocol=ssl, from the TCP connect on */
    int64_t connect_deadline, backoff_until, backoff_ms;
    int refused; /* connection attempts refused (or unresolvable) in a row */
    int32_t next_corr;
    gr__req_t *head, *tail, *send_pos;
    int inflight;
    int16_t apiver_try; /* ApiVersions version being tried */
    int16_t vmax[GR_API__MAX + 1];
    uint8_t *rbuf;
    size_t rlen, rcap;
    char last_err[600];
    gr__sasl_client_t sasl; /* security.protocol=SASL_PLAINTEXT: the exchange in progress */
};

gr__node_t *gr__node_new(gr__client_t *cl, int32_t id, const char *host, int port) {
    gr__node_t *node = calloc(1, sizeof(*node));
    if (!node) abort();
    node->cl = cl;
    node->id = id;
    node->fd = -1;
    node->next_corr = 1;
    gr__node_set_addr(node, host, port);
    return node;
}

void gr__node_set_addr(gr__node_t *node, const char *host, int port) {
    if (node->host && !strcmp(node->host, host) && node->port == port) return;
    free(node->host);
    node->host = strdup(host);
    if (!node->host) abort();
    node->port = port;
    snprintf(node->name, sizeof(node->name), "%s:%d", host, port);
}

bool gr__node_ready(const gr__node_t *node) { return node->state == NODE_UP; }
int gr__node_inflight(const gr__node_t *node) { return node->inflight; }
int32_t gr__node_id(const gr__node_t *node) { return node->id; }
int gr__node_refused(const gr__node_t *node) { return node->state == NODE_DOWN ? node->refused : 0; }
const char *gr__node_name(const gr__node_t *node) { return node->name; }
const char *gr__node_last_error(const gr__node_t *node) { return node->last_err; }

int16_t gr__node_version(const gr__node_t *node, int16_t api_key) {
    if (node->state != NODE_UP || api_key < 0 || api_key > GR_API__MAX) return -1;
    return node->vmax[api_key];
}

static void req_free(gr__req_t *r) {
    gr_wbuf_free(&r->wb);
    if (r->seg != &r->seg1) free(r->seg);
    free(r);
}

/* Cut the encoded request into iovecs: memory runs of wb between the external
 * segments, which the client only ever makes for memory (GR__MEMSEG_FD). */
static void build_segs(gr__req_t *r) {
    gr_wbuf_t *wb = &r->wb;
    r->total = gr_wbuf_size(wb);
    if (wb->n_ext == 0) {
        r->seg1 = (struct iovec){wb->mem, wb->len};
        r->seg = &r->seg1;
        r->n_seg = 1;
        return;
    }
    r->seg = malloc((2 * wb->n_ext + 1) * sizeof(*r->seg));
    if (!r->seg) abort();
    int n = 0;
    size_t pos = 0;
    for (size_t i = 0; i < wb->n_ext; i++) {
        const gr_wbuf_ext_t *e = &wb->ext[i];
        if (e->fd != GR__MEMSEG_FD) abort(); /* file ranges are a broker thing */
        if (e->mem_pos > pos) r->seg[n++] = (struct iovec){wb->mem + pos, e->mem_pos - pos};
        r->seg[n++] = (struct iovec){(void *)(intptr_t)e->off, e->len};
        pos = e->mem_pos;
    }
    if (wb->len > pos) r->seg[n++] = (struct iovec){wb->mem + pos, wb->len - pos};
    r->n_seg = n;
}

static void unlink_req(gr__node_t *node, gr__req_t *r) {
    if (r->prev)
        r->prev->next = r->next;
    else
        node->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        node->tail = r->prev;
    if (node->send_pos == r) node->send_pos = r->next;
    node->inflight--;
}

/* Close the socket and fail every request with err. Callbacks run after the node is
 * consistent (DOWN, empty list), so they may queue work elsewhere. */
static void node_fail(gr__node_t *node, gr_err_t err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void node_fail(gr__node_t *node, gr_err_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char msg[200];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(node->last_err, sizeof(node->last_err), "%s: %s", node->name, msg);
    /* TLS 1.3: a broker refusing our certificate says so after our side of the handshake
     * ended, before ApiVersions is answered; it will refuse again (unreachable.connect.attempts). */
    if (node->tls && node->state == NODE_APIVERSIONS) node->refused++;
    gr__tls_free(node->tls);
    node->tls = NULL;
    if (node->fd >= 0) close(node->fd);
    node->fd = -1;
    node->state = NODE_DOWN;
    gr__sasl_client_free(&node->sasl);
    node->rlen = 0;
    int64_t base = gr__conf_int(node->cl->conf, GR__CP_RECONNECT_BACKOFF_MS);
    int64_t cap = gr__conf_int(node->cl->conf, GR__CP_RECONNECT_BACKOFF_MAX_MS);
    node->backoff_ms = node->backoff_ms ? node->backoff_ms * 2 : base;
    if (node->backoff_ms > cap) node->backoff_ms = cap;
    node->backoff_until = node->cl->now + node->backoff_ms;
    gr__req_t *r = node->head;
    node->head = node->tail = node->send_pos = NULL;
    node->inflight = 0;
    while (r) {
        gr__req_t *next = r->next;
        if (r->cb) r->cb(node->cl, err, node->last_err, r->ver, NULL, r->opaque);
        req_free(r);
        r = next;
    }
}

void gr__node_free(gr__node_t *node) {
    if (!node) return;
    node_fail(node, GR_ERR__CLOSED, "client closed");
    free(node->rbuf);
    free(node->host);
    free(node);
}

static gr_err_t queue_req(gr__node_t *node, int16_t api_key, int16_t ver, const void *req, bool want_resp,
                          gr__resp_cb *cb, void *opaque) {
    gr__req_t *r = calloc(1, sizeof(*r));
    if (!r) abort();
    r->corr = node->next_corr++;
    if (node->next_corr < 0) node->next_corr = 1;
    r->api_key = api_key;
    r->ver = ver;
    r->want_resp = want_resp;
    r->cb = cb;
    r->opaque = opaque;
    r->deadline = node->cl->now + gr__conf_int(node->cl->conf, GR__CP_REQUEST_TIMEOUT_MS);
    gr_wbuf_init(&r->wb);
    gr_wbuf_i32(&r->wb, 0);
    gr_req_header_t h = {api_key, ver, r->corr, gr_str_c(gr__conf_str(node->cl->conf, GR__CP_CLIENT_ID)),
                         (int16_t)gr_req_header_version(api_key, ver)};
    gr_req_header_encode(&h, &r->wb);
    gr_encode(gr_api_request(api_key), ver, req, &r->wb);
    gr_wbuf_patch_i32(&r->wb, 0, (int32_t)(gr_wbuf_size(&r->wb) - 4));
    build_segs(r);
    r->prev = node->tail;
    if (node->tail)
        node->tail->next = r;
    else
        node->head = r;
    node->tail = r;
    if (!node->send_pos) node->send_pos = r;
    node->inflight++;
    return GR_ERR_NONE;
}

gr_err_t gr__node_send(gr__node_t *node, int16_t api_key, int16_t ver, const void *req, bool want_resp, gr__resp_cb *cb,
                       void *opaque) {
    if (node->state != NODE_UP) return GR_ERR__STATE;
    return queue_req(node, api_key, ver, req, want_resp, cb, opaque);
}

/* ---- ApiVersions negotiation, then SASL ---- */

static void send_api_versions(gr__node_t *node);

static void node_up(gr__node_t *node) {
    node->state = NODE_UP;
    node->refused = 0;
    node->backoff_ms = 0;
    node->last_err[0] = 0;
}

static void sasl_send(gr__node_t *node, uint8_t *tok, size_t len);

static void on_sasl_authenticate(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp,
                                 void *opaque) {
    gr__node_t *node = opaque;
    (void)cl, (void)errmsg, (void)ver;
    if (err) return; /* the node already failed */
    gr_SaslAuthenticateResponse_t *rs = resp;
    if (rs->ErrorCode) {
        node_fail(node, (gr_err_t)rs->ErrorCode, "SASL authentication failed: %.*s",
                  rs->ErrorMessage.len > 0 ? (int)rs->ErrorMessage.len : 0,
                  rs->ErrorMessage.len > 0 ? rs->ErrorMessage.ptr : "");
        return;
    }
    size_t len = 0;
    bool done;
    gr_err_t e;
    char why[160];
    uint8_t *next =
        gr__sasl_client_next(&node->sasl, rs->AuthBytes.len > 0 ? rs->AuthBytes.ptr : (const uint8_t *)"",
                             rs->AuthBytes.len > 0 ? (size_t)rs->AuthBytes.len : 0, &len, &done, &e, why, sizeof(why));
    if (e) {
        node_fail(node, e, "SASL authentication failed: %s", why);
    } else if (done) {
        gr__sasl_client_free(&node->sasl);
        node_up(node);
    } else {
        sasl_send(node, next, len);
    }
    free(next);
}

static void sasl_send(gr__node_t *node, uint8_t *tok, size_t len) {
    gr_SaslAuthenticateRequest_t rq;
    gr_struct_init(&gr_SaslAuthenticateRequest_sd, &rq);
    rq.AuthBytes.ptr = tok;
    rq.AuthBytes.len = (int32_t)len;
    rq.AuthBytes.fd = -1;
    int16_t v = node->vmax[GR_API_SaslAuthenticate];
    queue_req(node, GR_API_SaslAuthenticate, v < 0 ? 0 : v, &rq, true, on_sasl_authenticate, node);
}

static void on_sasl_handshake(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp,
                              void *opaque) {
    gr__node_t *node = opaque;
    (void)cl, (void)errmsg, (void)ver;
    if (err) return;
    gr_SaslHandshakeResponse_t *rs = resp;
    if (rs->ErrorCode) {
        char list[200] = "";
        for (int32_t i = 0; i < rs->Mechanisms.n; i++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.*s", i ? "," : "",
                     (int)rs->Mechanisms.v[i].len, rs->Mechanisms.v[i].ptr);
        node_fail(node, (gr_err_t)rs->ErrorCode, "SASL handshake failed: %s (the broker enables: %s)",
                  gr_err_str((gr_err_t)rs->ErrorCode), list);
        return;
    }
    size_t len;
    uint8_t *tok = gr__sasl_client_first(&node->sasl, &len);
    sasl_send(node, tok, len);
    free(tok);
}

static void sasl_start(gr__node_t *node) {
    const gr_conf_t *conf = node->cl->conf;
    const char *mech = gr__conf_str(conf, GR__CP_SASL_MECHANISM);
    uint8_t r[18];
    char nonce[32];
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        node_fail(node, GR_ERR__TRANSPORT, "getrandom failed: %s", strerror(errno));
        return;
    }
    gr_b64_encode(r, sizeof(r), nonce); /* 24 characters, no ',' */
    if (gr__sasl_client_init(&node->sasl, mech, gr__conf_str(conf, GR__CP_SASL_USERNAME),
                             gr__conf_str(conf, GR__CP_SASL_PASSWORD), nonce)) {
        node_fail(node, GR_ERR__INVALID_ARG, "sasl.mechanism %s is not supported by libgregor", mech);
        return;
    }
    if (node->vmax[GR_API_SaslHandshake] < 1) {
        node_fail(node, GR_ERR_UNSUPPORTED_VERSION, "the broker does not support SaslHandshake v1");
        return;
    }
    node->state = NODE_SASL;
    gr_SaslHandshakeRequest_t rq;
    gr_struct_init(&gr_SaslHandshakeRequest_sd, &rq);
    rq.Mechanism = gr_str_c(mech);
    queue_req(node, GR_API_SaslHandshake, 1, &rq, true, on_sasl_handshake, node);
}

static void on_api_versions(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    gr__node_t *node = opaque;
    if (err) return; /* the node already failed */
    gr_ApiVersionsResponse_t *rs = resp;
    if (rs->ErrorCode == GR_ERR_UNSUPPORTED_VERSION && node->apiver_try > 0) {
        int16_t bmax = 0;
        for (int32_t i = 0; i < rs->ApiKeys.n; i++)
            if (rs->ApiKeys.v[i].ApiKey == GR_API_ApiVersions) bmax = rs->ApiKeys.v[i].MaxVersion;
        node->apiver_try = bmax < node->apiver_try ? bmax : (int16_t)(node->apiver_try - 1);
        send_api_versions(node);
        return;
    }
    if (rs->ErrorCode) {
        node_fail(node, (gr_err_t)rs->ErrorCode, "ApiVersions failed: %s", gr_err_str((gr_err_t)rs->ErrorCode));
        return;
    }
    int16_t txn_ver = 0;
    for (int32_t i = 0; i < rs->FinalizedFeatures.n; i++)
        if (gr_str_eq_c(rs->FinalizedFeatures.v[i].Name, "transaction.version"))
            txn_ver = rs->FinalizedFeatures.v[i].MaxVersionLevel;
    if (ver >= 3) gr__client_on_features(cl, rs->FinalizedFeaturesEpoch, txn_ver);
    for (int k = 0; k <= GR_API__MAX; k++) node->vmax[k] = -1;
    for (int32_t i = 0; i < rs->ApiKeys.n; i++) {
        const gr_ApiVersionsResponse_ApiVersion_t *av = &rs->ApiKeys.v[i];
        int16_t cmin, cmax;
        if (av->ApiKey < 0 || av->ApiKey > GR_API__MAX) continue;
        gr__client_api_range(av->ApiKey, &cmin, &cmax);
        int16_t hi = av->MaxVersion < cmax ? av->MaxVersion : cmax;
        int16_t lo = av->MinVersion > cmin ? av->MinVersion : cmin;
        node->vmax[av->ApiKey] = (cmin >= 0 && hi >= lo) ? hi : -1;
    }
    int64_t proto = gr__conf_int(cl->conf, GR__CP_SECURITY_PROTOCOL); /* plaintext,ssl,sasl_plaintext,sasl_ssl */
    if (proto == 2 || proto == 3) {
        sasl_start(node);
        return;
    }
    node_up(node);
}

static void send_api_versions(gr__node_t *node) {
    gr_ApiVersionsRequest_t rq;
    gr_struct_init(&gr_ApiVersionsRequest_sd, &rq);
    rq.ClientSoftwareName = GR_STR("gregor");
    rq.ClientSoftwareVersion = GR_STR("0.1.0");
    queue_req(node, GR_API_ApiVersions, node->apiver_try, &rq, true, on_api_versions, node);
}

/* ---- connecting ---- */

/* Errors that say nothing listens at (or can be found for) the address, as opposed
 * to a slow network: they count towards unreachable.connect.attempts. */
static bool refusal_errno(int e) {
    return e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH || e == EADDRNOTAVAIL;
}

static gr_err_t open_socket(gr__node_t *node, bool *refused, char *why, size_t size) {
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    char port[16];
    snprintf(port, sizeof(port), "%d", node->port);
    int rc = getaddrinfo(node->host, port, &hints, &res);
    *refused = rc != 0;
    if (rc) return gr__fmt(GR_ERR__TRANSPORT, why, size, "cannot resolve %s: %s", node->host, gai_strerror(rc));
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeaddrinfo(res);
        return gr__fmt(GR_ERR__TRANSPORT, why, size, "socket: %s", strerror(errno));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int sb = (int)gr__conf_int(node->cl->conf, GR__CP_SEND_BUFFER_BYTES);
    int rb = (int)gr__conf_int(node->cl->conf, GR__CP_RECEIVE_BUFFER_BYTES);
    if (sb > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
    if (rb > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
    rc = connect(fd, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (rc < 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        *refused = refusal_errno(e);
        return gr__fmt(GR_ERR__TRANSPORT, why, size, "connect: %s", strerror(e));
    }
    node->fd = fd;
    return GR_ERR_NONE;
}

void gr__node_connect(gr__node_t *node) {
    if (node->state != NODE_DOWN || node->cl->now < node->backoff_until) return;
    char why[200];
    bool refused = false;
    if (open_socket(node, &refused, why, sizeof(why))) {
        node->refused = refused ? node->refused + 1 : 0;
        node_fail(node, GR_ERR__TRANSPORT, "%s", why);
        return;
    }
    node->state = NODE_CONNECTING;
    node->connect_deadline = node->cl->now + gr__conf_int(node->cl->conf, GR__CP_SOCKET_SETUP_TIMEOUT_MS);
}

/* Advance the TLS handshake; ApiVersions follows once it is done. */
static void tls_step(gr__node_t *node) {
    char err[400] = "";
    int rc = gr__tls_handshake(node->tls, err, sizeof(err));
    if (rc < 0) {
        node->refused++; /* it will fail the same way again: unreachable.connect.attempts applies */
        node_fail(node, GR_ERR__TRANSPORT, "SSL handshake failed: %s", err);
    } else if (rc > 0) {
        node->state = NODE_APIVERSIONS; /* refused is reset once ApiVersions is answered */
        node->apiver_try = 3;
        send_api_versions(node);
    }
}

static void on_connected(gr__node_t *node) {
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    getsockopt(node->fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
    if (soerr) {
        node->refused = refusal_errno(soerr) ? node->refused + 1 : 0;
        node_fail(node, GR_ERR__TRANSPORT, "connect failed: %s", strerror(soerr));
        return;
    }
    if (node->cl->tls) { /* a failed handshake counts as refused (bad certificate, not TLS): see tls_step */
        node->tls = gr__tls_new(node->cl->tls, node->fd, node->host);
        node->state = NODE_TLS;
        tls_step(node);
        return;
    }
    node->refused = 0;
    node->state = NODE_APIVERSIONS;
    node->apiver_try = 3;
    send_api_versions(node);
}

/* ---- I/O ---- */

/* Unlink and complete fire-and-forget requests that are fully written. */
static void complete_written_noresp(gr__node_t *node) {
    gr__req_t *r = node->head;
    while (r && r != node->send_pos) {
        gr__req_t *next = r->next;
        if (!r->want_resp) {
            unlink_req(node, r);
            if (r->cb) r->cb(node->cl, GR_ERR_NONE, "", r->ver, NULL, r->opaque);
            req_free(r);
        }
        r = next;
    }
}

/* writev through TLS: small segments are gathered into one record (a retry after "again"
 * passes the same bytes again, from the unchanged send position). 0 = again. */
static ssize_t tls_writev(gr__node_t *node, const struct iovec *iov, int n) {
    static _Thread_local uint8_t buf[16384];
    size_t used = 0;
    for (int i = 0; i < n && iov[0].iov_len < sizeof(buf) && used + iov[i].iov_len <= sizeof(buf); i++) {
        memcpy(buf + used, iov[i].iov_base, iov[i].iov_len);
        used += iov[i].iov_len;
    }
    char err[400] = "";
    ssize_t w = used ? gr__tls_write(node->tls, buf, used, err, sizeof(err))
                     : gr__tls_write(node->tls, iov[0].iov_base, iov[0].iov_len, err, sizeof(err));
    if (w < 0) node_fail(node, GR_ERR__TRANSPORT, "SSL write failed: %s", err);
    return w;
}

static void do_write(gr__node_t *node) {
    while (node->send_pos) {
        struct iovec iov[GR__IOV_MAX];
        int n = 0;
        for (gr__req_t *r = node->send_pos; r && n < GR__IOV_MAX; r = r->next) {
            size_t skip = r->sent;
            for (int i = 0; i < r->n_seg && n < GR__IOV_MAX; i++) {
                if (skip >= r->seg[i].iov_len) {
                    skip -= r->seg[i].iov_len;
                    continue;
                }
                iov[n].iov_base = (uint8_t *)r->seg[i].iov_base + skip;
                iov[n].iov_len = r->seg[i].iov_len - skip;
                skip = 0;
                n++;
            }
        }
        bool tls = node->tls != NULL;
        ssize_t w = tls ? tls_writev(node, iov, n) : writev(node->fd, iov, n);
        if (w < 0 && tls) return; /* failed inside tls_writev */
        if (w < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            node_fail(node, GR_ERR__TRANSPORT, "write failed: %s", strerror(errno));
            return;
        }
        if (w == 0) return; /* TLS: the socket is full */
        size_t left = (size_t)w;
        while (left && node->send_pos) {
            gr__req_t *r = node->send_pos;
            size_t take = r->total - r->sent < left ? r->total - r->sent : left;
            r->sent += take;
            left -= take;
            if (r->sent == r->total) {
                node->send_pos = r->next;
                gr_wbuf_free(&r->wb); /* the bytes are on the wire; keep the entry for the response */
                if (r->seg != &r->seg1) free(r->seg);
                r->seg = &r->seg1;
                r->n_seg = 0;
            }
        }
    }
}

void gr__node_flush(gr__node_t *node) {
    if (node->fd < 0 || node->state == NODE_CONNECTING || node->state == NODE_TLS || !node->send_pos) return;
    do_write(node);
    if (node->fd >= 0) complete_written_noresp(node);
}

static gr__req_t *first_waiting(gr__node_t *node) {
    for (gr__req_t *r = node->head; r && r != node->send_pos; r = r->next)
        if (r->want_resp) return r;
    return NULL;
}

/* Skip the tagged-field section of a flexible response header. */
static void skip_tags(gr_rbuf_t *rb) {
    uint32_t n, tag, size;
    if (!gr_rbuf_uvarint(rb, &n)) return;
    for (uint32_t i = 0; i < n; i++)
        if (!gr_rbuf_uvarint(rb, &tag) || !gr_rbuf_uvarint(rb, &size) || !gr_rbuf_skip(rb, size)) return;
}

/* Decode and dispatch one response frame. Returns false if the node failed. */
static bool handle_frame(gr__node_t *node, const uint8_t *p, size_t len) {
    gr__req_t *r = first_waiting(node);
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, p, len);
    int32_t corr = 0;
    gr_rbuf_i32(&rb, &corr);
    if (!r || corr != r->corr) {
        node_fail(node, GR_ERR__TRANSPORT, "response with correlation id %d does not match request %d", corr,
                  r ? r->corr : -1);
        return false;
    }
    if (gr_resp_header_version(r->api_key, r->ver) == 1) skip_tags(&rb);
    int16_t ver = r->ver;
    /* KIP-511: an ApiVersions error reply uses the v0 layout. */
    if (r->api_key == GR_API_ApiVersions && gr_rbuf_remaining(&rb) >= 2 && gr_be16(rb.pos) != 0) ver = 0;
    const gr_msg_desc_t *d = gr_api_response(r->api_key);
    gr_arena_t arena;
    gr_arena_init(&arena);
    void *obj = gr_arena_alloc(&arena, d->body->size);
    gr_err_t err = rb.err ? rb.err : gr_decode(d, ver, &rb, &arena, obj);
    unlink_req(node, r);
    if (err) {
        char msg[800];
        snprintf(msg, sizeof(msg), "%s: cannot decode %s v%d at byte %zu: %s", node->name, d->name, ver,
                 gr_rbuf_offset(&rb), rb.why ? rb.why : gr_err_str(err));
        if (r->cb) r->cb(node->cl, GR_ERR__MALFORMED, msg, ver, NULL, r->opaque);
    } else if (r->cb) {
        r->cb(node->cl, GR_ERR_NONE, "", ver, obj, r->opaque);
    }
    req_free(r);
    gr_arena_free(&arena);
    return node->fd >= 0;
}

static void do_read(gr__node_t *node) {
    /* TLS: SSL_read returns one record (16 KiB) per call, so more rounds for the same bytes */
    for (int rounds = 0, max = node->tls ? 64 : 8; rounds < max; rounds++) {
        if (node->rcap - node->rlen < 65536) {
            node->rcap = node->rcap ? node->rcap * 2 : 262144;
            node->rbuf = realloc(node->rbuf, node->rcap);
            if (!node->rbuf) abort();
        }
        char err[400] = "";
        ssize_t n = node->tls
                        ? gr__tls_read(node->tls, node->rbuf + node->rlen, node->rcap - node->rlen, err, sizeof(err))
                        : read(node->fd, node->rbuf + node->rlen, node->rcap - node->rlen);
        if (node->tls && n <= 0) {
            if (n == 0) break;
            node_fail(node, GR_ERR__TRANSPORT, "SSL read failed: %s", err);
            return;
        }
        if (n == 0) {
            node_fail(node, GR_ERR__TRANSPORT, "connection closed by the broker");
            return;
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) break;
            node_fail(node, GR_ERR__TRANSPORT, "read failed: %s", strerror(errno));
            return;
        }
        node->rlen += (size_t)n;
        if (!node->tls && (size_t)n < node->rcap - node->rlen) break; /* TLS reads stop at a record */
    }
    size_t off = 0;
    while (node->rlen - off >= 4) {
        uint32_t size = gr_be32(node->rbuf + off);
        if (size > GR__MAX_FRAME) {
            node_fail(node, GR_ERR__TRANSPORT, "response frame of %u bytes is too large", size);
            return;
        }
        if (node->rlen - off - 4 < size) {
            if (node->rcap < size + 4) { /* grow for a large frame */
                node->rcap = size + 4 + 65536;
                memmove(node->rbuf, node->rbuf + off, node->rlen - off);
                node->rlen -= off;
                off = 0;
                node->rbuf = realloc(node->rbuf, node->rcap);
                if (!node->rbuf) abort();
            }
            break;
        }
        if (!handle_frame(node, node->rbuf + off + 4, size)) return;
        off += 4 + size;
    }
    memmove(node->rbuf, node->rbuf + off, node->rlen - off);
    node->rlen -= off;
}

int gr__node_pollfd(gr__node_t *node, short *events, int64_t *deadline) {
    if (node->fd < 0) return -1;
    *events = POLLIN;
    if (node->state == NODE_CONNECTING || node->send_pos) *events |= POLLOUT;
    if (node->tls && gr__tls_want_write(node->tls)) *events |= POLLOUT;
    bool setup = node->state == NODE_CONNECTING || node->state == NODE_TLS;
    int64_t d = setup ? node->connect_deadline : (node->head ? node->head->deadline : INT64_MAX);
    if (node->tls && node->state > NODE_TLS && gr__tls_pending(node->tls)) d = node->cl->now; /* no waiting */
    if (d < *deadline) *deadline = d;
    return node->fd;
}

void gr__node_on_events(gr__node_t *node, short revents) {
    if (node->fd < 0) return;
    if (node->state == NODE_CONNECTING) {
        if (revents & (POLLOUT | POLLERR | POLLHUP)) on_connected(node);
        if (node->fd < 0 || node->state == NODE_TLS) return;
    }
    if (node->state == NODE_TLS) {
        tls_step(node);
        if (node->fd < 0 || node->state == NODE_TLS) return;
    }
    if (revents & (POLLIN | POLLERR | POLLHUP)) do_read(node);
    if (node->fd >= 0 && node->send_pos) do_write(node);
    if (node->fd >= 0) complete_written_noresp(node);
}

void gr__node_check_timeouts(gr__node_t *node, int64_t now) {
    if (node->fd < 0) return;
    if (node->state == NODE_TLS && now >= node->connect_deadline) {
        node->refused = 0;
        node_fail(node, GR_ERR__TRANSPORT, "SSL handshake not done after %lld ms (socket.connection.setup.timeout.ms)",
                  (long long)gr__conf_int(node->cl->conf, GR__CP_SOCKET_SETUP_TIMEOUT_MS));
        return;
    }
    if (node->tls && node->state > NODE_TLS && gr__tls_pending(node->tls)) do_read(node); /* records OpenSSL holds */
    if (node->fd < 0) return;
    if (node->state == NODE_CONNECTING && now >= node->connect_deadline) {
        node->refused = 0; /* a silent network: socket.connection.setup.timeout.ms rules */
        node_fail(node, GR_ERR__TRANSPORT, "connection setup timed out after %lld ms",
                  (long long)gr__conf_int(node->cl->conf, GR__CP_SOCKET_SETUP_TIMEOUT_MS));
        return;
    }
    if (node->head && now >= node->head->deadline) {
        node_fail(node, GR_ERR__TIMED_OUT, "request (api key %d) timed out after %lld ms", node->head->api_key,
                  (long long)gr__conf_int(node->cl->conf, GR__CP_REQUEST_TIMEOUT_MS));
        return;
    }
    if (node->send_pos) do_write(node); /* flush requests queued since the last poll */
    if (node->fd >= 0) complete_written_noresp(node);
}

void gr__node_forget(gr__node_t *node, void *opaque) {
    for (gr__req_t *r = node->head; r; r = r->next)
        if (r->opaque == opaque) r->cb = NULL;
}
