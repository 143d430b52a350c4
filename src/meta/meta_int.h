/* Internals shared by meta.c and meta_persist.c. Not for other modules. */
#ifndef GR_META_META_INT_H
#define GR_META_META_INT_H

#include "meta/meta.h"

struct gr_meta {
    char *log_dir;
    char *meta_path; /* <log dir>/gregor.metadata */
    int32_t node_id;
    char cluster_id[64];
    gr_props_t static_cfg;
    gr_props_t dyn_broker;    /* AlterConfigs on BROKER "<node id>" */
    gr_props_t dyn_default;   /* AlterConfigs on BROKER "" */
    gr_props_t features;      /* finalized feature levels set by UpdateFeatures (meta_features.c) */
    int64_t features_epoch;   /* bumped by every feature change */
    bool is_new;              /* meta.properties was created by this open */
    gr_meta_topic_t **topics; /* sorted by name */
    size_t n_topics, cap_topics;
    int32_t *by_name, *by_id; /* open addressing: topic index + 1, 0 = empty */
    size_t hash_cap;
};

/** Read or create <log dir>/meta.properties. */
gr_err_t gr__meta_load_meta_properties(gr_meta_t *meta, char *errstr, size_t errstr_size);
/** Load the metadata file (absent = empty store); fills topics and dynamic configs. */
gr_err_t gr__meta_load(gr_meta_t *meta, char *errstr, size_t errstr_size);
/** Write the whole store atomically. */
gr_err_t gr__meta_persist(const gr_meta_t *meta, char *errstr, size_t errstr_size);
/** Write text to path atomically (temp file, fsync, rename, fsync dir). */
gr_err_t gr__meta_write_atomic(const char *path, const char *text, size_t len, char *errstr, size_t errstr_size);

/** Insert a topic (taking ownership) keeping name order; rebuilds the indexes. */
void gr__meta_insert(gr_meta_t *meta, gr_meta_topic_t *t);
void gr__meta_topic_free(gr_meta_topic_t *t);

#endif
