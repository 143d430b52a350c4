/* Broker-wide metrics (src/broker/core_metrics.c, broker_metrics_core.c,
 * broker_metrics_topics.c): the error-code rule, API names, and the text of a
 * broker created in-process (series cap, dropped counts, topic sums). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broker/broker.h"
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/cgroup_coord.h"
#include "proto_msgs.h"
#include "testutil.h"

static uint64_t err_count(const gr_core_metrics_t *m, int16_t api, int16_t ver, int16_t code) {
    uint32_t key = (uint32_t)api << 24 | (uint32_t)ver << 16 | (uint16_t)code;
    for (size_t i = 0; i < GR_CM_ERR_SLOTS; i++)
        if (m->errs[i].key == key) return m->errs[i].n;
    return 0;
}

/* ShareFetch v1: top-level ErrorCode, per-partition ErrorCode and AcknowledgeErrorCode. */
static void test_error_rule(void) {
    gr_core_metrics_t *m = calloc(1, sizeof(*m));
    gr_arena_t a;
    gr_arena_init(&a);
    const gr_msg_desc_t *d = gr_api_response(GR_API_ShareFetch);
    gr_ShareFetchResponse_t *r = gr_struct_alloc(&a, d->body, 1);
    r->ErrorCode = GR_ERR_INVALID_REQUEST;
    r->Responses.v = gr_struct_alloc(&a, &gr_ShareFetchResponse_ShareFetchableTopicResponse_sd, 2);
    r->Responses.n = 2;
    for (int t = 0; t < 2; t++) {
        gr_ShareFetchResponse_ShareFetchableTopicResponse_t *tr = &r->Responses.v[t];
        tr->Partitions.v = gr_struct_alloc(&a, &gr_ShareFetchResponse_PartitionData_sd, 3);
        tr->Partitions.n = 3;
        tr->Partitions.v[0].ErrorCode = GR_ERR_NOT_LEADER_OR_FOLLOWER;
        tr->Partitions.v[1].AcknowledgeErrorCode = GR_ERR_INVALID_RECORD_STATE;
        /* partition 2: no error */
    }
    gr_cm_count_errors(m, d, 1, r);
    ASSERT_EQ(err_count(m, GR_API_ShareFetch, 1, GR_ERR_INVALID_REQUEST), 1);
    ASSERT_EQ(err_count(m, GR_API_ShareFetch, 1, GR_ERR_NOT_LEADER_OR_FOLLOWER), 2);
    ASSERT_EQ(err_count(m, GR_API_ShareFetch, 1, GR_ERR_INVALID_RECORD_STATE), 2);
    ASSERT_EQ(m->n_errs, 3);
    gr_cm_count_errors(m, d, 2, r); /* another version: its own series */
    ASSERT_EQ(err_count(m, GR_API_ShareFetch, 2, GR_ERR_NOT_LEADER_OR_FOLLOWER), 2);
    ASSERT_EQ(err_count(m, GR_API_ShareFetch, 1, GR_ERR_NOT_LEADER_OR_FOLLOWER), 2);
    ASSERT_EQ(m->n_errs, 6);
    /* UNKNOWN_SERVER_ERROR is -1: a valid key too */
    r->ErrorCode = GR_ERR_UNKNOWN_SERVER_ERROR;
    r->Responses.n = 0;
    gr_cm_count_errors(m, d, 1, r);
    ASSERT_EQ(err_count(m, GR_API_ShareFetch, 1, GR_ERR_UNKNOWN_SERVER_ERROR), 1);
    gr_arena_free(&a);
    free(m);
}

/* The table is bounded: new triples beyond GR_CM_ERR_MAX are not counted, old ones are. */
static void test_error_bound(void) {
    gr_core_metrics_t *m = calloc(1, sizeof(*m));
    gr_arena_t a;
    gr_arena_init(&a);
    const gr_msg_desc_t *d = gr_api_response(GR_API_ShareAcknowledge);
    gr_ShareAcknowledgeResponse_t *r = gr_struct_alloc(&a, d->body, 1);
    for (int code = 1; code <= GR_CM_ERR_MAX + 10; code++) {
        r->ErrorCode = (int16_t)code;
        gr_cm_count_errors(m, d, 1, r);
    }
    ASSERT_EQ(m->n_errs, GR_CM_ERR_MAX);
    r->ErrorCode = 1;
    gr_cm_count_errors(m, d, 1, r);
    ASSERT_EQ(err_count(m, GR_API_ShareAcknowledge, 1, 1), 2);
    ASSERT_EQ(err_count(m, GR_API_ShareAcknowledge, 1, GR_CM_ERR_MAX + 5), 0);
    gr_arena_free(&a);
    free(m);
}

static void test_api_names(void) {
    char buf[64];
    ASSERT_STREQ(gr_cm_api_name(GR_API_Produce, buf, sizeof(buf)), "Produce");
    ASSERT_STREQ(gr_cm_api_name(GR_API_ApiVersions, buf, sizeof(buf)), "ApiVersions");
    ASSERT_STREQ(gr_cm_api_name(GR_API_ShareFetch, buf, sizeof(buf)), "ShareFetch");
    ASSERT_STREQ(gr_cm_api_name(GR_API_ShareAcknowledge, buf, sizeof(buf)), "ShareAcknowledge");
    ASSERT_STREQ(gr_cm_api_name(GR_API_DescribeShareGroupOffsets, buf, sizeof(buf)), "DescribeShareGroupOffsets");
    ASSERT(gr_cm_api_name(-1, buf, sizeof(buf)) == NULL);
    ASSERT(gr_cm_api_name(GR_API__MAX + 1, buf, sizeof(buf)) == NULL);
}

static char *metrics_text(gr_broker_t *b, gr_wbuf_t *wb) {
    gr_wbuf_reset(wb);
    gr_broker_metrics_write(b, wb);
    gr_wbuf_put(wb, "", 1);
    return (char *)wb->mem;
}

static int count_lines(const char *text, const char *prefix) {
    int n = 0;
    size_t k = strlen(prefix);
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (!strncmp(l, prefix, k)) n++;
    return n;
}

#define ASSERT_LINE(text, line)                                                      \
    do {                                                                             \
        if (count_lines((text), line "\n") != 1) GR__FAIL("missing line: %s", line); \
    } while (0)

static void rmrf(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ASSERT_EQ(system(cmd), 0);
}

/* A broker in-process with metrics.partition.series.max=3, topics a (2 partitions)
 * and b (3): the collector's output, no event-loop iteration needed. */
static void test_collector(void) {
    char dir[] = "/tmp/gr-test-broker-metrics.XXXXXX";
    ASSERT(mkdtemp(dir));
    char logdirs[300];
    snprintf(logdirs, sizeof(logdirs), "log.dirs=%s", dir);
    const char *ov[] = {logdirs, "listeners=PLAINTEXT://127.0.0.1:0", "metrics.partition.series.max=3"};
    gr_server_config_t cfg;
    char errstr[512];
    ASSERT_EQ(gr_server_config_parse(&cfg, NULL, 0, NULL, ov, 3, errstr, sizeof(errstr)), GR_ERR_NONE);
    ASSERT_EQ(cfg.metrics_partition_series_max, 3);
    gr_loop_t *loop;
    ASSERT_EQ(gr_loop_new(&loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_broker_t *b;
    ASSERT_EQ(gr_broker_new(loop, &cfg, &b, errstr, sizeof(errstr)), GR_ERR_NONE);
    const gr_meta_topic_t *mt;
    ASSERT_EQ(gr_broker_topic_create(b, "a", 2, NULL, false, &mt, errstr, sizeof(errstr)), GR_ERR_NONE);
    ASSERT_EQ(gr_broker_topic_create(b, "b", 3, NULL, false, &mt, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_parts_find(b->parts, "a", 0)->records_in = 5;
    gr_parts_find(b->parts, "a", 1)->records_in = 7;
    gr_parts_find(b->parts, "a", 1)->bytes_out = 100;
    gr_parts_find(b->parts, "b", 2)->records_out = 9; /* no series of its own, but in b's sum */
    gr_cm_request(&b->cm, GR_API_Produce, 8);
    gr_cm_request(&b->cm, GR_API_Produce, 8);
    gr_cm_request(&b->cm, GR_API__MAX, GR_CM_VERSIONS); /* out of range: ignored */

    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    char *t = metrics_text(b, &wb);
    ASSERT_LINE(t, "gregor_requests_total{api=\"Produce\",version=\"8\"} 2");
    ASSERT_EQ(count_lines(t, "gregor_requests_total{"), 1);
    ASSERT_LINE(t, "gregor_topics 2");
    ASSERT_LINE(t, "gregor_partitions 5");
    ASSERT_LINE(t, "gregor_partitions_offline 0");
    ASSERT_LINE(t, "gregor_topic_records_in_total{topic=\"a\"} 12");
    ASSERT_LINE(t, "gregor_topic_bytes_out_total{topic=\"a\"} 100");
    ASSERT_LINE(t, "gregor_topic_records_out_total{topic=\"b\"} 9");
    ASSERT_EQ(count_lines(t, "gregor_partition_log_end_offset{"), 3);
    ASSERT_LINE(t, "gregor_partition_log_end_offset{topic=\"b\",partition=\"0\"} 0");
    ASSERT_EQ(count_lines(t, "gregor_partition_log_end_offset{topic=\"b\",partition=\"1\"}"), 0);
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"partition\"} 2");
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"topic\"} 0");
    ASSERT_LINE(t, "gregor_connections_open 0");
    ASSERT_LINE(t, "gregor_log_fsyncs_total 0");
    ASSERT_EQ(count_lines(t, "# TYPE gregor_request_errors_total counter"), 1); /* HELP/TYPE without samples */
    ASSERT_EQ(count_lines(t, "gregor_request_errors_total{"), 0);

    /* Deleting a topic (as DeleteTopics does: partitions first, then the metadata) drops
     * its series: its counters went with its partitions. */
    gr_uuid_t id = gr_meta_topic_find(b->meta, "a")->id;
    ASSERT_EQ(gr_parts_delete_topic(b->parts, &id, errstr, sizeof(errstr)), GR_ERR_NONE);
    ASSERT_EQ(gr_meta_topic_delete_id(b->meta, &id, errstr, sizeof(errstr)), GR_ERR_NONE);
    t = metrics_text(b, &wb);
    ASSERT_EQ(count_lines(t, "gregor_topic_records_in_total{topic=\"a\"}"), 0);
    ASSERT(!strstr(t, "topic=\"a\""));
    ASSERT_LINE(t, "gregor_topics 1");
    ASSERT_LINE(t, "gregor_partitions 3");
    ASSERT_EQ(count_lines(t, "gregor_partition_log_end_offset{topic=\"b\""), 3);
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"partition\"} 0");
    ASSERT_LINE(t, "gregor_topic_records_out_total{topic=\"b\"} 9");
    gr_wbuf_free(&wb);
    gr_broker_free(b);
    gr_loop_free(loop);
    gr_server_config_free(&cfg);
    rmrf(dir);
}

/* Consumer groups (cgroup_metrics.c) with metrics.partition.series.max=3: four groups,
 * four committed offsets; the fourth of each is counted as dropped; lag = log end
 * offset (0 here) - committed offset, unclamped, none for a committed -1. */
static void test_cgroup_collector(void) {
    char dir[] = "/tmp/gr-test-broker-metrics.XXXXXX";
    ASSERT(mkdtemp(dir));
    char logdirs[300];
    snprintf(logdirs, sizeof(logdirs), "log.dirs=%s", dir);
    const char *ov[] = {logdirs, "listeners=PLAINTEXT://127.0.0.1:0", "metrics.partition.series.max=3"};
    gr_server_config_t cfg;
    char errstr[512];
    ASSERT_EQ(gr_server_config_parse(&cfg, NULL, 0, NULL, ov, 3, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_loop_t *loop;
    ASSERT_EQ(gr_loop_new(&loop, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_broker_t *b;
    ASSERT_EQ(gr_broker_new(loop, &cfg, &b, errstr, sizeof(errstr)), GR_ERR_NONE);
    const gr_meta_topic_t *mt;
    ASSERT_EQ(gr_broker_topic_create(b, "b", 3, NULL, false, &mt, errstr, sizeof(errstr)), GR_ERR_NONE);
    gr_cg_registry_t *reg = b->cgroup->reg;
    gr_cg_offset_put(reg, "gd", "b", 0, &(gr_cg_offset_t){9, -1, "", 1, -1});
    gr_cg_offset_put(reg, "gc", "b", 0, &(gr_cg_offset_t){1, -1, "", 1, -1});
    gr_cg_offset_put(reg, "ga", "b", 1, &(gr_cg_offset_t){-1, -1, "", 1, -1});
    gr_cg_offset_put(reg, "ga", "b", 0, &(gr_cg_offset_t){2, -1, "", 1, -1});
    gr_cg_offset_put(reg, "gb", "b", 2, &(gr_cg_offset_t){0, -1, "", 1, -1});
    b->cgroup->offset_commits = 5;
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    char *t = metrics_text(b, &wb);
    ASSERT_LINE(t, "gregor_consumer_group_committed_offset{group=\"ga\",topic=\"b\",partition=\"0\"} 2");
    ASSERT_LINE(t, "gregor_consumer_group_committed_offset{group=\"ga\",topic=\"b\",partition=\"1\"} -1");
    ASSERT_LINE(t, "gregor_consumer_group_committed_offset{group=\"gb\",topic=\"b\",partition=\"2\"} 0");
    ASSERT_EQ(count_lines(t, "gregor_consumer_group_committed_offset{"), 3);
    ASSERT_LINE(t, "gregor_consumer_group_lag{group=\"ga\",topic=\"b\",partition=\"0\"} -2");
    ASSERT_LINE(t, "gregor_consumer_group_lag{group=\"gb\",topic=\"b\",partition=\"2\"} 0");
    ASSERT_EQ(count_lines(t, "gregor_consumer_group_lag{"), 2);
    ASSERT_LINE(t, "gregor_consumer_group_members{group=\"ga\"} 0");
    ASSERT_LINE(t, "gregor_consumer_group_generation{group=\"gc\"} 0");
    ASSERT_LINE(t, "gregor_consumer_group_rebalances_total{group=\"gb\"} 0");
    ASSERT_LINE(t, "gregor_consumer_group_state{group=\"ga\",state=\"Empty\"} 1");
    ASSERT_LINE(t, "gregor_consumer_group_state{group=\"ga\",state=\"Stable\"} 0");
    ASSERT_EQ(count_lines(t, "gregor_consumer_group_state{group=\"ga\""),
              GR_CG_N_STATES); /* the classic states and the consumer protocol's Assigning, Reconciling */
    ASSERT_EQ(count_lines(t, "gregor_consumer_group_members{"), 3);
    ASSERT_EQ(count_lines(t, "gregor_consumer_group_members{group=\"gd\"}"), 0);
    ASSERT_LINE(t, "gregor_consumer_groups{state=\"Empty\"} 4");
    ASSERT_LINE(t, "gregor_consumer_groups{state=\"Stable\"} 0");
    ASSERT_LINE(t, "gregor_offset_commits_total 5");
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"consumer_group\"} 1");
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"consumer_group_partition\"} 2");
    /* A deleted group's series go. */
    gr_cg_out_t o;
    gr_cg_out_init(&o);
    gr_cg_delete(reg, "ga", &o);
    gr_cg_out_free(&o);
    t = metrics_text(b, &wb);
    ASSERT(!strstr(t, "group=\"ga\""));
    ASSERT_LINE(t, "gregor_consumer_group_lag{group=\"gc\",topic=\"b\",partition=\"0\"} -1");
    ASSERT_LINE(t, "gregor_consumer_group_members{group=\"gd\"} 0");
    ASSERT_LINE(t, "gregor_consumer_groups{state=\"Empty\"} 3");
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"consumer_group\"} 0");
    ASSERT_LINE(t, "gregor_metrics_series_dropped{kind=\"consumer_group_partition\"} 0");
    gr_wbuf_free(&wb);
    gr_broker_free(b);
    gr_loop_free(loop);
    gr_server_config_free(&cfg);
    rmrf(dir);
}

int main(void) {
    RUN_TEST(test_error_rule);
    RUN_TEST(test_error_bound);
    RUN_TEST(test_api_names);
    RUN_TEST(test_collector);
    RUN_TEST(test_cgroup_collector);
    return 0;
}
