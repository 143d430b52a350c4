/* gregor configs: the entity types users, clients and ips (configs_quota.c). */
#ifndef GR_CLI_CONFIGS_QUOTA_H
#define GR_CLI_CONFIGS_QUOTA_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

#define CLI_MAX_ENTITY_TYPES 8
#define CLI_MAX_CONFIG_OPS   512

/** The entities of a kafka-configs command line, in Kafka's order: types[i] is
 *  "users", "clients", "ips", "topics", ...; names[i] the name given for it ("" for
 *  a default entity); fewer names than types leave the last types unnamed. */
typedef struct cli_entities {
    const char *types[CLI_MAX_ENTITY_TYPES];
    const char *names[CLI_MAX_ENTITY_TYPES];
    size_t n_types, n_names;
} cli_entities_t;

/** --describe of users / clients / ips entities (quotas, then SCRAM credentials), in the
 *  order kafka-configs prints them; json: one array of objects, one per quota key (kind
 *  "quota", value the number) or SCRAM mechanism (kind "scram", value the iterations). */
int cli_configs_quota_describe(gr_admin_t *a, const cli_entities_t *e, int timeout, bool json);
/** --alter with ops (3 per op: "set" or "delete", key, value) of n ops. */
int cli_configs_quota_alter(gr_admin_t *a, const cli_entities_t *e, const char *const *ops, size_t n, int timeout);
/** Kafka's isValidIpEntity: an IP address or a host name that resolves. */
bool cli_valid_ip_entity(const char *name);

#endif
