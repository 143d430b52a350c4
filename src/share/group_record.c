/* Share group <-> group store record: see group_record.h. */
#include "share/group_record.h"

#include <string.h>

static void tps_out(gr_arena_t *a, const gr_sg_assignment_t *in, gr_gstore_tps_t *out) {
    out->n_topics = in->n_topics;
    out->topics = gr_arena_alloc(a, (size_t)in->n_topics * sizeof(*out->topics) + 1);
    for (int32_t i = 0; i < in->n_topics; i++)
        out->topics[i] = (gr_gstore_tp_t){in->topics[i].topic_id, in->topics[i].partitions, in->topics[i].n_partitions};
}

static void tps_in(gr_arena_t *a, const gr_gstore_tps_t *in, gr_sg_assignment_t *out) {
    out->n_topics = in->n_topics;
    out->topics = gr_arena_alloc(a, (size_t)in->n_topics * sizeof(*out->topics) + 1);
    for (int32_t i = 0; i < in->n_topics; i++)
        out->topics[i] =
            (gr_sg_topic_parts_t){in->topics[i].topic_id, in->topics[i].partitions, in->topics[i].n_partitions};
}

static void members_out(gr_arena_t *a, const gr_sg_group_t *g, gr_gstore_group_t *out) {
    out->n_members = g->n_members;
    out->members = gr_arena_alloc(a, (size_t)g->n_members * sizeof(*out->members) + 1);
    for (int32_t i = 0; i < g->n_members; i++) {
        const gr_sg_member_t *m = &g->members[i];
        gr_gstore_member_t *o = &out->members[i];
        *o = (gr_gstore_member_t){.member_id = m->member_id,
                                  .member_epoch = m->member_epoch,
                                  .previous_epoch = m->previous_epoch,
                                  .client_id = m->client_id,
                                  .client_host = m->client_host,
                                  .rack_id = m->rack_id,
                                  .subscribed = m->subscribed,
                                  .n_subscribed = m->n_subscribed};
        tps_out(a, &m->assignment, &o->assignment);
        tps_out(a, &m->target, &o->target);
    }
    out->n_topics = g->n_topics;
    out->topics = gr_arena_alloc(a, (size_t)g->n_topics * sizeof(*out->topics) + 1);
    for (int32_t i = 0; i < g->n_topics; i++)
        out->topics[i] = (gr_gstore_topic_t){g->topics[i].name, g->topics[i].topic_id, g->topics[i].n_partitions};
}

void gr_sg_record_build(gr_arena_t *a, const char *group_id, const gr_sg_group_t *g, const gr_props_t *cf,
                        gr_gstore_group_t *out) {
    memset(out, 0, sizeof(*out));
    out->group_id = (char *)group_id;
    out->type = g ? GR_GSTORE_TYPE_SHARE : GR_GSTORE_TYPE_CONFIG_ONLY;
    if (g) {
        out->group_epoch = g->group_epoch;
        out->assignment_epoch = g->assignment_epoch;
        members_out(a, g, out);
        tps_out(a, &g->initialized, &out->initialized);
    }
    size_t n = cf ? cf->n : 0;
    out->configs = gr_arena_alloc(a, n * sizeof(*out->configs) + 1);
    out->n_configs = (int32_t)n;
    for (size_t i = 0; i < n; i++) out->configs[i] = (gr_gstore_config_t){cf->v[i].key, cf->v[i].value};
}

bool gr_sg_record_load(gr_arena_t *a, const gr_gstore_group_t *rec, gr_props_t *cf, gr_sg_group_t *g) {
    for (int32_t i = 0; i < rec->n_configs; i++) gr_props_set(cf, rec->configs[i].name, rec->configs[i].value, 0);
    if (rec->type != GR_GSTORE_TYPE_SHARE) return false;
    *g = (gr_sg_group_t){.group_id = rec->group_id,
                         .group_epoch = rec->group_epoch,
                         .assignment_epoch = rec->assignment_epoch,
                         .n_members = rec->n_members,
                         .n_topics = rec->n_topics};
    g->members = gr_arena_alloc(a, (size_t)rec->n_members * sizeof(*g->members) + 1);
    for (int32_t i = 0; i < rec->n_members; i++) {
        const gr_gstore_member_t *m = &rec->members[i];
        g->members[i] = (gr_sg_member_t){.member_id = m->member_id,
                                         .member_epoch = m->member_epoch,
                                         .previous_epoch = m->previous_epoch,
                                         .client_id = m->client_id,
                                         .client_host = m->client_host,
                                         .rack_id = m->rack_id,
                                         .subscribed = m->subscribed,
                                         .n_subscribed = m->n_subscribed};
        tps_in(a, &m->assignment, &g->members[i].assignment);
        tps_in(a, &m->target, &g->members[i].target);
    }
    g->topics = gr_arena_alloc(a, (size_t)rec->n_topics * sizeof(*g->topics) + 1);
    for (int32_t i = 0; i < rec->n_topics; i++)
        g->topics[i] = (gr_sg_topic_meta_t){rec->topics[i].name, rec->topics[i].topic_id, rec->topics[i].n_partitions};
    tps_in(a, &rec->initialized, &g->initialized);
    return true;
}
