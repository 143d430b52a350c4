/* Share-state store under a failed fsync (docs/share-state.md, "Failed writes"):
 * the append succeeded, the durability request fails, so the store is failed —
 * every later write is refused, even if the log itself would take appends again,
 * because memory may be ahead of a disk in an unknown state — until it is
 * reopened, which replays what the disk holds.
 *
 * The failure is injected by defining fsync/fdatasync here: the test executable's
 * definitions take precedence over libc's for every caller linked into it (the
 * storage code included); the real calls go through syscall(2). */
#include "test_storage_util.h"

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include "base/log.h"
#include "share/state_store.h"

static int g_sync_err; /* fsync and fdatasync fail with this errno (0: real call) */

int fsync(int fd) {
    if (g_sync_err) {
        errno = g_sync_err;
        return -1;
    }
    return (int)syscall(SYS_fsync, fd);
}

int fdatasync(int fd) {
    if (g_sync_err) {
        errno = g_sync_err;
        return -1;
    }
    return (int)syscall(SYS_fdatasync, fd);
}

static char root[256], dir[512];
static int efd = -1;

static void wake(void *ctx) {
    (void)ctx;
    uint64_t one = 1;
    ASSERT_EQ(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
}

static gr_sstore_t *open_store(gr_flusher_t *fl) {
    gr_sstore_options_t o;
    gr_sstore_options_default(&o);
    o.flusher = fl;
    gr_sstore_t *ss = NULL;
    char es[256] = "";
    gr_err_t err = gr_sstore_open(dir, &o, &ss, es, sizeof(es));
    if (err) GR__FAIL("open: %s (%s)", gr_err_name(err), es);
    return ss;
}

typedef struct done {
    int n;
    gr_err_t err;
} done_t;

static void on_durable(void *arg, gr_err_t err) {
    done_t *d = arg;
    d->n++;
    d->err = err;
}

static void drain(gr_flusher_t *fl, done_t *d) {
    while (d->n == 0) {
        struct pollfd p = {.fd = efd, .events = POLLIN};
        ASSERT(poll(&p, 1, 20000) == 1);
        uint64_t v;
        ASSERT_EQ(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
        gr_flusher_run_completions(fl);
    }
}

static gr_err_t write_acc(gr_sstore_t *ss, int64_t first, gr_sstore_cb *cb, void *arg) {
    gr_sstore_key_t k = gr_sstore_key("g", (gr_uuid_t){{1}}, 0);
    gr_sstore_batch_t b = {first, first + 9, GR_SSTORE_ACKNOWLEDGED, 1, 0};
    gr_sstore_update_t up = {
        .leader_epoch = -1, .start_offset = -1, .delivery_complete_count = -1, .batches = &b, .n_batches = 1};
    return gr_sstore_write(ss, &k, &up, cb, arg);
}

static void test_failed_fsync_fails_the_store(void) {
    gr_flusher_t *fl;
    ASSERT_EQ(gr_flusher_start(&fl, wake, NULL), 0);
    gr_sstore_t *ss = open_store(fl);
    done_t d = {0};
    ASSERT_EQ(write_acc(ss, 0, on_durable, &d), 0);
    drain(fl, &d);
    ASSERT_EQ(d.err, 0);
    ASSERT(!gr_sstore_failed(ss));

    g_sync_err = EIO;
    d = (done_t){0};
    ASSERT_EQ(write_acc(ss, 10, on_durable, &d), 0); /* the append works, the fsync will not */
    drain(fl, &d);
    ASSERT_EQ(d.err, GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(gr_sstore_failed(ss));
    g_sync_err = 0;
    /* Refused from now on, whatever the log would do. */
    ASSERT_EQ(write_acc(ss, 20, NULL, NULL), GR_ERR_KAFKA_STORAGE_ERROR);
    gr_sstore_key_t k = gr_sstore_key("g", (gr_uuid_t){{1}}, 0);
    ASSERT_EQ(gr_sstore_initialize(ss, &k, 1, 0, NULL, NULL), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT_EQ(gr_sstore_delete(ss, &k, NULL, NULL), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(gr_sstore_failed(ss));
    gr_flusher_destroy(fl);
    gr_sstore_abandon(ss);

    /* A restart reads what the disk holds (here the page cache kept the record
     * whose fsync failed: it is in doubt, and this time it is there). */
    ss = open_store(NULL);
    ASSERT(!gr_sstore_failed(ss));
    gr_sstore_state_t st;
    ASSERT_EQ(gr_sstore_read(ss, &k, &st), 0);
    ASSERT_EQ(st.n_batches, 1);
    ASSERT_EQ(st.batches[0].last_offset, 19);
    ASSERT_EQ(write_acc(ss, 20, NULL, NULL), 0);
    gr_sstore_close(ss);
}

int main(void) {
    gr_log_set_level(GR_LOG_ERROR);
    efd = eventfd(0, EFD_CLOEXEC);
    ASSERT(efd >= 0);
    snprintf(root, sizeof(root), "/tmp/gr_sstore_faults_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    snprintf(dir, sizeof(dir), "%s/%s", root, GR_SSTORE_DIR_NAME);
    RUN_TEST(test_failed_fsync_fails_the_store);
    tb_rmrf(root);
    close(efd);
    return 0;
}
