/* Share-partitions in memory by (group, topic, partition): see sp_registry.h. */
#include "share/sp_registry.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/xalloc.h"

#define INITIAL_BUCKETS 64

struct gr_sp_registry {
    gr_sp_key_t **buckets;
    size_t n_buckets, n; /* n_buckets: a power of two */
};

static uint64_t key_hash(const char *group, const gr_uuid_t *topic_id, int32_t partition) {
    gr_hasher_t h; /* keyed: group ids are the clients' choice */
    gr_hasher_init(&h);
    gr_hasher_update(&h, group, strlen(group));
    gr_hasher_update(&h, topic_id->b, 16);
    gr_hasher_update(&h, &partition, sizeof(partition));
    return gr_hasher_final(&h);
}

static gr_sp_key_t **bucket_of(const gr_sp_registry_t *reg, const char *group, const gr_uuid_t *topic_id,
                               int32_t partition) {
    return &reg->buckets[key_hash(group, topic_id, partition) & (reg->n_buckets - 1)];
}

gr_sp_registry_t *gr_sp_registry_new(void) {
    gr_sp_registry_t *reg = gr_xcalloc(1, sizeof(*reg));
    reg->n_buckets = INITIAL_BUCKETS;
    reg->buckets = gr_xcalloc(reg->n_buckets, sizeof(*reg->buckets));
    return reg;
}

void gr_sp_registry_free(gr_sp_registry_t *reg) {
    if (!reg) return;
    free(reg->buckets);
    free(reg);
}

static void grow(gr_sp_registry_t *reg) {
    size_t nb = reg->n_buckets * 2;
    gr_sp_key_t **nbk = gr_xcalloc(nb, sizeof(*nbk));
    for (size_t i = 0; i < reg->n_buckets; i++) {
        gr_sp_key_t *k = reg->buckets[i];
        while (k) {
            gr_sp_key_t *next = k->hnext;
            size_t j = key_hash(k->group, &k->topic_id, k->partition) & (nb - 1);
            k->hnext = nbk[j];
            nbk[j] = k;
            k = next;
        }
    }
    free(reg->buckets);
    reg->buckets = nbk;
    reg->n_buckets = nb;
}

gr_sp_key_t *gr_sp_registry_find(const gr_sp_registry_t *reg, const char *group, const gr_uuid_t *topic_id,
                                 int32_t partition) {
    if (!reg) return NULL;
    for (gr_sp_key_t *k = *bucket_of(reg, group, topic_id, partition); k; k = k->hnext)
        if (k->partition == partition && gr_uuid_eq(&k->topic_id, topic_id) && !strcmp(k->group, group)) return k;
    return NULL;
}

void gr_sp_registry_insert(gr_sp_registry_t *reg, gr_sp_key_t *k) {
    if (reg->n >= reg->n_buckets * 2) grow(reg);
    gr_sp_key_t **bk = bucket_of(reg, k->group, &k->topic_id, k->partition);
    k->hnext = *bk;
    *bk = k;
    reg->n++;
}

static bool matches(const gr_sp_key_t *k, const char *group, const gr_uuid_t *topic_id, int32_t partition) {
    if (group && strcmp(k->group, group)) return false;
    if (topic_id && !gr_uuid_eq(&k->topic_id, topic_id)) return false;
    return partition < 0 || k->partition == partition;
}

size_t gr_sp_registry_remove(gr_sp_registry_t *reg, const char *group, const gr_uuid_t *topic_id, int32_t partition,
                             void (*fn)(void *arg, gr_sp_key_t *k), void *arg) {
    size_t removed = 0;
    for (size_t i = 0; reg && i < reg->n_buckets; i++) {
        gr_sp_key_t **pp = &reg->buckets[i];
        while (*pp) {
            gr_sp_key_t *k = *pp;
            if (!matches(k, group, topic_id, partition)) {
                pp = &k->hnext;
                continue;
            }
            *pp = k->hnext;
            reg->n--;
            removed++;
            fn(arg, k);
        }
    }
    return removed;
}

size_t gr_sp_registry_count(const gr_sp_registry_t *reg) { return reg ? reg->n : 0; }

void gr_sp_registry_each(const gr_sp_registry_t *reg, const char *group, void (*fn)(void *arg, gr_sp_key_t *k),
                         void *arg) {
    for (size_t i = 0; reg && i < reg->n_buckets; i++)
        for (gr_sp_key_t *k = reg->buckets[i]; k; k = k->hnext)
            if (!group || !strcmp(k->group, group)) fn(arg, k);
}
