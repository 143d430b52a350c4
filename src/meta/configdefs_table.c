/* The config definition table. Names, types, defaults and validators are Kafka's
 * (ServerLogConfigs, LogConfig, SocketServerConfigs, ShareGroupConfig and friends, Kafka 4.x);
 * the doc strings are our own short summaries. Read through configdefs.h only. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/configdefs.h"

#define I64MAX  "9223372036854775807"
#define HOUR_MS INT64_C(3600000)
#define MIN_MS  INT64_C(60000)

#define F_MIN      GR_CFG_F_MIN
#define F_MAX      GR_CFG_F_MAX
#define F_RANGE    (GR_CFG_F_MIN | GR_CFG_F_MAX)
#define F_DYN      GR_CFG_F_DYNAMIC
#define F_UNUSED   GR_CFG_F_UNUSED
#define F_INTERNAL GR_CFG_F_INTERNAL

#define BROKER(n, t) .name = (n), .scope = GR_CFG_SCOPE_BROKER, .type = GR_CFG_##t
#define TOPIC(n, t)  .name = (n), .scope = GR_CFG_SCOPE_TOPIC, .type = GR_CFG_##t

static const char *const v_ts_type[] = {"CreateTime", "LogAppendTime", NULL};
static const char *const v_cleanup[] = {"compact", "delete", NULL};
static const char *const v_compression[] = {"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer", NULL};
static const char *const v_roles[] = {"broker", "controller", NULL};
static const char *const v_protocols[] = {"classic", "consumer", "share", "streams", NULL};
static const char *const v_log_level[] = {"error", "warn", "info", "debug", NULL};

static bool check_cleanup(const char *v, char *reason, size_t n) {
    if (strstr(v, "compact")) {
        snprintf(reason, n, "log compaction is not supported by gregor; the only supported policy is delete");
        return false;
    }
    return true;
}

static bool check_level(const char *v, int64_t lo, int64_t hi, bool minus_one, char *reason, size_t n) {
    int64_t x = 0;
    gr_cfg_parse_i64(GR_CFG_INT, v, &x);
    if ((x >= lo && x <= hi) || (minus_one && x == -1)) return true;
    snprintf(reason, n, "Value must be between %lld and %lld%s", (long long)lo, (long long)hi,
             minus_one ? " or equal to -1" : "");
    return false;
}
static bool check_gzip(const char *v, char *r, size_t n) { return check_level(v, 1, 9, true, r, n); }
static bool check_lz4(const char *v, char *r, size_t n) { return check_level(v, 1, 17, false, r, n); }
static bool check_zstd(const char *v, char *r, size_t n) { return check_level(v, -131072, 22, false, r, n); }

/* NAME://host:port[,NAME://host:port...]; host may be empty or [ipv6]; names unique. */
static bool check_listeners(const char *v, char *reason, size_t n) {
    char names[16][64];
    int nn = 0;
    const char *p = v;
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p)) p++; /* Kafka splits on \s*,\s* */
        if (!*p) break;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *sep = strstr(p, "://");
        const char *colon = NULL;
        for (const char *c = p; c < p + len; c++)
            if (*c == ':') colon = c;
        if (!sep || sep >= p + len || sep == p || (size_t)(sep - p) >= sizeof(names[0]) || colon <= sep + 2) {
            snprintf(reason, n, "Unable to parse %.*s to a broker endpoint", (int)len, p);
            return false;
        }
        char *e;
        long port = strtol(colon + 1, &e, 10);
        bool digits = e != colon + 1; /* strtol skips blanks: "NAME://host: " has no port */
        while (e < p + len && isspace((unsigned char)*e)) e++;
        if (e != p + len || !digits || port < 0 || port > 65535) {
            snprintf(reason, n, "Unable to parse %.*s to a broker endpoint", (int)len, p);
            return false;
        }
        for (int i = 0; i < nn; i++)
            if (strlen(names[i]) == (size_t)(sep - p) && !strncmp(names[i], p, (size_t)(sep - p))) {
                snprintf(reason, n, "Each listener must have a different name, listeners: %s", v);
                return false;
            }
        if (nn < 16) snprintf(names[nn++], sizeof(names[0]), "%.*s", (int)(sep - p), p);
        p += len;
    }
    return true;
}

/* max.connections.per.ip.overrides: "host:count[,host:count...]" (a [v6] host in brackets). */
static bool check_ip_overrides(const char *v, char *reason, size_t n) {
    for (const char *p = v; *p;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        if (!*p) break;
        size_t len = strcspn(p, ",");
        const char *colon = NULL;
        for (const char *c = p; c < p + len; c++)
            if (*c == ':') colon = c;
        char *e = NULL;
        long long count = colon ? strtoll(colon + 1, &e, 10) : -1;
        bool digits = e && e != colon + 1; /* strtoll skips blanks: "host: " has no count */
        while (e && e < p + len && isspace((unsigned char)*e)) e++;
        if (!colon || colon == p || e != p + len || !digits || count < 0 || count > INT_MAX) {
            snprintf(reason, n, "Invalid entry %.*s: expected host:count with a count in [0, %d]", (int)len, p,
                     INT_MAX);
            return false;
        }
        p += len;
    }
    return true;
}

const gr_cfgdef_t gr__cfgdefs[] = {
    /* ---- broker: identity, network ---- */
    /* node.id and process.roles have no default in Kafka 4.x (KRaft requires them), so
     * DescribeConfigs lists no DEFAULT synonym for them. */
    {BROKER("node.id", INT), .dflt = NULL, .importance = GR_CFG_HIGH,
     .doc = "Id of this node; written to meta.properties and checked at every start."},
    {BROKER("broker.id", INT), .dflt = "-1", .importance = GR_CFG_HIGH,
     .doc = "Older name of node.id; if both are set they must be equal."},
    {BROKER("process.roles", LIST), .dflt = NULL, .valid = v_roles, .importance = GR_CFG_HIGH, .flags = F_UNUSED,
     .doc = "Accepted for Kafka compatibility; gregor is always a combined single-node broker."},
    {BROKER("listeners", LIST), .dflt = "PLAINTEXT://:9092", .check = check_listeners, .importance = GR_CFG_HIGH,
     .doc = "Comma-separated NAME://host:port endpoints to listen on; an empty host means all interfaces."},
    {BROKER("advertised.listeners", LIST), .dflt = NULL, .check = check_listeners, .importance = GR_CFG_HIGH,
     .doc = "Endpoints given to clients in Metadata responses; defaults to listeners."},
    {BROKER("listener.security.protocol.map", STRING),
     .dflt = "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT", .importance = GR_CFG_LOW,
     .doc = "Listener name to security protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."},
    {BROKER("inter.broker.listener.name", STRING), .importance = GR_CFG_MEDIUM, .flags = F_UNUSED,
     .doc = "Validated as in Kafka (must name an advertised listener); no other brokers use it."},
    {BROKER("controller.listener.names", LIST), .importance = GR_CFG_HIGH, .flags = F_UNUSED,
     .doc = "Accepted for Kafka compatibility; listeners named here are not served."},
    {BROKER("controller.quorum.voters", LIST), .dflt = "", .importance = GR_CFG_HIGH, .flags = F_UNUSED,
     .doc = "Accepted for Kafka compatibility (no KRaft quorum)."},
    {BROKER("controller.quorum.bootstrap.servers", LIST), .dflt = "", .importance = GR_CFG_HIGH, .flags = F_UNUSED,
     .doc = "Accepted for Kafka compatibility (no KRaft quorum)."},
    {BROKER("num.network.threads", INT), .dflt = "3", .min = 1, .flags = F_MIN | F_UNUSED, .importance = GR_CFG_HIGH,
     .doc = "Accepted, unused: one event-loop thread serves every connection."},
    {BROKER("num.io.threads", INT), .dflt = "8", .min = 1, .flags = F_MIN | F_UNUSED, .importance = GR_CFG_HIGH,
     .doc = "Accepted, unused: requests run on the event-loop thread."},
    {BROKER("socket.request.max.bytes", INT), .dflt = "104857600", .min = 1, .flags = F_MIN, .importance = GR_CFG_HIGH,
     .doc = "Largest request frame accepted; bigger frames close the connection."},
    {BROKER("socket.send.buffer.bytes", INT), .dflt = "102400", .importance = GR_CFG_HIGH,
     .doc = "SO_SNDBUF for client sockets; -1 keeps the OS default."},
    {BROKER("socket.receive.buffer.bytes", INT), .dflt = "102400", .importance = GR_CFG_HIGH,
     .doc = "SO_RCVBUF for client sockets; -1 keeps the OS default."},
    {BROKER("connections.max.idle.ms", LONG), .dflt = "600000", .importance = GR_CFG_MEDIUM,
     .doc = "Connections idle for longer are closed."},
    /* SASL (docs/security.md "SASL"); also per listener as listener.name.<l>.<key>. */
    {BROKER("sasl.enabled.mechanisms", LIST), .dflt = "GSSAPI", .importance = GR_CFG_MEDIUM,
     .doc = "SASL mechanisms of SASL listeners: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512."},
    {BROKER("sasl.jaas.config", PASSWORD), .dflt = NULL, .importance = GR_CFG_MEDIUM,
     .doc = "JAAS login module for every SASL mechanism without listener.name.<l>.<mech>.sasl.jaas.config."},
    {BROKER("connections.max.reauth.ms", LONG), .dflt = "0", .importance = GR_CFG_MEDIUM,
     .doc = "SASL session lifetime; a client must re-authenticate before it ends (0: no limit)."},
    {BROKER("sasl.server.max.receive.size", INT), .dflt = "524288", .min = 1, .flags = F_MIN, .importance = GR_CFG_LOW,
     .doc = "Largest request a client may send before it is authenticated (SASL listeners)."},
    {BROKER("connection.failed.authentication.delay.ms", INT), .dflt = "100", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_LOW, .doc = "Delay before answering a failed authentication and closing the connection."},
    /* Resource limits (docs/configuration.md "Resource limits"). Kafka can change the
     * max.connections* ones at run time; gregord reads them at start-up. */
    {BROKER("max.connections", INT), .dflt = "2147483647", .min = 0, .flags = F_MIN, .importance = GR_CFG_MEDIUM,
     .doc = "Open client connections; above it new connections are accepted and closed at once."},
    {BROKER("max.connections.per.ip", INT), .dflt = "2147483647", .min = 0, .flags = F_MIN, .importance = GR_CFG_MEDIUM,
     .doc = "Open connections per client address; 0 needs overrides."},
    {BROKER("max.connections.per.ip.overrides", STRING), .dflt = "", .check = check_ip_overrides,
     .importance = GR_CFG_MEDIUM, .doc = "Per-host exceptions to max.connections.per.ip: host:count,host:count."},
    /* Client quotas (docs/quotas.md): used, not described yet (docs/compatibility.md). */
    {BROKER("max.connection.creation.rate", INT), .dflt = "2147483647", .min = 0, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_MEDIUM,
     .doc = "New connections per second on the broker (also listener.name.<l>.max.connection.creation.rate); "
            "past it accepts wait."},
    {BROKER("quota.window.num", INT), .dflt = "11", .min = 1, .flags = F_MIN | F_INTERNAL, .importance = GR_CFG_LOW,
     .doc = "Samples kept by the client quota rates (gregord keeps at most 32)."},
    {BROKER("quota.window.size.seconds", INT), .dflt = "1", .min = 1, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_LOW, .doc = "Length of one client quota sample."},
    {BROKER("gregor.quota.max.sensors", INT), .dflt = "10000", .min = 1, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_LOW,
     .doc = "gregord only: quota sensors kept (per quota type and user/client-id or IP with a quota); past it the "
            "least recently used goes."},
    /* Kafka's default is -1 (no bound); gregord bounds it (docs/compatibility.md). */
    {BROKER("queued.max.request.bytes", LONG), .dflt = "104857600", .importance = GR_CFG_MEDIUM,
     .doc = "Bytes of requests being read or waiting to be answered before the broker stops reading "
            "from clients; <= 0 for no bound."},
    {BROKER("socket.request.read.timeout.ms", LONG), .dflt = "30000", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM,
     .doc = "gregord only: a request must be complete this long after its first byte, else the connection is "
            "closed; 0 disables."},
    {BROKER("fetch.max.bytes", INT), .dflt = "57671680", .min = 1024, .flags = F_MIN, .importance = GR_CFG_MEDIUM,
     .doc = "Upper bound on the bytes returned by one Fetch request."},
    /* gregor's own (Kafka configures logging with log4j): internal, so DescribeConfigs stays Kafka's. */
    {BROKER("log.level", STRING), .dflt = "info", .valid = v_log_level, .importance = GR_CFG_LOW, .flags = F_INTERNAL,
     .doc = "Lowest level logged: error, warn, info or debug. The GREGOR_LOG environment variable wins."},
    {BROKER("log.client.errors.max.per.10s", INT), .dflt = "30", .min = 0, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_LOW,
     .doc = "Lines of each kind a remote client can cause (failed authentication or TLS handshake, malformed or "
            "trickled request) logged per 10 s; the next line says how many were suppressed. 0: no limit."},
    /* gregord's admin HTTP endpoint (src/server/admin.c); parsed and checked in src/server/config.c. */
    {BROKER("admin.listener", STRING), .dflt = "", .importance = GR_CFG_MEDIUM, .flags = F_INTERNAL,
     .doc = "HOST:PORT of the admin HTTP endpoint (GET /metrics, /health); empty turns it off. No authentication."},
    {BROKER("unstable.api.versions.enable", BOOLEAN), .dflt = "false", .importance = GR_CFG_LOW,
     .flags = F_UNUSED | F_INTERNAL,
     .doc = "Accepted for Kafka compatibility; gregor advertises only what it implements."},
    /* gregor's own: the cardinality bound of /metrics (docs/metrics.md). */
    {BROKER("metrics.partition.series.max", INT), .dflt = "10000", .min = 0, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_LOW,
     .doc = "At most this many partitions, share-partitions, topics and groups get their own /metrics series; "
            "the rest are counted in gregor_metrics_series_dropped."},

    /* ---- broker: topics and logs ---- */
    {BROKER("log.dirs", LIST), .dflt = NULL, .importance = GR_CFG_HIGH,
     .doc = "Data directories; gregor uses the first. Falls back to log.dir."},
    {BROKER("log.dir", LIST), .dflt = "/tmp/kafka-logs", .importance = GR_CFG_HIGH,
     .doc = "Data directory used when log.dirs is not set."},
    {BROKER("num.partitions", INT), .dflt = "1", .min = 1, .flags = F_MIN, .importance = GR_CFG_MEDIUM,
     .doc = "Partitions of auto-created topics and of CreateTopics with -1 partitions."},
    {BROKER("default.replication.factor", INT), .dflt = "1", .importance = GR_CFG_MEDIUM,
     .doc = "Replication factor of auto-created topics; a single node only supports 1."},
    {BROKER("auto.create.topics.enable", BOOLEAN), .dflt = "true", .importance = GR_CFG_HIGH,
     .doc = "Create a topic when a client asks for metadata of, or produces to, an unknown topic."},
    {BROKER("authorizer.class.name", STRING), .dflt = "", .importance = GR_CFG_LOW, .flags = F_INTERNAL,
     .doc = "org.apache.kafka.metadata.authorizer.StandardAuthorizer turns on ACLs; empty: no authorization."},
    {BROKER("super.users", STRING), .dflt = "", .importance = GR_CFG_LOW, .flags = F_INTERNAL,
     .doc = "Principals (';'-separated) allowed everything when the authorizer is on."},
    {BROKER("allow.everyone.if.no.acl.found", BOOLEAN), .dflt = "false", .importance = GR_CFG_LOW, .flags = F_INTERNAL,
     .doc = "With the authorizer on: allow an action on a resource that has no ACL at all."},
    {BROKER("delete.topic.enable", BOOLEAN), .dflt = "true", .importance = GR_CFG_HIGH,
     .doc = "Allow DeleteTopics; when false it fails with TOPIC_DELETION_DISABLED."},
    {BROKER("offsets.topic.replication.factor", SHORT), .dflt = "3", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH, .doc = "Accepted; internal topics always have one replica on a single node."},
    {BROKER("offsets.topic.num.partitions", INT), .dflt = "50", .min = 1, .flags = F_MIN, .importance = GR_CFG_HIGH,
     .doc = "Partitions of the consumer offsets topic."},
    {BROKER("transaction.state.log.replication.factor", SHORT), .dflt = "3", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH, .doc = "Accepted for Kafka compatibility."},
    {BROKER("transaction.state.log.min.isr", INT), .dflt = "2", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH, .doc = "Accepted for Kafka compatibility."},
    {BROKER("transaction.state.log.num.partitions", INT), .dflt = "50", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH, .doc = "Accepted; the transaction log is one partition on a single node."},
    {BROKER("transaction.state.log.segment.bytes", INT), .dflt = "104857600", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_HIGH, .doc = "Segment size of the transaction log (__transaction_state-0)."},
    {BROKER("transaction.state.log.load.buffer.size", INT), .dflt = "5242880", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_LOW, .doc = "Accepted for Kafka compatibility."},
    {BROKER("transaction.max.timeout.ms", INT), .dflt = "900000", .min = 1, .flags = F_MIN, .importance = GR_CFG_HIGH,
     .doc = "Largest transaction.timeout.ms a producer may ask for (else INVALID_TRANSACTION_TIMEOUT)."},
    {BROKER("producer.id.expiration.ms", INT), .dflt = "86400000", .min = 1, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_LOW,
     .doc = "A producer id with no ongoing transaction and no write for this long (broker clock) is forgotten by each "
            "partition."},
    {BROKER("producer.id.expiration.check.interval.ms", INT), .dflt = "600000", .min = 1, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_LOW, .doc = "How often expired producer ids are removed."},
    /* gregord only (docs/compatibility.md): Kafka bounds producer state by time alone. */
    {BROKER("gregor.producer.state.max.producers", INT), .dflt = "10000", .min = 10, .max = 1000000,
     .flags = F_RANGE | F_DYN | F_INTERNAL, .importance = GR_CFG_MEDIUM,
     .doc = "gregord only: producer ids whose state each partition keeps; past it the least recently used one "
            "without an ongoing transaction is forgotten (as producer.id.expiration.ms would later)."},
    {BROKER("add.partitions.to.txn.retry.backoff.max.ms", INT), .dflt = "100", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_HIGH,
     .doc = "How long a transaction-version-2 produce whose partition cannot join the transaction yet (its "
            "previous transaction's markers are being written: CONCURRENT_TRANSACTIONS) waits on the broker "
            "before the producer is told to retry."},
    {BROKER("add.partitions.to.txn.retry.backoff.ms", INT), .dflt = "20", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH,
     .doc = "Accepted for Kafka compatibility: gregord retries the add as soon as the previous transaction "
            "completes instead of polling."},
    {BROKER("transactional.id.expiration.ms", INT), .dflt = "604800000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_HIGH, .doc = "A transactional id with no transaction for this long is removed."},
    {BROKER("transaction.abort.timed.out.transaction.cleanup.interval.ms", INT), .dflt = "10000", .min = 1,
     .flags = F_MIN, .importance = GR_CFG_LOW, .doc = "How often transactions past their timeout are aborted."},
    {BROKER("transaction.remove.expired.transaction.cleanup.interval.ms", INT), .dflt = "3600000", .min = 1,
     .flags = F_MIN, .importance = GR_CFG_LOW, .doc = "How often expired transactional ids are removed."},
    {BROKER("group.initial.rebalance.delay.ms", INT), .dflt = "3000", .importance = GR_CFG_MEDIUM,
     .doc = "Delay before the first rebalance of a new classic group."},
    {BROKER("group.min.session.timeout.ms", INT), .dflt = "6000", .importance = GR_CFG_MEDIUM,
     .doc = "Lowest session timeout a classic group member may ask for (else INVALID_SESSION_TIMEOUT)."},
    {BROKER("group.max.session.timeout.ms", INT), .dflt = "1800000", .importance = GR_CFG_MEDIUM,
     .doc = "Highest session timeout a classic group member may ask for (else INVALID_SESSION_TIMEOUT)."},
    {BROKER("group.max.size", INT), .dflt = "2147483647", .min = 1, .flags = F_MIN, .importance = GR_CFG_MEDIUM,
     .doc = "Members per classic group; one more gets GROUP_MAX_SIZE_REACHED."},
    /* The KIP-848 consumer protocol (docs/consumer-groups.md). */
    {BROKER("group.consumer.session.timeout.ms", INT), .dflt = "45000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Session timeout of a consumer-protocol member."},
    {BROKER("group.consumer.min.session.timeout.ms", INT), .dflt = "45000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest consumer.session.timeout.ms a group may set."},
    {BROKER("group.consumer.max.session.timeout.ms", INT), .dflt = "60000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Highest consumer.session.timeout.ms a group may set."},
    {BROKER("group.consumer.heartbeat.interval.ms", INT), .dflt = "5000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Heartbeat interval a consumer-protocol member is told."},
    {BROKER("group.consumer.min.heartbeat.interval.ms", INT), .dflt = "5000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest consumer.heartbeat.interval.ms a group may set."},
    {BROKER("group.consumer.max.heartbeat.interval.ms", INT), .dflt = "15000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Highest consumer.heartbeat.interval.ms a group may set."},
    {BROKER("group.consumer.max.size", INT), .dflt = "2147483647", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Members per consumer-protocol group; one more gets GROUP_MAX_SIZE_REACHED."},
    {BROKER("group.consumer.assignors", LIST), .dflt = "uniform,range", .importance = GR_CFG_MEDIUM,
     .doc = "Server-side assignors (uniform, range or Kafka's class names); the first is the default."},
    {BROKER("group.consumer.assignment.interval.ms", INT), .dflt = "1000", .min = 0, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "Least time between two target assignments of a consumer group."},
    {BROKER("group.consumer.min.assignment.interval.ms", INT), .dflt = "0", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest consumer.assignment.interval.ms a group may set."},
    {BROKER("group.consumer.max.assignment.interval.ms", INT), .dflt = "15000", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Highest consumer.assignment.interval.ms a group may set."},
    {BROKER("group.consumer.migration.policy", STRING), .dflt = "bidirectional", .importance = GR_CFG_MEDIUM,
     .doc = "Conversion between classic and consumer groups; gregord converts empty groups only."},
    {BROKER("offset.metadata.max.bytes", INT), .dflt = "4096", .importance = GR_CFG_HIGH,
     .doc = "Largest metadata string of a committed offset (else OFFSET_METADATA_TOO_LARGE)."},
    {BROKER("offsets.retention.minutes", INT), .dflt = "10080", .min = 1, .flags = F_MIN, .importance = GR_CFG_HIGH,
     .doc = "Committed offsets of an empty consumer group are kept this long."},
    {BROKER("offsets.retention.check.interval.ms", LONG), .dflt = "600000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_HIGH, .doc = "How often expired committed offsets are removed."},
    {BROKER("group.coordinator.rebalance.protocols", LIST), .dflt = "classic,consumer,streams", .valid = v_protocols,
     .importance = GR_CFG_MEDIUM, .flags = F_UNUSED,
     .doc = "Accepted for Kafka compatibility; share groups are always enabled in gregor."},
    {BROKER("num.recovery.threads.per.data.dir", INT), .dflt = "2", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH, .doc = "Accepted, unused: recovery runs on the start-up thread."},
    {BROKER("message.max.bytes", INT), .dflt = "1048588", .min = 0, .flags = F_MIN | F_DYN, .importance = GR_CFG_HIGH,
     .doc = "Largest record batch accepted (after compression)."},
    {BROKER("log.segment.bytes", INT), .dflt = "1073741824", .min = 1048576, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_HIGH, .doc = "Size at which a log segment is rolled."},
    {BROKER("log.roll.ms", LONG), .syn = {{"log.roll.hours", HOUR_MS}}, .importance = GR_CFG_HIGH, .flags = F_DYN,
     .doc = "Age at which a log segment is rolled; falls back to log.roll.hours."},
    {BROKER("log.roll.hours", INT), .dflt = "168", .min = 1, .flags = F_MIN, .importance = GR_CFG_HIGH,
     .doc = "Segment roll age in hours, used when log.roll.ms is not set."},
    {BROKER("log.roll.jitter.ms", LONG), .syn = {{"log.roll.jitter.hours", HOUR_MS}}, .importance = GR_CFG_HIGH,
     .flags = F_DYN, .doc = "Random jitter subtracted from the roll age."},
    {BROKER("log.roll.jitter.hours", INT), .dflt = "0", .min = 0, .flags = F_MIN, .importance = GR_CFG_HIGH,
     .doc = "Roll jitter in hours, used when log.roll.jitter.ms is not set."},
    {BROKER("log.retention.ms", LONG), .importance = GR_CFG_HIGH, .flags = F_DYN,
     .syn = {{"log.retention.minutes", MIN_MS}, {"log.retention.hours", HOUR_MS}},
     .doc = "Age after which closed segments are deleted; -1 keeps them forever."},
    {BROKER("log.retention.minutes", INT), .importance = GR_CFG_HIGH,
     .doc = "Retention in minutes, used when log.retention.ms is not set."},
    {BROKER("log.retention.hours", INT), .dflt = "168", .importance = GR_CFG_HIGH,
     .doc = "Retention in hours, used when log.retention.ms and .minutes are not set."},
    {BROKER("log.retention.bytes", LONG), .dflt = "-1", .importance = GR_CFG_HIGH, .flags = F_DYN,
     .doc = "Partition size above which the oldest segments are deleted; -1 for no limit."},
    {BROKER("log.retention.check.interval.ms", LONG), .dflt = "300000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "How often retention is enforced."},
    {BROKER("log.cleanup.policy", LIST), .dflt = "delete", .valid = v_cleanup, .check = check_cleanup,
     .importance = GR_CFG_MEDIUM, .flags = F_DYN, .doc = "Only delete is supported; compact is refused."},
    {BROKER("log.index.size.max.bytes", INT), .dflt = "10485760", .min = 4, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "Maximum size of a segment's offset index."},
    {BROKER("log.index.interval.bytes", INT), .dflt = "4096", .min = 0, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "Bytes of log between two offset index entries."},
    {BROKER("log.flush.interval.messages", LONG), .dflt = I64MAX, .min = 1, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_HIGH, .doc = "Records appended to a partition before it is fsynced."},
    {BROKER("log.flush.interval.ms", LONG), .syn = {{"log.flush.scheduler.interval.ms", 1}}, .importance = GR_CFG_HIGH,
     .flags = F_DYN,
     .doc = "Longest time appended data may stay unsynced; falls back to log.flush.scheduler.interval.ms."},
    {BROKER("log.flush.scheduler.interval.ms", LONG), .dflt = I64MAX, .importance = GR_CFG_HIGH,
     .doc = "How often the flusher looks for partitions due for an fsync."},
    {BROKER("log.segment.delete.delay.ms", LONG), .dflt = "60000", .min = 0, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_HIGH,
     .doc = "Delay between unlinking a deleted segment from the log and removing its files."},
    {BROKER("log.message.timestamp.type", STRING), .dflt = "CreateTime", .valid = v_ts_type,
     .importance = GR_CFG_MEDIUM, .flags = F_DYN,
     .doc = "CreateTime keeps the producer's timestamps, "
            "LogAppendTime replaces them with the broker clock."},
    {BROKER("log.message.timestamp.before.max.ms", LONG), .dflt = I64MAX, .min = 0, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "How far in the past a CreateTime timestamp may be."},
    /* One hour since Kafka 4.0 (was Long.MAX_VALUE), here and in message.timestamp.after.max.ms. */
    {BROKER("log.message.timestamp.after.max.ms", LONG), .dflt = "3600000", .min = 0, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "How far in the future a CreateTime timestamp may be."},
    {BROKER("log.preallocate", BOOLEAN), .dflt = "false", .importance = GR_CFG_MEDIUM, .flags = F_DYN | F_UNUSED,
     .doc = "Accepted, unused."},
    {BROKER("compression.type", STRING), .dflt = "producer", .valid = v_compression, .importance = GR_CFG_HIGH,
     .flags = F_DYN, .doc = "Codec of stored batches; producer keeps the producer's codec."},
    {BROKER("compression.gzip.level", INT), .dflt = "-1", .check = check_gzip, .importance = GR_CFG_MEDIUM,
     .flags = F_DYN, .doc = "gzip level used when the broker recompresses."},
    {BROKER("compression.lz4.level", INT), .dflt = "9", .check = check_lz4, .importance = GR_CFG_MEDIUM, .flags = F_DYN,
     .doc = "lz4 level used when the broker recompresses."},
    {BROKER("compression.zstd.level", INT), .dflt = "3", .check = check_zstd, .importance = GR_CFG_MEDIUM,
     .flags = F_DYN, .doc = "zstd level used when the broker recompresses."},
    {BROKER("min.insync.replicas", INT), .dflt = "1", .min = 1, .flags = F_MIN | F_DYN, .importance = GR_CFG_HIGH,
     .doc = "Replicas that must have an acks=all write; with one node only 1 can be met."},
    {BROKER("unclean.leader.election.enable", BOOLEAN), .dflt = "false", .importance = GR_CFG_HIGH,
     .flags = F_DYN | F_UNUSED, .doc = "Accepted, unused (no replicas)."},

    /* ---- broker: share groups (KIP-932) ---- */
    {BROKER("group.share.enable", BOOLEAN), .dflt = "true", .importance = GR_CFG_MEDIUM, .flags = F_UNUSED | F_INTERNAL,
     .doc = "Accepted; share groups are always enabled in gregor."},
    {BROKER("group.share.delivery.count.limit", INT), .dflt = "5", .min = 2, .max = 10, .flags = F_RANGE,
     .importance = GR_CFG_MEDIUM, .doc = "Default deliveries of a record before it is archived."},
    {BROKER("group.share.min.delivery.count.limit", INT), .dflt = "2", .min = 2, .max = 5, .flags = F_RANGE,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest share.delivery.count.limit a group may set."},
    {BROKER("group.share.max.delivery.count.limit", INT), .dflt = "10", .min = 5, .max = 25, .flags = F_RANGE,
     .importance = GR_CFG_MEDIUM, .doc = "Highest share.delivery.count.limit a group may set."},
    {BROKER("group.share.record.lock.duration.ms", INT), .dflt = "30000", .min = 1000, .max = 3600000, .flags = F_RANGE,
     .importance = GR_CFG_MEDIUM, .doc = "Default acquisition lock duration."},
    {BROKER("group.share.min.record.lock.duration.ms", INT), .dflt = "15000", .min = 1000, .max = 30000,
     .flags = F_RANGE, .importance = GR_CFG_MEDIUM, .doc = "Lowest lock duration a group may set."},
    {BROKER("group.share.max.record.lock.duration.ms", INT), .dflt = "60000", .min = 30000, .max = 3600000,
     .flags = F_RANGE, .importance = GR_CFG_MEDIUM, .doc = "Highest lock duration a group may set."},
    {BROKER("group.share.partition.max.record.locks", INT), .dflt = "2000", .min = 100, .max = 10000, .flags = F_RANGE,
     .importance = GR_CFG_MEDIUM, .doc = "Default cap on in-flight records per share-partition."},
    {BROKER("group.share.min.partition.max.record.locks", INT), .dflt = "100", .min = 100, .max = 2000,
     .flags = F_RANGE, .importance = GR_CFG_MEDIUM, .doc = "Lowest in-flight cap a group may set."},
    {BROKER("group.share.max.partition.max.record.locks", INT), .dflt = "4000", .min = 2000, .max = 10000,
     .flags = F_RANGE, .importance = GR_CFG_MEDIUM, .doc = "Highest in-flight cap a group may set."},
    {BROKER("group.share.max.size", INT), .dflt = "200", .min = 1, .max = 1000, .flags = F_RANGE,
     .importance = GR_CFG_MEDIUM, .doc = "Members per share group."},
    /* Kafka 4.0 had it (default 10, [1, 100]); gregord enforces it with a larger default. */
    {BROKER("group.share.max.groups", INT), .dflt = "1000", .min = 1, .flags = F_MIN, .importance = GR_CFG_MEDIUM,
     .doc = "Share groups on this broker, config-only groups included; a heartbeat for a new group beyond it "
            "gets GROUP_MAX_SIZE_REACHED, a group config alter POLICY_VIOLATION."},
    /* The share-group dead-letter queue (KIP-1191, Kafka 4.4.0; docs/dlq.md): checked when a record is
     * dead-lettered, not when set. */
    {BROKER("errors.deadletterqueue.topic.name.prefix", STRING), .dflt = "dlq.", .flags = F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "Prefix every share-group DLQ topic name must start with (empty: any name)."},
    {BROKER("errors.deadletterqueue.auto.create.topics.enable", BOOLEAN), .dflt = "false", .flags = F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "Create a missing share-group DLQ topic on its first record."},
    {BROKER("group.share.dlq.manager.class.name", STRING),
     .dflt = "org.apache.kafka.server.share.dlq.DefaultShareGroupDLQManager", .flags = F_INTERNAL | F_UNUSED,
     .importance = GR_CFG_LOW, .doc = "Kafka's DLQ writer class (internal); gregord has one built in."},
    {BROKER("group.share.max.share.sessions", INT), .dflt = "2000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Share sessions per broker; must be at least group.share.max.size."},
    {BROKER("group.share.session.timeout.ms", INT), .dflt = "45000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Default member session timeout."},
    {BROKER("group.share.min.session.timeout.ms", INT), .dflt = "45000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest session timeout a group may set."},
    {BROKER("group.share.max.session.timeout.ms", INT), .dflt = "60000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Highest session timeout a group may set."},
    {BROKER("group.share.heartbeat.interval.ms", INT), .dflt = "5000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Default heartbeat interval."},
    {BROKER("group.share.min.heartbeat.interval.ms", INT), .dflt = "5000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest heartbeat interval a group may set."},
    {BROKER("group.share.max.heartbeat.interval.ms", INT), .dflt = "15000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Highest heartbeat interval a group may set."},
    {BROKER("group.share.assignors", LIST), .dflt = "simple", .importance = GR_CFG_MEDIUM,
     .doc = "Share group assignors; only simple exists."},
    {BROKER("group.share.assignment.interval.ms", INT), .dflt = "1000", .min = 0, .flags = F_MIN | F_DYN,
     .importance = GR_CFG_MEDIUM, .doc = "Batching interval of share group assignment."},
    {BROKER("group.share.min.assignment.interval.ms", INT), .dflt = "0", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Lowest assignment interval."},
    {BROKER("group.share.max.assignment.interval.ms", INT), .dflt = "15000", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Highest assignment interval."},
    {BROKER("group.share.initialize.retry.interval.ms", INT), .dflt = "30000", .min = 1, .flags = F_MIN | F_INTERNAL,
     .importance = GR_CFG_MEDIUM, .doc = "Retry interval of a stuck share-state initialisation."},
    {BROKER("group.share.persister.class.name", STRING),
     .dflt = "org.apache.kafka.server.share.persister.DefaultStatePersister", .importance = GR_CFG_MEDIUM,
     .flags = F_UNUSED | F_INTERNAL, .doc = "Accepted for Kafka compatibility."},
    {BROKER("share.fetch.purgatory.purge.interval.requests", INT), .dflt = "1000", .importance = GR_CFG_MEDIUM,
     .flags = F_UNUSED, .doc = "Accepted for Kafka compatibility."},
    {BROKER("share.coordinator.state.topic.num.partitions", INT), .dflt = "50", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_HIGH, .doc = "Partitions of __share_group_state."},
    {BROKER("share.coordinator.state.topic.replication.factor", SHORT), .dflt = "3", .min = 1,
     .flags = F_MIN | F_UNUSED, .importance = GR_CFG_HIGH, .doc = "Accepted; one replica on a single node."},
    {BROKER("share.coordinator.state.topic.min.isr", SHORT), .dflt = "2", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_HIGH, .doc = "Accepted; one replica on a single node."},
    {BROKER("share.coordinator.state.topic.segment.bytes", INT), .dflt = "104857600", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_HIGH, .doc = "Segment size of __share_group_state."},
    {BROKER("share.coordinator.state.topic.prune.interval.ms", LONG), .dflt = "300000", .min = 0,
     .flags = F_MIN | F_INTERNAL, .importance = GR_CFG_HIGH,
     .doc = "How often obsolete share-state records are pruned."},
    {BROKER("share.coordinator.snapshot.update.records.per.snapshot", INT), .dflt = "500", .min = 0, .flags = F_MIN,
     .importance = GR_CFG_MEDIUM, .doc = "Share-state updates between two snapshots."},
    {BROKER("share.coordinator.cold.partition.snapshot.interval.ms", INT), .dflt = "300000", .min = 1,
     .flags = F_MIN | F_INTERNAL, .importance = GR_CFG_MEDIUM, .doc = "Snapshot interval of idle share-partitions."},
    {BROKER("share.coordinator.write.timeout.ms", INT), .dflt = "5000", .min = 1, .flags = F_MIN,
     .importance = GR_CFG_HIGH, .doc = "Timeout of a share-state write."},
    {BROKER("share.coordinator.threads", INT), .dflt = "1", .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_MEDIUM, .doc = "Accepted, unused: the loop thread runs the coordinator."},

    /* ---- topic configs: synonym = the broker config supplying the default ---- */
    {TOPIC("cleanup.policy", LIST), .dflt = "delete", .valid = v_cleanup, .check = check_cleanup,
     .syn = {{"log.cleanup.policy", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Only delete is supported; compact is refused."},
    {TOPIC("compression.type", STRING), .dflt = "producer", .valid = v_compression, .syn = {{"compression.type", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Codec of stored batches."},
    {TOPIC("compression.gzip.level", INT), .dflt = "-1", .check = check_gzip, .syn = {{"compression.gzip.level", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "gzip level when recompressing."},
    {TOPIC("compression.lz4.level", INT), .dflt = "9", .check = check_lz4, .syn = {{"compression.lz4.level", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "lz4 level when recompressing."},
    {TOPIC("compression.zstd.level", INT), .dflt = "3", .check = check_zstd, .syn = {{"compression.zstd.level", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "zstd level when recompressing."},
    {TOPIC("delete.retention.ms", LONG), .dflt = "86400000", .min = 0, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_MEDIUM, .doc = "Compaction setting, accepted and unused."},
    {TOPIC("file.delete.delay.ms", LONG), .dflt = "60000", .min = 0, .flags = F_MIN,
     .syn = {{"log.segment.delete.delay.ms", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Delay before the files of a deleted segment are removed."},
    {TOPIC("flush.messages", LONG), .dflt = I64MAX, .min = 1, .flags = F_MIN,
     .syn = {{"log.flush.interval.messages", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Records appended before the partition is fsynced."},
    {TOPIC("flush.ms", LONG), .dflt = I64MAX, .min = 0, .flags = F_MIN, .syn = {{"log.flush.interval.ms", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Longest time appended data may stay unsynced."},
    {TOPIC("follower.replication.throttled.replicas", LIST), .dflt = "", .flags = F_UNUSED, .importance = GR_CFG_MEDIUM,
     .doc = "Accepted, unused (no replication)."},
    {TOPIC("index.interval.bytes", INT), .dflt = "4096", .min = 0, .flags = F_MIN,
     .syn = {{"log.index.interval.bytes", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Bytes of log between two offset index entries."},
    {TOPIC("leader.replication.throttled.replicas", LIST), .dflt = "", .flags = F_UNUSED, .importance = GR_CFG_MEDIUM,
     .doc = "Accepted, unused (no replication)."},
    {TOPIC("max.compaction.lag.ms", LONG), .dflt = I64MAX, .min = 1, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_MEDIUM, .doc = "Compaction setting, accepted and unused."},
    {TOPIC("errors.deadletterqueue.group.enable", BOOLEAN), .dflt = "false", .importance = GR_CFG_MEDIUM,
     .doc = "Allow share groups to use this topic as their dead-letter queue (KIP-1191)."},
    {TOPIC("max.message.bytes", INT), .dflt = "1048588", .min = 0, .flags = F_MIN, .syn = {{"message.max.bytes", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Largest record batch accepted."},
    {TOPIC("message.timestamp.after.max.ms", LONG), .dflt = "3600000", .min = 0, .flags = F_MIN,
     .syn = {{"log.message.timestamp.after.max.ms", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "How far in the future a CreateTime timestamp may be."},
    {TOPIC("message.timestamp.before.max.ms", LONG), .dflt = I64MAX, .min = 0, .flags = F_MIN,
     .syn = {{"log.message.timestamp.before.max.ms", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "How far in the past a CreateTime timestamp may be."},
    {TOPIC("message.timestamp.type", STRING), .dflt = "CreateTime", .valid = v_ts_type,
     .syn = {{"log.message.timestamp.type", 1}}, .importance = GR_CFG_MEDIUM, .doc = "CreateTime or LogAppendTime."},
    {TOPIC("min.cleanable.dirty.ratio", DOUBLE), .dflt = "0.5", .min = 0, .max = 1, .flags = F_RANGE | F_UNUSED,
     .importance = GR_CFG_MEDIUM, .doc = "Compaction setting, accepted and unused."},
    {TOPIC("min.compaction.lag.ms", LONG), .dflt = "0", .min = 0, .flags = F_MIN | F_UNUSED,
     .importance = GR_CFG_MEDIUM, .doc = "Compaction setting, accepted and unused."},
    {TOPIC("min.insync.replicas", INT), .dflt = "1", .min = 1, .flags = F_MIN, .syn = {{"min.insync.replicas", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Replicas that must have an acks=all write; only 1 can be met."},
    {TOPIC("preallocate", BOOLEAN), .dflt = "false", .flags = F_UNUSED, .syn = {{"log.preallocate", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Accepted, unused."},
    {TOPIC("retention.bytes", LONG), .dflt = "-1", .syn = {{"log.retention.bytes", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Partition size above which the oldest segments are deleted; -1 for no limit."},
    {TOPIC("retention.ms", LONG), .dflt = "604800000", .min = -1, .flags = F_MIN, .syn = {{"log.retention.ms", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Age after which closed segments are deleted; -1 keeps them forever."},
    {TOPIC("segment.bytes", INT), .dflt = "1073741824", .min = 1048576, .flags = F_MIN,
     .syn = {{"log.segment.bytes", 1}}, .importance = GR_CFG_MEDIUM, .doc = "Size at which a segment is rolled."},
    {TOPIC("segment.index.bytes", INT), .dflt = "10485760", .min = 4, .flags = F_MIN,
     .syn = {{"log.index.size.max.bytes", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Maximum size of a segment's offset index."},
    {TOPIC("segment.jitter.ms", LONG), .dflt = "0", .min = 0, .flags = F_MIN, .syn = {{"log.roll.jitter.ms", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Random jitter subtracted from segment.ms."},
    {TOPIC("segment.ms", LONG), .dflt = "604800000", .min = 1, .flags = F_MIN, .syn = {{"log.roll.ms", 1}},
     .importance = GR_CFG_MEDIUM, .doc = "Age at which a segment is rolled."},
    {TOPIC("unclean.leader.election.enable", BOOLEAN), .dflt = "false", .flags = F_UNUSED,
     .syn = {{"unclean.leader.election.enable", 1}}, .importance = GR_CFG_MEDIUM,
     .doc = "Accepted, unused (no replicas)."},
};

const size_t gr__cfgdefs_n = sizeof(gr__cfgdefs) / sizeof(gr__cfgdefs[0]);
