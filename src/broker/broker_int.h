/* Broker internals shared by the handler files. Not for other modules. */
#ifndef GR_BROKER_BROKER_INT_H
#define GR_BROKER_BROKER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "auth/authz_rules.h"
#include "auth/sasl.h"
#include "auth/scram_store.h"
#include "broker/broker.h"
#include "broker/core_metrics.h"
#include "broker/partitions.h"
#include "broker/request.h"
#include "broker/share_int.h"
#include "meta/meta.h"
#include "net/conn.h"
#include "net/loop.h"
#include "server/config.h"
#include "storage/flusher.h"

typedef struct gr_broker_feature {
    const char *name;
    int16_t min_supported, max_supported;
    int16_t finalized;  /* the level a fresh data directory finalizes (and records) */
    int16_t unrecorded; /* the level of a data directory that never recorded one */
} gr_broker_feature_t;
#define GR_BROKER_N_FEATURES 4

/** acks=all group commit (sync_queue.c): the waiters queued during one loop iteration
 *  are handed, just before the loop sleeps, to the queue's sync thread, which fsyncs
 *  each partition once for all of them; cb(arg, err) then runs on the loop thread
 *  (never inside _add), err 0 only once the offset is durable. */
typedef struct gr_sync_queue gr_sync_queue_t;
typedef void gr_sync_cb(void *arg, gr_err_t err);
/** Starts the sync thread; its completions are posted to loop. fsync_hist (may be NULL):
 *  each fsync is timed into it (gr_hist_observe_atomic). loop NULL, or no thread: the
 *  fsyncs run inline in gr_sync_queue_run. */
gr_sync_queue_t *gr_sync_queue_new(gr_loop_t *loop, gr_hist_t *fsync_hist);
/** Completes every waiter first, queued or in flight (may block on fsyncs); stops the thread. */
void gr_sync_queue_free(gr_sync_queue_t *q);
/** Queue cb(arg, err) for when p's log is durable up to offset (exclusive). Pins p
 *  until cb has run. */
void gr_sync_queue_add(gr_sync_queue_t *q, gr_partition_t *p, int64_t offset, gr_sync_cb *cb, void *arg);
/** Hand the queued waiters to the sync thread (before the loop sleeps). */
void gr_sync_queue_run(gr_sync_queue_t *q);

typedef struct gr_topic_job gr_topic_job_t;

/* What a file looked like (zero: no file, or unreadable). */
typedef struct gr_file_stamp {
    int64_t mtime_ns, size;
    uint64_t ino;
} gr_file_stamp_t;

struct gr_broker {
    gr_loop_t *loop;
    const gr_server_config_t *cfg;
    gr_meta_t *meta;
    gr_listener_t *listener; /* the first of lst (single-listener callers) */
    struct gr_broker_listener {
        gr_listener_t *l;
        struct gr_tls_ctx *tls;     /* SSL, SASL_SSL */
        struct gr_ssl_rules *rules; /* its ssl.principal.mapping.rules */
        gr_file_stamp_t ks_stamp;   /* keystore / truststore file when the context was built */
        gr_file_stamp_t ts_stamp;   /* (a re-issued path reloads a file that changed since) */
    } * lst;                        /* one per cfg->listeners entry (broker_listeners.c) */
    size_t n_lst;
    gr_flusher_t *flusher;  /* background fsyncs: flush policy, share state */
    gr_sync_queue_t *syncq; /* acks=all fsyncs, handed over before the loop sleeps */
    gr_core_metrics_t cm;   /* requests, errors, durations, fsyncs (core_metrics.h) */
    gr_parts_t *parts;
    gr_share_ctx_t share;         /* share groups, see share_int.h */
    struct gr_cgroup_ctx *cgroup; /* consumer groups, see cgroup_coord.h */
    struct gr_txn_ctx *txn;       /* transaction coordinator, see txn_coord.h */
    gr_timer_t housekeeping;      /* retention and time-based flushes */
    gr_timer_t producer_expiry;   /* producer.id.expiration.ms */
    gr_hook_t before_sleep;       /* flush-policy kicks before the loop sleeps */
    int64_t next_producer_id;     /* InitProducerId, see h_init_producer_id.c */
    int64_t producer_id_limit;    /* ids below this are reserved on disk */
    uint64_t n_requests;          /* in flight */
    gr_req_t parked;              /* list head of parked requests */
    gr_topic_job_t *topic_jobs;   /* partition logs still to open (topic_open.c) */
    gr_timer_t topic_timer;
    bool shutting_down;
    gr_acl_authz_t *authz;                              /* ACLs; NULL: no authorizer configured (authz.c) */
    gr_broker_feature_t features[GR_BROKER_N_FEATURES]; /* gr_broker_features' answer */
    struct gr_broker_sasl_listener *sasl;               /* the SASL setup of each SASL listener (h_sasl.c) */
    size_t n_sasl;
    int64_t sasl_fail_delay_ms;      /* connection.failed.authentication.delay.ms */
    size_t sasl_max_receive;         /* sasl.server.max.receive.size: frames before authentication */
    gr_scram_store_t scram;          /* SCRAM credentials (h_scram.c) */
    struct gr_broker_quotas *quotas; /* client quotas (quotas.c) */
    gr_req_t *quota_cur;             /* the request whose handler is running (request time quota) */
    gr_broker_progress_cb progress;  /* start-up/shutdown slices: the admin endpoint (may be NULL) */
    void *progress_arg;
};

/** Called by the connection layer for each frame (see net/conn.h). */
void gr_broker_on_frame(void *ctx, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len);
/** Request accounting (request.c / broker_frame.c). */
void gr_broker_req_start(gr_broker_t *b, gr_req_t *req);
void gr_broker_req_done(gr_broker_t *b, gr_req_t *req);

/** SASL (h_sasl.c). _open loads the SCRAM credentials and the listener's SASL setup.
 *  _raw takes a frame before its header is parsed (raw tokens after a v0 handshake, frames
 *  after a failure) and _gate one after (requests a connection may not send yet, expired
 *  sessions); both return true if they consumed the frame. */
gr_err_t gr_broker_sasl_open(gr_broker_t *b, char *errstr, size_t errstr_size);
/** Build the SASL setup of one SASL listener (called by _open for the configured one; a
 *  broker with several listeners calls it once per SASL listener before opening them). */
gr_err_t gr_broker_sasl_add_listener(gr_broker_t *b, const char *listener, char *errstr, size_t errstr_size);
void gr_broker_sasl_close(gr_broker_t *b);
bool gr_broker_sasl_raw(gr_broker_t *b, gr_conn_t *conn, uint64_t seq, uint8_t *frame, size_t len);
bool gr_broker_sasl_gate(gr_broker_t *b, gr_conn_t *conn, uint64_t seq, uint8_t *frame, int16_t api_key);
void gr_broker_sasl_on_close(gr_broker_t *b, gr_conn_t *conn);
/** The SASL authentications of a listener that succeeded / failed; false if it is not a SASL listener. */
bool gr_broker_sasl_counts(const gr_broker_t *b, const char *listener, uint64_t *ok, uint64_t *failed);
/** A new connection: on a SASL listener its frames are bounded by sasl.server.max.receive.size
 *  until it is authenticated. (A gr_conn_accept_cb.) */
void gr_broker_sasl_on_accept(void *ctx, gr_conn_t *conn);

/** Connection closed: parked requests of that connection are answered now
 *  (the answers are dropped). */
void gr_broker_on_close(void *ctx, gr_conn_t *conn);
/** Park a request that will be answered later; cancel(req) must answer it
 *  at once (shutdown, client gone). Unpark before answering normally. */
void gr_broker_park(gr_broker_t *b, gr_req_t *req, void (*cancel)(gr_req_t *req));
void gr_broker_unpark(gr_broker_t *b, gr_req_t *req);
/** Answer every parked request (shutdown). */
void gr_broker_cancel_parked(gr_broker_t *b);
/** Producer id allocation state (h_init_producer_id.c). */
gr_err_t gr_broker_producer_ids_open(gr_broker_t *b, char *errstr, size_t errstr_size);
/** The next producer id (a new block is reserved on disk when needed); -1 if that write failed. */
int64_t gr_broker_producer_id_next(gr_broker_t *b);

/** Create a topic with its partition logs (CreateTopics and auto-creation).
 *  partitions -1 = num.partitions. See gr_meta_topic_create for the errors.
 *  Implemented in h_topics.c. */
gr_err_t gr_broker_topic_create(gr_broker_t *b, const char *name, int32_t partitions, const gr_props_t *configs,
                                bool validate_only, const gr_meta_topic_t **out, char *errstr, size_t errstr_size);
/** Progressive opening of partition logs (topic_open.c): the logs of topic t that are
 *  not open yet are opened a few per loop iteration; a failure is reported into
 *  *err_code / *err_msg of req's response (and, with drop_on_error, deletes the topic).
 *  Call gr_broker_topic_respond_when_open(req, resp) once after queuing: it answers
 *  at once if nothing was queued for req, else when the last of its topics is done. */
void gr_broker_topic_jobs_init(gr_broker_t *b);
void gr_broker_topic_jobs_stop(gr_broker_t *b);
/** Run the topic timer soon (deleted partitions to remove). */
void gr_broker_topic_jobs_kick(gr_broker_t *b);
void gr_broker_topic_open_later(gr_broker_t *b, gr_req_t *req, const gr_meta_topic_t *t, bool drop_on_error,
                                int16_t *err_code, gr_str_t *err_msg);
void gr_broker_topic_respond_when_open(gr_req_t *req, const void *resp);

/** Auto-create a topic if auto.create.topics.enable is true (Metadata, Produce).
 *  Returns the topic or NULL (the error code in *err). */
const gr_meta_topic_t *gr_broker_auto_create(gr_broker_t *b, const char *name, gr_err_t *err);

/** Authorization (authz.c). gr_broker_acls_open loads the durable ACLs when
 *  authorizer.class.name is set. The checks pass when no authorizer is configured. */
gr_err_t gr_broker_acls_open(gr_broker_t *b, char *errstr, size_t errstr_size);
void gr_broker_acls_close(gr_broker_t *b);
/** Is the request's principal allowed the check's operation on resource name (CLUSTER: any)? */
bool gr_req_allowed(gr_req_t *req, gr_az_t check, const char *name);
/** 0 if allowed, else the check's error code (TOPIC_AUTHORIZATION_FAILED ...). */
gr_err_t gr_req_authz(gr_req_t *req, gr_az_t check, const char *name);
gr_err_t gr_req_authz_s(gr_req_t *req, gr_az_t check, gr_str_t name);
/** Kafka's authorizeByResourceType: op allowed on some resource of rtype. */
bool gr_req_allowed_any(gr_req_t *req, int8_t op, int8_t rtype);
/** Authorized-operations bitfield of a resource for this request's principal. */
int32_t gr_req_authz_ops(gr_req_t *req, int8_t rtype, const char *name);
/** The message Kafka's controller gives a denied cluster operation:
 *  "Request <request> needs ALTER permission." (Kafka prints its request object there). */
gr_str_t gr_req_denied_msg(gr_req_t *req, gr_az_t check);

/** Feature flags for ApiVersions v3+: supported ranges and the finalized levels
 *  (read from the metadata store at each call; valid until the next call). */
const gr_broker_feature_t *gr_broker_features(gr_broker_t *b, size_t *n);
int64_t gr_broker_features_epoch(const gr_broker_t *b);
/** The finalized level of a feature now (0 if unknown): read on every decision
 *  that depends on it (share.version >= 2: dead-letter queue). */
int16_t gr_broker_feature_level(const gr_broker_t *b, const char *name);
/** A feature's static row (supported range, fresh node level), NULL if unknown. */
const gr_broker_feature_t *gr_broker_feature_find(const char *name);

/** The advertised endpoint of this broker on the listener conn came in on (Kafka answers
 *  each listener with its own advertised.listeners entry). conn may be NULL: the first. */
const char *gr_broker_host(const gr_broker_t *b, const gr_conn_t *conn);
int32_t gr_broker_adv_port(const gr_broker_t *b, const gr_conn_t *conn);
/** Open / close every client listener (broker_listeners.c). */
gr_err_t gr__broker_open_listeners(gr_broker_t *b, char *errstr, size_t errstr_size);
void gr__broker_close_listeners(gr_broker_t *b);

/* ---- dynamic keystores and truststores (tls_reload.c) ---- */
/* The TLS options of listener i: its static ssl.* with the dynamic listener.name.<l>.ssl.*
 * of dyn on top (strings borrowed from both). */
void gr__broker_tls_opts(const gr_broker_t *b, size_t i, const gr_props_t *dyn, gr_tls_opts_t *out);
void gr__broker_file_stamp(const char *path, gr_file_stamp_t *out);
/* Kafka's key checks on the resulting BROKER config: SSL store keys need the listener
 * prefix, and are per broker (not at the cluster default). */
gr_err_t gr__broker_tls_check_keys(const gr_props_t *map, bool cluster_default, char *errstr, size_t errstr_size);
/* New contexts for the listeners whose stores `next` changes (refused as Kafka refuses), or
 * whose files changed on disk since they were loaded (a failure there is logged and the old
 * context kept, as Kafka does). *out is NULL when nothing changes. */
typedef struct gr_tls_reload gr_tls_reload_t;
gr_err_t gr__broker_tls_prepare(gr_broker_t *b, const gr_props_t *next, gr_tls_reload_t **out, char *errstr,
                                size_t errstr_size);
/* Swap the new contexts in (new connections only) and free r; _discard only frees. */
void gr__broker_tls_commit(gr_broker_t *b, gr_tls_reload_t *r);
void gr__broker_tls_discard(gr_tls_reload_t *r);
int32_t gr_broker_node_id(const gr_broker_t *b);

#endif
