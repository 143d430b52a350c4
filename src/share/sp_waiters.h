/* The wake-up list of a share-partition: delayed share fetches (spec §2.7) wait for it
 * to change (acknowledgement, release, lock expiry, removal). An intrusive circular
 * list: a waiter lives in its fetch, the share-partition holds only the head.
 * Pure; one thread. */
#ifndef GR_SHARE_SP_WAITERS_H
#define GR_SHARE_SP_WAITERS_H

#include <stdbool.h>

/** One waiter, or (fn unused) the head of a list. */
typedef struct gr_share_waiter {
    struct gr_share_waiter *prev, *next;
    void (*fn)(void *arg);
    void *arg;
    bool linked;
} gr_share_waiter_t;

/** An empty list. */
void gr_share_waiters_init(gr_share_waiter_t *head);
/** Link w at the end of head's list; fn(arg) runs on every notify while linked. */
void gr_share_waiter_link(gr_share_waiter_t *head, gr_share_waiter_t *w, void (*fn)(void *arg), void *arg);
/** Unlink w (no-op when it is not linked). */
void gr_share_waiter_unlink(gr_share_waiter_t *w);
/** Whether anyone waits on head's list. */
bool gr_share_waiters_any(const gr_share_waiter_t *head);
/** The share-partition changed: fn of every waiter, in order; a fn may unlink its own
 *  waiter (not others). */
void gr_share_waiters_notify(gr_share_waiter_t *head);
/** The share-partition goes away: every waiter is unlinked, then its fn runs (it
 *  re-resolves the share-partition). */
void gr_share_waiters_drain(gr_share_waiter_t *head);

#endif
