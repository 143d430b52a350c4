/* gregor configs: kafka-configs.sh for topics, brokers and groups.
 *   (--entity-type topics|brokers|groups (--entity-name N | --entity-default) | --topic T |
 *    --broker ID | --broker-defaults | --group G) --describe [--all]
 *   ... --alter [--add-config k=v,k2=[a,b]] [--add-config-file FILE] [--delete-config k,...]
 * --describe prints Kafka's "Dynamic configs for topic t are:" (or "All configs", with
 * --all; "Default configs for brokers in the cluster are:" with --entity-default)
 * followed by "  k=v sensitive=false synonyms={SOURCE:k=v}", sorted by name. Without a
 * name, topics and groups describe every topic or group. --alter uses
 * IncrementalAlterConfigs and prints "Completed updating config for topic t.". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"command-config", "String: command config property file",
     "Property file containing configs to be passed to the admin client."},
    {"entity-type", "String", "Type of entity (topics/brokers/groups)."},
    {"entity-name", "String", "Name of entity (topic name/broker id/group id)."},
    {"entity-default", NULL, "Default entity name for brokers (applies to all brokers)."},
    {"topic", "String", "The topic's name (same as --entity-type topics --entity-name)."},
    {"broker", "String", "The broker's id (same as --entity-type brokers --entity-name)."},
    {"broker-defaults", NULL, "The config defaults for all brokers (same as --entity-type brokers --entity-default)."},
    {"group", "String", "The group's id (same as --entity-type groups --entity-name)."},
    {"describe", NULL, "List configs for the given entity."},
    {"all", NULL, "List all configs for the given entity, including static and default ones."},
    {"alter", NULL, "Alter the configuration for the entity."},
    {"add-config", "String",
     "Key Value pairs of configs to add, comma-separated: k1=v1,k2=[v1,v2] (brackets keep commas in a value)."},
    {"add-config-file", "String", "A properties file of configs to add (k=v lines)."},
    {"delete-config", "String", "Config keys to remove, comma-separated: k1,k2."},
    {"output", "String: text|json", "Output format of --describe (default text)."},
    {"timeout", "Long: timeout (ms)", "Timeout of each admin call (default 30000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

static const char *source_name(int64_t s) {
    static const char *const names[] = {"UNKNOWN",
                                        "DYNAMIC_TOPIC_CONFIG",
                                        "DYNAMIC_BROKER_CONFIG",
                                        "DYNAMIC_DEFAULT_BROKER_CONFIG",
                                        "STATIC_BROKER_CONFIG",
                                        "DEFAULT_CONFIG",
                                        "DYNAMIC_BROKER_LOGGER_CONFIG",
                                        "CLIENT_METRICS_CONFIG",
                                        "GROUP_CONFIG"};
    return s >= 0 && s < 9 ? names[s] : "UNKNOWN";
}

static bool dynamic_source(int64_t s) { return s == 1 || s == 2 || s == 3 || s == 8; }

static const cli_col_t cols[] = {
    {"ENTITY", "entity", 0, CLI_TEXT}, {"NAME", "name", 0, CLI_TEXT},           {"VALUE", "value", 0, CLI_TEXT},
    {"SOURCE", "source", 0, CLI_TEXT}, {"SENSITIVE", "sensitive", 0, CLI_BOOL}, {"READ-ONLY", "read_only", 0, CLI_BOOL},
};

/* Describe one entity: print its configs, or with --output json add them to *acc. */
static int describe(const cli_vals_t *v, gr_admin_t *a, gr_resource_type_t type, const char *tname, const char *name,
                    cli_table_t *acc) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_describe_configs(a, type, name, NULL, 0, cli_timeout(v), &res);
    if (err) {
        const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        int rc = err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION && type == GR_RESOURCE_TOPIC
                     ? cli_fail("The topic '%s' doesn't exist and doesn't have dynamic config.", name)
                     : cli_fail("%s", m ? m : gr_admin_last_error(a));
        gr_admin_result_destroy(res);
        return rc;
    }
    bool all = cli_has(v, "all"), json = acc != NULL;
    cli_table_t t;
    cli_table_init(&t, cols, 6);
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        int64_t src = gr_admin_result_int(res, r, "source", 0);
        if (!all && !dynamic_source(src)) continue;
        bool sens = gr_admin_result_int(res, r, "sensitive", 0) != 0;
        const char *cells[6] = {name,
                                gr_admin_result_str(res, r, "name"),
                                sens ? NULL : gr_admin_result_str(res, r, "value"),
                                source_name(src),
                                sens ? "true" : "false",
                                gr_admin_result_int(res, r, "read_only", 0) ? "true" : "false"};
        cli_table_add(&t, cells);
    }
    cli_table_sort(&t, (const size_t[]){1}, 1);
    if (json) {
        for (size_t r = 0; r < t.rows; r++) cli_table_add(acc, (const char *const *)&t.cells[r * 6]);
    } else {
        if (!*name && type == GR_RESOURCE_BROKER)
            printf("Default configs for brokers in the cluster are:\n");
        else
            printf("%s configs for %s %s are:\n", all ? "All" : "Dynamic", tname, name);
        for (size_t r = 0; r < t.rows; r++) {
            char *const *c = &t.cells[r * 6 + 1];
            const char *val = c[1] ? c[1] : "null";
            printf("  %s=%s sensitive=%s synonyms={%s:%s=%s}\n", c[0], val, c[3], c[2], c[0], val);
        }
    }
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* Split s at the commas outside brackets (Kafka's "k=[a,b]" list values); trims blanks. */
static size_t split_configs(char *s, char **out, size_t max) {
    size_t n = 0;
    int depth = 0;
    char *start = s;
    for (char *p = s;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']' && depth > 0)
            depth--;
        if (*p && (*p != ',' || depth)) continue;
        bool end = !*p;
        *p = 0;
        while (*start == ' ') start++;
        size_t l = strlen(start);
        while (l && start[l - 1] == ' ') start[--l] = 0;
        if (*start && n < max) out[n++] = start;
        if (end) break;
        start = p + 1;
    }
    return n;
}

/* Add the "set" op of "k=v" (a value in brackets loses them); false on a bad item. */
static bool add_set(const cli_vals_t *v, char *item, const char **ops, size_t *n, size_t max) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item) {
        cli_usage_error(v, "Invalid config '%s': configs must be given as k=v", item);
        return false;
    }
    *eq = 0;
    char *val = eq + 1;
    size_t l = strlen(val);
    if (l >= 2 && val[0] == '[' && val[l - 1] == ']') val[l - 1] = 0, val++;
    if (*n < max) ops[3 * *n] = "set", ops[3 * *n + 1] = item, ops[3 * *n + 2] = val, (*n)++;
    return true;
}

static int alter(const cli_vals_t *v, gr_admin_t *a, gr_resource_type_t type, const char *tname, const char *name) {
    char *add = strdup(cli_str(v, "add-config") ? cli_str(v, "add-config") : "");
    char *del = strdup(cli_str(v, "delete-config") ? cli_str(v, "delete-config") : "");
    const char *fitems[512];
    size_t nf = 0;
    char *file = cli_str(v, "add-config-file") ? cli_read_props(cli_str(v, "add-config-file"), fitems, 512, &nf) : NULL;
    static const char *ops[3 * 512];
    char *items[512];
    size_t n = 0, k;
    int rc = CLI_OK;
    if (cli_str(v, "add-config-file") && !file) rc = CLI_FAIL;
    k = rc ? 0 : split_configs(add, items, 512);
    for (size_t i = 0; i < k && rc == CLI_OK; i++)
        if (!add_set(v, items[i], ops, &n, 512)) rc = CLI_USAGE;
    for (size_t i = 0; i < nf && rc == CLI_OK; i++)
        if (!add_set(v, (char *)fitems[i], ops, &n, 512)) rc = CLI_USAGE;
    k = rc ? 0 : cli_split(del, ',', items, 512);
    for (size_t i = 0; i < k && n < 512; i++)
        ops[3 * n] = "delete", ops[3 * n + 1] = items[i], ops[3 * n + 2] = NULL, n++;
    if (rc == CLI_OK && !n) {
        rc = cli_usage_error(v, "At least one of --add-config, --add-config-file, or --delete-config must be "
                                "specified with --alter");
    } else if (rc == CLI_OK) {
        gr_admin_result_t *res = NULL;
        gr_err_t err = gr_admin_incremental_alter_configs(a, type, name, ops, n, 0, cli_timeout(v), &res);
        const char *m = err && res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        if (err)
            rc = cli_fail("%s", m ? m : gr_admin_last_error(a));
        else if (!*name && type == GR_RESOURCE_BROKER)
            printf("Completed updating default config for brokers in the cluster.\n");
        else
            printf("Completed updating config for %s %s.\n", tname, name);
        gr_admin_result_destroy(res);
    }
    free(add);
    free(del);
    free(file);
    return rc;
}

/* Describe every topic or group (no --entity-name). */
static int describe_every(const cli_vals_t *v, gr_admin_t *a, gr_resource_type_t type, const char *tname,
                          cli_table_t *acc) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = type == GR_RESOURCE_TOPIC ? gr_admin_describe_topics(a, NULL, 0, cli_timeout(v), &res)
                                             : gr_admin_list_groups(a, NULL, cli_timeout(v), &res);
    if (err) {
        gr_admin_result_destroy(res);
        return cli_fail("%s", gr_admin_last_error(a));
    }
    static const cli_col_t name_col[] = {{"NAME", "name", 0, CLI_TEXT}};
    cli_table_t t;
    cli_table_init(&t, name_col, 1);
    const char *col = type == GR_RESOURCE_TOPIC ? "topic" : "group";
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        const char *nm = gr_admin_result_str(res, r, col);
        if (nm && (r == 0 || strcmp(nm, gr_admin_result_str(res, r - 1, col)))) cli_table_add(&t, &nm);
    }
    cli_table_sort(&t, (const size_t[]){0}, 1);
    int rc = CLI_OK;
    for (size_t r = 0; r < t.rows; r++) {
        int r1 = describe(v, a, type, tname, t.cells[r], acc);
        if (r1) rc = r1;
    }
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return rc;
}

static int run(const cli_vals_t *v) {
    const char *et = cli_str(v, "entity-type"), *name = cli_str(v, "entity-name");
    gr_resource_type_t type;
    const char *tname;
    /* The shortcuts --topic, --broker, --broker-defaults and --group name the entity. */
    static const char *const shortcuts[] = {"topic", "broker", "broker-defaults", "group", NULL};
    static const char *const short_type[] = {"topics", "brokers", "brokers", "groups"};
    int given = 0, sc = -1;
    for (int i = 0; shortcuts[i]; i++)
        if (cli_has(v, shortcuts[i])) given++, sc = i;
    if (given > 1 || (given && (et || name || cli_has(v, "entity-default"))))
        return cli_usage_error(v, "Only one entity may be given: --entity-type/--entity-name, --topic, --broker, "
                                  "--broker-defaults or --group");
    if (sc >= 0) {
        et = short_type[sc];
        name = sc == 2 ? "" : cli_str(v, shortcuts[sc]);
    }
    if (!et) return cli_usage_error(v, "--entity-type must be specified");
    if (!strcmp(et, "topics"))
        type = GR_RESOURCE_TOPIC, tname = "topic";
    else if (!strcmp(et, "brokers"))
        type = GR_RESOURCE_BROKER, tname = "broker";
    else if (!strcmp(et, "groups"))
        type = GR_RESOURCE_GROUP, tname = "group";
    else
        return cli_usage_error(v, "Invalid entity type %s, the entity type must be one of topics, brokers, groups", et);
    if (cli_has(v, "entity-default")) {
        if (type != GR_RESOURCE_BROKER) return cli_usage_error(v, "--entity-default is only valid with brokers");
        if (name) return cli_usage_error(v, "--entity-name and --entity-default cannot both be given");
        name = "";
    }
    static const char *const actions[] = {"describe", "alter", NULL};
    int act = cli_one_of(v, actions, true);
    if (act < 0) return CLI_USAGE;
    if (!name && (act == 1 || type == GR_RESOURCE_BROKER))
        return cli_usage_error(v, "--entity-name or --entity-default must be specified%s",
                               act == 1 ? " with --alter" : " to describe brokers");
    if (act == 0 && (cli_has(v, "add-config") || cli_has(v, "add-config-file") || cli_has(v, "delete-config")))
        return cli_usage_error(v, "--add-config, --add-config-file and --delete-config are only valid with --alter");
    (void)cli_json(v);
    gr_admin_t *a = cli_admin(v);
    if (!a) return CLI_FAIL;
    cli_table_t acc;
    cli_table_init(&acc, cols, 6);
    bool json = cli_json(v);
    int rc = act == 1 ? alter(v, a, type, tname, name)
             : name   ? describe(v, a, type, tname, name, json ? &acc : NULL)
                      : describe_every(v, a, type, tname, json ? &acc : NULL);
    if (act == 0 && json && rc == CLI_OK) cli_table_print(&acc, true, false);
    cli_table_free(&acc);
    gr_admin_destroy(a);
    return rc;
}

int cli_configs(int argc, char **argv) {
    cli_vals_t v;
    int rc =
        cli_parse(&v, "gregor configs", "Describe and alter configs of topics, brokers and groups.", opts, argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
