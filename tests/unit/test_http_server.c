/* The admin HTTP server (src/net/http_server.c) on a real loop and loopback sockets:
 * exact responses, pipelining, HEAD, the server's own errors, every bound (head, idle and
 * write timeouts, the connection cap) and serving without the loop (pump). */
#include "net/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "testutil.h"

static struct {
    int routed, statuses[600];
    size_t big; /* /big answers this many bytes */
    char last_path[256];
} S;

static void route(void *ctx, const gr_http_request_t *req, gr_http_response_t *resp) {
    (void)ctx;
    S.routed++;
    snprintf(S.last_path, sizeof(S.last_path), "%.200s", req->path);
    if (!strcmp(req->path, "/big")) {
        memset(gr_wbuf_reserve(&resp->body, S.big), 'b', S.big);
        resp->body.len += S.big;
        return;
    }
    if (!strcmp(req->path, "/missing")) resp->status = 404;
    if (!strcmp(req->path, "/m")) {
        resp->status = 405;
        resp->allow = "GET, HEAD";
    }
    resp->content_type = "text/x-test";
    gr_wbuf_put(&resp->body, "hello", 5);
}

static void on_status(void *ctx, int status) {
    (void)ctx;
    S.statuses[status]++;
}

static gr_loop_t *L;
static gr_http_server_t *H;

static void open_server(const gr_http_opts_t *o) {
    char err[256];
    memset(&S, 0, sizeof(S));
    gr_http_handler_t h = {.route = route, .on_status = on_status};
    ASSERT_EQ(gr_http_server_open(L, "127.0.0.1", 0, o, &h, &H, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(gr_http_server_port(H) != 0);
}

static int client(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(gr_http_server_port(H))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

static void send_all(int fd, const char *s, size_t n) {
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        ASSERT(w > 0);
        s += w;
        n -= (size_t)w;
    }
}

/* Run the loop for ms milliseconds. */
static void spin(int64_t ms) {
    int64_t end = gr_clock_mono_ms() + ms;
    while (gr_clock_mono_ms() < end) {
        gr_loop_run_once(L, false);
        usleep(1000);
    }
}

/* Read what the client has (after running the loop for ms); *eof set on EOF/reset. */
static size_t drain(int fd, char *buf, size_t cap, int64_t ms, bool *eof) {
    size_t n = 0;
    *eof = false;
    int64_t end = gr_clock_mono_ms() + ms;
    while (gr_clock_mono_ms() < end && !*eof) {
        gr_loop_run_once(L, false);
        ssize_t r = recv(fd, buf + n, cap - n - 1, 0);
        if (r > 0) n += (size_t)r;
        if (r == 0 || (r < 0 && errno != EAGAIN)) *eof = true;
        if (r <= 0) usleep(1000);
    }
    buf[n] = '\0';
    return n;
}

static const char *OK_HELLO = "HTTP/1.1 200 OK\r\nContent-Type: text/x-test\r\nContent-Length: 5\r\n"
                              "Connection: keep-alive\r\n\r\nhello";

static void test_exact_responses(void) {
    open_server(NULL);
    int fd = client();
    const char *req = "GET /a%20b HTTP/1.1\r\nHost: x\r\n\r\n"
                      "HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n"
                      "DELETE /m HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /missing HTTP/1.0\r\n\r\n";
    send_all(fd, req, strlen(req));
    char buf[4096];
    bool eof;
    drain(fd, buf, sizeof(buf), 300, &eof);
    char want[2048];
    snprintf(want, sizeof(want),
             "%s"
             "HTTP/1.1 200 OK\r\nContent-Type: text/x-test\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\n"
             "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/x-test\r\nContent-Length: 5\r\nAllow: GET, "
             "HEAD\r\nConnection: keep-alive\r\n\r\nhello"
             "HTTP/1.1 404 Not Found\r\nContent-Type: text/x-test\r\nContent-Length: 5\r\nConnection: "
             "close\r\n\r\nhello",
             OK_HELLO);
    ASSERT_STREQ(buf, want);
    ASSERT(eof); /* HTTP/1.0 without keep-alive: closed after the answer */
    ASSERT_EQ(S.routed, 4);
    ASSERT_STREQ(S.last_path, "/missing");
    ASSERT_EQ(S.statuses[200], 2);
    ASSERT_EQ(S.statuses[405], 1);
    ASSERT_EQ(S.statuses[404], 1);
    close(fd);
    spin(20);
    ASSERT_EQ(gr_http_server_conn_count(H), 0);
    gr_http_server_close(H);
}

static void test_server_errors(void) {
    open_server(NULL);
    char buf[4096];
    bool eof;
    int fd = client();
    const char *body = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
    send_all(fd, body, strlen(body));
    drain(fd, buf, sizeof(buf), 300, &eof);
    ASSERT_STREQ(buf, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                      "32\r\nConnection: close\r\n\r\nrequest bodies are not accepted\n");
    ASSERT(eof);
    close(fd);
    /* 9000 bytes of head: 431 after 8192 bytes; the rest is discarded, then EOF. */
    fd = client();
    char big[9000];
    memcpy(big, "GET / HTTP/1.1\r\nHost: x\r\nX: ", 28);
    memset(big + 28, 'a', sizeof(big) - 28);
    send_all(fd, big, sizeof(big));
    drain(fd, buf, sizeof(buf), 300, &eof);
    ASSERT(!strncmp(buf, "HTTP/1.1 431 Request Header Fields Too Large\r\n", 46));
    ASSERT(strstr(buf, "\r\nConnection: close\r\n\r\nrequest head too large\n"));
    /* Our EOF is the server's SHUT_WR; it keeps reading (and discarding) until we close, so
     * the 808 unread bytes never turn into a reset that could destroy the answer. */
    ASSERT(eof);
    ASSERT_EQ(gr_http_server_conn_count(H), 1);
    close(fd);
    spin(50);
    ASSERT_EQ(gr_http_server_conn_count(H), 0);
    ASSERT_EQ(S.routed, 0);
    ASSERT_EQ(S.statuses[400], 1);
    ASSERT_EQ(S.statuses[431], 1);
    gr_http_server_close(H);
}

static void test_timeouts(void) {
    gr_http_opts_t o;
    gr_http_opts_default(&o);
    o.head_timeout_ms = 300;
    o.idle_timeout_ms = 600;
    o.write_timeout_ms = 300;
    open_server(&o);
    char buf[4096];
    bool eof;
    int idle = client(), slow = client();
    spin(50);
    ASSERT_EQ(gr_http_server_conn_count(H), 2);
    /* A trickling head: bytes keep coming, but the head is not complete 300 ms after its start. */
    int64_t t0 = gr_clock_mono_ms();
    const char *head = "GET / HTTP/1.1\r\nHost: x\r\n";
    size_t i = 0;
    eof = false;
    while (!eof && gr_clock_mono_ms() - t0 < 2000) {
        if (i < strlen(head)) send_all(slow, head + i++, 1);
        drain(slow, buf, sizeof(buf), 20, &eof);
    }
    int64_t took = gr_clock_mono_ms() - t0;
    ASSERT(eof && took >= 300 && took < 1000);
    ASSERT_EQ(S.routed, 0);
    /* The idle one goes at 600 ms. */
    drain(idle, buf, sizeof(buf), 1000, &eof);
    ASSERT(eof);
    ASSERT_EQ(gr_http_server_conn_count(H), 0);
    close(idle);
    close(slow);
    /* A client that does not read a 16 MiB response is closed by the write timeout. */
    S.big = 16u << 20;
    int nr = client();
    send_all(nr, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 31);
    spin(100);
    ASSERT_EQ(gr_http_server_conn_count(H), 1);
    spin(600);
    ASSERT_EQ(gr_http_server_conn_count(H), 0);
    close(nr);
    gr_http_server_close(H);
}

static void test_conn_cap(void) {
    gr_http_opts_t o;
    gr_http_opts_default(&o);
    o.max_conns = 2;
    open_server(&o);
    int fds[3] = {client(), client(), client()};
    spin(50);
    ASSERT_EQ(gr_http_server_conn_count(H), 2);
    char buf[256];
    bool eof, any_eof = false;
    for (int i = 0; i < 3; i++) {
        drain(fds[i], buf, sizeof(buf), 20, &eof);
        any_eof |= eof;
    }
    ASSERT(any_eof);
    for (int i = 0; i < 3; i++) close(fds[i]);
    spin(20);
    ASSERT_EQ(gr_http_server_conn_count(H), 0);
    int fd = client(); /* room again */
    send_all(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
    drain(fd, buf, sizeof(buf), 100, &eof);
    ASSERT_STREQ(buf, OK_HELLO);
    close(fd);
    spin(20);
    gr_http_server_close(H);
}

/* Pipelined requests are answered one per loop iteration, so a client pipelining an
 * expensive request (a large /metrics) cannot hold the loop. */
static void test_pipelining_fairness(void) {
    open_server(NULL);
    int fd = client();
    char req[20 * 27 + 1];
    for (int i = 0; i < 20; i++) memcpy(req + i * 27, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
    send_all(fd, req, sizeof(req) - 1);
    int64_t end = gr_clock_mono_ms() + 2000;
    while (S.routed == 0 && gr_clock_mono_ms() < end) gr_loop_run_once(L, false);
    ASSERT_EQ(S.routed, 1);
    gr_loop_run_once(L, false);
    ASSERT_EQ(S.routed, 2);
    gr_loop_run_once(L, false);
    ASSERT_EQ(S.routed, 3);
    char buf[8192];
    bool eof;
    size_t n = drain(fd, buf, sizeof(buf), 200, &eof);
    ASSERT_EQ(S.routed, 20);
    ASSERT_EQ(n, 20 * strlen(OK_HELLO));
    close(fd);
    spin(20);
    gr_http_server_close(H);
}

/* Without the loop: pump accepts, reads and answers by itself. */
static void test_pump(void) {
    open_server(NULL);
    int fd = client();
    send_all(fd, "GET /p HTTP/1.1\r\nHost: x\r\n\r\n", 28);
    char buf[512];
    size_t n = 0;
    for (int i = 0; i < 200 && n < strlen(OK_HELLO); i++) {
        gr_http_server_pump(H);
        ssize_t r = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
        if (r > 0) n += (size_t)r;
        usleep(2000);
    }
    buf[n] = '\0';
    ASSERT_STREQ(buf, OK_HELLO);
    ASSERT_STREQ(S.last_path, "/p");
    close(fd);
    for (int i = 0; i < 5; i++) gr_http_server_pump(H);
    ASSERT_EQ(gr_http_server_conn_count(H), 0);
    gr_http_server_close(H);
}

static void test_bind_error(void) {
    open_server(NULL);
    char err[256];
    gr_http_server_t *h2 = NULL;
    gr_http_handler_t h = {.route = route};
    ASSERT_EQ(gr_http_server_open(L, "127.0.0.1", gr_http_server_port(H), NULL, &h, &h2, err, sizeof(err)), GR_ERR__IO);
    ASSERT(strstr(err, "Address already in use"));
    gr_http_server_close(H);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    char err[256];
    ASSERT_EQ(gr_loop_new(&L, err, sizeof(err)), GR_ERR_NONE);
    RUN_TEST(test_exact_responses);
    RUN_TEST(test_server_errors);
    RUN_TEST(test_timeouts);
    RUN_TEST(test_conn_cap);
    RUN_TEST(test_pipelining_fairness);
    RUN_TEST(test_pump);
    RUN_TEST(test_bind_error);
    gr_loop_free(L);
    return 0;
}
