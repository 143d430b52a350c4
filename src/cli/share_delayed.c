/* gregor share-groups --describe --state, gregord's delayed redelivery: when the
 * group's gregor.share.redelivery.backoff.ms is above 0 (DescribeConfigs GROUP), a
 * second table shows per share-partition the records held back and when the next
 * one is due, from gregord's admin endpoint GET /v1/share-groups/<group>/delayed
 * (docs/share-groups.md). Kafka knows no such config, so against Kafka nothing is
 * fetched and the state view is Kafka's alone. Text output only: JSON users read
 * the endpoint itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_get.h"
#include "json_parse.h"
#include "share_groups.h"

#define BACKOFF_KEY "gregor.share.redelivery.backoff.ms"

static const cli_col_t cols[] = {
    {"GROUP", "group", 15, CLI_TEXT},
    {"TOPIC", "topic", 15, CLI_TEXT},
    {"PARTITION", "partition", 9, CLI_TEXT},
    {"DELAYED-RECORDS", "delayed_records", 15, CLI_INT},
    {"NEXT-DUE-IN", "next_due_in", 11, CLI_TEXT},
    {"BACKOFF", "backoff", 0, CLI_TEXT},
};
#define N_COLS (sizeof(cols) / sizeof(cols[0]))

/* The group's backoff base in ms (0: off, unknown, or not gregord). */
static long long backoff_of(const cli_vals_t *v, gr_admin_t *a, const char *group) {
    const char *keys[] = {BACKOFF_KEY};
    gr_admin_result_t *res = NULL;
    long long ms = 0;
    if (gr_admin_describe_configs(a, GR_RESOURCE_GROUP, group, keys, 1, cli_timeout(v), &res) == GR_ERR_NONE)
        for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
            const char *n = gr_admin_result_str(res, r, "name"), *val = gr_admin_result_str(res, r, "value");
            if (n && val && !strcmp(n, BACKOFF_KEY)) ms = atoll(val);
        }
    gr_admin_result_destroy(res);
    return ms;
}

static void add_rows(cli_table_t *t, const char *group, const cli_jv_t *doc) {
    const cli_jv_t *sps = cli_jv_get(doc, "share_partitions");
    char backoff[64];
    snprintf(backoff, sizeof(backoff), "%.0fms..%.0fms", cli_jv_num(doc, "redelivery_backoff_ms"),
             cli_jv_num(doc, "redelivery_backoff_max_ms"));
    for (size_t i = 0; sps && i < sps->n; i++) {
        const cli_jv_t *o = &sps->vals[i];
        char part[16], n[24], due[32];
        double next = cli_jv_num(o, "next_due_in_ms");
        snprintf(part, sizeof(part), "%.0f", cli_jv_num(o, "partition"));
        snprintf(n, sizeof(n), "%.0f", cli_jv_num(o, "delayed_records"));
        if (next == next) snprintf(due, sizeof(due), "%.0fms", next); /* not NaN: null when none */
        const char *cells[N_COLS] = {group, cli_jv_str(o, "topic"), part, n, next == next ? due : "-", backoff};
        cli_table_add(t, cells);
    }
}

void sg_delayed(const cli_vals_t *v, gr_admin_t *a, const char *group) {
    if (cli_json(v) || backoff_of(v, a, group) <= 0) return;
    char dflt[320], err[512], path[1024] = "/v1/share-groups/";
    const char *url = cli_str(v, "admin-url"), *bs = cli_str(v, "bootstrap-server");
    if (!url) sg_default_admin_url(bs ? bs : "localhost", dflt, sizeof(dflt)), url = dflt;
    cli_url_t u;
    int status = 0;
    size_t len = 0;
    char *raw = NULL;
    if (!cli_url_parse(url, &u, err, sizeof(err)) || !cli_url_escape(path, sizeof(path) - 16, group) ||
        (strcat(path, "/delayed"), !cli_http_get(&u, path, cli_timeout(v), &status, &raw, &len, err, sizeof(err)))) {
        fprintf(stderr,
                "\nDelayed redelivery is on for share group '%s', but its delayed records cannot be read from %s "
                "(%s): they come from gregord's admin endpoint (admin.listener); use --admin-url.\n",
                group, url, err);
        free(raw);
        return;
    }
    cli_jv_t *doc = cli_jv_parse(raw, len, err, sizeof(err));
    const cli_jv_t *sps = cli_jv_get(doc, "share_partitions");
    if (status == 200 && sps && sps->type == CLI_JARR) {
        cli_table_t t;
        cli_table_init(&t, cols, N_COLS);
        add_rows(&t, group, doc);
        cli_table_sort(&t, (const size_t[]){1, 2}, 2);
        if (t.rows) cli_table_print(&t, false, true);
        cli_table_free(&t);
    } else {
        fprintf(stderr, "\n%s answered HTTP %d without the delayed records of '%s'.\n", url, status, group);
    }
    cli_jv_free(doc);
    free(raw);
}
