/* Event loop core: iteration phases, fd watchers, posts, hooks and stop.
 * Timers live in timer.c, the poller in loop_epoll.c. See docs/event-loop.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/loop_int.h"

static void wake_cb(gr_io_t *io, uint32_t events, int64_t now);

/* ---------------------------------------------------------------- lifecycle */

gr_err_t gr_loop_new(gr_loop_t **out, char *errstr, size_t errstr_size) {
    gr_loop_t *loop = calloc(1, sizeof(*loop));
    if (!loop) abort();
    loop->wake_fd = -1;
    atomic_init(&loop->stop, 0);
    pthread_mutex_init(&loop->post_mu, NULL);
    gr__loop_timers_init(loop);
    loop->now = gr_clock_mono_ms();
    if (gr__backend_new(&loop->be, errstr, errstr_size)) goto err;
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->wake_fd < 0) {
        snprintf(errstr, errstr_size, "eventfd: %s", strerror(errno));
        goto err;
    }
    gr_io_init(&loop->wake_io, loop->wake_fd, wake_cb, loop);
    if (gr_io_start(loop, &loop->wake_io, GR_IO_READ)) {
        snprintf(errstr, errstr_size, "cannot watch the wakeup eventfd");
        goto err;
    }
    *out = loop;
    return GR_ERR_NONE;
err:
    gr_loop_free(loop);
    return GR_ERR__IO;
}

void gr_loop_free(gr_loop_t *loop) {
    if (!loop) return;
    if (loop->wake_fd >= 0) {
        gr_io_stop(&loop->wake_io);
        close(loop->wake_fd);
    }
    gr__post_t *p = loop->post_head;
    while (p) {
        gr__post_t *next = p->next;
        free(p);
        p = next;
    }
    gr_heap_free(&loop->timers);
    gr__backend_free(loop->be);
    pthread_mutex_destroy(&loop->post_mu);
    free(loop->ios);
    free(loop);
}

int64_t gr_loop_now(const gr_loop_t *loop) { return loop->now; }
void gr_loop_update_now(gr_loop_t *loop) { loop->now = gr_clock_mono_ms(); }

/* ---------------------------------------------------------------- stop and posts */

static void wake(gr_loop_t *loop) {
    uint64_t one = 1;
    /* EAGAIN means the counter is already non-zero: the loop will wake anyway. */
    ssize_t w = write(loop->wake_fd, &one, sizeof(one));
    (void)w;
}

void gr_loop_stop(gr_loop_t *loop) {
    int saved = errno;
    atomic_store(&loop->stop, 1);
    wake(loop);
    errno = saved;
}

void gr_loop_post(gr_loop_t *loop, gr_post_cb fn, void *arg) {
    gr__post_t *p = malloc(sizeof(*p));
    if (!p) abort();
    p->next = NULL;
    p->fn = fn;
    p->arg = arg;
    pthread_mutex_lock(&loop->post_mu);
    /* Only the post that makes the queue non-empty has to wake the loop: the
     * loop resets the eventfd before it takes the queue, so any later post
     * either joins that batch or finds the queue empty again and wakes it. */
    bool was_empty = loop->post_head == NULL;
    if (loop->post_tail)
        loop->post_tail->next = p;
    else
        loop->post_head = p;
    loop->post_tail = p;
    pthread_mutex_unlock(&loop->post_mu);
    if (was_empty) wake(loop);
}

static void run_posts(gr_loop_t *loop) {
    pthread_mutex_lock(&loop->post_mu);
    gr__post_t *p = loop->post_head;
    loop->post_head = loop->post_tail = NULL;
    pthread_mutex_unlock(&loop->post_mu);
    while (p) {
        gr__post_t *next = p->next;
        p->fn(loop, p->arg, loop->now);
        free(p);
        p = next;
    }
}

static void wake_cb(gr_io_t *io, uint32_t events, int64_t now) {
    gr_loop_t *loop = io->data;
    uint64_t v;
    ssize_t r = read(loop->wake_fd, &v, sizeof(v)); /* reset before taking the queue */
    (void)r;
    run_posts(loop);
}

/* ---------------------------------------------------------------- fd watchers */

void gr_io_init(gr_io_t *io, int fd, gr_io_cb cb, void *data) {
    io->fd = fd;
    io->cb = cb;
    io->data = data;
    io->_loop = NULL;
    io->_events = 0;
}

static void ios_reserve(gr_loop_t *loop, int fd) {
    if (fd < loop->n_ios) return;
    int n = loop->n_ios ? loop->n_ios : 64;
    while (n <= fd) n *= 2;
    gr_io_t **ios = realloc(loop->ios, (size_t)n * sizeof(*ios));
    if (!ios) abort();
    memset(ios + loop->n_ios, 0, (size_t)(n - loop->n_ios) * sizeof(*ios));
    loop->ios = ios;
    loop->n_ios = n;
}

gr_err_t gr_io_start(gr_loop_t *loop, gr_io_t *io, uint32_t events) {
    events &= GR_IO_READ | GR_IO_WRITE;
    if (!events) {
        gr_io_stop(io);
        return GR_ERR_NONE;
    }
    ios_reserve(loop, io->fd);
    if (io->_events == events) return GR_ERR_NONE;
    gr_err_t err = gr__backend_set(loop->be, io->fd, io->_events, events);
    if (err) {
        gr_io_stop(io);
        return err;
    }
    io->_loop = loop;
    io->_events = events;
    loop->ios[io->fd] = io;
    return GR_ERR_NONE;
}

void gr_io_stop(gr_io_t *io) {
    gr_loop_t *loop = io->_loop;
    if (!loop) return;
    if (io->_events) gr__backend_set(loop->be, io->fd, io->_events, 0);
    if (io->fd < loop->n_ios && loop->ios[io->fd] == io) loop->ios[io->fd] = NULL;
    io->_events = 0;
    io->_loop = NULL;
}

static void dispatch_io(gr_loop_t *loop, int n) {
    for (int i = 0; i < n; i++) {
        int fd = loop->fired[i].fd;
        /* A watcher stopped earlier in this batch has no entry any more. If its
         * fd was reused meanwhile the new watcher may see one spurious event,
         * which non-blocking I/O turns into EAGAIN. */
        gr_io_t *io = fd < loop->n_ios ? loop->ios[fd] : NULL;
        if (!io) continue;
        uint32_t ev = loop->fired[i].events & (io->_events | GR_IO_ERROR);
        if (ev) io->cb(io, ev, loop->now);
    }
}

/* ---------------------------------------------------------------- hooks */

void gr_loop_add_before_sleep(gr_loop_t *loop, gr_hook_t *hook, gr_hook_cb cb, void *data) {
    if (hook->_linked) gr_loop_remove_before_sleep(loop, hook);
    hook->cb = cb;
    hook->data = data;
    hook->_next = NULL;
    hook->_prev = loop->hooks_tail;
    if (loop->hooks_tail)
        loop->hooks_tail->_next = hook;
    else
        loop->hooks_head = hook;
    loop->hooks_tail = hook;
    hook->_linked = true;
}

void gr_loop_remove_before_sleep(gr_loop_t *loop, gr_hook_t *hook) {
    if (!hook->_linked) return;
    if (loop->hook_next == hook) loop->hook_next = hook->_next;
    if (hook->_prev)
        hook->_prev->_next = hook->_next;
    else
        loop->hooks_head = hook->_next;
    if (hook->_next)
        hook->_next->_prev = hook->_prev;
    else
        loop->hooks_tail = hook->_prev;
    hook->_prev = hook->_next = NULL;
    hook->_linked = false;
}

static void run_hooks(gr_loop_t *loop) {
    /* hook_next is advanced before each call so a hook may remove itself or
     * the next one (gr_loop_remove_before_sleep fixes the cursor up). */
    loop->hook_next = loop->hooks_head;
    while (loop->hook_next) {
        gr_hook_t *hook = loop->hook_next;
        loop->hook_next = hook->_next;
        hook->cb(hook, loop->now);
    }
}

/* ---------------------------------------------------------------- iteration */

/* One iteration; the phases are described in docs/event-loop.md. */
static gr_err_t iterate(gr_loop_t *loop, bool block) {
    loop->now = gr_clock_mono_ms();
    run_hooks(loop);
    /* The timeout is computed after the hooks so that a timer they start is
     * honoured; posts and stop requests made by hooks set the eventfd. */
    int timeout = gr__loop_next_timeout(loop);
    if (!block || atomic_load(&loop->stop)) timeout = 0;
    int n = gr__backend_poll(loop->be, timeout, loop->fired, GR__LOOP_MAX_FIRED);
    if (n < 0) {
        GR_ERROR("net", "epoll_wait: %s", strerror(errno));
        return GR_ERR__IO;
    }
    loop->now = gr_clock_mono_ms();
    dispatch_io(loop, n);
    gr__loop_run_timers(loop);
    return GR_ERR_NONE;
}

gr_err_t gr_loop_run_once(gr_loop_t *loop, bool block) { return iterate(loop, block); }

gr_err_t gr_loop_run(gr_loop_t *loop) {
    gr_err_t err = GR_ERR_NONE;
    while (!atomic_load(&loop->stop)) {
        err = iterate(loop, true);
        if (err) break;
    }
    atomic_store(&loop->stop, 0);
    return err;
}
