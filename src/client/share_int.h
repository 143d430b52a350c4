/* libgregor internals: the share consumer, shared by share_consumer.c (public calls,
 * acknowledgement bookkeeping), share_group.c (coordinator, heartbeats, assignment),
 * share_fetch.c (share sessions, ShareFetch / ShareAcknowledge) and share_records.c
 * (record decoding, batches, results).
 *
 * Life of a record: a ShareFetch answer is decoded into gr_share_record_t objects on
 * the `fetched` queue (only offsets inside AcquiredRecords; the other acquired offsets
 * are acknowledged as GAP at once). poll moves the queue into the batch. At the next
 * poll / commit the batch's acknowledgements move to their partition's `pending`
 * list, and go out on the next ShareFetch to the leader (poll) or in a
 * ShareAcknowledge (commit, close, RENEW). A record acknowledged with RENEW is kept:
 * once the renewal succeeds it is returned again by a later poll.
 * @locality: everything here runs on the thread that owns the consumer, except
 * gr_share_consumer_wakeup (an atomic flag and an eventfd write). */
#ifndef GR_CLIENT_SHARE_INT_H
#define GR_CLIENT_SHARE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "client/client.h"
#include "gregor/share_consumer.h"

#define GR__ACK_GAP  0
#define GR__ACK_NONE (-1)

/* Fetch ahead only for an application that came back to poll within this many ms. */
#define GR__FETCH_AHEAD_MAX_GAP_MS 10

typedef struct gr__sleader gr__sleader_t;
typedef struct gr__sreq gr__sreq_t;

/** Acknowledgements of one partition: (offset, type) pairs, any order until sent. */
typedef struct gr__acks {
    int64_t *off;
    int8_t *type;
    size_t n, cap;
    int64_t max; /* largest offset listed (valid when n > 0) */
} gr__acks_t;

/** One topic-partition the consumer knows (assigned now or earlier; kept until close). */
typedef struct gr__spart {
    char *topic;
    gr_uuid_t topic_id;
    int32_t partition;
    bool assigned;
    bool in_session;        /* listed in the current share session of `session` */
    gr__sleader_t *session; /* leader the partition's records come from (acks go there), or NULL */
    gr__acks_t pending;     /* recorded, not yet sent */
} gr__spart_t;

/** Record states inside a batch (gr_share_record.st). */
enum { GR__RS_NEW, GR__RS_ACKED, GR__RS_SENT, GR__RS_RENEWED, GR__RS_RENEW_FAILED };

typedef struct gr__shdr {
    const char *key;
    const uint8_t *value;
    int32_t value_len;
} gr__shdr_t;

struct gr_share_record {
    gr__spart_t *part;
    int64_t offset, timestamp;
    int16_t delivery_count;
    int8_t ack; /* GR__ACK_NONE or a gr_ack_type_t */
    uint8_t st; /* GR__RS_* */
    const uint8_t *key, *value;
    int32_t key_len, value_len; /* -1 = null */
    uint32_t n_headers;
    gr__shdr_t *headers;
    gr_share_record_t *next; /* fetched / renewing / replay lists */
};

typedef struct gr__rlist {
    gr_share_record_t *head, *tail;
} gr__rlist_t;

struct gr_share_batch {
    gr_share_record_t **v;
    size_t n, cap;
};

typedef struct gr__arow {
    char *topic;
    int32_t partition;
    gr_err_t err;
    char *errstr;
    int64_t *off;
    size_t n;
} gr__arow_t;

struct gr_share_ack_result {
    gr__arow_t *rows;
    size_t n, cap;
};

/** One partition leader and the share session with it. */
struct gr__sleader {
    int32_t node_id;
    int32_t epoch;   /* epoch of the next request; 0 = open a session */
    gr__sreq_t *req; /* the one request in flight, or NULL */
    int64_t backoff_until;
    bool closed; /* session ended with epoch -1 */
};

/** A ShareFetch / ShareAcknowledge in flight and the acknowledgements it carries. */
struct gr__sreq {
    gr_share_consumer_t *c;
    gr__sleader_t *ld;
    int16_t api;
    int32_t epoch;
    bool renew;
    uint64_t commit_id; /* the commit_sync waiting for it, 0 = none */
    size_t n;
    struct gr__sreq_set {
        gr__spart_t *part;
        gr__acks_t acks;
    } * sets;
};

struct gr_share_consumer {
    gr__client_t *cl;
    char *group_id, *rack;
    bool explicit_mode;
    bool fetch_ahead;    /* gregor.share.fetch.ahead (share_fetch.c, fetch_ahead) */
    int64_t returned_at; /* when poll last handed out records (0: it did not) */
    int64_t app_gap_ms;  /* how long the application held the previous batch (-1: unknown) */
    int8_t acquire_mode;
    int32_t max_poll_records, fetch_max_bytes, fetch_min_bytes, fetch_max_wait_ms, max_poll_interval_ms;
    int64_t default_api_timeout_ms, retry_backoff_ms;
    char member_id[23];
    char **topics;
    size_t n_topics;
    /* group membership (share_group.c) */
    int32_t coord_id;
    bool fc_inflight, hb_inflight, send_full, leaving, in_group, ever_ready;
    int64_t fc_next, hb_next;
    int32_t member_epoch, hb_interval_ms;
    gr_err_t fatal;
    char fatal_msg[300];
    /* partitions and leaders */
    gr__spart_t **parts;
    size_t n_parts, cap_parts;
    gr__sleader_t **leaders;
    size_t n_leaders, cap_leaders;
    /* records */
    gr__rlist_t fetched, renewing, replay;
    gr_share_batch_t batch;
    /* acknowledgement results */
    gr_share_ack_result_t done; /* waiting for the callback */
    gr_share_commit_cb *cb;
    void *cb_opaque;
    uint64_t commit_seq;
    gr_share_ack_result_t *commit_res;
    int commit_left;
    int32_t lock_timeout_ms;
    int wake_fd;
    atomic_bool woken;
    bool closed;
    int64_t last_poll;
    gr_wbuf_t scratch; /* decompression */
    char errbuf[512];
};

/* share_consumer.c */
gr_err_t gr__share_err(gr_share_consumer_t *c, gr_err_t err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool gr__share_woken(gr_share_consumer_t *c);
/** Run one I/O round (at most 50 ms so that wakeup is seen quickly), then the group
 *  and fetch state machines. */
void gr__share_io(gr_share_consumer_t *c, int64_t deadline, bool fetch);

/* share_group.c */
void gr__share_group_run(gr_share_consumer_t *c);
/** The leader node id of part from the metadata cache, or -1 (a refresh is then asked). */
int32_t gr__share_part_leader(gr_share_consumer_t *c, gr__spart_t *part);
gr__spart_t *gr__share_part_get(gr_share_consumer_t *c, const gr_uuid_t *tid, int32_t partition, bool create);
gr__spart_t *gr__share_part_by_name(gr_share_consumer_t *c, const char *topic, int32_t partition);

/* share_fetch.c */
gr__sleader_t *gr__share_leader(gr_share_consumer_t *c, int32_t node_id);
/** Send fetches (and piggybacked acks) to idle leaders. */
void gr__share_fetch_run(gr_share_consumer_t *c);
/** Send the pending acknowledgements with ShareAcknowledge to each idle leader that has
 *  some (close: epoch -1 to every leader with a session). Returns the number sent. */
int gr__share_ack_run(gr_share_consumer_t *c, uint64_t commit_id, bool close);
bool gr__share_any_inflight(gr_share_consumer_t *c);
bool gr__share_pending_acks(gr_share_consumer_t *c);

/* share_records.c */
void gr__acks_add(gr__acks_t *a, int64_t off, int8_t type);
void gr__acks_free(gr__acks_t *a);
void gr__acks_sort(gr__acks_t *a);
/** Turn sorted acks into Kafka AcknowledgementBatches in arena (runs of consecutive
 *  offsets; one type when uniform). Returns the count; *firsts etc. are parallel arrays. */
int32_t gr__acks_batches(const gr__acks_t *a, gr_arena_t *ar, int64_t **first, int64_t **last, int8_t ***types,
                         int32_t **ntypes);
/** Decode a partition's Records keeping offsets inside the acquired ranges; queue GAP
 *  (and REJECT for corrupt batches) acknowledgements for the other acquired offsets. */
void gr__share_decode(gr_share_consumer_t *c, gr__spart_t *part, const uint8_t *recs, size_t len, const int64_t *first,
                      const int64_t *last, const int16_t *dc, size_t n_ranges);
void gr__rlist_push(gr__rlist_t *l, gr_share_record_t *r);
void gr__rlist_free(gr__rlist_t *l);
void gr__batch_push(gr_share_batch_t *b, gr_share_record_t *r);
void gr__result_add(gr_share_ack_result_t *res, const gr__spart_t *part, gr_err_t err, const char *msg,
                    const gr__acks_t *acks);
void gr__result_clear(gr_share_ack_result_t *res);

#endif
