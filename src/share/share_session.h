/* Share sessions (spec §2.3) and their epoch rules, written once for ShareFetch and
 * ShareAcknowledge. A session is keyed by (group id, member id) and holds the set of
 * share-partitions the member fetches and the epoch its next request must carry.
 *
 * Epoch rules (Kafka 4.4.0's ShareSessionCache / ShareFetchContext):
 *  - ShareFetch epoch 0 opens a session (replacing an existing one of the same member,
 *    whose records stay owned by the member); piggybacked acknowledgements are then
 *    INVALID_REQUEST; one more session than the capacity is SHARE_SESSION_LIMIT_REACHED
 *    (the replaced one is gone either way).
 *  - ShareAcknowledge epoch 0 is INVALID_SHARE_SESSION_EPOCH (it cannot open a session).
 *  - Any other epoch needs the session (SHARE_SESSION_NOT_FOUND); epoch -1 closes it
 *    after the request's acknowledgements, any other epoch must equal the expected one
 *    (INVALID_SHARE_SESSION_EPOCH) and advances it: e + 1, from INT32_MAX to 1.
 *
 * The cache is pure: an explicit capacity (group.share.max.share.sessions), no broker,
 * no clock (Kafka 4.4.0 evicts a share session only with its connection: there is no
 * idle timeout). The owner is an opaque token (the broker passes the connection that
 * opened the session). Releasing a closed session's records is the caller's job.
 *
 * @locality one thread (the broker's loop thread). */
#ifndef GR_SHARE_SHARE_SESSION_H
#define GR_SHARE_SHARE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/uuid.h"

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
    int32_t epoch; /* the epoch the next request must carry */
    void *owner;   /* opaque: the connection that opened it */
    gr_share_sess_part_t *parts;
    int32_t n, cap;
} gr_share_session_t;

typedef struct gr_share_sessions gr_share_sessions_t;

/** Which request applies the epoch rules. */
typedef enum gr_ss_kind { GR_SS_FETCH, GR_SS_ACK } gr_ss_kind_t;

/** One request's session step input. */
typedef struct gr_ss_request {
    gr_ss_kind_t kind;
    const char *group, *member;
    int32_t epoch;
    bool has_acks; /* ShareFetch: the request carries acknowledgement batches */
    void *owner;   /* ShareFetch epoch 0: the opening connection */
} gr_ss_request_t;

#define GR_SS_EPOCH_OPEN  0
#define GR_SS_EPOCH_FINAL (-1)

/** A cache holding at most capacity sessions (capacity <= 0: 2000, Kafka's default). */
gr_share_sessions_t *gr_share_sessions_new(int32_t capacity);
/** Free the cache and every session in it (no record is released). NULL is a no-op. */
void gr_share_sessions_free(gr_share_sessions_t *ss);
int32_t gr_share_sessions_capacity(const gr_share_sessions_t *ss);
size_t gr_share_sessions_size(const gr_share_sessions_t *ss);

/** The session of (group, member), or NULL. */
gr_share_session_t *gr_share_sessions_find(const gr_share_sessions_t *ss, const char *group, const char *member);
/** Apply the epoch rules above; on success *out is the session (opened, advanced, or to
 *  be closed by the caller after the acknowledgements when epoch is -1). ss may be NULL
 *  (no cache yet): nothing is found, and opening is COORDINATOR_NOT_AVAILABLE. */
gr_err_t gr_share_sessions_step(gr_share_sessions_t *ss, const gr_ss_request_t *rq, gr_share_session_t **out);
/** Whether a request with this epoch closes its session. */
static inline bool gr_share_session_epoch_final(int32_t epoch) { return epoch == GR_SS_EPOCH_FINAL; }
/** Next expected epoch after an accepted request: e + 1, wrapping from INT32_MAX to 1. */
int32_t gr_share_session_next_epoch(int32_t epoch);

/** Remove sess from the cache; the caller frees it with gr_share_session_free. */
void gr_share_sessions_detach(gr_share_sessions_t *ss, gr_share_session_t *sess);
void gr_share_session_free(gr_share_session_t *sess);
/** Detach and return one session owned by owner, NULL when there is none left. */
gr_share_session_t *gr_share_sessions_detach_owned(gr_share_sessions_t *ss, const void *owner);
/** Whether any session of the group is in the cache. */
bool gr_share_sessions_group_has(const gr_share_sessions_t *ss, const char *group);
/** fn(arg, sess) for every session. */
void gr_share_sessions_each(const gr_share_sessions_t *ss, void (*fn)(void *arg, const gr_share_session_t *sess),
                            void *arg);

/** Add a partition (no-op if present); a new one is marked fresh. */
void gr_share_session_add(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition);
/** Remove a partition (ForgottenTopicsData). */
void gr_share_session_forget(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition);
/** Index of a partition in the session, -1 if absent. */
int32_t gr_share_session_index(const gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition);
/** Move the partitions at the given ascending indexes to the end, in order
 *  (those that returned data: fairness, §2.3). */
void gr_share_session_to_end(gr_share_session_t *sess, const int32_t *idx, int32_t n);

#endif
