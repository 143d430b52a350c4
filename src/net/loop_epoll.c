/* epoll(7) backend for the event loop (level-triggered). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/log.h"
#include "net/loop_int.h"

struct gr__backend {
    int epfd;
    struct epoll_event events[GR__LOOP_MAX_FIRED];
};

gr_err_t gr__backend_new(gr__backend_t **out, char *errstr, size_t errstr_size) {
    gr__backend_t *be = calloc(1, sizeof(*be));
    if (!be) abort();
    be->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (be->epfd < 0) {
        snprintf(errstr, errstr_size, "epoll_create1: %s", strerror(errno));
        free(be);
        return GR_ERR__IO;
    }
    *out = be;
    return GR_ERR_NONE;
}

void gr__backend_free(gr__backend_t *be) {
    if (!be) return;
    close(be->epfd);
    free(be);
}

gr_err_t gr__backend_set(gr__backend_t *be, int fd, uint32_t old_mask, uint32_t new_mask) {
    struct epoll_event ev = {0};
    ev.data.fd = fd;
    if (new_mask & GR_IO_READ) ev.events |= EPOLLIN | EPOLLRDHUP;
    if (new_mask & GR_IO_WRITE) ev.events |= EPOLLOUT;
    int op = !new_mask ? EPOLL_CTL_DEL : old_mask ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(be->epfd, op, fd, &ev) == 0) return GR_ERR_NONE;
    /* DEL of an fd the kernel already dropped (closed elsewhere) is harmless. */
    if (op == EPOLL_CTL_DEL && (errno == EBADF || errno == ENOENT)) return GR_ERR_NONE;
    GR_WARN("net", "epoll_ctl(op %d, fd %d): %s", op, fd, strerror(errno));
    return GR_ERR__IO;
}

int gr__backend_poll(gr__backend_t *be, int timeout_ms, gr__fired_t *fired, int max) {
    if (max > GR__LOOP_MAX_FIRED) max = GR__LOOP_MAX_FIRED;
    int n = epoll_wait(be->epfd, be->events, max, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -1;
    for (int i = 0; i < n; i++) {
        uint32_t e = be->events[i].events, m = 0;
        if (e & (EPOLLIN | EPOLLRDHUP)) m |= GR_IO_READ;
        if (e & EPOLLOUT) m |= GR_IO_WRITE;
        if (e & (EPOLLERR | EPOLLHUP)) m |= GR_IO_ERROR;
        fired[i].fd = be->events[i].data.fd;
        fired[i].events = m;
    }
    return n;
}
