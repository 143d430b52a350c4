/* Share sessions (spec §2.3): per (group id, member id) on this broker, the
 * set of share-partitions a share consumer fetches, with the session epoch
 * its next request must carry. Opened by ShareFetch epoch 0, advanced by
 * every accepted request, closed by epoch -1 or when the TCP connection that
 * opened it closes (the member's acquired records are then released, §1.3
 * rule 3). No idle eviction; at most group.share.max.share.sessions.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_SESSIONS_H
#define GR_BROKER_SHARE_SESSIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/conn.h"
#include "proto/codec.h"

typedef struct gr_broker gr_broker_t;

/** One partition of a session. */
typedef struct gr_share_sess_part {
    gr_uuid_t topic_id;
    int32_t partition;
    int16_t last_err; /* ErrorCode of the last response: "recovered from an error" */
    bool fresh;       /* newly added: appears in the next response once */
} gr_share_sess_part_t;

typedef struct gr_share_session {
    struct gr_share_session *hnext;
    char *group, *member;
    int32_t epoch;   /* the epoch the next request must carry */
    gr_conn_t *conn; /* the connection that opened it */
    gr_share_sess_part_t *parts;
    int32_t n, cap;
} gr_share_session_t;

/** The session of (group, member), or NULL. */
gr_share_session_t *gr_share_session_find(gr_broker_t *b, const char *group, const char *member);
/** Epoch 0: open a session for (group, member) on conn, replacing an existing
 *  one (its records stay owned by the member). SHARE_SESSION_LIMIT_REACHED
 *  when the broker already holds group.share.max.share.sessions others. */
gr_err_t gr_share_session_open(gr_broker_t *b, const char *group, const char *member, gr_conn_t *conn,
                               gr_share_session_t **out);
/** After an accepted request: next(e) = e + 1, wrapping from INT32_MAX to 1. */
void gr_share_session_advance(gr_share_session_t *sess);
/** Add a partition (no-op if present); a new one is marked fresh. */
void gr_share_session_add(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition);
/** Remove a partition (ForgottenTopicsData). */
void gr_share_session_forget(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition);
/** Index of a partition in the session, -1 if absent. */
int32_t gr_share_session_index(const gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition);
/** Move the partitions at the given ascending indexes to the end, in order
 *  (those that returned data: fairness, §2.3). */
void gr_share_session_to_end(gr_share_session_t *sess, const int32_t *idx, int32_t n);
/** Remove the session and release every record its member still holds in
 *  the group on this broker (§2.3 epoch -1, §3.2). */
void gr_share_session_close(gr_broker_t *b, gr_share_session_t *sess);
/** A client connection closed: close its sessions as above; a group left
 *  without any session here has its SPs dropped from memory (§2.3). */
void gr_share_sessions_on_close(gr_broker_t *b, gr_conn_t *conn);
/** Number of sessions. */
size_t gr_share_sessions_count(const gr_broker_t *b);
/** fn(arg, sess) for every open session (metrics). */
void gr_share_sessions_foreach(gr_broker_t *b, void (*fn)(void *arg, const gr_share_session_t *sess), void *arg);

#endif
