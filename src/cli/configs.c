/* gregor configs: kafka-configs.sh for topics, brokers and groups.
 *   --entity-type topics|brokers|groups (--entity-name N | --entity-default) --describe [--all]
 *   --entity-type ... --entity-name N --alter [--add-config k=v,...] [--delete-config k,...]
 * --describe prints Kafka's "Dynamic configs for topic t are:" (or "All configs", with
 * --all) followed by "  k=v sensitive=false synonyms={SOURCE:k=v}"; --alter uses
 * IncrementalAlterConfigs and prints "Completed updating config for topic t.". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"command-config", "String: command config property file", "Property file containing configs to be passed to the admin client."},
    {"entity-type", "String", "Type of entity (topics/brokers/groups)."},
    {"entity-name", "String", "Name of entity (topic name/broker id/group id)."},
    {"entity-default", NULL, "Default entity name for brokers (applies to all brokers)."},
    {"describe", NULL, "List configs for the given entity."},
    {"all", NULL, "List all configs for the given entity, including static and default ones."},
    {"alter", NULL, "Alter the configuration for the entity."},
    {"add-config", "String", "Key Value pairs of configs to add, comma-separated: k1=v1,k2=v2."},
    {"delete-config", "String", "Config keys to remove, comma-separated: k1,k2."},
    {"output", "String: text|json", "Output format of --describe (default text)."},
    {"timeout", "Long: timeout (ms)", "Timeout of each admin call (default 30000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

static const char *source_name(int64_t s) {
    static const char *const names[] = {"UNKNOWN", "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG",
                                        "DYNAMIC_DEFAULT_BROKER_CONFIG", "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG",
                                        "DYNAMIC_BROKER_LOGGER_CONFIG", "CLIENT_METRICS_CONFIG", "GROUP_CONFIG"};
    return s >= 0 && s < 9 ? names[s] : "UNKNOWN";
}

static bool dynamic_source(int64_t s) { return s == 1 || s == 2 || s == 3 || s == 8; }

static const cli_col_t cols[] = {
    {"NAME", "name", 0, false},          {"VALUE", "value", 0, false},         {"SOURCE", "source", 0, false},
    {"SENSITIVE", "sensitive", 0, false}, {"READ-ONLY", "read_only", 0, false},
};

static int describe(const cli_vals_t *v, gr_admin_t *a, gr_resource_type_t type, const char *tname,
                    const char *name) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_describe_configs(a, type, name, NULL, 0, cli_timeout(v), &res);
    if (err) {
        const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        int rc = cli_fail("%s", m ? m : gr_admin_last_error(a));
        gr_admin_result_destroy(res);
        return rc;
    }
    bool all = cli_has(v, "all"), json = cli_json(v);
    cli_table_t t;
    cli_table_init(&t, cols, 5);
    if (!json) printf("%s configs for %s %s are:\n", all ? "All" : "Dynamic", tname, name);
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        int64_t src = gr_admin_result_int(res, r, "source", 0);
        if (!all && !dynamic_source(src)) continue;
        const char *k = gr_admin_result_str(res, r, "name"), *val = gr_admin_result_str(res, r, "value");
        bool sens = gr_admin_result_int(res, r, "sensitive", 0) != 0;
        const char *cells[5] = {k, val, source_name(src), sens ? "true" : "false",
                                gr_admin_result_int(res, r, "read_only", 0) ? "true" : "false"};
        if (json) cli_table_add(&t, cells);
        else printf("  %s=%s sensitive=%s synonyms={%s:%s=%s}\n", k, sens ? "null" : val ? val : "null",
                    cells[3], source_name(src), k, sens ? "null" : val ? val : "null");
    }
    if (json) cli_table_print(&t, true, false);
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* Build "set"/"delete" triples from --add-config and --delete-config. */
static size_t build_ops(const cli_vals_t *v, char *add, char *del, const char **ops, size_t max) {
    char *items[256];
    size_t n = 0, k = cli_split(add, ',', items, 256);
    for (size_t i = 0; i < k && n < max; i++) {
        char *eq = strchr(items[i], '=');
        if (!eq) {
            cli_usage_error(v, "Invalid config '%s': configs must be given as k=v", items[i]);
            exit(CLI_USAGE);
        }
        *eq = 0;
        ops[3 * n] = "set", ops[3 * n + 1] = items[i], ops[3 * n + 2] = eq + 1, n++;
    }
    k = cli_split(del, ',', items, 256);
    for (size_t i = 0; i < k && n < max; i++) ops[3 * n] = "delete", ops[3 * n + 1] = items[i], ops[3 * n + 2] = NULL, n++;
    return n;
}

static int alter(const cli_vals_t *v, gr_admin_t *a, gr_resource_type_t type, const char *tname, const char *name) {
    char *add = strdup(cli_str(v, "add-config") ? cli_str(v, "add-config") : "");
    char *del = strdup(cli_str(v, "delete-config") ? cli_str(v, "delete-config") : "");
    const char *ops[3 * 512];
    size_t n = build_ops(v, add, del, ops, 512);
    int rc = CLI_OK;
    if (!n) {
        rc = cli_usage_error(v, "--alter needs --add-config or --delete-config");
    } else {
        gr_admin_result_t *res = NULL;
        gr_err_t err = gr_admin_incremental_alter_configs(a, type, name, ops, n, 0, cli_timeout(v), &res);
        const char *m = err && res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        if (err) rc = cli_fail("%s", m ? m : gr_admin_last_error(a));
        else printf("Completed updating config for %s %s.\n", tname, name);
        gr_admin_result_destroy(res);
    }
    free(add);
    free(del);
    return rc;
}

static int run(const cli_vals_t *v) {
    const char *et = cli_str(v, "entity-type"), *name = cli_str(v, "entity-name");
    gr_resource_type_t type;
    const char *tname;
    if (!et) return cli_usage_error(v, "--entity-type must be specified");
    if (!strcmp(et, "topics")) type = GR_RESOURCE_TOPIC, tname = "topic";
    else if (!strcmp(et, "brokers")) type = GR_RESOURCE_BROKER, tname = "broker";
    else if (!strcmp(et, "groups")) type = GR_RESOURCE_GROUP, tname = "group";
    else return cli_usage_error(v, "Invalid entity type %s, the entity type must be one of topics, brokers, groups", et);
    if (cli_has(v, "entity-default")) {
        if (type != GR_RESOURCE_BROKER) return cli_usage_error(v, "--entity-default is only valid with brokers");
        name = "";
    }
    static const char *const actions[] = {"describe", "alter", NULL};
    int act = cli_one_of(v, actions, true);
    if (act < 0) return CLI_USAGE;
    if (!name) return cli_usage_error(v, "--entity-name or --entity-default must be specified");
    (void)cli_json(v);
    gr_admin_t *a = cli_admin(v);
    if (!a) return CLI_FAIL;
    int rc = act == 0 ? describe(v, a, type, tname, name) : alter(v, a, type, tname, name);
    gr_admin_destroy(a);
    return rc;
}

int cli_configs(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor configs", "Describe and alter configs of topics, brokers and groups.", opts, argc,
                       argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
