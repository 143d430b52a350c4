/* gregor share-groups --describe --capacity: the Little's-law capacity view of
 * share groups (docs/cli.md, docs/capacity.md), fetched from gregord's
 * admin endpoint GET /v1/share-groups/<group>/capacity. Kafka has no such
 * endpoint: the view needs gregord's admin.listener.
 *   text  one row per share-partition and a "*" row for the group;
 *   json  an array of the endpoint's documents, one per group. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_get.h"
#include "json_parse.h"
#include "share_groups.h"

#define ADMIN_PORT "9644" /* `make run` puts admin.listener there */

static const cli_col_t cap_cols[] = {
    {"GROUP", "group", 15, CLI_TEXT},
    {"TOPIC", "topic", 15, CLI_TEXT},
    {"PARTITION", "partition", 9, CLI_TEXT},
    {"RECORD-LOCKS", "record_lock_limit", 12, CLI_INT},
    {"IN-FLIGHT", "in_flight", 9, CLI_INT},
    {"W-P50", "w_p50", 7, CLI_TEXT},
    {"W-P99", "w_p99", 7, CLI_TEXT},
    {"ACK-RATE", "ack_rate", 10, CLI_TEXT},
    {"CEILING", "ceiling", 10, CLI_TEXT},
    {"HEADROOM", "headroom", 8, CLI_TEXT},
    {"LAG", "lag", 8, CLI_INT},
    {"ETD", "etd", 7, CLI_TEXT},
    {"VERDICT", "verdict", 0, CLI_TEXT},
};
#define N_COLS (sizeof(cap_cols) / sizeof(cap_cols[0]))

/* http://<first bootstrap host>:9644 */
void sg_default_admin_url(const char *bootstrap, char *buf, size_t size) {
    char host[256];
    size_t n = strcspn(bootstrap, ",");
    if (n >= sizeof(host)) n = sizeof(host) - 1;
    memcpy(host, bootstrap, n);
    host[n] = 0;
    char *end = host[0] == '[' ? strchr(host, ']') : NULL;
    char *colon = end ? strchr(end, ':') : strrchr(host, ':');
    if (colon) *colon = 0;
    snprintf(buf, size, "http://%s:%s", host, ADMIN_PORT);
}

static char *fmt(char *buf, size_t size, const char *f, double v) {
    if (isnan(v)) return NULL;
    snprintf(buf, size, f, v);
    return buf;
}

/* W: 0.05ms, 375ms, 1.25s */
static const char *seconds(char *buf, size_t size, double s) {
    return s < 1 ? fmt(buf, size, "%.3gms", s * 1000) : fmt(buf, size, "%.3gs", s);
}

/* 42s, 12.5m, 3.0h */
static const char *duration(char *buf, size_t size, double s) {
    if (s < 120) return fmt(buf, size, "%.0fs", s);
    if (s < 7200) return fmt(buf, size, "%.1fm", s / 60);
    return fmt(buf, size, "%.1fh", s / 3600);
}

static void add_row(cli_table_t *t, const char *group, const char *topic, const char *partition, const cli_jv_t *o) {
    char locks[24], inf[24], p50[24], p99[24], ack[32], ceil[32], head[32], lag[24], etd[24];
    double lagv = cli_jv_num(o, "lag"), etdv = cli_jv_num(o, "etd_seconds");
    const char *etds = isnan(lagv) ? NULL : isnan(etdv) ? "never" : duration(etd, sizeof(etd), etdv);
    const char *cells[N_COLS] = {group,
                                 topic,
                                 partition,
                                 fmt(locks, sizeof(locks), "%.0f", cli_jv_num(o, "record_lock_limit")),
                                 fmt(inf, sizeof(inf), "%.0f", cli_jv_num(o, "in_flight_records")),
                                 seconds(p50, sizeof(p50), cli_jv_num(o, "w_p50_seconds")),
                                 seconds(p99, sizeof(p99), cli_jv_num(o, "w_p99_seconds")),
                                 fmt(ack, sizeof(ack), "%.1f/s", cli_jv_num(o, "ack_rate")),
                                 fmt(ceil, sizeof(ceil), "%.1f/s", cli_jv_num(o, "ceiling")),
                                 fmt(head, sizeof(head), "%.2f", cli_jv_num(o, "headroom")),
                                 fmt(lag, sizeof(lag), "%.0f", lagv),
                                 etds,
                                 cli_jv_str(o, "verdict")};
    cli_table_add(t, cells);
}

static void add_rows(cli_table_t *t, const char *group, const cli_jv_t *doc) {
    const cli_jv_t *sps = cli_jv_get(doc, "share_partitions");
    for (size_t i = 0; i < sps->n; i++) {
        char part[16];
        snprintf(part, sizeof(part), "%.0f", cli_jv_num(&sps->vals[i], "partition"));
        add_row(t, group, cli_jv_str(&sps->vals[i], "topic"), part, &sps->vals[i]);
    }
    add_row(t, group, "*", "*", cli_jv_get(doc, "group_total"));
}

/* GET the view of one group: the parsed document (and its text in *raw), or NULL
 * after printing why. */
static cli_jv_t *fetch(const cli_vals_t *v, const cli_url_t *u, const char *url, const char *group, char **raw) {
    char path[1024] = "/v1/share-groups/", err[512];
    int status = 0;
    size_t len = 0;
    if (!cli_url_escape(path, sizeof(path) - 16, group)) return cli_fail("The group id is too long."), NULL;
    strcat(path, "/capacity");
    if (!cli_http_get(u, path, cli_timeout(v), &status, raw, &len, err, sizeof(err))) {
        cli_fail("Cannot get the capacity view from %s (%s). It needs gregord's admin endpoint "
                 "(admin.listener=HOST:PORT on the broker); Apache Kafka has none. Use --admin-url to name it.",
                 url, err);
        return NULL;
    }
    cli_jv_t *doc = cli_jv_parse(*raw, len, err, sizeof(err));
    const char *msg = cli_jv_str(doc, "error");
    const cli_jv_t *sps = cli_jv_get(doc, "share_partitions");
    if (status == 200 && sps && sps->type == CLI_JARR && cli_jv_get(doc, "group_total")) return doc;
    if (status != 200 && msg)
        cli_fail("%s", msg);
    else
        cli_fail("%s answered HTTP %d without a capacity view: is it gregord's admin.listener?", url, status);
    cli_jv_free(doc);
    free(*raw);
    *raw = NULL;
    return NULL;
}

/* The groups of --group, or every share group with --all-groups (needs the admin client). */
static size_t groups_of(const cli_vals_t *v, gr_admin_t **a, const char ***groups, gr_admin_result_t **res) {
    if (!cli_has(v, "all-groups")) {
        *res = NULL;
        size_t n;
        *groups = cli_all(v, "group", &n);
        return n;
    }
    if (!(*a = cli_admin(v))) return (size_t)-1;
    size_t n = sg_groups(v, *a, groups, res);
    return n;
}

static int show(const cli_vals_t *v, const cli_url_t *u, const char *url, const char **groups, size_t n) {
    bool json = cli_json(v);
    int rc = CLI_OK;
    cli_table_t t;
    cli_table_init(&t, cap_cols, N_COLS);
    if (json) putchar('[');
    for (size_t i = 0, shown = 0; i < n; i++) {
        char *raw = NULL;
        cli_jv_t *doc = fetch(v, u, url, groups[i], &raw);
        if (!doc) {
            rc = CLI_FAIL;
            continue;
        }
        if (json) {
            size_t l = strlen(raw);
            while (l && (raw[l - 1] == '\n' || raw[l - 1] == '\r')) raw[--l] = 0;
            printf("%s%s", shown++ ? ",\n " : "", raw);
        } else {
            add_rows(&t, groups[i], doc);
        }
        cli_jv_free(doc);
        free(raw);
    }
    if (json)
        puts("]");
    else if (t.rows)
        cli_table_print(&t, false, true);
    cli_table_free(&t);
    return rc;
}

int sg_capacity(const cli_vals_t *v) {
    char dflt[320], err[512];
    const char *url = cli_str(v, "admin-url"), *bs = cli_str(v, "bootstrap-server");
    if (!url && !bs) return cli_usage_error(v, "Option [capacity] needs the option [admin-url] or [bootstrap-server]");
    if (!url) sg_default_admin_url(bs, dflt, sizeof(dflt)), url = dflt;
    cli_url_t u;
    if (!cli_url_parse(url, &u, err, sizeof(err))) return cli_usage_error(v, "--admin-url: %s", err);
    (void)cli_json(v); /* a bad --output is a usage error before anything is fetched */
    gr_admin_t *a = NULL;
    gr_admin_result_t *res = NULL;
    const char **groups = NULL;
    size_t n = groups_of(v, &a, &groups, &res);
    int rc;
    if (n == (size_t)-1)
        rc = CLI_FAIL;
    else if (!n && !cli_has(v, "all-groups"))
        rc = cli_usage_error(v, "Option [describe] takes one of these options: [all-groups], [group]");
    else
        rc = show(v, &u, url, groups, n);
    if (a) free(groups); /* sg_groups' array; --group values belong to v */
    gr_admin_result_destroy(res);
    if (a) gr_admin_destroy(a);
    return rc;
}
