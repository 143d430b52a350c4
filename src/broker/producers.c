/* Sequence checks follow Kafka's ProducerAppendInfo.checkSequence and the
 * duplicate lookup its ProducerStateEntry.findDuplicateBatch. */
#include "broker/producers.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GR_PRODUCER_BATCHES 5 /* Kafka keeps the last 5 batches per producer */

typedef struct pbatch {
    int32_t first_seq, last_seq;
    int64_t base_offset, last_offset;
} pbatch_t;

typedef struct pentry {
    int64_t pid;
    int16_t epoch;
    int n;                           /* batches kept */
    pbatch_t b[GR_PRODUCER_BATCHES]; /* oldest first */
    struct pentry *next;
} pentry_t;

#define PBUCKETS 64

struct gr_producer_state {
    pentry_t *buckets[PBUCKETS];
};

gr_producer_state_t *gr_producers_new(void) {
    gr_producer_state_t *ps = calloc(1, sizeof(*ps));
    if (!ps) abort();
    return ps;
}

void gr_producers_free(gr_producer_state_t *ps) {
    if (!ps) return;
    for (int i = 0; i < PBUCKETS; i++) {
        pentry_t *e = ps->buckets[i];
        while (e) {
            pentry_t *n = e->next;
            free(e);
            e = n;
        }
    }
    free(ps);
}

static pentry_t *find(gr_producer_state_t *ps, int64_t pid) {
    for (pentry_t *e = ps->buckets[(uint64_t)pid % PBUCKETS]; e; e = e->next)
        if (e->pid == pid) return e;
    return NULL;
}

static int32_t seq_add(int32_t seq, int32_t n) {
    /* Sequences wrap from INT32_MAX to 0. */
    int64_t s = (int64_t)seq + n;
    return (int32_t)(s > INT32_MAX ? s - INT32_MAX - 1 : s);
}

void gr_producers_check(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                        gr_producer_check_t *out) {
    memset(out, 0, sizeof(*out));
    pentry_t *e = find(ps, pid);
    if (!e) return; /* unknown producer (new, or state lost): accept any sequence */
    if (epoch < e->epoch) {
        out->err = GR_ERR_INVALID_PRODUCER_EPOCH;
        snprintf(out->msg, sizeof(out->msg),
                 "Epoch of producer %lld is %d, which is smaller than the last seen epoch %d", (long long)pid, epoch,
                 e->epoch);
        return;
    }
    if (epoch > e->epoch) {
        if (first_seq != 0) {
            out->err = GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
            snprintf(out->msg, sizeof(out->msg),
                     "Invalid sequence number for new epoch of producer %lld: %d (request epoch), %d (seq. number), %d "
                     "(current producer epoch)",
                     (long long)pid, epoch, first_seq, e->epoch);
        }
        return;
    }
    int32_t last_seq = seq_add(first_seq, count - 1);
    for (int i = 0; i < e->n; i++) {
        if (e->b[i].first_seq == first_seq && e->b[i].last_seq == last_seq) {
            out->duplicate = true;
            out->dup_base_offset = e->b[i].base_offset;
            out->dup_last_offset = e->b[i].last_offset;
            return;
        }
    }
    int32_t cur_last = e->n ? e->b[e->n - 1].last_seq : -1;
    bool in_seq = e->n == 0 ? true : first_seq == seq_add(cur_last, 1);
    if (!in_seq) {
        out->err = GR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
        snprintf(out->msg, sizeof(out->msg),
                 "Out of order sequence number for producer %lld: %d (incoming seq. number), %d (current end sequence "
                 "number)",
                 (long long)pid, first_seq, cur_last);
    }
}

void gr_producers_record(gr_producer_state_t *ps, int64_t pid, int16_t epoch, int32_t first_seq, int32_t count,
                         int64_t base_offset, int64_t last_offset) {
    pentry_t *e = find(ps, pid);
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (!e) abort();
        e->pid = pid;
        uint64_t bk = (uint64_t)pid % PBUCKETS;
        e->next = ps->buckets[bk];
        ps->buckets[bk] = e;
    }
    if (epoch != e->epoch) {
        e->epoch = epoch;
        e->n = 0;
    }
    if (e->n == GR_PRODUCER_BATCHES) {
        memmove(&e->b[0], &e->b[1], sizeof(e->b[0]) * (GR_PRODUCER_BATCHES - 1));
        e->n--;
    }
    e->b[e->n++] = (pbatch_t){first_seq, seq_add(first_seq, count - 1), base_offset, last_offset};
}
