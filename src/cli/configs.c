/* gregor configs: kafka-configs.sh for topics, brokers and groups (users, clients and
 * ips, the quota and SCRAM entities: configs_quota.c).
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
#include "config_ops.h"
#include "configs_quota.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"command-config", "String: command config property file",
     "Property file containing configs to be passed to the admin client."},
    {"entity-type", "String",
     "Type of entity (topics/brokers/groups/users/clients/ips); users and clients may be given together."},
    {"entity-name", "String", "Name of entity (topic name/broker id/group id)."},
    {"entity-default", NULL, "Default entity name for brokers, users, clients or ips."},
    {"topic", "String", "The topic's name (same as --entity-type topics --entity-name)."},
    {"broker", "String", "The broker's id (same as --entity-type brokers --entity-name)."},
    {"broker-defaults", NULL, "The config defaults for all brokers (same as --entity-type brokers --entity-default)."},
    {"group", "String", "The group's id (same as --entity-type groups --entity-name)."},
    {"user", "String", "The user's principal name (same as --entity-type users --entity-name)."},
    {"user-defaults", NULL, "The config defaults for all users."},
    {"client", "String", "The client's id (same as --entity-type clients --entity-name)."},
    {"client-defaults", NULL, "The config defaults for all clients."},
    {"ip", "String", "The IP address (same as --entity-type ips --entity-name)."},
    {"ip-defaults", NULL, "The config defaults for all IPs."},
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

/* Add the "set" op of "k=v" (a value in brackets loses them); false on a bad item. */
static bool add_set(const cli_vals_t *v, char *item, const char **ops, size_t *n, size_t max) {
    char *key, *val;
    if (!cli_config_kv(item, &key, &val)) {
        cli_usage_error(v, "Invalid config '%s': configs must be given as k=v", item);
        return false;
    }
    if (*n < max) ops[3 * *n] = "set", ops[3 * *n + 1] = key, ops[3 * *n + 2] = val, (*n)++;
    return true;
}

/* The --add-config, --add-config-file and --delete-config operations, 3 strings each
 * ("set"/"delete", key, value) into ops; their number in *n. The strings live in bufs
 * (free them with free_ops_bufs). */
typedef struct config_ops {
    const char *ops[3 * CLI_MAX_CONFIG_OPS];
    size_t n;
    char *add, *del, *file;
} config_ops_t;

static void free_ops(config_ops_t *c) { free(c->add), free(c->del), free(c->file); }

static int parse_ops(const cli_vals_t *v, config_ops_t *c) {
    const size_t max = CLI_MAX_CONFIG_OPS;
    c->add = strdup(cli_str(v, "add-config") ? cli_str(v, "add-config") : "");
    c->del = strdup(cli_str(v, "delete-config") ? cli_str(v, "delete-config") : "");
    const char *fitems[CLI_MAX_CONFIG_OPS];
    size_t nf = 0;
    c->file = cli_str(v, "add-config-file") ? cli_read_props(cli_str(v, "add-config-file"), fitems, max, &nf) : NULL;
    char *items[CLI_MAX_CONFIG_OPS], *vals[CLI_MAX_CONFIG_OPS];
    const char *bad = NULL;
    int k = 0;
    c->n = 0;
    if (cli_str(v, "add-config-file") && !c->file) return CLI_FAIL;
    if (cli_str(v, "add-config") && (k = cli_parse_add_config(c->add, items, vals, max, &bad)) < 0)
        return k == CLI_CONFIG_BAD_KEY    ? cli_fail("Invalid character found for config key: %s", bad)
               : k == CLI_CONFIG_TOO_MANY ? cli_usage_error(v, "More than %zu configs in --add-config", max)
                                          : cli_fail("Invalid entity config: all configs to be added must be in the "
                                                     "format \"key=val\" or  \"key=[val1,val2]\" to group values "
                                                     "which contain commas.");
    for (int i = 0; i < k; i++)
        c->ops[3 * c->n] = "set", c->ops[3 * c->n + 1] = items[i], c->ops[3 * c->n + 2] = vals[i], c->n++;
    for (size_t i = 0; i < nf; i++)
        if (!add_set(v, (char *)fitems[i], c->ops, &c->n, max)) return CLI_USAGE;
    size_t nd = cli_split(c->del, ',', items, max);
    for (size_t i = 0; i < nd && c->n < max; i++)
        c->ops[3 * c->n] = "delete", c->ops[3 * c->n + 1] = items[i], c->ops[3 * c->n + 2] = NULL, c->n++;
    if (!c->n)
        return cli_usage_error(v, "At least one of --add-config, --add-config-file, or --delete-config must be "
                                  "specified with --alter");
    return CLI_OK;
}

static int alter(const cli_vals_t *v, gr_admin_t *a, gr_resource_type_t type, const char *tname, const char *name,
                 const char *const *ops, size_t n) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_incremental_alter_configs(a, type, name, ops, n, 0, cli_timeout(v), &res);
    const char *m = err && res ? gr_admin_result_str(res, 0, "error_message") : NULL;
    int rc = CLI_OK;
    if (err)
        rc = cli_fail("%s", m ? m : gr_admin_last_error(a));
    else if (!*name && type == GR_RESOURCE_BROKER)
        printf("Completed updating default config for brokers in the cluster.\n");
    else
        printf("Completed updating config for %s %s.\n", tname, name);
    gr_admin_result_destroy(res);
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

/* The shortcut flags, in Kafka's order (ConfigCommandOptions.entityFlags, then
 * entityDefaultsFlags): each names an entity type and a name ("" for the defaults). */
static const struct shortcut {
    const char *opt, *type;
    bool dflt;
} shortcuts[] = {{"topic", "topics", false},
                 {"client", "clients", false},
                 {"user", "users", false},
                 {"broker", "brokers", false},
                 {"ip", "ips", false},
                 {"group", "groups", false},
                 {"client-defaults", "clients", true},
                 {"user-defaults", "users", true},
                 {"broker-defaults", "brokers", true},
                 {"ip-defaults", "ips", true}};
#define N_SHORTCUTS (sizeof(shortcuts) / sizeof(shortcuts[0]))

static bool push(const char **arr, size_t *n, const char *s) {
    if (*n >= CLI_MAX_ENTITY_TYPES) return false;
    arr[(*n)++] = s;
    return true;
}

/* Kafka's entity lists: the --entity-type values then the shortcuts' types; the names
 * of --entity-name and --entity-default in command-line order (argv tells the order:
 * the parser keeps each option's values apart), then the shortcuts' names. */
static int entity_lists(const cli_vals_t *v, int argc, char **argv, cli_entities_t *e) {
    size_t n_et, n_en, k = 0;
    const char **et = cli_all(v, "entity-type", &n_et), **en = cli_all(v, "entity-name", &n_en);
    bool ok = true;
    e->n_types = e->n_names = 0;
    for (size_t i = 0; i < n_et; i++) ok &= push(e->types, &e->n_types, et[i]);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--entity-default")) ok &= push(e->names, &e->n_names, "");
        if ((!strcmp(argv[i], "--entity-name") || !strncmp(argv[i], "--entity-name=", 14)) && k < n_en)
            ok &= push(e->names, &e->n_names, en[k++]);
        if (!strcmp(argv[i], "--entity-name")) i++; /* its value, whatever it looks like */
    }
    for (size_t i = 0; i < N_SHORTCUTS; i++)
        if (cli_has(v, shortcuts[i].opt)) ok &= push(e->types, &e->n_types, shortcuts[i].type);
    for (size_t i = 0; i < N_SHORTCUTS; i++)
        if (cli_has(v, shortcuts[i].opt))
            ok &= push(e->names, &e->n_names, shortcuts[i].dflt ? "" : cli_str(v, shortcuts[i].opt));
    return ok ? CLI_OK : cli_usage_error(v, "Too many entities");
}

static bool has_type(const cli_entities_t *e, const char *t) {
    for (size_t i = 0; i < e->n_types; i++)
        if (!strcmp(e->types[i], t)) return true;
    return false;
}

/* ConfigCommandOptions.checkArgs, in Kafka's order, for what gregor supports. */
static int check_entities(const cli_vals_t *v, const cli_entities_t *e, bool alter) {
    static const char *const known[] = {"topics", "brokers", "groups", "users", "clients", "ips", NULL};
    for (size_t i = 0; i < e->n_types; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(e->types[i], e->types[j]))
                return cli_usage_error(v, "Duplicate entity type(s) specified: %s", e->types[i]);
    for (size_t i = 0; i < e->n_types; i++) {
        bool k = false;
        for (int j = 0; known[j]; j++) k |= !strcmp(e->types[i], known[j]);
        if (!k)
            return cli_usage_error(v,
                                   "Invalid entity type %s, the entity type must be one of topics, brokers, groups, "
                                   "users, clients, ips",
                                   e->types[i]);
    }
    if (!e->n_types) return cli_usage_error(v, "At least one entity type must be specified");
    if (e->n_types > 1 && !(e->n_types == 2 && has_type(e, "users") && has_type(e, "clients")))
        return cli_usage_error(v, "Only 'users' and 'clients' entity types may be specified together");
    bool generic = cli_has(v, "entity-name") || cli_has(v, "entity-type") || cli_has(v, "entity-default");
    for (size_t i = 0; i < N_SHORTCUTS && generic; i++)
        if (cli_has(v, shortcuts[i].opt))
            return cli_usage_error(v, "--entity-{type,name,default} should not be used in conjunction with specific "
                                      "entity flags");
    bool named = false, dflt = false;
    for (size_t i = 0; i < e->n_names; i++) named |= *e->names[i] != 0, dflt |= !*e->names[i];
    if (named && has_type(e, "ips"))
        for (size_t i = 0; i < e->n_names; i++)
            if (*e->names[i] && !cli_valid_ip_entity(e->names[i]))
                return cli_usage_error(v, "The entity name for %s must be a valid IP or resolvable host, but it is: %s",
                                       e->types[0], e->names[i]);
    bool quota_or_broker =
        has_type(e, "users") || has_type(e, "clients") || has_type(e, "brokers") || has_type(e, "ips");
    if (!alter && !quota_or_broker && cli_has(v, "entity-default"))
        return cli_usage_error(v, "--entity-default must not be specified with --describe of %s", e->types[0]);
    if (alter && quota_or_broker && !named && !dflt)
        return cli_usage_error(v, "An entity-name or default entity must be specified with --alter of users, clients, "
                                  "brokers or ips");
    if (alter && !quota_or_broker && !named)
        return cli_usage_error(v, "An entity name must be specified with --alter of %s", e->types[0]);
    if (cli_has(v, "add-config") && cli_has(v, "add-config-file"))
        return cli_usage_error(v, "Only one of --add-config or --add-config-file must be specified");
    return CLI_OK;
}

/* topics, brokers and groups: one entity, configs through the config APIs. */
static int run_resource(const cli_vals_t *v, gr_admin_t *a, const cli_entities_t *e, int act, const config_ops_t *c) {
    const char *et = e->types[0], *name = e->n_names ? e->names[0] : NULL, *tname;
    gr_resource_type_t type;
    if (!strcmp(et, "topics"))
        type = GR_RESOURCE_TOPIC, tname = "topic";
    else if (!strcmp(et, "brokers"))
        type = GR_RESOURCE_BROKER, tname = "broker";
    else
        type = GR_RESOURCE_GROUP, tname = "group";
    if (!name && type == GR_RESOURCE_BROKER)
        return cli_usage_error(v, "--entity-name or --entity-default must be specified to describe brokers");
    cli_table_t acc;
    cli_table_init(&acc, cols, 6);
    bool json = cli_json(v);
    int rc = act == 1 ? alter(v, a, type, tname, name, c->ops, c->n)
             : name   ? describe(v, a, type, tname, name, json ? &acc : NULL)
                      : describe_every(v, a, type, tname, json ? &acc : NULL);
    if (act == 0 && json && rc == CLI_OK) cli_table_print(&acc, true, false);
    cli_table_free(&acc);
    return rc;
}

static int run(const cli_vals_t *v, int argc, char **argv) {
    static const char *const actions[] = {"describe", "alter", NULL};
    int act = cli_one_of(v, actions, true);
    if (act < 0) return CLI_USAGE;
    cli_entities_t e;
    int rc = entity_lists(v, argc, argv, &e);
    if (!rc) rc = check_entities(v, &e, act == 1);
    if (rc) return rc;
    if (act == 0 && (cli_has(v, "add-config") || cli_has(v, "add-config-file") || cli_has(v, "delete-config")))
        return cli_usage_error(v, "--add-config, --add-config-file and --delete-config are only valid with --alter");
    bool quota = has_type(&e, "users") || has_type(&e, "clients") || has_type(&e, "ips");
    config_ops_t c = {0};
    if (act == 1 && (rc = parse_ops(v, &c))) {
        free_ops(&c);
        return rc;
    }
    gr_admin_t *a = cli_admin(v);
    if (!a) {
        free_ops(&c);
        return CLI_FAIL;
    }
    if (!quota)
        rc = run_resource(v, a, &e, act, &c);
    else if (act == 1)
        rc = cli_configs_quota_alter(a, &e, c.ops, c.n, cli_timeout(v));
    else
        rc = cli_configs_quota_describe(a, &e, cli_timeout(v), cli_json(v));
    free_ops(&c);
    gr_admin_destroy(a);
    return rc;
}

int cli_configs(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor configs",
                       "Describe and alter configs of topics, brokers and groups, and the quotas and SCRAM credentials "
                       "of users, clients and ips.",
                       opts, argc, argv);
    if (!rc) rc = run(&v, argc, argv);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
