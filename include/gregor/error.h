/* libgregor: error codes.
 *
 * Every libgregor call returns a gr_err_t: 0 (GR_ERR_NONE) is success, positive
 * values are Kafka wire error codes unchanged (GR_ERR_UNKNOWN_TOPIC_OR_PARTITION
 * is 3, as on the wire), negative values are local errors (GR_ERR__TIMED_OUT,
 * GR_ERR__QUEUE_FULL, ...). Kafka's own -1 is GR_ERR_UNKNOWN_SERVER_ERROR.
 *
 * This X-macro table is the only one: the broker's src/base/err.h includes this
 * header, so the library and the broker cannot disagree on a code.
 *
 * Thread-safety: the functions here are pure and may be called from any thread. */
#ifndef GREGOR_ERROR_H
#define GREGOR_ERROR_H

#define GR_ERR_MAP(X)                                                                     \
    X(UNKNOWN_SERVER_ERROR, -1, "unexpected server error")                                \
    X(NONE, 0, "success")                                                                 \
    X(OFFSET_OUT_OF_RANGE, 1, "offset out of range")                                      \
    X(CORRUPT_MESSAGE, 2, "corrupt message")                                              \
    X(UNKNOWN_TOPIC_OR_PARTITION, 3, "unknown topic or partition")                        \
    X(INVALID_FETCH_SIZE, 4, "invalid fetch size")                                        \
    X(LEADER_NOT_AVAILABLE, 5, "leader not available")                                    \
    X(NOT_LEADER_OR_FOLLOWER, 6, "not leader or follower")                                \
    X(REQUEST_TIMED_OUT, 7, "request timed out")                                          \
    X(BROKER_NOT_AVAILABLE, 8, "broker not available")                                    \
    X(REPLICA_NOT_AVAILABLE, 9, "replica not available")                                  \
    X(MESSAGE_TOO_LARGE, 10, "message too large")                                         \
    X(STALE_CONTROLLER_EPOCH, 11, "stale controller epoch")                               \
    X(OFFSET_METADATA_TOO_LARGE, 12, "offset metadata too large")                         \
    X(NETWORK_EXCEPTION, 13, "network exception")                                         \
    X(COORDINATOR_LOAD_IN_PROGRESS, 14, "coordinator load in progress")                   \
    X(COORDINATOR_NOT_AVAILABLE, 15, "coordinator not available")                         \
    X(NOT_COORDINATOR, 16, "not coordinator")                                             \
    X(INVALID_TOPIC_EXCEPTION, 17, "invalid topic")                                       \
    X(RECORD_LIST_TOO_LARGE, 18, "record list too large")                                 \
    X(NOT_ENOUGH_REPLICAS, 19, "not enough replicas")                                     \
    X(NOT_ENOUGH_REPLICAS_AFTER_APPEND, 20, "not enough replicas after append")           \
    X(INVALID_REQUIRED_ACKS, 21, "invalid required acks")                                 \
    X(ILLEGAL_GENERATION, 22, "illegal generation")                                       \
    X(INCONSISTENT_GROUP_PROTOCOL, 23, "inconsistent group protocol")                     \
    X(INVALID_GROUP_ID, 24, "invalid group id")                                           \
    X(UNKNOWN_MEMBER_ID, 25, "unknown member id")                                         \
    X(INVALID_SESSION_TIMEOUT, 26, "invalid session timeout")                             \
    X(REBALANCE_IN_PROGRESS, 27, "rebalance in progress")                                 \
    X(INVALID_COMMIT_OFFSET_SIZE, 28, "invalid commit offset size")                       \
    X(TOPIC_AUTHORIZATION_FAILED, 29, "topic authorization failed")                       \
    X(GROUP_AUTHORIZATION_FAILED, 30, "group authorization failed")                       \
    X(CLUSTER_AUTHORIZATION_FAILED, 31, "cluster authorization failed")                   \
    X(INVALID_TIMESTAMP, 32, "invalid timestamp")                                         \
    X(UNSUPPORTED_SASL_MECHANISM, 33, "unsupported SASL mechanism")                       \
    X(ILLEGAL_SASL_STATE, 34, "illegal SASL state")                                       \
    X(UNSUPPORTED_VERSION, 35, "unsupported version")                                     \
    X(TOPIC_ALREADY_EXISTS, 36, "topic already exists")                                   \
    X(INVALID_PARTITIONS, 37, "invalid partitions")                                       \
    X(INVALID_REPLICATION_FACTOR, 38, "invalid replication factor")                       \
    X(INVALID_REPLICA_ASSIGNMENT, 39, "invalid replica assignment")                       \
    X(INVALID_CONFIG, 40, "invalid config")                                               \
    X(NOT_CONTROLLER, 41, "not controller")                                               \
    X(INVALID_REQUEST, 42, "invalid request")                                             \
    X(UNSUPPORTED_FOR_MESSAGE_FORMAT, 43, "unsupported for message format")               \
    X(POLICY_VIOLATION, 44, "policy violation")                                           \
    X(OUT_OF_ORDER_SEQUENCE_NUMBER, 45, "out of order sequence number")                   \
    X(DUPLICATE_SEQUENCE_NUMBER, 46, "duplicate sequence number")                         \
    X(INVALID_PRODUCER_EPOCH, 47, "invalid producer epoch")                               \
    X(INVALID_TXN_STATE, 48, "invalid transaction state")                                 \
    X(INVALID_PRODUCER_ID_MAPPING, 49, "invalid producer id mapping")                     \
    X(INVALID_TRANSACTION_TIMEOUT, 50, "invalid transaction timeout")                     \
    X(CONCURRENT_TRANSACTIONS, 51, "concurrent transactions")                             \
    X(TRANSACTION_COORDINATOR_FENCED, 52, "transaction coordinator fenced")               \
    X(TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 53, "transactional id authorization failed") \
    X(SECURITY_DISABLED, 54, "security disabled")                                         \
    X(OPERATION_NOT_ATTEMPTED, 55, "operation not attempted")                             \
    X(KAFKA_STORAGE_ERROR, 56, "storage error")                                           \
    X(LOG_DIR_NOT_FOUND, 57, "log dir not found")                                         \
    X(SASL_AUTHENTICATION_FAILED, 58, "SASL authentication failed")                       \
    X(UNKNOWN_PRODUCER_ID, 59, "unknown producer id")                                     \
    X(REASSIGNMENT_IN_PROGRESS, 60, "reassignment in progress")                           \
    X(DELEGATION_TOKEN_AUTH_DISABLED, 61, "delegation token auth disabled")               \
    X(DELEGATION_TOKEN_NOT_FOUND, 62, "delegation token not found")                       \
    X(DELEGATION_TOKEN_OWNER_MISMATCH, 63, "delegation token owner mismatch")             \
    X(DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, 64, "delegation token request not allowed")   \
    X(DELEGATION_TOKEN_AUTHORIZATION_FAILED, 65, "delegation token authorization failed") \
    X(DELEGATION_TOKEN_EXPIRED, 66, "delegation token expired")                           \
    X(INVALID_PRINCIPAL_TYPE, 67, "invalid principal type")                               \
    X(NON_EMPTY_GROUP, 68, "non-empty group")                                             \
    X(GROUP_ID_NOT_FOUND, 69, "group id not found")                                       \
    X(FETCH_SESSION_ID_NOT_FOUND, 70, "fetch session id not found")                       \
    X(INVALID_FETCH_SESSION_EPOCH, 71, "invalid fetch session epoch")                     \
    X(LISTENER_NOT_FOUND, 72, "listener not found")                                       \
    X(TOPIC_DELETION_DISABLED, 73, "topic deletion disabled")                             \
    X(FENCED_LEADER_EPOCH, 74, "fenced leader epoch")                                     \
    X(UNKNOWN_LEADER_EPOCH, 75, "unknown leader epoch")                                   \
    X(UNSUPPORTED_COMPRESSION_TYPE, 76, "unsupported compression type")                   \
    X(STALE_BROKER_EPOCH, 77, "stale broker epoch")                                       \
    X(OFFSET_NOT_AVAILABLE, 78, "offset not available")                                   \
    X(MEMBER_ID_REQUIRED, 79, "member id required")                                       \
    X(PREFERRED_LEADER_NOT_AVAILABLE, 80, "preferred leader not available")               \
    X(GROUP_MAX_SIZE_REACHED, 81, "group max size reached")                               \
    X(FENCED_INSTANCE_ID, 82, "fenced instance id")                                       \
    X(ELIGIBLE_LEADERS_NOT_AVAILABLE, 83, "eligible leaders not available")               \
    X(ELECTION_NOT_NEEDED, 84, "election not needed")                                     \
    X(NO_REASSIGNMENT_IN_PROGRESS, 85, "no reassignment in progress")                     \
    X(GROUP_SUBSCRIBED_TO_TOPIC, 86, "group subscribed to topic")                         \
    X(INVALID_RECORD, 87, "invalid record")                                               \
    X(UNSTABLE_OFFSET_COMMIT, 88, "unstable offset commit")                               \
    X(THROTTLING_QUOTA_EXCEEDED, 89, "throttling quota exceeded")                         \
    X(PRODUCER_FENCED, 90, "producer fenced")                                             \
    X(RESOURCE_NOT_FOUND, 91, "resource not found")                                       \
    X(DUPLICATE_RESOURCE, 92, "duplicate resource")                                       \
    X(UNACCEPTABLE_CREDENTIAL, 93, "unacceptable credential")                             \
    X(INCONSISTENT_VOTER_SET, 94, "inconsistent voter set")                               \
    X(INVALID_UPDATE_VERSION, 95, "invalid update version")                               \
    X(FEATURE_UPDATE_FAILED, 96, "feature update failed")                                 \
    X(PRINCIPAL_DESERIALIZATION_FAILURE, 97, "principal deserialization failure")         \
    X(SNAPSHOT_NOT_FOUND, 98, "snapshot not found")                                       \
    X(POSITION_OUT_OF_RANGE, 99, "position out of range")                                 \
    X(UNKNOWN_TOPIC_ID, 100, "unknown topic id")                                          \
    X(DUPLICATE_BROKER_REGISTRATION, 101, "duplicate broker registration")                \
    X(BROKER_ID_NOT_REGISTERED, 102, "broker id not registered")                          \
    X(INCONSISTENT_TOPIC_ID, 103, "inconsistent topic id")                                \
    X(INCONSISTENT_CLUSTER_ID, 104, "inconsistent cluster id")                            \
    X(TRANSACTIONAL_ID_NOT_FOUND, 105, "transactional id not found")                      \
    X(FETCH_SESSION_TOPIC_ID_ERROR, 106, "fetch session topic id error")                  \
    X(INELIGIBLE_REPLICA, 107, "ineligible replica")                                      \
    X(NEW_LEADER_ELECTED, 108, "new leader elected")                                      \
    X(OFFSET_MOVED_TO_TIERED_STORAGE, 109, "offset moved to tiered storage")              \
    X(FENCED_MEMBER_EPOCH, 110, "fenced member epoch")                                    \
    X(UNRELEASED_INSTANCE_ID, 111, "unreleased instance id")                              \
    X(UNSUPPORTED_ASSIGNOR, 112, "unsupported assignor")                                  \
    X(STALE_MEMBER_EPOCH, 113, "stale member epoch")                                      \
    X(MISMATCHED_ENDPOINT_TYPE, 114, "mismatched endpoint type")                          \
    X(UNSUPPORTED_ENDPOINT_TYPE, 115, "unsupported endpoint type")                        \
    X(UNKNOWN_CONTROLLER_ID, 116, "unknown controller id")                                \
    X(UNKNOWN_SUBSCRIPTION_ID, 117, "unknown subscription id")                            \
    X(TELEMETRY_TOO_LARGE, 118, "telemetry too large")                                    \
    X(INVALID_REGISTRATION, 119, "invalid registration")                                  \
    X(TRANSACTION_ABORTABLE, 120, "transaction abortable")                                \
    X(INVALID_RECORD_STATE, 121, "invalid record state")                                  \
    X(SHARE_SESSION_NOT_FOUND, 122, "share session not found")                            \
    X(INVALID_SHARE_SESSION_EPOCH, 123, "invalid share session epoch")                    \
    X(FENCED_STATE_EPOCH, 124, "fenced state epoch")                                      \
    X(INVALID_VOTER_KEY, 125, "invalid voter key")                                        \
    X(DUPLICATE_VOTER, 126, "duplicate voter")                                            \
    X(VOTER_NOT_FOUND, 127, "voter not found")                                            \
    X(INVALID_REGULAR_EXPRESSION, 128, "invalid regular expression")                      \
    X(REBOOTSTRAP_REQUIRED, 129, "rebootstrap required")                                  \
    X(STREAMS_INVALID_TOPOLOGY, 130, "streams invalid topology")                          \
    X(STREAMS_INVALID_TOPOLOGY_EPOCH, 131, "streams invalid topology epoch")              \
    X(STREAMS_TOPOLOGY_FENCED, 132, "streams topology fenced")                            \
    X(SHARE_SESSION_LIMIT_REACHED, 133, "share session limit reached")                    \
    X(_AGAIN, -100, "operation would block, try again")                                   \
    X(_INCOMPLETE, -101, "need more bytes")                                               \
    X(_MALFORMED, -102, "malformed input")                                                \
    X(_NOMEM, -103, "out of memory")                                                      \
    X(_IO, -104, "I/O error")                                                             \
    X(_NOENT, -105, "not found")                                                          \
    X(_EXISTS, -106, "already exists")                                                    \
    X(_INVALID_ARG, -107, "invalid argument")                                             \
    X(_TIMED_OUT, -108, "timed out")                                                      \
    X(_CLOSED, -109, "connection closed")                                                 \
    X(_STATE, -110, "illegal state")                                                      \
    X(_TRANSPORT, -111, "transport failure")                                              \
    X(_WAKEUP, -112, "woken up")                                                          \
    X(_QUEUE_FULL, -113, "queue full")                                                    \
    X(_ALL_BROKERS_DOWN, -114, "no broker reachable")

/** Error codes: 0 ok, > 0 Kafka wire codes, < 0 local errors. */
typedef enum gr_err {
#define GR__ERR_ENUM(name, code, str) GR_ERR_##name = (code),
    GR_ERR_MAP(GR__ERR_ENUM)
#undef GR__ERR_ENUM
} gr_err_t;

/** Symbolic name of an error ("UNKNOWN_TOPIC_OR_PARTITION", "_TIMED_OUT");
 *  "UNKNOWN" for codes not in the table. Returns a static string; any thread. */
const char *gr_err_name(gr_err_t err);
/** Short human description of an error. Never NULL; static string; any thread. */
const char *gr_err_str(gr_err_t err);

#endif /* GREGOR_ERROR_H */
