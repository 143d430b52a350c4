/* The share-group config overrides of every group, each resolved ONCE into its typed
 * values (gr_sgc_values_t) when it is set (IncrementalAlterConfigs / AlterConfigs, or
 * loading the group store at start-up), so that acquisitions, lock timers and
 * heartbeats read plain fields instead of re-parsing strings. A group without
 * overrides reads the broker defaults, resolved once when the store is made.
 *
 * Group configs are independent of groups, as in Kafka: an id may have configs and
 * no group. Pure: no I/O (persisting is the caller's).
 *
 * @locality one thread (the broker's loop thread). */
#ifndef GR_SHARE_GROUP_CONFIG_STORE_H
#define GR_SHARE_GROUP_CONFIG_STORE_H

#include <stddef.h>

#include "base/props.h"
#include "share/group.h"
#include "share/group_config.h"
#include "share/sg_broker_cfg.h"

typedef struct gr_sgc_store gr_sgc_store_t;

/** An empty store resolving against a copy of the broker's defaults and bounds. */
gr_sgc_store_t *gr_sgc_store_new(const gr_sg_broker_cfg_t *broker);
void gr_sgc_store_free(gr_sgc_store_t *st);

/** Replace the overrides of group_id (copied) and resolve them; NULL or an empty set
 *  removes the group's entry. The caller validated them (gr_sgc_validate). */
void gr_sgc_store_set(gr_sgc_store_t *st, const char *group_id, const gr_props_t *configs);
/** The group's overrides, NULL when it has none. Valid until the next set. */
const gr_props_t *gr_sgc_store_props(const gr_sgc_store_t *st, const char *group_id);
/** The group's effective values (its overrides resolved, or the broker defaults).
 *  Valid until the next set of that group. */
const gr_sgc_values_t *gr_sgc_store_values(const gr_sgc_store_t *st, const char *group_id);

/** Number of groups with overrides, and fn(arg, group_id) for each. */
size_t gr_sgc_store_count(const gr_sgc_store_t *st);
void gr_sgc_store_each(const gr_sgc_store_t *st, void (*fn)(void *arg, const char *group_id), void *arg);

/** Ids with overrides that are not share groups of reg (configs-only groups: each is a
 *  stored record, so they count toward group.share.max.groups). */
int32_t gr_sgc_store_config_only(const gr_sgc_store_t *st, const gr_share_group_registry_t *reg);
/** group.share.max.groups (cap <= 0: none): whether group_id may become a new share
 *  group, counting configs-only groups; false with Kafka-style text in errstr. An
 *  existing group and the empty id (refused elsewhere) may always proceed. */
bool gr_sgc_store_group_may_create(const gr_sgc_store_t *st, const gr_share_group_registry_t *reg, int32_t cap,
                                   const char *group_id, char *errstr, size_t errstr_size);

#endif
