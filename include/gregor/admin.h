/* libgregor: the admin client.
 *
 * Every call is blocking: it sends its request(s), runs network I/O on the calling
 * thread and returns when the answer is in or timeout_ms has passed (-1 = the
 * default.api.timeout.ms of the configuration), or with GR_ERR__ALL_BROKERS_DOWN as
 * soon as every broker address has refused unreachable.connect.attempts connections
 * in a row (docs/libgregor.md, "No broker reachable").
 *
 * Results come back as an opaque table (gr_admin_result_t): rows of named columns,
 * read with the accessors below. Each call documents its columns. Every row that
 * can fail has an "error" column (a gr_err_t) and an "error_message" column. A call
 * returns:
 *   - a local or transport error (no result is produced: *res is NULL), or
 *   - the first per-row error (the result is still produced, with every row), or
 *   - GR_ERR_NONE.
 * gr_admin_last_error() explains the returned error.
 *
 * Thread-safety: a gr_admin_t is not locked; call it from one thread at a time.
 * Result objects are immutable and may be read from any thread. */
#ifndef GREGOR_ADMIN_H
#define GREGOR_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gregor/conf.h"
#include "gregor/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gr_admin gr_admin_t;
typedef struct gr_admin_result gr_admin_result_t;

/** Kafka config resource types (the wire values). */
typedef enum gr_resource_type {
    GR_RESOURCE_TOPIC = 2,
    GR_RESOURCE_GROUP = 32,
    GR_RESOURCE_BROKER = 4,
} gr_resource_type_t;

/** Flag for calls that can only validate: ask the broker to check and not apply. */
#define GR_ADMIN_VALIDATE_ONLY 1

/** Create an admin client from conf (GR_CONF_ADMIN scope; copied, the caller keeps
 *  and destroys conf). Does not connect yet. GR_ERR__INVALID_ARG + errstr on a bad
 *  configuration. Free with gr_admin_destroy. */
gr_err_t gr_admin_new(const gr_conf_t *conf, gr_admin_t **out, char *errstr, size_t errstr_size);
/** Close connections and free a. Results already returned stay valid. NULL is allowed. */
void gr_admin_destroy(gr_admin_t *a);
/** Explanation of the last error a call on a returned ("" if none); valid until the next call. */
const char *gr_admin_last_error(const gr_admin_t *a);

/* ---- topics ---- */

/** Create n topics, each with partitions partitions (-1 = broker default) and replication
 *  factor rf (-1 = broker default), and the n_configs name/value pairs of configs
 *  (configs[2*i] = name, configs[2*i+1] = value; may be NULL if n_configs is 0).
 *  flags: GR_ADMIN_VALIDATE_ONLY. Columns: topic, topic_id, partitions,
 *  replication_factor, error, error_message. */
gr_err_t gr_admin_create_topics(gr_admin_t *a, const char *const *names, size_t n, int32_t partitions, int16_t rf,
                                const char *const *configs, size_t n_configs, int flags, int timeout_ms,
                                gr_admin_result_t **res);
/** Delete n topics by name. Columns: topic, error, error_message. */
gr_err_t gr_admin_delete_topics(gr_admin_t *a, const char *const *names, size_t n, int timeout_ms,
                                gr_admin_result_t **res);
/** Grow each of n topics to total_count partitions. flags: GR_ADMIN_VALIDATE_ONLY.
 *  Columns: topic, error, error_message. */
gr_err_t gr_admin_create_partitions(gr_admin_t *a, const char *const *names, size_t n, int32_t total_count, int flags,
                                    int timeout_ms, gr_admin_result_t **res);
/** Describe n topics (n == 0: every topic), one row per partition (a topic-level
 *  error gives one row with partition -1). Columns: topic, topic_id (base64, as
 *  Kafka prints it), internal, partition, leader, leader_epoch, replicas and isr
 *  (comma-separated broker ids), error, error_message. */
gr_err_t gr_admin_describe_topics(gr_admin_t *a, const char *const *names, size_t n, int timeout_ms,
                                  gr_admin_result_t **res);

/* ---- configs ---- */

/** Describe the configs of one resource (topic name, broker id as text, group id);
 *  keys: n_keys names to describe, or NULL/0 for all. One row per config.
 *  Columns: resource_type, resource, name, value (NULL for sensitive or unset),
 *  source (Kafka's ConfigSource number: 1 dynamic topic, 4 static broker, 5 default, ...),
 *  read_only, sensitive, error, error_message. */
gr_err_t gr_admin_describe_configs(gr_admin_t *a, gr_resource_type_t type, const char *name, const char *const *keys,
                                   size_t n_keys, int timeout_ms, gr_admin_result_t **res);
/** Replace the whole dynamic config of a resource with n_configs name/value pairs
 *  (Kafka's legacy AlterConfigs: names not listed go back to their default).
 *  flags: GR_ADMIN_VALIDATE_ONLY. Columns: resource_type, resource, error, error_message. */
gr_err_t gr_admin_alter_configs(gr_admin_t *a, gr_resource_type_t type, const char *name, const char *const *configs,
                                size_t n_configs, int flags, int timeout_ms, gr_admin_result_t **res);
/** Incrementally change configs: n_ops triples ops[3*i] = operation ("set", "delete",
 *  "append" or "subtract"), ops[3*i+1] = name, ops[3*i+2] = value (NULL for delete).
 *  flags: GR_ADMIN_VALIDATE_ONLY. Columns: resource_type, resource, error, error_message. */
gr_err_t gr_admin_incremental_alter_configs(gr_admin_t *a, gr_resource_type_t type, const char *name,
                                            const char *const *ops, size_t n_ops, int flags, int timeout_ms,
                                            gr_admin_result_t **res);

/* ---- groups ---- */

/** List the groups of every broker. types: comma-separated group types to keep
 *  ("share", "consumer", "classic", "streams"), or NULL for all. Columns: group,
 *  type, state, protocol_type. */
gr_err_t gr_admin_list_groups(gr_admin_t *a, const char *types, int timeout_ms, gr_admin_result_t **res);
/** Describe n share groups: one row per assigned partition of each member (a member
 *  without assignment, or a group without members, gives one row with NULL/-1 in the
 *  missing columns). Columns: group, state, group_epoch, assignment_epoch, assignor,
 *  member_id, client_id, client_host, member_epoch, topic, partition, coordinator_id and
 *  coordinator (the broker id and "host:port" of the group coordinator that answered),
 *  error, error_message. */
gr_err_t gr_admin_describe_share_groups(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                                        gr_admin_result_t **res);
/** Start offsets of a share group for n topics (n == 0: every topic it has state for),
 *  one row per partition. Columns: group, topic, partition, start_offset, leader_epoch,
 *  lag (-1 if unknown), error, error_message. */
gr_err_t gr_admin_describe_share_group_offsets(gr_admin_t *a, const char *group, const char *const *topics, size_t n,
                                               int timeout_ms, gr_admin_result_t **res);
/** Set the start offset of n partitions of topic for a share group (the group must be
 *  empty). Columns: topic, partition, error, error_message. */
gr_err_t gr_admin_alter_share_group_offsets(gr_admin_t *a, const char *group, const char *topic,
                                            const int32_t *partitions, const int64_t *offsets, size_t n, int timeout_ms,
                                            gr_admin_result_t **res);
/** Delete the share-group state of n topics for a group. Columns: topic, error, error_message. */
gr_err_t gr_admin_delete_share_group_offsets(gr_admin_t *a, const char *group, const char *const *topics, size_t n,
                                             int timeout_ms, gr_admin_result_t **res);
/* ---- consumer groups (classic and KIP-848) ---- */

/** List the consumer groups of every broker, as Kafka's Admin.listGroups with
 *  ListGroupsOptions.forConsumerGroups(): groups whose protocol type is "consumer" or ""
 *  (a simple group that only commits offsets). types: comma-separated group types sent as
 *  the ListGroups v5 filter ("classic", "consumer"), NULL for "classic,consumer"; "" for no
 *  type filter. states: comma-separated states sent as the v4+ filter (case-insensitive,
 *  e.g. "Stable,Empty"), NULL for all; both filters are also applied locally for brokers
 *  too old to filter. Columns: group, type, state, protocol_type (in the brokers' order). */
gr_err_t gr_admin_list_consumer_groups(gr_admin_t *a, const char *types, const char *states, int timeout_ms,
                                       gr_admin_result_t **res);
/** Describe n consumer groups: ConsumerGroupDescribe (KIP-848 groups), falling back to
 *  DescribeGroups for classic groups and brokers without it, as the Java Admin does. One
 *  row per member, or one row for a group without members (member columns NULL) or that
 *  failed. A group that does not exist is state "Dead" without members (as Kafka answers);
 *  a classic group of another protocol type (e.g. "connect") is an INVALID_GROUP_ID row
 *  ("GroupId g is not a consumer group (connect)."). Columns:
 *    group, type ("classic" | "consumer"), state, protocol_type, assignor (the classic
 *    group's protocol or the consumer group's server assignor), group_epoch and
 *    assignment_epoch (-1/NULL for classic groups), coordinator_id, coordinator
 *    ("host:port"), member_id, instance_id, client_id, client_host, member_epoch (NULL
 *    for classic members), member_type (-1 unknown, 0 classic, 1 consumer protocol),
 *    partitions (number of assigned partitions), assignment and target_assignment
 *    ("topic:0,1;other:3", topics sorted, partitions ascending; "" if none; the target
 *    is NULL for classic groups), error, error_message. */
gr_err_t gr_admin_describe_consumer_groups(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                                           gr_admin_result_t **res);
/** Committed offsets of a consumer group (OffsetFetch): the n_topics topics (each with
 *  all its partitions), or every committed offset when n_topics is 0. One row per
 *  partition, in the broker's order; a partition without a committed offset has offset
 *  -1. Columns: group, topic, partition, offset, leader_epoch (-1 if none), metadata,
 *  error, error_message (a group-level error gives one row without topic). */
gr_err_t gr_admin_list_consumer_group_offsets(gr_admin_t *a, const char *group, const char *const *topics,
                                              size_t n_topics, int timeout_ms, gr_admin_result_t **res);
/** Commit offsets for a group as an admin (OffsetCommit with generation -1 and no
 *  member, as Kafka's alterConsumerGroupOffsets: the group must be empty). n entries of
 *  topics[i], partitions[i], offsets[i]. Columns: topic, partition, error, error_message. */
gr_err_t gr_admin_alter_consumer_group_offsets(gr_admin_t *a, const char *group, const char *const *topics,
                                               const int32_t *partitions, const int64_t *offsets, size_t n,
                                               int timeout_ms, gr_admin_result_t **res);
/** Delete the committed offsets of n partitions of a group (OffsetDelete). Columns:
 *  topic, partition, error, error_message; a group-level error (e.g. NON_EMPTY_GROUP,
 *  GROUP_ID_NOT_FOUND) is returned, with every row carrying it. */
gr_err_t gr_admin_delete_consumer_group_offsets(gr_admin_t *a, const char *group, const char *const *topics,
                                                const int32_t *partitions, size_t n, int timeout_ms,
                                                gr_admin_result_t **res);

/** Delete n groups (any type). Columns: group, error, error_message. */
gr_err_t gr_admin_delete_groups(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                                gr_admin_result_t **res);

/* ---- ACLs ---- */

/* Kafka's ACL codes (the wire values). Operations: 1 ANY (filters), 2 ALL, 3 READ, 4 WRITE,
 * 5 CREATE, 6 DELETE, 7 ALTER, 8 DESCRIBE, 9 CLUSTER_ACTION, 10 DESCRIBE_CONFIGS,
 * 11 ALTER_CONFIGS, 12 IDEMPOTENT_WRITE, 13 CREATE_TOKENS, 14 DESCRIBE_TOKENS,
 * 15 TWO_PHASE_COMMIT. Permissions: 1 ANY (filters), 2 DENY, 3 ALLOW. */
#define GR_ACL_RESOURCE_ANY              1
#define GR_ACL_RESOURCE_TOPIC            2
#define GR_ACL_RESOURCE_GROUP            3
#define GR_ACL_RESOURCE_CLUSTER          4
#define GR_ACL_RESOURCE_TRANSACTIONAL_ID 5
#define GR_ACL_PATTERN_ANY               1 /* filters: any pattern, exact name */
#define GR_ACL_PATTERN_MATCH             2 /* filters: every pattern that applies to the name */
#define GR_ACL_PATTERN_LITERAL           3
#define GR_ACL_PATTERN_PREFIXED          4

/** Kafka's enum names of the ACL codes ("TOPIC", "PREFIXED", "DESCRIBE_CONFIGS", "ALLOW");
 *  "UNKNOWN" for a code Kafka does not know. Static strings; any thread. */
const char *gr_admin_acl_resource_type_name(int8_t code);
const char *gr_admin_acl_pattern_type_name(int8_t code);
const char *gr_admin_acl_operation_name(int8_t code);
const char *gr_admin_acl_permission_name(int8_t code);
/** The code of such a name, matched without regard to case as Kafka's fromString does;
 *  0 (UNKNOWN) for NULL or a name Kafka does not know. Any thread. */
int8_t gr_admin_acl_resource_type_code(const char *name);
int8_t gr_admin_acl_pattern_type_code(const char *name);
int8_t gr_admin_acl_operation_code(const char *name);
int8_t gr_admin_acl_permission_code(const char *name);

/** Create one ACL (CreateAcls): the resource (type, name, pattern type) and the entry
 *  (principal "User:name", host or "*", operation, permission). Columns: principal,
 *  operation, error, error_message (one row). */
gr_err_t gr_admin_create_acl(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                             const char *principal, const char *host, int8_t operation, int8_t permission,
                             int timeout_ms, gr_admin_result_t **res);
/** The ACLs matching a filter (DescribeAcls): NULL strings match anything; the codes may be
 *  ANY (and pattern type MATCH). One row per ACL. Columns: resource_type, resource_name,
 *  pattern_type, principal, host, operation, permission (codes as integers). A refused
 *  request (e.g. CLUSTER_AUTHORIZATION_FAILED) returns its error and no result. */
gr_err_t gr_admin_describe_acls(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                                const char *principal, const char *host, int8_t operation, int8_t permission,
                                int timeout_ms, gr_admin_result_t **res);
/** Delete the ACLs matching a filter (DeleteAcls; as gr_admin_describe_acls). One row per
 *  deleted ACL, or one row with the error if the filter was refused. Columns: those of
 *  gr_admin_describe_acls, error, error_message. */
gr_err_t gr_admin_delete_acls(gr_admin_t *a, int8_t resource_type, const char *resource_name, int8_t pattern_type,
                              const char *principal, const char *host, int8_t operation, int8_t permission,
                              int timeout_ms, gr_admin_result_t **res);

/* ---- client quotas (DescribeClientQuotas, AlterClientQuotas) ---- */

/* Quota entities are made of parts: an entity type ("user", "client-id" or "ip") and a
 * name; a NULL name is that type's default entity (Kafka's "<default>"). */

/** Client quotas matching a filter (DescribeClientQuotas, any broker): n_filter filter
 *  components, each three strings: entity type, match kind ("exact", "default" or
 *  "any") and the name to match (NULL unless "exact"). strict: only entities with no
 *  other parts than those named. One row per entity and quota key. Columns: user,
 *  client_id, ip (the entity's name of that type; null when the entity has no such part
 *  or it is the default), user_default, client_id_default, ip_default (1 for a default
 *  part, else 0), key, value (the quota as the shortest decimal that reads back the
 *  same double). A refused filter returns its error and no result. */
gr_err_t gr_admin_describe_client_quotas(gr_admin_t *a, const char *const *filter, size_t n_filter, bool strict,
                                         int timeout_ms, gr_admin_result_t **res);
/** The changes of one entity's quotas: n_parts parts (parts[2*i] = entity type,
 *  parts[2*i+1] = name or NULL for the default) and n_ops operations (ops[2*i] = key,
 *  ops[2*i+1] = value as a decimal number, or NULL to remove the key; "nan" and "inf" are
 *  sent as such, for the broker to refuse). */
typedef struct gr_client_quota_alteration {
    const char *const *parts;
    size_t n_parts;
    const char *const *ops;
    size_t n_ops;
} gr_client_quota_alteration_t;

/** Set or remove quotas of n entities in one request (AlterClientQuotas, any broker).
 *  flags: GR_ADMIN_VALIDATE_ONLY. A value that is not a number is GR_ERR__INVALID_ARG
 *  before anything is sent. One row per entity of the response, in the broker's order
 *  (Kafka's is not the request's). Columns: user, client_id, ip, user_default,
 *  client_id_default, ip_default (as gr_admin_describe_client_quotas), error,
 *  error_message. Returns the first error of a row, its message as gr_admin_last_error;
 *  each entity is applied or refused on its own (check every row). */
gr_err_t gr_admin_alter_client_quotas_n(gr_admin_t *a, const gr_client_quota_alteration_t *alts, size_t n, int flags,
                                        int timeout_ms, gr_admin_result_t **res);
/** gr_admin_alter_client_quotas_n for one entity (parts and ops as in
 *  gr_client_quota_alteration_t). */
gr_err_t gr_admin_alter_client_quotas(gr_admin_t *a, const char *const *parts, size_t n_parts, const char *const *ops,
                                      size_t n_ops, int flags, int timeout_ms, gr_admin_result_t **res);

/* ---- SCRAM credentials (DescribeUserScramCredentials, AlterUserScramCredentials) ---- */

/** The SCRAM credentials of n users (every user with credentials if n is 0), any broker.
 *  One row per user and mechanism; a user without credentials or unknown gets one row
 *  with its error (RESOURCE_NOT_FOUND). Columns: user, mechanism ("SCRAM-SHA-256" or
 *  "SCRAM-SHA-512"), iterations, error, error_message. */
gr_err_t gr_admin_describe_user_scram_credentials(gr_admin_t *a, const char *const *users, size_t n, int timeout_ms,
                                                  gr_admin_result_t **res);
/** One change of a SCRAM credential: create or replace user's credential for mechanism
 *  ("SCRAM-SHA-256" or "SCRAM-SHA-512") from password with iterations (-1: 4096), or
 *  delete it (password NULL). */
typedef struct gr_scram_alteration {
    const char *user;
    const char *mechanism;
    int32_t iterations;
    const char *password;
} gr_scram_alteration_t;

/** Apply n changes in one request (AlterUserScramCredentials, any broker; Kafka refuses
 *  two changes for one user in a request). Salted passwords are computed here, each
 *  with a random salt, as Kafka's Admin does: passwords never leave the client.
 *  Columns: user, error, error_message (one row per user). */
gr_err_t gr_admin_alter_user_scram_credentials(gr_admin_t *a, const gr_scram_alteration_t *alts, size_t n,
                                               int timeout_ms, gr_admin_result_t **res);

/* ---- results ---- */

/** Number of rows. */
size_t gr_admin_result_rows(const gr_admin_result_t *r);
/** Number of columns, and the name of column i (NULL past the end; static string). */
size_t gr_admin_result_columns(const gr_admin_result_t *r);
const char *gr_admin_result_column_name(const gr_admin_result_t *r, size_t i);
/** Text of a cell, or NULL for a null cell, an unknown column or a row out of range.
 *  Integer cells are returned formatted in decimal. Valid as long as r. */
const char *gr_admin_result_str(const gr_admin_result_t *r, size_t row, const char *column);
/** Integer value of a cell, or dflt when the cell is null, not a number or absent. */
int64_t gr_admin_result_int(const gr_admin_result_t *r, size_t row, const char *column, int64_t dflt);
/** The "error" cell of a row as a gr_err_t (GR_ERR_NONE if the row has none). */
gr_err_t gr_admin_result_error(const gr_admin_result_t *r, size_t row);
/** Free r. NULL is allowed. */
void gr_admin_result_destroy(gr_admin_result_t *r);

#ifdef __cplusplus
}
#endif

#endif
