/* Consumer-group metrics (docs/metrics.md, "Consumer groups"): per group its
 * members, state, generation and completed rebalances; per committed offset the
 * offset and the lag; broker-wide the groups by state and the offsets committed.
 *
 * The lag is kafka-consumer-groups' LAG: the partition's log end offset (what
 * ListOffsets LATEST answers) minus the committed offset, unclamped; a partition
 * without a committed offset, with the committed offset -1, or not hosted has none.
 *
 * Cardinality: at most metrics.partition.series.max groups and as many committed
 * offsets get series, in (group, topic, partition) order; the rest are counted in
 * gregor_metrics_series_dropped{kind="consumer_group"|"consumer_group_partition"}.
 * The numbers live in the coordinator's groups, so a deleted group's series go
 * with it at the next scrape.
 * @locality loop thread. */
#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/cgroup_coord.h"

#define N_STATES GR_CG_N_STATES /* gr_cg_state_t: Empty .. Reconciling */

typedef struct off_row {
    const char *group, *topic;
    int32_t partition;
    int64_t offset;
} off_row_t;

typedef struct scrape {
    gr_broker_t *b;
    gr_cg_group_stats_t *groups;
    int32_t n_groups;
    off_row_t *rows;
    size_t n_rows, cap_rows, max_rows;
    uint64_t dropped_rows;
    const char *cur_group;
} scrape_t;

static int group_cmp(const void *a, const void *b) {
    return strcmp(((const gr_cg_group_stats_t *)a)->group_id, ((const gr_cg_group_stats_t *)b)->group_id);
}

static void add_offset(void *arg, const char *topic, int32_t partition, const gr_cg_offset_t *o) {
    scrape_t *s = arg;
    if (s->n_rows >= s->max_rows) {
        s->dropped_rows++;
        return;
    }
    if (s->n_rows == s->cap_rows) {
        s->cap_rows = s->cap_rows ? 2 * s->cap_rows : 64;
        s->rows = realloc(s->rows, s->cap_rows * sizeof(*s->rows));
        if (!s->rows) abort();
    }
    s->rows[s->n_rows++] = (off_row_t){s->cur_group, topic, partition, o->offset};
}

/* Every group (id order) and, within the cap, its committed offsets (topic, partition order). */
static void collect(scrape_t *s) {
    const gr_cg_registry_t *reg = s->b->cgroup ? s->b->cgroup->reg : NULL;
    s->n_groups = reg ? gr_cg_count(reg) : 0;
    s->groups = calloc(s->n_groups ? (size_t)s->n_groups : 1, sizeof(*s->groups));
    if (!s->groups) abort();
    for (int32_t i = 0; i < s->n_groups; i++) gr_cg_stats_at(reg, i, &s->groups[i]);
    if (s->n_groups) qsort(s->groups, (size_t)s->n_groups, sizeof(*s->groups), group_cmp);
    for (int32_t i = 0; i < s->n_groups; i++) {
        if (s->n_rows >= s->max_rows) { /* no need to walk the offsets to count them */
            s->dropped_rows += (uint64_t)s->groups[i].n_offsets;
            continue;
        }
        s->cur_group = s->groups[i].group_id;
        gr_cg_offsets_foreach(reg, s->cur_group, add_offset, s);
    }
}

static void group_labels(gr_prom_labels_t *l, const char *group) {
    gr_prom_labels_init(l);
    gr_prom_label(l, "group", group);
}

static void write_groups(gr_prom_t *p, const gr_cg_group_stats_t *g, size_t n) {
    static const char *const NAMES[3] = {"gregor_consumer_group_members", "gregor_consumer_group_generation",
                                         "gregor_consumer_group_rebalances_total"};
    static const char *const HELP[3] = {
        "Members of the consumer group (joined, not yet left or expired)", "Generation of the consumer group",
        ("Completed rebalances of the consumer group (the leader's assignment applied, the group Stable) "
         "since it was loaded (Kafka: group-coordinator-metrics group-completed-rebalance-count)")};
    for (int f = 0; f < 3; f++) {
        gr_prom_family(p, NAMES[f], f == 2 ? GR_PROM_COUNTER : GR_PROM_GAUGE, HELP[f]);
        for (size_t i = 0; i < n; i++) {
            gr_prom_labels_t l;
            group_labels(&l, g[i].group_id);
            if (f == 2)
                gr_prom_u64(p, NAMES[f], &l, g[i].rebalances);
            else
                gr_prom_i64(p, NAMES[f], &l, f == 0 ? g[i].n_members : g[i].generation);
        }
    }
    /* A state set: one sample per state, 1 for the current one, so that a state's
     * series never disappears while its group exists. */
    gr_prom_family(p, "gregor_consumer_group_state", GR_PROM_GAUGE,
                   "1 for the consumer group's current state, 0 for the others");
    for (size_t i = 0; i < n; i++)
        for (int st = 0; st < N_STATES; st++) {
            gr_prom_labels_t l;
            group_labels(&l, g[i].group_id);
            gr_prom_label(&l, "state", gr_cg_state_name((gr_cg_state_t)st));
            gr_prom_u64(p, "gregor_consumer_group_state", &l, g[i].state == (gr_cg_state_t)st);
        }
}

static void row_labels(gr_prom_labels_t *l, const off_row_t *r) {
    group_labels(l, r->group);
    gr_prom_label(l, "topic", r->topic);
    gr_prom_label_i64(l, "partition", r->partition);
}

static void write_offsets(gr_broker_t *b, gr_prom_t *p, const off_row_t *rows, size_t n) {
    gr_prom_family(p, "gregor_consumer_group_committed_offset", GR_PROM_GAUGE,
                   "Committed offset of the consumer group for the partition");
    for (size_t i = 0; i < n; i++) {
        gr_prom_labels_t l;
        row_labels(&l, &rows[i]);
        gr_prom_i64(p, "gregor_consumer_group_committed_offset", &l, rows[i].offset);
    }
    gr_prom_family(p, "gregor_consumer_group_lag", GR_PROM_GAUGE,
                   "Log end offset minus the committed offset (kafka-consumer-groups LAG)");
    for (size_t i = 0; i < n; i++) {
        const off_row_t *r = &rows[i];
        gr_partition_t *part = gr_parts_find(b->parts, r->topic, r->partition);
        if (!part || part->deleted || r->offset == -1) continue; /* Kafka's LAG is "-" then */
        gr_prom_labels_t l;
        row_labels(&l, r);
        gr_prom_i64(p, "gregor_consumer_group_lag", &l, gr_plog_end_offset(part->plog) - r->offset);
    }
}

static void write_broker(gr_broker_t *b, gr_prom_t *p, const gr_cg_group_stats_t *g, int32_t n) {
    uint64_t by_state[N_STATES] = {0};
    for (int32_t i = 0; i < n; i++) by_state[g[i].state]++;
    gr_prom_family(p, "gregor_consumer_groups", GR_PROM_GAUGE,
                   "Consumer groups by state (Kafka: GroupMetadataManager NumGroups<State>)");
    for (int st = 0; st < N_STATES; st++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "state", gr_cg_state_name((gr_cg_state_t)st));
        gr_prom_u64(p, "gregor_consumer_groups", &l, by_state[st]);
    }
    gr_prom_family(p, "gregor_offset_commits_total", GR_PROM_COUNTER,
                   "Offsets committed by OffsetCommit, one per partition, once durable "
                   "(Kafka: group-coordinator-metrics offset-commit-count)");
    gr_prom_u64(p, "gregor_offset_commits_total", NULL, b->cgroup ? b->cgroup->offset_commits : 0);
}

void gr_broker_collect_cgroup(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped) {
    int32_t cap = b->cfg->metrics_partition_series_max > 0 ? b->cfg->metrics_partition_series_max : 0;
    scrape_t s = {.b = b, .max_rows = (size_t)cap};
    collect(&s);
    int32_t n_groups = s.n_groups > cap ? cap : s.n_groups;
    dropped->consumer_group = (uint64_t)(s.n_groups - n_groups);
    dropped->consumer_group_partition = s.dropped_rows;
    write_groups(p, s.groups, (size_t)n_groups);
    write_offsets(b, p, s.rows, s.n_rows);
    write_broker(b, p, s.groups, s.n_groups);
    free(s.groups);
    free(s.rows);
}
