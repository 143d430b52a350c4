/* A response whose memory header is followed by a file segment (a Fetch answer:
 * header, then records by sendfile) leaves in one TCP segment: the header's
 * sendmsg carries MSG_MORE, so the reader is not woken for the header alone.
 * Counted on the reader's side with TCP_INFO's tcpi_data_segs_in (loopback: a
 * 1 KiB answer fits one segment; without MSG_MORE the header went out first,
 * in a segment of its own, as TCP_NODELAY sends at once). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "net/conn.h"
#include "net/loop.h"
#include "testutil.h"

#define FILE_PART 1000
#define ROUNDS    20

static int g_file_fd = -1;
static atomic_int g_done;
static int g_multi_segment; /* answers that arrived in more than one data segment */

static void on_frame(void *ctx, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len) {
    (void)ctx;
    (void)len;
    free(frame);
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_wbuf_i32(&wb, 4 + FILE_PART);
    gr_wbuf_put(&wb, "HEAD", 4);
    gr_wbuf_put_ext(&wb, g_file_fd, 0, FILE_PART, NULL, NULL);
    gr_conn_respond(conn, seq, &wb);
    gr_wbuf_free(&wb);
}

static uint32_t data_segs_in(int fd) {
    struct tcp_info ti;
    socklen_t n = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &n), 0);
    ASSERT(n >= offsetof(struct tcp_info, tcpi_data_segs_in) + sizeof(ti.tcpi_data_segs_in));
    return ti.tcpi_data_segs_in;
}

static void recv_all(int fd, uint8_t *p, size_t n) {
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        ASSERT(r > 0);
        p += r;
        n -= (size_t)r;
    }
}

static void *client(void *arg) {
    uint16_t port = *(uint16_t *)arg;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT(fd >= 0);
    struct timeval tv = {.tv_sec = 30};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
    ASSERT_EQ(connect(fd, (struct sockaddr *)&in, sizeof(in)), 0);
    for (int i = 0; i < ROUNDS; i++) {
        uint32_t before = data_segs_in(fd);
        const uint8_t req[5] = {0, 0, 0, 1, 'F'};
        ASSERT_EQ(send(fd, req, sizeof(req), MSG_NOSIGNAL), (ssize_t)sizeof(req));
        uint8_t buf[4 + 4 + FILE_PART];
        recv_all(fd, buf, sizeof(buf));
        ASSERT_EQ(gr_be32(buf), 4 + FILE_PART);
        ASSERT_MEMEQ(buf + 4, "HEAD", 4);
        for (int k = 0; k < FILE_PART; k++) ASSERT_EQ(buf[8 + k], (uint8_t)k);
        if (data_segs_in(fd) - before != 1) g_multi_segment++;
    }
    close(fd);
    atomic_store(&g_done, 1);
    return NULL;
}

static void tick(gr_timer_t *t, int64_t now) { /* wakes the loop to look at g_done */
    (void)t;
    (void)now;
}

static void test_header_and_file_in_one_segment(void) {
    char path[] = "/tmp/gr-test-coalesce-XXXXXX";
    g_file_fd = mkstemp(path);
    ASSERT(g_file_fd >= 0);
    unlink(path);
    uint8_t data[FILE_PART];
    for (int k = 0; k < FILE_PART; k++) data[k] = (uint8_t)k;
    ASSERT_EQ(write(g_file_fd, data, sizeof(data)), (ssize_t)sizeof(data));
    gr_loop_t *loop;
    gr_listener_t *l;
    char errstr[256];
    ASSERT_EQ(gr_loop_new(&loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_conn_handler_t h = {.on_frame = on_frame};
    if (gr_listener_open(loop, "127.0.0.1", 0, NULL, &h, &l, errstr, sizeof(errstr))) GR__FAIL("listener: %s", errstr);
    uint16_t port = gr_listener_port(l);
    gr_timer_t t;
    gr_timer_init(loop, &t, tick, NULL);
    gr_timer_start(&t, 2, 2);
    pthread_t th;
    pthread_create(&th, NULL, client, &port);
    int64_t deadline = gr_clock_mono_ms() + 30000;
    while (!atomic_load(&g_done)) {
        ASSERT_EQ(gr_loop_run_once(loop, true), GR_ERR_NONE);
        ASSERT(gr_clock_mono_ms() < deadline);
    }
    pthread_join(th, NULL);
    ASSERT_EQ(g_multi_segment, 0);
    gr_timer_stop(&t);
    gr_listener_close(l);
    gr_loop_free(loop);
    close(g_file_fd);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    alarm(60);
    RUN_TEST(test_header_and_file_in_one_segment);
    return 0;
}
