/* gregor share-groups: kafka-share-groups.sh (ShareGroupCommand).
 *   --list [--state [s]]
 *   --describe (--group g)... | --all-groups  [--offsets (default) | --members | --state] [--verbose]
 *   --describe ... --capacity [--admin-url URL]: share_capacity.c (gregord's admin endpoint)
 *   --reset-offsets, --delete-offsets, --delete: share_groups_alter.c
 *   --redrive --group g --from-dlq: share_redrive.c (gregor only)
 * Columns, '-' for missing values and the order of rows are the Kafka tool's:
 *   offsets  GROUP TOPIC PARTITION [LEADER-EPOCH] START-OFFSET LAG, by topic and partition;
 *   members  GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS [MEMBER-EPOCH] ASSIGNMENT;
 *   state    GROUP COORDINATOR (ID) STATE [GROUP-EPOCH ASSIGNMENT-EPOCH] #MEMBERS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "share_groups.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The server(s) to connect to."},
    {"command-config", "String: command config property file",
     "Property file containing configs to be passed to the admin client."},
    {"list", NULL, "List all share groups."},
    {"describe", NULL, "Describe share group, members and offset information."},
    {"reset-offsets", NULL,
     "Reset offsets of a share group (one group, which must be empty); needs --dry-run or --execute."},
    {"delete-offsets", NULL, "Delete offsets of a share group (one group, one or more topics)."},
    {"delete", NULL, "Delete share groups (they must be empty)."},
    {"redrive", NULL,
     "Re-produce the dead letters of one share group (--group, --from-dlq) to their source topic and partition, "
     "with provenance headers, at most once per dead letter (gregor only; docs/dlq.md)."},
    {"from-dlq", NULL, "With --redrive: take the records from the group's dead-letter queue topic."},
    {"dlq-topic", "String: topic",
     "With --redrive: the DLQ topic (default: the group's errors.deadletterqueue.topic.name)."},
    {"to-topic", "String: topic", "With --redrive: produce to this topic instead of each record's source topic."},
    {"max-records", "Long: count", "With --redrive: redrive at most this many records in this run."},
    {"skip-missing", NULL,
     "With --redrive: exit 0 even if dead letters could not be redriven because their payload is gone from the "
     "source (or their DLQ headers are malformed); they are still reported."},
    {"group", "String: share group", "The share group we wish to act on (repeatable)."},
    {"all-groups", NULL, "Apply to all share groups."},
    {"offsets", NULL, "With --describe: start offsets and lag per partition (the default)."},
    {"members", NULL, "With --describe: the members of the group."},
    {"state", "[String]",
     "With --describe: the state of the group. With --list: the state of all groups, or only those in the given state "
     "(comma-separated: Empty, Stable, Dead)."},
    {"verbose", NULL, "With --describe: additional information."},
    {"topic", "String: topic",
     "The topic whose offsets are deleted or reset ('topic1:0,1,2' selects partitions when resetting; repeatable)."},
    {"all-topics", NULL, "With --reset-offsets: every topic the group has offsets for."},
    {"to-earliest", NULL, "Reset offsets to the earliest offset."},
    {"to-latest", NULL, "Reset offsets to the latest offset."},
    {"to-datetime", "String: datetime", "Reset offsets to the offset at a time. Format: 'YYYY-MM-DDThh:mm:ss.sss'."},
    {"dry-run", NULL, "Only show the offsets that --reset-offsets would set, or the records --redrive would produce."},
    {"execute", NULL, "Execute --reset-offsets."},
    {"capacity", NULL,
     "With --describe: the Little's-law capacity view (record locks, in flight, W, ack rate, ceiling, headroom, "
     "lag, time to drain, verdict) from gregord's admin endpoint."},
    {"admin-url", "String: URL",
     "With --capacity, or --describe --state of a group with delayed redelivery: gregord's admin endpoint (default: "
     "http://<bootstrap host>:9644)."},
    {"output", "String: text|json", "Output format of --list, --describe and --redrive (default text)."},
    {"timeout", "Long: timeout (ms)", "The timeout of each admin call (default: 30000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

size_t sg_groups(const cli_vals_t *v, gr_admin_t *a, const char ***out, gr_admin_result_t **res) {
    *res = NULL;
    size_t n = 0;
    if (!cli_has(v, "all-groups")) {
        const char **g = cli_all(v, "group", &n);
        *out = malloc((n ? n : 1) * sizeof(**out));
        if (!*out) abort();
        if (n) memcpy(*out, g, n * sizeof(*g));
        return n;
    }
    if (gr_admin_list_groups(a, "share", cli_timeout(v), res) != GR_ERR_NONE) {
        cli_fail("%s", gr_admin_last_error(a));
        *out = NULL;
        return (size_t)-1;
    }
    n = gr_admin_result_rows(*res);
    *out = malloc((n ? n : 1) * sizeof(**out));
    if (!*out) abort();
    for (size_t i = 0; i < n; i++) (*out)[i] = gr_admin_result_str(*res, i, "group");
    /* In group id order, as Kafka's tool prints them. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp((*out)[j - 1], (*out)[j]) > 0; j--) {
            const char *x = (*out)[j];
            (*out)[j] = (*out)[j - 1], (*out)[j - 1] = x;
        }
    return n;
}

/* Describe one share group; on a group error print Kafka's message and return NULL. */
static gr_admin_result_t *describe_group(const cli_vals_t *v, gr_admin_t *a, const char *group) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_describe_share_groups(a, &group, 1, cli_timeout(v), &res);
    if (err) {
        const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        cli_fail("%s", m ? m : gr_admin_last_error(a));
        gr_admin_result_destroy(res);
        return NULL;
    }
    return res;
}

char *sg_state(const cli_vals_t *v, gr_admin_t *a, const char *group, bool *errp) {
    gr_admin_result_t *res = NULL;
    *errp = false;
    gr_err_t err = gr_admin_describe_share_groups(a, &group, 1, cli_timeout(v), &res);
    char *state = NULL;
    if (err == GR_ERR_GROUP_ID_NOT_FOUND) {
        const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        if (m && strstr(m, "not a share group")) *errp = true, cli_fail("%s", m);
    } else if (err) {
        const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
        *errp = true;
        cli_fail("%s", m ? m : gr_admin_last_error(a));
    } else {
        const char *s = gr_admin_result_str(res, 0, "state");
        state = strdup(s ? s : "Unknown");
    }
    gr_admin_result_destroy(res);
    return state;
}

/* Whether state is one of the comma-separated states of want (case-insensitive). */
static bool state_wanted(const char *want, const char *state) {
    char buf[512], *items[32];
    snprintf(buf, sizeof(buf), "%s", want);
    size_t n = cli_split(buf, ',', items, 32);
    for (size_t i = 0; state && i < n; i++)
        if (!strcasecmp(items[i], state)) return true;
    return false;
}

static int list(const cli_vals_t *v, gr_admin_t *a) {
    gr_admin_result_t *res = NULL;
    if (gr_admin_list_groups(a, "share", cli_timeout(v), &res) != GR_ERR_NONE)
        return cli_fail("%s", gr_admin_last_error(a));
    static const cli_col_t cols[] = {{"GROUP", "group", 15, CLI_TEXT}, {"STATE", "state", 0, CLI_TEXT}};
    bool with_state = cli_has(v, "state");
    const char *want = cli_str(v, "state");
    cli_table_t t;
    cli_table_init(&t, cols, 2);
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        const char *cells[2] = {gr_admin_result_str(res, r, "group"), gr_admin_result_str(res, r, "state")};
        if (want && !state_wanted(want, cells[1])) continue;
        cli_table_add(&t, cells);
    }
    cli_table_sort(&t, (const size_t[]){0}, 1);
    if (cli_json(v) || with_state) {
        t.n_cols = with_state || cli_json(v) ? 2 : 1;
        cli_table_print(&t, cli_json(v), false);
    } else {
        for (size_t r = 0; r < t.rows; r++) puts(t.cells[r * 2]);
    }
    t.n_cols = 2;
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* ---- --describe --offsets ---- */

static const cli_col_t off_cols[] = {
    {"GROUP", "group", 15, CLI_TEXT},
    {"TOPIC", "topic", 15, CLI_TEXT},
    {"PARTITION", "partition", 10, CLI_INT},
    {"LEADER-EPOCH", "leader_epoch", 13, CLI_INT},
    {"START-OFFSET", "start_offset", 13, CLI_INT},
    {"LAG", "lag", 0, CLI_INT},
};

static int describe_offsets(const cli_vals_t *v, gr_admin_t *a, const char *group, cli_table_t *t) {
    gr_admin_result_t *res = NULL;
    if (gr_admin_describe_share_group_offsets(a, group, NULL, 0, cli_timeout(v), &res) != GR_ERR_NONE && !res)
        return cli_fail("%s", gr_admin_last_error(a));
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        char ep[24], so[24], lag[24];
        int64_t start = gr_admin_result_int(res, r, "start_offset", -1);
        const char *cells[6] = {
            group,
            gr_admin_result_str(res, r, "topic"),
            gr_admin_result_str(res, r, "partition"),
            start < 0 ? NULL : cli_i64(ep, sizeof(ep), gr_admin_result_int(res, r, "leader_epoch", -1), true),
            cli_i64(so, sizeof(so), start, true),
            cli_i64(lag, sizeof(lag), gr_admin_result_int(res, r, "lag", -1), true)};
        cli_table_add(t, cells);
    }
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* ---- --describe --members ---- */

static const cli_col_t mem_cols[] = {
    {"GROUP", "group", 15, CLI_TEXT},
    {"CONSUMER-ID", "consumer_id", 15, CLI_TEXT},
    {"HOST", "host", 15, CLI_TEXT},
    {"CLIENT-ID", "client_id", 15, CLI_TEXT},
    {"#PARTITIONS", "partitions", 12, CLI_INT},
    {"MEMBER-EPOCH", "member_epoch", 13, CLI_INT},
    {"ASSIGNMENT", "assignment", 0, CLI_TEXT},
};

/* "t1:0,1;t2:0" from rows [first, end) of one member (rows sorted by topic, partition). */
static size_t assignment(const gr_admin_result_t *res, size_t first, size_t end, char *buf, size_t size) {
    size_t len = 0, n = 0;
    const char *prev = NULL;
    buf[0] = 0;
    for (size_t r = first; r < end && len + 1 < size; r++) {
        const char *topic = gr_admin_result_str(res, r, "topic");
        if (!topic) continue;
        bool same = prev && !strcmp(prev, topic);
        len += (size_t)snprintf(buf + len, size - len, "%s%s%s%s",
                                same   ? ","
                                : prev ? ";"
                                       : "",
                                same ? "" : topic, same ? "" : ":", gr_admin_result_str(res, r, "partition"));
        prev = topic;
        n++;
    }
    if (len >= size) len = size - 1;
    return n;
}

static int describe_members(const cli_vals_t *v, gr_admin_t *a, const char *group, cli_table_t *t) {
    gr_admin_result_t *res = describe_group(v, a, group);
    if (!res) return CLI_FAIL;
    size_t rows = gr_admin_result_rows(res);
    for (size_t first = 0, end; first < rows; first = end) {
        const char *mid = gr_admin_result_str(res, first, "member_id");
        for (end = first + 1; end < rows && mid && gr_admin_result_str(res, end, "member_id") &&
                              !strcmp(mid, gr_admin_result_str(res, end, "member_id"));
             end++) {
        }
        if (!mid) continue;
        char asg[4096], np[16];
        size_t n = assignment(res, first, end, asg, sizeof(asg));
        snprintf(np, sizeof(np), "%zu", n);
        const char *cells[7] = {group,
                                mid,
                                gr_admin_result_str(res, first, "client_host"),
                                gr_admin_result_str(res, first, "client_id"),
                                np,
                                gr_admin_result_str(res, first, "member_epoch"),
                                n ? asg : ""};
        cli_table_add(t, cells);
    }
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* ---- --describe --state ---- */

static const cli_col_t state_cols[] = {
    {"GROUP", "group", 15, CLI_TEXT},
    {"COORDINATOR (ID)", "coordinator", 25, CLI_TEXT},
    {"STATE", "state", 15, CLI_TEXT},
    {"GROUP-EPOCH", "group_epoch", 12, CLI_INT},
    {"ASSIGNMENT-EPOCH", "assignment_epoch", 17, CLI_INT},
    {"#MEMBERS", "members", 0, CLI_INT},
    {"COORDINATOR-ID", "coordinator_id", 0, CLI_INT}, /* JSON only */
};

static int describe_state(const cli_vals_t *v, gr_admin_t *a, const char *group, cli_table_t *t) {
    gr_admin_result_t *res = describe_group(v, a, group);
    if (!res) return CLI_FAIL;
    size_t members = 0, rows = gr_admin_result_rows(res);
    for (size_t r = 0; r < rows; r++) {
        const char *m = gr_admin_result_str(res, r, "member_id");
        if (m && (r == 0 || !gr_admin_result_str(res, r - 1, "member_id") ||
                  strcmp(m, gr_admin_result_str(res, r - 1, "member_id"))))
            members++;
    }
    char nm[16], coord[300];
    snprintf(nm, sizeof(nm), "%zu", members);
    /* Kafka's tool prints the coordinator as "host:port  (id)"; JSON has "host:port"
     * and the id apart. */
    const char *cname = gr_admin_result_str(res, 0, "coordinator");
    const char *cid = gr_admin_result_str(res, 0, "coordinator_id");
    if (cname) snprintf(coord, sizeof(coord), "%s  (%s)", cname, cid);
    const char *cells[7] = {group,
                            cname && !cli_json(v) ? coord : cname,
                            gr_admin_result_str(res, 0, "state"),
                            gr_admin_result_str(res, 0, "group_epoch"),
                            gr_admin_result_str(res, 0, "assignment_epoch"),
                            nm,
                            cname ? cid : NULL};
    cli_table_add(t, cells);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* The columns of t shown: flags[c] 0 always, 1 with --verbose, 2 in JSON only.
 * With acc (JSON) the rows are added to acc, printed once for all groups; else t is
 * printed as text. */
static void print_cols(const cli_vals_t *v, cli_table_t *t, const int *flags, cli_table_t *acc) {
    bool verbose = cli_has(v, "verbose"), json = acc != NULL;
    cli_col_t cols[8];
    size_t keep[8], n = 0;
    for (size_t c = 0; c < t->n_cols; c++)
        if (flags[c] == 0 || (flags[c] == 1 && verbose) || (flags[c] == 2 && json)) cols[n] = t->cols[c], keep[n++] = c;
    cli_table_t out;
    cli_table_init(&out, cols, n);
    for (size_t r = 0; r < t->rows; r++) {
        const char *cells[8];
        for (size_t k = 0; k < n; k++) cells[k] = t->cells[r * t->n_cols + keep[k]];
        cli_table_add(acc ? acc : &out, cells);
    }
    if (!acc) cli_table_print(&out, false, true);
    cli_table_free(&out);
}

/* The JSON columns of a view (the flags of print_cols). */
static size_t json_cols(const cli_vals_t *v, const cli_col_t *cols, size_t n, const int *flags, cli_col_t *out) {
    size_t k = 0;
    for (size_t c = 0; c < n; c++)
        if (flags[c] != 1 || cli_has(v, "verbose")) out[k++] = cols[c];
    return k;
}

static int describe(const cli_vals_t *v, gr_admin_t *a) {
    static const char *const kinds[] = {"offsets", "members", "state", NULL};
    int kind = cli_one_of(v, kinds, false); /* at most one: check_args */
    if (kind < 0) kind = 0;
    gr_admin_result_t *lres;
    const char **groups;
    size_t n = sg_groups(v, a, &groups, &lres);
    if (n == (size_t)-1) return CLI_FAIL;
    if (!n && !cli_has(v, "all-groups")) {
        free(groups);
        return cli_usage_error(v, "Option [describe] takes one of these options: [all-groups], [group]");
    }
    static const int off_v[] = {0, 0, 0, 1, 0, 0}, mem_v[] = {0, 0, 0, 0, 0, 1, 0}, st_v[] = {0, 0, 0, 1, 1, 0, 2};
    const cli_col_t *cols[] = {off_cols, mem_cols, state_cols};
    const size_t ncols[] = {6, 7, 7};
    const int *vo[] = {off_v, mem_v, st_v};
    int rc = CLI_OK;
    bool json = cli_json(v);
    cli_col_t jcols[8];
    cli_table_t acc; /* JSON: one array for every group */
    cli_table_init(&acc, jcols, json_cols(v, cols[kind], ncols[kind], vo[kind], jcols));
    for (size_t i = 0; i < n; i++) {
        cli_table_t t;
        cli_table_init(&t, cols[kind], ncols[kind]);
        int r;
        if (kind == 0) {
            /* Like Kafka's tool, a group that cannot be described gets no offsets. */
            gr_admin_result_t *g = describe_group(v, a, groups[i]);
            r = g ? describe_offsets(v, a, groups[i], &t) : CLI_FAIL;
            gr_admin_result_destroy(g);
        } else {
            r = kind == 1 ? describe_members(v, a, groups[i], &t) : describe_state(v, a, groups[i], &t);
        }
        if (kind == 0) cli_table_sort(&t, (const size_t[]){1, 2}, 2);
        bool no_members = r == CLI_OK && kind == 1 && t.rows == 0;
        if (r == CLI_OK && !no_members) print_cols(v, &t, vo[kind], json ? &acc : NULL);
        if (r == CLI_OK && kind == 2)
            sg_delayed(v, a, groups[i]); /* gregord's delayed redelivery, if on */
        else if (r != CLI_OK)
            rc = r;
        if (no_members || (r == CLI_OK && kind == 2 && t.rows && !strcmp(t.cells[5], "0")))
            fprintf(stderr, "\nShare group '%s' has no active members.\n", groups[i]);
        cli_table_free(&t);
    }
    if (json) cli_table_print(&acc, true, false);
    cli_table_free(&acc);
    free(groups);
    gr_admin_result_destroy(lres);
    return rc;
}

/* The share group states --list --state accepts (case-insensitive, comma-separated). */
static int check_states(const cli_vals_t *v) {
    const char *want = cli_str(v, "state");
    char buf[512], *items[32];
    snprintf(buf, sizeof(buf), "%s", want ? want : "");
    size_t n = cli_split(buf, ',', items, 32);
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(items[i], "Stable") && strcasecmp(items[i], "Empty") && strcasecmp(items[i], "Dead"))
            return cli_usage_error(v, "Invalid state list '%s'. Valid states are: Dead, Stable, Empty", want);
    return 0;
}

/* Which options go with which action (as kafka-share-groups checks them). */
static int check_args(const cli_vals_t *v, int act) {
    static const char *const describe_only[] = {"members", "offsets", "verbose", "capacity", NULL};
    for (int i = 0; describe_only[i]; i++)
        if (act != 1 && cli_has(v, describe_only[i]))
            return cli_usage_error(v, "Option [%s] may be used with --describe only", describe_only[i]);
    if (act != 0 && act != 1 && cli_has(v, "state"))
        return cli_usage_error(v, "Option [state] may be used with --describe or --list only");
    if (cli_has(v, "group") && cli_has(v, "all-groups"))
        return cli_usage_error(v, "Option [group] can't be used with option [all-groups]");
    if ((act <= 1 || act >= 4) && cli_has(v, "topic"))
        return cli_usage_error(v, "Option [topic] can't be used with option [%s]",
                               act == 0   ? "list"
                               : act == 1 ? "describe"
                               : act == 4 ? "delete"
                                          : "redrive");
    if (act == 1) {
        int kinds = cli_has(v, "members") + cli_has(v, "offsets") + cli_has(v, "state");
        if (kinds > 1)
            return cli_usage_error(
                v, "Option [describe] takes at most one of these options: [members], [offsets], [state]");
        if (cli_str(v, "state")) return cli_usage_error(v, "Option [describe] does not take a value for [state]");
        static const char *const views[] = {"members", "offsets", "state", "verbose", NULL};
        for (int i = 0; cli_has(v, "capacity") && views[i]; i++)
            if (cli_has(v, views[i]))
                return cli_usage_error(v, "Option [capacity] can't be used with option [%s]", views[i]);
    }
    if (cli_has(v, "admin-url") && !cli_has(v, "capacity") && !(act == 1 && cli_has(v, "state")))
        return cli_usage_error(v, "Option [admin-url] may be used with --capacity or --describe --state only");
    if (act == 0 && cli_str(v, "state")) return check_states(v);
    if (act == 4 && !cli_has(v, "group") && !cli_has(v, "all-groups"))
        return cli_usage_error(v, "Option [delete] takes the options [group] or [all-groups]");
    static const char *const reset_only[] = {"to-earliest", "to-latest", "to-datetime", "execute", "all-topics", NULL};
    for (int i = 0; reset_only[i]; i++)
        if (act != 2 && cli_has(v, reset_only[i]))
            return cli_usage_error(v, "Option [%s] may be used with --reset-offsets only", reset_only[i]);
    if (act != 2 && act != 5 && cli_has(v, "dry-run"))
        return cli_usage_error(v, "Option [dry-run] may be used with --reset-offsets or --redrive only");
    static const char *const redrive_only[] = {"from-dlq",    "dlq-topic",    "to-topic",
                                               "max-records", "skip-missing", NULL};
    for (int i = 0; redrive_only[i]; i++)
        if (act != 5 && cli_has(v, redrive_only[i]))
            return cli_usage_error(v, "Option [%s] may be used with --redrive only", redrive_only[i]);
    if (act == 5 && cli_has(v, "all-groups")) return cli_usage_error(v, "Option [redrive] takes one [group]");
    return 0;
}

static int run(const cli_vals_t *v) {
    static const char *const actions[] = {"list",    "describe", "reset-offsets", "delete-offsets", "delete",
                                          "redrive", NULL};
    int act = cli_one_of(v, actions, true);
    if (act < 0) return CLI_USAGE;
    (void)cli_json(v);
    if (check_args(v, act)) return CLI_USAGE;
    if (act == 2 && cli_has(v, "dry-run") && cli_has(v, "execute"))
        return cli_usage_error(v, "Option [reset-offsets] only accepts one of [execute] and [dry-run]");
    if (act == 2 && !cli_has(v, "dry-run") && !cli_has(v, "execute"))
        return cli_usage_error(v, "Option [reset-offsets] takes the option: [execute] or [dry-run]");
    if (act == 1 && cli_has(v, "capacity")) return sg_capacity(v); /* HTTP, no Kafka client needed */
    gr_admin_t *a = cli_admin(v);
    if (!a) return CLI_FAIL;
    int rc;
    switch (act) {
    case 0: rc = list(v, a); break;
    case 1: rc = describe(v, a); break;
    case 2: rc = sg_reset_offsets(v, a); break;
    case 3: rc = sg_delete_offsets(v, a); break;
    case 4: rc = sg_delete(v, a); break;
    default: rc = sg_redrive(v, a); break;
    }
    gr_admin_destroy(a);
    return rc;
}

int cli_share_groups(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor share-groups", "List, describe, reset, delete and redrive share groups.", opts, argc,
                       argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
