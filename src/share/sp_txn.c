/* Share-partition transactions: a transition and its durable write as one
 * unit (spec §3.4: a failed persister write rolls the transition back).
 *
 * gr_sp_begin copies the whole state (ranges, counters, timer heap, member
 * table) into buffers kept in the SP, gr_sp_rollback copies it back,
 * gr_sp_commit forgets it. A copy, not an undo log: every mutation path
 * (splits, coalescing, SPSO advance, pruning, timers) is covered without
 * touching it, and the cost is one memcpy of the window per transition, which
 * is bounded by share.partition.max.record.locks.
 *
 * Member ids are the only owned pointers. While a transaction is open no id
 * is freed (gr__sp_member_drop and the collection wait), so the saved table
 * still points at live strings; a rollback frees only the ids interned inside
 * the transaction.
 *
 * @locality the thread that owns the SP. */
#include <assert.h>
#include <string.h>

#include "share/sp_int.h"

/* Grow *p (cap elements of size sz) to hold n; contents are not kept. */
static void reserve(void **p, size_t *cap, size_t n, size_t sz) {
    if (n <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < n) c *= 2;
    free(*p);
    *p = gr__sp_xrealloc(NULL, c, sz);
    *cap = c;
}

void gr_sp_begin(gr_sp_t *sp) {
    assert(!sp->in_txn);
    gr__sp_saved_t *s = &sp->saved;
    reserve((void **)&s->r, &s->cap, sp->n, sizeof(*s->r));
    if (sp->n) memcpy(s->r, sp->r + sp->head, sp->n * sizeof(*s->r));
    s->n = sp->n;
    reserve((void **)&s->heap, &s->heap_cap, sp->heap_n, sizeof(*s->heap));
    if (sp->heap_n) memcpy(s->heap, sp->heap, sp->heap_n * sizeof(*s->heap));
    s->heap_n = sp->heap_n;
    reserve((void **)&s->members, &s->members_cap, sp->n_members, sizeof(*s->members));
    if (sp->n_members) memcpy(s->members, sp->members, sp->n_members * sizeof(*s->members));
    s->n_members = sp->n_members;
    s->members_live = sp->members_live;
    s->members_gc_at = sp->members_gc_at;
    s->spso = sp->spso;
    s->end = sp->end;
    s->dcc = sp->dcc;
    s->n_acquired = sp->n_acquired;
    s->avail_hint = sp->avail_hint;
    s->state_epoch = sp->state_epoch;
    GR_METRIC(gr__sp_stat_save(sp)); /* counters too: only committed transitions count */
    sp->in_txn = true;
}

/* Saved copies larger than this are freed at commit: one transaction is open at a time,
 * and a scattered window (a range per record) would otherwise keep a second window's
 * worth of memory per share-partition for good (bench/share_memory.sh). */
#define SAVED_KEEP 64

void gr_sp_commit(gr_sp_t *sp) {
    assert(sp->in_txn);
    sp->in_txn = false;
    if (sp->saved.cap > SAVED_KEEP) {
        free(sp->saved.r);
        sp->saved.r = NULL, sp->saved.cap = 0;
    }
    if (sp->saved.heap_cap > SAVED_KEEP) {
        free(sp->saved.heap);
        sp->saved.heap = NULL, sp->saved.heap_cap = 0;
    }
    /* Collections postponed by the transaction (released members). */
    if (sp->members_live >= sp->members_gc_at) gr__sp_member_gc(sp);
}

/* Ids interned inside the transaction: slots whose pointer the saved table
 * does not have (slots are only filled while a transaction is open). */
static void free_new_members(gr_sp_t *sp) {
    const gr__sp_saved_t *s = &sp->saved;
    for (size_t m = 1; m < sp->n_members; m++) {
        const char *old = m < s->n_members ? s->members[m].id : NULL;
        if (sp->members[m].id && sp->members[m].id != old) free(sp->members[m].id);
    }
}

void gr_sp_rollback(gr_sp_t *sp) {
    assert(sp->in_txn);
    const gr__sp_saved_t *s = &sp->saved;
    free_new_members(sp);
    if (s->n > sp->cap) {
        free(sp->r);
        sp->cap = 2 * s->n + 16;
        sp->r = gr__sp_xrealloc(NULL, sp->cap, sizeof(*sp->r));
    }
    sp->head = (sp->cap - s->n) / 2;
    if (s->n) memcpy(sp->r + sp->head, s->r, s->n * sizeof(*sp->r));
    sp->n = s->n;
    if (s->heap_n > sp->heap_cap) {
        sp->heap_cap = s->heap_n;
        sp->heap = gr__sp_xrealloc(sp->heap, sp->heap_cap, sizeof(*sp->heap));
    }
    if (s->heap_n) memcpy(sp->heap, s->heap, s->heap_n * sizeof(*sp->heap));
    sp->heap_n = s->heap_n;
    if (s->n_members > sp->members_cap) { /* cannot happen: the table only grows */
        sp->members_cap = s->n_members;
        sp->members = gr__sp_xrealloc(sp->members, sp->members_cap, sizeof(*sp->members));
    }
    if (s->n_members) memcpy(sp->members, s->members, s->n_members * sizeof(*sp->members));
    sp->n_members = s->n_members;
    sp->members_live = s->members_live;
    sp->members_gc_at = s->members_gc_at;
    sp->spso = s->spso;
    sp->end = s->end;
    sp->dcc = s->dcc;
    sp->n_acquired = s->n_acquired;
    sp->avail_hint = s->avail_hint;
    sp->state_epoch = s->state_epoch;
    GR_METRIC(gr__sp_stat_restore(sp));
    sp->in_txn = false;
}

bool gr_sp_in_txn(const gr_sp_t *sp) { return sp->in_txn; }

void gr__sp_saved_free(gr_sp_t *sp) {
    free(sp->saved.r);
    free(sp->saved.heap);
    free(sp->saved.members); /* the ids belong to the live table */
    memset(&sp->saved, 0, sizeof(sp->saved));
}
