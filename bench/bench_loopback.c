/* Raw loopback TCP copy: the physical limit for a broker on this machine.
 *
 * One thread writes N bytes through a 127.0.0.1 socket, the main thread reads
 * them (and throws them away). Both ends use the same buffer size. Prints
 * human-readable figures and, with --json, one JSON object on the last line.
 *
 * usage: bench_loopback [bytes=1073741824] [chunk_bytes=65536] [--json]
 *
 * It touches nothing of the broker; it links against grcore only because every
 * bench/bench_*.c does. Only 127.0.0.1 is used. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    uint64_t bytes;
    size_t chunk;
    int err;
} writer_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void *writer_main(void *arg) {
    writer_t *w = arg;
    uint8_t *buf = malloc(w->chunk);
    if (!buf) {
        w->err = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < w->chunk; i++) buf[i] = (uint8_t)(i * 131u + 7u);
    uint64_t left = w->bytes;
    while (left > 0) {
        size_t n = left < w->chunk ? (size_t)left : w->chunk;
        ssize_t r = write(w->fd, buf, n);
        if (r < 0) {
            if (errno == EINTR) continue;
            w->err = errno;
            break;
        }
        left -= (uint64_t)r;
    }
    shutdown(w->fd, SHUT_WR);
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    uint64_t bytes = 1073741824ull;
    size_t chunk = 65536;
    int json = 0, pos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (pos == 0) {
            bytes = strtoull(argv[i], NULL, 10);
            pos++;
        } else if (pos == 1) {
            chunk = (size_t)strtoull(argv[i], NULL, 10);
            pos++;
        } else {
            fprintf(stderr, "usage: %s [bytes] [chunk_bytes] [--json]\n", argv[0]);
            return 2;
        }
    }
    if (bytes == 0 || chunk == 0) {
        fprintf(stderr, "bytes and chunk_bytes must be > 0\n");
        return 2;
    }

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0) {
        perror("socket");
        return 1;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = 0;
    socklen_t sl = sizeof sa;
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 1) ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl)) {
        perror("bind/listen");
        return 1;
    }
    int wfd = socket(AF_INET, SOCK_STREAM, 0);
    if (wfd < 0 || connect(wfd, (struct sockaddr *)&sa, sizeof sa)) {
        perror("connect");
        return 1;
    }
    int rfd = accept(lfd, NULL, NULL);
    if (rfd < 0) {
        perror("accept");
        return 1;
    }
    close(lfd);
    int one = 1;
    setsockopt(wfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    uint8_t *buf = malloc(chunk);
    if (!buf) return 1;
    writer_t w = {.fd = wfd, .bytes = bytes, .chunk = chunk, .err = 0};
    pthread_t th;
    double c0 = cpu_s(), t0 = now_s();
    if (pthread_create(&th, NULL, writer_main, &w)) {
        fprintf(stderr, "pthread_create failed\n");
        return 1;
    }
    uint64_t got = 0;
    for (;;) {
        ssize_t r = read(rfd, buf, chunk);
        if (r < 0) {
            if (errno == EINTR) continue;
            perror("read");
            return 1;
        }
        if (r == 0) break;
        got += (uint64_t)r;
    }
    double dt = now_s() - t0;
    pthread_join(th, NULL);
    double cpu = cpu_s() - c0;
    close(rfd);
    close(wfd);
    free(buf);
    if (w.err) {
        fprintf(stderr, "write: %s\n", strerror(w.err));
        return 1;
    }
    if (got != bytes) {
        fprintf(stderr, "short copy: %llu of %llu bytes\n", (unsigned long long)got, (unsigned long long)bytes);
        return 1;
    }
    double mbs = (double)bytes / dt / 1e6;
    printf("loopback copy: %llu bytes in %.3f s = %.1f MB/s (chunk %zu, cpu %.2f s)\n", (unsigned long long)bytes, dt,
           mbs, chunk, cpu);
    if (json)
        printf("{\"bytes\": %llu, \"chunk\": %zu, \"seconds\": %.6f, \"mb_per_s\": %.3f, \"cpu_s\": %.3f}\n",
               (unsigned long long)bytes, chunk, dt, mbs, cpu);
    return 0;
}
