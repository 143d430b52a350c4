/* The metadata cache: brokers (as nodes of the client) and the topics the client
 * is interested in, with partition leaders and topic ids. Refreshed on request
 * (errors such as NOT_LEADER_OR_FOLLOWER, unknown topics) and every
 * metadata.max.age.ms; at most one Metadata request is in flight. */
#include <stdlib.h>
#include <string.h>

#include "client/client_int.h"
#include "proto_msgs.h"

gr__mtopic_t *gr__client_topic(gr__client_t *cl, const char *name) {
    for (size_t i = 0; i < cl->n_topics; i++)
        if (!strcmp(cl->topics[i]->name, name)) return cl->topics[i];
    return NULL;
}

gr__mtopic_t *gr__client_want_topic(gr__client_t *cl, const char *name) {
    gr__mtopic_t *t = gr__client_topic(cl, name);
    if (t) return t;
    if (cl->n_topics == cl->cap_topics) {
        cl->cap_topics = cl->cap_topics ? cl->cap_topics * 2 : 8;
        cl->topics = realloc(cl->topics, cl->cap_topics * sizeof(*cl->topics));
        if (!cl->topics) abort();
    }
    t = calloc(1, sizeof(*t));
    if (!t) abort();
    t->name = strdup(name);
    if (!t->name) abort();
    cl->topics[cl->n_topics++] = t;
    cl->meta_wanted = true;
    return t;
}

void gr__client_request_metadata(gr__client_t *cl) { cl->meta_wanted = true; }
uint64_t gr__client_metadata_gen(const gr__client_t *cl) { return cl->meta_gen; }

void gr__meta_free(gr__client_t *cl) {
    for (size_t i = 0; i < cl->n_topics; i++) {
        free(cl->topics[i]->name);
        free(cl->topics[i]->parts);
        free(cl->topics[i]);
    }
    free(cl->topics);
    free(cl->cluster_id);
}

static void update_topic(gr__client_t *cl, const gr_MetadataResponse_MetadataResponseTopic_t *mt) {
    gr__mtopic_t *t = NULL;
    for (size_t i = 0; i < cl->n_topics && !t; i++)
        if (gr_str_eq_c(mt->Name, cl->topics[i]->name)) t = cl->topics[i];
    if (!t) return;
    t->err = mt->ErrorCode;
    t->id = mt->TopicId;
    t->internal = mt->IsInternal;
    t->updated_ms = cl->now;
    int32_t n = 0;
    for (int32_t i = 0; i < mt->Partitions.n; i++)
        if (mt->Partitions.v[i].PartitionIndex >= n) n = mt->Partitions.v[i].PartitionIndex + 1;
    if (mt->ErrorCode && n == 0) return; /* keep what we knew: a transient error */
    if (n != t->n_parts) {
        t->parts = realloc(t->parts, (size_t)(n ? n : 1) * sizeof(*t->parts));
        if (!t->parts) abort();
        t->n_parts = n;
    }
    for (int32_t i = 0; i < n; i++) t->parts[i] = (gr__mpart_t){-1, -1, GR_ERR_LEADER_NOT_AVAILABLE};
    for (int32_t i = 0; i < mt->Partitions.n; i++) {
        const gr_MetadataResponse_MetadataResponsePartition_t *mp = &mt->Partitions.v[i];
        if (mp->PartitionIndex < 0) continue;
        t->parts[mp->PartitionIndex] = (gr__mpart_t){mp->LeaderId, mp->LeaderEpoch, mp->ErrorCode};
    }
}

void gr__meta_on_response(gr__client_t *cl, int16_t ver, const void *resp) {
    const gr_MetadataResponse_t *rs = resp;
    for (int32_t i = 0; i < rs->Brokers.n; i++) {
        const gr_MetadataResponse_MetadataResponseBroker_t *b = &rs->Brokers.v[i];
        char host[256];
        int hl = b->Host.len < 0 ? 0 : b->Host.len > 255 ? 255 : b->Host.len;
        memcpy(host, b->Host.ptr, (size_t)hl);
        host[hl] = 0;
        gr__client_upsert_broker(cl, b->NodeId, host, b->Port);
    }
    cl->controller_id = rs->ControllerId;
    for (int32_t i = 0; i < rs->Topics.n; i++) update_topic(cl, &rs->Topics.v[i]);
}

static void on_metadata(gr__client_t *cl, gr_err_t err, const char *errmsg, int16_t ver, void *resp, void *opaque) {
    cl->meta_inflight = false;
    if (err) {
        cl->meta_wanted = true; /* try again after the backoff */
        return;
    }
    gr__meta_on_response(cl, ver, resp);
    cl->meta_last_ok = cl->now;
    cl->meta_gen++;
}

void gr__meta_maybe_send(gr__client_t *cl) {
    if (cl->n_topics && cl->now - cl->meta_last_ok >= gr__conf_int(cl->conf, GR__CP_METADATA_MAX_AGE_MS))
        cl->meta_wanted = true;
    if (!cl->meta_wanted || cl->meta_inflight) return;
    if (cl->now - cl->meta_last_sent < gr__conf_int(cl->conf, GR__CP_RETRY_BACKOFF_MS)) return;
    gr__node_t *node = gr__client_any_node(cl);
    if (!node) return;
    int16_t ver = gr__node_version(node, GR_API_Metadata);
    if (ver < 0) return;
    gr_arena_t a;
    gr_arena_init(&a);
    gr_MetadataRequest_t rq;
    gr_struct_init(&gr_MetadataRequest_sd, &rq);
    rq.AllowAutoTopicCreation = cl->auto_create;
    rq.Topics.n = (int32_t)cl->n_topics;
    rq.Topics.v = gr_struct_alloc(&a, &gr_MetadataRequest_MetadataRequestTopic_sd, rq.Topics.n);
    for (size_t i = 0; i < cl->n_topics; i++) rq.Topics.v[i].Name = gr_str_c(cl->topics[i]->name);
    if (gr__node_send(node, GR_API_Metadata, ver, &rq, true, on_metadata, NULL) == GR_ERR_NONE) {
        cl->meta_inflight = true;
        cl->meta_wanted = false;
        cl->meta_last_sent = cl->now;
    }
    gr_arena_free(&a);
}
