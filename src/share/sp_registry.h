/* The registry of the share-partitions a broker holds in memory: (group id, topic
 * id, partition) -> entry. A chained hash keyed per process (group ids are the
 * clients' choice) that doubles when it holds twice as many entries as buckets.
 *
 * Intrusive: an entry embeds a gr_sp_key_t (its key and hash link); the registry
 * never allocates, copies or frees entries.
 *
 * @locality one thread (the broker's loop thread). */
#ifndef GR_SHARE_SP_REGISTRY_H
#define GR_SHARE_SP_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "base/uuid.h"

/** The key an entry embeds. group is the entry's (the registry only reads it). */
typedef struct gr_sp_key {
    struct gr_sp_key *hnext;
    char *group;
    gr_uuid_t topic_id;
    int32_t partition;
} gr_sp_key_t;

typedef struct gr_sp_registry gr_sp_registry_t;

gr_sp_registry_t *gr_sp_registry_new(void);
/** Free the registry (its entries must have been removed). NULL is a no-op. */
void gr_sp_registry_free(gr_sp_registry_t *reg);

/** The entry of (group, topic_id, partition), or NULL. */
gr_sp_key_t *gr_sp_registry_find(const gr_sp_registry_t *reg, const char *group, const gr_uuid_t *topic_id,
                                 int32_t partition);
/** Add an entry whose key is set and not in the registry yet. */
void gr_sp_registry_insert(gr_sp_registry_t *reg, gr_sp_key_t *k);
/** Unlink every entry matching group (NULL: any), topic_id (NULL: any) and partition
 *  (< 0: any), calling fn(arg, k) on each right after it is unlinked (fn may free it,
 *  and must not insert). Returns how many were removed. */
size_t gr_sp_registry_remove(gr_sp_registry_t *reg, const char *group, const gr_uuid_t *topic_id, int32_t partition,
                             void (*fn)(void *arg, gr_sp_key_t *k), void *arg);
/** Number of entries. */
size_t gr_sp_registry_count(const gr_sp_registry_t *reg);
/** fn(arg, k) for every entry, or (group not NULL) every entry of the group; fn must
 *  not insert or remove. */
void gr_sp_registry_each(const gr_sp_registry_t *reg, const char *group, void (*fn)(void *arg, gr_sp_key_t *k),
                         void *arg);

#endif
