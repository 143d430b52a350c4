/* Group config overrides with their resolved values: see group_config_store.h. */
#include "share/group_config_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/xalloc.h"

typedef struct sgc_entry {
    gr_hnode_t node;
    char *group_id;
    gr_props_t props;
    gr_sgc_values_t values;
} sgc_entry_t;

struct gr_sgc_store {
    gr_sg_broker_cfg_t broker;
    gr_sgc_values_t defaults;
    gr_htab_t map; /* group id -> sgc_entry_t */
};

#define ENTRY(n) GR_HTAB_ENTRY((n), sgc_entry_t, node)

static bool id_eq(const gr_hnode_t *node, const void *key) { return !strcmp(ENTRY(node)->group_id, (const char *)key); }

static gr_hnode_t **slot_of(const gr_sgc_store_t *st, const char *group_id) {
    return gr_htab_slot(&st->map, gr_hash(group_id, strlen(group_id)), id_eq, group_id);
}

gr_sgc_store_t *gr_sgc_store_new(const gr_sg_broker_cfg_t *broker) {
    gr_sgc_store_t *st = gr_xcalloc(1, sizeof(*st));
    st->broker = *broker;
    gr_sgc_resolve(NULL, &st->broker, &st->defaults);
    gr_htab_init(&st->map, 16);
    return st;
}

static void entry_free(sgc_entry_t *e) {
    free(e->group_id);
    gr_props_free(&e->props);
    free(e);
}

void gr_sgc_store_free(gr_sgc_store_t *st) {
    if (!st) return;
    gr_hnode_t *n = gr_htab_first(&st->map);
    while (n) {
        gr_hnode_t *next = gr_htab_next(&st->map, n);
        entry_free(ENTRY(n));
        n = next;
    }
    gr_htab_free(&st->map);
    free(st);
}

void gr_sgc_store_set(gr_sgc_store_t *st, const char *group_id, const gr_props_t *configs) {
    gr_hnode_t **slot = slot_of(st, group_id);
    sgc_entry_t *e = ENTRY(*slot);
    if (!configs || !configs->n) {
        if (e) entry_free(ENTRY(gr_htab_unlink(&st->map, slot)));
        return;
    }
    if (!e) {
        e = gr_xcalloc(1, sizeof(*e));
        e->group_id = gr_xstrdup(group_id);
        gr_props_init(&e->props);
        gr_htab_insert(&st->map, &e->node, gr_hash(group_id, strlen(group_id)));
    }
    gr_props_free(&e->props);
    gr_props_init(&e->props);
    gr_props_copy(&e->props, configs);
    gr_sgc_resolve(&e->props, &st->broker, &e->values);
}

const gr_props_t *gr_sgc_store_props(const gr_sgc_store_t *st, const char *group_id) {
    sgc_entry_t *e = ENTRY(*slot_of(st, group_id));
    return e ? &e->props : NULL;
}

const gr_sgc_values_t *gr_sgc_store_values(const gr_sgc_store_t *st, const char *group_id) {
    sgc_entry_t *e = ENTRY(*slot_of(st, group_id));
    return e ? &e->values : &st->defaults;
}

size_t gr_sgc_store_count(const gr_sgc_store_t *st) { return st->map.n; }

void gr_sgc_store_each(const gr_sgc_store_t *st, void (*fn)(void *arg, const char *group_id), void *arg) {
    for (gr_hnode_t *n = gr_htab_first(&st->map); n; n = gr_htab_next(&st->map, n)) fn(arg, ENTRY(n)->group_id);
}

int32_t gr_sgc_store_config_only(const gr_sgc_store_t *st, const gr_share_group_registry_t *reg) {
    int32_t n = 0;
    if (!st) return 0;
    for (gr_hnode_t *h = gr_htab_first(&st->map); h; h = gr_htab_next(&st->map, h))
        if (!gr_share_group_exists(reg, ENTRY(h)->group_id)) n++;
    return n;
}

bool gr_sgc_store_group_may_create(const gr_sgc_store_t *st, const gr_share_group_registry_t *reg, int32_t cap,
                                   const char *group_id, char *errstr, size_t errstr_size) {
    if (cap <= 0 || !*group_id || gr_share_group_exists(reg, group_id) ||
        gr_share_group_count(reg) + gr_sgc_store_config_only(st, reg) < cap)
        return true;
    snprintf(errstr, errstr_size,
             "The share group %s cannot be created: the broker already holds the maximum of %d share groups "
             "(group.share.max.groups).",
             group_id, cap);
    return false;
}
