/* A share group and its config overrides <-> one group store record
 * (share/group_store.h). A record holds the group's durable state (type
 * GR_GSTORE_TYPE_SHARE) and its configs; a group id with configs only is stored with
 * type GR_GSTORE_TYPE_CONFIG_ONLY and is not a group (ListGroups does not show it).
 * Pure; every pointer of the result borrows from the input or the arena. */
#ifndef GR_SHARE_GROUP_RECORD_H
#define GR_SHARE_GROUP_RECORD_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/props.h"
#include "share/group.h"
#include "share/group_store.h"

/** A record that only carries config overrides (no share group). */
enum { GR_GSTORE_TYPE_CONFIG_ONLY = 0 };

/** The record of group_id: g (NULL: configs only) and its overrides cf (may be NULL). */
void gr_sg_record_build(gr_arena_t *a, const char *group_id, const gr_sg_group_t *g, const gr_props_t *cf,
                        gr_gstore_group_t *out);
/** A stored record: its configs go to cf (an initialised map, added to); when it is a
 *  share group, g gets it (borrowing from rec and a) and true is returned. */
bool gr_sg_record_load(gr_arena_t *a, const gr_gstore_group_t *rec, gr_props_t *cf, gr_sg_group_t *g);

#endif
