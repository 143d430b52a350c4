/* What share groups do when time or metadata moves under them:
 *  - member expiry (spec §4.6): every member whose session deadline has passed leaves
 *    its group; its acquired records are released (§1.3 rule 3), and the group is
 *    written again (or deleted from the group store once forgotten);
 *  - group forgetting: a group whose last member expired and that never held share
 *    state or configs (an anonymous heartbeat made it up) is forgotten, so such groups
 *    do not pile up against group.share.max.groups; groups with state stay, as in Kafka;
 *  - topic deletion (§6.6): every group forgets the topic (written when that changed),
 *    its share-partitions in memory are dropped, and its share state is deleted.
 *
 * Explicit dependencies: the group registry, the share-state store, the clock value
 * and the broker's hooks below (share-partitions in memory, config overrides, the
 * group store). Otherwise pure; one thread. */
#ifndef GR_SHARE_GROUP_LIFECYCLE_H
#define GR_SHARE_GROUP_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/uuid.h"
#include "share/group.h"
#include "share/state_store.h"

/** The rest of the broker, as the group side sees it. */
typedef struct gr_sg_hooks {
    /** Release every record member_id holds in group_id's share-partitions. */
    void (*release_member)(void *ctx, const char *group_id, const char *member_id);
    /** Forget group_id's share-partitions in memory (topic_id NULL: every topic). */
    void (*drop_partitions)(void *ctx, const char *group_id, const gr_uuid_t *topic_id);
    /** True if group_id has stored config overrides. */
    bool (*has_configs)(void *ctx, const char *group_id);
    /** Write group_id's record to the group store (deleted when the group is gone). */
    void (*persist)(void *ctx, const char *group_id);
    void *ctx;
} gr_sg_hooks_t;

/** Member expiry at now_ms (see above). Returns the number of members expired. */
int32_t gr_share_groups_expire(gr_share_group_registry_t *reg, int64_t now_ms, const gr_sg_hooks_t *h);

/** Forget group_id if it is empty and never held state or configs (see above); its
 *  share-partitions are dropped first. True if it was forgotten. */
bool gr_share_group_forget_unused(gr_share_group_registry_t *reg, const char *group_id, const gr_sg_hooks_t *h);

/** Topic topic_id was deleted (see above). *n_deleted: share-partition states deleted.
 *  Returns the store's error (the groups have forgotten the topic anyway). */
gr_err_t gr_share_groups_topic_deleted(gr_share_group_registry_t *reg, gr_sstore_t *ss, const gr_uuid_t *topic_id,
                                       const gr_sg_hooks_t *h, size_t *n_deleted);

#endif
