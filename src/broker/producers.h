/* Idempotent producer state of one partition (Kafka's ProducerStateManager,
 * in memory): per producer id the current epoch and the last five appended
 * batches, to answer retried batches without appending them twice and to
 * refuse gaps in the sequence.
 * @locality loop thread. */
#ifndef GR_BROKER_PRODUCERS_H
#define GR_BROKER_PRODUCERS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

typedef struct gr_producer_state gr_producer_state_t;

gr_producer_state_t *gr_producers_new(void);
void gr_producers_free(gr_producer_state_t *ps);

/** Outcome of checking one batch before it is appended. */
typedef struct gr_producer_check {
    gr_err_t err;   /* NONE, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH */
    bool duplicate; /* a retry of a batch already appended: answer with these offsets */
    int64_t dup_base_offset;
    int64_t dup_last_offset;
    char msg[200];
} gr_producer_check_t;

/** Check a batch (producer id >= 0) with epoch and sequences [first_seq, first_seq+count-1]. */
void gr_producers_check(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                        gr_producer_check_t *out);
/** Record an appended batch. */
void gr_producers_record(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                         int64_t base_offset, int64_t last_offset);

#endif
