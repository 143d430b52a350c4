/* The API handlers, one file per API family, and the dispatch table.
 * Every handler decodes nothing itself: it gets req->body decoded and answers
 * through gr_req_respond (see request.h). @locality loop thread. */
#ifndef GR_BROKER_HANDLERS_H
#define GR_BROKER_HANDLERS_H

#include "broker/request.h"

typedef void (*gr_handler_fn)(gr_req_t *req);

typedef struct gr_handler {
    int16_t api_key;
    int16_t min_ver, max_ver; /* what we implement (and advertise) */
    gr_handler_fn fn;
    /* Advertise from v0 although versions below min_ver are refused (the connection is
     * closed, as for any unsupported version). Kafka 4.x does this for Produce: v0-2 are
     * gone but still advertised, because librdkafka enables features only when the
     * advertised range starts at 0 (KAFKA-18659). */
    bool advertise_from_v0;
} gr_handler_t;

/** The handler for api_key, or NULL. */
const gr_handler_t *gr_handler_find(int16_t api_key);
/** All handlers, for ApiVersions. */
const gr_handler_t *gr_handlers(size_t *n);

void gr_h_api_versions(gr_req_t *req);
/** The UNSUPPORTED_VERSION answer for an ApiVersions version we do not know. */
void gr_h_api_versions_unsupported(gr_req_t *req);
void gr_h_metadata(gr_req_t *req);
void gr_h_describe_cluster(gr_req_t *req);
void gr_h_update_features(gr_req_t *req);
void gr_h_describe_topic_partitions(gr_req_t *req);
void gr_h_produce(gr_req_t *req);
void gr_h_fetch(gr_req_t *req);
void gr_h_list_offsets(gr_req_t *req);
void gr_h_describe_producers(gr_req_t *req);
void gr_h_delete_records(gr_req_t *req);
void gr_h_find_coordinator(gr_req_t *req);
void gr_h_create_topics(gr_req_t *req);
void gr_h_delete_topics(gr_req_t *req);
void gr_h_create_partitions(gr_req_t *req);
void gr_h_describe_configs(gr_req_t *req);
void gr_h_alter_configs(gr_req_t *req);
void gr_h_incremental_alter_configs(gr_req_t *req);
void gr_h_init_producer_id(gr_req_t *req);
void gr_h_add_partitions_to_txn(gr_req_t *req);
void gr_h_add_offsets_to_txn(gr_req_t *req);
void gr_h_end_txn(gr_req_t *req);
void gr_h_txn_offset_commit(gr_req_t *req);
void gr_h_describe_transactions(gr_req_t *req);
void gr_h_list_transactions(gr_req_t *req);
void gr_h_share_fetch(gr_req_t *req);
void gr_h_share_acknowledge(gr_req_t *req);
void gr_h_share_group_heartbeat(gr_req_t *req);
void gr_h_share_group_describe(gr_req_t *req);
void gr_h_consumer_group_heartbeat(gr_req_t *req);
void gr_h_consumer_group_describe(gr_req_t *req);
void gr_h_list_groups(gr_req_t *req);
void gr_h_describe_groups(gr_req_t *req);
void gr_h_delete_groups(gr_req_t *req);
void gr_h_describe_share_group_offsets(gr_req_t *req);
void gr_h_alter_share_group_offsets(gr_req_t *req);
void gr_h_delete_share_group_offsets(gr_req_t *req);
void gr_h_sasl_handshake(gr_req_t *req);
void gr_h_sasl_authenticate(gr_req_t *req);
void gr_h_describe_user_scram_credentials(gr_req_t *req);
void gr_h_alter_user_scram_credentials(gr_req_t *req);
void gr_h_describe_client_quotas(gr_req_t *req);
void gr_h_alter_client_quotas(gr_req_t *req);
void gr_h_create_acls(gr_req_t *req);
void gr_h_describe_acls(gr_req_t *req);
void gr_h_delete_acls(gr_req_t *req);
void gr_h_join_group(gr_req_t *req);
void gr_h_sync_group(gr_req_t *req);
void gr_h_heartbeat(gr_req_t *req);
void gr_h_leave_group(gr_req_t *req);
void gr_h_offset_commit(gr_req_t *req);
void gr_h_offset_fetch(gr_req_t *req);
void gr_h_offset_delete(gr_req_t *req);

#endif
