/* Share sessions and their epoch rules: see share_session.h.
 *
 * The sessions live in a small chained hash on (group, member), keyed so that clients
 * cannot choose colliding ids. A session holds no pointers into the share-partitions:
 * requests resolve partitions afresh, so an SP may be dropped and reloaded at any time. */
#include "share/share_session.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

#define SESS_BUCKETS          256
#define SESS_DEFAULT_CAPACITY 2000 /* group.share.max.share.sessions default */

struct gr_share_sessions {
    gr_share_session_t *buckets[SESS_BUCKETS];
    size_t n;
    int32_t capacity;
};

static size_t sess_hash(const char *group, const char *member) {
    gr_hasher_t h; /* keyed: group and member ids are the clients' choice */
    gr_hasher_init(&h);
    gr_hasher_update(&h, group, strlen(group) + 1); /* the NUL separates the two ids */
    gr_hasher_update(&h, member, strlen(member));
    return (size_t)(gr_hasher_final(&h) % SESS_BUCKETS);
}

gr_share_sessions_t *gr_share_sessions_new(int32_t capacity) {
    gr_share_sessions_t *ss = gr_xcalloc(1, sizeof(*ss));
    ss->capacity = capacity > 0 ? capacity : SESS_DEFAULT_CAPACITY;
    return ss;
}

void gr_share_session_free(gr_share_session_t *sess) {
    if (!sess) return;
    free(sess->group);
    free(sess->member);
    free(sess->parts);
    free(sess);
}

void gr_share_sessions_free(gr_share_sessions_t *ss) {
    if (!ss) return;
    for (size_t i = 0; i < SESS_BUCKETS; i++) {
        gr_share_session_t *s = ss->buckets[i];
        while (s) {
            gr_share_session_t *next = s->hnext;
            gr_share_session_free(s);
            s = next;
        }
    }
    free(ss);
}

int32_t gr_share_sessions_capacity(const gr_share_sessions_t *ss) { return ss->capacity; }

size_t gr_share_sessions_size(const gr_share_sessions_t *ss) { return ss ? ss->n : 0; }

gr_share_session_t *gr_share_sessions_find(const gr_share_sessions_t *ss, const char *group, const char *member) {
    if (!ss) return NULL;
    for (gr_share_session_t *s = ss->buckets[sess_hash(group, member)]; s; s = s->hnext)
        if (!strcmp(s->group, group) && !strcmp(s->member, member)) return s;
    return NULL;
}

void gr_share_sessions_detach(gr_share_sessions_t *ss, gr_share_session_t *sess) {
    gr_share_session_t **pp = &ss->buckets[sess_hash(sess->group, sess->member)];
    while (*pp != sess) pp = &(*pp)->hnext;
    *pp = sess->hnext;
    sess->hnext = NULL;
    ss->n--;
}

/* Epoch 0 of a ShareFetch: a new session, replacing the member's existing one. */
static gr_err_t sess_open(gr_share_sessions_t *ss, const gr_ss_request_t *rq, gr_share_session_t **out) {
    if (!ss) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    gr_share_session_t *old = gr_share_sessions_find(ss, rq->group, rq->member);
    if (old) { /* replaced: the old session is simply dropped (§2.3) */
        gr_share_sessions_detach(ss, old);
        gr_share_session_free(old);
    }
    if (ss->n >= (size_t)ss->capacity) return GR_ERR_SHARE_SESSION_LIMIT_REACHED;
    gr_share_session_t *sess = gr_xcalloc(1, sizeof(*sess));
    sess->group = gr_xstrdup(rq->group);
    sess->member = gr_xstrdup(rq->member);
    sess->epoch = 1; /* the first epoch a client sends after opening */
    sess->owner = rq->owner;
    size_t h = sess_hash(rq->group, rq->member);
    sess->hnext = ss->buckets[h];
    ss->buckets[h] = sess;
    ss->n++;
    *out = sess;
    return GR_ERR_NONE;
}

int32_t gr_share_session_next_epoch(int32_t epoch) { return epoch == INT32_MAX ? 1 : epoch + 1; }

gr_err_t gr_share_sessions_step(gr_share_sessions_t *ss, const gr_ss_request_t *rq, gr_share_session_t **out) {
    *out = NULL;
    if (rq->epoch == GR_SS_EPOCH_OPEN) {
        if (rq->kind == GR_SS_ACK) return GR_ERR_INVALID_SHARE_SESSION_EPOCH;
        if (rq->has_acks) return GR_ERR_INVALID_REQUEST; /* Kafka 4.4.0: ErrorMessage null */
        return sess_open(ss, rq, out);
    }
    gr_share_session_t *sess = gr_share_sessions_find(ss, rq->group, rq->member);
    if (!sess) return GR_ERR_SHARE_SESSION_NOT_FOUND;
    if (rq->epoch != GR_SS_EPOCH_FINAL) {
        if (rq->epoch != sess->epoch) return GR_ERR_INVALID_SHARE_SESSION_EPOCH;
        sess->epoch = gr_share_session_next_epoch(sess->epoch);
    }
    *out = sess;
    return GR_ERR_NONE;
}

gr_share_session_t *gr_share_sessions_detach_owned(gr_share_sessions_t *ss, const void *owner) {
    if (!ss || !ss->n) return NULL;
    for (size_t i = 0; i < SESS_BUCKETS; i++)
        for (gr_share_session_t *s = ss->buckets[i]; s; s = s->hnext)
            if (s->owner == owner) {
                gr_share_sessions_detach(ss, s);
                return s;
            }
    return NULL;
}

bool gr_share_sessions_group_has(const gr_share_sessions_t *ss, const char *group) {
    for (size_t i = 0; ss && i < SESS_BUCKETS; i++)
        for (const gr_share_session_t *s = ss->buckets[i]; s; s = s->hnext)
            if (!strcmp(s->group, group)) return true;
    return false;
}

void gr_share_sessions_each(const gr_share_sessions_t *ss, void (*fn)(void *arg, const gr_share_session_t *sess),
                            void *arg) {
    for (size_t i = 0; ss && i < SESS_BUCKETS; i++)
        for (const gr_share_session_t *s = ss->buckets[i]; s; s = s->hnext) fn(arg, s);
}

/* ---------------------------------------------------------------- partitions */

int32_t gr_share_session_index(const gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition) {
    for (int32_t i = 0; i < sess->n; i++)
        if (sess->parts[i].partition == partition && gr_uuid_eq(&sess->parts[i].topic_id, topic_id)) return i;
    return -1;
}

void gr_share_session_add(gr_share_session_t *sess, const gr_uuid_t *topic_id, int32_t partition) {
    if (gr_share_session_index(sess, topic_id, partition) >= 0) return;
    if (sess->n == sess->cap) {
        sess->cap = sess->cap ? 2 * sess->cap : 8;
        sess->parts = gr_xrealloc(sess->parts, (size_t)sess->cap * sizeof(*sess->parts));
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
    gr_share_sess_part_t *tmp = gr_xmalloc((size_t)sess->n * sizeof(*tmp));
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
