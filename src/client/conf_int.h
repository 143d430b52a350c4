/* libgregor internals: the property table and typed getters for gr_conf_t.
 *
 * One X-macro table lists every client property once: its Kafka name, the scopes
 * it applies to, its type, default and range. The consumer work adds its rows
 * here (group.id, share.acknowledgement.mode, ...); a row of type REJECT refuses a
 * known Kafka name with a reason (for consumer configs that share groups do not
 * support). Values are parsed once, in gr_conf_set, so getters never fail. */
#ifndef GR_CLIENT_CONF_INT_H
#define GR_CLIENT_CONF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gregor/conf.h"

typedef enum gr__ctype {
    GR__CT_INT,    /* int32 with [min, max] */
    GR__CT_LONG,   /* int64 with [min, max] */
    GR__CT_BOOL,   /* true / false */
    GR__CT_STRING, /* any text */
    GR__CT_LIST,   /* comma-separated list, items trimmed */
    GR__CT_ENUM,   /* one of `choices` (comma-separated); num = index */
    GR__CT_ACKS,   /* all, -1, 0, 1; num = -1, 0 or 1 */
    GR__CT_ALIAS,  /* another name for the property named in `choices` */
    GR__CT_REJECT, /* a known name that is refused; `choices` says why */
} gr__ctype_t;

#define GR__P      GR_CONF_PRODUCER
#define GR__C      GR_CONF_CONSUMER
#define GR__A      GR_CONF_ADMIN
#define GR__ALL    (GR__P | GR__C | GR__A)
#define GR__I32MAX 2147483647LL
#define GR__I64MAX 9223372036854775807LL

/* X(ID, name, scopes, type, default, min, max, choices) */
#define GR__CONF_MAP(X)                                                                                            \
    X(BOOTSTRAP_SERVERS, "bootstrap.servers", GR__ALL, GR__CT_LIST, "", 0, 0, NULL)                                \
    X(CLIENT_ID, "client.id", GR__ALL, GR__CT_STRING, "gregor", 0, 0, NULL)                                        \
    X(REQUEST_TIMEOUT_MS, "request.timeout.ms", GR__ALL, GR__CT_INT, "30000", 0, GR__I32MAX, NULL)                 \
    X(DEFAULT_API_TIMEOUT_MS, "default.api.timeout.ms", GR__C | GR__A, GR__CT_INT, "60000", 0, GR__I32MAX, NULL)   \
    X(RETRY_BACKOFF_MS, "retry.backoff.ms", GR__ALL, GR__CT_LONG, "100", 0, GR__I64MAX, NULL)                      \
    X(RETRY_BACKOFF_MAX_MS, "retry.backoff.max.ms", GR__ALL, GR__CT_LONG, "1000", 0, GR__I64MAX, NULL)             \
    X(RECONNECT_BACKOFF_MS, "reconnect.backoff.ms", GR__ALL, GR__CT_LONG, "50", 0, GR__I64MAX, NULL)               \
    X(RECONNECT_BACKOFF_MAX_MS, "reconnect.backoff.max.ms", GR__ALL, GR__CT_LONG, "1000", 0, GR__I64MAX, NULL)     \
    X(SOCKET_SETUP_TIMEOUT_MS, "socket.connection.setup.timeout.ms", GR__ALL, GR__CT_LONG, "10000", 0, GR__I64MAX, \
      NULL)                                                                                                        \
    X(SEND_BUFFER_BYTES, "send.buffer.bytes", GR__ALL, GR__CT_INT, "131072", -1, GR__I32MAX, NULL)                 \
    X(RECEIVE_BUFFER_BYTES, "receive.buffer.bytes", GR__ALL, GR__CT_INT, "1048576", -1, GR__I32MAX, NULL)          \
    /* libgregor's own (no Kafka name): refused connections in a row, to every address, */                         \
    /* before calls fail with _ALL_BROKERS_DOWN instead of waiting their timeout; 0 = never. */                    \
    X(SASL_MECHANISM, "sasl.mechanism", GR__ALL, GR__CT_ENUM, "GSSAPI", 0, 0,                                      \
      "GSSAPI,PLAIN,SCRAM-SHA-256,SCRAM-SHA-512")                                                                  \
    X(SASL_MECHANISMS, "sasl.mechanisms", GR__ALL, GR__CT_ALIAS, NULL, 0, 0, "sasl.mechanism")                     \
    X(SASL_USERNAME, "sasl.username", GR__ALL, GR__CT_STRING, "", 0, 0, NULL)                                      \
    X(SASL_PASSWORD, "sasl.password", GR__ALL, GR__CT_STRING, "", 0, 0, NULL)                                      \
    /* The Java clients' form (client.c): username and password of its login module, */                            \
    /* used unless sasl.username / sasl.password are set. */                                                       \
    X(SASL_JAAS_CONFIG, "sasl.jaas.config", GR__ALL, GR__CT_STRING, NULL, 0, 0, NULL)                              \
    X(UNREACHABLE_ATTEMPTS, "unreachable.connect.attempts", GR__ALL, GR__CT_INT, "3", 0, GR__I32MAX, NULL)         \
    /* Security (librdkafka's names; tls.c, sasl_client.c). */                                                     \
    X(SECURITY_PROTOCOL, "security.protocol", GR__ALL, GR__CT_ENUM, "plaintext", 0, 0,                             \
      "plaintext,ssl,sasl_plaintext,sasl_ssl")                                                                     \
    X(SSL_CA_LOCATION, "ssl.ca.location", GR__ALL, GR__CT_STRING, NULL, 0, 0, NULL)                                \
    X(SSL_TRUSTSTORE_LOCATION, "ssl.truststore.location", GR__ALL, GR__CT_ALIAS, NULL, 0, 0, "ssl.ca.location")    \
    X(SSL_TRUSTSTORE_TYPE, "ssl.truststore.type", GR__ALL, GR__CT_ENUM, "PEM", 0, 0, "PEM")                        \
    X(SSL_CERT_LOCATION, "ssl.certificate.location", GR__ALL, GR__CT_STRING, NULL, 0, 0, NULL)                     \
    X(SSL_KEY_LOCATION, "ssl.key.location", GR__ALL, GR__CT_STRING, NULL, 0, 0, NULL)                              \
    X(SSL_KEY_PASSWORD, "ssl.key.password", GR__ALL, GR__CT_STRING, NULL, 0, 0, NULL)                              \
    X(SSL_ENDPOINT_ID, "ssl.endpoint.identification.algorithm", GR__ALL, GR__CT_ENUM, "https", 0, 0, "none,https") \
    X(SSL_VERIFY, "enable.ssl.certificate.verification", GR__ALL, GR__CT_BOOL, "true", 0, 0, NULL)                 \
    X(METADATA_MAX_AGE_MS, "metadata.max.age.ms", GR__ALL, GR__CT_LONG, "300000", 0, GR__I64MAX, NULL)             \
    X(RETRIES, "retries", GR__P | GR__A, GR__CT_INT, "2147483647", 0, GR__I32MAX, NULL)                            \
    X(ACKS, "acks", GR__P, GR__CT_ACKS, "all", 0, 0, "all,-1,0,1")                                                 \
    X(LINGER_MS, "linger.ms", GR__P, GR__CT_INT, "5", 0, GR__I32MAX, NULL)                                         \
    X(BATCH_SIZE, "batch.size", GR__P, GR__CT_INT, "1000000", 0, GR__I32MAX, NULL)                                 \
    X(COMPRESSION_TYPE, "compression.type", GR__P, GR__CT_ENUM, "none", 0, 0, "none,gzip,snappy,lz4,zstd")         \
    X(ENABLE_IDEMPOTENCE, "enable.idempotence", GR__P, GR__CT_BOOL, "true", 0, 0, NULL)                            \
    X(BUFFER_MEMORY, "buffer.memory", GR__P, GR__CT_LONG, "33554432", 0, GR__I64MAX, NULL)                         \
    X(MAX_IN_FLIGHT, "max.in.flight.requests.per.connection", GR__P, GR__CT_INT, "5", 1, GR__I32MAX, NULL)         \
    X(DELIVERY_TIMEOUT_MS, "delivery.timeout.ms", GR__P, GR__CT_INT, "120000", 0, GR__I32MAX, NULL)                \
    X(MAX_REQUEST_SIZE, "max.request.size", GR__P, GR__CT_INT, "1048576", 0, GR__I32MAX, NULL)                     \
    X(MESSAGE_MAX_BYTES, "message.max.bytes", GR__P, GR__CT_ALIAS, NULL, 0, 0, "max.request.size")                 \
    X(MAX_BLOCK_MS, "max.block.ms", GR__P, GR__CT_LONG, "60000", 0, GR__I64MAX, NULL)                              \
    X(PARTITIONER_IGNORE_KEYS, "partitioner.ignore.keys", GR__P, GR__CT_BOOL, "false", 0, 0, NULL)                 \
    X(TRANSACTIONAL_ID, "transactional.id", GR__P, GR__CT_STRING, NULL, 0, 0, NULL)                                \
    X(TRANSACTION_TIMEOUT_MS, "transaction.timeout.ms", GR__P, GR__CT_INT, "60000", 1, GR__I32MAX, NULL)           \
    /* Share consumer (share_consumer.c). */                                                                       \
    X(GROUP_ID, "group.id", GR__C, GR__CT_STRING, NULL, 0, 0, NULL)                                                \
    X(SHARE_ACK_MODE, "share.acknowledgement.mode", GR__C, GR__CT_ENUM, "implicit", 0, 0, "implicit,explicit")     \
    X(SHARE_ACQUIRE_MODE, "share.acquire.mode", GR__C, GR__CT_ENUM, "batch_optimized", 0, 0,                       \
      "batch_optimized,record_limit")                                                                              \
    X(MAX_POLL_RECORDS, "max.poll.records", GR__C, GR__CT_INT, "500", 1, GR__I32MAX, NULL)                         \
    X(FETCH_MAX_BYTES, "fetch.max.bytes", GR__C, GR__CT_INT, "52428800", 0, GR__I32MAX, NULL)                      \
    X(MAX_PARTITION_FETCH_BYTES, "max.partition.fetch.bytes", GR__C, GR__CT_INT, "1048576", 0, GR__I32MAX, NULL)   \
    X(FETCH_MIN_BYTES, "fetch.min.bytes", GR__C, GR__CT_INT, "1", 0, GR__I32MAX, NULL)                             \
    X(FETCH_MAX_WAIT_MS, "fetch.max.wait.ms", GR__C, GR__CT_INT, "500", 0, GR__I32MAX, NULL)                       \
    X(MAX_POLL_INTERVAL_MS, "max.poll.interval.ms", GR__C, GR__CT_INT, "300000", 1, GR__I32MAX, NULL)              \
    X(CLIENT_RACK, "client.rack", GR__C, GR__CT_STRING, "", 0, 0, NULL)                                            \
    X(SHARE_FETCH_AHEAD, "gregor.share.fetch.ahead", GR__C, GR__CT_BOOL, "true", 0, 0, NULL)                       \
    /* Consumer-group properties: accepted in the consumer scope (the plain consumer may use   */                  \
    /* them), refused by gr_share_consumer_new ("... is not supported by the share consumer"). */                  \
    X(ISOLATION_LEVEL, "isolation.level", GR__C, GR__CT_ENUM, "read_uncommitted", 0, 0,                            \
      "read_uncommitted,read_committed")                                                                           \
    X(AUTO_OFFSET_RESET, "auto.offset.reset", GR__C, GR__CT_ENUM, "latest", 0, 0, "latest,earliest,none")          \
    X(ENABLE_AUTO_COMMIT, "enable.auto.commit", GR__C, GR__CT_BOOL, "true", 0, 0, NULL)                            \
    X(AUTO_COMMIT_INTERVAL_MS, "auto.commit.interval.ms", GR__C, GR__CT_INT, "5000", 0, GR__I32MAX, NULL)          \
    X(GROUP_INSTANCE_ID, "group.instance.id", GR__C, GR__CT_STRING, NULL, 0, 0, NULL)                              \
    X(PARTITION_ASSIGNMENT_STRATEGY, "partition.assignment.strategy", GR__C, GR__CT_LIST, NULL, 0, 0, NULL)        \
    X(SESSION_TIMEOUT_MS, "session.timeout.ms", GR__C, GR__CT_INT, "45000", 0, GR__I32MAX, NULL)                   \
    X(HEARTBEAT_INTERVAL_MS, "heartbeat.interval.ms", GR__C, GR__CT_INT, "3000", 0, GR__I32MAX, NULL)              \
    X(INTERCEPTOR_CLASSES, "interceptor.classes", GR__C, GR__CT_LIST, NULL, 0, 0, NULL)                            \
    X(GROUP_PROTOCOL, "group.protocol", GR__C, GR__CT_ENUM, "classic", 0, 0, "classic,consumer")                   \
    X(GROUP_REMOTE_ASSIGNOR, "group.remote.assignor", GR__C, GR__CT_STRING, NULL, 0, 0, NULL)                      \
    X(CONSUMER_FETCH_AHEAD, "gregor.consumer.fetch.ahead", GR__C, GR__CT_BOOL, "true", 0, 0, NULL)

typedef enum gr__cprop {
#define GR__CP_ENUM(id, name, scopes, type, dflt, min, max, choices) GR__CP_##id,
    GR__CONF_MAP(GR__CP_ENUM)
#undef GR__CP_ENUM
        GR__CP_COUNT
} gr__cprop_t;

/** Integer value of a numeric, bool (0/1), enum (index) or acks (-1/0/1) property. */
int64_t gr__conf_int(const gr_conf_t *conf, gr__cprop_t id);
/** Text value (set or default; "" when none). */
const char *gr__conf_str(const gr_conf_t *conf, gr__cprop_t id);
/** True if the user set the property (used where Kafka treats explicit values differently). */
bool gr__conf_is_set(const gr_conf_t *conf, gr__cprop_t id);

#endif
