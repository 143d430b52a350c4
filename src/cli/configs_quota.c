/* gregor configs for users, clients and ips: client quotas and SCRAM credentials, as
 * kafka-configs.sh handles those entity types with --bootstrap-server.
 *   --describe: "Quota configs for user-principal 'alice', client-id 'c1' are k=v, ..."
 *     per entity (strict match of the entity types given; a missing name matches any),
 *     then for users (without clients or a default) "SCRAM credential configs for
 *     user-principal 'alice' are SCRAM-SHA-256=iterations=4096".
 *   --alter: quota keys through AlterClientQuotas (deleting a key not set is refused
 *     first, as Kafka's tool does), or SCRAM-SHA-256/512=[iterations=N,]password=P
 *     through AlterUserScramCredentials (salted here), never both in one command.
 * Values print as Java prints a double (java_double.c), as the Kafka tool does. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configs_quota.h"
#include "java_double.h"
#include "java_hash.h"

/* ---- describe ---- */

static const char *wire_type(const char *t) {
    return !strcmp(t, "users") ? "user" : !strcmp(t, "clients") ? "client-id" : "ip";
}

/* "user-principal 'alice', client-id 'c1'" or "the default user-principal" for row r. */
static void entity_text(gr_admin_result_t *res, size_t r, char *out, size_t size) {
    static const char *const cols[] = {"user", "client_id", "ip"};
    static const char *const words[] = {"user-principal", "client-id", "ip"};
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < 3; i++) {
        char dcol[32];
        snprintf(dcol, sizeof(dcol), "%s_default", cols[i]);
        const char *name = gr_admin_result_str(res, r, cols[i]);
        bool dflt = gr_admin_result_int(res, r, dcol, 0) != 0;
        if (!name && !dflt) continue;
        int k = dflt ? snprintf(out + o, size - o, "%sthe default %s", o ? ", " : "", words[i])
                     : snprintf(out + o, size - o, "%s%s '%s'", o ? ", " : "", words[i], name);
        if (k > 0 && (size_t)k < size - o) o += (size_t)k;
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char *const name_cols[] = {"user", "client_id", "ip"};
static const char *const default_cols[] = {"user_default", "client_id_default", "ip_default"};
static const char *const wire_types[] = {"user", "client-id", "ip"};

/* ClientQuotaEntity.hashCode of row r's entity: 31 + its entries map's hash code. */
static int32_t entity_hash(gr_admin_result_t *res, size_t r) {
    uint32_t h = 0;
    for (int i = 0; i < 3; i++) {
        const char *name = gr_admin_result_str(res, r, name_cols[i]);
        if (!name && !gr_admin_result_int(res, r, default_cols[i], 0)) continue;
        h += (uint32_t)(cli_java_string_hash(wire_types[i]) ^ (name ? cli_java_string_hash(name) : 0));
    }
    return (int32_t)(31u + h);
}

/* Rows [from, to) of res (one entity) in the order of Kafka's HashMap of its quotas. */
static size_t *key_order(gr_admin_result_t *res, size_t from, size_t to) {
    size_t n = to - from, *idx = malloc((n ? n : 1) * sizeof(*idx));
    int32_t *h = malloc((n ? n : 1) * sizeof(*h));
    if (!idx || !h) abort();
    for (size_t r = from; r < to; r++) h[r - from] = cli_java_string_hash(gr_admin_result_str(res, r, "key"));
    if (!cli_java_hashmap_order(h, n, n, idx)) abort();
    free(h);
    return idx;
}

/* One entity's line (text) or rows (json) from rows [from, to) of res. */
static void print_entity(gr_admin_result_t *res, size_t from, size_t to, cli_table_t *json) {
    char ent[2048];
    entity_text(res, from, ent, sizeof(ent));
    size_t *idx = key_order(res, from, to);
    if (!json) printf("Quota configs for %s are ", ent);
    for (size_t i = 0; i < to - from; i++) {
        size_t r = from + idx[i];
        char num[64];
        const char *val = gr_admin_result_str(res, r, "value"), *key = gr_admin_result_str(res, r, "key");
        cli_java_double(val ? strtod(val, NULL) : 0, num, sizeof(num));
        if (!json) {
            printf("%s%s=%s", i ? ", " : "", key, num);
            continue;
        }
        const char *cells[9] = {"quota", NULL, NULL, NULL, "false", "false", "false", key, num};
        for (int k = 0; k < 3; k++) {
            cells[1 + k] = gr_admin_result_str(res, r, name_cols[k]);
            if (gr_admin_result_int(res, r, default_cols[k], 0)) cells[4 + k] = "true";
        }
        cli_table_add(json, cells);
    }
    if (!json) printf("\n");
    free(idx);
}

static bool same_entity(gr_admin_result_t *res, size_t a, size_t b) {
    static const char *const cols[] = {"user", "client_id", "ip", "user_default", "client_id_default", "ip_default"};
    for (int i = 0; i < 6; i++) {
        const char *x = gr_admin_result_str(res, a, cols[i]), *y = gr_admin_result_str(res, b, cols[i]);
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y))) return false;
    }
    return true;
}

/* The quotas of the entities matching e (Kafka's ClientQuotaFilter.containsOnly). */
static gr_err_t describe_quotas(gr_admin_t *a, const cli_entities_t *e, int timeout, gr_admin_result_t **res) {
    const char *filter[3 * CLI_MAX_ENTITY_TYPES];
    for (size_t i = 0; i < e->n_types; i++) {
        filter[3 * i] = wire_type(e->types[i]);
        filter[3 * i + 1] = i >= e->n_names ? "any" : *e->names[i] ? "exact" : "default";
        filter[3 * i + 2] = i < e->n_names && *e->names[i] ? e->names[i] : NULL;
    }
    return gr_admin_describe_client_quotas(a, filter, e->n_types, true, timeout, res);
}

static int describe_scram(gr_admin_t *a, const cli_entities_t *e, int timeout, cli_table_t *json) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_describe_user_scram_credentials(a, e->names, e->n_names, timeout, &res);
    if (!res) return cli_fail("%s", gr_admin_last_error(a));
    (void)err; /* users without credentials are left out, as Kafka's tool leaves them */
    for (size_t r = 0, n = gr_admin_result_rows(res); r < n;) {
        const char *user = gr_admin_result_str(res, r, "user");
        size_t to = r;
        while (to < n && !strcmp(gr_admin_result_str(res, to, "user"), user)) to++;
        if (!gr_admin_result_error(res, r) && !json)
            printf("SCRAM credential configs for user-principal '%s' are ", user);
        for (size_t k = r; k < to && !gr_admin_result_error(res, r); k++) {
            const char *mech = gr_admin_result_str(res, k, "mechanism"),
                       *it = gr_admin_result_str(res, k, "iterations");
            const char *cells[9] = {"scram", user, NULL, NULL, "false", "false", "false", mech, it};
            if (json)
                cli_table_add(json, cells);
            else
                printf("%s%s=iterations=%s%s", k > r ? ", " : "", mech, it, k + 1 == to ? "\n" : "");
        }
        r = to;
    }
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* The entities of res (rows of one entity are together) in the order of the HashMap
 * Kafka's Admin returns them in (sized to the response); printed or added to json. */
static void print_entities(gr_admin_result_t *res, cli_table_t *json) {
    size_t rows = gr_admin_result_rows(res), n = 0;
    size_t *from = malloc((rows + 1) * sizeof(*from)), *idx = malloc((rows + 1) * sizeof(*idx));
    int32_t *h = malloc((rows + 1) * sizeof(*h));
    if (!from || !idx || !h) abort();
    for (size_t r = 0; r < rows; r++)
        if (!r || !same_entity(res, r - 1, r)) h[n] = entity_hash(res, r), from[n++] = r;
    from[n] = rows;
    if (!cli_java_hashmap_order(h, n, n, idx)) abort();
    for (size_t i = 0; i < n; i++) print_entity(res, from[idx[i]], from[idx[i] + 1], json);
    free(from), free(idx), free(h);
}

static const cli_col_t json_cols[] = {
    {"KIND", "kind", 0, CLI_TEXT},
    {"USER", "user", 0, CLI_TEXT},
    {"CLIENT-ID", "client_id", 0, CLI_TEXT},
    {"IP", "ip", 0, CLI_TEXT},
    {"USER-DEFAULT", "user_default", 0, CLI_BOOL},
    {"CLIENT-ID-DEFAULT", "client_id_default", 0, CLI_BOOL},
    {"IP-DEFAULT", "ip_default", 0, CLI_BOOL},
    {"KEY", "key", 0, CLI_TEXT},
    {"VALUE", "value", 0, CLI_NUM},
};

int cli_configs_quota_describe(gr_admin_t *a, const cli_entities_t *e, int timeout, bool json) {
    if (e->n_names > e->n_types) return cli_fail("More entity names specified than entity types");
    gr_admin_result_t *res = NULL;
    if (describe_quotas(a, e, timeout, &res)) return cli_fail("%s", gr_admin_last_error(a));
    cli_table_t t;
    cli_table_init(&t, json_cols, 9);
    print_entities(res, json ? &t : NULL);
    gr_admin_result_destroy(res);
    bool clients = false, dflt = false;
    for (size_t i = 0; i < e->n_types; i++) clients |= !strcmp(e->types[i], "clients");
    for (size_t i = 0; i < e->n_names; i++) dflt |= !*e->names[i];
    int rc = CLI_OK;
    if (strcmp(e->types[0], "ips") && !clients && !dflt) rc = describe_scram(a, e, timeout, json ? &t : NULL);
    if (json && !rc) cli_table_print(&t, true, false);
    cli_table_free(&t);
    return rc;
}

/* ---- alter ---- */

static bool is_scram(const char *k) { return !strcmp(k, "SCRAM-SHA-256") || !strcmp(k, "SCRAM-SHA-512"); }

static bool is_quota(const char *k, bool ips) {
    static const char *const user_client[] = {"producer_byte_rate", "consumer_byte_rate", "request_percentage",
                                              "controller_mutation_rate", NULL};
    if (ips) return !strcmp(k, "connection_creation_rate");
    for (int i = 0; user_client[i]; i++)
        if (!strcmp(k, user_client[i])) return true;
    return false;
}

/* The names of ops (3 per op: "set"/"delete", key, value) of kind del (or set) for which
 * keep(key) is true, sorted and joined with commas into out; their number. */
static size_t names_where(const char *const *ops, size_t n, bool del, bool (*keep)(const char *, bool), bool arg,
                          bool want, char *out, size_t size) {
    const char *pick[CLI_MAX_CONFIG_OPS];
    size_t k = 0, o = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ops[3 * i], "delete") == del && keep(ops[3 * i + 1], arg) == want && k < CLI_MAX_CONFIG_OPS)
            pick[k++] = ops[3 * i + 1];
    qsort(pick, k, sizeof(char *), cmp_str);
    out[0] = 0;
    for (size_t i = 0; i < k; i++) {
        int w = snprintf(out + o, size - o, "%s%s", i ? "," : "", pick[i]);
        if (w > 0 && (size_t)w < size - o) o += (size_t)w;
    }
    return k;
}

static bool scram_key(const char *k, bool unused) { return (void)unused, is_scram(k); }
static bool known_key(const char *k, bool ips) { return is_quota(k, ips) || (!ips && is_scram(k)); }

/* Kafka's per-type checks of the keys (ConfigCommand.alterConfig), in its order. */
static int check_keys(const cli_entities_t *e, const char *const *ops, size_t n, bool *scram) {
    char bad[4096];
    bool ips = !strcmp(e->types[0], "ips"), clients = !strcmp(e->types[0], "clients") || e->n_types == 2;
    *scram = false;
    if (ips) {
        bool a = names_where(ops, n, false, is_quota, true, false, bad, sizeof(bad)) > 0;
        char more[4096];
        bool d = names_where(ops, n, true, is_quota, true, false, more, sizeof(more)) > 0;
        if (a || d)
            return cli_fail("Only connection quota configs can be added for 'ips' using --bootstrap-server. "
                            "Unexpected config names: %s%s%s",
                            bad, a && d ? "," : "", more);
        return CLI_OK;
    }
    const char *what = clients ? "Only quota configs can be %s for 'clients'"
                               : "Only quota and SCRAM credential configs can be %s for 'users'";
    for (int del = 0; del < 2; del++)
        if (names_where(ops, n, del, clients ? is_quota : known_key, false, false, bad, sizeof(bad))) {
            char head[200];
            snprintf(head, sizeof(head), what, del ? "deleted" : "added");
            return cli_fail("%s using --bootstrap-server. Unexpected config names: %s", head, bad);
        }
    size_t n_scram = names_where(ops, n, false, scram_key, false, true, bad, sizeof(bad)) +
                     names_where(ops, n, true, scram_key, false, true, bad, sizeof(bad));
    if (!n_scram) return CLI_OK;
    for (size_t i = 0; i < e->n_names; i++)
        if (!*e->names[i])
            return cli_fail("The use of --entity-default or --user-defaults is not allowed with User SCRAM "
                            "Credentials using --bootstrap-server.");
    if (n_scram < n)
        return cli_fail("Cannot alter both quota and SCRAM credential configs simultaneously for 'users' using "
                        "--bootstrap-server.");
    *scram = true;
    return CLI_OK;
}

/* "[iterations=N,]password=P" (brackets already gone) into x; Kafka's messages. */
static int parse_credential(const char *mech, const char *val, gr_scram_alteration_t *x) {
    x->iterations = 4096;
    const char *pw = val;
    if (!strncmp(val, "iterations=", 11)) {
        const char *comma = strchr(val, ',');
        char num[32];
        size_t l = comma ? (size_t)(comma - val - 11) : 0;
        if (!comma || l >= sizeof(num) || strncmp(comma + 1, "password=", 9))
            return cli_fail("Invalid credential property %s=%s", mech, val);
        memcpy(num, val + 11, l), num[l] = 0;
        char *end;
        long it = strtol(num, &end, 10);
        if (*end || (!*num)) return cli_fail("Invalid credential property %s=%s", mech, val);
        if (it != -1) x->iterations = (int32_t)it;
        pw = comma + 1;
    }
    if (strncmp(pw, "password=", 9)) return cli_fail("Invalid credential property %s=%s", mech, val);
    if (x->iterations < 4096)
        return cli_fail("Iterations %d is less than the minimum 4096 required for %s", (int)x->iterations, mech);
    x->password = pw + 9;
    return CLI_OK;
}

static int alter_scram(gr_admin_t *a, const cli_entities_t *e, const char *const *ops, size_t n, int timeout) {
    gr_scram_alteration_t alts[CLI_MAX_CONFIG_OPS];
    size_t k = 0;
    for (int del = 1; del >= 0; del--) /* deletions first, as Kafka's tool sends them */
        for (size_t i = 0; i < n; i++) {
            if ((strcmp(ops[3 * i], "delete") == 0) != (del == 1)) continue;
            gr_scram_alteration_t *x = &alts[k++];
            x->user = e->names[0], x->mechanism = ops[3 * i + 1], x->iterations = -1, x->password = NULL;
            if (!del && parse_credential(ops[3 * i + 1], ops[3 * i + 2], x)) return CLI_FAIL;
        }
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_alter_user_scram_credentials(a, alts, k, timeout, &res);
    const char *m = err && res ? gr_admin_result_str(res, 0, "error_message") : NULL;
    int rc = err ? cli_fail("%s", m ? m : gr_admin_last_error(a)) : CLI_OK;
    gr_admin_result_destroy(res);
    return rc;
}

static int alter_quotas(gr_admin_t *a, const cli_entities_t *e, const char *const *ops, size_t n, int timeout) {
    gr_admin_result_t *old = NULL;
    if (describe_quotas(a, e, timeout, &old)) return cli_fail("%s", gr_admin_last_error(a));
    /* Only the first entity found counts (Kafka's getClientQuotasConfig). */
    size_t first_to = 0, rows = gr_admin_result_rows(old);
    while (first_to < rows && same_entity(old, 0, first_to)) first_to++;
    char bad[4096];
    size_t o = 0;
    bad[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ops[3 * i], "delete")) continue;
        bool found = false;
        for (size_t r = 0; r < first_to && !found; r++)
            found = !strcmp(gr_admin_result_str(old, r, "key"), ops[3 * i + 1]);
        if (!found) {
            int w = snprintf(bad + o, sizeof(bad) - o, "%s%s", o ? "," : "", ops[3 * i + 1]);
            if (w > 0 && (size_t)w < sizeof(bad) - o) o += (size_t)w;
        }
    }
    gr_admin_result_destroy(old);
    if (o) return cli_fail("Invalid config(s): %s", bad);
    const char *parts[2 * CLI_MAX_ENTITY_TYPES], *qops[2 * CLI_MAX_CONFIG_OPS];
    for (size_t i = 0; i < e->n_types; i++)
        parts[2 * i] = wire_type(e->types[i]), parts[2 * i + 1] = *e->names[i] ? e->names[i] : NULL;
    static char nums[CLI_MAX_CONFIG_OPS][32];
    for (size_t i = 0; i < n && i < CLI_MAX_CONFIG_OPS; i++) {
        qops[2 * i] = ops[3 * i + 1], qops[2 * i + 1] = NULL;
        if (!strcmp(ops[3 * i], "delete")) continue;
        double d;
        if (!cli_java_parse_double(ops[3 * i + 2], &d)) /* as Kafka's tool reads it: Double.parseDouble */
            return cli_fail("Cannot parse quota configuration value for %s: %s", ops[3 * i + 1], ops[3 * i + 2]);
        snprintf(nums[i], sizeof(nums[i]), "%.17g", d);
        qops[2 * i + 1] = nums[i];
    }
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_alter_client_quotas(a, parts, e->n_types, qops, n, 0, timeout, &res);
    gr_admin_result_destroy(res);
    return err ? cli_fail("%s", gr_admin_last_error(a)) : CLI_OK;
}

int cli_configs_quota_alter(gr_admin_t *a, const cli_entities_t *e, const char *const *ops, size_t n, int timeout) {
    if (e->n_names != e->n_types) return cli_fail("An entity name must be specified for every entity type");
    bool scram;
    int rc = check_keys(e, ops, n, &scram);
    if (!rc) rc = scram ? alter_scram(a, e, ops, n, timeout) : alter_quotas(a, e, ops, n, timeout);
    if (rc) return rc;
    const char *t = e->types[0];
    if (*e->names[0])
        printf("Completed updating config for %.*s %s.\n", (int)strlen(t) - 1, t, e->names[0]);
    else
        printf("Completed updating default config for %s in the cluster.\n", t);
    return CLI_OK;
}

bool cli_valid_ip_entity(const char *name) {
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(name, NULL, &hints, &ai);
    if (ai) freeaddrinfo(ai);
    return rc == 0;
}
