/* Unit tests for share/sp_waiters.c: the wake-up list of a share-partition — order,
 * self-unlink during notify, unlink twice, drain on removal. */
#include "share/sp_waiters.h"

#include "testutil.h"

typedef struct probe {
    gr_share_waiter_t w;
    int calls;
    int order;
    bool unlink_self;
} probe_t;

static int g_seq;

static void on_wake(void *arg) {
    probe_t *p = arg;
    p->calls++;
    p->order = ++g_seq;
    if (p->unlink_self) gr_share_waiter_unlink(&p->w);
}

static void test_notify_order_and_self_unlink(void) {
    gr_share_waiter_t head;
    gr_share_waiters_init(&head);
    gr_share_waiters_notify(&head); /* empty: nothing */
    probe_t a = {0}, b = {0}, c = {0};
    b.unlink_self = true;
    gr_share_waiter_link(&head, &a.w, on_wake, &a);
    gr_share_waiter_link(&head, &b.w, on_wake, &b);
    gr_share_waiter_link(&head, &c.w, on_wake, &c);
    g_seq = 0;
    gr_share_waiters_notify(&head);
    ASSERT_EQ(a.order, 1);
    ASSERT_EQ(b.order, 2);
    ASSERT_EQ(c.order, 3); /* b unlinking itself does not stop the walk */
    ASSERT(!b.w.linked);
    gr_share_waiters_notify(&head);
    ASSERT_EQ(a.calls, 2);
    ASSERT_EQ(b.calls, 1); /* gone after its unlink */
    ASSERT_EQ(c.calls, 2);
    gr_share_waiter_unlink(&a.w);
    gr_share_waiter_unlink(&a.w); /* twice: no-op */
    gr_share_waiters_notify(&head);
    ASSERT_EQ(a.calls, 2);
    ASSERT_EQ(c.calls, 3);
    ASSERT(head.next == &c.w && head.prev == &c.w);
    gr_share_waiter_unlink(&c.w);
    ASSERT(head.next == &head && head.prev == &head);
}

static void test_drain(void) {
    gr_share_waiter_t head;
    gr_share_waiters_init(&head);
    probe_t a = {0}, b = {0};
    gr_share_waiter_link(&head, &a.w, on_wake, &a);
    gr_share_waiter_link(&head, &b.w, on_wake, &b);
    g_seq = 0;
    gr_share_waiters_drain(&head);
    ASSERT_EQ(a.calls, 1);
    ASSERT_EQ(b.calls, 1);
    ASSERT(!a.w.linked && !b.w.linked); /* unlinked before fn ran */
    ASSERT(head.next == &head);
    gr_share_waiters_notify(&head);
    ASSERT_EQ(a.calls, 1);
}

int main(void) {
    RUN_TEST(test_notify_order_and_self_unlink);
    RUN_TEST(test_drain);
    return 0;
}
