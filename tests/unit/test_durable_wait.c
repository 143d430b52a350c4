/* Unit tests for share/durable_wait.c: a request answers once, after it is armed and
 * its last durable write completed, with the first error; a synchronous refusal
 * completes its reference at once. */
#include "share/durable_wait.h"

#include "testutil.h"

typedef struct out {
    int calls;
    gr_err_t err;
} out_t;

static void on_done(void *ctx, gr_err_t err) {
    out_t *o = ctx;
    o->calls++;
    o->err = err;
}

static void test_no_writes(void) {
    out_t o = {0};
    gr_dwait_t w;
    gr_dwait_init(&w, on_done, &o);
    gr_dwait_queued(NULL, GR_ERR_KAFKA_STORAGE_ERROR); /* no wait: only logged */
    gr_dwait_arm(&w);
    ASSERT_EQ(o.calls, 1);
    ASSERT_EQ(o.err, GR_ERR_NONE);
}

static void test_writes_and_errors(void) {
    out_t o = {0};
    gr_dwait_t w;
    gr_dwait_init(&w, on_done, &o);
    gr_dwait_add(&w);
    gr_dwait_add(&w);
    gr_dwait_add(&w);
    gr_dwait_queued(&w, GR_ERR_NONE);                /* queued: its callback will run */
    gr_dwait_queued(&w, GR_ERR_KAFKA_STORAGE_ERROR); /* refused: completes now */
    gr_dwait_arm(&w);
    ASSERT_EQ(o.calls, 0);
    gr_dwait_cb(&w, GR_ERR_NONE);
    ASSERT_EQ(o.calls, 0);
    gr_dwait_cb(&w, GR_ERR_COORDINATOR_NOT_AVAILABLE); /* a later error does not replace the first */
    ASSERT_EQ(o.calls, 1);
    ASSERT_EQ(o.err, GR_ERR_KAFKA_STORAGE_ERROR);
}

static void test_fail_without_write(void) {
    out_t o = {0};
    gr_dwait_t w;
    gr_dwait_init(&w, on_done, &o);
    gr_dwait_add(&w);
    gr_dwait_fail(&w, GR_ERR_INVALID_REQUEST);
    gr_dwait_cb(&w, GR_ERR_NONE); /* completes before the arm: no answer yet */
    ASSERT_EQ(o.calls, 0);
    gr_dwait_arm(&w);
    ASSERT_EQ(o.calls, 1);
    ASSERT_EQ(o.err, GR_ERR_INVALID_REQUEST);
}

int main(void) {
    RUN_TEST(test_no_writes);
    RUN_TEST(test_writes_and_errors);
    RUN_TEST(test_fail_without_write);
    return 0;
}
