/* The broker's acks=all sync queue (src/broker/sync_queue.c): the fsync runs on the sync
 * thread, never on the loop thread that called gr_sync_queue_run; waiters that arrive
 * while an fsync is in flight wait for the next one; no waiter is answered success
 * before its offset is durable; a failed fsync fails exactly the waiters it was to
 * cover (KAFKA_STORAGE_ERROR); one fsync per partition per hand-off (group commit);
 * callbacks on the loop thread; shutdown completes queued and in-flight waiters; the
 * partitions of one hand-off are fsynced in parallel, each answered by its own result.
 *
 * Built with -Wl,--wrap=fdatasync (CMakeLists.txt): the wrapper counts the calls,
 * records whether one ran on the loop thread, holds them at a gate while the test
 * says so, and fails them with EIO when asked (the decision is taken when the call
 * starts, so an fsync already in flight is not affected), or only those of files whose
 * path contains a given name. pthread_create is wrapped too, to refuse the flusher's
 * fsync helper threads. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "broker/broker_int.h"
#include "net/loop.h"
#include "test_storage_util.h"

int __real_fdatasync(int fd);
int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

static int g_refuse_threads; /* pthread_create fails with EAGAIN (counted in g_refused) */
static int g_refused;

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    if (__atomic_load_n(&g_refuse_threads, __ATOMIC_SEQ_CST)) {
        __atomic_add_fetch(&g_refused, 1, __ATOMIC_SEQ_CST);
        return EAGAIN;
    }
    return __real_pthread_create(th, attr, fn, arg);
}

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static bool g_hold;             /* fdatasync waits at the gate (at most 10 s) */
static int g_fail;              /* fdatasync calls that start now fail with this errno */
static const char *g_fail_path; /* set: only files whose path contains this fail */
static int g_calls;             /* fdatasync calls started */
static int g_on_loop;           /* ... of them on the loop (test) thread */
static pthread_t g_loop_thread;

int __wrap_fdatasync(int fd) {
    pthread_mutex_lock(&g_mu);
    g_calls++;
    if (pthread_equal(pthread_self(), g_loop_thread)) g_on_loop++;
    int fail = g_fail;
    if (fail && g_fail_path) {
        char link[64], path[512] = "";
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof(path) - 1);
        if (n < 0 || !strstr(path, g_fail_path)) fail = 0;
    }
    pthread_cond_broadcast(&g_cv);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    while (g_hold)
        if (pthread_cond_timedwait(&g_cv, &g_mu, &until) == ETIMEDOUT) break;
    pthread_mutex_unlock(&g_mu);
    if (fail) {
        errno = fail;
        return -1;
    }
    return __real_fdatasync(fd);
}

static void gate(bool hold, int fail) {
    pthread_mutex_lock(&g_mu);
    g_hold = hold;
    g_fail = fail;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
}

/* Wait (at most 10 s) until n fdatasync calls have started. */
static int wait_calls(int n) {
    pthread_mutex_lock(&g_mu);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    while (g_calls < n)
        if (pthread_cond_timedwait(&g_cv, &g_mu, &until) == ETIMEDOUT) break;
    int c = g_calls;
    pthread_mutex_unlock(&g_mu);
    return c;
}

static int calls(void) {
    pthread_mutex_lock(&g_mu);
    int c = g_calls;
    pthread_mutex_unlock(&g_mu);
    return c;
}

typedef struct waiter {
    gr_partition_t *p;
    int64_t offset;
    int calls;
    gr_err_t err;
    bool early;         /* answered success while its offset was not durable */
    bool wrong_thread;  /* answered off the loop thread */
    gr_sync_queue_t *q; /* set: queue `then` from the callback */
    struct waiter *then;
} waiter_t;

static void on_synced(void *arg, gr_err_t err) {
    waiter_t *w = arg;
    w->calls++;
    w->err = err;
    if (!err && gr_plog_durable_offset(w->p->plog) < w->offset) w->early = true;
    if (!pthread_equal(pthread_self(), g_loop_thread)) w->wrong_thread = true;
    if (w->q && w->then) gr_sync_queue_add(w->q, w->then->p, w->then->offset, on_synced, w->then);
}

static char root[256], pdir[512];

static void part_open(gr_partition_t *p, const char *name) {
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.checkpoint_interval_ms = INT64_MAX / 2; /* no checkpoint writes: one fdatasync per fsync */
    snprintf(pdir, sizeof(pdir), "%s/%s-0", root, name);
    *p = (gr_partition_t){.topic = (char *)name, .index = 0, .plog = tb_open(pdir, &cfg, 0)};
    tb_append1(p->plog, 1, 1, 10, 0);
    char es[256];
    ASSERT_EQ(gr_plog_fsync(p->plog, NULL, es, sizeof(es)), 0); /* directory entries now durable */
}

/* Append one batch to p; the waiter wants it durable. */
static void waiter_for(waiter_t *w, gr_partition_t *p) {
    tb_append1(p->plog, 2, 1, 100, 0);
    *w = (waiter_t){.p = p, .offset = gr_plog_end_offset(p->plog)};
}

/* Run the loop until every waiter of ws has been answered (at most 10 s). */
static void pump(gr_loop_t *loop, waiter_t **ws, int n) {
    for (int iter = 0; iter < 1000; iter++) {
        int left = 0;
        for (int i = 0; i < n; i++) left += ws[i]->calls == 0;
        if (!left) return;
        ASSERT_EQ(gr_loop_run_once(loop, false), 0);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    GR__FAIL("waiters not answered within 10 s");
}

static void setup(gr_loop_t **loop) {
    snprintf(root, sizeof(root), "/tmp/gr_syncq_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    g_loop_thread = pthread_self();
    char es[256];
    ASSERT_EQ(gr_loop_new(loop, es, sizeof(es)), 0);
    gate(false, 0);
}

/* An fsync in flight does not hold the loop; waiters queued meanwhile get the next
 * fsync, and when that one fails they (and only they) get KAFKA_STORAGE_ERROR. */
static void test_inflight_then_failure(void) {
    gr_loop_t *loop;
    setup(&loop);
    gr_partition_t p;
    part_open(&p, "a");
    gr_sync_queue_t *q = gr_sync_queue_new(loop, NULL);
    waiter_t w1, w2;
    waiter_for(&w1, &p);
    gate(true, 0);
    int c0 = calls(), l0 = g_on_loop;
    gr_sync_queue_add(q, &p, w1.offset, on_synced, &w1);
    ASSERT_EQ(w1.calls, 0); /* never inside _add */
    gr_sync_queue_run(q);   /* returns while the fsync waits at the gate */
    ASSERT_EQ(wait_calls(c0 + 1), c0 + 1);
    ASSERT_EQ(g_on_loop, l0);
    ASSERT_EQ(p.pins, 1);
    waiter_for(&w2, &p); /* arrives during the fsync */
    gr_sync_queue_add(q, &p, w2.offset, on_synced, &w2);
    gr_sync_queue_run(q);
    for (int i = 0; i < 5; i++) ASSERT_EQ(gr_loop_run_once(loop, false), 0);
    ASSERT_EQ(w1.calls + w2.calls, 0); /* nothing answered before its fsync */
    ASSERT(gr_plog_durable_offset(p.plog) < w1.offset);
    gate(false, EIO); /* the fsync in flight completes; the next one fails */
    pump(loop, (waiter_t *[]){&w1, &w2}, 2);
    ASSERT_EQ(w1.calls, 1);
    ASSERT_EQ(w1.err, GR_ERR_NONE);
    ASSERT_EQ(w2.calls, 1);
    ASSERT_EQ(w2.err, GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(!w1.early && !w2.early && !w1.wrong_thread && !w2.wrong_thread);
    ASSERT_EQ(calls(), c0 + 2); /* w2 had an fsync of its own */
    ASSERT_EQ(g_on_loop, l0);
    ASSERT(gr_plog_offline(p.plog));
    /* A waiter the last good fsync covered still succeeds on the offline log. */
    waiter_t w3 = {.p = &p, .offset = w1.offset};
    gr_sync_queue_add(q, &p, w3.offset, on_synced, &w3);
    gr_sync_queue_run(q);
    pump(loop, (waiter_t *[]){&w3}, 1);
    ASSERT_EQ(w3.err, GR_ERR_NONE);
    ASSERT_EQ(p.pins, 0);
    gate(false, 0);
    gr_sync_queue_free(q);
    gr_plog_close(p.plog);
    gr_loop_free(loop);
    tb_rmrf(root);
}

/* Free the queue (completing what is left), then check that no partition stays pinned,
 * close the partitions and remove the test directory. */
static void teardown(gr_sync_queue_t *q, gr_partition_t *p, int np, gr_loop_t *loop) {
    gr_sync_queue_free(q);
    for (int i = 0; i < np; i++) {
        ASSERT_EQ(p[i].pins, 0);
        gr_plog_close(p[i].plog);
    }
    gr_loop_free(loop);
    tb_rmrf(root);
}

/* One hand-off, many waiters on three partitions: one fdatasync per partition. */
static void test_group_commit(void) {
    gr_loop_t *loop;
    setup(&loop);
    enum { NP = 3, NW = 40 };
    gr_partition_t p[NP];
    part_open(&p[0], "x");
    part_open(&p[1], "y");
    part_open(&p[2], "z");
    gr_hist_t hist;
    memset(&hist, 0, sizeof(hist));
    gr_sync_queue_t *q = gr_sync_queue_new(loop, &hist);
    waiter_t w[NW];
    waiter_t *ws[NW];
    int c0 = calls(), l0 = g_on_loop;
    for (int i = 0; i < NW; i++) {
        waiter_for(&w[i], &p[i % NP]);
        ws[i] = &w[i];
        gr_sync_queue_add(q, w[i].p, w[i].offset, on_synced, &w[i]);
    }
    gr_sync_queue_run(q);
    pump(loop, ws, NW);
    for (int i = 0; i < NW; i++) {
        ASSERT_EQ(w[i].calls, 1);
        ASSERT_EQ(w[i].err, GR_ERR_NONE);
        ASSERT(!w[i].early && !w[i].wrong_thread);
    }
    ASSERT_EQ(calls(), c0 + NP);
    ASSERT_EQ(g_on_loop, l0);
#ifndef GR_NO_METRICS
    gr_hist_t seen;
    gr_hist_load(&hist, &seen);
    ASSERT_EQ(seen.count, NP); /* each fsync timed once */
#endif
    /* Already durable: answered by the run itself, no fsync. */
    waiter_t d = {.p = &p[0], .offset = w[0].offset};
    gr_sync_queue_add(q, &p[0], d.offset, on_synced, &d);
    gr_sync_queue_run(q);
    ASSERT_EQ(d.calls, 1);
    ASSERT_EQ(d.err, GR_ERR_NONE);
    ASSERT_EQ(calls(), c0 + NP);
    teardown(q, p, NP, loop);
}

/* One new batch on each of the np partitions p, its waiter w[i] (ws[i] = &w[i]), all handed
 * to the sync thread in one run. */
static void hand_off_one_each(gr_sync_queue_t *q, gr_partition_t *p, waiter_t *w, waiter_t **ws, int np) {
    for (int i = 0; i < np; i++) {
        waiter_for(&w[i], &p[i]);
        ws[i] = &w[i];
        gr_sync_queue_add(q, w[i].p, w[i].offset, on_synced, &w[i]);
    }
    gr_sync_queue_run(q);
}

/* One hand-off on four partitions: the four fsyncs run at the same time (all four start
 * while the gate holds the first), and a failure of one fails only its own waiters. */
static void test_parallel(void) {
    gr_loop_t *loop;
    setup(&loop);
    enum { NP = 4 };
    gr_partition_t p[NP];
    const char *names[NP] = {"pa", "pb", "pc", "pd"};
    for (int i = 0; i < NP; i++) part_open(&p[i], names[i]);
    gr_sync_queue_t *q = gr_sync_queue_new(loop, NULL);
    waiter_t w[NP];
    waiter_t *ws[NP];
    gate(true, 0);
    int c0 = calls(), l0 = g_on_loop;
    hand_off_one_each(q, p, w, ws, NP);
    ASSERT_EQ(wait_calls(c0 + NP), c0 + NP); /* serial fsyncs would have started only one */
    gate(false, 0);
    pump(loop, ws, NP);
    for (int i = 0; i < NP; i++) {
        ASSERT_EQ(w[i].calls, 1);
        ASSERT_EQ(w[i].err, GR_ERR_NONE);
        ASSERT(!w[i].early && !w[i].wrong_thread);
    }
    /* Next hand-off: the fsync of pc fails, the other three succeed. */
    g_fail_path = "/pc-0/";
    gate(false, EIO);
    hand_off_one_each(q, p, w, ws, NP);
    pump(loop, ws, NP);
    gate(false, 0);
    g_fail_path = NULL;
    for (int i = 0; i < NP; i++) {
        ASSERT_EQ(w[i].calls, 1);
        ASSERT_EQ(w[i].err, i == 2 ? GR_ERR_KAFKA_STORAGE_ERROR : GR_ERR_NONE);
        ASSERT(!w[i].early && !w[i].wrong_thread);
        ASSERT_EQ(gr_plog_offline(p[i].plog), i == 2);
    }
    ASSERT_EQ(calls(), c0 + 2 * NP);
    ASSERT_EQ(g_on_loop, l0);
    teardown(q, p, NP, loop);
}

/* No helper thread can be started (thread limit): the flusher tries once, warns and fsyncs the
 * partitions of a pass one after the other; every waiter is still answered by its fsync. */
static void test_no_helpers(void) {
    gr_loop_t *loop;
    setup(&loop);
    enum { NP = 3 };
    gr_partition_t p[NP];
    const char *names[NP] = {"na", "nb", "nc"};
    for (int i = 0; i < NP; i++) part_open(&p[i], names[i]);
    gr_sync_queue_t *q = gr_sync_queue_new(loop, NULL); /* its own thread starts normally */
    __atomic_store_n(&g_refuse_threads, 1, __ATOMIC_SEQ_CST);
    waiter_t w[NP];
    waiter_t *ws[NP];
    int c0 = calls();
    for (int round = 0; round < 2; round++) {
        hand_off_one_each(q, p, w, ws, NP);
        pump(loop, ws, NP);
        for (int i = 0; i < NP; i++) {
            ASSERT_EQ(w[i].calls, 1);
            ASSERT_EQ(w[i].err, GR_ERR_NONE);
            ASSERT(!w[i].early && !w[i].wrong_thread);
        }
    }
    ASSERT_EQ(calls(), c0 + 2 * NP);
    ASSERT_EQ(__atomic_load_n(&g_refused, __ATOMIC_SEQ_CST), 1); /* tried once, not per pass */
    __atomic_store_n(&g_refuse_threads, 0, __ATOMIC_SEQ_CST);
    teardown(q, p, NP, loop);
}

static void *release_later(void *arg) {
    (void)arg;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    gate(false, 0);
    return NULL;
}

/* Shutdown with a waiter in flight, one queued and one queued by a callback during
 * shutdown: every one is answered, after its fsync, on the calling thread. */
static void test_shutdown(void) {
    gr_loop_t *loop;
    setup(&loop);
    gr_partition_t p;
    part_open(&p, "s");
    gr_sync_queue_t *q = gr_sync_queue_new(loop, NULL);
    waiter_t w1, w2, w3;
    waiter_for(&w1, &p);
    gate(true, 0);
    int c0 = calls(), l0 = g_on_loop;
    gr_sync_queue_add(q, &p, w1.offset, on_synced, &w1);
    gr_sync_queue_run(q);
    ASSERT_EQ(wait_calls(c0 + 1), c0 + 1);
    waiter_for(&w2, &p);
    waiter_for(&w3, &p);
    w2.q = q;
    w2.then = &w3;
    gr_sync_queue_add(q, &p, w2.offset, on_synced, &w2);
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, release_later, NULL), 0);
    gr_sync_queue_free(q);
    pthread_join(th, NULL);
    waiter_t *ws[] = {&w1, &w2, &w3};
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(ws[i]->calls, 1);
        ASSERT_EQ(ws[i]->err, GR_ERR_NONE);
        ASSERT(!ws[i]->early && !ws[i]->wrong_thread);
    }
    ASSERT_EQ(p.pins, 0);
    ASSERT_EQ(calls(), c0 + 2); /* w3 was appended before w2's fsync, which covered it */
    ASSERT_EQ(g_on_loop, l0);
    gr_plog_close(p.plog);
    gr_loop_free(loop);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_inflight_then_failure);
    RUN_TEST(test_group_commit);
    RUN_TEST(test_parallel);
    RUN_TEST(test_no_helpers);
    RUN_TEST(test_shutdown);
    return 0;
}
