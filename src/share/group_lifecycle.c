/* Member expiry, group forgetting and topic deletion: see group_lifecycle.h. */
#include "share/group_lifecycle.h"

#include <stdlib.h>

#include "base/log.h"
#include "base/xalloc.h"

bool gr_share_group_forget_unused(gr_share_group_registry_t *reg, const char *group_id, const gr_sg_hooks_t *h) {
    const gr_sg_group_t *g;
    gr_sg_state_t st;
    char e[64];
    if (gr_share_group_describe(reg, group_id, false, &g, &st, e, sizeof(e))) return false;
    if (g->n_members > 0 || g->initialized.n_topics > 0 || h->has_configs(h->ctx, group_id)) return false;
    h->drop_partitions(h->ctx, group_id, NULL);
    if (gr_share_group_delete(reg, group_id, NULL)) return false;
    GR_INFO("share", "share group %s forgotten: empty after its last member expired, and it never held state",
            group_id);
    return true;
}

int32_t gr_share_groups_expire(gr_share_group_registry_t *reg, int64_t now_ms, const gr_sg_hooks_t *h) {
    gr_sg_expired_t *ex = NULL;
    int32_t n = gr_share_group_expire(reg, now_ms, &ex);
    for (int32_t i = 0; i < n; i++) {
        GR_INFO("share", "member %s of share group %s expired (session timeout)", ex[i].member_id, ex[i].group_id);
        h->release_member(h->ctx, ex[i].group_id, ex[i].member_id);
        (void)gr_share_group_forget_unused(reg, ex[i].group_id, h);
        h->persist(h->ctx, ex[i].group_id); /* a forgotten group is deleted from the store */
    }
    gr_sg_expired_free(ex, n);
    return n;
}

gr_err_t gr_share_groups_topic_deleted(gr_share_group_registry_t *reg, gr_sstore_t *ss, const gr_uuid_t *topic_id,
                                       const gr_sg_hooks_t *h, size_t *n_deleted) {
    for (int32_t i = 0; i < gr_share_group_count(reg); i++) {
        char *gid = gr_xstrdup(gr_share_group_id_at(reg, i)); /* the registry's copy may move while the group changes */
        bool changed = false;
        h->drop_partitions(h->ctx, gid, topic_id);
        gr_share_group_forget_topic(reg, gid, topic_id, &changed);
        if (changed) h->persist(h->ctx, gid);
        free(gid);
    }
    *n_deleted = 0;
    return ss ? gr_sstore_delete_topic(ss, NULL, 0, *topic_id, n_deleted, NULL, NULL) : GR_ERR_NONE;
}
