/* libgregor internals: the client core shared by the producer, the admin client
 * and (later) the share consumer.
 *
 *   gr__node_t    one broker connection: non-blocking socket, framing, correlation
 *                 ids, ApiVersions negotiation, in-order responses, request timeouts,
 *                 reconnect with backoff (node.c);
 *   gr__client_t  the set of nodes (bootstrap servers, then the brokers metadata
 *                 names), the poll() loop that drives them, and the metadata cache
 *                 (client.c, metadata.c).
 *
 * Requests are codec structs (build/gen/proto_msgs.h): the caller picks the version
 * with gr__node_version() once the node is ready, and gets the decoded response in
 * a callback. Nothing here starts a thread; gr__client_io() runs on the caller's.
 * @locality: every function, the thread that owns the client handle. */
#ifndef GR_CLIENT_CLIENT_H
#define GR_CLIENT_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "client/conf_int.h"
#include "proto/codec.h"

typedef struct gr__client gr__client_t;
typedef struct gr__node gr__node_t;

/** Response callback. err != 0: the request failed locally (transport failure,
 *  timeout, undecodable response) and resp is NULL, errmsg says why. Otherwise resp
 *  is the decoded response body of version ver, valid (with its strings) only during
 *  the call. For requests sent without expecting a response (acks=0), resp is NULL
 *  and err 0 once the bytes are written. */
typedef void gr__resp_cb(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque);

/* ---- nodes ---- */

/** Ready: connected and ApiVersions negotiated; requests may be sent. */
bool gr__node_ready(const gr__node_t *node);
/** Start connecting if down and the reconnect backoff has passed. */
void gr__node_connect(gr__node_t *node);
/** Negotiated version of api_key: the highest version both sides support, or -1. */
int16_t gr__node_version(const gr__node_t *node, int16_t api_key);
/** Requests written or queued and not yet answered. */
int gr__node_inflight(const gr__node_t *node);
/** Node id (bootstrap nodes have ids -1, -2, ...). */
int32_t gr__node_id(const gr__node_t *node);
/** "host:port" of the node. */
const char *gr__node_name(const gr__node_t *node);
/** Connection attempts refused (or unresolvable) in a row while the node is down; 0 while
 *  it is connecting or connected. */
int gr__node_refused(const gr__node_t *node);
/** Last connection error text, "" if none. */
const char *gr__node_last_error(const gr__node_t *node);
/** Encode req (a codec struct of the request for api_key) at version ver and queue it.
 *  The node must be ready. want_response false: fire-and-forget (Produce acks=0).
 *  cb may be NULL. Returns GR_ERR__STATE if the node is not ready. */
gr_err_t gr__node_send(gr__node_t *node, int16_t api_key, int16_t ver, const void *req, bool want_response,
                       gr__resp_cb *cb, void *opaque);

/* ---- client ---- */

typedef struct gr__mpart {
    int32_t leader;
    int32_t leader_epoch;
    int16_t err;
} gr__mpart_t;

/** One topic in the metadata cache. */
typedef struct gr__mtopic {
    char *name;
    gr_uuid_t id;
    int16_t err; /* topic-level error of the last answer (0 when known) */
    bool internal;
    int32_t n_parts; /* 0 while unknown */
    gr__mpart_t *parts;
    int64_t updated_ms; /* last answer about this topic, 0 = never */
} gr__mtopic_t;

/** Create the client core from conf (copied). Parses bootstrap.servers.
 *  GR_ERR__INVALID_ARG + errstr if it is empty or malformed. */
gr_err_t gr__client_new(const gr_conf_t *conf, gr__client_t **out, char *errstr, size_t errstr_size);
/** Close every connection (failing pending requests with GR_ERR__CLOSED) and free. */
void gr__client_destroy(gr__client_t *cl);
const gr_conf_t *gr__client_conf(const gr__client_t *cl);
/** Monotonic time of the last loop iteration (ms). */
int64_t gr__client_now(const gr__client_t *cl);
/** Refresh the cached clock (call before computing deadlines outside the loop). */
int64_t gr__client_tick(gr__client_t *cl);

/** Run one poll() round over every connection, waiting at most timeout_ms (0 = no
 *  wait). Responses and failures run their callbacks from here. */
void gr__client_io(gr__client_t *cl, int timeout_ms);
/** Write queued requests now, as far as the sockets take them without blocking
 *  (no poll(), no reads). A failed write fails the node (callbacks run). */
void gr__client_flush(gr__client_t *cl);

/** A request's `records` field (gr_bytes_t) may point at caller memory instead of being
 *  copied into the request: file_backed = true, fd = GR__MEMSEG_FD, off = the address.
 *  The bytes must stay valid and unchanged until the request completes (its callback). */
#define GR__MEMSEG_FD (-1)

/** The node for a broker id known from metadata, or NULL. */
gr__node_t *gr__client_node(gr__client_t *cl, int32_t node_id);
/** A ready node for requests any broker can answer (fewest in flight), or NULL if none
 *  is ready yet; in that case connecting is started on a known broker or on the next
 *  bootstrap server. */
gr__node_t *gr__client_any_node(gr__client_t *cl);
/** True when every bootstrap server and known broker is down and refused its last
 *  unreachable.connect.attempts connection attempts (ECONNREFUSED, unresolvable, no
 *  route): calls that need a broker then fail at once with GR_ERR__ALL_BROKERS_DOWN.
 *  Reconnecting goes on with the backoff, so this turns false on the next attempt. */
bool gr__client_unreachable(const gr__client_t *cl);
/** Fill errbuf with "no broker reachable (<reasons>)" and return GR_ERR__ALL_BROKERS_DOWN. */
gr_err_t gr__client_unreachable_err(gr__client_t *cl, char *errbuf, size_t size);
/** Why no broker could be reached: the last connection errors, for messages. */
const char *gr__client_unreachable_reason(gr__client_t *cl, char *buf, size_t size);

/** Broker ids known from metadata (up to max), returns how many. */
size_t gr__client_brokers(gr__client_t *cl, int32_t *ids, size_t max);
/** Cached topic, or NULL. */
gr__mtopic_t *gr__client_topic(gr__client_t *cl, const char *name);
/** Add name to the topics the client keeps metadata for (the producer's topics). */
gr__mtopic_t *gr__client_want_topic(gr__client_t *cl, const char *name);
/** Ask for a metadata refresh of the wanted topics. It is sent from gr__client_io as
 *  soon as a node is ready (at most one in flight, at least retry.backoff.ms apart). */
void gr__client_request_metadata(gr__client_t *cl);
/** Number of completed metadata answers (to wait for "a newer answer"). */
uint64_t gr__client_metadata_gen(const gr__client_t *cl);

/** Blocking helper for admin-style calls: wait for node (or any ready node if node_id
 *  is INT32_MIN) to be ready, send req at the highest common version of api_key
 *  within [.., max_ver] (-1 = no cap), and run the loop until the answer or the
 *  deadline (monotonic ms). On success *resp points at the decoded response in
 *  arena (strings copied into arena) and *ver holds its version. On failure errbuf
 *  explains (GR_ERR__TIMED_OUT, GR_ERR_UNSUPPORTED_VERSION, transport errors). */
gr_err_t gr__client_call(gr__client_t *cl, int32_t node_id, int16_t api_key, const void *req, int64_t deadline,
                         gr_arena_t *arena, void **resp, int16_t *ver, char *errbuf, size_t errbuf_size);

/** gr__client_call capped at max_ver (-1: no cap): a version below what the node offers when a
 *  newer one would change the protocol (transaction version 1 keeps EndTxn <= v4). */
gr_err_t gr__client_call_max(gr__client_t *cl, int32_t node_id, int16_t api_key, int16_t max_ver, const void *req,
                             int64_t deadline, gr_arena_t *arena, void **resp, int16_t *ver, char *errbuf,
                             size_t errbuf_size);
/** The finalized feature transaction.version the brokers reported (ApiVersions v3+, the
 *  answer with the highest FinalizedFeaturesEpoch wins, as Java's ApiVersions keeps it):
 *  0 if not finalized, -1 while no broker reported finalized features. */
int16_t gr__client_txn_version(const gr__client_t *cl);
/** Record one ApiVersions answer's finalized features (node.c). */
void gr__client_on_features(gr__client_t *cl, int64_t epoch, int16_t txn_version);

/** FindCoordinator for key (key_type 0: a group, 1: a transactional id), retried with
 *  retry.backoff.ms on retriable errors until the deadline; the coordinator becomes a
 *  known node. errbuf explains a failure (coordinator.c). */
gr_err_t gr__client_find_coordinator(gr__client_t *cl, int8_t key_type, const char *key, int64_t deadline,
                                     int32_t *node_id, char *errbuf, size_t size);
/** Read a FindCoordinator answer (version ver) for one key: its error, or GR_ERR_NONE with
 *  the coordinator made a known node and its id in *node_id; *msg the error message. */
gr_err_t gr__coord_from_answer(gr__client_t *cl, int16_t ver, const void *resp, int32_t *node_id, gr_str_t *msg);
/** Forget the callbacks of every pending request whose opaque is opaque (a blocking
 *  caller that gave up); the requests still complete on the wire. */
void gr__client_abandon(gr__client_t *cl, void *opaque);
/** Metadata requests ask the broker to auto-create missing topics (the producer does). */
void gr__client_set_auto_create(gr__client_t *cl, bool on);

/* ---- helpers shared by the client modules ---- */

/** printf into errbuf (NULL-safe); returns err for tail calls. */
#define gr__fmt gr_err_fmt /* base/err.h */
/** Kafka's retriable errors (ERRORS.md "retriable"), plus local transport/timeouts. */
bool gr__err_retriable(gr_err_t err);
/** Arena copy of a wire string as a C string (NULL for null). */
char *gr__str_dup(gr_arena_t *a, gr_str_t s);
/** Client-side supported version range of api_key ([-1,-1] if unused). */
void gr__client_api_range(int16_t api_key, int16_t *min, int16_t *max);

/* internal to client.c / node.c / metadata.c */
gr__node_t *gr__node_new(gr__client_t *cl, int32_t id, const char *host, int port);
void gr__node_free(gr__node_t *node);
void gr__node_set_addr(gr__node_t *node, const char *host, int port);
int gr__node_pollfd(gr__node_t *node, short *events, int64_t *deadline);
void gr__node_on_events(gr__node_t *node, short revents);
void gr__node_check_timeouts(gr__node_t *node, int64_t now);
void gr__node_flush(gr__node_t *node);
void gr__node_forget(gr__node_t *node, void *opaque);
void gr__client_upsert_broker(gr__client_t *cl, int32_t id, const char *host, int port);
void gr__meta_on_response(gr__client_t *cl, int16_t ver, const void *resp);
void gr__meta_maybe_send(gr__client_t *cl);
void gr__meta_free(gr__client_t *cl);

#endif
