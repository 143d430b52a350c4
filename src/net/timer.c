/* Timers: a binary min-heap ordered by (due, start_id), so timers due at the
 * same millisecond fire in the order they were started (libuv src/timer.c).
 * Start and stop are O(log n); thousands of share-lock timers are fine. */
#include <assert.h>
#include <limits.h>
#include <stddef.h>

#include "net/loop_int.h"

#define TIMER_OF(n) ((gr_timer_t *)((char *)(n)-offsetof(gr_timer_t, _node)))

static bool timer_less(const gr_heap_node_t *a, const gr_heap_node_t *b) {
    const gr_timer_t *ta = TIMER_OF(a), *tb = TIMER_OF(b);
    if (ta->_due != tb->_due) return ta->_due < tb->_due;
    return ta->_start_id < tb->_start_id;
}

void gr__loop_timers_init(gr_loop_t *loop) { gr_heap_init(&loop->timers, timer_less); }

void gr_timer_init(gr_loop_t *loop, gr_timer_t *timer, gr_timer_cb cb, void *data) {
    gr_heap_node_init(&timer->_node);
    timer->_loop = loop;
    timer->cb = cb;
    timer->data = data;
    timer->_due = 0;
    timer->_repeat = 0;
    timer->_start_id = 0;
}

void gr_timer_start(gr_timer_t *timer, int64_t timeout_ms, int64_t repeat_ms) {
    gr_loop_t *loop = timer->_loop;
    assert(loop && timer->cb);
    gr_timer_stop(timer);
    if (timeout_ms < 0) timeout_ms = 0;
    /* Saturate instead of overflowing for "practically never" timeouts. */
    timer->_due = timeout_ms > INT64_MAX - loop->now ? INT64_MAX : loop->now + timeout_ms;
    timer->_repeat = repeat_ms > 0 ? repeat_ms : 0;
    timer->_start_id = loop->timer_counter++;
    gr_heap_insert(&loop->timers, &timer->_node);
}

void gr_timer_stop(gr_timer_t *timer) {
    if (gr_heap_node_linked(&timer->_node)) gr_heap_remove(&timer->_loop->timers, &timer->_node);
}

void gr__loop_run_timers(gr_loop_t *loop) {
    /* Timers started during this phase (by callbacks, including repeats) get a
     * start_id >= limit. Since their due time is >= now, every older due timer
     * sorts before them, so stopping at the first one is exact and a 0 ms
     * timer that restarts itself cannot starve the loop. */
    uint64_t limit = loop->timer_counter;
    gr_heap_node_t *node;
    while ((node = gr_heap_min(&loop->timers))) {
        gr_timer_t *timer = TIMER_OF(node);
        if (timer->_due > loop->now || timer->_start_id >= limit) break;
        gr_heap_remove(&loop->timers, node);
        if (timer->_repeat) gr_timer_start(timer, timer->_repeat, timer->_repeat);
        timer->cb(timer, loop->now);
    }
}

int gr__loop_next_timeout(const gr_loop_t *loop) {
    gr_heap_node_t *node = gr_heap_min(&loop->timers);
    if (!node) return -1;
    int64_t diff = TIMER_OF(node)->_due - loop->now;
    if (diff <= 0) return 0;
    return diff > INT_MAX ? INT_MAX : (int)diff;
}
