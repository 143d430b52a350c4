/* The wake-up list of a share-partition: see sp_waiters.h. */
#include "share/sp_waiters.h"

#include <stddef.h>

void gr_share_waiters_init(gr_share_waiter_t *head) {
    *head = (gr_share_waiter_t){0};
    head->next = head->prev = head;
}

void gr_share_waiter_link(gr_share_waiter_t *head, gr_share_waiter_t *w, void (*fn)(void *arg), void *arg) {
    w->fn = fn;
    w->arg = arg;
    w->next = head;
    w->prev = head->prev;
    w->prev->next = w;
    head->prev = w;
    w->linked = true;
}

void gr_share_waiter_unlink(gr_share_waiter_t *w) {
    if (!w->linked) return;
    w->prev->next = w->next;
    w->next->prev = w->prev;
    w->linked = false;
}

bool gr_share_waiters_any(const gr_share_waiter_t *head) { return head->next != head; }

void gr_share_waiters_notify(gr_share_waiter_t *head) {
    for (gr_share_waiter_t *w = head->next; w != head;) {
        gr_share_waiter_t *next = w->next; /* fn may unlink w */
        w->fn(w->arg);
        w = next;
    }
}

void gr_share_waiters_drain(gr_share_waiter_t *head) {
    while (head->next != head) {
        gr_share_waiter_t *w = head->next;
        gr_share_waiter_unlink(w);
        w->fn(w->arg);
    }
}
