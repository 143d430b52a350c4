/* Share-partition internals, shared by src/share/sp_*.c only.
 *
 * The window is a deque-backed sorted array of ranges: r[head .. head+n).
 * Each range carries ONE state, delivery count, owner and lock deadline.
 * A range is "tracked" once it came from splitting a cached batch (Kafka's
 * per-offset offsetState map): tracked ranges are redelivered one
 * AcquiredRecords entry per offset and coalesce with equal tracked
 * neighbours; untracked ranges are whole cached batches and never merge
 * (except terminal ones, whose batch identity no longer matters).
 *
 * Invariants (gr_sp_check): ranges sorted and disjoint; every range below
 * SPSO is ACQUIRED (left behind by a log-start move, §1.8) and none straddles
 * SPSO; ranges ≥ SPSO lie in [spso, end); offsets of [spso, end) not covered
 * are gap-window holes (acquirable, §1.10). */
#ifndef GR_SHARE_SP_INT_H
#define GR_SHARE_SP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "share/share_stats.h"
#include "share/sp.h"

/* Times in a range are milliseconds modulo 2^32 (gr__sp_time turns them back
 * into now_ms values): the acquisition time W needs fits without growing the
 * range past 32 bytes. */
typedef struct gr__sp_rng {
    int64_t first, last;
    uint32_t dl;     /* lock deadline (ACQUIRED) or redelivery due time (AVAILABLE, 0: due) */
    uint32_t acq_at; /* acquisition time (ACQUIRED only, else 0); RENEW keeps it */
    uint32_t member; /* owner index into sp->members (ACQUIRED only, else 0) */
    int16_t count;   /* delivery count */
    uint8_t state;   /* GR_SP_* */
    uint8_t tracked; /* split out of a batch: per-offset redelivery */
} gr__sp_rng_t;
_Static_assert(sizeof(gr__sp_rng_t) == 32, "a cached range is 32 bytes");

/* A lock timer. One covers every range locked by one acquire/renew call;
 * validated lazily against the ranges when it fires. */
typedef struct gr__sp_timer {
    int64_t deadline;
    int64_t first, last;
} gr__sp_timer_t;

typedef struct gr__sp_member {
    char *id; /* NULL: free slot */
    uint32_t hash;
} gr__sp_member_t;

/* The state saved by gr_sp_begin (sp_txn.c). Buffers are kept between
 * transactions; members[] holds the same id pointers as the live table. */
typedef struct gr__sp_saved {
    gr__sp_rng_t *r;
    size_t n, cap;
    int64_t spso, end, dcc, n_acquired, avail_hint;
    int32_t state_epoch;
    gr__sp_timer_t *heap;
    size_t heap_n, heap_cap;
    gr__sp_member_t *members;
    size_t n_members, members_cap, members_live, members_gc_at;
} gr__sp_saved_t;

struct gr_sp {
    gr__sp_rng_t *r;
    size_t head, n, cap;
    int64_t spso;       /* share-partition start offset */
    int64_t end;        /* SPEO+1; == spso when the window is empty */
    int64_t dcc;        /* terminal records at offsets ≥ spso */
    int64_t n_acquired; /* records in ACQUIRED (also below spso) */
    int64_t avail_hint; /* no AVAILABLE record or hole in [spso, avail_hint) */
    int32_t state_epoch;
    gr__sp_timer_t *heap;
    size_t heap_n, heap_cap;
    gr__sp_member_t *members; /* slot 0 unused: member 0 = no owner */
    size_t n_members, members_cap, members_live, members_gc_at;
    bool in_txn;                        /* between gr_sp_begin and commit/rollback: ids are never freed */
    gr__sp_saved_t saved;               /* the state at gr_sp_begin */
    int64_t clock;                      /* the latest now_ms passed in: reference for 32-bit range times */
    gr_share_stats_t *stats;            /* metrics sink (gr_sp_set_stats), NULL: none */
    gr_share_stats_t saved_stats;       /* *stats at gr_sp_begin: a rollback restores it */
    int64_t backoff_ms, backoff_max_ms; /* gr_sp_set_redelivery_backoff: configuration, kept across init */
};

#define GR__SP_AT(sp, i) (&(sp)->r[(sp)->head + (i)])

/* A range time back to the now_ms scale: exact while it lies within 2^31 ms
 * (24.8 days) of the latest now_ms, which every lock deadline and every
 * acquisition still locked does (lock durations are bounded far below). */
static inline int64_t gr__sp_time(const gr_sp_t *sp, uint32_t t) {
    return sp->clock + (int32_t)(t - (uint32_t)sp->clock);
}
static inline int64_t gr__sp_deadline(const gr_sp_t *sp, const gr__sp_rng_t *e) { return gr__sp_time(sp, e->dl); }

static inline int gr__sp_terminal(int state) { return state == GR_SP_ACKNOWLEDGED || state == GR_SP_ARCHIVED; }

/* An AVAILABLE range held back by the redelivery backoff: not acquirable
 * until gr_sp_expire clears dl at its due time (a timer covers it). */
static inline int gr__sp_delayed(const gr__sp_rng_t *e) { return e->state == GR_SP_AVAILABLE && e->dl != 0; }

/* A due time whose low 32 bits are not 0 (0 means "no delay"): 1 ms later at worst. */
static inline int64_t gr__sp_due(int64_t t) { return t && (uint32_t)t == 0 ? t + 1 : t; }

/* Abort-on-OOM allocation for small internal structures (STYLE §4). */
void *gr__sp_xrealloc(void *p, size_t nmemb, size_t size);

/* Range array. */
size_t gr__sp_lower_bound(const gr_sp_t *sp, int64_t off); /* first range with last ≥ off */
gr__sp_rng_t *gr__sp_insert(gr_sp_t *sp, size_t idx, size_t cnt);
void gr__sp_remove(gr_sp_t *sp, size_t idx, size_t cnt);
void gr__sp_isolate(gr_sp_t *sp, int64_t a, int64_t b, size_t *i0, size_t *i1);
size_t gr__sp_coalesce_at(gr_sp_t *sp, size_t idx);
/* deadline: the lock deadline for ACQUIRED, the redelivery due time for
 * AVAILABLE (0: none; a timer is pushed), ignored otherwise. */
void gr__sp_set(gr_sp_t *sp, size_t idx, int state, int16_t count, uint32_t member, int64_t deadline,
                gr_sp_delta_t *delta);
void gr__sp_advance(gr_sp_t *sp);

/* Timers and members. */
void gr__sp_timer_push(gr_sp_t *sp, int64_t deadline, int64_t first, int64_t last);
uint32_t gr__sp_member_find(const gr_sp_t *sp, const char *id);
uint32_t gr__sp_member_intern(gr_sp_t *sp, const char *id);
void gr__sp_member_drop(gr_sp_t *sp, uint32_t m);
void gr__sp_member_gc(gr_sp_t *sp);

/* Transactions (sp_txn.c): free the saved-state buffers. */
void gr__sp_saved_free(gr_sp_t *sp);

/* Deltas. */
void gr__sp_delta_put(gr_sp_delta_t *d, int64_t first, int64_t last, int state, int16_t count, int64_t not_before);
/* A range archived for a dead-lettering reason (GR_SP_DEAD_*); d may be NULL. */
void gr__sp_dead_put(gr_sp_delta_t *d, int64_t first, int64_t last, int16_t count, int reason);
void gr__sp_delta_finish(const gr_sp_t *sp, gr_sp_delta_t *d, int64_t spso_before);

/* Timer heap (sp_core.c). */
void gr__sp_timer_pop(gr_sp_t *sp);

/* Metrics (sp_stats.c): each counts into sp->stats if set. Called where the
 * change happens; a rollback restores the counters (sp_txn.c), so only
 * committed transitions count. Hot path: wrap calls in GR_METRIC. */
void gr__sp_stat_acquired(gr_sp_t *sp, int64_t n, int16_t count);
void gr__sp_stat_ack(gr_sp_t *sp, int type, int64_t n, uint32_t acq_at);
void gr__sp_stat_archived(gr_sp_t *sp, gr_share_archive_reason_t why, int64_t n);
void gr__sp_stat_timeout(gr_sp_t *sp, int64_t n);
void gr__sp_stat_save(gr_sp_t *sp);    /* gr_sp_begin */
void gr__sp_stat_restore(gr_sp_t *sp); /* gr_sp_rollback */

#endif
