/* Private helpers shared by group.c, group_assign.c and group_config.c. Not for other modules. */
#ifndef GR_SHARE_GROUP_INT_H
#define GR_SHARE_GROUP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "share/group.h"

/* Small internal allocations abort on OOM (STYLE §4). */
void *gr__sg_xmalloc(size_t n);
void *gr__sg_xcalloc(size_t nmemb, size_t size);
void *gr__sg_xrealloc(void *p, size_t nmemb, size_t size);
char *gr__sg_xstrdup(const char *s); /* NULL stays NULL */

int gr__sg_uuid_cmp(const gr_uuid_t *a, const gr_uuid_t *b);

/* A (topic id, partition) pair; arrays of them turn into canonical assignments. */
typedef struct gr__sg_tp {
    gr_uuid_t topic_id;
    int32_t partition;
} gr__sg_tp_t;

/* Sort and de-duplicate tps (modified in place), then build out (overwritten). */
void gr__sg_assignment_from_tps(gr__sg_tp_t *tps, size_t n, gr_sg_assignment_t *out);
/* Append every pair of a to *tps (grown with realloc; *n and *cap updated). */
void gr__sg_assignment_to_tps(const gr_sg_assignment_t *a, gr__sg_tp_t **tps, size_t *n, size_t *cap);

/* ---- registry internals (group.c), used by group_admin.c ---- */

typedef struct pending_init {
    gr__sg_tp_t tp;
    int64_t since_ms;
} pending_init_t;

typedef struct sg_group {
    gr_sg_group_t g;    /* members sorted by member_id, topics sorted by name */
    int64_t *deadlines; /* session deadline of g.members[i] */
    int32_t members_cap;
    pending_init_t *pending; /* initialization handed to the caller, not yet confirmed */
    int32_t n_pending, pending_cap;
} sg_group_t;

struct gr_share_group_registry {
    gr_sg_broker_cfg_t bcfg;
    sg_group_t **groups; /* sorted by group id */
    int32_t n, cap;
};

/* Index of group_id in reg->groups, or -(insertion point) - 1. */
int32_t gr__sg_group_pos(const gr_share_group_registry_t *reg, const char *group_id);
sg_group_t *gr__sg_group_find(const gr_share_group_registry_t *reg, const char *group_id);
/* Insert an empty group; group_id must be absent. */
sg_group_t *gr__sg_group_create(gr_share_group_registry_t *reg, const char *group_id);
void gr__sg_group_remove(gr_share_group_registry_t *reg, int32_t pos);
void gr__sg_group_destroy(sg_group_t *grp);
int gr__sg_str_cmp(const void *a, const void *b); /* qsort/bsearch over char * */

#endif
