/* Topic and partition metrics (docs/metrics.md, "Broker"). The counters live in
 * the partitions (partitions.h), so a deleted topic's series go with it; a topic's
 * counters are the sums over its hosted partitions. At most
 * metrics.partition.series.max topics and as many partitions get their own series:
 * the first by topic name and partition index (the metadata order), so the set is
 * stable across scrapes and restarts; the others are counted in
 * gregor_metrics_series_dropped. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/producers.h"

typedef struct topic_row {
    const char *name;
    uint64_t bytes_in, records_in, bytes_out, records_out;
    uint64_t producers_evicted, producers_refused; /* gregor.producer.state.max.producers */
} topic_row_t;

typedef struct rows {
    topic_row_t *t;
    size_t n_t, dropped_t;
    gr_partition_t **p;
    size_t n_p, dropped_p;
} rows_t;

/* One pass over the metadata: the topic sums and the partitions that get series. */
static void gather(gr_broker_t *b, size_t cap, rows_t *r) {
    size_t nt = gr_meta_topic_count(b->meta), np = gr_parts_count(b->parts);
    memset(r, 0, sizeof(*r));
    size_t kt = nt < cap ? nt : cap, kp = np < cap ? np : cap;
    r->t = calloc(kt ? kt : 1, sizeof(*r->t));
    r->p = calloc(kp ? kp : 1, sizeof(*r->p));
    if (!r->t || !r->p) abort();
    for (size_t i = 0; i < nt; i++) {
        const gr_meta_topic_t *mt = gr_meta_topic_at(b->meta, i);
        topic_row_t row = {.name = mt->name};
        for (int32_t k = 0; k < mt->partitions; k++) {
            gr_partition_t *p = gr_parts_find(b->parts, mt->name, k);
            if (!p) continue; /* not open yet */
            row.bytes_in += p->bytes_in;
            row.records_in += p->records_in;
            row.bytes_out += p->bytes_out;
            row.records_out += p->records_out;
            uint64_t ev = 0, rf = 0;
            if (p->producers) gr_producers_counters(p->producers, &ev, &rf);
            row.producers_evicted += ev;
            row.producers_refused += rf;
            if (r->n_p < cap)
                r->p[r->n_p++] = p;
            else
                r->dropped_p++;
        }
        if (r->n_t < cap)
            r->t[r->n_t++] = row;
        else
            r->dropped_t++;
    }
}

static void topic_family(gr_prom_t *p, const rows_t *r, const char *name, const char *help, size_t field) {
    gr_prom_family(p, name, GR_PROM_COUNTER, help);
    for (size_t i = 0; i < r->n_t; i++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "topic", r->t[i].name);
        uint64_t v;
        memcpy(&v, (const char *)&r->t[i] + field, sizeof(v));
        gr_prom_u64(p, name, &l, v);
    }
}

typedef int64_t (*plog_gauge_fn)(const gr_plog_t *plog);

static void partition_family(gr_prom_t *p, const rows_t *r, const char *name, const char *help, plog_gauge_fn fn) {
    gr_prom_family(p, name, GR_PROM_GAUGE, help);
    for (size_t i = 0; i < r->n_p; i++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "topic", r->p[i]->topic);
        gr_prom_label_i64(&l, "partition", r->p[i]->index);
        gr_prom_i64(p, name, &l, fn(r->p[i]->plog));
    }
}

static void totals(gr_broker_t *b, gr_prom_t *p) {
    size_t np = gr_parts_count(b->parts), offline = 0;
    uint64_t producers = 0;
    for (size_t i = 0; i < np; i++) {
        gr_partition_t *part = gr_parts_at(b->parts, i);
        if (part->offline || gr_plog_offline(part->plog)) offline++;
        if (part->producers) producers += gr_producers_count(part->producers);
    }
    gr_prom_family(p, "gregor_topics", GR_PROM_GAUGE, "Topics");
    gr_prom_u64(p, "gregor_topics", NULL, gr_meta_topic_count(b->meta));
    gr_prom_family(p, "gregor_partitions", GR_PROM_GAUGE,
                   "Partitions hosted, with an open log (Kafka: ReplicaManager PartitionCount)");
    gr_prom_u64(p, "gregor_partitions", NULL, np);
    gr_prom_family(p, "gregor_partitions_offline", GR_PROM_GAUGE,
                   "Partitions offline after a storage error (Kafka: KafkaController OfflinePartitionsCount)");
    gr_prom_u64(p, "gregor_partitions_offline", NULL, offline);
    gr_prom_family(p, "gregor_producer_ids", GR_PROM_GAUGE,
                   "Producer ids whose state the partitions keep, summed (each partition at most "
                   "gregor.producer.state.max.producers; Kafka: ProducerIdCount)");
    gr_prom_u64(p, "gregor_producer_ids", NULL, producers);
}

void gr_cm_collect_topics(gr_broker_t *b, gr_prom_t *p, gr_metrics_dropped_t *dropped) {
    int32_t max = b->cfg->metrics_partition_series_max;
    rows_t r;
    gather(b, max > 0 ? (size_t)max : 0, &r);
    totals(b, p);
    topic_family(p, &r, "gregor_topic_bytes_in_total",
                 "Record-batch bytes appended by Produce (Kafka: BrokerTopicMetrics BytesInPerSec)",
                 offsetof(topic_row_t, bytes_in));
    topic_family(p, &r, "gregor_topic_bytes_out_total",
                 "Record-batch bytes sent by Fetch and ShareFetch (Kafka: BrokerTopicMetrics BytesOutPerSec)",
                 offsetof(topic_row_t, bytes_out));
    topic_family(p, &r, "gregor_topic_records_in_total",
                 "Records appended by Produce (Kafka: BrokerTopicMetrics MessagesInPerSec)",
                 offsetof(topic_row_t, records_in));
    topic_family(p, &r, "gregor_topic_records_out_total",
                 "Records sent: Fetch, the records of the whole batches sent; ShareFetch, the records acquired",
                 offsetof(topic_row_t, records_out));
    topic_family(p, &r, "gregor_topic_producer_ids_evicted_total",
                 "Producer ids forgotten early because a partition held gregor.producer.state.max.producers",
                 offsetof(topic_row_t, producers_evicted));
    topic_family(p, &r, "gregor_topic_producer_ids_refused_total",
                 "Produce batches of a new producer id refused (NOT_ENOUGH_REPLICAS) because every producer a "
                 "partition tracks at its cap had an ongoing transaction",
                 offsetof(topic_row_t, producers_refused));
    partition_family(p, &r, "gregor_partition_log_end_offset", "Log end offset (Kafka: Log LogEndOffset)",
                     gr_plog_end_offset);
    partition_family(p, &r, "gregor_partition_log_start_offset", "Log start offset (Kafka: Log LogStartOffset)",
                     gr_plog_start_offset);
    partition_family(p, &r, "gregor_partition_log_size_bytes", "Bytes in the log's segment files (Kafka: Log Size)",
                     gr_plog_size_bytes);
    dropped->partition = r.dropped_p;
    dropped->topic = r.dropped_t;
    free(r.t);
    free(r.p);
}
