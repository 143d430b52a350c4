/* Event loop: heap, timers, posts, stop, hooks, fd watchers. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "net/heap.h"
#include "net/loop.h"
#include "testutil.h"

static gr_loop_t *new_loop(void) {
    gr_loop_t *loop = NULL;
    char errstr[256];
    ASSERT_EQ(gr_loop_new(&loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    return loop;
}

/* ---------------------------------------------------------------- heap */

typedef struct item {
    gr_heap_node_t node;
    int key, id;
} item_t;

static bool item_less(const gr_heap_node_t *a, const gr_heap_node_t *b) {
    const item_t *x = (const item_t *)a, *y = (const item_t *)b;
    return x->key != y->key ? x->key < y->key : x->id < y->id;
}

static void test_heap_random(void) {
    enum { N = 5000 };
    static item_t items[N];
    gr_heap_t h;
    gr_heap_init(&h, item_less);
    srand(7);
    for (int i = 0; i < N; i++) {
        gr_heap_node_init(&items[i].node);
        items[i].key = rand() % 100;
        items[i].id = i;
        gr_heap_insert(&h, &items[i].node);
    }
    for (int i = 0; i < N; i += 3) gr_heap_remove(&h, &items[i].node); /* arbitrary removals */
    for (int i = 0; i < N; i += 3) ASSERT(!gr_heap_node_linked(&items[i].node));
    int last_key = -1, last_id = -1;
    size_t popped = 0;
    gr_heap_node_t *n;
    while ((n = gr_heap_min(&h))) {
        item_t *it = (item_t *)n;
        ASSERT(it->key > last_key || (it->key == last_key && it->id > last_id));
        ASSERT(it->id % 3 != 0);
        last_key = it->key;
        last_id = it->id;
        gr_heap_remove(&h, n);
        popped++;
    }
    ASSERT_EQ(popped, N - (N + 2) / 3);
    gr_heap_free(&h);
}

/* ---------------------------------------------------------------- timers */

typedef struct order {
    int fired[64];
    int n;
} order_t;

typedef struct tagged {
    gr_timer_t timer;
    order_t *order;
    int tag;
} tagged_t;

static void record_cb(gr_timer_t *timer, int64_t now) {
    tagged_t *t = timer->data;
    t->order->fired[t->order->n++] = t->tag;
}

static void run_until_idle(gr_loop_t *loop, order_t *o, int want) {
    int64_t deadline = gr_loop_now(loop) + 5000;
    while (o->n < want) {
        ASSERT_EQ(gr_loop_run_once(loop, true), GR_ERR_NONE);
        ASSERT(gr_loop_now(loop) < deadline);
    }
}

static void test_timer_order_fifo(void) {
    gr_loop_t *loop = new_loop();
    order_t o = {0};
    static const int64_t timeouts[] = {30, 10, 10, 20, 0, 10, 0};
    enum { N = sizeof(timeouts) / sizeof(timeouts[0]) };
    tagged_t t[N];
    gr_loop_update_now(loop); /* all timers start from the same cached now */
    for (int i = 0; i < N; i++) {
        t[i].order = &o;
        t[i].tag = i;
        gr_timer_init(loop, &t[i].timer, record_cb, &t[i]);
        gr_timer_start(&t[i].timer, timeouts[i], 0);
    }
    run_until_idle(loop, &o, N);
    static const int want[] = {4, 6, 1, 2, 5, 3, 0};
    for (int i = 0; i < N; i++) ASSERT_EQ(o.fired[i], want[i]);
    for (int i = 0; i < N; i++) ASSERT(!gr_timer_is_active(&t[i].timer));
    gr_loop_free(loop);
}

static void test_timer_stop_restart(void) {
    gr_loop_t *loop = new_loop();
    order_t o = {0};
    tagged_t a = {.order = &o, .tag = 1}, b = {.order = &o, .tag = 2}, c = {.order = &o, .tag = 3};
    gr_timer_init(loop, &a.timer, record_cb, &a);
    gr_timer_init(loop, &b.timer, record_cb, &b);
    gr_timer_init(loop, &c.timer, record_cb, &c);
    gr_timer_start(&a.timer, 5, 0);
    gr_timer_start(&b.timer, 40, 0);
    gr_timer_start(&c.timer, 20, 0);
    gr_timer_stop(&a.timer);
    gr_timer_stop(&a.timer); /* stopping twice is fine */
    ASSERT(!gr_timer_is_active(&a.timer));
    gr_timer_start(&b.timer, 1, 0); /* restart moves it earlier */
    gr_timer_start(&c.timer, 30, 0);
    gr_timer_start(&c.timer, 10, 0); /* restart of an active timer moves it */
    run_until_idle(loop, &o, 2);
    ASSERT_EQ(o.fired[0], 2);
    ASSERT_EQ(o.fired[1], 3);
    gr_timer_start(&a.timer, 0, 0); /* a stopped timer can be started again */
    run_until_idle(loop, &o, 3);
    ASSERT_EQ(o.fired[2], 1);
    /* Nothing else fires. */
    gr_loop_run_once(loop, false);
    ASSERT_EQ(o.n, 3);
    gr_loop_free(loop);
}

typedef struct repeater {
    gr_timer_t timer;
    int count;
} repeater_t;

static void repeat_cb(gr_timer_t *timer, int64_t now) {
    repeater_t *r = timer->data;
    if (++r->count == 3) gr_timer_stop(timer); /* cancels the repeat from inside */
}

static void zero_restart_cb(gr_timer_t *timer, int64_t now) {
    repeater_t *r = timer->data;
    r->count++;
    gr_timer_start(timer, 0, 0); /* must not run again in the same timer phase */
}

static void test_timer_repeat_and_zero_restart(void) {
    gr_loop_t *loop = new_loop();
    repeater_t r = {0}, z = {0};
    gr_timer_init(loop, &r.timer, repeat_cb, &r);
    gr_timer_start(&r.timer, 1, 2);
    int64_t deadline = gr_loop_now(loop) + 5000;
    while (gr_timer_is_active(&r.timer)) {
        gr_loop_run_once(loop, true);
        ASSERT(gr_loop_now(loop) < deadline);
    }
    ASSERT_EQ(r.count, 3);
    gr_timer_init(loop, &z.timer, zero_restart_cb, &z);
    gr_timer_start(&z.timer, 0, 0);
    for (int i = 0; i < 5; i++) gr_loop_run_once(loop, true);
    ASSERT_EQ(z.count, 5); /* exactly once per iteration */
    gr_timer_stop(&z.timer);
    gr_loop_free(loop);
}

typedef struct many {
    gr_timer_t timer;
    int64_t due;
    uint64_t start_order;
    struct many_ctx *ctx;
} many_t;

typedef struct many_ctx {
    int64_t last_due;
    uint64_t last_order;
    int fired;
} many_ctx_t;

static void many_cb(gr_timer_t *timer, int64_t now) {
    many_t *m = timer->data;
    many_ctx_t *ctx = m->ctx;
    ASSERT(m->due <= now);
    ASSERT(m->due > ctx->last_due || (m->due == ctx->last_due && m->start_order > ctx->last_order));
    ctx->last_due = m->due;
    ctx->last_order = m->start_order;
    ctx->fired++;
}

static void test_timer_many(void) {
    enum { N = 5000 };
    gr_loop_t *loop = new_loop();
    many_t *m = calloc(N, sizeof(*m));
    many_ctx_t ctx = {.last_due = -1};
    srand(11);
    gr_loop_update_now(loop);
    for (int i = 0; i < N; i++) {
        m[i].ctx = &ctx;
        m[i].start_order = (uint64_t)i;
        gr_timer_init(loop, &m[i].timer, many_cb, &m[i]);
        gr_timer_start(&m[i].timer, rand() % 30, 0);
        m[i].due = gr_timer_due(&m[i].timer);
    }
    int stopped = 0;
    for (int i = 0; i < N; i += 7, stopped++) gr_timer_stop(&m[i].timer);
    int64_t deadline = gr_loop_now(loop) + 5000;
    while (ctx.fired < N - stopped) {
        gr_loop_run_once(loop, true);
        ASSERT(gr_loop_now(loop) < deadline);
    }
    ASSERT_EQ(ctx.fired, N - stopped);
    free(m);
    gr_loop_free(loop);
}

/* ---------------------------------------------------------------- posts and stop */

typedef struct post_ctx {
    gr_loop_t *loop;
    int next; /* next value expected on the loop thread */
    int total;
} post_ctx_t;

static post_ctx_t g_post; /* test fixture shared with the posting thread */

static void post_cb(gr_loop_t *loop, void *arg, int64_t now) {
    int v = (int)(intptr_t)arg;
    ASSERT_EQ(v, g_post.next);
    g_post.next++;
    if (g_post.next == g_post.total) gr_loop_stop(loop);
}

static void *poster(void *arg) {
    usleep(20000); /* let the loop block in epoll_wait with no timers */
    for (int i = 0; i < g_post.total; i++) {
        gr_loop_post(g_post.loop, post_cb, (void *)(intptr_t)i);
        if (i % 100 == 0) usleep(100);
    }
    return NULL;
}

static void test_post_wakes_loop(void) {
    gr_loop_t *loop = new_loop();
    g_post = (post_ctx_t){.loop = loop, .total = 2000};
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, poster, NULL), 0);
    ASSERT_EQ(gr_loop_run(loop), GR_ERR_NONE); /* blocks with nothing but the wakeup fd */
    ASSERT_EQ(g_post.next, g_post.total);
    pthread_join(th, NULL);
    gr_loop_free(loop);
}

static gr_loop_t *g_sig_loop;

static void on_sigusr1(int sig) { gr_loop_stop(g_sig_loop); }

static void *signaller(void *arg) {
    usleep(20000);
    kill(getpid(), SIGUSR1);
    return NULL;
}

static void test_stop_from_signal(void) {
    gr_loop_t *loop = new_loop();
    g_sig_loop = loop;
    struct sigaction sa = {.sa_handler = on_sigusr1};
    sigemptyset(&sa.sa_mask);
    ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, signaller, NULL), 0);
    ASSERT_EQ(gr_loop_run(loop), GR_ERR_NONE);
    pthread_join(th, NULL);
    /* A stop requested before run makes the next run return after one iteration. */
    gr_loop_stop(loop);
    ASSERT_EQ(gr_loop_run(loop), GR_ERR_NONE);
    signal(SIGUSR1, SIG_DFL);
    gr_loop_free(loop);
}

/* ---------------------------------------------------------------- hooks */

typedef struct hook_ctx {
    gr_loop_t *loop;
    gr_hook_t h1, h2, h3;
    gr_timer_t timer;
    int calls1, calls2, calls3, seq, order[8];
} hook_ctx_t;

static void timer_stop_loop(gr_timer_t *timer, int64_t now) { gr_loop_stop(((hook_ctx_t *)timer->data)->loop); }

static void hook1(gr_hook_t *hook, int64_t now) {
    hook_ctx_t *c = hook->data;
    if (c->seq < 8) c->order[c->seq++] = 1;
    if (++c->calls1 == 3) gr_loop_remove_before_sleep(c->loop, &c->h2); /* removes the next hook */
}
static void hook2(gr_hook_t *hook, int64_t now) {
    hook_ctx_t *c = hook->data;
    if (c->seq < 8) c->order[c->seq++] = 2;
    c->calls2++;
}
static void hook3(gr_hook_t *hook, int64_t now) {
    hook_ctx_t *c = hook->data;
    if (++c->calls3 == 4) {
        gr_loop_remove_before_sleep(c->loop, hook); /* removes itself */
        /* A timer started by a hook is honoured before the loop sleeps. */
        gr_timer_start(&c->timer, 0, 0);
    }
}

static void test_before_sleep_hooks(void) {
    hook_ctx_t c = {.loop = new_loop()};
    gr_timer_init(c.loop, &c.timer, timer_stop_loop, &c);
    gr_loop_add_before_sleep(c.loop, &c.h1, hook1, &c);
    gr_loop_add_before_sleep(c.loop, &c.h2, hook2, &c);
    gr_loop_add_before_sleep(c.loop, &c.h3, hook3, &c);
    for (int i = 0; i < 3; i++) gr_loop_run_once(c.loop, false);
    ASSERT_EQ(c.order[0], 1);
    ASSERT_EQ(c.order[1], 2);
    ASSERT_EQ(c.order[2], 1);
    ASSERT_EQ(c.order[3], 2);
    ASSERT_EQ(c.calls2, 2);                      /* removed by hook1 during the third pass, before it ran */
    ASSERT_EQ(gr_loop_run(c.loop), GR_ERR_NONE); /* would hang if the 0 ms timer were ignored */
    ASSERT_EQ(c.calls3, 4);
    ASSERT_EQ(c.calls1, 4);
    gr_loop_remove_before_sleep(c.loop, &c.h1);
    gr_loop_remove_before_sleep(c.loop, &c.h2); /* not linked: no-op */
    gr_loop_free(c.loop);
}

/* ---------------------------------------------------------------- fd watchers */

typedef struct pipe_w {
    gr_io_t io;
    int rfd, wfd;
    int reads;
    struct pipe_w *victim; /* stopped and closed from this watcher's callback */
} pipe_w_t;

static void pipe_cb(gr_io_t *io, uint32_t events, int64_t now) {
    pipe_w_t *p = io->data;
    ASSERT(events & GR_IO_READ);
    char buf[16];
    ASSERT(read(p->rfd, buf, sizeof(buf)) > 0);
    p->reads++;
    if (p->victim && p->victim->rfd >= 0) {
        gr_io_stop(&p->victim->io);
        close(p->victim->rfd);
        p->victim->rfd = -1;
    }
}

static void test_io_watchers(void) {
    gr_loop_t *loop = new_loop();
    pipe_w_t a = {0}, b = {0};
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
    a.rfd = fds[0], a.wfd = fds[1];
    ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
    b.rfd = fds[0], b.wfd = fds[1];
    a.victim = &b;
    b.victim = &a;
    gr_io_init(&a.io, a.rfd, pipe_cb, &a);
    gr_io_init(&b.io, b.rfd, pipe_cb, &b);
    ASSERT_EQ(gr_io_start(loop, &a.io, GR_IO_READ), GR_ERR_NONE);
    ASSERT_EQ(gr_io_start(loop, &b.io, GR_IO_READ), GR_ERR_NONE);
    /* Both become readable in the same batch; whichever runs first stops the
     * other, whose already-fetched event must be dropped. */
    ASSERT_EQ(write(a.wfd, "x", 1), 1);
    ASSERT_EQ(write(b.wfd, "y", 1), 1);
    gr_loop_run_once(loop, true);
    ASSERT_EQ(a.reads + b.reads, 1);
    pipe_w_t *alive = a.rfd >= 0 ? &a : &b;
    alive->victim = NULL;
    ASSERT_EQ(write(alive->wfd, "z", 1), 1);
    gr_loop_run_once(loop, true);
    ASSERT_EQ(alive->reads, 2);
    gr_io_stop(&alive->io);
    close(alive->rfd);
    close(a.wfd);
    close(b.wfd);
    gr_loop_free(loop);
}

int main(void) {
    alarm(120);
    RUN_TEST(test_heap_random);
    RUN_TEST(test_timer_order_fifo);
    RUN_TEST(test_timer_stop_restart);
    RUN_TEST(test_timer_repeat_and_zero_restart);
    RUN_TEST(test_timer_many);
    RUN_TEST(test_post_wakes_loop);
    RUN_TEST(test_stop_from_signal);
    RUN_TEST(test_before_sleep_hooks);
    RUN_TEST(test_io_watchers);
    return 0;
}
