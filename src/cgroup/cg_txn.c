/* Consumer groups: transactional offsets (TxnOffsetCommit). Kafka's
 * OffsetMetadataManager keeps them pending per group and producer id until the
 * transaction's marker reaches the group's offsets partition: a commit makes them
 * the committed offsets, an abort drops them. Until then OffsetFetch with
 * require_stable answers UNSTABLE_OFFSET_COMMIT for their partitions. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cgroup/cg_int.h"
#include "cgroup/consumer.h"

/* OffsetMetadataManager.validateTransactionalOffsetCommit: the checks of a plain
 * commit without the "not a member while not Empty" and rebalance-in-progress ones. */
int16_t gr_cg_txn_commit_check(gr_cg_registry_t *reg, const char *group_id, const char *member_id,
                               const char *instance_id, int32_t generation, int64_t now, bool *created) {
    *created = false;
    if (!group_id[0]) return GR_ERR_INVALID_GROUP_ID;
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) {
        if (generation >= 0) return GR_ERR_ILLEGAL_GENERATION;
        cg_create(reg, group_id, now);
        *created = true;
        return 0;
    }
    if (g->type == GR_CG_TYPE_CONSUMER) {
        int16_t e = gr_cgc_commit_check(reg, group_id, member_id, generation, 9);
        return e == GR_ERR_STALE_MEMBER_EPOCH ? GR_ERR_ILLEGAL_GENERATION : e;
    }
    if (g->state == GR_CG_DEAD) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    if (generation < 0 && g->state == GR_CG_EMPTY) return 0;
    if (generation >= 0 || member_id[0] || instance_id) {
        int16_t err = cg_validate_member(g, member_id, instance_id);
        if (err) return err;
        if (generation != g->generation) return GR_ERR_ILLEGAL_GENERATION;
    }
    return 0;
}

static int32_t find(const gr_cg_registry_t *reg, const char *group_id, int64_t pid, const char *topic,
                    int32_t partition) {
    for (int32_t i = 0; i < reg->n_txn; i++) {
        const cg_txn_offset_t *p = &reg->txn[i];
        if (p->pid == pid && p->partition == partition && !strcmp(p->topic, topic) && !strcmp(p->group_id, group_id))
            return i;
    }
    return -1;
}

void gr_cg_txn_put(gr_cg_registry_t *reg, const char *group_id, int64_t pid, const char *topic, int32_t partition,
                   const gr_cg_offset_t *o) {
    int32_t i = find(reg, group_id, pid, topic, partition);
    if (i < 0) {
        reg->txn = cg_grow(reg->txn, &reg->cap_txn, reg->n_txn + 1, sizeof(*reg->txn));
        i = reg->n_txn++;
        reg->txn[i] = (cg_txn_offset_t){cg_strdup(group_id), cg_strdup(topic), partition, pid, {0}};
    } else {
        free(reg->txn[i].o.metadata);
    }
    reg->txn[i].o = *o;
    reg->txn[i].o.metadata = cg_strdup(o->metadata ? o->metadata : "");
    if (!cg_find(reg, group_id)) cg_create(reg, group_id, o->commit_ms);
}

static void entry_free(cg_txn_offset_t *p) {
    free(p->group_id);
    free(p->topic);
    free(p->o.metadata);
}

int32_t gr_cg_txn_complete(gr_cg_registry_t *reg, int64_t pid, gr_cg_txn_fn *fn, void *arg) {
    int32_t n = 0;
    for (int32_t i = 0; i < reg->n_txn;) {
        cg_txn_offset_t *p = &reg->txn[i];
        if (p->pid != pid) {
            i++;
            continue;
        }
        if (fn) fn(arg, p->group_id, p->topic, p->partition, &p->o);
        entry_free(p);
        reg->txn[i] = reg->txn[--reg->n_txn];
        n++;
    }
    return n;
}

bool gr_cg_txn_pending(const gr_cg_registry_t *reg, const char *group_id, const char *topic, int32_t partition) {
    for (int32_t i = 0; i < reg->n_txn; i++) {
        const cg_txn_offset_t *p = &reg->txn[i];
        if (p->partition == partition && !strcmp(p->topic, topic) && !strcmp(p->group_id, group_id)) return true;
    }
    return false;
}

int32_t gr_cg_txn_count(const gr_cg_registry_t *reg) { return reg->n_txn; }

void cg_txn_free_all(gr_cg_registry_t *reg) {
    for (int32_t i = 0; i < reg->n_txn; i++) entry_free(&reg->txn[i]);
    free(reg->txn);
    reg->txn = NULL;
    reg->n_txn = reg->cap_txn = 0;
}
