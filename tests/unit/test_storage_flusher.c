/* Flusher: group commit (many requests, few fsyncs), completions on the caller's
 * thread, concurrent appends/rolls/retention while the flusher fsyncs. */
#include "test_storage_util.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>

#include "storage/flusher.h"

static char root[256], pdir[512];
static int efd;
static pthread_t main_thread;

typedef struct done {
    int n, errs, wrong_thread;
} done_t;

static void wake(void *ctx) {
    (void)ctx;
    uint64_t one = 1;
    ASSERT_EQ(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
}

static void on_durable(void *arg, gr_err_t err) {
    done_t *d = arg;
    d->n++;
    if (err) d->errs++;
    if (!pthread_equal(pthread_self(), main_thread)) d->wrong_thread++;
}

/* Wait for wakeups and run completions until d->n reaches want. */
static void drain(gr_flusher_t *fl, done_t *d, int want) {
    while (d->n < want) {
        struct pollfd p = {.fd = efd, .events = POLLIN};
        ASSERT(poll(&p, 1, 20000) == 1);
        uint64_t v;
        ASSERT_EQ(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
        gr_flusher_run_completions(fl);
    }
}

static void test_group_commit(void) {
    snprintf(root, sizeof(root), "/tmp/gr_storage_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    cfg.segment_bytes = 4096;    /* rolls while the flusher runs */
    cfg.retention_bytes = 16384; /* and deletions */
    enum { NLOG = 3, N = 3000 };
    gr_plog_t *logs[NLOG];
    for (int i = 0; i < NLOG; i++) {
        snprintf(pdir, sizeof(pdir), "%s/t-%d", root, i);
        logs[i] = tb_open(pdir, &cfg, 0);
    }
    main_thread = pthread_self();
    efd = eventfd(0, EFD_CLOEXEC);
    ASSERT(efd >= 0);
    gr_flusher_t *fl;
    ASSERT_EQ(gr_flusher_start(&fl, wake, NULL), 0);
    done_t d = {0};
    for (int i = 0; i < N; i++) {
        gr_plog_t *plog = logs[i % NLOG];
        tb_append1(plog, 1 + i % 3, i, 100, 0);
        gr_flusher_request(fl, plog, gr_plog_end_offset(plog), on_durable, &d);
        if (i % 50 == 0) {
            int nd;
            ASSERT_EQ(gr_plog_retention(plog, 0, &nd), 0);
            gr_flusher_run_completions(fl);
        }
    }
    drain(fl, &d, N);
    ASSERT_EQ(d.errs, 0);
    ASSERT_EQ(d.wrong_thread, 0);
    uint64_t nreq, nfs;
    gr_flusher_stats(fl, &nreq, &nfs);
    fprintf(stderr, "   %d requests on %d logs -> %llu fsync passes\n", N, NLOG, (unsigned long long)nfs);
    ASSERT_EQ(nreq, N);
    ASSERT(nfs < N); /* group commit: fewer passes than requests (how many fewer is scheduling) */
    for (int i = 0; i < NLOG; i++) ASSERT_EQ(gr_plog_durable_offset(logs[i]), gr_plog_end_offset(logs[i]));
    /* Already durable: completes on the next run, without an fsync. */
    gr_flusher_request(fl, logs[0], gr_plog_end_offset(logs[0]), on_durable, &d);
    ASSERT_EQ(d.n, N); /* never from inside the request call */
    drain(fl, &d, N + 1);
    uint64_t nfs2;
    gr_flusher_stats(fl, NULL, &nfs2);
    ASSERT_EQ(nfs2, nfs);
    /* Requests pending at destroy still complete, on the destroying thread. */
    for (int i = 0; i < NLOG; i++) {
        tb_append1(logs[i], 1, 1, 10, 0);
        gr_flusher_request(fl, logs[i], gr_plog_end_offset(logs[i]), on_durable, &d);
    }
    gr_flusher_destroy(fl);
    ASSERT_EQ(d.n, N + 1 + NLOG);
    ASSERT_EQ(d.errs, 0);
    ASSERT_EQ(d.wrong_thread, 0);
    for (int i = 0; i < NLOG; i++) gr_plog_close(logs[i]);
    close(efd);
    tb_rmrf(root);
}

/* gr_flusher_request_timed: every fsync that serves a timed request is observed once;
 * the fsyncs of untimed requests are not. */
static void test_timed(void) {
    snprintf(root, sizeof(root), "/tmp/gr_storage_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *a, *b;
    snprintf(pdir, sizeof(pdir), "%s/a-0", root);
    a = tb_open(pdir, &cfg, 0);
    snprintf(pdir, sizeof(pdir), "%s/b-0", root);
    b = tb_open(pdir, &cfg, 0);
    main_thread = pthread_self();
    efd = eventfd(0, EFD_CLOEXEC);
    ASSERT(efd >= 0);
    gr_flusher_t *fl;
    ASSERT_EQ(gr_flusher_start(&fl, wake, NULL), 0);
    gr_hist_t hist;
    memset(&hist, 0, sizeof(hist));
    done_t d = {0};
    tb_append1(a, 1, 0, 100, 0);
    gr_flusher_request_timed(fl, a, gr_plog_end_offset(a), &hist, on_durable, &d);
    tb_append1(a, 1, 1, 100, 0);
    gr_flusher_request_timed(fl, a, gr_plog_end_offset(a), &hist, on_durable, &d);
    tb_append1(b, 1, 0, 100, 0);
    gr_flusher_request(fl, b, gr_plog_end_offset(b), on_durable, &d);
    drain(fl, &d, 3);
    uint64_t nfs;
    gr_flusher_stats(fl, NULL, &nfs);
    gr_hist_t h;
    gr_hist_load(&hist, &h);
#ifndef GR_NO_METRICS
    ASSERT(h.count >= 1 && h.count <= 2); /* one or two passes for a, as scheduling goes */
    ASSERT_EQ(h.count, nfs - 1);          /* b's single fsync is not timed */
#else
    ASSERT_EQ(h.count, 0); /* compiled out */
    (void)nfs;
#endif
    gr_flusher_destroy(fl);
    gr_plog_close(a);
    gr_plog_close(b);
    close(efd);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_group_commit);
    RUN_TEST(test_timed);
    return 0;
}
