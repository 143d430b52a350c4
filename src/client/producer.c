/* The producer's public API: construction, send (partitioning and accumulation),
 * poll / flush (I/O and delivery reports), destroy. Network work is in producer_io.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "client/producer_int.h"

struct gr_delivery {
    gr_err_t err;
    const char *errstr;
    const char *topic;
    int32_t partition;
    int64_t offset;
    int64_t ts;
};

struct gr_headers {
    gr_header_t *v;
    size_t n, cap;
};

/* ---- partitioner ---- */

int32_t gr_murmur2(const void *key, size_t len) {
    const uint8_t *data = key;
    const uint32_t m = 0x5bd1e995;
    uint32_t h = 0x9747b28cu ^ (uint32_t)len;
    size_t n4 = len / 4;
    for (size_t i = 0; i < n4; i++) {
        const uint8_t *d = data + i * 4;
        uint32_t k = (uint32_t)d[0] | ((uint32_t)d[1] << 8) | ((uint32_t)d[2] << 16) | ((uint32_t)d[3] << 24);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    const uint8_t *tail = data + (len & ~(size_t)3);
    switch (len % 4) {
    case 3: h ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: h ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1: h ^= tail[0]; h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return (int32_t)h;
}

int32_t gr_partition_for_key(const void *key, size_t len, int32_t partition_count) {
    return (int32_t)(((uint32_t)gr_murmur2(key, len) & 0x7fffffffu) % (uint32_t)partition_count);
}

static uint32_t rnd(gr_producer_t *p) {
    p->rng ^= p->rng << 13;
    p->rng ^= p->rng >> 7;
    p->rng ^= p->rng << 17;
    return (uint32_t)(p->rng >> 16);
}

/* Sticky partitioning (KIP-480/794): stay on one partition, preferably with a known
 * leader, until about batch.size bytes went to it, then move to another. */
static int32_t sticky_partition(gr_producer_t *p, gr__ptopic_t *pt, size_t size) {
    if (pt->sticky < 0 || pt->sticky >= pt->n_parts || pt->sticky_bytes >= (size_t)p->batch_size) {
        int32_t n = pt->n_parts, pick = (int32_t)(rnd(p) % (uint32_t)n);
        for (int32_t i = 0; i < n; i++) {
            int32_t c = (pick + i) % n;
            if (n > 1 && c == pt->sticky) continue;
            if (pt->mt->n_parts > c && pt->mt->parts[c].leader >= 0) {
                pick = c;
                break;
            }
        }
        pt->sticky = pick;
        pt->sticky_bytes = 0;
    }
    pt->sticky_bytes += size;
    return pt->sticky;
}

/* ---- construction ---- */

static gr_err_t check_conf(gr_producer_t *p, const gr_conf_t *conf, char *errstr, size_t size) {
    p->acks = (int)gr__conf_int(conf, GR__CP_ACKS);
    p->idempotent = gr__conf_int(conf, GR__CP_ENABLE_IDEMPOTENCE) != 0;
    p->max_inflight = (int)gr__conf_int(conf, GR__CP_MAX_IN_FLIGHT);
    p->retries = gr__conf_int(conf, GR__CP_RETRIES);
    bool explicit_idem = gr__conf_is_set(conf, GR__CP_ENABLE_IDEMPOTENCE) && p->idempotent;
    if (p->idempotent && p->acks != -1) {
        if (explicit_idem)
            return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                           "Must set acks to all in order to use the idempotent producer. Otherwise we cannot "
                           "guarantee idempotence.");
        p->idempotent = false; /* Kafka: the default gives way to an explicit acks */
    }
    if (p->idempotent && p->max_inflight > 5) {
        if (explicit_idem)
            return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                           "Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent "
                           "producer.");
        p->idempotent = false;
    }
    if (p->idempotent && p->retries == 0) {
        if (explicit_idem)
            return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                           "Must set retries to non-zero when using the idempotent producer.");
        p->idempotent = false;
    }
    return GR_ERR_NONE;
}

gr_err_t gr_producer_new(const gr_conf_t *conf, gr_producer_t **out, char *errstr, size_t errstr_size) {
    if (!conf || !out) return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size, "conf and out must not be NULL");
    *out = NULL;
    if (gr_conf_scope(conf) != GR_CONF_PRODUCER)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size,
                       "gr_producer_new needs a GR_CONF_PRODUCER configuration");
    gr_producer_t *p = calloc(1, sizeof(*p));
    if (!p) abort();
    gr_err_t err = check_conf(p, conf, errstr, errstr_size);
    if (!err) err = gr__txn_new(p, conf, errstr, errstr_size);
    if (!err) err = gr__client_new(conf, &p->cl, errstr, errstr_size);
    if (err) {
        gr__txn_free(p);
        free(p);
        return err;
    }
    p->codec = (int)gr__conf_int(conf, GR__CP_COMPRESSION_TYPE);
    p->linger_ms = gr__conf_int(conf, GR__CP_LINGER_MS);
    p->batch_size = gr__conf_int(conf, GR__CP_BATCH_SIZE);
    if (p->batch_size < 1) p->batch_size = 1;
    p->buffer_memory = gr__conf_int(conf, GR__CP_BUFFER_MEMORY);
    p->max_request = gr__conf_int(conf, GR__CP_MAX_REQUEST_SIZE);
    p->delivery_timeout = gr__conf_int(conf, GR__CP_DELIVERY_TIMEOUT_MS);
    p->backoff_ms = gr__conf_int(conf, GR__CP_RETRY_BACKOFF_MS);
    p->max_block_ms = gr__conf_int(conf, GR__CP_MAX_BLOCK_MS);
    p->ignore_keys = gr__conf_int(conf, GR__CP_PARTITIONER_IGNORE_KEYS) != 0;
    p->pid = -1;
    p->epoch = -1;
    p->rng = (uint64_t)gr_clock_wall_ms() * 0x9E3779B97F4A7C15ull | 1;
    gr__client_set_auto_create(p->cl, true);
    *out = p;
    return GR_ERR_NONE;
}

/* ---- topics ---- */

static void sync_partitions(gr__ptopic_t *pt) {
    int32_t n = pt->mt->n_parts;
    if (n <= pt->n_parts) return;
    pt->parts = realloc(pt->parts, (size_t)n * sizeof(*pt->parts));
    if (!pt->parts) abort();
    for (int32_t i = pt->n_parts; i < n; i++) {
        gr__ppart_t *pp = calloc(1, sizeof(*pp));
        if (!pp) abort();
        pp->pt = pt;
        pp->id = i;
        pt->parts[i] = pp;
    }
    pt->n_parts = n;
}

static gr__ptopic_t *find_topic(gr_producer_t *p, const char *name) {
    for (size_t i = 0; i < p->n_topics; i++)
        if (!strcmp(p->topics[i]->name, name)) return p->topics[i];
    return NULL;
}

static gr__ptopic_t *add_topic(gr_producer_t *p, const char *name) {
    if (p->n_topics == p->cap_topics) {
        p->cap_topics = p->cap_topics ? p->cap_topics * 2 : 8;
        p->topics = realloc(p->topics, p->cap_topics * sizeof(*p->topics));
        if (!p->topics) abort();
    }
    gr__ptopic_t *pt = calloc(1, sizeof(*pt));
    if (!pt) abort();
    pt->name = strdup(name);
    if (!pt->name) abort();
    pt->sticky = -1;
    pt->mt = gr__client_want_topic(p->cl, name);
    p->topics[p->n_topics++] = pt;
    return pt;
}

/* Give up at once when the client knows no broker is reachable (unreachable.connect.attempts):
 * one non-blocking I/O round first, so a reconnect attempt that is due is made. */
static bool known_unreachable(gr__client_t *cl) {
    if (!gr__client_unreachable(cl)) return false;
    gr__client_io(cl, 0);
    return gr__client_unreachable(cl);
}

/* Wait (running I/O) up to max.block.ms until the topic has partitions, or until every
 * broker address refused its connections (then send fails in well under a second, not
 * after max.block.ms for each record; docs/libgregor.md). */
static gr_err_t await_topic(gr_producer_t *p, gr__ptopic_t *pt) {
    int64_t deadline = gr__client_tick(p->cl) + p->max_block_ms;
    while (pt->mt->n_parts == 0) {
        if (known_unreachable(p->cl)) {
            char why[400];
            return gr__fmt(GR_ERR__ALL_BROKERS_DOWN, p->errbuf, sizeof(p->errbuf),
                           "Topic %s not present in metadata: no broker reachable (%s)", pt->name,
                           gr__client_unreachable_reason(p->cl, why, sizeof(why)));
        }
        if (gr__client_tick(p->cl) >= deadline) {
            char why[400];
            if (pt->mt->updated_ms && pt->mt->err)
                snprintf(why, sizeof(why), "%s", gr_err_str((gr_err_t)pt->mt->err));
            else
                gr__client_unreachable_reason(p->cl, why, sizeof(why));
            return gr__fmt(GR_ERR__TIMED_OUT, p->errbuf, sizeof(p->errbuf),
                           "Topic %s not present in metadata after %lld ms (%s)", pt->name, (long long)p->max_block_ms,
                           why);
        }
        gr__client_request_metadata(p->cl);
        gr__producer_drain(p);
        gr__client_io(p->cl, (int)(deadline - gr__client_now(p->cl)));
    }
    sync_partitions(pt);
    return GR_ERR_NONE;
}

/* ---- send ---- */

static gr__pbatch_t *new_batch(gr_producer_t *p, gr__ppart_t *pp) {
    gr__pbatch_t *b = calloc(1, sizeof(*b));
    if (!b) abort();
    b->pp = pp;
    gr_batch_builder_init(&b->bb);
    b->bb.records = gr__producer_buf_get(p);
    /* room for the batch header, written in place when the batch is finished (producer_io.c) */
    gr_wbuf_reserve(&b->bb.records, GR_RECORD_BATCH_OVERHEAD);
    b->bb.records.len = GR_RECORD_BATCH_OVERHEAD;
    b->created_ms = gr__client_now(p->cl);
    b->base_seq = -1;
    b->pid = -1;
    b->base_offset = -1;
    b->log_append_time = -1;
    return b;
}

static size_t record_size(size_t key_len, size_t value_len, const gr_headers_t *h) {
    size_t s = 21 + key_len + value_len; /* varints and attributes, at most */
    for (size_t i = 0; h && i < h->n; i++)
        s += 10 + (size_t)h->v[i].key_len + (size_t)(h->v[i].value_len > 0 ? h->v[i].value_len : 0);
    return s;
}

static gr_err_t send_checks(gr_producer_t *p, size_t size) {
    if (p->closing) return gr__fmt(GR_ERR__STATE, p->errbuf, sizeof(p->errbuf), "the producer is closing");
    if (size + GR_RECORD_BATCH_OVERHEAD > (size_t)p->max_request || size > (size_t)p->buffer_memory)
        return gr__fmt(GR_ERR_MESSAGE_TOO_LARGE, p->errbuf, sizeof(p->errbuf),
                       "The message is %zu bytes when serialized which is larger than %s (%lld)", size,
                       size > (size_t)p->buffer_memory ? "the total memory buffer you have configured with the "
                                                         "buffer.memory configuration"
                                                       : "max.request.size",
                       (long long)(size > (size_t)p->buffer_memory ? p->buffer_memory : p->max_request));
    if (p->used_bytes + size > (size_t)p->buffer_memory)
        return gr__fmt(GR_ERR__QUEUE_FULL, p->errbuf, sizeof(p->errbuf),
                       "buffer.memory (%lld bytes) is full: %zu bytes of records are queued or in flight; call "
                       "gr_producer_poll() to let deliveries complete, then retry",
                       (long long)p->buffer_memory, p->used_bytes);
    return GR_ERR_NONE;
}

static gr_err_t pick_partition(gr_producer_t *p, gr__ptopic_t *pt, int32_t partition, const void *key, size_t key_len,
                               size_t size, int32_t *out) {
    if (partition >= 0) {
        if (partition >= pt->n_parts)
            return gr__fmt(GR_ERR_UNKNOWN_TOPIC_OR_PARTITION, p->errbuf, sizeof(p->errbuf),
                           "Partition %d of topic %s with partition count %d is not present in metadata", partition,
                           pt->name, pt->n_parts);
        *out = partition;
    } else if (key && !p->ignore_keys) {
        *out = gr_partition_for_key(key, key_len, pt->n_parts);
    } else {
        *out = sticky_partition(p, pt, size);
    }
    return GR_ERR_NONE;
}

gr_err_t gr_producer_send(gr_producer_t *p, const char *topic, int32_t partition, const void *key, size_t key_len,
                          const void *value, size_t value_len, const gr_headers_t *headers, int64_t timestamp,
                          gr_delivery_cb *cb, void *opaque) {
    p->errbuf[0] = 0;
    if (!topic || !*topic) return gr__fmt(GR_ERR__INVALID_ARG, p->errbuf, sizeof(p->errbuf), "topic must be set");
    size_t size = record_size(key ? key_len : 0, value ? value_len : 0, headers);
    gr_err_t err = p->txn ? gr__txn_check_send(p) : GR_ERR_NONE;
    if (!err) err = send_checks(p, size);
    if (err) return err;
    gr__ptopic_t *pt = find_topic(p, topic);
    if (!pt) pt = add_topic(p, topic);
    if (pt->n_parts == 0 && (err = await_topic(p, pt))) return err;
    sync_partitions(pt);
    int32_t part = 0;
    if ((err = pick_partition(p, pt, partition, key, key_len, size, &part))) return err;
    gr__ppart_t *pp = pt->parts[part];
    gr__txn_on_append(p, pp);
    bool sealed = false; /* records.len counts the header room */
    if (pp->open && pp->open->bb.records.len + size > (size_t)p->batch_size) {
        gr__producer_seal(p, pp);
        sealed = true;
    }
    if (!pp->open) pp->open = new_batch(p, pp);
    gr__pbatch_t *b = pp->open;
    if (timestamp < 0) timestamp = gr_clock_wall_ms();
    size_t before = b->bb.records.len;
    gr_batch_builder_add(&b->bb, timestamp, key, key ? (int32_t)key_len : -1, value, value ? (int32_t)value_len : -1,
                         headers ? headers->v : NULL, headers ? headers->n : 0);
    if (b->n_msgs == b->cap_msgs) {
        b->cap_msgs = b->cap_msgs ? b->cap_msgs * 2 : 64;
        b->msgs = realloc(b->msgs, (size_t)b->cap_msgs * sizeof(*b->msgs));
        if (!b->msgs) abort();
    }
    b->msgs[b->n_msgs++] = (gr__pmsg_t){cb, opaque, timestamp};
    size_t used = b->bb.records.len - before;
    b->bytes += used;
    p->used_bytes += used;
    p->outstanding++;
    if (b->bb.records.len >= (size_t)p->batch_size) {
        gr__producer_seal(p, pp);
        sealed = true;
    }
    if (sealed) {
        /* A full batch is ready: without waiting for the next poll, read what the sockets
         * have (responses free in-flight slots), send what may go and write it out -- all
         * non-blocking, on this thread. Delivery callbacks still run only in poll / flush. */
        gr__client_io(p->cl, 0);
        gr__producer_drain(p);
    }
    return GR_ERR_NONE;
}

/* ---- delivery reports ---- */

static int serve_done(gr_producer_t *p) {
    int served = 0;
    while (p->done_head) {
        gr__pbatch_t *b = p->done_head;
        p->done_head = b->next;
        if (!p->done_head) p->done_tail = NULL;
        gr_delivery_t d = {b->err, b->errmsg ? b->errmsg : "", b->pp->pt->name, b->pp->id, -1, -1};
        for (int32_t i = 0; i < b->n_msgs; i++) {
            d.offset = b->err || b->base_offset < 0 ? -1 : b->base_offset + i;
            d.ts = b->log_append_time >= 0 ? b->log_append_time : b->msgs[i].ts;
            p->outstanding--;
            served++;
            if (b->msgs[i].cb) b->msgs[i].cb(p, &d, b->msgs[i].opaque);
        }
        free(b->msgs);
        free(b->errmsg);
        free(b);
    }
    return served;
}

static int poll_once(gr_producer_t *p, int64_t deadline) {
    int64_t now = gr__client_tick(p->cl);
    int64_t wake = gr__producer_expire(p);
    gr__producer_drain(p);
    int served = serve_done(p);
    if (served) return served;
    if (wake > deadline) wake = deadline;
    gr__client_io(p->cl, wake > now ? (int)(wake - now) : 0);
    gr__producer_drain(p);
    return serve_done(p);
}

int gr_producer_poll(gr_producer_t *p, int timeout_ms) {
    int64_t deadline = gr__client_tick(p->cl) + (timeout_ms < 0 ? INT32_MAX : timeout_ms);
    int served = 0;
    do {
        served += poll_once(p, deadline);
    } while (!served && gr__client_tick(p->cl) < deadline && (timeout_ms < 0 ? p->outstanding > 0 : 1));
    return served;
}

gr_err_t gr_producer_flush(gr_producer_t *p, int timeout_ms) {
    int64_t deadline = gr__client_tick(p->cl) + (timeout_ms < 0 ? INT64_MAX / 4 : timeout_ms);
    p->flushing = true;
    while (p->outstanding > 0 && gr__client_tick(p->cl) < deadline) poll_once(p, deadline);
    p->flushing = false;
    if (p->outstanding > 0)
        return gr__fmt(GR_ERR__TIMED_OUT, p->errbuf, sizeof(p->errbuf),
                       "flush timed out after %d ms with %zu records outstanding", timeout_ms, p->outstanding);
    return GR_ERR_NONE;
}

size_t gr_producer_outstanding(const gr_producer_t *p) { return p->outstanding; }
const char *gr_producer_last_error(const gr_producer_t *p) { return p->errbuf; }

void gr__producer_fail_unsent(gr_producer_t *p, const char *msg) {
    for (size_t i = 0; i < p->n_topics; i++) {
        gr__ptopic_t *pt = p->topics[i];
        for (int32_t j = 0; j < pt->n_parts; j++) {
            gr__ppart_t *pp = pt->parts[j];
            gr__producer_seal(p, pp);
            while (pp->q_head) {
                gr__pbatch_t *b = pp->q_head;
                pp->q_head = b->next;
                gr__producer_complete(p, b, GR_ERR__TIMED_OUT, msg, -1, -1);
            }
            pp->q_tail = NULL;
        }
    }
}

void gr_producer_destroy(gr_producer_t *p) {
    if (!p) return;
    gr_producer_flush(p, (int)gr__conf_int(gr__client_conf(p->cl), GR__CP_REQUEST_TIMEOUT_MS));
    p->closing = true;
    gr__producer_fail_unsent(p, "the producer was closed before the record was sent");
    gr__client_destroy(p->cl); /* fails in-flight requests: their batches complete with errors */
    serve_done(p);
    for (size_t i = 0; i < p->n_topics; i++) {
        for (int32_t j = 0; j < p->topics[i]->n_parts; j++) free(p->topics[i]->parts[j]);
        free(p->topics[i]->parts);
        free(p->topics[i]->name);
        free(p->topics[i]);
    }
    free(p->topics);
    for (int i = 0; i < p->n_pool; i++) gr_wbuf_free(&p->pool[i]);
    gr_wbuf_free(&p->hdr);
    gr__txn_free(p);
    free(p);
}

/* ---- delivery report accessors ---- */

gr_err_t gr_delivery_error(const gr_delivery_t *d) { return d->err; }
const char *gr_delivery_errstr(const gr_delivery_t *d) { return d->errstr; }
const char *gr_delivery_topic(const gr_delivery_t *d) { return d->topic; }
int32_t gr_delivery_partition(const gr_delivery_t *d) { return d->partition; }
int64_t gr_delivery_offset(const gr_delivery_t *d) { return d->offset; }
int64_t gr_delivery_timestamp(const gr_delivery_t *d) { return d->ts; }

/* ---- headers ---- */

gr_headers_t *gr_headers_new(void) {
    gr_headers_t *h = calloc(1, sizeof(*h));
    if (!h) abort();
    return h;
}

gr_err_t gr_headers_add(gr_headers_t *h, const char *key, const void *value, size_t value_len) {
    if (!h || !key) return GR_ERR__INVALID_ARG;
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 4;
        h->v = realloc(h->v, h->cap * sizeof(*h->v));
        if (!h->v) abort();
    }
    size_t kl = strlen(key);
    uint8_t *mem = malloc(kl + (value ? value_len : 0) + 1);
    if (!mem) abort();
    memcpy(mem, key, kl);
    if (value) memcpy(mem + kl, value, value_len);
    h->v[h->n++] = (gr_header_t){mem, (int32_t)kl, value ? mem + kl : NULL, value ? (int32_t)value_len : -1};
    return GR_ERR_NONE;
}

size_t gr_headers_count(const gr_headers_t *h) { return h ? h->n : 0; }

void gr_headers_destroy(gr_headers_t *h) {
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) free((void *)h->v[i].key);
    free(h->v);
    free(h);
}
