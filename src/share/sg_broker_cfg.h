/* The broker's group.share.* values the share-group logic reads: defaults and bounds of
 * the per-group configs (gr_sgc_*; also their group.consumer.* ones), the member cap and the initialize retry interval
 * (registry). the server's config.c parses them; the broker passes them in, so src/share
 * needs nothing from src/server. Plain values; read-only after start-up. */
#ifndef GR_SHARE_SG_BROKER_CFG_H
#define GR_SHARE_SG_BROKER_CFG_H

#include <stdint.h>

typedef struct gr_sg_broker_cfg {
    int32_t delivery_count_limit, min_delivery_count_limit, max_delivery_count_limit;
    int32_t record_lock_duration_ms, min_record_lock_duration_ms, max_record_lock_duration_ms;
    int32_t partition_max_record_locks, min_partition_max_record_locks, max_partition_max_record_locks;
    int32_t session_timeout_ms, min_session_timeout_ms, max_session_timeout_ms;
    int32_t heartbeat_interval_ms, min_heartbeat_interval_ms, max_heartbeat_interval_ms;
    int32_t assignment_interval_ms, min_assignment_interval_ms, max_assignment_interval_ms;
    /* group.consumer.* (KIP-848): defaults and bounds of the consumer.* group configs */
    int32_t cons_session_timeout_ms, min_cons_session_timeout_ms, max_cons_session_timeout_ms;
    int32_t cons_heartbeat_interval_ms, min_cons_heartbeat_interval_ms, max_cons_heartbeat_interval_ms;
    int32_t cons_assignment_interval_ms, min_cons_assignment_interval_ms, max_cons_assignment_interval_ms;
    int32_t max_size; /* group.share.max.size */
    int32_t initialize_retry_interval_ms;
} gr_sg_broker_cfg_t;

#endif
