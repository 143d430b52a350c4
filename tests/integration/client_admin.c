/* Admin round trip through libgregor's public API, printing one line per step with
 * only what must be identical between gregord and Apache Kafka (error names, counts,
 * config values; no ids or timings).
 *
 *   client_admin BOOTSTRAP TOPIC_PREFIX
 * Exit status 0 when the scenario ran (the lines are compared by the test script). */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static const char *config_value_raw(const char *topic, const char *name) {
    static char bufs[2][256];
    static int k;
    char *buf = bufs[k++ & 1];
    gr_admin_result_t *r = NULL;
    const char *keys[] = {name};
    gr_err_t err = gr_admin_describe_configs(a, GR_RESOURCE_TOPIC, topic, keys, 1, 10000, &r);
    const char *v = err ? gr_err_name(err) : gr_admin_result_str(r, 0, "value");
    snprintf(buf, sizeof(bufs[0]), "%s", v ? v : "(null)");
    gr_admin_result_destroy(r);
    return buf;
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
    printf("describe %s: %s partitions=%zu leaders=%s topic_id=%s\n", label,
           gr_err_name(err), err ? 0 : n, leaders_ok ? "ok" : "missing", id_ok ? "set" : "none");
    gr_admin_result_destroy(r);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: client_admin BOOTSTRAP TOPIC_PREFIX\n");
        return 2;
    }
    char err[512], t1[200], t2[200];
    snprintf(t1, sizeof(t1), "%s-a", argv[2]);
    snprintf(t2, sizeof(t2), "%s-b", argv[2]);
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    if (gr_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof(err)) ||
        gr_admin_new(conf, &a, err, sizeof(err))) {
        printf("setup: %s\n", err);
        return 1;
    }
    gr_conf_destroy(conf);
    gr_admin_result_t *r = NULL;
    const char *one[] = {t1}, *two[] = {t2};
    const char *cfg[] = {"retention.ms", "12345"};
    gr_err_t e = gr_admin_create_topics(a, one, 1, 3, 1, cfg, 1, 0, 30000, &r);
    printf("create rows=%zu partitions=%lld\n", gr_admin_result_rows(r), (long long)gr_admin_result_int(r, 0, "partitions", -2));
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
    e = gr_admin_list_groups(a, "share", 10000, &r);
    show("list share groups", e, r);
    const char *nog[] = {"lg-no-such-group"};
    e = gr_admin_describe_share_groups(a, nog, 1, 10000, &r);
    printf("describe share group: %s state=%s\n", gr_err_name(e), gr_admin_result_str(r, 0, "state") ? gr_admin_result_str(r, 0, "state") : "-");
    gr_admin_result_destroy(r);
    e = gr_admin_describe_share_group_offsets(a, nog[0], NULL, 0, 10000, &r);
    printf("describe share group offsets: %s rows=%zu\n", gr_err_name(e), gr_admin_result_rows(r));
    gr_admin_result_destroy(r);
    e = gr_admin_delete_groups(a, nog, 1, 10000, &r);
    show("delete group", e, r);
    e = gr_admin_describe_configs(a, GR_RESOURCE_GROUP, nog[0], NULL, 0, 10000, &r);
    printf("group configs: %s\n", gr_err_name(e));
    gr_admin_result_destroy(r);
    e = gr_admin_delete_topics(a, one, 1, 30000, &r);
    show("delete", e, r);
    e = gr_admin_delete_topics(a, one, 1, 30000, &r);
    show("delete again", e, r);
    gr_admin_destroy(a);
    return 0;
}
