/* gregor share-groups: the actions that change a group.
 *   --reset-offsets --group g (--topic t[:p,..]... | --all-topics)
 *       (--to-earliest | --to-latest | --to-datetime YYYY-MM-DDThh:mm:ss.sss) (--dry-run | --execute)
 *     The group must be empty ("Share group 'g' is not empty."). Offsets come from
 *     ListOffsets (through the plain consumer); --to-datetime takes the first offset at
 *     or after the time, or the latest when there is none (as Kafka). Prints
 *     GROUP TOPIC PARTITION NEW-OFFSET; --execute applies with AlterShareGroupOffsets.
 *   --delete-offsets --group g --topic t...: TOPIC STATUS ("Successful" / "Error: msg").
 *   --delete (--group g... | --all-groups): only empty share groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg_plan.h"
#include "gregor/consumer.h"
#include "share_groups.h"

/* "YYYY-MM-DDThh:mm:ss.sss" with an optional zone, UTC without one (Kafka's
 * Utils.getDateTime, shared with consumer-groups: cg_plan.c); -1 if malformed. */
static int64_t parse_datetime(const char *s) {
    int64_t ms;
    char err[160];
    return cg_parse_datetime(s, &ms, err, sizeof(err)) && ms >= 0 ? ms : -1;
}

static const cli_col_t reset_cols[] = {
    {"GROUP", "group", 15, CLI_TEXT},
    {"TOPIC", "topic", 15, CLI_TEXT},
    {"PARTITION", "partition", 10, CLI_INT},
    {"NEW-OFFSET", "new_offset", 0, CLI_INT},
};

/* The offset --to-* gives for one partition. */
static gr_err_t target_offset(const cli_vals_t *v, gr_consumer_t *c, const char *topic, int32_t p, int64_t *off) {
    int64_t spec = cli_has(v, "to-earliest") ? GR_OFFSET_BEGINNING : GR_OFFSET_END;
    if (cli_has(v, "to-datetime")) spec = parse_datetime(cli_str(v, "to-datetime"));
    gr_err_t err = gr_consumer_query_offset(c, topic, p, spec, cli_timeout(v), off);
    if (!err && *off < 0) err = gr_consumer_query_offset(c, topic, p, GR_OFFSET_END, cli_timeout(v), off);
    return err;
}

/* Rows for one --topic argument "t" or "t:0,1". */
static int reset_topic(const cli_vals_t *v, gr_consumer_t *c, const char *group, const char *arg, cli_table_t *t) {
    char topic[512], *parts[1024];
    snprintf(topic, sizeof(topic), "%s", arg);
    char *colon = strchr(topic, ':');
    size_t n = 0;
    if (colon) *colon = 0, n = cli_split(colon + 1, ',', parts, 1024);
    int32_t count = 0;
    if (!colon && gr_consumer_partition_count(c, topic, cli_timeout(v), &count) != GR_ERR_NONE)
        return cli_fail("%s", gr_consumer_last_error(c));
    for (size_t i = 0; i < (colon ? n : (size_t)count); i++) {
        char pb[16], ob[24];
        int32_t p = colon ? (int32_t)strtol(parts[i], NULL, 10) : (int32_t)i;
        int64_t off;
        if (target_offset(v, c, topic, p, &off) != GR_ERR_NONE) return cli_fail("%s", gr_consumer_last_error(c));
        snprintf(pb, sizeof(pb), "%d", p);
        snprintf(ob, sizeof(ob), "%lld", (long long)off);
        const char *cells[4] = {group, topic, pb, ob};
        cli_table_add(t, cells);
    }
    return CLI_OK;
}

/* Apply the rows of t (sorted by topic) with one AlterShareGroupOffsets per topic. */
static int execute_reset(const cli_vals_t *v, gr_admin_t *a, const char *group, const cli_table_t *t) {
    int rc = CLI_OK;
    for (size_t first = 0, end; first < t->rows; first = end) {
        const char *topic = t->cells[first * 4 + 1];
        for (end = first + 1; end < t->rows && !strcmp(topic, t->cells[end * 4 + 1]); end++) {
        }
        size_t n = end - first;
        int32_t *parts = malloc(n * sizeof(*parts));
        int64_t *offs = malloc(n * sizeof(*offs));
        if (!parts || !offs) abort();
        for (size_t i = 0; i < n; i++)
            parts[i] = (int32_t)atoi(t->cells[(first + i) * 4 + 2]), offs[i] = atoll(t->cells[(first + i) * 4 + 3]);
        gr_admin_result_t *res = NULL;
        if (gr_admin_alter_share_group_offsets(a, group, topic, parts, offs, n, cli_timeout(v), &res) != GR_ERR_NONE) {
            const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
            rc = cli_fail("%s", m ? m : gr_admin_last_error(a));
        }
        gr_admin_result_destroy(res);
        free(parts);
        free(offs);
    }
    return rc;
}

/* The topics of --all-topics: those the group has offsets for. */
static int all_topics(const cli_vals_t *v, gr_admin_t *a, gr_consumer_t *c, const char *group, cli_table_t *t) {
    gr_admin_result_t *res = NULL;
    if (gr_admin_describe_share_group_offsets(a, group, NULL, 0, cli_timeout(v), &res) != GR_ERR_NONE && !res)
        return cli_fail("%s", gr_admin_last_error(a));
    int rc = CLI_OK;
    for (size_t r = 0; r < gr_admin_result_rows(res) && rc == CLI_OK; r++) {
        char arg[600];
        snprintf(arg, sizeof(arg), "%s:%s", gr_admin_result_str(res, r, "topic"),
                 gr_admin_result_str(res, r, "partition"));
        rc = reset_topic(v, c, group, arg, t);
    }
    gr_admin_result_destroy(res);
    return rc;
}

static int check_reset_args(const cli_vals_t *v, const char **group) {
    size_t n;
    const char **g = cli_all(v, "group", &n);
    if (n != 1) return cli_usage_error(v, "--reset-offsets needs exactly one --group");
    *group = g[0];
    if (cli_has(v, "to-earliest") + cli_has(v, "to-latest") + cli_has(v, "to-datetime") != 1)
        return cli_usage_error(
            v, "Option [reset-offsets] takes exactly one of: --to-earliest, --to-latest, --to-datetime");
    if (cli_has(v, "to-datetime") && parse_datetime(cli_str(v, "to-datetime")) < 0)
        return cli_usage_error(v, "Error parsing timestamp '%s': the format is YYYY-MM-DDThh:mm:ss.sss",
                               cli_str(v, "to-datetime"));
    if (cli_has(v, "all-topics") == cli_has(v, "topic"))
        return cli_usage_error(v, "One of the reset scopes should be defined: --all-topics, --topic.");
    return 0;
}

int sg_reset_offsets(const cli_vals_t *v, gr_admin_t *a) {
    const char *group = NULL;
    int rc = check_reset_args(v, &group);
    if (rc) return rc;
    bool err;
    char *state = sg_state(v, a, group, &err);
    if (err) return CLI_FAIL;
    if (state && strcmp(state, "Empty") && strcmp(state, "Dead")) {
        free(state);
        return cli_fail("Share group '%s' is not empty.", group);
    }
    free(state);
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, NULL, 0);
    gr_consumer_t *c = NULL;
    char errstr[512];
    if (!conf || gr_consumer_new(conf, &c, errstr, sizeof(errstr)) != GR_ERR_NONE) {
        gr_conf_destroy(conf);
        return conf ? cli_fail("%s", errstr) : CLI_FAIL;
    }
    gr_conf_destroy(conf);
    cli_table_t t;
    cli_table_init(&t, reset_cols, 4);
    size_t n;
    const char **topics = cli_all(v, "topic", &n);
    rc = cli_has(v, "all-topics") ? all_topics(v, a, c, group, &t) : CLI_OK;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) rc = reset_topic(v, c, group, topics[i], &t);
    cli_table_sort(&t, (const size_t[]){1, 2}, 2);
    if (rc == CLI_OK && cli_has(v, "execute")) rc = execute_reset(v, a, group, &t);
    if (rc == CLI_OK) cli_table_print(&t, cli_json(v), true);
    cli_table_free(&t);
    gr_consumer_destroy(c);
    return rc;
}

int sg_delete_offsets(const cli_vals_t *v, gr_admin_t *a) {
    size_t ng, nt;
    const char **g = cli_all(v, "group", &ng), **topics = cli_all(v, "topic", &nt);
    if (ng != 1) return cli_usage_error(v, "--delete-offsets needs exactly one --group");
    if (!nt) return cli_usage_error(v, "--delete-offsets needs --topic");
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_delete_share_group_offsets(a, g[0], topics, nt, cli_timeout(v), &res);
    if (err && !res) return cli_fail("%s", gr_admin_last_error(a));
    static const cli_col_t cols[] = {{"TOPIC", "topic", 15, CLI_TEXT}, {"STATUS", "status", 0, CLI_TEXT}};
    cli_table_t t;
    cli_table_init(&t, cols, 2);
    for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
        char st[600];
        const char *m = gr_admin_result_str(res, r, "error_message");
        if (gr_admin_result_error(res, r))
            snprintf(st, sizeof(st), "Error: %s", m ? m : "unknown error");
        else
            snprintf(st, sizeof(st), "Successful");
        const char *cells[2] = {gr_admin_result_str(res, r, "topic"), st};
        cli_table_add(&t, cells);
    }
    if (err) fprintf(stderr, "\nError: %s\n", gr_admin_last_error(a));
    cli_table_print(&t, cli_json(v), true);
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return err ? CLI_FAIL : CLI_OK;
}

/* Why group cannot be deleted (malloc'd), or NULL if it can. */
static char *cannot_delete(const cli_vals_t *v, gr_admin_t *a, const gr_admin_result_t *shares, const char *group) {
    char *why = NULL;
    bool share = false, err;
    for (size_t r = 0; r < gr_admin_result_rows(shares); r++)
        if (!strcmp(gr_admin_result_str(shares, r, "group"), group)) share = true;
    if (!share) {
        if (asprintf(&why, "Group '%s' is not a share group.", group) < 0) abort();
        return why;
    }
    char *state = sg_state(v, a, group, &err);
    if (state && strcmp(state, "Empty") && strcmp(state, "Dead") &&
        asprintf(&why, "Share group '%s' is not empty.", group) < 0)
        abort();
    free(state);
    return why;
}

int sg_delete(const cli_vals_t *v, gr_admin_t *a) {
    gr_admin_result_t *shares = NULL;
    if (gr_admin_list_groups(a, "share", cli_timeout(v), &shares) != GR_ERR_NONE)
        return cli_fail("%s", gr_admin_last_error(a));
    const char **groups;
    gr_admin_result_t *lres;
    size_t n = sg_groups(v, a, &groups, &lres), ok = 0, failed = 0;
    if (n == (size_t)-1) n = 0, failed = 1;
    if (!n && !failed && !cli_has(v, "all-groups"))
        failed = 1, cli_usage_error(v, "Option [delete] takes one of these options: [all-groups], [group]");
    char okbuf[4096] = "";
    for (size_t i = 0; i < n; i++) {
        char *why = cannot_delete(v, a, shares, groups[i]);
        gr_admin_result_t *res = NULL;
        if (!why && gr_admin_delete_groups(a, &groups[i], 1, cli_timeout(v), &res) != GR_ERR_NONE) {
            const char *m = res ? gr_admin_result_str(res, 0, "error_message") : NULL;
            if (asprintf(&why, "%s", m ? m : gr_admin_last_error(a)) < 0) abort();
        }
        gr_admin_result_destroy(res);
        if (why) {
            fprintf(stderr, "%s* Group '%s' could not be deleted due to: %s\n",
                    failed++ ? "" : "Error: Deletion of some share groups failed:\n", groups[i], why);
            free(why);
        } else {
            size_t l = strlen(okbuf);
            snprintf(okbuf + l, sizeof(okbuf) - l, "%s'%s'", ok++ ? ", " : "", groups[i]);
        }
    }
    if (ok) printf("Deletion of requested share groups (%s) was successful.\n", okbuf);
    free(groups);
    gr_admin_result_destroy(lres);
    gr_admin_result_destroy(shares);
    return failed ? CLI_FAIL : CLI_OK;
}
