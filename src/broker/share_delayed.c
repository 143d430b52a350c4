/* The delayed-redelivery view of a share group: GET /v1/share-groups/<group>/delayed
 * (docs/share-groups.md, "Delayed redelivery"). Kafka has no such records, so there
 * is no wire field for them; this gregord-only document is what
 * `gregor share-groups --describe --state` shows.
 *
 * A share-partition in memory is read from its SP (due times on the loop clock); one
 * that is not is read from the share-state store (due times on the wall clock, as
 * persisted). Both are shown as milliseconds from now and as a Unix time.
 * @locality loop thread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/share_capacity.h"
#include "broker/share_coord.h"

#define MAX_RANGES 100 /* per share-partition: the document stays small */

/* One share-partition's delayed ranges, due_in relative to now. */
typedef struct row {
    int64_t n, next_due_in, n_ranges;
} row_t;

static void put_range(gr_wbuf_t *out, row_t *r, int64_t first, int64_t last, int count, int64_t due_in, int64_t wall) {
    if (due_in < 0) due_in = 0; /* due, the timer is about to run */
    r->n += last - first + 1;
    if (due_in < r->next_due_in) r->next_due_in = due_in;
    if (r->n_ranges++ >= MAX_RANGES) return;
    gr_wbuf_printf(out,
                   "%s{\"first_offset\":%lld,\"last_offset\":%lld,\"delivery_count\":%d,\"due_in_ms\":%lld,"
                   "\"due_unix_ms\":%lld}",
                   r->n_ranges > 1 ? "," : "", (long long)first, (long long)last, count, (long long)due_in,
                   (long long)(wall + due_in));
}

static void put_partition(gr_broker_t *b, const char *group, const gr_uuid_t *topic_id, int32_t index, row_t *r,
                          gr_wbuf_t *out) {
    int64_t wall = gr_clock_wall_ms();
    gr_share_part_t *part = gr_share_part_find(b, group, topic_id, index);
    gr_wbuf_printf(out, ",\"in_memory\":%s,\"ranges\":[", part ? "true" : "false");
    if (part) {
        int64_t now = gr_loop_now(b->loop);
        gr_sp_snapshot_t snap;
        gr_sp_delta_init(&snap);
        gr_sp_export(part->sp, &snap);
        for (size_t i = 0; i < snap.n; i++)
            if (snap.batches[i].not_before_ms > 0)
                put_range(out, r, snap.batches[i].first_offset, snap.batches[i].last_offset,
                          snap.batches[i].delivery_count, snap.batches[i].not_before_ms - now, wall);
        gr_sp_delta_free(&snap);
    } else if (b->share.sstore) {
        gr_sstore_key_t key = gr_sstore_key(group, *topic_id, index);
        gr_sstore_state_t st;
        if (!gr_sstore_read(b->share.sstore, &key, &st))
            for (size_t i = 0; i < st.n_batches; i++)
                if (st.batches[i].due_ms > wall)
                    put_range(out, r, st.batches[i].first_offset, st.batches[i].last_offset, st.batches[i].count,
                              st.batches[i].due_ms - wall, wall);
    }
    gr_wbuf_printf(out, "],\"ranges_truncated\":%s,\"delayed_records\":%lld,\"next_due_in_ms\":",
                   r->n_ranges > MAX_RANGES ? "true" : "false", (long long)r->n);
    if (r->n)
        gr_wbuf_printf(out, "%lld}", (long long)r->next_due_in);
    else
        gr_wbuf_printf(out, "null}");
}

gr_err_t gr_broker_share_delayed_json(gr_broker_t *b, const char *group, gr_wbuf_t *out) {
    const gr_sg_group_t *g;
    gr_err_t err = gr_share_json_group(b, group, out, &g);
    if (err) return err;
    gr_sgc_values_t vals;
    gr_share_group_values(b, group, &vals);
    gr_wbuf_printf(out, "{\"group\":");
    gr_share_json_str(out, group);
    gr_wbuf_printf(out, ",\"redelivery_backoff_ms\":%d,\"redelivery_backoff_max_ms\":%d,\"share_partitions\":[",
                   (int)vals.redelivery_backoff_ms, (int)vals.redelivery_backoff_max_ms);
    int64_t total = 0;
    int k = 0;
    for (int32_t t = 0; t < g->initialized.n_topics; t++) {
        const gr_sg_topic_parts_t *tp = &g->initialized.topics[t];
        const gr_meta_topic_t *mt = gr_meta_topic_find_id(b->meta, &tp->topic_id);
        if (!mt) continue; /* deleted */
        for (int32_t i = 0; i < tp->n_partitions; i++) {
            row_t r = {0, INT64_MAX, 0};
            gr_wbuf_printf(out, "%s{\"topic\":", k++ ? "," : "");
            gr_share_json_str(out, mt->name);
            gr_wbuf_printf(out, ",\"partition\":%d", (int)tp->partitions[i]);
            put_partition(b, group, &tp->topic_id, tp->partitions[i], &r, out);
            total += r.n;
        }
    }
    gr_wbuf_printf(out, "],\"group_total\":{\"delayed_records\":%lld}}\n", (long long)total);
    return GR_ERR_NONE;
}
