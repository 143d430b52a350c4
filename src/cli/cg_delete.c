/* gregor consumer-groups --delete and --delete-offsets, as kafka-consumer-groups 4.4.0:
 *   --delete (--group g... | --all-groups): "Deletion of requested consumer groups ('g')
 *     was successful." or "Error: Deletion of some consumer groups failed:" with one
 *     "* Group 'g' could not be deleted due to: <exception>" line per failure;
 *   --delete-offsets --group g --topic t[:p,..]...: "Request succeeded for deleting
 *     offsets from group g." or the group-level error, then TOPIC PARTITION STATUS rows
 *     sorted by topic and partition as text ("t10" before "t2", as Kafka sorts them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_plan.h"
#include "consumer_groups.h"
#include "gregor/consumer.h"

int cg_delete(const cli_vals_t *v, gr_admin_t *a) {
    const char **groups;
    gr_admin_result_t *lres;
    size_t n = cg_groups(v, a, &groups, &lres), ok = 0, failed = 0;
    if (n == (size_t)-1) return CLI_FAIL;
    char okbuf[8192] = "", failbuf[16384] = "";
    cg_java_sort(groups, n); /* Kafka's tool reports from HashMaps keyed by group id */
    for (size_t i = 0; i < n; i++) {
        gr_admin_result_t *res = NULL;
        gr_err_t err = gr_admin_delete_groups(a, &groups[i], 1, cg_timeout(v), &res);
        if (err && !res) {
            free(groups);
            gr_admin_result_destroy(lres);
            return cli_fail("%s", gr_admin_last_error(a));
        }
        size_t l = strlen(okbuf), fl = strlen(failbuf);
        if (!err) {
            snprintf(okbuf + l, sizeof(okbuf) - l, "%s'%s'", ok++ ? ", " : "", groups[i]);
        } else {
            int code = (int)gr_admin_result_error(res, 0);
            snprintf(failbuf + fl, sizeof(failbuf) - fl,
                     "* Group '%s' could not be deleted due to: "
                     "org.apache.kafka.common.errors.%s: %s\n",
                     groups[i], cg_exception_name(code),
                     cg_exception_message(code)); /* DeleteGroups answers carry no message */
            failed++;
        }
        gr_admin_result_destroy(res);
    }
    if (!failed) {
        printf("Deletion of requested consumer groups (%s) was successful.\n", okbuf);
    } else {
        cg_print_error("Deletion of some consumer groups failed:");
        fputs(failbuf, stdout);
        if (ok) printf("\nThese consumer groups were deleted successfully: %s\n", okbuf);
    }
    free(groups);
    gr_admin_result_destroy(lres);
    return failed ? CLI_FAIL : CLI_OK;
}

/* The partitions named by --topic: whole topics from metadata; a whole topic that does not
 * exist is a row of its own (partition -1), as Kafka's tool reports it. */
typedef struct dscope {
    const char **topics;
    int32_t *parts;
    size_t n, cap;
    char **owned;
    const char **unknown; /* whole topics that do not exist */
    size_t n_unknown;
} dscope_t;

static void scope_add(dscope_t *s, const char *topic, int32_t p) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->topics = realloc(s->topics, s->cap * sizeof(char *));
        s->parts = realloc(s->parts, s->cap * sizeof(int32_t));
        if (!s->topics || !s->parts) abort();
    }
    s->topics[s->n] = topic;
    s->parts[s->n++] = p;
}

static int delete_scope(const cli_vals_t *v, gr_consumer_t *c, dscope_t *s) {
    size_t nt;
    const char **args = cli_all(v, "topic", &nt);
    s->owned = calloc(nt + 1, sizeof(char *));
    s->unknown = calloc(nt + 1, sizeof(char *));
    if (!s->owned || !s->unknown) abort();
    for (size_t i = 0; i < nt; i++) {
        char topic[512], err[512];
        int32_t ps[1024], count = 0;
        size_t np;
        bool whole;
        if (!cg_parse_topic_arg(args[i], topic, sizeof(topic), ps, 1024, &np, &whole, err, sizeof(err)))
            return cli_usage_error(v, "%s", err);
        if (!(s->owned[i] = strdup(topic))) abort();
        if (whole && gr_consumer_partition_count(c, topic, cg_timeout(v), &count) != GR_ERR_NONE) {
            s->unknown[s->n_unknown++] = s->owned[i];
            continue;
        }
        for (size_t j = 0; j < (whole ? (size_t)count : np); j++) scope_add(s, s->owned[i], whole ? (int32_t)j : ps[j]);
    }
    return CLI_OK;
}

/* One row of the status table; key is Kafka's sort key, topic + partition as text. */
typedef struct drow {
    char key[600];
    const char *topic;
    int32_t partition;
    int code;
} drow_t;

static int cmp_drow(const void *x, const void *y) { return strcmp(((const drow_t *)x)->key, ((const drow_t *)y)->key); }

static void print_status(const cli_vals_t *v, drow_t *rows, size_t n) {
    qsort(rows, n, sizeof(*rows), cmp_drow);
    static const cli_col_t cols[] = {
        {"TOPIC", "topic", 0, CLI_TEXT}, {"PARTITION", "partition", 0, CLI_INT}, {"STATUS", "status", 0, CLI_TEXT}};
    cli_table_t t;
    cli_table_init(&t, cols, 3);
    int wt = 15;
    for (size_t r = 0; r < n; r++) {
        char pb[16], st[512];
        snprintf(pb, sizeof(pb), "%d", rows[r].partition);
        if (rows[r].code)
            snprintf(st, sizeof(st), "Error: org.apache.kafka.common.errors.%s: %s", cg_exception_name(rows[r].code),
                     cg_exception_message(rows[r].code));
        else
            snprintf(st, sizeof(st), "Successful");
        const char *cells[3] = {rows[r].topic, rows[r].partition >= 0 ? pb : NULL, st};
        cli_table_add(&t, cells);
        wt = wt > (int)strlen(rows[r].topic) ? wt : (int)strlen(rows[r].topic);
    }
    if (cli_json(v)) {
        cli_table_print(&t, true, false);
    } else {
        printf("\n%-*s %-10s %-15s", wt, "TOPIC", "PARTITION", "STATUS");
        for (size_t r = 0; r < t.rows; r++)
            printf("\n%-*s %-10s %-15s", wt, t.cells[r * 3], t.cells[r * 3 + 1] ? t.cells[r * 3 + 1] : "-",
                   t.cells[r * 3 + 2]);
        putchar('\n');
    }
    cli_table_free(&t);
}

/* Kafka's line for the group-level result (the first partition error stands for it). */
static void print_outcome(const char *group, gr_err_t err) {
    if (!err)
        printf("Request succeeded for deleting offsets from group %s.\n", group);
    else if (err == GR_ERR_INVALID_GROUP_ID || err == GR_ERR_GROUP_ID_NOT_FOUND ||
             err == GR_ERR_GROUP_AUTHORIZATION_FAILED || err == GR_ERR_NON_EMPTY_GROUP)
        cg_print_error("%s", cg_exception_message(err));
    else if (err == GR_ERR_GROUP_SUBSCRIBED_TO_TOPIC || err == GR_ERR_TOPIC_AUTHORIZATION_FAILED ||
             err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)
        cg_print_error("Encountered some partition-level error, see the follow-up details.");
    else
        cg_print_error("Encountered some unknown error: %s", gr_err_name(err));
}

static int delete_offsets(const cli_vals_t *v, gr_admin_t *a, const char *group, const dscope_t *s) {
    gr_admin_result_t *res = NULL;
    gr_err_t err = gr_admin_delete_consumer_group_offsets(a, group, s->topics, s->parts, s->n, cg_timeout(v), &res);
    if (err && !res) return cli_fail("%s", gr_admin_last_error(a));
    size_t n = gr_admin_result_rows(res);
    drow_t *rows = calloc(n + s->n_unknown + 1, sizeof(*rows));
    if (!rows) abort();
    for (size_t r = 0; r < n; r++)
        rows[r] = (drow_t){"", gr_admin_result_str(res, r, "topic"),
                           (int32_t)gr_admin_result_int(res, r, "partition", -1), (int)gr_admin_result_error(res, r)};
    for (size_t u = 0; u < s->n_unknown; u++)
        rows[n++] = (drow_t){"", s->unknown[u], -1, GR_ERR_UNKNOWN_TOPIC_OR_PARTITION};
    for (size_t r = 0; r < n; r++) snprintf(rows[r].key, sizeof(rows[r].key), "%s%d", rows[r].topic, rows[r].partition);
    if (!cli_json(v)) print_outcome(group, err);
    print_status(v, rows, n);
    free(rows);
    gr_admin_result_destroy(res);
    return err || s->n_unknown ? CLI_FAIL : CLI_OK;
}

int cg_delete_offsets(const cli_vals_t *v, gr_admin_t *a) {
    size_t ng, nt;
    const char *group = cli_all(v, "group", &ng)[ng - 1];
    cli_all(v, "topic", &nt);
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, NULL, 0);
    gr_consumer_t *c = NULL;
    char errstr[512];
    if (!conf || gr_consumer_new(conf, &c, errstr, sizeof(errstr)) != GR_ERR_NONE) {
        gr_conf_destroy(conf);
        return conf ? cli_fail("%s", errstr) : CLI_FAIL;
    }
    gr_conf_destroy(conf);
    dscope_t s = {0};
    int rc = delete_scope(v, c, &s);
    if (rc == CLI_OK) rc = delete_offsets(v, a, group, &s);
    for (size_t i = 0; s.owned && i < nt; i++) free(s.owned[i]);
    free(s.owned), free(s.unknown), free(s.topics), free(s.parts);
    gr_consumer_destroy(c);
    return rc;
}
