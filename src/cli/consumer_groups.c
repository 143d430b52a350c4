/* gregor consumer-groups: kafka-consumer-groups.sh (ConsumerGroupCommand, kafka-tools 4.4.0).
 *   --list [--state [s,..]] [--type [t,..]]
 *   --describe (--group g)... | --all-groups  [--offsets (default) | --members | --state] [--verbose]
 *   --reset-offsets: cg_reset.c; --delete, --delete-offsets: cg_delete.c
 * Text output is the Kafka tool's, byte for byte where it is deterministic (columns,
 * padding, '-' for missing values, messages); --output json gives the same rows as
 * JSON arrays (docs/cli.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cg_plan.h"
#include "consumer_groups.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The server(s) to connect to."},
    {"command-config", "String: command config property file",
     "Property file containing configs to be passed to Admin Client and Consumer."},
    {"list", NULL, "List all consumer groups."},
    {"describe", NULL,
     "Describe consumer group and list offset lag (number of messages not yet processed) related to given group."},
    {"delete", NULL, "Delete topic partition offsets and ownership information for one or more consumer groups."},
    {"reset-offsets", NULL,
     "Reset offsets of consumer group. Supports one consumer group at the time, and instances should be inactive. "
     "Has 2 execution options: --dry-run (the default) to plan which offsets to reset, and --execute to update the "
     "offsets. You must choose one of the reset specifications: --to-datetime, --by-duration, --to-earliest, "
     "--to-latest, --shift-by, --from-file, --to-current, --to-offset. To define the scope use --all-topics or "
     "--topic."},
    {"delete-offsets", NULL,
     "Delete offsets of consumer group. Supports one consumer group at a time, and multiple topics."},
    {"group", "String: consumer group", "The consumer group id (repeatable)."},
    {"all-groups", NULL, "Apply to all consumer groups."},
    {"topic", "String: topic",
     "The topic whose offset information should be deleted or reset. In `reset-offsets` case, partitions can be "
     "specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to be included (repeatable)."},
    {"all-topics", NULL, "Apply to all topics."},
    {"offsets", NULL,
     "Describe the group and list all topic partitions in the group along with their offset "
     "information. This is the default sub-action of --describe."},
    {"members", NULL, "Describe members of the group. This option may be used with '--describe' only."},
    {"state", "[String]",
     "When specified with '--describe', includes the state of the group. When specified with '--list', it displays "
     "the state of all groups. It can also be used to list groups with specific states (comma-separated)."},
    {"type", "[String]",
     "When specified with '--list', it displays the types of all the groups. It can also be used to list groups "
     "with specific types (classic, consumer)."},
    {"verbose", NULL, "Provide additional information, if any, when describing the group."},
    {"dry-run", NULL, "Only show results without executing changes on consumer groups (the default)."},
    {"execute", NULL, "Execute operation. Supported operations: reset-offsets."},
    {"export", NULL, "Export operation execution to a CSV file. Supported operations: reset-offsets."},
    {"to-offset", "Long: offset", "Reset offsets to a specific offset."},
    {"to-earliest", NULL, "Reset offsets to earliest offset."},
    {"to-latest", NULL, "Reset offsets to latest offset."},
    {"to-current", NULL, "Reset offsets to current offset."},
    {"to-datetime", "String: datetime", "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDThh:mm:ss.sss'"},
    {"by-duration", "String: duration",
     "Reset offsets to offset by duration from current timestamp. Format: "
     "'PnDTnHnMnS'"},
    {"shift-by", "Long: number-of-offsets",
     "Reset offsets shifting current offset by 'n', where 'n' can be positive or negative."},
    {"from-file", "String: path to CSV file", "Reset offsets to values defined in CSV file."},
    {"output", "String: text|json", "Output format of --list, --describe and --reset-offsets (default text)."},
    {"timeout", "Long: timeout (ms)", "The timeout of each admin call (default: 5000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

int cg_timeout(const cli_vals_t *v) { return (int)cli_int(v, "timeout", 5000); }

void cg_print_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("\nError: ", stdout);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static const struct {
    int code;
    const char *name, *msg;
} exceptions[] = {
    {3, "UnknownTopicOrPartitionException", "This server does not host this topic-partition."},
    {15, "CoordinatorNotAvailableException", "The coordinator is not available."},
    {16, "NotCoordinatorException", "This is not the correct coordinator."},
    {24, "InvalidGroupIdException", "The configured groupId is invalid."},
    {25, "UnknownMemberIdException", "The coordinator is not aware of this member."},
    {29, "TopicAuthorizationException", "Topic authorization failed."},
    {30, "GroupAuthorizationException", "Group authorization failed."},
    {68, "GroupNotEmptyException", "The group is not empty."},
    {69, "GroupIdNotFoundException", "The group id does not exist."},
    {86, "GroupSubscribedToTopicException",
     "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it."},
};

const char *cg_exception_name(int code) {
    for (size_t i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
        if (exceptions[i].code == code) return exceptions[i].name;
    return "KafkaException";
}

const char *cg_exception_message(int code) {
    for (size_t i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
        if (exceptions[i].code == code) return exceptions[i].msg;
    return gr_err_str((gr_err_t)code);
}

void cg_java_sort(const char **v, size_t n) {
    int32_t *h = calloc(n + 1, sizeof(int32_t));
    size_t *idx = malloc((n + 1) * sizeof(size_t));
    const char **copy = malloc((n + 1) * sizeof(char *));
    if (!h || !idx || !copy) abort();
    for (size_t i = 0; i < n; i++) h[i] = cg_java_string_hash(v[i]), copy[i] = v[i];
    cg_java_hash_order(h, n, idx);
    for (size_t i = 0; i < n; i++) v[i] = copy[idx[i]];
    free(h), free(idx), free(copy);
}

size_t cg_groups(const cli_vals_t *v, gr_admin_t *a, const char ***out, gr_admin_result_t **res) {
    *res = NULL;
    size_t n = 0;
    if (!cli_has(v, "all-groups")) {
        const char **g = cli_all(v, "group", &n);
        *out = malloc((n ? n : 1) * sizeof(**out));
        if (!*out) abort();
        if (n) memcpy(*out, g, n * sizeof(*g));
        return n;
    }
    if (gr_admin_list_consumer_groups(a, NULL, NULL, cg_timeout(v), res) != GR_ERR_NONE) {
        cli_fail("%s", gr_admin_last_error(a));
        *out = NULL;
        return (size_t)-1;
    }
    n = gr_admin_result_rows(*res);
    *out = malloc((n ? n : 1) * sizeof(**out));
    if (!*out) abort();
    for (size_t i = 0; i < n; i++) (*out)[i] = gr_admin_result_str(*res, i, "group");
    cg_java_sort(*out, n); /* the order of Kafka's Admin.listGroups */
    return n;
}

/* ---- --list ---- */

/* Kafka's names of a group type and state, as its tool prints them. */
static const char *type_name(const char *t) {
    if (!t) return "Unknown";
    if (!strcasecmp(t, "classic")) return "Classic";
    if (!strcasecmp(t, "consumer")) return "Consumer";
    return "Unknown";
}

static int check_list_values(const cli_vals_t *v) {
    static const char *const states[] = {"PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
                                         "Assigning",          "Reconciling",         NULL};
    char buf[512], *items[32];
    const char *s = cli_str(v, "state");
    snprintf(buf, sizeof(buf), "%s", s ? s : "");
    size_t n = cli_split(buf, ',', items, 32);
    for (size_t i = 0; i < n; i++) {
        bool ok = false;
        for (int k = 0; states[k]; k++) ok = ok || !strcasecmp(items[i], states[k]);
        if (!ok)
            return cli_usage_error(v,
                                   "Invalid state list '%s'. Valid states are: Assigning, CompletingRebalance, "
                                   "Dead, Empty, PreparingRebalance, Reconciling, Stable",
                                   s);
    }
    const char *t = cli_str(v, "type");
    snprintf(buf, sizeof(buf), "%s", t ? t : "");
    n = cli_split(buf, ',', items, 32);
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(items[i], "classic") && strcasecmp(items[i], "consumer"))
            return cli_usage_error(v, "Invalid types list '%s'. Valid types are: Classic, Consumer", t);
    return 0;
}

static void print_rows(const cli_vals_t *v, const gr_admin_result_t *res, const size_t *ord, size_t rows,
                       bool with_type, bool with_state) {
    int w = 15;
    for (size_t r = 0; r < rows; r++) {
        int l = (int)strlen(gr_admin_result_str(res, ord[r], "group"));
        if (l > w) w = l;
    }
    w += 10;
    if (cli_json(v)) {
        static const cli_col_t cols[] = {
            {"GROUP", "group", 0, CLI_TEXT}, {"TYPE", "type", 0, CLI_TEXT}, {"STATE", "state", 0, CLI_TEXT}};
        cli_table_t t;
        cli_table_init(&t, cols, 3);
        for (size_t r = 0; r < rows; r++) {
            const char *c[3] = {gr_admin_result_str(res, ord[r], "group"),
                                type_name(gr_admin_result_str(res, ord[r], "type")),
                                gr_admin_result_str(res, ord[r], "state")};
            cli_table_add(&t, c);
        }
        cli_table_print(&t, true, false);
        cli_table_free(&t);
        return;
    }
    if (!with_type && !with_state) {
        for (size_t r = 0; r < rows; r++) puts(gr_admin_result_str(res, ord[r], "group"));
        return;
    }
    for (size_t r = 0; r <= rows; r++) {
        const char *st = r ? gr_admin_result_str(res, ord[r - 1], "state") : "STATE";
        printf("%-*s", w, r ? gr_admin_result_str(res, ord[r - 1], "group") : "GROUP");
        if (with_type) printf(" %-20s", r ? type_name(gr_admin_result_str(res, ord[r - 1], "type")) : "TYPE");
        if (with_state) printf(" %-20s", st ? st : "Unknown");
        putchar('\n');
    }
}

static void print_list(const cli_vals_t *v, const gr_admin_result_t *res, bool with_type, bool with_state) {
    size_t rows = gr_admin_result_rows(res);
    /* Kafka's Admin collects the listing in a HashMap by group id: print in its order */
    const char **ids = malloc((rows + 1) * sizeof(char *));
    size_t *ord = malloc((rows + 1) * sizeof(size_t));
    if (!ids || !ord) abort();
    for (size_t r = 0; r < rows; r++) ids[r] = gr_admin_result_str(res, r, "group");
    cg_java_sort(ids, rows);
    for (size_t k = 0; k < rows; k++)
        for (size_t r = 0; r < rows; r++)
            if (gr_admin_result_str(res, r, "group") == ids[k]) ord[k] = r;
    print_rows(v, res, ord, rows, with_type, with_state);
    free(ids);
    free(ord);
}

static int list(const cli_vals_t *v, gr_admin_t *a) {
    const char *types = cli_str(v, "type"), *states = cli_str(v, "state");
    char tbuf[256];
    if (types) { /* Kafka sends the types lower-case */
        snprintf(tbuf, sizeof(tbuf), "%s", types);
        for (char *p = tbuf; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        types = tbuf;
    }
    gr_admin_result_t *res = NULL;
    if (gr_admin_list_consumer_groups(a, (cli_has(v, "type") || cli_has(v, "state")) && !types ? "" : types, states,
                                      cg_timeout(v), &res) != GR_ERR_NONE)
        return cli_fail("%s", gr_admin_last_error(a));
    print_list(v, res, cli_has(v, "type"), cli_has(v, "state"));
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* ---- checks and dispatch ---- */

static int check_args(const cli_vals_t *v, int act) {
    static const char *const names[] = {"list", "describe", "delete", "reset-offsets", "delete-offsets"};
    bool groups = cli_has(v, "group") || cli_has(v, "all-groups");
    if ((act == 1 || act == 2 || act == 3) && !groups)
        return cli_usage_error(v, "Option [%s] takes one of these options: [all-groups], [group]", names[act]);
    if (act == 1 && cli_has(v, "members") + cli_has(v, "offsets") + cli_has(v, "state") > 1)
        return cli_usage_error(v,
                               "Option [describe] takes at most one of these options: [members], [offsets], [state]");
    if (act == 1 && cli_str(v, "state"))
        return cli_usage_error(v, "Option [describe] does not take a value for [state]");
    if (act == 2 && cli_has(v, "topic"))
        return cli_usage_error(v,
                               "The consumer does not support topic-specific offset deletion from a consumer group.");
    if (act == 4 && (cli_all(v, "group", &(size_t){0}) == NULL || !cli_has(v, "topic")))
        return cli_usage_error(v, "Option [delete-offsets] takes the following options: [group], [topic]");
    if (act == 3 && cli_has(v, "dry-run") && cli_has(v, "execute"))
        return cli_usage_error(v, "Option [reset-offsets] only accepts one of [execute] and [dry-run]");
    if (cli_has(v, "group") && cli_has(v, "all-groups"))
        return cli_usage_error(v, "Option [group] can't be used with option [all-groups]");
    static const char *const reset_only[] = {"to-offset",   "to-earliest", "to-latest", "to-current", "to-datetime",
                                             "by-duration", "shift-by",    "from-file", "dry-run",    "execute",
                                             "export",      "all-topics",  NULL};
    for (int i = 0; reset_only[i]; i++)
        if (act != 3 && cli_has(v, reset_only[i]))
            return cli_usage_error(v, "Option [%s] may be used with --reset-offsets only", reset_only[i]);
    static const char *const describe_only[] = {"members", "offsets", "verbose", NULL};
    for (int i = 0; describe_only[i]; i++)
        if (act != 1 && cli_has(v, describe_only[i]))
            return cli_usage_error(v, "Option [%s] may be used with --describe only", describe_only[i]);
    if (act != 0 && cli_has(v, "type")) return cli_usage_error(v, "Option [type] may be used with --list only");
    if (act != 0 && act != 1 && cli_has(v, "state"))
        return cli_usage_error(v, "Option [state] may be used with --describe or --list only");
    return act == 0 ? check_list_values(v) : 0;
}

static int run(const cli_vals_t *v) {
    static const char *const actions[] = {"list", "describe", "delete", "reset-offsets", "delete-offsets", NULL};
    int act = cli_one_of(v, actions, true);
    if (act < 0) return CLI_USAGE;
    (void)cli_json(v);
    if (check_args(v, act)) return CLI_USAGE;
    gr_admin_t *a = cli_admin(v);
    if (!a) return CLI_FAIL;
    int rc;
    switch (act) {
    case 0: rc = list(v, a); break;
    case 1: rc = cg_describe(v, a); break;
    case 2: rc = cg_delete(v, a); break;
    case 3: rc = cg_reset_offsets(v, a); break;
    default: rc = cg_delete_offsets(v, a); break;
    }
    gr_admin_destroy(a);
    return rc;
}

int cli_consumer_groups(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor consumer-groups",
                       "List, describe, reset the offsets of and delete consumer groups (kafka-consumer-groups.sh).",
                       opts, argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
