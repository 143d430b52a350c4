/* The capacity view of a share group (docs/capacity.md): the window
 * snapshots of each in-memory share-partition and the numbers of
 * GET /v1/share-groups/<group>/capacity, computed by share/capacity.c from the
 * same counters /metrics exports and formatted by share/describe_json.c.
 *
 * A share-partition not in memory on this broker (no share session of the group
 * fetches it) has no window: it shows its cap and lag only.
 * @locality loop thread. */
#include "broker/share_capacity.h"

#include <stdlib.h>

#include "base/xalloc.h"
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/share_coord.h"

/* ---------------------------------------------------------------- window */

static int64_t log_end(gr_broker_t *b, const gr_uuid_t *topic_id, int32_t partition) {
    gr_partition_t *p = gr_parts_find_id(b->parts, topic_id, partition);
    return p && p->plog && !p->offline ? gr_plog_end_offset(p->plog) : -1;
}

static void take(gr_share_part_t *part, gr_cap_snap_t *s) {
    gr_broker_t *b = part->b;
    gr_cap_snap_take(s, &part->stats, log_end(b, &part->key.topic_id, part->key.partition), gr_loop_now(b->loop));
}

static void on_window(gr_timer_t *t, int64_t now) {
    (void)now;
    gr_share_part_t *part = t->data;
    gr_cap_snap_t s;
    take(part, &s);
    gr_cap_ring_rotate(&part->cap_ring, &s);
}

void gr_share_capacity_init(gr_share_part_t *part, const gr_partition_t *p) {
    gr_cap_snap_t s;
    int64_t leo = p->plog && !p->offline ? gr_plog_end_offset(p->plog) : -1;
    gr_cap_snap_take(&s, &part->stats, leo, gr_loop_now(part->b->loop));
    gr_cap_ring_init(&part->cap_ring, &s);
    gr_timer_init(part->b->loop, &part->cap_timer, on_window, part);
    gr_timer_start(&part->cap_timer, GR_CAP_WINDOW_MS, GR_CAP_WINDOW_MS);
}

void gr_share_capacity_stop(gr_share_part_t *part) { gr_timer_stop(&part->cap_timer); }

/* ---------------------------------------------------------------- one group */

/* One share-partition's row: its window when it is in memory, its cap and lag always. */
static void sp_compute(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t index, int64_t cap,
                       gr_cap_row_t *row) {
    gr_share_part_t *part = gr_share_part_find(b, group, topic_id, index);
    int64_t start, lag;
    int32_t epoch;
    bool have_lag =
        !gr_share_partition_lag(b, group, topic_id, index, &start, &epoch, &lag) && lag != GR_SHARE_LAG_UNKNOWN;
    gr_cap_snap_t now;
    gr_cap_in_t in = {NULL, NULL, cap, 0, gr_cap_view_lag(have_lag, lag, false, -1, 0, 0)};
    if (part) {
        gr_sp_conf_t conf;
        gr_share_part_conf(part, &conf, NULL);
        take(part, &now);
        in.ring = &part->cap_ring;
        in.now = &now;
        in.cap = conf.max_record_locks;
        in.in_flight = gr_sp_acquired_count(part->sp);
        in.lag = gr_cap_view_lag(have_lag, lag, true, now.log_end, gr_sp_start_offset(part->sp),
                                 gr_sp_delivery_complete_count(part->sp));
    }
    row->partition = index;
    row->in_memory = part != NULL;
    gr_cap_compute(&in, &row->out);
}

gr_err_t gr_share_json_group(gr_broker_t *b, const char *group, gr_wbuf_t *out, const gr_sg_group_t **g) {
    gr_sg_state_t state;
    char errstr[512] = "The share groups are not available.";
    *g = NULL;
    gr_err_t err = b->share.groups
                       ? gr_share_group_describe(b->share.groups, group, gr_share_id_used_by_other_type(b, group), g,
                                                 &state, errstr, sizeof(errstr))
                       : GR_ERR_COORDINATOR_NOT_AVAILABLE;
    if (err) gr_share_json_error(out, errstr);
    return err;
}

gr_err_t gr_broker_share_capacity_json(gr_broker_t *b, const char *group, gr_wbuf_t *out) {
    const gr_sg_group_t *g;
    gr_err_t err = gr_share_json_group(b, group, out, &g);
    if (err) return err;
    gr_sgc_values_t vals;
    gr_share_group_values(b, group, &vals);
    int32_t n = gr_sg_assignment_count(&g->initialized), k = 0;
    gr_cap_row_t *rows = gr_xcalloc((size_t)n, sizeof(*rows));
    for (int32_t t = 0; t < g->initialized.n_topics; t++) {
        const gr_sg_topic_parts_t *tp = &g->initialized.topics[t];
        const gr_meta_topic_t *mt = gr_meta_topic_find_id(b->meta, &tp->topic_id);
        if (!mt) continue; /* deleted */
        for (int32_t i = 0; i < tp->n_partitions; i++) {
            rows[k].topic = mt->name;
            sp_compute(b, group, &tp->topic_id, tp->partitions[i], vals.partition_max_record_locks, &rows[k]);
            k++;
        }
    }
    gr_cap_json_doc(out, group, rows, (size_t)k);
    free(rows);
    return GR_ERR_NONE;
}
