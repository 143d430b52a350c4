/* The delayed-redelivery view of a share group: GET /v1/share-groups/<group>/delayed
 * (docs/share-groups.md, "Delayed redelivery"). Kafka has no such records, so there
 * is no wire field for them; this gregord-only document is what
 * `gregor share-groups --describe --state` shows. What it selects and how it is
 * written is share/describe_json.h's; this file reads each share-partition.
 * @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/share_capacity.h"
#include "broker/share_coord.h"

/* One share-partition: from its SP when it is in memory (due times on the loop clock),
 * else from the share-state store (due times on the wall clock, as persisted). */
static int64_t put_partition(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, const char *topic,
                             int32_t index, int k, gr_wbuf_t *out) {
    int64_t wall = gr_clock_wall_ms();
    gr_share_part_t *part = gr_share_part_find(b, group, topic_id, index);
    gr_delayed_row_t r;
    gr_delayed_json_part_begin(out, k, topic, index, part != NULL, &r);
    if (part) {
        gr_sp_snapshot_t snap;
        gr_sp_delta_init(&snap);
        gr_sp_export(part->sp, &snap);
        gr_delayed_json_from_sp(out, &r, &snap, gr_loop_now(b->loop), wall);
        gr_sp_delta_free(&snap);
    } else if (b->share.sstore) {
        gr_sstore_key_t key = gr_sstore_key(group, *topic_id, index);
        gr_sstore_state_t st;
        if (!gr_sstore_read(b->share.sstore, &key, &st)) gr_delayed_json_from_store(out, &r, &st, wall);
    }
    gr_delayed_json_part_end(out, &r);
    return r.n;
}

gr_err_t gr_broker_share_delayed_json(gr_broker_t *b, const char *group, gr_wbuf_t *out) {
    const gr_sg_group_t *g;
    gr_err_t err = gr_share_json_group(b, group, out, &g);
    if (err) return err;
    gr_sgc_values_t vals;
    gr_share_group_values(b, group, &vals);
    gr_delayed_json_head(out, group, vals.redelivery_backoff_ms, vals.redelivery_backoff_max_ms);
    int64_t total = 0;
    int k = 0;
    for (int32_t t = 0; t < g->initialized.n_topics; t++) {
        const gr_sg_topic_parts_t *tp = &g->initialized.topics[t];
        const gr_meta_topic_t *mt = gr_meta_topic_find_id(b->meta, &tp->topic_id);
        if (!mt) continue; /* deleted */
        for (int32_t i = 0; i < tp->n_partitions; i++)
            total += put_partition(b, group, &tp->topic_id, mt->name, tp->partitions[i], k++, out);
    }
    gr_delayed_json_tail(out, total);
    return GR_ERR_NONE;
}
