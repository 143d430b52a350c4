/* Finalized feature levels (UpdateFeatures, api key 57): kept in the metadata store
 * next to topics and dynamic configs, so an upgrade survives a restart. Only levels
 * set by UpdateFeatures are stored; a feature never changed reports the caller's
 * default (the level a fresh node finalizes). */
#include <stdio.h>
#include <stdlib.h>

#include "meta/meta_int.h"

int16_t gr_meta_feature_level(const gr_meta_t *meta, const char *name, int16_t dflt) {
    const char *v = gr_props_get(&meta->features, name);
    int64_t x;
    if (!v || !gr_cfg_parse_i64(GR_CFG_SHORT, v, &x)) return dflt;
    return (int16_t)x;
}

int64_t gr_meta_features_epoch(const gr_meta_t *meta) { return meta->features_epoch; }
bool gr_meta_is_new(const gr_meta_t *meta) { return meta->is_new; }

gr_err_t gr_meta_feature_set(gr_meta_t *meta, const char *name, int16_t level, char *errstr, size_t errstr_size) {
    gr_props_t old;
    gr_props_init(&old);
    gr_props_copy(&old, &meta->features);
    char v[16];
    snprintf(v, sizeof(v), "%d", level);
    gr_props_set(&meta->features, name, v, 0);
    meta->features_epoch++;
    gr_err_t err = gr__meta_persist(meta, errstr, errstr_size);
    if (err) { /* memory follows the disk: undo */
        gr_props_free(&meta->features);
        meta->features = old;
        meta->features_epoch--;
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    gr_props_free(&old);
    return GR_ERR_NONE;
}
