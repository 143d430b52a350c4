/* libgregor internals: the consumer (gregor/consumer.h), shared by
 *   consumer.c           public calls, assignment, positions (ListOffsets), poll;
 *   consumer_fetch.c     Fetch requests and reading their answers;
 *   consumer_group.c     group membership common to both protocols: coordinator
 *                        lookup, subscription, applying a new assignment (rebalance
 *                        callback), the topic list for regex subscriptions;
 *   consumer_cgh.c       the KIP-848 consumer protocol (ConsumerGroupHeartbeat);
 *   consumer_classic.c   the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup);
 *   consumer_offsets.c   committed offsets: OffsetFetch, OffsetCommit (sync, async, auto);
 *   consumer_assignor.c  the pure parts (encodings, assignors, reconciliation).
 * @locality: the thread that owns the handle. */
#ifndef GR_CLIENT_CONSUMER_INT_H
#define GR_CLIENT_CONSUMER_INT_H

#include <regex.h>

#include "base/uuid.h"
#include "client/client.h"
#include "client/consumer_assignor.h"
#include "gregor/consumer.h"
#include "proto/records.h"

/* An aborted transaction of a read_committed Fetch answer. */
typedef struct gr__caborted {
    int64_t pid, first;
} gr__caborted_t;

/* A Fetch answer for one partition, copied out of the response. */
typedef struct gr__canswer {
    uint8_t *blob; /* its Records; NULL: no answer */
    size_t len;
    int64_t pos, end; /* fetched from; the offset after its last whole batch (-1 none) */
    gr__caborted_t *aborted;
    size_t n_aborted;
} gr__canswer_t;

typedef struct gr__cpart {
    char *topic;
    int32_t partition;
    bool by_time;  /* start is a timestamp to resolve */
    int64_t start; /* offset, GR_OFFSET_BEGINNING/END, or a timestamp */
    int64_t next;  /* position; -1 while unresolved */
    int64_t oor;   /* position refused with OFFSET_OUT_OF_RANGE, to re-resolve; -1 none */
    bool inflight; /* a Fetch for it is out: request fetch_seq, from fetch_pos */
    uint64_t fetch_seq;
    int64_t fetch_pos;
    int64_t retry_at;
    bool paused;
    bool need_committed; /* group: start from the committed offset (OffsetFetch) */
    int64_t committed;   /* group: last offset committed (or fetched); -1 none */
    uint8_t *blob;       /* the Records of the last answer, being read */
    int64_t blob_end;    /* the offset after blob's last whole batch; -1 none (no fetch ahead) */
    gr_batch_iter_t it;
    bool in_batch;
    gr_batch_view_t bv;
    gr_record_iter_t ri;
    gr_wbuf_t scratch;
    /* read_committed: the answer's aborted transactions (by first offset) not reached yet,
     * and the producers whose transaction is being skipped (consumer_fetch.c) */
    gr__caborted_t *aborted;
    size_t n_aborted, next_aborted;
    int64_t *skip_pids;
    size_t n_skip;
    /* gregor.consumer.fetch.ahead: the answer to the Fetch sent from blob_end while blob is
     * read (at most one per blob: ahead_sent), installed when blob is drained at that offset */
    bool ahead_sent;
    gr__canswer_t ahead;
} gr__cpart_t;

/* An assignment of every partition of a topic, expanded once metadata is known. */
typedef struct gr__cwild {
    char *topic;
    bool by_time;
    int64_t start;
} gr__cwild_t;

struct gr_consumer_msg {
    const char *topic;
    int32_t partition;
    gr_record_t rec;
    int ts_type;
};

/* A member of the classic group as JoinGroup told the leader. */
typedef struct gr__cl_member {
    char *member_id, *instance_id;
    uint8_t *meta;
    size_t meta_len;
} gr__cl_member_t;

enum { GR__CL_JOIN, GR__CL_JOINING, GR__CL_ASSIGN, GR__CL_SYNCING, GR__CL_STABLE };

typedef struct gr__cgroup {
    bool on;      /* subscribed */
    bool classic; /* group.protocol=classic */
    bool closing; /* close: no more joins */
    char *group_id, *instance_id, *remote_assignor, *rack;
    char **topics; /* the subscription (names), or the regex's matches (classic) */
    size_t n_topics;
    char *regex;
    regex_t re; /* classic regex subscription */
    int64_t regex_checked;
    char *member_id;
    int32_t epoch; /* member epoch or generation; -1 while out */
    int32_t coord_id;
    bool fc_inflight;
    int64_t fc_next;
    bool hb_inflight;
    int64_t hb_next, last_ok;
    int32_t hb_interval, session_timeout, rebalance_timeout; /* rebalance_timeout: max.poll.interval.ms */
    int64_t last_poll; /* when gr_consumer_poll last returned to the application */
    int64_t backoff;
    gr__tplist_t owned;
    int64_t learn_next; /* KIP-848 regex: next look at the cluster's topics for unknown ids */
    /* KIP-848: the target assignment by topic id, until its names are known */
    bool have_target, ack;
    gr_uuid_t *tgt_ids;
    int32_t *tgt_parts;
    size_t n_tgt;
    /* classic */
    int cstate;
    gr__tplist_t pending; /* SyncGroup's assignment, applied by the next run */
    bool have_pending;
    bool lose_pending; /* fenced or expired: the next run tells "lost" and drops the partitions */
    char **strategies;
    size_t n_strategies;
    char *protocol, *leader;
    gr__cl_member_t *members;
    size_t n_members;
    gr__cg_topic_t *snap; /* leader: partition counts the assignment was made with */
    size_t n_snap;
    /* offsets */
    bool auto_commit;
    int32_t auto_commit_ms;
    int64_t next_commit;
    int reset; /* auto.offset.reset: 0 latest, 1 earliest, 2 none */
    int commits_inflight;
    int64_t close_deadline; /* while closing: the bound of every wait */
    gr_rebalance_cb *rb_cb;
    void *rb_opaque;
    gr_commit_cb *commit_cb;
    void *commit_opaque;
} gr__cgroup_t;

struct gr_consumer {
    gr__client_t *cl;
    gr__cpart_t **parts;
    size_t n_parts, cap_parts;
    gr__cwild_t *wild;
    size_t n_wild;
    size_t rr; /* the partition records were last served from */
    int32_t max_wait, min_bytes, max_bytes, part_max_bytes;
    int8_t isolation;
    bool fetch_ahead;   /* gregor.consumer.fetch.ahead */
    uint64_t fetch_seq; /* the last Fetch request's number */
    int32_t *fetching;  /* the nodes with a Fetch in flight (one each at most) */
    size_t n_fetching;
    gr_err_t fatal; /* a non-retriable error from a callback, returned by poll */
    gr_consumer_msg_t msg;
    gr__cgroup_t g;
    char errbuf[1024];
};

/* consumer.c */
gr__cpart_t *gr__cons_find(gr_consumer_t *c, const char *topic, size_t tlen, int32_t partition);
gr__cpart_t *gr__cons_add(gr_consumer_t *c, const char *topic, int32_t partition, bool by_time, int64_t start);
void gr__cons_remove(gr_consumer_t *c, const char *topic, int32_t partition);
/* Free the answer being read (drop_current) or it and the one fetched ahead (drop_blob). */
void gr__cons_drop_current(gr__cpart_t *p);
void gr__cons_drop_blob(gr__cpart_t *p);
int64_t gr__cons_deadline(gr_consumer_t *c, int timeout_ms);
int gr__cons_io_wait(gr_consumer_t *c, int64_t deadline);
/* gr_topic_partition_t entries for a list, with current positions (free the result). */
gr_topic_partition_t *gr__cons_tps(gr_consumer_t *c, const gr__tplist_t *l);

/* consumer_fetch.c */
/* Send the Fetches due: every partition without an answer to read; with ahead_only, only
 * the fetches ahead of answers being read (from inside a Fetch callback). */
void gr__cons_send_fetches(gr_consumer_t *c, bool ahead_only);
const gr_consumer_msg_t *gr__cons_next_buffered(gr_consumer_t *c);

/* consumer_group.c */
gr_err_t gr__cg_init(gr_consumer_t *c, const gr_conf_t *conf, char *errstr, size_t size);
void gr__cg_free(gr_consumer_t *c);
/* One round of membership work, from every poll iteration: coordinator, heartbeats,
 * joins, reconciliation, auto-commit. */
void gr__cg_run(gr_consumer_t *c);
/* The coordinator's node once known and ready; else NULL (lookup started). */
gr__node_t *gr__cg_coord(gr_consumer_t *c);
void gr__cg_coord_lost(gr_consumer_t *c);
/* gr_consumer_poll's start: the poll timer (max.poll.interval.ms) of the last return. */
void gr__cg_poll_begin(gr_consumer_t *c, int64_t now);
/* The poll timer expired in the classic protocol: leave (dynamic members), lose, rejoin. */
void gr__ccl_poll_expired(gr_consumer_t *c, int64_t deadline);
bool gr__cg_coord_error(int16_t code);
/* Wait (running I/O) until the coordinator is known: its id, or -1 at the deadline. */
int32_t gr__cg_wait_coord(gr_consumer_t *c, int64_t deadline);
/* Replace the assignment by target (sorted): revoke, commit, callbacks, add. Like every
 * change of the partition set, it runs from poll / close, never from a response
 * callback (those only record what to do), so no caller holds a stale gr__cpart_t. */
void gr__cg_set_assignment(gr_consumer_t *c, const gr__tplist_t *target);
/* The assignment is gone (fenced, session lost): "lost" callback, no commit. */
void gr__cg_lose(gr_consumer_t *c);
void gr__cg_fail(gr_consumer_t *c, gr_err_t err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Every topic of the cluster (a Metadata request for all topics), names and ids. */
gr_err_t gr__cg_all_topics(gr_consumer_t *c, int64_t deadline, char ***names, gr_uuid_t **ids, size_t *n);
void gr__cg_free_names(char **names, size_t n);
bool gr__cg_id_name(gr_consumer_t *c, const gr_uuid_t *id, const char **name);

/* consumer_cgh.c */
void gr__cgh_run(gr_consumer_t *c);
void gr__cgh_leave(gr_consumer_t *c, int64_t deadline);
/* consumer_classic.c */
void gr__ccl_run(gr_consumer_t *c);
void gr__ccl_leave(gr_consumer_t *c, int64_t deadline);
void gr__ccl_free(gr__cgroup_t *g);

/* consumer_offsets.c */
/* Resolve the start of parts that wait for their committed offset. */
void gr__co_fetch_committed(gr_consumer_t *c, int64_t deadline);
/* Commit list (positions of l; NULL: every moved assigned partition), waiting until deadline. */
gr_err_t gr__co_commit_sync(gr_consumer_t *c, const gr_topic_partition_t *tps, size_t n, int64_t deadline);
gr_err_t gr__co_commit_async(gr_consumer_t *c, const gr_topic_partition_t *tps, size_t n, gr_commit_cb *cb,
                             void *opaque);
void gr__co_auto_commit(gr_consumer_t *c);

#endif
