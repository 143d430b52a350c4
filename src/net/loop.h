/* Single-threaded event loop: fd watchers, timers, cross-thread posts and
 * before-sleep hooks. The phases of one iteration are written down in
 * docs/event-loop.md.
 *
 * Every object here except gr_loop_t itself is caller-allocated and meant to be
 * embedded (libuv's uv_timer_t style): init it once, start/stop it as often as
 * needed, and it never allocates per start.
 *
 * @locality: everything runs on the loop thread, except gr_loop_post() and
 * gr_loop_stop(), which any thread (and, for gr_loop_stop, a signal handler)
 * may call. Callbacks receive `now`, the monotonic millisecond clock cached
 * once per iteration; nothing else should read the real clock. */
#ifndef GR_NET_LOOP_H
#define GR_NET_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/heap.h"

typedef struct gr_loop gr_loop_t;

/* ---------------------------------------------------------------- loop */

/** Create a loop (epoll instance, wakeup eventfd). On success *out is owned by
 *  the caller and must be released with gr_loop_free(). Returns GR_ERR__IO on
 *  failure and explains it in errstr. */
gr_err_t gr_loop_new(gr_loop_t **out, char *errstr, size_t errstr_size);

/** Destroy a loop. All watchers, timers and hooks must already be stopped by
 *  their owners. Posted functions that have not run yet are discarded without
 *  being called, so stop posting threads first. */
void gr_loop_free(gr_loop_t *loop);

/** Run iterations until gr_loop_stop() is called. Returns GR_ERR_NONE after a
 *  stop, or GR_ERR__IO if epoll_wait fails for a reason other than EINTR.
 *  The stop request is consumed, so the loop can be run again later. */
gr_err_t gr_loop_run(gr_loop_t *loop);

/** Run exactly one iteration. If `block` is false the poll does not wait.
 *  Meant for tests and for draining the loop during shutdown. */
gr_err_t gr_loop_run_once(gr_loop_t *loop, bool block);

/** Ask gr_loop_run() to return after the current iteration.
 *  @locality any thread, and async-signal-safe (an atomic store plus a write(2)
 *  to the wakeup eventfd; errno is preserved), so a SIGTERM handler may call it. */
void gr_loop_stop(gr_loop_t *loop);

/** The monotonic time in milliseconds cached at the start of the current phase
 *  (see docs/event-loop.md). Cheap; does not read the clock. */
int64_t gr_loop_now(const gr_loop_t *loop);

/** Re-read the monotonic clock into the cache. Only for code that blocks for a
 *  long time on the loop thread (it should not) and for tests. */
void gr_loop_update_now(gr_loop_t *loop);

/* ---------------------------------------------------------------- posts */

/** Function run on the loop thread by gr_loop_post(). */
typedef void (*gr_post_cb)(gr_loop_t *loop, void *arg, int64_t now);

/** Queue fn(loop, arg, now) to run on the loop thread and wake the loop.
 *  Posts run in FIFO order (per posting thread, and globally in the order the
 *  queue lock was taken). The queue node is malloc'd; aborts when out of
 *  memory. `arg` stays owned by the caller/fn.
 *  @locality any thread. @locks takes the loop's post mutex briefly. */
void gr_loop_post(gr_loop_t *loop, gr_post_cb fn, void *arg);

/* ---------------------------------------------------------------- fd watchers */

enum {
    GR_IO_READ = 1u << 0,  /* readable (or peer closed) */
    GR_IO_WRITE = 1u << 1, /* writable */
    GR_IO_ERROR = 1u << 2, /* EPOLLERR/EPOLLHUP; always reported, never requested */
};

typedef struct gr_io gr_io_t;
/** Called with the subset of the requested events (plus GR_IO_ERROR) that fired. */
typedef void (*gr_io_cb)(gr_io_t *io, uint32_t events, int64_t now);

struct gr_io {
    int fd;
    gr_io_cb cb;
    void *data; /* owner's pointer, untouched by the loop */
    gr_loop_t *_loop;
    uint32_t _events; /* interest currently registered with the backend */
};

/** Prepare a watcher for fd. Does not register anything. */
void gr_io_init(gr_io_t *io, int fd, gr_io_cb cb, void *data);

/** Set the interest set (GR_IO_READ | GR_IO_WRITE). 0 deregisters the fd, so
 *  a paused connection is not woken by EPOLLHUP either. One watcher per fd.
 *  Returns GR_ERR__IO if epoll_ctl fails (the fd is then not watched). */
gr_err_t gr_io_start(gr_loop_t *loop, gr_io_t *io, uint32_t events);

/** Deregister the watcher. Events already fetched in this iteration for the fd
 *  are dropped, so it is safe to close() the fd and free the watcher from
 *  inside any callback. Call it before close(fd). */
void gr_io_stop(gr_io_t *io);

/* ---------------------------------------------------------------- timers */

typedef struct gr_timer gr_timer_t;
typedef void (*gr_timer_cb)(gr_timer_t *timer, int64_t now);

struct gr_timer {
    gr_heap_node_t _node;
    gr_loop_t *_loop;
    gr_timer_cb cb;
    void *data;         /* owner's pointer, untouched by the loop */
    int64_t _due;       /* absolute monotonic ms */
    int64_t _repeat;    /* 0 = one-shot */
    uint64_t _start_id; /* FIFO tiebreak among equal _due (libuv start_id) */
};

/** Prepare a timer. Allocates nothing; the timer is inactive. */
void gr_timer_init(gr_loop_t *loop, gr_timer_t *timer, gr_timer_cb cb, void *data);

/** (Re)start: fire `timeout_ms` after gr_loop_now() (negative counts as 0),
 *  then every `repeat_ms` if that is > 0. Restarting an active timer moves it.
 *  Timers due at the same time fire in the order they were started. A timer
 *  started from a timer callback never fires in the same timer phase.
 *  O(log n). */
void gr_timer_start(gr_timer_t *timer, int64_t timeout_ms, int64_t repeat_ms);

/** Stop the timer if it is active; safe to call on an inactive timer and from
 *  its own callback (which also cancels a repeat). O(log n). */
void gr_timer_stop(gr_timer_t *timer);

static inline bool gr_timer_is_active(const gr_timer_t *timer) { return gr_heap_node_linked(&timer->_node); }

/** Absolute due time of an active timer. */
static inline int64_t gr_timer_due(const gr_timer_t *timer) { return timer->_due; }

/* ---------------------------------------------------------------- before-sleep hooks */

typedef struct gr_hook gr_hook_t;
typedef void (*gr_hook_cb)(gr_hook_t *hook, int64_t now);

struct gr_hook {
    gr_hook_cb cb;
    void *data;
    gr_hook_t *_prev, *_next;
    bool _linked;
};

/** Register a hook that runs every iteration just before the loop polls, in
 *  registration order (the broker uses it to kick fsyncs and flush queued work
 *  before the loop sleeps; Redis's beforeSleep). A hook may add or remove hooks,
 *  including itself; a hook appended while hooks are running is called in the
 *  same pass. Work a hook creates for the loop (timers, posts, I/O) is
 *  picked up before the loop sleeps. */
void gr_loop_add_before_sleep(gr_loop_t *loop, gr_hook_t *hook, gr_hook_cb cb, void *data);

/** Unregister a hook; a no-op when it is not registered. */
void gr_loop_remove_before_sleep(gr_loop_t *loop, gr_hook_t *hook);

#endif
