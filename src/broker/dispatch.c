/* The dispatch table: which APIs and versions we implement. ApiVersions
 * advertises exactly this table (intersected with the definitions), except that a
 * handler with advertise_from_v0 is advertised from v0. Maximum versions never go past
 * what Apache Kafka 4.4 advertises (ApiVersions 5, DeleteGroups 3), so clients negotiate
 * the same versions against gregord and Kafka. */
#include "broker/handlers.h"
#include "proto_msgs.h"

static const gr_handler_t g_handlers[] = {
    {GR_API_Produce, 3, 13, gr_h_produce, true},
    {GR_API_Fetch, 4, 18, gr_h_fetch, false},
    {GR_API_ListOffsets, 1, 11, gr_h_list_offsets, false},
    {GR_API_Metadata, 0, 13, gr_h_metadata, false},
    {GR_API_FindCoordinator, 0, 6, gr_h_find_coordinator, false},
    {GR_API_ApiVersions, 0, 5, gr_h_api_versions, false},
    {GR_API_CreateTopics, 2, 7, gr_h_create_topics, false},
    {GR_API_DeleteTopics, 1, 6, gr_h_delete_topics, false},
    {GR_API_DeleteRecords, 0, 2, gr_h_delete_records, false},
    {GR_API_InitProducerId, 0, 5, gr_h_init_producer_id, false},
    {GR_API_AddPartitionsToTxn, 0, 5, gr_h_add_partitions_to_txn, false},
    {GR_API_AddOffsetsToTxn, 0, 4, gr_h_add_offsets_to_txn, false},
    {GR_API_EndTxn, 0, 5, gr_h_end_txn, false},
    {GR_API_TxnOffsetCommit, 0, 6, gr_h_txn_offset_commit, false},
    {GR_API_DescribeTransactions, 0, 0, gr_h_describe_transactions, false},
    {GR_API_ListTransactions, 0, 2, gr_h_list_transactions, false},
    {GR_API_DescribeProducers, 0, 0, gr_h_describe_producers, false},
    {GR_API_DescribeConfigs, 1, 4, gr_h_describe_configs, false},
    {GR_API_AlterConfigs, 0, 2, gr_h_alter_configs, false},
    {GR_API_CreatePartitions, 0, 3, gr_h_create_partitions, false},
    {GR_API_IncrementalAlterConfigs, 0, 1, gr_h_incremental_alter_configs, false},
    {GR_API_DescribeCluster, 0, 2, gr_h_describe_cluster, false},
    {GR_API_UpdateFeatures, 0, 2, gr_h_update_features, false},
    {GR_API_DescribeTopicPartitions, 0, 0, gr_h_describe_topic_partitions, false},
    {GR_API_ShareFetch, 1, 2, gr_h_share_fetch, false},
    {GR_API_ShareAcknowledge, 1, 2, gr_h_share_acknowledge, false},
    {GR_API_OffsetCommit, 2, 10, gr_h_offset_commit, false},
    {GR_API_OffsetFetch, 1, 10, gr_h_offset_fetch, false},
    {GR_API_JoinGroup, 0, 9, gr_h_join_group, false},
    {GR_API_Heartbeat, 0, 4, gr_h_heartbeat, false},
    {GR_API_LeaveGroup, 0, 5, gr_h_leave_group, false},
    {GR_API_SyncGroup, 0, 5, gr_h_sync_group, false},
    {GR_API_OffsetDelete, 0, 0, gr_h_offset_delete, false},
    {GR_API_DescribeGroups, 0, 6, gr_h_describe_groups, false},
    {GR_API_ListGroups, 0, 5, gr_h_list_groups, false},
    {GR_API_DeleteGroups, 0, 3, gr_h_delete_groups, false},
    {GR_API_ConsumerGroupHeartbeat, 0, 1, gr_h_consumer_group_heartbeat, false},
    {GR_API_ConsumerGroupDescribe, 0, 1, gr_h_consumer_group_describe, false},
    {GR_API_ShareGroupHeartbeat, 1, 1, gr_h_share_group_heartbeat, false},
    {GR_API_ShareGroupDescribe, 1, 1, gr_h_share_group_describe, false},
    {GR_API_DescribeShareGroupOffsets, 0, 1, gr_h_describe_share_group_offsets, false},
    {GR_API_AlterShareGroupOffsets, 0, 0, gr_h_alter_share_group_offsets, false},
    {GR_API_DeleteShareGroupOffsets, 0, 0, gr_h_delete_share_group_offsets, false},
    {GR_API_SaslHandshake, 0, 1, gr_h_sasl_handshake, false},
    {GR_API_SaslAuthenticate, 0, 2, gr_h_sasl_authenticate, false},
    {GR_API_DescribeUserScramCredentials, 0, 0, gr_h_describe_user_scram_credentials, false},
    {GR_API_AlterUserScramCredentials, 0, 0, gr_h_alter_user_scram_credentials, false},
    {GR_API_DescribeClientQuotas, 0, 1, gr_h_describe_client_quotas, false},
    {GR_API_AlterClientQuotas, 0, 1, gr_h_alter_client_quotas, false},
    {GR_API_DescribeAcls, 1, 3, gr_h_describe_acls, false},
    {GR_API_CreateAcls, 1, 3, gr_h_create_acls, false},
    {GR_API_DeleteAcls, 1, 3, gr_h_delete_acls, false},
};

const gr_handler_t *gr_handler_find(int16_t api_key) {
    for (size_t i = 0; i < sizeof(g_handlers) / sizeof(g_handlers[0]); i++)
        if (g_handlers[i].api_key == api_key) return &g_handlers[i];
    return NULL;
}

const gr_handler_t *gr_handlers(size_t *n) {
    *n = sizeof(g_handlers) / sizeof(g_handlers[0]);
    return g_handlers;
}
