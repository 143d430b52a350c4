/* Client quotas as Apache Kafka has them: the quota entities and their values (what
 * AlterClientQuotas sets and DescribeClientQuotas shows), Kafka's validation of a change,
 * the describe filter, the default quota callback's resolution of a (user, client-id)
 * pair, and Kafka's windowed rate with its throttle time. Pure logic: no I/O except the
 * store's file (quota_file.c), no clock (times are passed in).
 *
 * The store file <dir>/gregor.quotas is replaced as a whole (temp file, fsync, rename,
 * fsync of the directory) like gregor.scram; format in quota_file.c. */
#ifndef GR_AUTH_QUOTA_H
#define GR_AUTH_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* ---------------------------------------------------------------- keys and entities */

typedef enum gr_quota_key {
    GR_QK_PRODUCER_BYTE_RATE,       /* LONG, user/client-id */
    GR_QK_CONSUMER_BYTE_RATE,       /* LONG, user/client-id */
    GR_QK_REQUEST_PERCENTAGE,       /* DOUBLE, user/client-id */
    GR_QK_CONTROLLER_MUTATION_RATE, /* DOUBLE, user/client-id (stored, not enforced) */
    GR_QK_CONNECTION_CREATION_RATE, /* INT, ip */
    GR_QK__N
} gr_quota_key_t;

/** Kafka's key name, and back (-1 if unknown). */
const char *gr_quota_key_name(gr_quota_key_t k);
int gr_quota_key_find(const char *name);

/* Entity type bits. */
enum { GR_QE_USER = 1, GR_QE_CLIENT = 2, GR_QE_IP = 4 };

/** A quota entity: the types it names (GR_QE_* bits) and per type a name, NULL for the
 *  default entity ("<default>"). Names are owned by whoever built the entity. */
typedef struct gr_quota_entity {
    uint8_t types;
    const char *user, *client, *ip;
} gr_quota_entity_t;

typedef struct gr_quota_entry {
    uint8_t types;
    char *user, *client, *ip; /* owned; NULL: default (or type absent) */
    uint8_t set;              /* bit per gr_quota_key_t */
    double v[GR_QK__N];
} gr_quota_entry_t;

typedef struct gr_quota_store {
    gr_quota_entry_t *e; /* in no particular order (a removal moves the last entry) */
    size_t n, cap;
    uint32_t *slots; /* hash index over e (quota.c) */
    size_t n_slots, n_dead;
    uint64_t version; /* bumped by every change (callers cache resolutions) */
} gr_quota_store_t;

void gr_quota_store_init(gr_quota_store_t *s);
void gr_quota_store_free(gr_quota_store_t *s);
/** Deep copy of src into dst (dst uninitialised). */
void gr_quota_store_copy(gr_quota_store_t *dst, const gr_quota_store_t *src);
/** The entry of exactly this entity, or NULL. */
const gr_quota_entry_t *gr_quota_store_find(const gr_quota_store_t *s, const gr_quota_entity_t *e);
/** Set (has_value) or remove one key of an entity; an entity left without keys goes. */
void gr_quota_store_set(gr_quota_store_t *s, const gr_quota_entity_t *e, gr_quota_key_t k, bool has_value, double v);

/* ---------------------------------------------------------------- AlterClientQuotas */

typedef struct gr_quota_op {
    const char *key;
    double value;
    bool remove;
} gr_quota_op_t;

typedef struct gr_quota_pair {
    const char *type;
    const char *name; /* NULL: the default entity */
} gr_quota_pair_t;

/** One entry of a request. The caller fills pairs/ops (as sent) and map (room for n_pairs
 *  pairs); validation fills map with the entity as Kafka's HashMap holds it (a type named
 *  twice keeps its last name; Java's iteration order), entity, error and message. */
typedef struct gr_quota_alter {
    const gr_quota_pair_t *pairs;
    size_t n_pairs;
    const gr_quota_op_t *ops;
    size_t n_ops;
    /* results */
    gr_quota_pair_t *map;
    size_t n_map;
    gr_quota_entity_t entity; /* valid when error == 0 */
    bool first;               /* the first entry of its entity (the one answered) */
    bool applied;             /* its changes go into the store (Kafka applies a first occurrence
                                 even when a later duplicate turns its answer into an error) */
    int16_t error;
    char message[512];
} gr_quota_alter_t;

/** Kafka's controller validation (ClientQuotaControlManager) of each entry against s, in
 *  request order: duplicate keys and entities, unknown types, empty names, IP combined with
 *  user/client-id, unresolvable IP hosts, unknown keys, values <= 0, too large or
 *  fractional integral values: all INVALID_REQUEST with Kafka's messages. */
void gr_quota_alter_validate(const gr_quota_store_t *s, gr_quota_alter_t *a, size_t n);
/** How an IP entity that is not a literal address is checked (getaddrinfo; the fuzz
 *  target replaces it). */
extern bool (*gr_quota_host_resolves)(const char *name);
/** Apply the entries validation accepted (error == 0) to s. */
void gr_quota_alter_apply(gr_quota_store_t *s, const gr_quota_alter_t *a, size_t n);

/** Kafka's text of an entity: "ClientQuotaEntity(entries={user=a, client-id=null})". */
void gr_quota_entity_text(const gr_quota_pair_t *map, size_t n, char *out, size_t out_size);
/** The pairs of a stored entity in Java's HashMap order (map has room for 3). */
size_t gr_quota_entry_pairs(const gr_quota_entry_t *e, gr_quota_pair_t *map);

/* ---------------------------------------------------------------- DescribeClientQuotas */

typedef struct gr_quota_filter_comp {
    const char *type;
    int8_t match_type; /* 0 exact, 1 default, 2 any specified */
    const char *match; /* NULL if null on the wire */
} gr_quota_filter_comp_t;

/** Validate a filter as Kafka's ClientQuotasImage.describe does. On error returns the
 *  Kafka error code (INVALID_REQUEST or UNSUPPORTED_VERSION) with the message. */
int16_t gr_quota_filter_check(const gr_quota_filter_comp_t *c, size_t n, char *msg, size_t msg_size);
/** True if entry matches the (checked) filter. */
bool gr_quota_filter_match(const gr_quota_filter_comp_t *c, size_t n, bool strict, const gr_quota_entry_t *e);

/* ---------------------------------------------------------------- resolution */

/** The sensor of a (user, client-id) pair for one key, per Kafka's default quota
 *  callback: which tags the sensor carries (user_tag/client_tag: the name or "" when the
 *  tag is empty) and the quota limit (has_limit false: unlimited). */
typedef struct gr_quota_resolved {
    bool user_tag, client_tag; /* the tag carries the user / client-id (else "") */
    bool has_limit;
    double limit;
} gr_quota_resolved_t;

void gr_quota_resolve(const gr_quota_store_t *s, gr_quota_key_t k, const char *user, const char *client,
                      gr_quota_resolved_t *out);
/** The connection_creation_rate for a peer address (16 bytes, IPv4 mapped into IPv6): its
 *  exact IP entity (a literal address in any notation), else the default IP; false if none.
 *  (Kafka also resolves host names given as IP entities; gregord matches literals only.) */
bool gr_quota_ip_limit(const gr_quota_store_t *s, const uint8_t addr[16], double *limit);

/* ---------------------------------------------------------------- windowed rate */

#define GR_QUOTA_MAX_SAMPLES 32 /* quota.window.num is capped here (memory per sensor) */

/** Kafka's Rate over a SampledStat: samples of window_ms each, at most n_samples kept
 *  (quota.window.num, quota.window.size.seconds). */
typedef struct gr_quota_rate {
    int64_t start[GR_QUOTA_MAX_SAMPLES];
    double value[GR_QUOTA_MAX_SAMPLES];
    int used;    /* samples created so far (<= n_samples) */
    int current; /* index of the current sample */
} gr_quota_rate_t;

typedef struct gr_quota_window {
    int n_samples;     /* quota.window.num (1..GR_QUOTA_MAX_SAMPLES) */
    int64_t window_ms; /* quota.window.size.seconds * 1000 */
} gr_quota_window_t;

void gr_quota_rate_init(gr_quota_rate_t *r);
/** Add value at now_ms. */
void gr_quota_rate_record(gr_quota_rate_t *r, const gr_quota_window_t *w, double value, int64_t now_ms);
/** The rate per second at now_ms (old samples expire). */
double gr_quota_rate_measure(gr_quota_rate_t *r, const gr_quota_window_t *w, int64_t now_ms);
/** The window the rate divides by, in ms (at least (n_samples - 1) windows, at least 1). */
int64_t gr_quota_rate_window_ms(gr_quota_rate_t *r, const gr_quota_window_t *w, int64_t now_ms);
/** Record value and return Kafka's throttle time in ms: 0 while the rate stays within
 *  limit, else round((rate - limit) / limit * window). max_ms > 0 bounds it (request
 *  quotas bound it by one window). */
int64_t gr_quota_record_throttle(gr_quota_rate_t *r, const gr_quota_window_t *w, double value, double limit,
                                 int64_t max_ms, int64_t now_ms);

/* ---------------------------------------------------------------- file */

char *gr_quota_store_format(const gr_quota_store_t *s, size_t *len);
gr_err_t gr_quota_store_parse(gr_quota_store_t *s, const char *text, size_t len, char *errstr, size_t errstr_size);
/** Load <dir>/gregor.quotas (a missing file is an empty store) / write it durably. */
gr_err_t gr_quota_store_load(gr_quota_store_t *s, const char *dir, char *errstr, size_t errstr_size);
gr_err_t gr_quota_store_save(const gr_quota_store_t *s, const char *dir, char *errstr, size_t errstr_size);

#endif
