/* Share sessions: see share_sessions.h. Also the data side's entry points of
 * share_int.h (open/close, member release, partition drop).
 *
 * The sessions live in a small chained hash on (group, member). A session
 * holds no pointers into the share-partitions: requests resolve partitions
 * afresh, so an SP may be dropped and reloaded at any time.
 *
 * @locality loop thread. */
#include "broker/share_sessions.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/log.h"
#include "base/uuid.h"
#include "broker/broker_int.h"
#include "broker/share_parts.h"

#define SESS_BUCKETS 256

struct gr_share_sessions {
    gr_share_session_t *buckets[SESS_BUCKETS];
    size_t n;
};

static size_t sess_hash(const char *group, const char *member) {
    gr_hasher_t h; /* keyed: group and member ids are the clients' choice */
    gr_hasher_init(&h);
    gr_hasher_update(&h, group, strlen(group) + 1); /* the NUL separates the two ids */
    gr_hasher_update(&h, member, strlen(member));
    return (size_t)(gr_hasher_final(&h) % SESS_BUCKETS);
}

gr_share_session_t *gr_share_session_find(gr_broker_t *b, const char *group, const char *member) {
    gr_share_sessions_t *ss = b->share.sessions;
    if (!ss) return NULL;
    for (gr_share_session_t *s = ss->buckets[sess_hash(group, member)]; s; s = s->hnext)
        if (!strcmp(s->group, group) && !strcmp(s->member, member)) return s;
    return NULL;
}

static void sess_unlink(gr_share_sessions_t *ss, gr_share_session_t *sess) {
    gr_share_session_t **pp = &ss->buckets[sess_hash(sess->group, sess->member)];
    while (*pp != sess) pp = &(*pp)->hnext;
    *pp = sess->hnext;
    ss->n--;
}

static void sess_free(gr_share_session_t *sess) {
    free(sess->group);
    free(sess->member);
    free(sess->parts);
    free(sess);
}

gr_err_t gr_share_session_open(gr_broker_t *b, const char *group, const char *member, gr_conn_t *conn,
                               gr_share_session_t **out) {
    gr_share_sessions_t *ss = b->share.sessions;
    if (!ss) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    gr_share_session_t *old = gr_share_session_find(b, group, member);
    if (old) { /* replaced: the old session is simply dropped (§2.3) */
        sess_unlink(ss, old);
        sess_free(old);
    }
    int32_t max = b->cfg->share.max_share_sessions > 0 ? b->cfg->share.max_share_sessions : 2000;
    if (ss->n >= (size_t)max) return GR_ERR_SHARE_SESSION_LIMIT_REACHED;
    gr_share_session_t *sess = calloc(1, sizeof(*sess));
    if (!sess) abort();
    sess->group = strdup(group);
    sess->member = strdup(member);
    if (!sess->group || !sess->member) abort();
    sess->epoch = 1; /* the first epoch a client sends after opening */
    sess->conn = conn;
    size_t h = sess_hash(group, member);
    sess->hnext = ss->buckets[h];
    ss->buckets[h] = sess;
    ss->n++;
    *out = sess;
    return GR_ERR_NONE;
}

void gr_share_session_advance(gr_share_session_t *sess) {
    sess->epoch = sess->epoch == INT32_MAX ? 1 : sess->epoch + 1;
}

int32_t gr_share_session_index(const gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition) {
    for (int32_t i = 0; i < sess->n; i++)
        if (sess->parts[i].partition == partition && gr_uuid_eq(&sess->parts[i].topic_id, topic_id)) return i;
    return -1;
}

void gr_share_session_add(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition) {
    if (gr_share_session_index(sess, topic_id, partition) >= 0) return;
    if (sess->n == sess->cap) {
        sess->cap = sess->cap ? 2 * sess->cap : 8;
        sess->parts = realloc(sess->parts, (size_t)sess->cap * sizeof(*sess->parts));
        if (!sess->parts) abort();
    }
    sess->parts[sess->n++] = (gr_share_sess_part_t){*topic_id, partition, 0, true};
}

void gr_share_session_forget(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition) {
    int32_t i = gr_share_session_index(sess, topic_id, partition);
    if (i < 0) return;
    memmove(&sess->parts[i], &sess->parts[i + 1], (size_t)(sess->n - i - 1) * sizeof(*sess->parts));
    sess->n--;
}

void gr_share_session_to_end(gr_share_session_t *sess, const int32_t *idx, int32_t n) {
    if (n <= 0 || n == sess->n) return;
    gr_share_sess_part_t *tmp = malloc((size_t)sess->n * sizeof(*tmp));
    if (!tmp) abort();
    int32_t k = 0, j = 0;
    for (int32_t i = 0; i < sess->n; i++) {
        if (j < n && idx[j] == i) {
            j++;
            continue;
        }
        tmp[k++] = sess->parts[i];
    }
    for (j = 0; j < n; j++) tmp[k++] = sess->parts[idx[j]];
    memcpy(sess->parts, tmp, (size_t)sess->n * sizeof(*tmp));
    free(tmp);
}

void gr_share_session_close(gr_broker_t *b, gr_share_session_t *sess) {
    sess_unlink(b->share.sessions, sess);
    gr_share_parts_release_member(b, sess->group, sess->member);
    sess_free(sess);
}

static bool group_has_session(gr_share_sessions_t *ss, const char *group) {
    for (size_t i = 0; i < SESS_BUCKETS; i++)
        for (gr_share_session_t *s = ss->buckets[i]; s; s = s->hnext)
            if (!strcmp(s->group, group)) return true;
    return false;
}

void gr_share_sessions_on_close(gr_broker_t *b, gr_conn_t *conn) {
    gr_share_sessions_t *ss = b->share.sessions;
    if (!ss || !ss->n) return;
    for (size_t i = 0; i < SESS_BUCKETS; i++) {
        gr_share_session_t *s = ss->buckets[i];
        while (s) {
            gr_share_session_t *next = s->hnext;
            if (s->conn == conn) { /* treated as a member leave: records released */
                sess_unlink(ss, s);
                gr_share_parts_release_member(b, s->group, s->member);
                if (!group_has_session(ss, s->group)) gr_share_parts_evict_group(b, s->group);
                sess_free(s);
            }
            s = next;
        }
    }
}

size_t gr_share_sessions_count(const gr_broker_t *b) { return b->share.sessions ? b->share.sessions->n : 0; }

void gr_share_sessions_foreach(gr_broker_t *b, void (*fn)(void *arg, const gr_share_session_t *sess), void *arg) {
    gr_share_sessions_t *ss = b->share.sessions;
    if (!ss) return;
    for (size_t i = 0; i < SESS_BUCKETS; i++)
        for (const gr_share_session_t *s = ss->buckets[i]; s; s = s->hnext) fn(arg, s);
}

/* ---------------------------------------------------------------- share_int.h, data side */

gr_err_t gr_share_data_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    (void)errstr;
    (void)errstr_size;
    b->share.sessions = calloc(1, sizeof(*b->share.sessions));
    if (!b->share.sessions) abort();
    return gr_share_parts_open(b);
}

void gr_share_data_close(gr_broker_t *b) {
    gr_share_sessions_t *ss = b->share.sessions;
    if (ss) {
        for (size_t i = 0; i < SESS_BUCKETS; i++) {
            gr_share_session_t *s = ss->buckets[i];
            while (s) {
                gr_share_session_t *next = s->hnext;
                sess_free(s);
                s = next;
            }
        }
        free(ss);
        b->share.sessions = NULL;
    }
    gr_share_parts_close(b);
}

void gr_share_release_member(gr_broker_t *b, const char *group_id, const char *member_id) {
    gr_share_parts_release_member(b, group_id, member_id);
}

void gr_share_drop_partitions(gr_broker_t *b, const char *group_id, const gr_uuid_t *topic_id, int32_t partition) {
    gr_share_parts_drop(b, group_id, topic_id, partition);
}
