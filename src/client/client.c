/* The client core: bootstrap servers, the node set, the poll() loop, the blocking
 * call helper and small shared helpers. See client.h. */
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/jaas.h"
#include "base/clock.h"
#include "client/client_int.h"
#include "proto_msgs.h"

/* The versions this client can encode and understand, per api key. Capped where a
 * newer version changes what we send (Produce v13 addresses topics by id only). */
static const struct {
    int16_t key, min, max;
} gr__api_ranges[] = {
    {GR_API_Produce, 3, 12},
    {GR_API_Metadata, 4, 12},
    {GR_API_ApiVersions, 0, 3},
    {GR_API_InitProducerId, 0, 5},
    {GR_API_AddPartitionsToTxn, 0, 3}, /* the client form; v4+ is the brokers' batched form */
    {GR_API_AddOffsetsToTxn, 0, 4},
    {GR_API_EndTxn, 0, 5},          /* v5: transaction version 2, the epoch bumps (KIP-890) */
    {GR_API_TxnOffsetCommit, 0, 5}, /* producer_txn.c */
    {GR_API_FindCoordinator, 0, 6},
    {GR_API_CreateTopics, 2, 7},
    {GR_API_DeleteTopics, 1, 6},
    {GR_API_CreatePartitions, 0, 3},
    {GR_API_DescribeConfigs, 1, 4},
    {GR_API_AlterConfigs, 0, 2},
    {GR_API_IncrementalAlterConfigs, 0, 1},
    {GR_API_ListGroups, 0, 5},
    {GR_API_DeleteGroups, 0, 3},
    {GR_API_DescribeGroups, 0, 6},
    {GR_API_ConsumerGroupDescribe, 0, 1},
    {GR_API_OffsetFetch, 1, 9},  /* named topics (v10 names them by id) */
    {GR_API_OffsetCommit, 2, 9}, /* admin_coffsets.c */
    {GR_API_OffsetDelete, 0, 0},
    {GR_API_ShareGroupDescribe, 1, 1},
    {GR_API_DescribeShareGroupOffsets, 0, 1},
    {GR_API_AlterShareGroupOffsets, 0, 0},
    {GR_API_DeleteShareGroupOffsets, 0, 0},
    {GR_API_DescribeAcls, 1, 3},
    {GR_API_CreateAcls, 1, 3},
    {GR_API_DeleteAcls, 1, 3}, /* admin_acls.c */
    {GR_API_DescribeClientQuotas, 0, 1},
    {GR_API_AlterClientQuotas, 0, 1},
    {GR_API_DescribeUserScramCredentials, 0, 0},
    {GR_API_AlterUserScramCredentials, 0, 0}, /* admin_quotas.c */
    {GR_API_JoinGroup, 4, 9},
    {GR_API_SyncGroup, 3, 5},
    {GR_API_Heartbeat, 3, 4},
    {GR_API_LeaveGroup, 3, 5},
    {GR_API_ConsumerGroupHeartbeat, 0, 1}, /* the group consumer (consumer_classic.c, consumer_cgh.c) */
    {GR_API_Fetch, 4, 12},
    {GR_API_ListOffsets, 1, 9}, /* the plain consumer (consumer.c) */
    {GR_API_ShareGroupHeartbeat, 1, 1},
    {GR_API_ShareFetch, 1, 2},
    {GR_API_ShareAcknowledge, 1, 2}, /* share_*.c */
    {GR_API_SaslHandshake, 1, 1},
    {GR_API_SaslAuthenticate, 0, 2}, /* node.c, security.protocol=SASL_PLAINTEXT */
};

void gr__client_api_range(int16_t api_key, int16_t *min, int16_t *max) {
    for (size_t i = 0; i < sizeof(gr__api_ranges) / sizeof(gr__api_ranges[0]); i++) {
        if (gr__api_ranges[i].key == api_key) {
            *min = gr__api_ranges[i].min;
            *max = gr__api_ranges[i].max;
            return;
        }
    }
    *min = *max = -1;
}

bool gr__err_retriable(gr_err_t err) {
    switch ((int)err) {
    case 2:
    case 3:
    case 5:
    case 6:
    case 7:
    case 9:
    case 13:
    case 14:
    case 15:
    case 16:
    case 19:
    case 20:
    case 41:
    case 51:
    case 56:
    case 74:
    case 75:
    case 78:
    case 89:
    case 100:
    case 103:
    case GR_ERR__TRANSPORT:
    case GR_ERR__TIMED_OUT:
    case GR_ERR__CLOSED: return true;
    default: return false;
    }
}

char *gr__str_dup(gr_arena_t *a, gr_str_t s) {
    if (s.len < 0) return NULL;
    return gr_arena_strndup(a, s.ptr ? s.ptr : "", (size_t)s.len);
}

static gr__node_t *add_node(gr__client_t *cl, int32_t id, const char *host, int port) {
    if (cl->n_nodes == cl->cap_nodes) {
        cl->cap_nodes = cl->cap_nodes ? cl->cap_nodes * 2 : 8;
        cl->nodes = realloc(cl->nodes, cl->cap_nodes * sizeof(*cl->nodes));
        if (!cl->nodes) abort();
    }
    gr__node_t *node = gr__node_new(cl, id, host, port);
    cl->nodes[cl->n_nodes++] = node;
    return node;
}

/* Parse "host:port" (IPv6 as "[addr]:port"). */
static bool parse_server(const char *s, size_t len, char *host, size_t hsize, int *port) {
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ':') colon = s + i;
    if (!colon || colon == s || colon + 1 == s + len) return false;
    const char *h = s;
    size_t hl = (size_t)(colon - s);
    if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    if (hl >= hsize) return false;
    memcpy(host, h, hl);
    host[hl] = 0;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (end != s + len || p <= 0 || p > 65535) return false;
    *port = (int)p;
    return true;
}

static gr_err_t parse_bootstrap(gr__client_t *cl, char *errstr, size_t size) {
    const char *list = gr__conf_str(cl->conf, GR__CP_BOOTSTRAP_SERVERS);
    int32_t id = -1;
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        size_t n = strcspn(p, ", ");
        char host[256];
        int port;
        if (!parse_server(p, n, host, sizeof(host), &port))
            return gr__fmt(GR_ERR__INVALID_ARG, errstr, size, "Invalid url in bootstrap.servers: %.*s", (int)n, p);
        add_node(cl, id--, host, port);
        p += n;
    }
    cl->n_bootstrap = cl->n_nodes;
    if (!cl->n_bootstrap)
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, size,
                       "bootstrap.servers is empty: set it to host:port[,host:port]");
    return GR_ERR_NONE;
}

/* sasl.jaas.config as the Java clients take it ("...PlainLoginModule required
 * username=\"u\" password=\"p\";"): its username and password fill sasl.username and
 * sasl.password when those are not set, so a Kafka client property file works as is. */
static gr_err_t apply_jaas(gr__client_t *cl, char *errstr, size_t errstr_size) {
    const char *text = gr__conf_str(cl->conf, GR__CP_SASL_JAAS_CONFIG);
    if (!text || !*text) return GR_ERR_NONE;
    gr_jaas_t j;
    char e[300];
    if (gr_jaas_parse(text, strlen(text), &j, e, sizeof(e)))
        return gr__fmt(GR_ERR__INVALID_ARG, errstr, errstr_size, "Invalid sasl.jaas.config: %s", e);
    static const struct {
        gr__cprop_t id;
        const char *key, *name;
    } take[] = {{GR__CP_SASL_USERNAME, "username", "sasl.username"},
                {GR__CP_SASL_PASSWORD, "password", "sasl.password"}};
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; i < 2 && !err; i++) {
        const char *v = gr_jaas_option(&j.entries[0], take[i].key);
        if (v && !gr__conf_is_set(cl->conf, take[i].id))
            err = gr_conf_set(cl->conf, take[i].name, v, errstr, errstr_size);
    }
    gr_jaas_free(&j);
    return err;
}

gr_err_t gr__client_new(const gr_conf_t *conf, gr__client_t **out, char *errstr, size_t errstr_size) {
    gr__client_t *cl = calloc(1, sizeof(*cl));
    if (!cl) abort();
    cl->conf = gr_conf_dup(conf);
    cl->now = gr_clock_mono_ms();
    cl->controller_id = -1;
    cl->feat_epoch = -1;
    gr_err_t err = parse_bootstrap(cl, errstr, errstr_size);
    if (!err) err = apply_jaas(cl, errstr, errstr_size);
    if (!err) err = gr__tls_ctx_new(cl->conf, &cl->tls, errstr, errstr_size);
    if (err) {
        gr__client_destroy(cl);
        return err;
    }
    *out = cl;
    return GR_ERR_NONE;
}

void gr__client_destroy(gr__client_t *cl) {
    if (!cl) return;
    for (size_t i = 0; i < cl->n_nodes; i++) gr__node_free(cl->nodes[i]);
    free(cl->nodes);
    gr__meta_free(cl);
    gr__tls_ctx_free(cl->tls);
    gr_conf_destroy(cl->conf);
    free(cl);
}

const gr_conf_t *gr__client_conf(const gr__client_t *cl) { return cl->conf; }
int64_t gr__client_now(const gr__client_t *cl) { return cl->now; }
int64_t gr__client_tick(gr__client_t *cl) { return cl->now = gr_clock_mono_ms(); }

gr__node_t *gr__client_node(gr__client_t *cl, int32_t node_id) {
    for (size_t i = cl->n_bootstrap; i < cl->n_nodes; i++)
        if (gr__node_id(cl->nodes[i]) == node_id) return cl->nodes[i];
    return NULL;
}

/* Called by metadata.c for every broker of an answer. */
void gr__client_upsert_broker(gr__client_t *cl, int32_t id, const char *host, int port) {
    gr__node_t *node = gr__client_node(cl, id);
    if (node)
        gr__node_set_addr(node, host, port);
    else
        add_node(cl, id, host, port);
}

gr__node_t *gr__client_any_node(gr__client_t *cl) {
    gr__node_t *best = NULL;
    bool brokers = cl->n_nodes > cl->n_bootstrap;
    for (size_t i = 0; i < cl->n_nodes; i++) {
        gr__node_t *n = cl->nodes[i];
        if (gr__node_ready(n) && (!best || gr__node_inflight(n) < gr__node_inflight(best))) best = n;
    }
    if (best) return best;
    /* Nothing ready: connect known brokers, else the bootstrap servers in turn. */
    if (brokers) {
        for (size_t i = cl->n_bootstrap; i < cl->n_nodes; i++) gr__node_connect(cl->nodes[i]);
    }
    gr__node_connect(cl->nodes[cl->next_bootstrap++ % cl->n_bootstrap]);
    return NULL;
}

const char *gr__client_unreachable_reason(gr__client_t *cl, char *buf, size_t size) {
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < cl->n_nodes && off + 1 < size; i++) {
        const char *e = gr__node_last_error(cl->nodes[i]);
        if (!*e) continue;
        int w = snprintf(buf + off, size - off, "%s%s", off ? "; " : "", e);
        if (w < 0) break;
        off += (size_t)w;
    }
    if (!buf[0]) snprintf(buf, size, "no broker answered yet");
    return buf;
}

bool gr__client_unreachable(const gr__client_t *cl) {
    int64_t n = gr__conf_int(cl->conf, GR__CP_UNREACHABLE_ATTEMPTS);
    if (n <= 0) return false;
    for (size_t i = 0; i < cl->n_nodes; i++)
        if (gr__node_refused(cl->nodes[i]) < n) return false;
    return true;
}

gr_err_t gr__client_unreachable_err(gr__client_t *cl, char *errbuf, size_t size) {
    char why[512];
    return gr__fmt(GR_ERR__ALL_BROKERS_DOWN, errbuf, size, "no broker reachable (%s)",
                   gr__client_unreachable_reason(cl, why, sizeof(why)));
}

void gr__client_io(gr__client_t *cl, int timeout_ms) {
    struct pollfd pfd[64];
    gr__node_t *who[64];
    int n = 0;
    gr__client_tick(cl);
    gr__meta_maybe_send(cl);
    int64_t deadline = timeout_ms < 0 ? cl->now + 100 : cl->now + timeout_ms;
    if (deadline > cl->now + 100) deadline = cl->now + 100; /* bounded: backoffs and timers are polled */
    for (size_t i = 0; i < cl->n_nodes && n < 64; i++) {
        gr__node_check_timeouts(cl->nodes[i], cl->now);
        short ev = 0;
        int fd = gr__node_pollfd(cl->nodes[i], &ev, &deadline);
        if (fd < 0) continue;
        pfd[n].fd = fd;
        pfd[n].events = ev;
        pfd[n].revents = 0;
        who[n++] = cl->nodes[i];
    }
    int wait = deadline <= cl->now ? 0 : (int)(deadline - cl->now);
    int rc = poll(pfd, (nfds_t)n, wait);
    gr__client_tick(cl);
    for (int i = 0; rc > 0 && i < n; i++)
        if (pfd[i].revents) gr__node_on_events(who[i], pfd[i].revents);
    for (size_t i = 0; i < cl->n_nodes; i++) gr__node_check_timeouts(cl->nodes[i], cl->now);
    gr__meta_maybe_send(cl);
}

void gr__client_flush(gr__client_t *cl) {
    for (size_t i = 0; i < cl->n_nodes; i++) gr__node_flush(cl->nodes[i]);
}

/* ---- blocking calls ---- */

typedef struct call_state {
    bool done;
    gr_err_t err;
    int16_t ver;
    void *resp;
    gr_arena_t *arena;
    const gr_msg_desc_t *desc;
    char *errbuf;
    size_t errbuf_size;
} call_state_t;

/* Deep-copy a decoded response into the caller's arena: re-encode and decode again
 * from a copy of the bytes that lives in the arena, so strings stay valid. */
static void *copy_resp(gr_arena_t *a, const gr_msg_desc_t *d, int16_t ver, const void *resp) {
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_encode(d, ver, resp, &wb);
    uint8_t *bytes = gr_arena_alloc(a, wb.len + 1);
    memcpy(bytes, wb.mem, wb.len);
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, bytes, wb.len);
    void *obj = gr_arena_alloc(a, d->body->size);
    gr_err_t err = gr_decode(d, ver, &rb, a, obj);
    gr_wbuf_free(&wb);
    return err ? NULL : obj;
}

static void on_call(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    call_state_t *st = opaque;
    st->done = true;
    st->ver = ver;
    if (err) {
        st->err = gr__fmt(err, st->errbuf, st->errbuf_size, "%s", errmsg);
        return;
    }
    st->resp = copy_resp(st->arena, st->desc, ver, resp);
    if (!st->resp) st->err = gr__fmt(GR_ERR__MALFORMED, st->errbuf, st->errbuf_size, "cannot copy %s", st->desc->name);
}

static gr__node_t *wait_node(gr__client_t *cl, int32_t node_id, int64_t deadline) {
    for (;;) {
        gr__node_t *node = node_id == INT32_MIN ? gr__client_any_node(cl) : gr__client_node(cl, node_id);
        if (node && node_id != INT32_MIN && !gr__node_ready(node)) {
            gr__node_connect(node);
            node = NULL;
        }
        if (node) return node;
        if (gr__client_tick(cl) >= deadline || gr__client_unreachable(cl)) return NULL;
        gr__client_io(cl, (int)(deadline - cl->now));
    }
}

gr_err_t gr__client_call(gr__client_t *cl, int32_t node_id, int16_t api_key, const void *req, int64_t deadline,
                         gr_arena_t *arena, void **resp, int16_t *ver, char *errbuf, size_t errbuf_size) {
    return gr__client_call_max(cl, node_id, api_key, -1, req, deadline, arena, resp, ver, errbuf, errbuf_size);
}

gr_err_t gr__client_call_max(gr__client_t *cl, int32_t node_id, int16_t api_key, int16_t max_ver, const void *req,
                             int64_t deadline, gr_arena_t *arena, void **resp, int16_t *ver, char *errbuf,
                             size_t errbuf_size) {
    const gr_msg_desc_t *d = gr_api_response(api_key);
    gr__node_t *node = wait_node(cl, node_id, deadline);
    if (!node && gr__client_unreachable(cl)) return gr__client_unreachable_err(cl, errbuf, errbuf_size);
    if (!node) {
        char why[512];
        return gr__fmt(GR_ERR__TIMED_OUT, errbuf, errbuf_size, "timed out waiting for a broker connection (%s)",
                       gr__client_unreachable_reason(cl, why, sizeof(why)));
    }
    int16_t v = gr__node_version(node, api_key);
    if (max_ver >= 0 && v > max_ver) v = max_ver;
    if (v < 0)
        return gr__fmt(GR_ERR_UNSUPPORTED_VERSION, errbuf, errbuf_size, "broker %s does not support %s",
                       gr__node_name(node), gr_api_request(api_key)->name);
    call_state_t st = {false, GR_ERR_NONE, v, NULL, arena, d, errbuf, errbuf_size};
    gr__node_send(node, api_key, v, req, true, on_call, &st);
    while (!st.done) {
        if (gr__client_tick(cl) >= deadline) {
            /* The request stays queued; its callback must not touch st any more. */
            gr__client_abandon(cl, &st);
            return gr__fmt(GR_ERR__TIMED_OUT, errbuf, errbuf_size, "%s to %s timed out", d->name, gr__node_name(node));
        }
        gr__client_io(cl, (int)(deadline - cl->now));
    }
    *resp = st.resp;
    *ver = st.ver;
    return st.err;
}

void gr__client_abandon(gr__client_t *cl, void *opaque) {
    for (size_t i = 0; i < cl->n_nodes; i++) gr__node_forget(cl->nodes[i], opaque);
}

void gr__client_on_features(gr__client_t *cl, int64_t epoch, int16_t txn_version) {
    if (epoch < 0 || epoch <= cl->feat_epoch) return;
    cl->feat_epoch = epoch;
    cl->feat_txn_ver = txn_version;
}

int16_t gr__client_txn_version(const gr__client_t *cl) { return cl->feat_epoch < 0 ? -1 : cl->feat_txn_ver; }

void gr__client_set_auto_create(gr__client_t *cl, bool on) { cl->auto_create = on; }

size_t gr__client_brokers(gr__client_t *cl, int32_t *ids, size_t max) {
    size_t n = 0;
    for (size_t i = cl->n_bootstrap; i < cl->n_nodes && n < max; i++) ids[n++] = gr__node_id(cl->nodes[i]);
    return n;
}
