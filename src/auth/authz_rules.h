/* The authorization decision table: for every check an API makes, the operation,
 * the resource type and the error a denial answers, as Apache Kafka 4.4.0's
 * KafkaApis (and its controller for topic creation/deletion and ACLs) does it.
 * Handlers make one call per check (src/broker/authz.c); docs/security.md lists
 * the same table.
 *
 * Pure: static tables and string formatting only. */
#ifndef GR_AUTH_AUTHZ_RULES_H
#define GR_AUTH_AUTHZ_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "auth/acl.h"

typedef enum gr_az {
    GR_AZ_PRODUCE_TXN,                  /* WRITE TRANSACTIONAL_ID: transactional produce */
    GR_AZ_PRODUCE,                      /* WRITE TOPIC */
    GR_AZ_FETCH,                        /* READ TOPIC */
    GR_AZ_FETCH_FOLLOWER,               /* CLUSTER_ACTION CLUSTER: a fetch with a replica id */
    GR_AZ_LIST_OFFSETS,                 /* DESCRIBE TOPIC */
    GR_AZ_METADATA,                     /* DESCRIBE TOPIC: unauthorized topics are hidden or denied */
    GR_AZ_AUTO_CREATE_CLUSTER,          /* CREATE CLUSTER: auto-creation of any topic ... */
    GR_AZ_AUTO_CREATE,                  /* ... or CREATE on that TOPIC */
    GR_AZ_CREATE_TOPICS_CLUSTER,        /* CREATE CLUSTER ... */
    GR_AZ_CREATE_TOPICS,                /* ... or CREATE TOPIC */
    GR_AZ_CREATE_TOPICS_CONFIGS,        /* DESCRIBE_CONFIGS TOPIC: configs in the CreateTopics answer */
    GR_AZ_DELETE_TOPICS_CLUSTER,        /* DELETE CLUSTER: every topic ... */
    GR_AZ_DELETE_TOPICS_DESCRIBE,       /* DESCRIBE TOPIC: tells unknown from unauthorized */
    GR_AZ_DELETE_TOPICS,                /* DELETE TOPIC */
    GR_AZ_CREATE_PARTITIONS,            /* ALTER TOPIC */
    GR_AZ_DELETE_RECORDS,               /* DELETE TOPIC */
    GR_AZ_DESCRIBE_CONFIGS_TOPIC,       /* DESCRIBE_CONFIGS TOPIC */
    GR_AZ_DESCRIBE_CONFIGS_BROKER,      /* DESCRIBE_CONFIGS CLUSTER (BROKER and BROKER_LOGGER resources) */
    GR_AZ_DESCRIBE_CONFIGS_GROUP,       /* DESCRIBE_CONFIGS GROUP */
    GR_AZ_ALTER_CONFIGS_TOPIC,          /* ALTER_CONFIGS TOPIC (AlterConfigs and IncrementalAlterConfigs) */
    GR_AZ_ALTER_CONFIGS_BROKER,         /* ALTER_CONFIGS CLUSTER */
    GR_AZ_ALTER_CONFIGS_GROUP,          /* ALTER_CONFIGS GROUP */
    GR_AZ_INIT_PID_TXN,                 /* WRITE TRANSACTIONAL_ID */
    GR_AZ_INIT_PID_IDEMPOTENT,          /* IDEMPOTENT_WRITE CLUSTER, or WRITE on any TOPIC */
    GR_AZ_FIND_GROUP,                   /* DESCRIBE GROUP */
    GR_AZ_FIND_TXN,                     /* DESCRIBE TRANSACTIONAL_ID */
    GR_AZ_FIND_SHARE,                   /* CLUSTER_ACTION CLUSTER (share-state keys are broker-to-broker) */
    GR_AZ_LIST_GROUPS_CLUSTER,          /* DESCRIBE CLUSTER: every group ... */
    GR_AZ_LIST_GROUPS,                  /* ... else the groups with DESCRIBE GROUP */
    GR_AZ_DESCRIBE_GROUPS,              /* DESCRIBE GROUP */
    GR_AZ_DELETE_GROUPS,                /* DELETE GROUP */
    GR_AZ_SHARE_HEARTBEAT,              /* READ GROUP */
    GR_AZ_SHARE_HEARTBEAT_TOPIC,        /* DESCRIBE TOPIC on every subscribed topic */
    GR_AZ_SHARE_DESCRIBE,               /* DESCRIBE GROUP */
    GR_AZ_SHARE_DESCRIBE_TOPIC,         /* DESCRIBE TOPIC on every assigned topic */
    GR_AZ_SHARE_FETCH,                  /* READ GROUP */
    GR_AZ_SHARE_FETCH_TOPIC,            /* READ TOPIC */
    GR_AZ_SHARE_ACK,                    /* READ GROUP */
    GR_AZ_SHARE_ACK_TOPIC,              /* READ TOPIC */
    GR_AZ_DESCRIBE_SHARE_OFFSETS,       /* DESCRIBE GROUP */
    GR_AZ_DESCRIBE_SHARE_OFFSETS_TOPIC, /* DESCRIBE TOPIC */
    GR_AZ_ALTER_SHARE_OFFSETS,          /* READ GROUP */
    GR_AZ_ALTER_SHARE_OFFSETS_TOPIC,    /* READ TOPIC */
    GR_AZ_DELETE_SHARE_OFFSETS,         /* DELETE GROUP */
    GR_AZ_DELETE_SHARE_OFFSETS_TOPIC,   /* READ TOPIC */
    GR_AZ_DESCRIBE_TOPIC_PARTITIONS,    /* DESCRIBE TOPIC */
    GR_AZ_DESCRIBE_CLUSTER,             /* DESCRIBE CLUSTER: only for ClusterAuthorizedOperations */
    GR_AZ_DESCRIBE_ACLS,                /* DESCRIBE CLUSTER */
    GR_AZ_CREATE_ACLS,                  /* ALTER CLUSTER */
    GR_AZ_DELETE_ACLS,                  /* ALTER CLUSTER */
    GR_AZ_UPDATE_FEATURES,              /* ALTER CLUSTER (Kafka's controller) */
    GR_AZ_DESCRIBE_SCRAM,               /* DESCRIBE CLUSTER */
    GR_AZ_ALTER_SCRAM,                  /* ALTER CLUSTER (Kafka's controller) */
    GR_AZ_JOIN_GROUP,                   /* READ GROUP */
    GR_AZ_SYNC_GROUP,                   /* READ GROUP */
    GR_AZ_HEARTBEAT,                    /* READ GROUP */
    GR_AZ_LEAVE_GROUP,                  /* READ GROUP */
    GR_AZ_OFFSET_COMMIT,                /* READ GROUP */
    GR_AZ_OFFSET_COMMIT_TOPIC,          /* READ TOPIC */
    GR_AZ_OFFSET_FETCH,                 /* DESCRIBE GROUP */
    GR_AZ_OFFSET_FETCH_TOPIC,           /* DESCRIBE TOPIC: named topics denied, all-offsets leaves them out */
    GR_AZ_OFFSET_DELETE,                /* DELETE GROUP */
    GR_AZ_OFFSET_DELETE_TOPIC,          /* READ TOPIC */
    GR_AZ_CONSUMER_HEARTBEAT,           /* READ GROUP */
    GR_AZ_CONSUMER_HEARTBEAT_TOPIC,     /* DESCRIBE TOPIC on every subscribed topic name */
    GR_AZ_CONSUMER_DESCRIBE,            /* DESCRIBE GROUP */
    GR_AZ_CONSUMER_DESCRIBE_TOPIC,      /* DESCRIBE TOPIC on every assigned topic */
    GR_AZ_DESCRIBE_CLIENT_QUOTAS,       /* DESCRIBE_CONFIGS CLUSTER */
    GR_AZ_ALTER_CLIENT_QUOTAS,          /* ALTER_CONFIGS CLUSTER (Kafka's controller) */
    GR_AZ_ADD_PARTITIONS_TXN,           /* WRITE TRANSACTIONAL_ID (AddPartitionsToTxn v0-3) */
    GR_AZ_ADD_PARTITIONS_TOPIC,         /* WRITE TOPIC (AddPartitionsToTxn v0-3) */
    GR_AZ_ADD_PARTITIONS_CLUSTER,       /* CLUSTER_ACTION CLUSTER (AddPartitionsToTxn v4+: broker to broker) */
    GR_AZ_ADD_OFFSETS_TXN,              /* WRITE TRANSACTIONAL_ID */
    GR_AZ_ADD_OFFSETS_GROUP,            /* READ GROUP */
    GR_AZ_END_TXN,                      /* WRITE TRANSACTIONAL_ID */
    GR_AZ_TXN_OFFSET_COMMIT_TXN,        /* WRITE TRANSACTIONAL_ID */
    GR_AZ_TXN_OFFSET_COMMIT_GROUP,      /* READ GROUP */
    GR_AZ_TXN_OFFSET_COMMIT_TOPIC,      /* READ TOPIC */
    GR_AZ_DESCRIBE_TXNS,                /* DESCRIBE TRANSACTIONAL_ID */
    GR_AZ_DESCRIBE_TXNS_TOPIC, /* DESCRIBE TOPIC: topics of a transaction the principal may not see are left out */
    GR_AZ_LIST_TXNS,           /* DESCRIBE TRANSACTIONAL_ID: ids not allowed are left out */
    GR_AZ_N
} gr_az_t;

typedef struct gr_az_rule {
    int16_t api_key; /* the API making the check */
    int8_t op, rtype;
    gr_err_t err; /* answered when denied */
} gr_az_rule_t;

const gr_az_rule_t *gr_az_rule(gr_az_t check);

/** The config-resource checks (DescribeConfigs: describe=true) for a ConfigResource type
 *  (2 TOPIC, 4 BROKER, 8 BROKER_LOGGER, 32 GROUP); GR_AZ_N for types Kafka rejects. */
gr_az_t gr_az_config_check(int8_t config_resource_type, bool describe);

/** The operations Kafka reports in an authorized-operations bitfield for a resource type
 *  (bit = AclOperation code); 0 for types without one. */
int32_t gr_az_supported_ops(int8_t rtype);

/** The client address as Kafka's authorizer sees it (InetAddress.getHostAddress) from a
 *  peer "1.2.3.4:5678" or "[::1]:5678": "1.2.3.4", "0:0:0:0:0:0:0:1". */
void gr_az_host_of(const char *peer, char *out, size_t out_size);

#endif
