/* gregor topics: kafka-topics.sh.
 *   --create --topic t [--partitions n] [--replication-factor r] [--config k=v]... [--if-not-exists]
 *   --list [--exclude-internal]
 *   --describe [--topic t] [--exclude-internal]
 *   --alter --topic t --partitions n
 *   --delete --topic t [--if-exists]
 * Messages are Kafka's: "Created topic t.", "Topic 't' does not exist as expected". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"command-config", "String: command config property file", "Property file containing configs to be passed to the admin client."},
    {"create", NULL, "Create a new topic."},
    {"list", NULL, "List all available topics."},
    {"describe", NULL, "List details for the given topics."},
    {"alter", NULL, "Alter the number of partitions of a topic."},
    {"delete", NULL, "Delete a topic."},
    {"topic", "String: topic", "The topic to create, alter, describe or delete."},
    {"partitions", "Integer: # of partitions", "The number of partitions for the topic being created or altered."},
    {"replication-factor", "Integer: replication factor", "The replication factor for each partition of the topic being created."},
    {"config", "String: name=value", "A topic configuration override for the topic being created (repeatable)."},
    {"if-not-exists", NULL, "When creating, only create the topic if it does not exist."},
    {"if-exists", NULL, "When altering, describing or deleting, only act if the topic exists."},
    {"exclude-internal", NULL, "Exclude internal topics when listing or describing."},
    {"output", "String: text|json", "Output format of --list and --describe (default text)."},
    {"timeout", "Long: timeout (ms)", "Timeout of each admin call (default 30000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

static int create(const cli_vals_t *v, gr_admin_t *a, const char *topic) {
    size_t n_cfg;
    const char **cfg = cli_all(v, "config", &n_cfg);
    const char **kv = calloc(2 * n_cfg + 1, sizeof(*kv));
    char **owned = calloc(n_cfg + 1, sizeof(*owned));
    if (!kv || !owned) abort();
    int rc = CLI_OK;
    for (size_t i = 0; i < n_cfg && rc == CLI_OK; i++) {
        char *eq = strchr(cfg[i], '=');
        if (!eq || eq == cfg[i]) {
            rc = cli_usage_error(v, "Invalid topic config: all configs must be in the format \"key=val\".");
            break;
        }
        owned[i] = strndup(cfg[i], (size_t)(eq - cfg[i]));
        kv[2 * i] = owned[i], kv[2 * i + 1] = eq + 1;
    }
    gr_admin_result_t *res = NULL;
    if (rc == CLI_OK) {
        gr_err_t err = gr_admin_create_topics(a, &topic, 1, (int32_t)cli_int(v, "partitions", -1),
                                              (int16_t)cli_int(v, "replication-factor", -1), kv, n_cfg, 0,
                                              cli_timeout(v), &res);
        if (err == GR_ERR_TOPIC_ALREADY_EXISTS && cli_has(v, "if-not-exists")) rc = CLI_OK;
        else if (err && res && gr_admin_result_str(res, 0, "error_message"))
            rc = cli_fail("%s", gr_admin_result_str(res, 0, "error_message"));
        else if (err) rc = cli_fail("%s", gr_admin_last_error(a));
        else printf("Created topic %s.\n", topic);
    }
    gr_admin_result_destroy(res);
    for (size_t i = 0; i < n_cfg; i++) free(owned[i]);
    free(owned);
    free(kv);
    return rc;
}

/* The topics of the cluster, one row per partition; NULL after printing why. */
static gr_admin_result_t *describe_all(const cli_vals_t *v, gr_admin_t *a, const char *topic) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_describe_topics(a, topic ? &topic : NULL, topic ? 1 : 0, cli_timeout(v), &res);
    if (err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION && topic) {
        gr_admin_result_destroy(res);
        if (!cli_has(v, "if-exists")) cli_fail("Topic '%s' does not exist as expected", topic);
        return NULL;
    }
    if (err) {
        cli_fail("%s", gr_admin_last_error(a));
        gr_admin_result_destroy(res);
        return NULL;
    }
    return res;
}

static bool skip_row(const cli_vals_t *v, const gr_admin_result_t *res, size_t r) {
    return cli_has(v, "exclude-internal") && gr_admin_result_int(res, r, "internal", 0);
}

static int list(const cli_vals_t *v, gr_admin_t *a) {
    gr_admin_result_t *res = describe_all(v, a, NULL);
    if (!res) return CLI_FAIL;
    static const cli_col_t cols[] = {{"TOPIC", "topic", 0, false}};
    cli_table_t t;
    cli_table_init(&t, cols, 1);
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        const char *name = gr_admin_result_str(res, r, "topic");
        if (skip_row(v, res, r) || (r > 0 && !strcmp(name, gr_admin_result_str(res, r - 1, "topic")))) continue;
        cli_table_add(&t, &name);
    }
    cli_table_sort(&t, (const size_t[]){0}, 1);
    if (cli_json(v)) {
        cli_table_print(&t, true, false);
    } else {
        for (size_t r = 0; r < t.rows; r++) puts(t.cells[r]);
    }
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* "k=v,k2=v2" of the dynamic (topic-level) configs of topic, malloc'd. */
static char *dynamic_configs(gr_admin_t *a, const char *topic, int timeout) {
    gr_admin_result_t *res = NULL;
    size_t len = 0, cap = 64;
    char *s = calloc(1, cap);
    if (!s) abort();
    if (gr_admin_describe_configs(a, GR_RESOURCE_TOPIC, topic, NULL, 0, timeout, &res) == GR_ERR_NONE) {
        for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
            if (gr_admin_result_int(res, r, "source", 0) != 1) continue;
            const char *k = gr_admin_result_str(res, r, "name"), *val = gr_admin_result_str(res, r, "value");
            size_t need = len + strlen(k) + (val ? strlen(val) : 4) + 3;
            if (need > cap) {
                cap = need * 2;
                s = realloc(s, cap);
                if (!s) abort();
            }
            len += (size_t)snprintf(s + len, cap - len, "%s%s=%s", len ? "," : "", k, val ? val : "null");
        }
    }
    gr_admin_result_destroy(res);
    return s;
}

static void describe_text(const gr_admin_result_t *res, size_t first, size_t end, const char *cfg) {
    const char *topic = gr_admin_result_str(res, first, "topic");
    const char *id = gr_admin_result_str(res, first, "topic_id");
    const char *rep = gr_admin_result_str(res, first, "replicas");
    size_t rf = rep && *rep ? 1 : 0;
    for (const char *p = rep; p && *p; p++) rf += *p == ',';
    printf("Topic: %s\tTopicId: %s\tPartitionCount: %zu\tReplicationFactor: %zu\tConfigs: %s\n", topic,
           id ? id : "", end - first, rf, cfg);
    for (size_t r = first; r < end; r++) {
        const char *isr = gr_admin_result_str(res, r, "isr");
        printf("\tTopic: %s\tPartition: %s\tLeader: %s\tReplicas: %s\tIsr: %s\tElr: \tLastKnownElr: \n", topic,
               gr_admin_result_str(res, r, "partition"), gr_admin_result_int(res, r, "leader", -1) < 0 ? "none"
               : gr_admin_result_str(res, r, "leader"), rep ? gr_admin_result_str(res, r, "replicas") : "",
               isr ? isr : "");
    }
}

static const cli_col_t describe_cols[] = {
    {"TOPIC", "topic", 0, false},         {"TOPIC-ID", "topic_id", 0, false}, {"PARTITION", "partition", 0, true},
    {"LEADER", "leader", 0, true},        {"REPLICAS", "replicas", 0, false}, {"ISR", "isr", 0, false},
    {"CONFIGS", "configs", 0, false},
};

static int describe(const cli_vals_t *v, gr_admin_t *a, const char *topic) {
    gr_admin_result_t *res = describe_all(v, a, topic);
    if (!res) return topic && cli_has(v, "if-exists") ? CLI_OK : CLI_FAIL;
    bool json = cli_json(v);
    cli_table_t t;
    cli_table_init(&t, describe_cols, 7);
    size_t rows = gr_admin_result_rows(res);
    for (size_t first = 0, end; first < rows; first = end) {
        const char *name = gr_admin_result_str(res, first, "topic");
        for (end = first + 1; end < rows && !strcmp(name, gr_admin_result_str(res, end, "topic")); end++) {}
        if (skip_row(v, res, first)) continue;
        char *cfg = dynamic_configs(a, name, cli_timeout(v));
        if (!json) describe_text(res, first, end, cfg);
        for (size_t r = first; json && r < end; r++) {
            const char *cells[7] = {name, gr_admin_result_str(res, r, "topic_id"),
                                    gr_admin_result_str(res, r, "partition"), gr_admin_result_str(res, r, "leader"),
                                    gr_admin_result_str(res, r, "replicas"), gr_admin_result_str(res, r, "isr"), cfg};
            cli_table_add(&t, cells);
        }
        free(cfg);
    }
    if (json) cli_table_print(&t, true, false);
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

static int alter_or_delete(const cli_vals_t *v, gr_admin_t *a, const char *topic, bool del) {
    gr_admin_result_t *res = NULL;
    gr_err_t err;
    if (del) {
        err = gr_admin_delete_topics(a, &topic, 1, cli_timeout(v), &res);
    } else {
        if (!cli_has(v, "partitions")) return cli_usage_error(v, "--alter needs --partitions");
        err = gr_admin_create_partitions(a, &topic, 1, (int32_t)cli_int(v, "partitions", 0), 0, cli_timeout(v), &res);
    }
    int rc = CLI_OK;
    if (err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION) {
        if (!cli_has(v, "if-exists")) rc = cli_fail("Topic '%s' does not exist as expected", topic);
    } else if (err && res && gr_admin_result_str(res, 0, "error_message")) {
        rc = cli_fail("%s", gr_admin_result_str(res, 0, "error_message"));
    } else if (err) {
        rc = cli_fail("%s", gr_admin_last_error(a));
    }
    gr_admin_result_destroy(res);
    return rc;
}

int cli_topics(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor topics", "Create, delete, describe, or change a topic.", opts, argc, argv);
    if (rc) goto out;
    static const char *const actions[] = {"create", "list", "describe", "alter", "delete", NULL};
    int act = cli_one_of(&v, actions, true);
    const char *topic = cli_str(&v, "topic");
    if (act < 0) {
        rc = CLI_USAGE;
        goto out;
    }
    if (!topic && (act == 0 || act == 3 || act == 4)) {
        rc = cli_usage_error(&v, "--%s needs --topic", actions[act]);
        goto out;
    }
    (void)cli_json(&v);
    gr_admin_t *a = cli_admin(&v);
    if (!a) {
        rc = CLI_FAIL;
        goto out;
    }
    switch (act) {
    case 0: rc = create(&v, a, topic); break;
    case 1: rc = list(&v, a); break;
    case 2: rc = describe(&v, a, topic); break;
    default: rc = alter_or_delete(&v, a, topic, act == 4); break;
    }
    gr_admin_destroy(a);
out:
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
