/* The producer state's layout, shared by producers.c and producers_snap.c only.
 * @locality loop thread. */
#ifndef GR_BROKER_PRODUCERS_INT_H
#define GR_BROKER_PRODUCERS_INT_H

#include "broker/producers.h"

#define GR_PRODUCER_BATCHES 5 /* Kafka keeps the last 5 batches per producer */
#define GR_PRODUCER_BUCKETS 64

typedef struct gr_pbatch {
    int32_t first_seq, last_seq;
    int64_t base_offset, last_offset;
} gr_pbatch_t;

typedef struct gr_pentry {
    int64_t pid;
    int16_t epoch;
    int32_t coord_epoch;                /* of the last marker, -1 before any */
    int64_t last_ts;                    /* max timestamp of the last batch or marker, -1 unknown */
    int64_t txn_first;                  /* first offset of the ongoing transaction, -1 none */
    int64_t touched_ms;                 /* broker wall clock of the last batch or marker, -1 unknown */
    int n;                              /* batches kept */
    gr_pbatch_t b[GR_PRODUCER_BATCHES]; /* oldest first */
    struct gr_pentry *next;
} gr_pentry_t;

/* An ongoing transaction; the array is kept sorted by first offset. */
typedef struct gr_ongoing {
    int64_t first_offset;
    int64_t pid;
} gr_ongoing_t;

struct gr_producer_state {
    gr_pentry_t *buckets[GR_PRODUCER_BUCKETS];
    size_t n_producers;
    gr_ongoing_t *ongoing;
    size_t n_ongoing, cap_ongoing;
    gr_aborted_txn_t *aborted; /* sorted by last_offset */
    size_t n_aborted, cap_aborted;
};

/** Find or (create) the entry of pid. */
gr_pentry_t *gr_producers_entry(gr_producer_state_t *ps, int64_t pid, bool create);
/** Enter an ongoing transaction / an aborted one, keeping the arrays sorted. */
void gr_producers_ongoing_add(gr_producer_state_t *ps, int64_t pid, int64_t first_offset);
void gr_producers_aborted_add(gr_producer_state_t *ps, const gr_aborted_txn_t *a);

#endif
