/* Listener and connections: framing, ordering, limits, lifetime, sendfile,
 * backpressure, idle timeout. The server runs on the main thread; clients are
 * threads with blocking sockets. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "net/conn.h"
#include "net/loop.h"
#include "testutil.h"

enum { MODE_ECHO, MODE_REORDER, MODE_HOLD };

#define BIG_LEN  (512u << 10)
#define FILE_LEN (8u << 20)

typedef struct held {
    gr_conn_t *conn;
    uint64_t seq;
    uint8_t *frame;
    size_t len;
} held_t;

/* Test fixture: one server at a time. Atomics are read by client threads. */
typedef struct srv {
    gr_loop_t *loop;
    gr_listener_t *l;
    uint16_t port;
    int mode;
    held_t held[256];
    int n_held;
    bool release_held;
    gr_timer_t tick;
    int file_fd;
    gr_conn_t *slow;
    bool saw_paused;
    int late_answers_on_closed;
    atomic_int frames, closes, releases, slow_frames, clients_done;
} srv_t;

static srv_t S;

/* ---------------------------------------------------------------- server side */

static void count_release(void *owner) { atomic_fetch_add(&S.releases, 1); }

static void put_frame_header(gr_wbuf_t *wb, size_t len) { gr_wbuf_i32(wb, (int32_t)len); }

static void respond_echo(gr_conn_t *conn, uint64_t seq, const uint8_t *frame, size_t len, bool with_ext) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    put_frame_header(&wb, len + (with_ext ? 16 : 0));
    gr_wbuf_put(&wb, frame, len);
    if (with_ext) gr_wbuf_put_ext(&wb, S.file_fd, 0, 16, count_release, NULL);
    gr_conn_respond(conn, seq, &wb);
    ASSERT_EQ(gr_wbuf_size(&wb), 0); /* ownership moved */
    gr_wbuf_free(&wb);
}

/* Byte i of the test file. */
static uint8_t file_byte(size_t i) { return (uint8_t)(i * 131 + (i >> 9)); }

static void respond_file(gr_conn_t *conn, uint64_t seq) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    size_t total = 4 + (6u << 20) + 3 + 100 + 4 + 10;
    put_frame_header(&wb, total);
    gr_wbuf_put(&wb, "HEAD", 4);
    gr_wbuf_put_ext(&wb, S.file_fd, 1000, 6u << 20, count_release, NULL);
    gr_wbuf_put(&wb, "MID", 3);
    gr_wbuf_put_ext(&wb, S.file_fd, 7, 100, count_release, NULL);
    gr_wbuf_put(&wb, "TAIL", 4);
    gr_wbuf_put_ext(&wb, S.file_fd, 0, 10, count_release, NULL); /* ends with a file segment */
    gr_conn_respond(conn, seq, &wb);
}

static void respond_big(gr_conn_t *conn, uint64_t seq) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    put_frame_header(&wb, BIG_LEN);
    memset(gr_wbuf_reserve(&wb, BIG_LEN), (int)(seq & 0xff), BIG_LEN);
    gr_conn_respond(conn, seq, &wb);
}

static void hold(gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len) {
    ASSERT(S.n_held < 256);
    S.held[S.n_held++] = (held_t){conn, seq, frame, len};
}

static void answer_held(void) {
    for (int i = 0; i < S.n_held; i++) {
        held_t *h = &S.held[i];
        if (gr_conn_is_closed(h->conn)) S.late_answers_on_closed++;
        if (S.mode == MODE_HOLD && h->seq % 3 == 1)
            gr_conn_skip(h->conn, h->seq);
        else
            respond_echo(h->conn, h->seq, h->frame, h->len, S.mode == MODE_HOLD && h->seq % 3 == 0);
        free(h->frame);
    }
    S.n_held = 0;
    S.release_held = false;
}

static void on_frame(void *ctx, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len) {
    ASSERT(ctx == &S);
    atomic_fetch_add(&S.frames, 1);
    char kind = len ? (char)frame[0] : '-';
    if (S.mode == MODE_HOLD || (S.mode == MODE_REORDER && seq % 2 == 0)) {
        hold(conn, seq, frame, len);
        return;
    }
    if (S.mode == MODE_REORDER) S.release_held = true; /* the even one goes out after this odd one */
    if (kind == 'S') {
        gr_conn_skip(conn, seq);
    } else if (kind == 'F') {
        respond_file(conn, seq);
    } else if (kind == 'B') {
        S.slow = conn;
        atomic_fetch_add(&S.slow_frames, 1);
        respond_big(conn, seq);
    } else {
        respond_echo(conn, seq, frame, len, false);
    }
    free(frame);
}

static void on_close(void *ctx, gr_conn_t *conn) {
    ASSERT(gr_conn_is_closed(conn));
    ASSERT(gr_conn_user(conn) == (void *)conn);
    if (conn == S.slow) S.slow = NULL;
    atomic_fetch_add(&S.closes, 1);
    if (S.mode != MODE_HOLD) return;
    /* Answer one request from inside on_close (the broker cancelling a parked
     * request), the rest later from a timer. */
    for (int i = 0; i < S.n_held; i++) {
        if (S.held[i].conn != conn || S.held[i].seq != 1) continue;
        gr_conn_skip(conn, S.held[i].seq);
        free(S.held[i].frame);
        S.held[i] = S.held[--S.n_held];
        S.late_answers_on_closed++;
        break;
    }
    S.release_held = true;
}

static void on_accept(void *ctx, gr_conn_t *conn) {
    ASSERT(!gr_conn_is_closed(conn));
    ASSERT(strchr(gr_conn_peer(conn), ':') != NULL);
    gr_conn_set_user(conn, conn);
}

static void tick_cb(gr_timer_t *timer, int64_t now) {
    if (S.release_held) answer_held();
    if (S.slow && gr_conn_is_paused(S.slow)) S.saw_paused = true;
}

static void srv_start(int mode, const char *host, const gr_conn_opts_t *opts) {
    memset(&S, 0, sizeof(S));
    S.mode = mode;
    S.file_fd = -1;
    char errstr[256];
    ASSERT_EQ(gr_loop_new(&S.loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_conn_handler_t h = {.on_frame = on_frame, .on_close = on_close, .on_accept = on_accept, .ctx = &S};
    gr_err_t err = gr_listener_open(S.loop, host, 0, opts, &h, &S.l, errstr, sizeof(errstr));
    if (err) GR__FAIL("listener: %s", errstr);
    S.port = gr_listener_port(S.l);
    ASSERT(S.port != 0);
    gr_timer_init(S.loop, &S.tick, tick_cb, NULL);
    gr_timer_start(&S.tick, 2, 2);
}

/* Run the loop until `n` client threads are done and nothing is held. */
static void srv_run(int n_clients) {
    int64_t deadline = gr_clock_mono_ms() + 60000;
    while (atomic_load(&S.clients_done) < n_clients || S.n_held > 0) {
        ASSERT_EQ(gr_loop_run_once(S.loop, true), GR_ERR_NONE);
        ASSERT(gr_loop_now(S.loop) < deadline);
    }
}

static void srv_stop(void) {
    gr_timer_stop(&S.tick);
    gr_listener_close(S.l);
    gr_loop_free(S.loop);
    if (S.file_fd >= 0) close(S.file_fd);
}

/* ---------------------------------------------------------------- client side */

static int cli_connect(const char *host, int rcvbuf) {
    bool v6 = strchr(host, ':') != NULL;
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    ASSERT(fd >= 0);
    struct timeval tv = {.tv_sec = 30};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (rcvbuf) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (v6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(S.port);
        inet_pton(AF_INET6, host, &in6->sin6_addr);
        len = sizeof(*in6);
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(S.port);
        inet_pton(AF_INET, host, &in->sin_addr);
        len = sizeof(*in);
    }
    ASSERT_EQ(connect(fd, (struct sockaddr *)&ss, len), 0);
    return fd;
}

static void send_all(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        ASSERT(w > 0);
        b += w;
        n -= (size_t)w;
    }
}

static bool recv_all(int fd, void *p, size_t n) {
    uint8_t *b = p;
    while (n) {
        ssize_t r = recv(fd, b, n, 0);
        if (r <= 0) return false;
        b += r;
        n -= (size_t)r;
    }
    return true;
}

static size_t frame_into(uint8_t *out, const char *payload) {
    size_t len = strlen(payload);
    gr_put_be32(out, (uint32_t)len);
    memcpy(out + 4, payload, len);
    return 4 + len;
}

static void send_frame(int fd, const char *payload) {
    uint8_t buf[256];
    send_all(fd, buf, frame_into(buf, payload));
}

/* Receive one response frame; NULL on EOF. Caller frees. */
static uint8_t *recv_frame(int fd, size_t *len) {
    uint8_t hdr[4];
    if (!recv_all(fd, hdr, 4)) return NULL;
    *len = gr_be32(hdr);
    uint8_t *p = malloc(*len + 1);
    ASSERT(p);
    ASSERT(recv_all(fd, p, *len));
    p[*len] = 0;
    return p;
}

static void expect_echo(int fd, const char *payload) {
    size_t len;
    uint8_t *p = recv_frame(fd, &len);
    if (!p) GR__FAIL("EOF while waiting for \"%s\"", payload);
    ASSERT_EQ(len, strlen(payload));
    ASSERT_MEMEQ(p, payload, len);
    free(p);
}

static void expect_eof(int fd) {
    uint8_t b;
    ssize_t r;
    while ((r = recv(fd, &b, 1, 0)) > 0) {
    }
    ASSERT(r == 0 || errno == ECONNRESET);
}

static void client_done(void) { atomic_fetch_add(&S.clients_done, 1); }

static void wait_for(atomic_int *v, int want) {
    int64_t deadline = gr_clock_mono_ms() + 30000;
    while (atomic_load(v) < want) {
        ASSERT(gr_clock_mono_ms() < deadline);
        usleep(1000);
    }
}

/* ---------------------------------------------------------------- tests */

static void *reorder_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    uint8_t buf[4096];
    char msg[64];
    size_t n = 0;
    for (int i = 0; i < 20; i++) { /* 20 frames in one write */
        snprintf(msg, sizeof(msg), "msg-%d%.*s", i, i, "xxxxxxxxxxxxxxxxxxxxxxxxx");
        n += frame_into(buf + n, msg);
    }
    send_all(fd, buf, n);
    for (int i = 20; i < 40; i++) { /* then byte by byte */
        snprintf(msg, sizeof(msg), "msg-%d", i);
        size_t m = frame_into(buf, msg);
        for (size_t k = 0; k < m; k++) send_all(fd, buf + k, 1);
    }
    for (int i = 0; i < 40; i++) {
        snprintf(msg, sizeof(msg), i < 20 ? "msg-%d%.*s" : "msg-%d", i, i, "xxxxxxxxxxxxxxxxxxxxxxxxx");
        expect_echo(fd, msg);
    }
    close(fd);
    client_done();
    return NULL;
}

static void test_reorder_in_order_out(void) {
    srv_start(MODE_REORDER, "127.0.0.1", NULL);
    pthread_t th;
    pthread_create(&th, NULL, reorder_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    ASSERT_EQ(atomic_load(&S.frames), 40);
    srv_stop();
}

static void *big_request_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    size_t big = 3u << 20;
    uint8_t *buf = malloc(4 + big + 64);
    gr_put_be32(buf, (uint32_t)big);
    for (size_t i = 0; i < big; i++) buf[4 + i] = (uint8_t)('a' + i % 26);
    size_t n = 4 + big + frame_into(buf + 4 + big, "tail"); /* read straight into the frame, then parsed */
    send_all(fd, buf, n);
    size_t len;
    uint8_t *p = recv_frame(fd, &len);
    ASSERT(p && len == big);
    ASSERT_MEMEQ(p, buf + 4, big);
    free(p);
    expect_echo(fd, "tail");
    free(buf);
    close(fd);
    client_done();
    return NULL;
}

static void test_big_request(void) {
    srv_start(MODE_REORDER, "127.0.0.1", NULL);
    pthread_t th;
    pthread_create(&th, NULL, big_request_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    ASSERT_EQ(atomic_load(&S.frames), 2);
    srv_stop();
}

static void *skip_client(void *arg) {
    const char *host = arg;
    int fd = cli_connect(host, 0);
    uint8_t buf[256];
    size_t n = frame_into(buf, "S1");
    n += frame_into(buf + n, "x");
    n += frame_into(buf + n, "S2");
    n += frame_into(buf + n, "");
    n += frame_into(buf + n, "y");
    send_all(fd, buf, n);
    expect_echo(fd, "x");
    expect_echo(fd, "");
    expect_echo(fd, "y");
    close(fd);
    client_done();
    return NULL;
}

static void test_skip_and_ipv6(void) {
    srv_start(MODE_ECHO, "127.0.0.1", NULL);
    pthread_t th;
    pthread_create(&th, NULL, skip_client, "127.0.0.1");
    srv_run(1);
    pthread_join(th, NULL);
    srv_stop();
    /* IPv6 loopback, when the host has it. */
    gr_loop_t *loop;
    gr_listener_t *l;
    char errstr[256];
    ASSERT_EQ(gr_loop_new(&loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_conn_handler_t h = {.on_frame = on_frame};
    bool have_v6 = gr_listener_open(loop, "::1", 0, NULL, &h, &l, errstr, sizeof(errstr)) == GR_ERR_NONE;
    if (have_v6) gr_listener_close(l);
    gr_loop_free(loop);
    if (!have_v6) {
        fprintf(stderr, "   (no IPv6 loopback: %s)\n", errstr);
        return;
    }
    srv_start(MODE_ECHO, "::1", NULL);
    pthread_create(&th, NULL, skip_client, "::1");
    srv_run(1);
    pthread_join(th, NULL);
    srv_stop();
}

static void *limits_client(void *arg) {
    int a = cli_connect("127.0.0.1", 0);
    send_frame(a, "first");
    expect_echo(a, "first");
    uint8_t bad[16];
    int b = cli_connect("127.0.0.1", 0); /* one byte over the limit */
    gr_put_be32(bad, 1025);
    send_all(b, bad, 4);
    expect_eof(b);
    int c = cli_connect("127.0.0.1", 0); /* negative */
    gr_put_be32(bad, (uint32_t)-5);
    send_all(c, bad, 4);
    expect_eof(c);
    int d = cli_connect("127.0.0.1", 0); /* valid frame, then a huge one in the same write */
    size_t n = frame_into(bad, "ok");
    gr_put_be32(bad + n, 0x7fffffff);
    send_all(d, bad, n + 4);
    expect_eof(d);
    wait_for(&S.closes, 3);
    send_frame(a, "second"); /* the first connection is unaffected */
    expect_echo(a, "second");
    uint8_t exact[4 + 1024];
    gr_put_be32(exact, 1024); /* exactly at the limit is fine */
    memset(exact + 4, 'e', 1024);
    send_all(a, exact, sizeof(exact));
    size_t len;
    uint8_t *p = recv_frame(a, &len);
    ASSERT(p && len == 1024);
    free(p);
    close(a);
    close(b);
    close(c);
    close(d);
    client_done();
    return NULL;
}

static void test_frame_limits(void) {
    gr_conn_opts_t opts;
    gr_conn_opts_default(&opts);
    ASSERT_EQ(opts.max_request_bytes, 104857600);
    opts.max_request_bytes = 1024;
    srv_start(MODE_ECHO, "127.0.0.1", &opts);
    pthread_t th;
    pthread_create(&th, NULL, limits_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    srv_stop();
}

static int make_file(void) {
    char path[] = "/tmp/gr_test_conn_XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    unlink(path);
    uint8_t *data = malloc(FILE_LEN);
    for (size_t i = 0; i < FILE_LEN; i++) data[i] = file_byte(i);
    ASSERT_EQ(write(fd, data, FILE_LEN), FILE_LEN);
    free(data);
    return fd;
}

static void *hold_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    uint8_t buf[256];
    size_t n = 0;
    for (int i = 0; i < 6; i++) n += frame_into(buf + n, "pending");
    send_all(fd, buf, n);
    wait_for(&S.frames, 6);
    close(fd); /* disconnect with six unanswered requests */
    /* A second connection the server closes itself (limit) with one pending request. */
    int e = cli_connect("127.0.0.1", 0);
    n = frame_into(buf, "pending");
    gr_put_be32(buf + n, (uint32_t)-1);
    send_all(e, buf, n + 4);
    expect_eof(e);
    close(e);
    wait_for(&S.closes, 2);
    client_done();
    return NULL;
}

static void test_disconnect_with_pending(void) {
    srv_start(MODE_HOLD, "127.0.0.1", NULL);
    S.file_fd = make_file();
    pthread_t th;
    pthread_create(&th, NULL, hold_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    ASSERT_EQ(atomic_load(&S.frames), 7);
    ASSERT_EQ(S.late_answers_on_closed, 7);
    /* seq 0 and 3 of the first connection and seq 0 of the second had a file
     * segment; its release ran although nothing was sent. */
    ASSERT_EQ(atomic_load(&S.releases), 3);
    ASSERT_EQ(gr_listener_conn_count(S.l), 0);
    gr_listener_stats_t st;
    gr_listener_stats(S.l, &st);
    ASSERT_EQ(st.open, 0);
#ifndef GR_NO_METRICS
    /* one closed by the peer, one by the server: both count as closed */
    ASSERT_EQ(st.accepted, 2);
    ASSERT_EQ(st.closed, 2);
    ASSERT_EQ(st.refused[GR_CONN_REFUSED_MAX_CONNECTIONS] + st.refused[GR_CONN_REFUSED_MAX_PER_IP], 0);
#endif
    srv_stop(); /* ASan reports the conns if the last answer did not free them */
}

static void check_file_response(int fd) {
    size_t len;
    uint8_t *p = recv_frame(fd, &len);
    ASSERT(p);
    size_t big = 6u << 20;
    ASSERT_EQ(len, 4 + big + 3 + 100 + 4 + 10);
    ASSERT_MEMEQ(p, "HEAD", 4);
    for (size_t i = 0; i < big; i++)
        if (p[4 + i] != file_byte(1000 + i)) GR__FAIL("file byte %zu differs", i);
    uint8_t *q = p + 4 + big;
    ASSERT_MEMEQ(q, "MID", 3);
    for (size_t i = 0; i < 100; i++) ASSERT_EQ(q[3 + i], file_byte(7 + i));
    ASSERT_MEMEQ(q + 103, "TAIL", 4);
    for (size_t i = 0; i < 10; i++) ASSERT_EQ(q[107 + i], file_byte(i));
    free(p);
}

static void *file_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    uint8_t buf[256];
    size_t n = frame_into(buf, "F");
    n += frame_into(buf + n, "between");
    n += frame_into(buf + n, "F");
    send_all(fd, buf, n);
    check_file_response(fd);
    expect_echo(fd, "between");
    check_file_response(fd);
    close(fd);
    client_done();
    return NULL;
}

static void test_sendfile_segments(void) {
    srv_start(MODE_ECHO, "127.0.0.1", NULL);
    S.file_fd = make_file();
    pthread_t th;
    pthread_create(&th, NULL, file_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    ASSERT_EQ(atomic_load(&S.releases), 6);
    srv_stop();
}

#define SLOW_REQUESTS 100

static atomic_int g_fast_done;
static int g_slow_frames_seen;

static void *slow_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 64 << 10);
    uint8_t buf[8 * SLOW_REQUESTS];
    size_t n = 0;
    for (int i = 0; i < SLOW_REQUESTS; i++) n += frame_into(buf + n, "B");
    send_all(fd, buf, n); /* 50 MiB of responses requested; read none yet */
    wait_for(&g_fast_done, 1);
    g_slow_frames_seen = atomic_load(&S.slow_frames);
    fprintf(stderr, "   slow connection: %d of %d requests read while its reader was stalled\n", g_slow_frames_seen,
            SLOW_REQUESTS);
    uint8_t *want = malloc(BIG_LEN);
    for (int i = 0; i < SLOW_REQUESTS; i++) {
        size_t len;
        uint8_t *p = recv_frame(fd, &len);
        ASSERT(p && len == BIG_LEN);
        memset(want, i & 0xff, BIG_LEN);
        ASSERT_MEMEQ(p, want, BIG_LEN);
        free(p);
    }
    free(want);
    close(fd);
    client_done();
    return NULL;
}

static void *fast_client(void *arg) {
    wait_for(&S.slow_frames, 1);
    usleep(50000); /* let the slow connection fill up and pause */
    int fd = cli_connect("127.0.0.1", 0);
    int64_t start = gr_clock_mono_ms();
    for (int i = 0; i < 200; i++) {
        char msg[32];
        snprintf(msg, sizeof(msg), "ping-%d", i);
        send_frame(fd, msg);
        expect_echo(fd, msg);
    }
    ASSERT(gr_clock_mono_ms() - start < 10000);
    close(fd);
    atomic_store(&g_fast_done, 1);
    client_done();
    return NULL;
}

static void test_backpressure_slow_reader(void) {
    gr_conn_opts_t opts;
    gr_conn_opts_default(&opts);
    opts.max_inflight = 8;
    opts.max_out_bytes = 1u << 20;
    srv_start(MODE_ECHO, "127.0.0.1", &opts);
    atomic_store(&g_fast_done, 0);
    pthread_t slow, fast;
    pthread_create(&slow, NULL, slow_client, NULL);
    pthread_create(&fast, NULL, fast_client, NULL);
    srv_run(2);
    pthread_join(slow, NULL);
    pthread_join(fast, NULL);
    ASSERT(S.saw_paused);
    ASSERT(g_slow_frames_seen < SLOW_REQUESTS); /* reading stopped while it did not read */
    ASSERT_EQ(atomic_load(&S.slow_frames), SLOW_REQUESTS);
    srv_stop();
}

static void *idle_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    send_frame(fd, "hello");
    expect_echo(fd, "hello");
    int64_t start = gr_clock_mono_ms();
    expect_eof(fd); /* the server closes the idle connection */
    int64_t waited = gr_clock_mono_ms() - start;
    ASSERT(waited >= 80 && waited < 5000);
    close(fd);
    client_done();
    return NULL;
}

static void test_idle_timeout(void) {
    gr_conn_opts_t opts;
    gr_conn_opts_default(&opts);
    ASSERT_EQ(opts.idle_ms, 600000);
    opts.idle_ms = 100;
    srv_start(MODE_ECHO, "127.0.0.1", &opts);
    pthread_t th;
    pthread_create(&th, NULL, idle_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    ASSERT_EQ(atomic_load(&S.closes), 1);
    srv_stop();
}

/* Memory pool: three clients each push an 8 MiB frame at once against a 1 MiB bound.
 * Each frame's buffer grows with its bytes, the pool stays near its bound (plus the one
 * frame allowed to finish), and all three complete: no deadlock. */
#define POOL_FRAME (8u << 20)
static size_t g_pool_max;

static void *pool_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    uint8_t *buf = malloc(4 + POOL_FRAME);
    ASSERT(buf);
    gr_put_be32(buf, POOL_FRAME);
    memset(buf + 4, 'p', POOL_FRAME);
    send_all(fd, buf, 4 + POOL_FRAME);
    size_t len;
    uint8_t *p = recv_frame(fd, &len);
    ASSERT(p && len == POOL_FRAME && p[0] == 'p' && p[len - 1] == 'p');
    free(p);
    free(buf);
    close(fd);
    client_done();
    return NULL;
}

static void pool_tick(gr_timer_t *t, int64_t now) {
    size_t used = gr_listener_mem_used(S.l);
    if (used > g_pool_max) g_pool_max = used;
}

static void test_memory_pool(void) {
    gr_conn_opts_t opts;
    gr_conn_opts_default(&opts);
    ASSERT_EQ(opts.queued_max_bytes, 104857600);
    opts.queued_max_bytes = 1u << 20;
    srv_start(MODE_ECHO, "127.0.0.1", &opts);
    gr_timer_t t;
    gr_timer_init(S.loop, &t, pool_tick, NULL);
    gr_timer_start(&t, 1, 1);
    g_pool_max = 0;
    pthread_t th[3];
    for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, pool_client, NULL);
    srv_run(3);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    gr_timer_stop(&t);
    ASSERT_EQ(atomic_load(&S.frames), 3);
    ASSERT(g_pool_max > 0);
    /* The bound, plus the one frame allowed to grow past it, plus one shared read each. */
    ASSERT(g_pool_max <= (1u << 20) + POOL_FRAME + 3 * (128u << 10));
    ASSERT_EQ(gr_listener_mem_used(S.l), 0);
    srv_stop();
}

/* socket.request.read.timeout.ms: half a header, then nothing: closed after the timeout. */
static void *partial_client(void *arg) {
    int fd = cli_connect("127.0.0.1", 0);
    send_frame(fd, "ok");
    expect_echo(fd, "ok");
    send_all(fd, "\0\0", 2);
    int64_t start = gr_clock_mono_ms();
    expect_eof(fd);
    int64_t waited = gr_clock_mono_ms() - start;
    ASSERT(waited >= 80 && waited < 5000);
    close(fd);
    client_done();
    return NULL;
}

static void test_request_timeout(void) {
    gr_conn_opts_t opts;
    gr_conn_opts_default(&opts);
    ASSERT_EQ(opts.request_timeout_ms, 30000);
    opts.request_timeout_ms = 100;
    srv_start(MODE_ECHO, "127.0.0.1", &opts);
    pthread_t th;
    pthread_create(&th, NULL, partial_client, NULL);
    srv_run(1);
    pthread_join(th, NULL);
    ASSERT_EQ(atomic_load(&S.closes), 1);
    srv_stop();
}

static void test_listener_errors(void) {
    gr_loop_t *loop;
    gr_listener_t *l = NULL, *l2 = NULL;
    char errstr[256];
    ASSERT_EQ(gr_loop_new(&loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_conn_handler_t none = {0}, h = {.on_frame = on_frame};
    ASSERT_EQ(gr_listener_open(loop, "127.0.0.1", 0, NULL, &none, &l, errstr, sizeof(errstr)), GR_ERR__INVALID_ARG);
    ASSERT_EQ(gr_listener_open(loop, "127.0.0.1", 0, NULL, &h, &l, errstr, sizeof(errstr)), GR_ERR_NONE);
    /* A second bind to the same port fails with an explanation. */
    ASSERT_EQ(gr_listener_open(loop, "127.0.0.1", gr_listener_port(l), NULL, &h, &l2, errstr, sizeof(errstr)),
              GR_ERR__IO);
    ASSERT(strstr(errstr, "bind") != NULL);
    ASSERT_EQ(gr_listener_open(loop, "no.such.host.invalid", 0, NULL, &h, &l2, errstr, sizeof(errstr)), GR_ERR__IO);
    gr_listener_close(l);
    gr_loop_free(loop);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN); /* sendfile(2) has no MSG_NOSIGNAL; gregord ignores SIGPIPE too */
    alarm(240);
    RUN_TEST(test_reorder_in_order_out);
    RUN_TEST(test_big_request);
    RUN_TEST(test_skip_and_ipv6);
    RUN_TEST(test_frame_limits);
    RUN_TEST(test_disconnect_with_pending);
    RUN_TEST(test_sendfile_segments);
    RUN_TEST(test_backpressure_slow_reader);
    RUN_TEST(test_idle_timeout);
    RUN_TEST(test_memory_pool);
    RUN_TEST(test_request_timeout);
    RUN_TEST(test_listener_errors);
    return 0;
}
