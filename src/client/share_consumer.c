/* The share consumer's public calls (include/gregor/share_consumer.h): construction
 * and configuration checks, subscription, poll with the implicit / explicit
 * acknowledgement rules of the KafkaShareConsumer (spec §8.4), acknowledge,
 * commit_sync / commit_async, wakeup and close. The protocol work is in
 * share_group.c (membership) and share_fetch.c (share sessions). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/uuid.h"
#include "client/share_int.h"
#include "proto_msgs.h"

#define GR__EXPLICIT_UNACKED "All records must be acknowledged in explicit acknowledgement mode."
#define GR__IMPLICIT_ACK     "Implicit acknowledgement of delivery is being used."

gr_err_t gr__share_err(gr_share_consumer_t *c, gr_err_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->errbuf, sizeof(c->errbuf), fmt, ap);
    va_end(ap);
    return err;
}

/* Consumer-group properties that share groups replace by group configs (ShareConsumerConfig). */
static const struct {
    gr__cprop_t id;
    const char *name, *hint;
} refused[] = {
    {GR__CP_ISOLATION_LEVEL, "isolation.level", " (use the group config share.isolation.level)"},
    {GR__CP_AUTO_OFFSET_RESET, "auto.offset.reset", " (use the group config share.auto.offset.reset)"},
    {GR__CP_ENABLE_AUTO_COMMIT, "enable.auto.commit", " (acknowledgements replace offset commits)"},
    {GR__CP_GROUP_INSTANCE_ID, "group.instance.id", ""},
    {GR__CP_PARTITION_ASSIGNMENT_STRATEGY, "partition.assignment.strategy", ""},
    {GR__CP_SESSION_TIMEOUT_MS, "session.timeout.ms", " (use the group config share.session.timeout.ms)"},
    {GR__CP_HEARTBEAT_INTERVAL_MS, "heartbeat.interval.ms", " (use the group config share.heartbeat.interval.ms)"},
    {GR__CP_INTERCEPTOR_CLASSES, "interceptor.classes", ""},
    {GR__CP_GROUP_PROTOCOL, "group.protocol", ""},
    {GR__CP_GROUP_REMOTE_ASSIGNOR, "group.remote.assignor", ""},
    {GR__CP_CONSUMER_FETCH_AHEAD, "gregor.consumer.fetch.ahead", " (use gregor.share.fetch.ahead)"},
};

static gr_err_t check_conf(const gr_conf_t *conf, char *errstr, size_t size) {
    if (gr_conf_scope(conf) != GR_CONF_CONSUMER)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "gr_share_consumer_new needs a GR_CONF_CONSUMER configuration");
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (gr__conf_is_set(conf, refused[i].id))
            return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                           "Configuration '%s' is not supported by the share consumer%s", refused[i].name,
                           refused[i].hint);
    if (!*gr__conf_str(conf, GR__CP_GROUP_ID))
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size, "group.id is required for a share consumer");
    return GR_ERR_NONE;
}

static void read_conf(gr_share_consumer_t *c, const gr_conf_t *conf) {
    c->group_id = strdup(gr__conf_str(conf, GR__CP_GROUP_ID));
    c->rack = strdup(gr__conf_str(conf, GR__CP_CLIENT_RACK));
    if (!c->group_id || !c->rack) abort();
    c->explicit_mode = gr__conf_int(conf, GR__CP_SHARE_ACK_MODE) == 1;
    c->fetch_ahead = gr__conf_int(conf, GR__CP_SHARE_FETCH_AHEAD) != 0;
    c->acquire_mode = (int8_t)gr__conf_int(conf, GR__CP_SHARE_ACQUIRE_MODE);
    c->max_poll_records = (int32_t)gr__conf_int(conf, GR__CP_MAX_POLL_RECORDS);
    c->fetch_max_bytes = (int32_t)gr__conf_int(conf, GR__CP_FETCH_MAX_BYTES);
    c->fetch_min_bytes = (int32_t)gr__conf_int(conf, GR__CP_FETCH_MIN_BYTES);
    c->fetch_max_wait_ms = (int32_t)gr__conf_int(conf, GR__CP_FETCH_MAX_WAIT_MS);
    c->max_poll_interval_ms = (int32_t)gr__conf_int(conf, GR__CP_MAX_POLL_INTERVAL_MS);
    c->default_api_timeout_ms = gr__conf_int(conf, GR__CP_DEFAULT_API_TIMEOUT_MS);
    c->retry_backoff_ms = gr__conf_int(conf, GR__CP_RETRY_BACKOFF_MS);
}

gr_err_t gr_share_consumer_new(const gr_conf_t *conf, gr_share_consumer_t **out, char *errstr, size_t errstr_size) {
    if (!conf || !out) return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size, "conf and out must not be NULL");
    *out = NULL;
    gr_err_t err = check_conf(conf, errstr, errstr_size);
    if (err) return err;
    gr_share_consumer_t *c = calloc(1, sizeof(*c));
    if (!c) abort();
    err = gr__client_new(conf, &c->cl, errstr, errstr_size);
    if (err) {
        free(c);
        return err;
    }
    c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (c->wake_fd < 0) {
        gr__client_destroy(c->cl);
        free(c);
        return gr__fmt(GR_ERR__IO, errstr, errstr_size, "eventfd: %s", strerror(errno));
    }
    read_conf(c, conf);
    gr_uuid_t id = gr_uuid_random();
    gr_uuid_to_base64(&id, c->member_id);
    c->coord_id = -1;
    c->lock_timeout_ms = -1;
    c->send_full = true;
    atomic_init(&c->woken, false);
    gr_wbuf_init(&c->scratch);
    *out = c;
    return GR_ERR_NONE;
}

/* ---- subscription ---- */

static void free_topics(gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->n_topics; i++) free(c->topics[i]);
    free(c->topics);
    c->topics = NULL;
    c->n_topics = 0;
}

gr_err_t gr_share_consumer_subscribe(gr_share_consumer_t *c, const char *const *topics, size_t n) {
    c->errbuf[0] = 0;
    if (c->closed) return gr__share_err(c, GR_ERR__STATE, "This consumer has already been closed.");
    if (n == 0) return gr_share_consumer_unsubscribe(c);
    for (size_t i = 0; i < n; i++)
        if (!topics || !topics[i] || !*topics[i] || strchr(topics[i], ','))
            return gr__share_err(c, GR_ERR__INVALID_ARG,
                                 "Topic collection to subscribe to cannot contain null or empty topic");
    free_topics(c);
    c->topics = malloc(n * sizeof(char *));
    if (!c->topics) abort();
    for (size_t i = 0; i < n; i++) {
        c->topics[i] = strdup(topics[i]);
        if (!c->topics[i]) abort();
        gr__client_want_topic(c->cl, topics[i]);
    }
    c->n_topics = n;
    c->send_full = true; /* the next heartbeat carries the new subscription */
    return GR_ERR_NONE;
}

gr_err_t gr_share_consumer_unsubscribe(gr_share_consumer_t *c) {
    c->errbuf[0] = 0;
    if (c->closed) return gr__share_err(c, GR_ERR__STATE, "This consumer has already been closed.");
    free_topics(c);
    if (c->in_group) c->leaving = true;
    for (size_t i = 0; i < c->n_parts; i++) c->parts[i]->assigned = false;
    return GR_ERR_NONE;
}

size_t gr_share_consumer_subscription_count(const gr_share_consumer_t *c) { return c->n_topics; }
const char *gr_share_consumer_subscription(const gr_share_consumer_t *c, size_t i) {
    return i < c->n_topics ? c->topics[i] : NULL;
}

/* ---- wakeup and I/O ---- */

void gr_share_consumer_wakeup(gr_share_consumer_t *c) {
    atomic_store(&c->woken, true);
    uint64_t one = 1;
    ssize_t w = write(c->wake_fd, &one, sizeof(one));
    (void)w;
}

bool gr__share_woken(gr_share_consumer_t *c) {
    if (!atomic_exchange(&c->woken, false)) return false;
    uint64_t v;
    ssize_t r = read(c->wake_fd, &v, sizeof(v));
    (void)r;
    return true;
}

void gr__share_io(gr_share_consumer_t *c, int64_t deadline, bool fetch) {
    gr__share_group_run(c);
    if (fetch) gr__share_fetch_run(c);
    int64_t left = deadline - gr__client_tick(c->cl);
    gr__client_io(c->cl, left <= 0 ? 0 : left > 50 ? 50 : (int)left);
    gr__share_group_run(c);
}

static void run_callbacks(gr_share_consumer_t *c) {
    if (!c->done.n) return;
    gr_share_ack_result_t res = c->done;
    memset(&c->done, 0, sizeof(c->done));
    if (c->cb) c->cb(c, &res, c->cb_opaque);
    gr__result_clear(&res);
}

static int64_t deadline_of(gr_share_consumer_t *c, int timeout_ms, int64_t dflt) {
    int64_t now = gr__client_tick(c->cl);
    if (timeout_ms < 0) return dflt < 0 ? INT64_MAX : now + dflt;
    return now + timeout_ms;
}

/* ---- acknowledgements of the current batch ---- */

/* Move the batch's recorded acknowledgements to their partitions' pending lists
 * (implicit mode: ACCEPT every record not acknowledged yet). */
static void flush_acks(gr_share_consumer_t *c, bool accept_rest) {
    for (size_t i = 0; i < c->batch.n; i++) {
        gr_share_record_t *r = c->batch.v[i];
        if (accept_rest && r->ack == GR__ACK_NONE) {
            r->ack = GR_ACK_ACCEPT;
            r->st = GR__RS_ACKED;
        }
        if (r->st != GR__RS_ACKED) continue;
        gr__acks_add(&r->part->pending, r->offset, r->ack);
        r->st = GR__RS_SENT;
    }
}

/* Retire the batch: renewed records are kept to be returned again, the others freed. */
static void retire_batch(gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->batch.n; i++) {
        gr_share_record_t *r = c->batch.v[i];
        if (r->ack == GR_ACK_RENEW && r->st == GR__RS_RENEWED) {
            r->ack = GR__ACK_NONE;
            r->st = GR__RS_NEW;
            gr__rlist_push(&c->replay, r);
        } else if (r->ack == GR_ACK_RENEW && r->st == GR__RS_SENT) {
            gr__rlist_push(&c->renewing, r);
        } else {
            free(r);
        }
    }
    c->batch.n = 0;
}

static bool batch_has_unacked(const gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->batch.n; i++)
        if (c->batch.v[i]->ack == GR__ACK_NONE) return true;
    return false;
}

static void take_list(gr_share_consumer_t *c, gr__rlist_t *l) {
    for (gr_share_record_t *r = l->head, *n; r; r = n) {
        n = r->next;
        r->next = NULL;
        gr__batch_push(&c->batch, r);
    }
    l->head = l->tail = NULL;
}

/* ---- poll ---- */

static gr_err_t poll_checks(gr_share_consumer_t *c) {
    if (c->closed) return gr__share_err(c, GR_ERR__STATE, "This consumer has already been closed.");
    if (gr__share_woken(c)) return gr__share_err(c, GR_ERR__WAKEUP, "woken up by gr_share_consumer_wakeup");
    if (c->fatal) return gr__share_err(c, c->fatal, "%s", c->fatal_msg);
    if (!c->n_topics) return gr__share_err(c, GR_ERR__STATE, "Consumer is not subscribed to any topics.");
    if (c->explicit_mode && batch_has_unacked(c)) return gr__share_err(c, GR_ERR__STATE, GR__EXPLICIT_UNACKED);
    return GR_ERR_NONE;
}

gr_err_t gr_share_consumer_poll(gr_share_consumer_t *c, int timeout_ms, gr_share_batch_t **batch) {
    c->errbuf[0] = 0;
    if (batch) *batch = NULL;
    gr_err_t err = poll_checks(c);
    if (err) return err;
    int64_t now = gr__client_tick(c->cl), deadline = deadline_of(c, timeout_ms, -1);
    if (c->last_poll && now - c->last_poll > c->max_poll_interval_ms && c->in_group) {
        c->member_epoch = 0; /* poll interval exceeded: the broker may have dropped us; rejoin */
        c->send_full = true;
    }
    c->last_poll = now;
    c->app_gap_ms = c->returned_at ? now - c->returned_at : -1;
    flush_acks(c, !c->explicit_mode);
    retire_batch(c);
    for (bool first = true;; first = false) {
        run_callbacks(c);
        if (c->replay.head || c->fetched.head) break;
        if (c->fatal) return gr__share_err(c, c->fatal, "%s", c->fatal_msg);
        if (gr__share_woken(c)) return gr__share_err(c, GR_ERR__WAKEUP, "woken up by gr_share_consumer_wakeup");
        if (!first && gr__client_tick(c->cl) >= deadline) break;
        if (!c->ever_ready && gr__client_unreachable(c->cl)) break; /* every address refused: say so now */
        gr__share_io(c, deadline, true);
    }
    take_list(c, &c->replay);
    take_list(c, &c->fetched);
    if (!c->batch.n && !c->ever_ready) {
        char why[512];
        return gr__share_err(c, GR_ERR__ALL_BROKERS_DOWN, "no broker reachable (%s)",
                             gr__client_unreachable_reason(c->cl, why, sizeof(why)));
    }
    c->last_poll = gr__client_now(c->cl);
    c->returned_at = c->batch.n ? gr__client_tick(c->cl) : 0;
    if (batch) *batch = &c->batch;
    return GR_ERR_NONE;
}

/* ---- acknowledge ---- */

static gr_err_t ack_record(gr_share_consumer_t *c, gr_share_record_t *r, gr_ack_type_t type) {
    if (type < GR_ACK_ACCEPT || type > GR_ACK_RENEW)
        return gr__share_err(c, GR_ERR__INVALID_ARG, "invalid acknowledgement type %d", (int)type);
    if (r->st != GR__RS_NEW && r->st != GR__RS_ACKED && r->ack != GR_ACK_RENEW)
        return gr__share_err(c, GR_ERR__STATE, "The record %s-%d@%lld has already been acknowledged.", r->part->topic,
                             (int)r->part->partition, (long long)r->offset);
    if (type == GR_ACK_RENEW && r->part->session) {
        gr__node_t *node = gr__client_node(c->cl, r->part->session->node_id);
        int16_t v = node ? gr__node_version(node, GR_API_ShareAcknowledge) : -1;
        if (v >= 0 && v < 2)
            return gr__share_err(c, GR_ERR_UNSUPPORTED_VERSION, "RENEW needs ShareAcknowledge v2; broker %s offers v%d",
                                 gr__node_name(node), v);
    }
    r->ack = (int8_t)type;
    r->st = GR__RS_ACKED;
    return GR_ERR_NONE;
}

gr_err_t gr_share_consumer_acknowledge(gr_share_consumer_t *c, const gr_share_record_t *rec, gr_ack_type_t type) {
    c->errbuf[0] = 0;
    if (!c->explicit_mode) return gr__share_err(c, GR_ERR__STATE, GR__IMPLICIT_ACK);
    for (size_t i = 0; rec && i < c->batch.n; i++)
        if (c->batch.v[i] == rec) return ack_record(c, c->batch.v[i], type);
    return gr__share_err(c, GR_ERR__STATE, "The record cannot be acknowledged: it is not part of the current batch.");
}

gr_err_t gr_share_consumer_acknowledge_offset(gr_share_consumer_t *c, const char *topic, int32_t partition,
                                              int64_t offset, gr_ack_type_t type) {
    c->errbuf[0] = 0;
    if (!c->explicit_mode) return gr__share_err(c, GR_ERR__STATE, GR__IMPLICIT_ACK);
    for (size_t i = 0; topic && i < c->batch.n; i++) {
        gr_share_record_t *r = c->batch.v[i];
        if (r->offset == offset && r->part->partition == partition && !strcmp(r->part->topic, topic))
            return ack_record(c, r, type);
    }
    return gr__share_err(c, GR_ERR__STATE, "The record %s-%d@%lld is not part of the current batch.",
                         topic ? topic : "(null)", (int)partition, (long long)offset);
}

/* ---- commit ---- */

gr_err_t gr_share_consumer_commit_async(gr_share_consumer_t *c) {
    c->errbuf[0] = 0;
    if (c->closed) return gr__share_err(c, GR_ERR__STATE, "This consumer has already been closed.");
    flush_acks(c, !c->explicit_mode);
    gr__share_ack_run(c, 0, false);
    gr__client_io(c->cl, 0);
    run_callbacks(c);
    return GR_ERR_NONE;
}

static gr_err_t commit_wait(gr_share_consumer_t *c, int64_t deadline) {
    for (;;) {
        c->commit_left += gr__share_ack_run(c, c->commit_seq, false);
        if (!c->commit_left && !gr__share_pending_acks(c)) return GR_ERR_NONE;
        if (gr__share_woken(c)) return gr__share_err(c, GR_ERR__WAKEUP, "woken up by gr_share_consumer_wakeup");
        if (gr__client_tick(c->cl) >= deadline)
            return gr__share_err(c, GR_ERR__TIMED_OUT, "commit_sync timed out waiting for the brokers");
        gr__share_io(c, deadline, false);
    }
}

gr_err_t gr_share_consumer_commit_sync(gr_share_consumer_t *c, int timeout_ms, gr_share_ack_result_t **res) {
    c->errbuf[0] = 0;
    if (res) *res = NULL;
    if (c->closed) return gr__share_err(c, GR_ERR__STATE, "This consumer has already been closed.");
    if (gr__share_woken(c)) return gr__share_err(c, GR_ERR__WAKEUP, "woken up by gr_share_consumer_wakeup");
    flush_acks(c, !c->explicit_mode);
    c->commit_seq++;
    c->commit_left = 0;
    c->commit_res = calloc(1, sizeof(*c->commit_res));
    if (!c->commit_res) abort();
    gr_err_t err = commit_wait(c, deadline_of(c, timeout_ms, c->default_api_timeout_ms));
    gr_share_ack_result_t *r = c->commit_res;
    c->commit_res = NULL;
    c->commit_seq++; /* answers arriving later are not this commit's */
    run_callbacks(c);
    for (size_t i = 0; !err && i < r->n; i++)
        if (r->rows[i].err)
            err = gr__share_err(c, r->rows[i].err, "%s-%d: %s", r->rows[i].topic, (int)r->rows[i].partition,
                                r->rows[i].errstr);
    if (res)
        *res = r;
    else
        gr_share_ack_result_destroy(r);
    return err;
}

void gr_share_consumer_set_commit_cb(gr_share_consumer_t *c, gr_share_commit_cb *cb, void *opaque) {
    c->cb = cb;
    c->cb_opaque = opaque;
}

int32_t gr_share_consumer_acquisition_lock_timeout_ms(const gr_share_consumer_t *c) { return c->lock_timeout_ms; }
const char *gr_share_consumer_last_error(const gr_share_consumer_t *c) { return c->errbuf; }
const char *gr_share_consumer_member_id(const gr_share_consumer_t *c) { return c->member_id; }

/* ---- close ---- */

static bool all_closed(gr_share_consumer_t *c) {
    for (size_t i = 0; i < c->n_leaders; i++)
        if (!c->leaders[i]->closed && c->leaders[i]->epoch > 0) return false;
    return !gr__share_any_inflight(c);
}

gr_err_t gr_share_consumer_close(gr_share_consumer_t *c, int timeout_ms) {
    if (!c || c->closed) return GR_ERR_NONE;
    c->errbuf[0] = 0;
    int64_t deadline = deadline_of(c, timeout_ms, 30000);
    if (c->explicit_mode) flush_acks(c, false); /* implicit mode does not accept the last batch */
    for (size_t i = 0; i < c->n_parts; i++) c->parts[i]->assigned = false; /* no more fetching */
    while (gr__share_any_inflight(c) && gr__client_tick(c->cl) < deadline) gr__share_io(c, deadline, false);
    for (size_t i = 0; i < c->n_leaders; i++) c->leaders[i]->closed = false;
    while (!all_closed(c) && gr__client_tick(c->cl) < deadline) {
        gr__share_ack_run(c, 0, true);
        if (!all_closed(c)) gr__share_io(c, deadline, false);
    }
    bool sessions_done = all_closed(c);
    free_topics(c);
    if (c->in_group && !c->fatal) c->leaving = true;
    while (c->leaving && c->in_group && !c->fatal && gr__client_tick(c->cl) < deadline)
        gr__share_io(c, deadline, false);
    bool left = !c->in_group || c->fatal;
    run_callbacks(c);
    c->closed = true;
    if (!sessions_done || !left)
        return gr__share_err(c, GR_ERR__TIMED_OUT, "close timed out (%s)",
                             !sessions_done ? "share sessions not closed" : "group not left");
    return GR_ERR_NONE;
}

void gr_share_consumer_destroy(gr_share_consumer_t *c) {
    if (!c) return;
    gr_share_consumer_close(c, -1);
    gr__client_destroy(c->cl); /* fails what is still in flight: callbacks still see c */
    for (size_t i = 0; i < c->batch.n; i++) free(c->batch.v[i]);
    free(c->batch.v);
    gr__rlist_free(&c->fetched);
    gr__rlist_free(&c->renewing);
    gr__rlist_free(&c->replay);
    for (size_t i = 0; i < c->n_parts; i++) {
        free(c->parts[i]->topic);
        gr__acks_free(&c->parts[i]->pending);
        free(c->parts[i]);
    }
    free(c->parts);
    for (size_t i = 0; i < c->n_leaders; i++) free(c->leaders[i]);
    free(c->leaders);
    gr__result_clear(&c->done);
    free_topics(c);
    free(c->group_id);
    free(c->rack);
    gr_wbuf_free(&c->scratch);
    close(c->wake_fd);
    free(c);
}
