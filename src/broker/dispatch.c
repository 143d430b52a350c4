/* The dispatch table: which APIs and versions we implement. ApiVersions
 * advertises exactly this table (intersected with the definitions). */
#include "broker/handlers.h"
#include "proto_msgs.h"

static const gr_handler_t g_handlers[] = {
    {GR_API_Produce, 3, 13, gr_h_produce},
    {GR_API_Fetch, 4, 18, gr_h_fetch},
    {GR_API_ListOffsets, 1, 11, gr_h_list_offsets},
    {GR_API_Metadata, 0, 13, gr_h_metadata},
    {GR_API_FindCoordinator, 0, 6, gr_h_find_coordinator},
    {GR_API_ApiVersions, 0, 5, gr_h_api_versions},
    {GR_API_CreateTopics, 2, 7, gr_h_create_topics},
    {GR_API_DeleteTopics, 1, 6, gr_h_delete_topics},
    {GR_API_DeleteRecords, 0, 2, gr_h_delete_records},
    {GR_API_InitProducerId, 0, 5, gr_h_init_producer_id},
    {GR_API_DescribeConfigs, 1, 4, gr_h_describe_configs},
    {GR_API_AlterConfigs, 0, 2, gr_h_alter_configs},
    {GR_API_CreatePartitions, 0, 3, gr_h_create_partitions},
    {GR_API_IncrementalAlterConfigs, 0, 1, gr_h_incremental_alter_configs},
    {GR_API_DescribeCluster, 0, 2, gr_h_describe_cluster},
    {GR_API_DescribeTopicPartitions, 0, 0, gr_h_describe_topic_partitions},
    {GR_API_ShareFetch, 1, 2, gr_h_share_fetch},
    {GR_API_ShareAcknowledge, 1, 2, gr_h_share_acknowledge},
    {GR_API_DescribeGroups, 0, 6, gr_h_describe_groups},
    {GR_API_ListGroups, 0, 5, gr_h_list_groups},
    {GR_API_DeleteGroups, 0, 3, gr_h_delete_groups},
    {GR_API_ShareGroupHeartbeat, 1, 1, gr_h_share_group_heartbeat},
    {GR_API_ShareGroupDescribe, 1, 1, gr_h_share_group_describe},
    {GR_API_DescribeShareGroupOffsets, 0, 1, gr_h_describe_share_group_offsets},
    {GR_API_AlterShareGroupOffsets, 0, 0, gr_h_alter_share_group_offsets},
    {GR_API_DeleteShareGroupOffsets, 0, 0, gr_h_delete_share_group_offsets},
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
