/* Share-partition initialization of a share group: see group_init.h. */
#include "share/group_init.h"

gr_err_t gr_share_group_initialize(gr_share_group_registry_t *reg, gr_sstore_t *ss, const char *group_id,
                                   const gr_sg_assignment_t *parts, const gr_sg_init_wait_t *w, bool *changed) {
    const gr_sg_group_t *view;
    gr_sg_state_t st;
    char e[128];
    *changed = false;
    if (gr_share_group_describe(reg, group_id, false, &view, &st, e, sizeof(e))) return GR_ERR_NONE;
    int32_t state_epoch = view->group_epoch;
    gr_err_t first = GR_ERR_NONE;
    bool waits = w && w->cb;
    for (int32_t i = 0; i < parts->n_topics; i++) {
        for (int32_t j = 0; j < parts->topics[i].n_partitions; j++) {
            gr_sstore_key_t key = gr_sstore_key(group_id, parts->topics[i].topic_id, parts->topics[i].partitions[j]);
            gr_sstore_state_t cur;
            if (gr_sstore_read(ss, &key, &cur) == GR_ERR_NONE) continue; /* state already there */
            if (waits && w->add) w->add(w->arg);
            gr_err_t err = gr_sstore_initialize(ss, &key, state_epoch, -1, waits ? w->cb : NULL, waits ? w->arg : NULL);
            if (err && w && w->refused) w->refused(w->arg, err);
            if (err && !first) first = err;
        }
    }
    if (first) {
        gr_share_group_init_failed(reg, group_id, parts);
        return first;
    }
    gr_share_group_mark_initialized(reg, group_id, parts, changed);
    return GR_ERR_NONE;
}
