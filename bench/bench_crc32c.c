/* CRC-32C throughput: the run-time selected implementation against the
 * portable slicing-by-8 one, over 64 KiB buffers (a typical batch size). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/crc32c.h"

uint32_t gr__crc32c_sw(uint32_t crc, const void *data, size_t len);

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(const char *name, uint32_t (*fn)(uint32_t, const void *, size_t), const uint8_t *buf, size_t len,
                int iters) {
    uint32_t crc = 0;
    double t0 = now_s();
    for (int i = 0; i < iters; i++) crc = fn(crc, buf, len);
    double dt = now_s() - t0;
    printf("%-10s %8.2f GB/s (crc %08x)\n", name, (double)len * iters / dt / 1e9, crc);
}

int main(int argc, char **argv) {
    size_t len = 64 * 1024;
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    uint8_t *buf = malloc(len);
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(i * 31 + 7);
    run("selected", gr_crc32c, buf, len, iters);
    run("slice-by-8", gr__crc32c_sw, buf, len, iters / 4 ? iters / 4 : 1);
    free(buf);
    return 0;
}
