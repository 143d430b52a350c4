/* Consumer groups: committed offsets (OffsetMetadataManager and the classic
 * group's offset checks): commit validation, the in-memory offsets of each group,
 * subscription checks for OffsetDelete and retention (offsets.retention.minutes). */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "cgroup/cg_int.h"
#include "cgroup/consumer.h"

#define OFF_ENTRY(hn) GR_HTAB_ENTRY(hn, cg_offset_entry_t, node)

typedef struct tp_key {
    const char *topic;
    int32_t partition;
} tp_key_t;

static uint64_t tp_hash(const char *topic, int32_t partition) {
    return gr_hash_str(topic) * 31 + (uint64_t)(uint32_t)partition;
}

static bool tp_eq(const gr_hnode_t *n, const void *key) {
    const tp_key_t *k = key;
    const cg_offset_entry_t *e = OFF_ENTRY(n);
    return e->partition == k->partition && !strcmp(e->topic, k->topic);
}

static gr_hnode_t **tp_slot(const cg_group_t *g, const char *topic, int32_t partition) {
    tp_key_t k = {topic, partition};
    return gr_htab_slot(&g->offsets, tp_hash(topic, partition), tp_eq, &k);
}

static void entry_free(cg_offset_entry_t *e) {
    free(e->topic);
    free(e->o.metadata);
    free(e);
}

void cg_offsets_free(cg_group_t *g) {
    for (gr_hnode_t *n = gr_htab_first(&g->offsets), *next; n; n = next) {
        next = gr_htab_next(&g->offsets, n);
        entry_free(OFF_ENTRY(n));
    }
    gr_htab_free(&g->offsets);
}

int16_t gr_cg_commit_check(gr_cg_registry_t *reg, const char *group_id, const char *member_id, const char *instance_id,
                           int32_t generation, int16_t version, int64_t now, bool *created) {
    *created = false;
    if (!group_id[0]) return GR_ERR_INVALID_GROUP_ID;
    cg_group_t *g = cg_find(reg, group_id);
    if (g && g->type == GR_CG_TYPE_CONSUMER) return gr_cgc_commit_check(reg, group_id, member_id, generation, version);
    if (!g) {
        /* Generation -1: an admin or a consumer without group management commits
         * into a "simple" group, created here. */
        if (generation >= 0) return version >= 9 ? GR_ERR_GROUP_ID_NOT_FOUND : GR_ERR_ILLEGAL_GENERATION;
        cg_create(reg, group_id, now);
        *created = true;
        return 0;
    }
    if (g->state == GR_CG_DEAD) return GR_ERR_COORDINATOR_NOT_AVAILABLE;
    if (generation < 0 && g->state == GR_CG_EMPTY) return 0;
    if (generation >= 0 || member_id[0] || instance_id) {
        int16_t err = cg_validate_member(g, member_id, instance_id);
        if (err) return err;
        if (generation != g->generation) return GR_ERR_ILLEGAL_GENERATION;
    } else if (g->state != GR_CG_EMPTY) {
        return GR_ERR_UNKNOWN_MEMBER_ID;
    }
    if (g->state == GR_CG_COMPLETING_REBALANCE) return GR_ERR_REBALANCE_IN_PROGRESS;
    /* A commit keeps the member's session alive in Stable and PreparingRebalance. */
    cg_member_t *m = cg_member(g, member_id);
    if (m && (g->state == GR_CG_STABLE || g->state == GR_CG_PREPARING_REBALANCE)) m->hb_deadline = now + m->session_ms;
    return 0;
}

void gr_cg_offset_put(gr_cg_registry_t *reg, const char *group_id, const char *topic, int32_t partition,
                      const gr_cg_offset_t *o) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) g = cg_create(reg, group_id, o->commit_ms);
    gr_hnode_t **s = tp_slot(g, topic, partition);
    cg_offset_entry_t *e = OFF_ENTRY(*s);
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (!e) abort();
        e->topic = cg_strdup(topic);
        e->partition = partition;
        gr_htab_insert(&g->offsets, &e->node, tp_hash(topic, partition));
    } else {
        free(e->o.metadata);
    }
    e->o = *o;
    e->o.metadata = cg_strdup(o->metadata ? o->metadata : "");
}

const gr_cg_offset_t *gr_cg_offset_get(const gr_cg_registry_t *reg, const char *group_id, const char *topic,
                                       int32_t partition) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g) return NULL;
    cg_offset_entry_t *e = OFF_ENTRY(*tp_slot(g, topic, partition));
    return e ? &e->o : NULL;
}

bool gr_cg_offset_delete(gr_cg_registry_t *reg, const char *group_id, const char *topic, int32_t partition) {
    cg_group_t *g = cg_find(reg, group_id);
    if (!g) return false;
    gr_hnode_t **s = tp_slot(g, topic, partition);
    if (!*s) return false;
    entry_free(OFF_ENTRY(gr_htab_unlink(&g->offsets, s)));
    return true;
}

static int cmp_entry(const void *a, const void *b) {
    const cg_offset_entry_t *x = *(cg_offset_entry_t *const *)a, *y = *(cg_offset_entry_t *const *)b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : (x->partition > y->partition) - (x->partition < y->partition);
}

void gr_cg_offsets_foreach(const gr_cg_registry_t *reg, const char *group_id, gr_cg_offset_fn *fn, void *arg) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || !g->offsets.n) return;
    cg_offset_entry_t **v = malloc(g->offsets.n * sizeof(*v));
    if (!v) abort();
    size_t n = 0;
    for (gr_hnode_t *h = gr_htab_first(&g->offsets); h; h = gr_htab_next(&g->offsets, h)) v[n++] = OFF_ENTRY(h);
    qsort(v, n, sizeof(*v), cmp_entry);
    for (size_t i = 0; i < n; i++) fn(arg, v[i]->topic, v[i]->partition, &v[i]->o);
    free(v);
}

bool gr_cg_fetch_visible(const gr_cg_registry_t *reg, const char *group_id) {
    const cg_group_t *g = cg_find(reg, group_id);
    return g && g->state != GR_CG_DEAD;
}

static bool uses_consumer_protocol(const cg_group_t *g) {
    return g->type == GR_CG_TYPE_CONSUMER || (g->protocol_type && !strcmp(g->protocol_type, "consumer"));
}

int16_t gr_cg_offset_delete_check(const gr_cg_registry_t *reg, const char *group_id) {
    const cg_group_t *g = cg_find(reg, group_id);
    if (!g || g->state == GR_CG_DEAD) return GR_ERR_GROUP_ID_NOT_FOUND;
    if (g->state != GR_CG_EMPTY && !uses_consumer_protocol(g)) return GR_ERR_NON_EMPTY_GROUP;
    return 0;
}

/* Does ConsumerProtocol subscription metadata (v0 prefix: int16 version, int32 count,
 * int16-length topic names) name topic? -1 if it does not parse. */
static int subscription_names(const uint8_t *p, int32_t len, const char *topic) {
    if (len < 6) return -1;
    int32_t n = (int32_t)((uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 8 | p[5]);
    int32_t off = 6;
    size_t tl = strlen(topic);
    if (n < 0) return -1;
    for (int32_t i = 0; i < n; i++) {
        if (off + 2 > len) return -1;
        int32_t sl = (int32_t)((uint32_t)p[off] << 8 | p[off + 1]);
        off += 2;
        if (sl < 0 || off + sl > len) return -1;
        if ((size_t)sl == tl && !memcmp(p + off, topic, tl)) return 1;
        off += sl;
    }
    return 0;
}

static bool subscribed(const cg_group_t *g, const char *topic) {
    if (g->type == GR_CG_TYPE_CONSUMER) return cgc_subscribed(g, topic);
    if (g->n_members == 0 || !uses_consumer_protocol(g)) return false;
    if (!g->protocol_name) return true;
    for (int32_t i = 0; i < g->n_members; i++) {
        const cg_member_t *m = g->members[i];
        for (int32_t k = 0; k < m->n_protos; k++) {
            if (strcmp(m->protos[k].name, g->protocol_name)) continue;
            int r = subscription_names(m->protos[k].metadata, m->protos[k].len, topic);
            if (r != 0) return true; /* unparsable: assume subscribed, as Kafka */
        }
    }
    return false;
}

bool gr_cg_subscribed_to(const gr_cg_registry_t *reg, const char *group_id, const char *topic) {
    const cg_group_t *g = cg_find(reg, group_id);
    return g && subscribed(g, topic);
}

/* ClassicGroup.offsetExpirationCondition: an Empty group's offsets expire a retention
 * period after the group became Empty; a simple group's (no protocol type) and a
 * Stable consumer group's unsubscribed topics a retention period after their commit.
 * An explicit expire time (OffsetCommit v2-4 RetentionTimeMs) wins. */
static void expire_group(gr_cg_registry_t *reg, cg_group_t *g, int64_t now, gr_cg_out_t *out) {
    bool empty = g->state == GR_CG_EMPTY;
    bool simple = !g->protocol_type;
    bool stable_consumer = (g->state == GR_CG_STABLE && uses_consumer_protocol(g) && g->protocol_name) ||
                           (g->type == GR_CG_TYPE_CONSUMER && !empty);
    for (gr_hnode_t *n = gr_htab_first(&g->offsets), *next; n; n = next) {
        next = gr_htab_next(&g->offsets, n);
        cg_offset_entry_t *e = OFF_ENTRY(n);
        bool expired;
        if (e->o.expire_ms >= 0)
            expired = now >= e->o.expire_ms;
        else if (simple)
            expired = now - e->o.commit_ms >= reg->cfg.offsets_retention_ms;
        else if (empty)
            expired = now - g->state_ms >= reg->cfg.offsets_retention_ms;
        else if (stable_consumer && !subscribed(g, e->topic))
            expired = now - e->o.commit_ms >= reg->cfg.offsets_retention_ms;
        else
            expired = false;
        if (!expired) continue;
        out->expired = cg_grow(out->expired, &out->cap_expired, out->n_expired + 1, sizeof(*out->expired));
        out->expired[out->n_expired++] = (gr_cg_tp_ref_t){cg_strdup(g->id), cg_strdup(e->topic), e->partition};
        gr_cg_offset_delete(reg, g->id, e->topic, e->partition);
    }
}

void cg_offsets_expire(gr_cg_registry_t *reg, int64_t now, gr_cg_out_t *out) {
    for (int32_t i = 0; i < reg->n_order; i++) {
        cg_group_t *g = reg->order[i];
        expire_group(reg, g, now, out);
        /* An Empty group without offsets is deleted (Kafka's cleanup). */
        if (g->state == GR_CG_EMPTY && !g->offsets.n && !g->n_pending) {
            cg_remove_group(reg, g, out);
            i--;
        }
    }
}
