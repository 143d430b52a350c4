/* Share sessions on this broker: see share_sessions.h. Also the data side's entry
 * points of share_int.h (open/close, member release, partition drop).
 *
 * @locality loop thread. */
#include "broker/share_sessions.h"

#include "broker/broker_int.h"
#include "broker/share_parts.h"

gr_share_session_t *gr_share_session_find(gr_broker_t *b, const char *group, const char *member) {
    return gr_share_sessions_find(b->share.sessions, group, member);
}

gr_err_t gr_share_session_step(gr_broker_t *b, const gr_ss_request_t *rq, gr_share_session_t **out) {
    return gr_share_sessions_step(b->share.sessions, rq, out);
}

void gr_share_session_close(gr_broker_t *b, gr_share_session_t *sess) {
    gr_share_sessions_detach(b->share.sessions, sess);
    gr_share_parts_release_member(b, sess->group, sess->member);
    gr_share_session_free(sess);
}

void gr_share_sessions_on_close(gr_broker_t *b, gr_conn_t *conn) {
    gr_share_session_t *s;
    while ((s = gr_share_sessions_detach_owned(b->share.sessions, conn))) { /* a member leave: records released */
        gr_share_parts_release_member(b, s->group, s->member);
        if (!gr_share_sessions_group_has(b->share.sessions, s->group)) gr_share_parts_evict_group(b, s->group);
        gr_share_session_free(s);
    }
}

size_t gr_share_sessions_count(const gr_broker_t *b) { return gr_share_sessions_size(b->share.sessions); }

void gr_share_sessions_foreach(gr_broker_t *b, void (*fn)(void *arg, const gr_share_session_t *sess), void *arg) {
    gr_share_sessions_each(b->share.sessions, fn, arg);
}

/* ---------------------------------------------------------------- share_int.h, data side */

gr_err_t gr_share_data_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    (void)errstr;
    (void)errstr_size;
    b->share.sessions = gr_share_sessions_new(b->cfg->share.max_share_sessions);
    return gr_share_parts_open(b);
}

void gr_share_data_close(gr_broker_t *b) {
    gr_share_sessions_free(b->share.sessions);
    b->share.sessions = NULL;
    gr_share_parts_close(b);
}

void gr_share_release_member(gr_broker_t *b, const char *group_id, const char *member_id) {
    gr_share_parts_release_member(b, group_id, member_id);
}

void gr_share_drop_partitions(gr_broker_t *b, const char *group_id, const gr_uuid_t *topic_id, int32_t partition) {
    gr_share_parts_drop(b, group_id, topic_id, partition);
}
