/* libgregor internals: the client core's struct, shared by client.c, node.c and
 * metadata.c only. Other client modules use client.h. */
#ifndef GR_CLIENT_CLIENT_INT_H
#define GR_CLIENT_CLIENT_INT_H

#include "client/client.h"
#include "client/tls_int.h"

struct gr__client {
    gr_conf_t *conf;
    int64_t now;
    gr__node_t **nodes; /* bootstrap nodes (id < 0) first, then brokers */
    size_t n_nodes, cap_nodes;
    size_t n_bootstrap;
    size_t next_bootstrap; /* round robin over bootstrap servers */
    /* metadata cache */
    gr__mtopic_t **topics;
    size_t n_topics, cap_topics;
    bool meta_wanted;       /* a refresh was asked for */
    bool meta_inflight;     /* a Metadata request is out */
    int64_t meta_last_sent; /* monotonic ms */
    int64_t meta_last_ok;   /* monotonic ms of the last full answer */
    uint64_t meta_gen;      /* completed answers */
    bool auto_create;       /* AllowAutoTopicCreation in Metadata requests */
    int32_t controller_id;
    char *cluster_id;
    gr__tls_ctx_t *tls; /* security.protocol=ssl; NULL for plaintext */
    /* finalized features (ApiVersions v3+), from the answer with the highest epoch */
    int64_t feat_epoch;   /* -1: no broker reported finalized features yet */
    int16_t feat_txn_ver; /* transaction.version, 0 if not finalized */
};

#endif
