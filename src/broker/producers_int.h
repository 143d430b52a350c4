/* The producer state's layout, shared by producers.c and producers_snap.c only.
 * @locality loop thread. */
#ifndef GR_BROKER_PRODUCERS_INT_H
#define GR_BROKER_PRODUCERS_INT_H

#include "base/htab.h"
#include "broker/producers.h"

#define GR_PRODUCER_BATCHES 5 /* Kafka keeps the last 5 batches per producer */

typedef struct gr_pbatch {
    int32_t first_seq, last_seq;
    int64_t base_offset, last_offset;
} gr_pbatch_t;

typedef struct gr_pentry {
    gr_hnode_t node;                       /* in gr_producer_state.tab, keyed by pid (gr_hash) */
    struct gr_pentry *lru_prev, *lru_next; /* in idle (no ongoing transaction) or busy, oldest first */
    bool busy;                             /* linked in busy */
    int64_t pid;
    int16_t epoch;
    int32_t coord_epoch;                /* of the last marker, -1 before any */
    int64_t last_ts;                    /* max timestamp of the last batch or marker, -1 unknown */
    int64_t txn_first;                  /* first offset of the ongoing transaction, -1 none */
    int64_t touched_ms;                 /* broker wall clock of the last batch or marker, -1 unknown */
    int n;                              /* batches kept */
    gr_pbatch_t b[GR_PRODUCER_BATCHES]; /* oldest first */
} gr_pentry_t;

/* A list of entries by their last batch or marker, least recent at head. */
typedef struct gr_plru {
    gr_pentry_t *head, *tail;
} gr_plru_t;

/* An ongoing transaction; the array is kept sorted by first offset. */
typedef struct gr_ongoing {
    int64_t first_offset;
    int64_t pid;
} gr_ongoing_t;

struct gr_producer_state {
    gr_htab_t tab;  /* every entry */
    gr_plru_t idle; /* entries without an ongoing transaction: the ones the cap may evict */
    gr_plru_t busy; /* entries with one */
    size_t max;     /* gregor.producer.state.max.producers (SIZE_MAX: none) */
    uint64_t n_evicted, n_refused;
    gr_ongoing_t *ongoing;
    size_t n_ongoing, cap_ongoing;
    gr_aborted_txn_t *aborted; /* sorted by last_offset */
    size_t n_aborted, cap_aborted;
};

/** Find or (create) the entry of pid. Creating one when the state holds max entries
 *  first evicts the least recently used entry without an ongoing transaction (if there
 *  is none, the state goes over max); a created entry is the most recently used idle
 *  one. Finding does not reorder: gr_producers_touch does. */
gr_pentry_t *gr_producers_entry(gr_producer_state_t *ps, int64_t pid, bool create);
/** Enter an ongoing transaction / an aborted one, keeping the arrays sorted. */
void gr_producers_ongoing_add(gr_producer_state_t *ps, int64_t pid, int64_t first_offset);
void gr_producers_aborted_add(gr_producer_state_t *ps, const gr_aborted_txn_t *a);
/** Make e the most recently used entry of the list its transaction state says. */
void gr_producers_touch(gr_producer_state_t *ps, gr_pentry_t *e);

#endif
