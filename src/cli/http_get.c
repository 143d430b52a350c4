/* A minimal HTTP/1.1 GET client: see http_get.h. */
#include "http_get.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESPONSE (16u << 20)

bool cli_url_parse(const char *url, cli_url_t *out, char *err, size_t err_size) {
    memset(out, 0, sizeof(*out));
    if (strncasecmp(url, "http://", 7) != 0) {
        snprintf(err, err_size, "'%s' is not an http:// URL", url);
        return false;
    }
    const char *h = url + 7, *path = h + strcspn(h, "/?#");
    const char *hend = path, *port = NULL;
    if (*h == '[') { /* [v6]:port */
        const char *rb = memchr(h, ']', (size_t)(path - h));
        if (!rb) goto bad;
        hend = rb + 1;
        if (hend < path && *hend != ':') goto bad;
        port = hend < path ? hend + 1 : NULL;
        h++, hend = rb;
    } else {
        const char *colon = memchr(h, ':', (size_t)(path - h));
        if (colon) hend = colon, port = colon + 1;
    }
    size_t hl = (size_t)(hend - h), pl = port ? (size_t)(path - port) : 0;
    if (!hl || hl >= sizeof(out->host) || (port && (!pl || pl >= sizeof(out->port))) ||
        strlen(path) >= sizeof(out->path))
        goto bad;
    memcpy(out->host, h, hl);
    if (port) {
        memcpy(out->port, port, pl);
        if (strspn(out->port, "0123456789") != pl || atoi(out->port) < 1 || atoi(out->port) > 65535) goto bad;
    } else {
        strcpy(out->port, "80");
    }
    if (*path == '/') snprintf(out->path, sizeof(out->path), "%s", path);
    /* The view's path is appended to the base: a trailing slash would double. */
    size_t n = strlen(out->path);
    while (n && out->path[n - 1] == '/') out->path[--n] = 0;
    if (strpbrk(out->path, "?# \r\n")) goto bad;
    return true;
bad:
    snprintf(err, err_size, "'%s' is not a valid URL (http://HOST:PORT)", url);
    return false;
}

bool cli_url_escape(char *buf, size_t size, const char *s) {
    size_t n = strlen(buf);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                     strchr("-._~", *p) != NULL;
        int w = plain ? snprintf(buf + n, size - n, "%c", *p) : snprintf(buf + n, size - n, "%%%02X", *p);
        if (w < 0 || (size_t)w >= size - n) return false;
        n += (size_t)w;
    }
    return true;
}

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for fd to become ready for events until deadline; false on timeout. */
static bool wait_fd(int fd, short events, int64_t deadline) {
    for (;;) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) return false;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, (int)left);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return false;
    }
}

/* A connected non-blocking socket to any address of u, or -1 (reason in err). */
static int connect_to(const cli_url_t *u, int64_t deadline, char *err, size_t err_size) {
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(u->host, u->port, &hints, &res);
    if (gai) {
        snprintf(err, err_size, "cannot resolve %s: %s", u->host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, last = ETIMEDOUT;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc < 0 && errno == EINPROGRESS) {
            socklen_t sl = sizeof(last);
            rc = wait_fd(fd, POLLOUT, deadline) && !getsockopt(fd, SOL_SOCKET, SO_ERROR, &last, &sl) && !last ? 0 : -1;
            if (rc < 0 && !last) last = ETIMEDOUT;
        } else if (rc < 0) {
            last = errno;
        }
        if (rc < 0) close(fd), fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) snprintf(err, err_size, "%s", last == ETIMEDOUT ? "timed out" : strerror(last));
    return fd;
}

static bool send_all(int fd, const char *p, size_t n, int64_t deadline) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w, n -= (size_t)w;
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
            return false;
        } else if (!wait_fd(fd, POLLOUT, deadline)) {
            return false;
        }
    }
    return true;
}

/* Whether the n bytes at buf (NUL-terminated) hold a whole response: the headers
 * and Content-Length bytes, or a chunked body's last chunk. Without either the
 * response ends when the peer closes. A server that keeps the connection open
 * despite "Connection: close" must not make the CLI wait for its idle timeout. */
static bool complete(const char *buf, size_t n) {
    const char *hend = strstr(buf, "\r\n\r\n");
    if (!hend) return false;
    size_t head = (size_t)(hend + 4 - buf);
    for (const char *line = strstr(buf, "\r\n"); line && line < hend; line = strstr(line + 2, "\r\n")) {
        if (!strncasecmp(line + 2, "content-length:", 15)) return n - head >= (size_t)strtoul(line + 17, NULL, 10);
        if (!strncasecmp(line + 2, "transfer-encoding:", 18)) return n >= head + 5 && strstr(hend + 2, "\r\n0\r\n\r\n");
    }
    return false;
}

/* Read until the response is complete or the peer closes (bounded by MAX_RESPONSE
 * and the deadline). */
static char *recv_all(int fd, int64_t deadline, size_t *len, const char **why) {
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) abort();
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_RESPONSE) {
                *why = "the response is too large";
                break;
            }
            cap *= 2;
            buf = realloc(buf, cap + 1);
            if (!buf) abort();
        }
        ssize_t r = recv(fd, buf + n, cap - n, 0);
        if (r > 0) {
            n += (size_t)r;
            buf[n] = 0;
            if (!complete(buf, n)) continue;
            *len = n;
            return buf;
        }
        /* A reset is an end like any other: a Kafka listener closes on "GET ". */
        if (r == 0 || errno == ECONNRESET) {
            buf[n] = 0;
            *len = n;
            return buf;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) {
            *why = strerror(errno);
            break;
        }
        if (!wait_fd(fd, POLLIN, deadline)) {
            *why = "timed out";
            break;
        }
    }
    free(buf);
    return NULL;
}

/* Decode a chunked body in place; false if malformed. */
static bool dechunk(char *b, size_t *len) {
    size_t in = 0, out = 0, n = *len;
    for (;;) {
        char *end;
        unsigned long sz = strtoul(b + in, &end, 16);
        char *crlf = strstr(end, "\r\n");
        if (end == b + in || !crlf) return false;
        in = (size_t)(crlf + 2 - b);
        if (sz == 0) break;
        if (sz > n - in) return false;
        memmove(b + out, b + in, sz);
        out += sz, in += sz + 2;
        if (in > n) return false;
    }
    b[out] = 0;
    *len = out;
    return true;
}

bool cli_http_parse_response(char *raw, size_t *len, int *status) {
    int major, minor;
    if (sscanf(raw, "HTTP/%d.%d %d", &major, &minor, status) != 3) return false;
    char *hend = strstr(raw, "\r\n\r\n");
    if (!hend) return false;
    *hend = 0;
    bool chunked = false;
    long clen = -1;
    for (char *line = strstr(raw, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
        if (!strncasecmp(line + 2, "content-length:", 15)) clen = strtol(line + 17, NULL, 10);
        if (!strncasecmp(line + 2, "transfer-encoding:", 18) && strstr(line + 20, "chunked")) chunked = true;
    }
    char *body = hend + 4;
    size_t n = *len - (size_t)(body - raw);
    if (clen >= 0 && (size_t)clen < n) n = (size_t)clen;
    memmove(raw, body, n);
    raw[n] = 0;
    *len = n;
    return !chunked || dechunk(raw, len);
}

bool cli_http_get(const cli_url_t *u, const char *path_suffix, int timeout_ms, int *status, char **body, size_t *len,
                  char *err, size_t err_size) {
    int64_t deadline = mono_ms() + timeout_ms;
    *body = NULL;
    int fd = connect_to(u, deadline, err, err_size);
    if (fd < 0) return false;
    char req[2048];
    bool v6 = strchr(u->host, ':') != NULL;
    int n = snprintf(req, sizeof(req),
                     "GET %s%s HTTP/1.1\r\nHost: %s%s%s:%s\r\nAccept: application/json\r\nConnection: close\r\n"
                     "User-Agent: gregor\r\n\r\n",
                     u->path, path_suffix, v6 ? "[" : "", u->host, v6 ? "]" : "", u->port);
    const char *why = NULL;
    char *raw = NULL;
    if (n < 0 || (size_t)n >= sizeof(req))
        why = "the URL is too long";
    else if (!send_all(fd, req, (size_t)n, deadline))
        why = "no HTTP answer";
    else
        raw = recv_all(fd, deadline, len, &why);
    close(fd);
    if (raw && !cli_http_parse_response(raw, len, status)) {
        free(raw);
        raw = NULL;
        why = "no HTTP answer";
    }
    if (!raw) {
        snprintf(err, err_size, "%s", why ? why : "no answer");
        return false;
    }
    *body = raw;
    return true;
}
