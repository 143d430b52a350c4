/* Admin round trip through libgregor's public API, printing one line per step with
 * only what must be identical between gregord and Apache Kafka (error names, counts,
 * config values; no ids or timings).
 *
 *   client_admin BOOTSTRAP TOPIC_PREFIX
 *       topics (create, validate-only, describe, create partitions, delete), topic and
 *       broker configs (describe, incremental and legacy alter), and the group calls on
 *       a group that does not exist
 *   client_admin BOOTSTRAP - group-configs GROUP name=value...
 *       set share-group configs (IncrementalAlterConfigs SET on the GROUP resource); exit
 *       status 1 with the broker's message on an error (used by test_libgregor_share.sh)
 *   client_admin BOOTSTRAP TOPIC_PREFIX share
 *       a real share group: group configs (alter, describe), libgregor's share consumer
 *       accepts every record and commits; with the member alive: list groups by type,
 *       describe share groups, offset changes and delete refused; after it left: describe,
 *       alter and delete share-group offsets, delete the group
 * Exit status 0 when the scenario ran (the lines are compared by the test script). */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static gr_admin_t *a;

static void show(const char *step, gr_err_t err, gr_admin_result_t *r) {
    printf("%s: %s", step, gr_err_name(err));
    printf("\n");
    if (err) fprintf(stderr, "%s: %s\n", step, gr_admin_last_error(a));
    gr_admin_result_destroy(r);
}

/* Apache Kafka applies admin changes through its metadata log: a read right after a
 * change may still see the old state on a broker. Reads therefore wait (up to 10 s)
 * for the expected value, as Kafka's own tests do (TestUtils.waitUntilTrue). */
static const char *config_value_raw(const char *topic, const char *name);
static const char *config_value(const char *topic, const char *name, const char *want) {
    const char *v = config_value_raw(topic, name);
    for (int i = 0; i < 100 && strcmp(v, want); i++) {
        usleep(100000);
        v = config_value_raw(topic, name);
    }
    return v;
}

/* res_value TYPE RESOURCE NAME: "value" (or "value source=N" with_source), "(null)" or the error */
static const char *res_value(gr_resource_type_t type, const char *res, const char *name, int with_source) {
    static char bufs[4][256];
    static int k;
    char *buf = bufs[k++ & 3];
    gr_admin_result_t *r = NULL;
    const char *keys[] = {name};
    gr_err_t err = gr_admin_describe_configs(a, type, res, keys, 1, 10000, &r);
    const char *v = err ? gr_err_name(err) : gr_admin_result_rows(r) ? gr_admin_result_str(r, 0, "value") : "(no row)";
    if (with_source && !err)
        snprintf(buf, sizeof(bufs[0]), "%s source=%lld", v ? v : "(null)",
                 (long long)gr_admin_result_int(r, 0, "source", -1));
    else
        snprintf(buf, sizeof(bufs[0]), "%s", v ? v : "(null)");
    gr_admin_result_destroy(r);
    return buf;
}

static const char *config_value_raw(const char *topic, const char *name) {
    return res_value(GR_RESOURCE_TOPIC, topic, name, 0);
}

/* the value of a BROKER or GROUP config with its source, waiting (10 s) for want */
static const char *res_value_wait(gr_resource_type_t type, const char *res, const char *name, const char *want) {
    const char *v = res_value(type, res, name, 1);
    for (int i = 0; i < 100 && strncmp(v, want, strlen(want)); i++) {
        usleep(100000);
        v = res_value(type, res, name, 1);
    }
    return v;
}

/* The consumer-group calls on a group committed to by the admin alone (a "simple" group):
 * describe before it exists, commit (alter), list offsets, list groups, delete offsets,
 * delete the group. */
static void consumer_group_calls(const char *topic) {
    const char *g[] = {"lg-simple-group"}, *topics[] = {topic, topic};
    const int32_t parts[] = {0, 1};
    const int64_t offs[] = {0, 0};
    gr_admin_result_t *r = NULL;
    gr_err_t e = gr_admin_describe_consumer_groups(a, g, 1, 10000, &r);
    printf("describe consumer group: %s state=%s\n", gr_err_name(e),
           gr_admin_result_str(r, 0, "state") ? gr_admin_result_str(r, 0, "state") : "-");
    gr_admin_result_destroy(r);
    e = gr_admin_alter_consumer_group_offsets(a, g[0], topics, parts, offs, 2, 10000, &r);
    printf("alter consumer group offsets: %s rows=%zu\n", gr_err_name(e), gr_admin_result_rows(r));
    gr_admin_result_destroy(r);
    e = gr_admin_list_consumer_group_offsets(a, g[0], NULL, 0, 10000, &r);
    printf("list consumer group offsets: %s rows=%zu p0=%lld\n", gr_err_name(e), gr_admin_result_rows(r),
           (long long)gr_admin_result_int(r, 0, "offset", -9));
    gr_admin_result_destroy(r);
    e = gr_admin_list_consumer_group_offsets(a, g[0], topics, 1, 10000, &r);
    printf("list consumer group offsets of the topic: %s rows=%zu\n", gr_err_name(e), gr_admin_result_rows(r));
    gr_admin_result_destroy(r);
    e = gr_admin_list_consumer_groups(a, NULL, "empty", 10000, &r);
    const char *state = "absent";
    for (size_t i = 0; !e && i < gr_admin_result_rows(r); i++)
        if (!strcmp(gr_admin_result_str(r, i, "group"), g[0])) state = gr_admin_result_str(r, i, "state");
    printf("list consumer groups (Empty): %s %s\n", gr_err_name(e), state);
    gr_admin_result_destroy(r);
    e = gr_admin_describe_consumer_groups(a, g, 1, 10000, &r);
    printf("describe consumer group: %s state=%s type=%s\n", gr_err_name(e),
           e ? "-" : gr_admin_result_str(r, 0, "state"), e ? "-" : gr_admin_result_str(r, 0, "type"));
    gr_admin_result_destroy(r);
    e = gr_admin_delete_consumer_group_offsets(a, g[0], topics, parts, 1, 10000, &r);
    show("delete consumer group offsets", e, r);
    e = gr_admin_delete_consumer_group_offsets(a, "lg-no-such-group", topics, parts, 1, 10000, &r);
    show("delete offsets of an unknown group", e, r);
    e = gr_admin_list_consumer_group_offsets(a, g[0], NULL, 0, 10000, &r);
    printf("list consumer group offsets after delete: %s rows=%zu\n", gr_err_name(e), gr_admin_result_rows(r));
    gr_admin_result_destroy(r);
    e = gr_admin_delete_groups(a, g, 1, 10000, &r);
    show("delete consumer group", e, r);
}

static void describe(const char *label, const char *topic, size_t want, int32_t *leader) {
    gr_admin_result_t *r = NULL;
    const char *names[] = {topic};
    gr_err_t err = gr_admin_describe_topics(a, names, 1, 10000, &r);
    for (int i = 0; i < 100 && want && gr_admin_result_rows(r) != want; i++) { /* see config_value */
        gr_admin_result_destroy(r);
        usleep(100000);
        err = gr_admin_describe_topics(a, names, 1, 10000, &r);
    }
    size_t n = gr_admin_result_rows(r);
    int leaders_ok = 1, id_ok = n > 0 && gr_admin_result_str(r, 0, "topic_id") != NULL;
    for (size_t i = 0; i < n; i++) leaders_ok &= gr_admin_result_int(r, i, "leader", -1) >= 0;
    if (leader && n) *leader = (int32_t)gr_admin_result_int(r, 0, "leader", -1);
    printf("describe %s: %s partitions=%zu leaders=%s topic_id=%s\n", label, gr_err_name(err), err ? 0 : n,
           leaders_ok ? "ok" : "missing", id_ok ? "set" : "none");
    gr_admin_result_destroy(r);
}

static int share_scenario(const char *bs, const char *prefix);
static int group_configs(const char *bs, const char *group, int n, char **kv);

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: client_admin BOOTSTRAP TOPIC_PREFIX [share]\n");
        return 2;
    }
    if (argc > 3 && !strcmp(argv[3], "share")) return share_scenario(argv[1], argv[2]);
    if (argc > 4 && !strcmp(argv[3], "group-configs")) return group_configs(argv[1], argv[4], argc - 5, argv + 5);
    char err[512], t1[200], t2[200];
    snprintf(t1, sizeof(t1), "%s-a", argv[2]);
    snprintf(t2, sizeof(t2), "%s-b", argv[2]);
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    if (gr_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof(err)) || gr_admin_new(conf, &a, err, sizeof(err))) {
        printf("setup: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    gr_admin_result_t *r = NULL;
    const char *one[] = {t1}, *two[] = {t2};
    const char *cfg[] = {"retention.ms", "12345"};
    gr_err_t e = gr_admin_create_topics(a, one, 1, 3, 1, cfg, 1, 0, 30000, &r);
    printf("create rows=%zu partitions=%lld\n", gr_admin_result_rows(r),
           (long long)gr_admin_result_int(r, 0, "partitions", -2));
    show("create", e, r);
    e = gr_admin_create_topics(a, one, 1, 3, 1, NULL, 0, 0, 30000, &r);
    show("create again", e, r);
    e = gr_admin_create_topics(a, two, 1, 2, 1, NULL, 0, GR_ADMIN_VALIDATE_ONLY, 30000, &r);
    show("create validate-only", e, r);
    e = gr_admin_create_topics(a, two, 1, 0, 1, NULL, 0, 0, 30000, &r);
    show("create 0 partitions", e, r);
    describe("validated topic", t2, 0, NULL);
    int32_t leader = -1;
    describe("topic", t1, 3, &leader);
    printf("retention.ms=%s\n", config_value(t1, "retention.ms", "12345"));
    const char *ops[] = {"set", "retention.ms", "54321", "set", "retention.bytes", "1000000"};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_TOPIC, t1, ops, 2, 0, 10000, &r);
    show("incremental alter", e, r);
    printf("retention.ms=%s retention.bytes=%s\n", config_value(t1, "retention.ms", "54321"),
           config_value(t1, "retention.bytes", "1000000"));
    const char *bad[] = {"set", "retention.ms", "notanumber"};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_TOPIC, t1, bad, 1, 0, 10000, &r);
    show("incremental alter bad value", e, r);
    const char *legacy[] = {"max.message.bytes", "2000000"};
    e = gr_admin_alter_configs(a, GR_RESOURCE_TOPIC, t1, legacy, 1, 0, 10000, &r);
    show("alter (legacy)", e, r);
    printf("max.message.bytes=%s retention.ms=%s\n", config_value(t1, "max.message.bytes", "2000000"),
           config_value(t1, "retention.ms", "604800000"));
    e = gr_admin_create_partitions(a, one, 1, 5, 0, 30000, &r);
    show("create partitions", e, r);
    describe("topic", t1, 5, NULL);
    e = gr_admin_create_partitions(a, one, 1, 2, 0, 30000, &r);
    show("shrink partitions", e, r);
    char broker[16];
    snprintf(broker, sizeof(broker), "%d", leader);
    e = gr_admin_describe_configs(a, GR_RESOURCE_BROKER, broker, NULL, 0, 10000, &r);
    printf("broker configs: %s many=%s\n", gr_err_name(e), gr_admin_result_rows(r) > 10 ? "yes" : "no");
    gr_admin_result_destroy(r);
    const char *mmb[] = {"set", "message.max.bytes", "2000000"};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_BROKER, broker, mmb, 1, 0, 10000, &r);
    show("broker incremental alter", e, r);
    printf("broker message.max.bytes=%s\n", res_value_wait(GR_RESOURCE_BROKER, broker, "message.max.bytes", "2000000"));
    const char *mmb_del[] = {"delete", "message.max.bytes", NULL};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_BROKER, broker, mmb_del, 1, 0, 10000, &r);
    show("broker config delete", e, r);
    printf("broker message.max.bytes=%s\n", res_value_wait(GR_RESOURCE_BROKER, broker, "message.max.bytes", "1048588"));
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_BROKER, "9999", mmb, 1, 0, 10000, &r);
    show("broker alter unknown id", e, r);
    e = gr_admin_list_groups(a, "share", 10000, &r);
    show("list share groups", e, r);
    const char *nog[] = {"lg-no-such-group"};
    e = gr_admin_describe_share_groups(a, nog, 1, 10000, &r);
    printf("describe share group: %s state=%s\n", gr_err_name(e),
           gr_admin_result_str(r, 0, "state") ? gr_admin_result_str(r, 0, "state") : "-");
    gr_admin_result_destroy(r);
    e = gr_admin_describe_share_group_offsets(a, nog[0], NULL, 0, 10000, &r);
    printf("describe share group offsets: %s rows=%zu\n", gr_err_name(e), gr_admin_result_rows(r));
    gr_admin_result_destroy(r);
    e = gr_admin_delete_groups(a, nog, 1, 10000, &r);
    show("delete group", e, r);
    e = gr_admin_describe_configs(a, GR_RESOURCE_GROUP, nog[0], NULL, 0, 10000, &r);
    printf("group configs: %s\n", gr_err_name(e));
    gr_admin_result_destroy(r);
    consumer_group_calls(one[0]);
    e = gr_admin_delete_topics(a, one, 1, 30000, &r);
    show("delete", e, r);
    e = gr_admin_delete_topics(a, one, 1, 30000, &r);
    show("delete again", e, r);
    gr_admin_destroy(a);
    return 0;
}

/* ------------------------------------------------------------------ share group */
static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "TYPE/STATE" of group g in list_groups(types), or "absent" */
static const char *listed(const char *types, const char *g) {
    static char buf[128];
    gr_admin_result_t *r = NULL;
    gr_err_t e = gr_admin_list_groups(a, types, 10000, &r);
    snprintf(buf, sizeof(buf), "%s", e ? gr_err_name(e) : "absent");
    for (size_t i = 0; !e && i < gr_admin_result_rows(r); i++) {
        const char *name = gr_admin_result_str(r, i, "group"), *type = gr_admin_result_str(r, i, "type"),
                   *state = gr_admin_result_str(r, i, "state");
        if (name && !strcmp(name, g)) snprintf(buf, sizeof(buf), "%s/%s", type ? type : "-", state ? state : "-");
    }
    gr_admin_result_destroy(r);
    return buf;
}

/* describe_share_groups of g: "ERR state=S members=N partitions=P client=C",
 * waiting (15 s) until the state is want_state and, with want_parts, the assignment is complete */
static void describe_group(const char *label, const char *g, const char *want_state, size_t want_parts) {
    const char *gs[] = {g};
    gr_admin_result_t *r = NULL;
    gr_err_t e = GR_ERR_NONE;
    char line[512];
    for (int i = 0; i < 150; i++) {
        gr_admin_result_destroy(r);
        r = NULL;
        e = gr_admin_describe_share_groups(a, gs, 1, 10000, &r);
        const char *st = gr_admin_result_rows(r) ? gr_admin_result_str(r, 0, "state") : NULL;
        size_t parts = 0, members = 0;
        const char *last_member = "", *client = "-";
        for (size_t k = 0; k < gr_admin_result_rows(r); k++) {
            const char *m = gr_admin_result_str(r, k, "member_id");
            if (m && strcmp(m, last_member)) members++, last_member = m;
            if (gr_admin_result_str(r, k, "topic")) parts++;
            if (gr_admin_result_str(r, k, "client_id")) client = "set";
        }
        snprintf(line, sizeof(line), "describe share group %s: %s state=%s members=%zu partitions=%zu client_id=%s",
                 label, gr_err_name(e), st ? st : "-", members, parts, client);
        if (st && !strcmp(st, want_state) && parts >= want_parts) break;
        usleep(100000);
    }
    printf("%s\n", line);
    gr_admin_result_destroy(r);
}

/* describe_share_group_offsets: "ERR rows=N [p<i> start=S lag=L ERR]...", waiting (10 s) until
 * partition 0 has lag want_p0_lag (-2: until it has no row). Apache Kafka persists a share
 * partition's start offset lazily: once every record is acknowledged it may still report an
 * earlier start offset (with lag 0). Partitions p whose bit is not set in exact_start have their start only
 * checked to lie within [0, end offset] ("start=in-range"). */
static void describe_offsets(const char *label, const char *g, int64_t want_p0_lag, unsigned exact_start) {
    static const int64_t end[2] = {10, 4};
    gr_admin_result_t *r = NULL;
    gr_err_t e = GR_ERR_NONE;
    for (int i = 0; i < 100; i++) {
        gr_admin_result_destroy(r);
        r = NULL;
        e = gr_admin_describe_share_group_offsets(a, g, NULL, 0, 10000, &r);
        int64_t lag = -2;
        for (size_t k = 0; k < gr_admin_result_rows(r); k++)
            if (gr_admin_result_int(r, k, "partition", -1) == 0) lag = gr_admin_result_int(r, k, "lag", -1);
        if (lag == want_p0_lag) break;
        usleep(100000);
    }
    printf("describe share group offsets %s: %s rows=%zu", label, gr_err_name(e), gr_admin_result_rows(r));
    for (int32_t p = 0; p < 2; p++)
        for (size_t k = 0; k < gr_admin_result_rows(r); k++) {
            if (gr_admin_result_int(r, k, "partition", -1) != p) continue;
            int64_t start = gr_admin_result_int(r, k, "start_offset", -9);
            if ((exact_start & (1u << p)) || start < 0 || start > end[p])
                printf(" [p%d start=%lld", (int)p, (long long)start);
            else
                printf(" [p%d start=in-range", (int)p);
            printf(" lag=%lld %s]", (long long)gr_admin_result_int(r, k, "lag", -9),
                   gr_err_name(gr_admin_result_error(r, k)));
        }
    printf("\n");
    gr_admin_result_destroy(r);
}

static int share_scenario(const char *bs, const char *prefix) {
    char err[512], topic[200], g[200];
    snprintf(topic, sizeof(topic), "%s-s", prefix);
    snprintf(g, sizeof(g), "%s-g", prefix);
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    if (gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err)) || gr_admin_new(conf, &a, err, sizeof(err))) {
        printf("setup: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    gr_admin_result_t *r = NULL;
    const char *tn[] = {topic}, *gs[] = {g};
    gr_err_t e = gr_admin_create_topics(a, tn, 1, 2, 1, NULL, 0, 0, 30000, &r);
    show("create topic", e, r);
    describe("topic", topic, 2, NULL);

    /* 10 records to partition 0, 4 to partition 1 */
    conf = gr_conf_new(GR_CONF_PRODUCER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_producer_t *p = NULL;
    if (gr_producer_new(conf, &p, err, sizeof(err))) {
        printf("producer: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    for (int i = 0; i < 14; i++) {
        char v[16];
        int vl = snprintf(v, sizeof(v), "v%d", i);
        gr_producer_send(p, topic, i < 10 ? 0 : 1, NULL, 0, v, (size_t)vl, NULL, GR_TIMESTAMP_NOW, NULL, NULL);
    }
    printf("produce: %s\n", gr_err_name(gr_producer_flush(p, 30000)));
    gr_producer_destroy(p);

    /* group configs */
    const char *gops[] = {"set", "share.auto.offset.reset",       "earliest",
                          "set", "share.record.lock.duration.ms", "20000"};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_GROUP, g, gops, 2, 0, 10000, &r);
    show("group configs alter", e, r);
    printf("group share.auto.offset.reset=%s\n",
           res_value_wait(GR_RESOURCE_GROUP, g, "share.auto.offset.reset", "earliest"));
    printf("group share.record.lock.duration.ms=%s\n",
           res_value_wait(GR_RESOURCE_GROUP, g, "share.record.lock.duration.ms", "20000"));
    const char *gbad[] = {"set", "share.record.lock.duration.ms", "-5"};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_GROUP, g, gbad, 1, 0, 10000, &r);
    show("group configs bad value", e, r);
    const char *gunk[] = {"set", "no.such.group.config", "1"};
    e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_GROUP, g, gunk, 1, 0, 10000, &r);
    show("group configs unknown name", e, r);

    /* a member of the group consumes and accepts every record */
    conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err));
    gr_conf_set(conf, "group.id", g, err, sizeof(err));
    gr_conf_set(conf, "client.id", "lg-admin-member", err, sizeof(err));
    gr_conf_set(conf, "share.acknowledgement.mode", "explicit", err, sizeof(err));
    gr_share_consumer_t *c = NULL;
    if (gr_share_consumer_new(conf, &c, err, sizeof(err))) {
        printf("share consumer: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    gr_share_consumer_subscribe(c, tn, 1);
    size_t got = 0;
    for (int64_t t0 = now_ms(); got < 14 && now_ms() - t0 < 30000;) {
        gr_share_batch_t *b = NULL;
        if (gr_share_consumer_poll(c, 200, &b)) {
            fprintf(stderr, "poll: %s\n", gr_share_consumer_last_error(c));
            usleep(100000);
            continue;
        }
        for (size_t i = 0; i < gr_share_batch_count(b); i++, got++)
            gr_share_consumer_acknowledge(c, gr_share_batch_record(b, i), GR_ACK_ACCEPT);
    }
    /* (acknowledgements of earlier batches travel with the next poll: how many the commit
     * itself carries depends on how the broker batched the records) */
    gr_share_ack_result_t *ar = NULL;
    e = gr_share_consumer_commit_sync(c, 10000, &ar);
    gr_share_ack_result_destroy(ar);
    printf("share consumer: %zu records accepted, commit %s\n", got, gr_err_name(e));

    /* with the member alive */
    describe_group("with a member", g, "Stable", 2);
    printf("list groups share: %s\n", listed("share", g));
    printf("list groups all: %s\n", listed(NULL, g));
    printf("list groups consumer: %s\n", listed("consumer", g));
    const int32_t parts[] = {0};
    const int64_t offs[] = {3};
    e = gr_admin_alter_share_group_offsets(a, g, topic, parts, offs, 1, 10000, &r);
    show("alter share group offsets with a member", e, r);
    e = gr_admin_delete_share_group_offsets(a, g, tn, 1, 10000, &r);
    show("delete share group offsets with a member", e, r);
    e = gr_admin_delete_groups(a, gs, 1, 10000, &r);
    show("delete group with a member", e, r);

    printf("close member: %s\n", gr_err_name(gr_share_consumer_close(c, 10000)));
    gr_share_consumer_destroy(c);
    describe_group("after the member left", g, "Empty", 0);
    printf("list groups share: %s\n", listed("share", g));
    describe_offsets("after the acknowledgements", g, 0, 0);
    e = gr_admin_alter_share_group_offsets(a, g, topic, parts, offs, 1, 10000, &r);
    show("alter share group offsets", e, r);
    describe_offsets("after alter", g, 7, 1);
    const char *nosuch[] = {"lg-no-such-topic"};
    e = gr_admin_delete_share_group_offsets(a, g, nosuch, 1, 10000, &r);
    show("delete share group offsets of an unknown topic", e, r);
    e = gr_admin_delete_share_group_offsets(a, g, tn, 1, 10000, &r);
    show("delete share group offsets", e, r);
    describe_offsets("after delete", g, -2, 3);
    e = gr_admin_delete_groups(a, gs, 1, 10000, &r);
    show("delete group", e, r);
    e = gr_admin_describe_share_groups(a, gs, 1, 10000, &r);
    show("describe deleted group", e, r);
    printf("list groups share: %s\n", listed("share", g));
    e = gr_admin_delete_groups(a, gs, 1, 10000, &r);
    show("delete group again", e, r);
    e = gr_admin_delete_topics(a, tn, 1, 30000, &r);
    show("delete topic", e, r);
    gr_admin_destroy(a);
    return 0;
}

static int group_configs(const char *bs, const char *group, int n, char **kv) {
    char err[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    if (gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err)) || gr_admin_new(conf, &a, err, sizeof(err))) {
        fprintf(stderr, "group configs: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    const char **ops = calloc((size_t)n * 3 + 1, sizeof(*ops));
    char **copies = calloc((size_t)n + 1, sizeof(*copies));
    for (int i = 0; i < n; i++) {
        copies[i] = strdup(kv[i]);
        char *eq = strchr(copies[i], '=');
        if (!eq) {
            fprintf(stderr, "group configs: '%s' is not name=value\n", kv[i]);
            return 2;
        }
        *eq = 0;
        ops[3 * i] = "set", ops[3 * i + 1] = copies[i], ops[3 * i + 2] = eq + 1;
    }
    gr_admin_result_t *r = NULL;
    gr_err_t e = gr_admin_incremental_alter_configs(a, GR_RESOURCE_GROUP, group, ops, (size_t)n, 0, 10000, &r);
    if (e) fprintf(stderr, "group configs: %s: %s\n", gr_err_name(e), gr_admin_last_error(a));
    gr_admin_result_destroy(r);
    for (int i = 0; i < n; i++) free(copies[i]);
    free(copies);
    free(ops);
    gr_admin_destroy(a);
    return e ? 1 : 0;
}
