/* The broker's share sessions: the pure cache and epoch rules of share/share_session.h
 * bound to this broker (its capacity group.share.max.share.sessions, the connection
 * that opens a session as its owner, and the share-partitions whose records a closed
 * session's member releases, §1.3 rule 3). No idle eviction.
 *
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_SESSIONS_H
#define GR_BROKER_SHARE_SESSIONS_H

#include "net/conn.h"
#include "share/share_session.h"

typedef struct gr_broker gr_broker_t;

/** The session of (group, member), or NULL. */
gr_share_session_t *gr_share_session_find(gr_broker_t *b, const char *group, const char *member);
/** The epoch rules of share_session.h for one request (opening is
 *  COORDINATOR_NOT_AVAILABLE before the share data side is open). */
gr_err_t gr_share_session_step(gr_broker_t *b, const gr_ss_request_t *rq, gr_share_session_t **out);
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
