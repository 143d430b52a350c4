/* Client quota enforcement (quotas.h): sensors, throttle times, muting. */
#include "broker/quotas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "broker/broker_int.h"
#include "proto_msgs.h"

typedef struct sensor {
    gr_hnode_t node;
    struct sensor *prev, *next; /* LRU list, most recent first */
    uint8_t type;
    char *user, *client; /* tags; "" when the tag is empty */
    gr_quota_rate_t rate;
    int64_t last_ms;
} sensor_t;

struct gr_broker_quotas {
    gr_quota_store_t store;
    gr_quota_window_t win;
    gr_htab_t map;
    sensor_t *head, *tail;
    size_t n, max;
    size_t n_key[GR_QK__N]; /* user/client-id entities setting each key: 0 skips the lookups */
    gr_quota_stats_t st;
};

static void recount(struct gr_broker_quotas *q) {
    memset(q->n_key, 0, sizeof(q->n_key));
    for (size_t i = 0; i < q->store.n; i++)
        for (int k = 0; k < GR_QK__N; k++) q->n_key[k] += (q->store.e[i].set >> k) & 1;
}

static const gr_quota_key_t TYPE_KEY[GR_QT__N] = {GR_QK_PRODUCER_BYTE_RATE, GR_QK_CONSUMER_BYTE_RATE,
                                                  GR_QK_REQUEST_PERCENTAGE};

static int64_t cfg_int(const gr_broker_t *b, const char *key, int64_t def) {
    const char *v = gr_props_get(&b->cfg->raw, key);
    return v && *v ? atoll(v) : def;
}

gr_err_t gr_broker_quotas_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    struct gr_broker_quotas *q = gr_xcalloc(1, sizeof(*q));
    b->quotas = q;
    gr_htab_init(&q->map, 64);
    int64_t n = cfg_int(b, "quota.window.num", 11), sec = cfg_int(b, "quota.window.size.seconds", 1);
    if (n < 1 || sec < 1) {
        snprintf(errstr, errstr_size, "Invalid value %lld for configuration %s: Value must be at least 1",
                 (long long)(n < 1 ? n : sec), n < 1 ? "quota.window.num" : "quota.window.size.seconds");
        return GR_ERR__INVALID_ARG;
    }
    if (n > GR_QUOTA_MAX_SAMPLES) {
        GR_WARN("quota", "quota.window.num=%lld is more than gregord keeps; using %d", (long long)n,
                GR_QUOTA_MAX_SAMPLES);
        n = GR_QUOTA_MAX_SAMPLES;
    }
    q->win.n_samples = (int)n;
    q->win.window_ms = sec * 1000;
    q->max = (size_t)cfg_int(b, "gregor.quota.max.sensors", GR_QUOTA_DEFAULT_MAX_SENSORS);
    if (q->max < 1) q->max = 1;
    gr_err_t err = gr_quota_store_load(&q->store, b->cfg->log_dir, errstr, errstr_size);
    recount(q);
    return err;
}

static void sensor_unlink(struct gr_broker_quotas *q, sensor_t *s) {
    if (s->prev)
        s->prev->next = s->next;
    else
        q->head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    else
        q->tail = s->prev;
    s->prev = s->next = NULL;
}

static bool sensor_eq(const gr_hnode_t *node, const void *key) { return GR_HTAB_ENTRY(node, sensor_t, node) == key; }

static void sensor_free(struct gr_broker_quotas *q, sensor_t *s) {
    sensor_unlink(q, s);
    gr_htab_unlink(&q->map, gr_htab_slot(&q->map, s->node.hash, sensor_eq, s));
    free(s->user);
    free(s->client);
    free(s);
    q->n--;
}

void gr_broker_quotas_close(gr_broker_t *b) {
    struct gr_broker_quotas *q = b->quotas;
    if (!q) return;
    while (q->head) sensor_free(q, q->head);
    gr_htab_free(&q->map);
    gr_quota_store_free(&q->store);
    free(q);
    b->quotas = NULL;
}

const gr_quota_store_t *gr_broker_quota_store(const gr_broker_t *b) { return &b->quotas->store; }
const gr_quota_window_t *gr_broker_quota_window(const gr_broker_t *b) { return &b->quotas->win; }

/* A changed store changes limits and tags: sensors start over, as Kafka's do when the
 * quota callback's metric tags change. */
void gr_broker_quota_store_replace(gr_broker_t *b, gr_quota_store_t *next) {
    struct gr_broker_quotas *q = b->quotas;
    uint64_t v = q->store.version + 1;
    gr_quota_store_free(&q->store);
    q->store = *next;
    q->store.version = v;
    recount(q);
    while (q->head) sensor_free(q, q->head);
}

gr_quota_stats_t *gr__quota_stats(gr_broker_t *b) { return &b->quotas->st; }

void gr_broker_quota_stats(const gr_broker_t *b, gr_quota_stats_t *out) {
    *out = b->quotas->st;
    out->sensors = b->quotas->n;
}

typedef struct skey {
    uint8_t type;
    const char *user, *client;
} skey_t;

static bool key_eq(const gr_hnode_t *node, const void *key) {
    const sensor_t *s = GR_HTAB_ENTRY(node, sensor_t, node);
    const skey_t *k = key;
    return s->type == k->type && !strcmp(s->user, k->user) && !strcmp(s->client, k->client);
}

static uint64_t key_hash(const skey_t *k) {
    gr_hasher_t h;
    gr_hasher_init(&h);
    gr_hasher_update(&h, &k->type, 1);
    gr_hasher_update(&h, k->user, strlen(k->user) + 1);
    gr_hasher_update(&h, k->client, strlen(k->client) + 1);
    return gr_hasher_final(&h);
}

/* Sensors idle for an hour go (oldest first), and the least recently used one when the
 * table is full. */
static void expire(struct gr_broker_quotas *q, int64_t now) {
    while (q->tail && now - q->tail->last_ms >= GR_QUOTA_SENSOR_EXPIRY_MS) {
        sensor_free(q, q->tail);
        q->st.sensors_expired++;
    }
}

static sensor_t *sensor_get(struct gr_broker_quotas *q, const skey_t *k, int64_t now);

gr_quota_rate_t *gr__quota_rate(gr_broker_t *b, int type, const char *a, const char *c, int64_t now) {
    struct gr_broker_quotas *q = b->quotas;
    expire(q, now);
    skey_t k = {(uint8_t)type, a, c};
    return &sensor_get(q, &k, now)->rate;
}

static sensor_t *sensor_get(struct gr_broker_quotas *q, const skey_t *k, int64_t now) {
    uint64_t h = key_hash(k);
    sensor_t *s = GR_HTAB_ENTRY(*gr_htab_slot(&q->map, h, key_eq, k), sensor_t, node);
    if (s) {
        sensor_unlink(q, s);
    } else {
        if (q->n >= q->max && q->tail) {
            sensor_free(q, q->tail);
            q->st.sensors_evicted++;
        }
        s = gr_xcalloc(1, sizeof(*s));
        s->type = k->type;
        s->user = gr_xstrdup(k->user);
        s->client = gr_xstrdup(k->client);
        gr_quota_rate_init(&s->rate);
        gr_htab_insert(&q->map, &s->node, h);
        q->n++;
    }
    s->last_ms = now;
    s->next = q->head;
    if (q->head) q->head->prev = s;
    q->head = s;
    if (!q->tail) q->tail = s;
    return s;
}

/* The principal's name as Kafka's session.sanitizedUser sees it ("User:alice" -> "alice"). */
static const char *user_of(const gr_req_t *req) {
    const char *p = gr_conn_principal(req->conn), *c = strchr(p, ':');
    return c ? c + 1 : p;
}

static const char *client_of(gr_req_t *req) { return gr_req_cstr(req, req->hdr.client_id); }

/* The sensor and limit of req's pair for one quota type; NULL when no quota applies. */
static sensor_t *resolve(gr_req_t *req, int type, double *limit) {
    struct gr_broker_quotas *q = req->b->quotas;
    if (!q || q->n_key[TYPE_KEY[type]] == 0) return NULL;
    const char *user = user_of(req), *client = client_of(req);
    gr_quota_resolved_t r;
    gr_quota_resolve(&q->store, TYPE_KEY[type], user, client, &r);
    if (!r.has_limit) return NULL;
    int64_t now = gr_loop_now(req->b->loop);
    expire(q, now);
    skey_t k = {(uint8_t)type, r.user_tag ? user : "", r.client_tag ? client : ""};
    *limit = r.limit;
    return sensor_get(q, &k, now);
}

static int64_t record(gr_req_t *req, int type, double value, int64_t max_ms) {
    double limit;
    sensor_t *s = resolve(req, type, &limit);
    if (!s) return 0;
    struct gr_broker_quotas *q = req->b->quotas;
    int64_t t = gr_quota_record_throttle(&s->rate, &q->win, value, limit, max_ms, gr_loop_now(req->b->loop));
    if (t > INT32_MAX) t = INT32_MAX;
    return t;
}

static void unrecord(gr_req_t *req, int type, double value) {
    double limit;
    sensor_t *s = resolve(req, type, &limit);
    if (s) gr_quota_rate_record(&s->rate, &req->b->quotas->win, -value, gr_loop_now(req->b->loop));
}

void gr_broker_quota_handler_start(gr_req_t *req) {
    req->b->quota_cur = req;
    req->handler_us = gr_cm_now_us();
}

/* A request still unanswered when its handler returns (parked): its handler time so far
 * goes into the request sensor now; the answer later adds none. */
void gr_broker_quota_handler_end(gr_broker_t *b, gr_req_t *req) {
    if (b->quota_cur != req) return; /* answered (and maybe freed) already */
    b->quota_cur = NULL;
    double pct = (double)(gr_cm_now_us() - req->handler_us) * 1e-4; /* µs -> percent of a second */
    record(req, GR_QT_REQUEST, pct, 0);
    req->handler_us = 0;
}

int64_t gr_broker_quota_fetch_cap(gr_req_t *req) {
    double limit;
    sensor_t *s = resolve(req, GR_QT_FETCH, &limit);
    if (!s) return INT32_MAX;
    const gr_quota_window_t *w = &req->b->quotas->win;
    double cap = limit * (w->n_samples - 1) * ((double)w->window_ms / 1000.0);
    return cap >= INT32_MAX ? INT32_MAX : (int64_t)cap;
}

/* The response's top-level int32 ThrottleTimeMs, if this version has one; *first: it is
 * the first field on the wire (right after the response header). */
static int32_t *throttle_field(gr_req_t *req, void *resp, bool *first) {
    const gr_struct_desc_t *sd = req->resp_desc->body;
    int16_t v = req->hdr.api_version;
    bool before = false; /* a field of this version precedes it */
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        bool in = v >= f->ver_min && v <= f->ver_max && !(f->tag_min >= 0 && v >= f->tag_min && v <= f->tag_max);
        if (in && !f->is_array && f->type == GR_T_INT32 && !strcmp(f->name, "ThrottleTimeMs")) {
            *first = !before;
            return (int32_t *)((char *)resp + f->offset);
        }
        before |= in;
    }
    return NULL;
}

static gr_array_t *responses_field(gr_req_t *req, void *resp);

/* Did fetch_throttle empty this (Fetch) answer? */
static bool emptied(gr_req_t *req, void *resp) {
    if (!resp || req->hdr.api_key != GR_API_Fetch) return false;
    gr_array_t *rs = responses_field(req, resp);
    return rs && rs->n == 0 && req->quota_emptied;
}

static gr_array_t *responses_field(gr_req_t *req, void *resp) {
    const gr_struct_desc_t *sd = req->resp_desc->body;
    for (uint16_t i = 0; i < sd->n_fields; i++)
        if (sd->fields[i].is_array && !strcmp(sd->fields[i].name, "Responses"))
            return (gr_array_t *)((char *)resp + sd->fields[i].offset);
    return NULL;
}

static void count(struct gr_broker_quotas *q, int type, int64_t ms) {
    if (ms <= 0) return;
    q->st.throttled[type]++;
    q->st.throttle_ms[type] += (uint64_t)ms;
}

/* Request time (and produce bytes), known before encoding. */
static int64_t request_throttle(gr_req_t *req) {
    double pct = 0;
    if (req->b->quota_cur == req) {
        pct = (double)(gr_cm_now_us() - req->handler_us) * 1e-4; /* µs -> percent of a second */
        req->b->quota_cur = NULL;
    }
    return record(req, GR_QT_REQUEST, pct, req->b->quotas->win.window_ms); /* bounded by one window */
}

/* Fetch bytes, known once encoded. A throttled Fetch is answered empty and its bytes are
 * unrecorded (Kafka); a ShareFetch keeps its records (they are acquired already), so its
 * bytes stay recorded. */
static int64_t fetch_throttle(gr_req_t *req, void *resp, const gr_wbuf_t *wb, int64_t t_other) {
    double bytes = (double)gr_wbuf_size(wb);
    int64_t tb = record(req, GR_QT_FETCH, bytes, 0);
    if (req->hdr.api_key == GR_API_Fetch && (tb > 0 || t_other > 0)) {
        unrecord(req, GR_QT_FETCH, bytes);
        gr_array_t *rs = responses_field(req, resp);
        if (rs && rs->n > 0) {
            rs->n = 0;
            req->quota_emptied = true;
        }
    }
    return tb;
}

/* Kafka answers the larger throttle time and counts it against the quota that gave it. */
void gr_broker_quota_on_response(gr_req_t *req, void *resp, gr_wbuf_t *wb) {
    struct gr_broker_quotas *q = req->b->quotas;
    if (!q || q->store.n == 0) {
        if (q && req->b->quota_cur == req) req->b->quota_cur = NULL;
        return;
    }
    int16_t api = req->hdr.api_key;
    int64_t t[GR_QT__N] = {0};
    t[GR_QT_REQUEST] = request_throttle(req);
    if (api == GR_API_Produce) t[GR_QT_PRODUCE] = record(req, GR_QT_PRODUCE, (double)req->frame_len, 0);
    bool fetch = resp && (api == GR_API_Fetch || api == GR_API_ShareFetch);
    if (fetch) t[GR_QT_FETCH] = fetch_throttle(req, resp, wb, t[GR_QT_REQUEST]);
    int worst = GR_QT_REQUEST;
    for (int i = 0; i < GR_QT__N; i++)
        if (t[i] > t[worst]) worst = i;
    if (t[worst] <= 0) return;
    count(q, worst, t[worst]);
    bool first = false;
    int32_t *tf = resp ? throttle_field(req, resp, &first) : NULL;
    if (tf && t[worst] > *tf) *tf = (int32_t)t[worst];
    if (emptied(req, resp)) { /* a throttled Fetch: encode it again without its records */
        gr_wbuf_free(wb);
        gr_req_encode_into(req, resp, wb);
    } else if (tf && first) { /* patched in place: a ShareFetch's file-backed records are encoded once */
        size_t hdr = gr_resp_header_version(api, req->hdr.api_version) >= 1 ? 5 : 4;
        gr_wbuf_patch_i32(wb, 4 + hdr, *tf);
    } else if (tf) { /* ThrottleTimeMs further in (Produce): these answers hold no file data */
        gr_wbuf_free(wb);
        gr_req_encode_into(req, resp, wb);
    }
    gr_conn_mute(req->conn, t[worst]);
}
