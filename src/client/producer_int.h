/* libgregor internals: the producer's data structures, shared by producer.c (the
 * public API, partitioning, accumulation) and producer_io.c (draining batches into
 * Produce requests, responses, retries, idempotence, expiry).
 *
 * Memory: a record is copied once, into the open batch of its partition (a
 * gr_batch_builder_t); per record only a small gr__pmsg_t (callback, opaque,
 * timestamp) is kept, in an array per batch. The open batch's buffer starts with
 * GR_RECORD_BATCH_OVERHEAD bytes of room: an uncompressed batch gets its header written
 * there and is sent from that same buffer (the Produce request references it, node.c
 * writes it with writev), so there is no second copy. Buffers are recycled through a
 * pool bounded by count and by half of buffer.memory.
 *
 * Ordering and idempotence: batches of a partition leave in order. With idempotence a
 * batch gets its base sequence when it is first sent, up to
 * max.in.flight.requests.per.connection (<= 5) batches of a partition may be in flight,
 * and a batch that fails with a retriable error goes back into the queue in sequence
 * order; nothing new is sent for that partition until all its in-flight batches have
 * come back, so the retries go out in their original order with their original
 * sequence numbers (the broker deduplicates). */
#ifndef GR_CLIENT_PRODUCER_INT_H
#define GR_CLIENT_PRODUCER_INT_H

#include "client/client.h"
#include "gregor/producer.h"
#include "proto/records.h"

typedef struct gr__pmsg {
    gr_delivery_cb *cb;
    void *opaque;
    int64_t ts;
} gr__pmsg_t;

typedef struct gr__ppart gr__ppart_t;

typedef struct gr__pbatch {
    struct gr__pbatch *next;
    gr__ppart_t *pp;
    gr_batch_builder_t bb; /* while open */
    gr_wbuf_t wire;        /* the finished batch, once first sent */
    bool finished;
    gr__pmsg_t *msgs;
    int32_t n_msgs, cap_msgs;
    size_t bytes;       /* accounted in buffer.memory */
    int64_t created_ms; /* monotonic */
    int32_t base_seq;   /* -1 until assigned */
    int64_t pid;        /* the producer id the wire bytes carry */
    int attempts;
    int64_t retry_at;
    bool in_flight;
    /* outcome */
    gr_err_t err;
    char *errmsg;
    int64_t base_offset;
    int64_t log_append_time;
} gr__pbatch_t;

typedef struct gr__ptopic gr__ptopic_t;

struct gr__ppart {
    gr__ptopic_t *pt;
    int32_t id;
    gr__pbatch_t *open;            /* accepting records */
    gr__pbatch_t *q_head, *q_tail; /* sealed batches waiting to be sent, in order */
    int inflight;
    bool retrying; /* a batch came back for retry: wait for the others */
    int32_t next_seq;
    uint8_t txn; /* transactional producer: 0 not in the transaction, 1 to add, 2 added */
};

struct gr__ptopic {
    char *name;
    gr__mtopic_t *mt;
    int32_t n_parts;
    gr__ppart_t **parts;
    int32_t sticky;      /* current partition for records without a key, -1 none */
    size_t sticky_bytes; /* bytes sent to it since it was picked */
};

#define GR__POOL 32

typedef struct gr__ptxn gr__ptxn_t; /* producer_txn.c */

struct gr_producer {
    gr__client_t *cl;
    int acks;
    bool idempotent;
    int codec;
    int64_t linger_ms, batch_size, buffer_memory, max_request, delivery_timeout, retries, backoff_ms, max_block_ms;
    int max_inflight;
    bool ignore_keys;
    /* idempotence */
    int64_t pid;
    int16_t epoch;
    bool pid_inflight;
    int64_t pid_retry_at;
    /* topics */
    gr__ptopic_t **topics;
    size_t n_topics, cap_topics;
    /* accounting */
    size_t used_bytes;
    size_t outstanding;
    gr__pbatch_t *done_head, *done_tail;
    bool flushing, closing;
    gr_wbuf_t pool[GR__POOL];
    int n_pool;
    size_t pool_bytes; /* capacity of the pooled buffers */
    gr_wbuf_t hdr;     /* scratch for batch headers */
    uint64_t rng;
    gr__ptxn_t *txn; /* NULL unless transactional.id is set */
    char errbuf[600];
};

/* producer_io.c */
/** Send what is ready: InitProducerId if needed, then Produce requests per broker. */
void gr__producer_drain(gr_producer_t *p);
/** Fail queued batches older than delivery.timeout.ms. Returns the next wake-up time. */
int64_t gr__producer_expire(gr_producer_t *p);
/** Move a batch to the done list with its outcome (errmsg copied; may be NULL). */
void gr__producer_complete(gr_producer_t *p, gr__pbatch_t *b, gr_err_t err, const char *errmsg, int64_t base_offset,
                           int64_t log_append_time);
/** Seal the open batch of pp into its queue (if it has records). */
void gr__producer_seal(gr_producer_t *p, gr__ppart_t *pp);
/** Take a buffer from the pool (empty, maybe with capacity) / give one back. */
gr_wbuf_t gr__producer_buf_get(gr_producer_t *p);
void gr__producer_buf_put(gr_producer_t *p, gr_wbuf_t *wb);

/** Fail every batch not sent yet (open and queued) with msg (producer.c). */
void gr__producer_fail_unsent(gr_producer_t *p, const char *msg);

/* producer_txn.c: the transactional producer. */
/** Set up p->txn if conf has a transactional.id (checks idempotence). */
gr_err_t gr__txn_new(gr_producer_t *p, const gr_conf_t *conf, char *errstr, size_t size);
void gr__txn_free(gr_producer_t *p);
/** The transactional id, or NULL. */
const char *gr__txn_id(const gr_producer_t *p);
/** May a record be sent now (in a transaction)? Error explained in p->errbuf. */
gr_err_t gr__txn_check_send(gr_producer_t *p);
/** A record went to pp: the partition joins the transaction. */
void gr__txn_on_append(gr_producer_t *p, gr__ppart_t *pp);
/** A Produce of the transaction went out (version 2: the broker now knows the transaction). */
void gr__txn_on_produce(gr_producer_t *p);
/** The producer speaks transaction version 2 (Produce v12+, no AddPartitionsToTxn). */
bool gr__txn_v2(const gr_producer_t *p);
/** May pp's batches be sent (the coordinator added the partition)? */
bool gr__txn_part_ready(const gr_producer_t *p, const gr__ppart_t *pp);
/** Send AddPartitionsToTxn for partitions waiting to be added (from the drain). */
void gr__txn_drain(gr_producer_t *p);
/** The earlier of wake and the moment a delayed AddPartitionsToTxn is due. */
int64_t gr__txn_wake(const gr_producer_t *p, int64_t wake);
/** A batch failed for good with err: the transaction becomes abortable (or fatal). */
void gr__txn_on_batch_error(gr_producer_t *p, gr_err_t err, const char *msg);

#endif
