/* gregor consumer-groups --describe, as kafka-consumer-groups 4.4.0 prints it:
 *   offsets (default)  GROUP TOPIC PARTITION [LEADER-EPOCH] CURRENT-OFFSET LOG-END-OFFSET LAG
 *                      CONSUMER-ID HOST CLIENT-ID: members by number of partitions (most
 *                      first), each member's partitions by topic and partition, then the
 *                      committed partitions no member holds;
 *   --members          GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS
 *                      [CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT [UPGRADED]];
 *   --state            GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE [GROUP-EPOCH
 *                      TARGET-ASSIGNMENT-EPOCH] #MEMBERS.
 * Groups in id order; the notices of Kafka's tool (no active members, rebalancing, does
 * not exist) on the same streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_groups.h"
#include "gregor/consumer.h"

/* The rows [first, end) of one group in a describe result. */
typedef struct cgroup {
    const char *id, *state;
    size_t first, end, members;
} cgroup_t;

static int cmp_group(const void *x, const void *y) {
    return strcmp(((const cgroup_t *)x)->id, ((const cgroup_t *)y)->id);
}

/* Split the describe result into groups, sorted by id. */
static size_t split_groups(const gr_admin_result_t *d, cgroup_t *g, size_t max) {
    size_t n = 0, rows = gr_admin_result_rows(d);
    for (size_t r = 0; r < rows && n < max; r++) {
        const char *id = gr_admin_result_str(d, r, "group");
        if (n && !strcmp(g[n - 1].id, id) && g[n - 1].end == r) {
            g[n - 1].end++;
        } else {
            g[n] = (cgroup_t){id, gr_admin_result_str(d, r, "state"), r, r + 1, 0};
            n++;
        }
        if (gr_admin_result_str(d, r, "member_id")) g[n - 1].members++;
    }
    qsort(g, n, sizeof(*g), cmp_group);
    return n;
}

/* Kafka's shouldPrintMemberState: the notice for the state; false for a dead group. */
static bool notice(const cgroup_t *g) {
    const char *s = g->state ? g->state : "Unknown";
    if (!strcmp(s, "Dead")) {
        cg_print_error("Consumer group '%s' does not exist.", g->id);
        return false;
    }
    fflush(stdout);
    if (!strcmp(s, "Empty"))
        fprintf(stderr, "\nConsumer group '%s' has no active members.\n", g->id);
    else if (strcmp(s, "Stable"))
        fprintf(stderr, "\nWarning: Consumer group '%s' is rebalancing.\n", g->id);
    return true;
}

static int max_i(int a, int b) { return a > b ? a : b; }
static int slen(const char *s) { return s ? (int)strlen(s) : 1; }
static const char *dash(const char *s) { return s ? s : "-"; }

/* ---- offsets ---- */

static const cli_col_t off_cols[] = {
    {"GROUP", "group", 0, CLI_TEXT},
    {"TOPIC", "topic", 0, CLI_TEXT},
    {"PARTITION", "partition", 0, CLI_INT},
    {"LEADER-EPOCH", "leader_epoch", 0, CLI_INT},
    {"CURRENT-OFFSET", "current_offset", 0, CLI_INT},
    {"LOG-END-OFFSET", "log_end_offset", 0, CLI_INT},
    {"LAG", "lag", 0, CLI_INT},
    {"CONSUMER-ID", "consumer_id", 0, CLI_TEXT},
    {"HOST", "host", 0, CLI_TEXT},
    {"CLIENT-ID", "client_id", 0, CLI_TEXT},
};

/* One partition row into t: committed offset from the group's offsets, log end from ListOffsets. */
static void offset_row(const cli_vals_t *v, gr_consumer_t *c, const gr_admin_result_t *offs, const char *group,
                       const char *topic, int32_t p, const char *const who[3], cli_table_t *t) {
    int64_t committed = -1, epoch = -1, end = -1;
    for (size_t r = 0; r < gr_admin_result_rows(offs); r++) {
        const char *ot = gr_admin_result_str(offs, r, "topic");
        if (ot && !strcmp(ot, topic) && gr_admin_result_int(offs, r, "partition", -1) == p) {
            committed = gr_admin_result_int(offs, r, "offset", -1);
            epoch = gr_admin_result_int(offs, r, "leader_epoch", -1);
        }
    }
    bool have_end = gr_consumer_query_offset(c, topic, p, GR_OFFSET_END, cg_timeout(v), &end) == GR_ERR_NONE;
    char pb[16], eb[24], cb[24], lb[24], lag[24];
    snprintf(pb, sizeof(pb), "%d", p);
    const char *cells[10] = {group,
                             topic,
                             pb,
                             committed >= 0 ? cli_i64(eb, sizeof(eb), epoch, true) : NULL,
                             committed >= 0 ? cli_i64(cb, sizeof(cb), committed, false) : NULL,
                             have_end ? cli_i64(lb, sizeof(lb), end, false) : NULL,
                             committed >= 0 && have_end ? cli_i64(lag, sizeof(lag), end - committed, false) : NULL,
                             who[0],
                             who[1],
                             who[2]};
    cli_table_add(t, cells);
}

/* The partitions of an assignment string "t:0,1;u:2" as rows for one member. */
static void member_rows(const cli_vals_t *v, gr_consumer_t *c, const gr_admin_result_t *offs, const char *group,
                        const char *asg, const char *const who[3], cli_table_t *t) {
    char *copy = strdup(asg), *save = NULL;
    if (!copy) abort();
    for (char *tp = strtok_r(copy, ";", &save); tp; tp = strtok_r(NULL, ";", &save)) {
        char *colon = strrchr(tp, ':'), *s2 = NULL;
        if (!colon) continue;
        *colon = 0;
        for (char *p = strtok_r(colon + 1, ",", &s2); p; p = strtok_r(NULL, ",", &s2))
            offset_row(v, c, offs, group, tp, (int32_t)atoi(p), who, t);
    }
    free(copy);
}

static bool assigned(const cli_table_t *t, size_t upto, const char *topic, const char *part) {
    for (size_t r = 0; r < upto; r++)
        if (!strcmp(t->cells[r * 10 + 1], topic) && !strcmp(t->cells[r * 10 + 2], part)) return true;
    return false;
}

/* Member order: most partitions first, ties in the broker's order (a stable sort). */
static void member_order(const gr_admin_result_t *d, const cgroup_t *g, size_t *idx, size_t *n) {
    *n = 0;
    for (size_t r = g->first; r < g->end; r++)
        if (gr_admin_result_str(d, r, "member_id") && gr_admin_result_int(d, r, "partitions", 0) > 0) idx[(*n)++] = r;
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && gr_admin_result_int(d, idx[j - 1], "partitions", 0) <
                                        gr_admin_result_int(d, idx[j], "partitions", 0);
             j--) {
            size_t x = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = x;
        }
}

static int group_offsets(const cli_vals_t *v, gr_admin_t *a, gr_consumer_t *c, const gr_admin_result_t *d,
                         const cgroup_t *g, cli_table_t *t) {
    gr_admin_result_t *offs = NULL;
    if (gr_admin_list_consumer_group_offsets(a, g->id, NULL, 0, cg_timeout(v), &offs) != GR_ERR_NONE && !offs)
        return cli_fail("%s", gr_admin_last_error(a));
    size_t *idx = malloc((g->end - g->first + 1) * sizeof(size_t)), n;
    if (!idx) abort();
    member_order(d, g, idx, &n);
    for (size_t i = 0; i < n; i++) {
        const char *who[3] = {gr_admin_result_str(d, idx[i], "member_id"),
                              gr_admin_result_str(d, idx[i], "client_host"),
                              gr_admin_result_str(d, idx[i], "client_id")};
        member_rows(v, c, offs, g->id, gr_admin_result_str(d, idx[i], "assignment"), who, t);
    }
    free(idx);
    size_t first_unassigned = t->rows, held = t->rows;
    for (size_t r = 0; r < gr_admin_result_rows(offs); r++) {
        const char *topic = gr_admin_result_str(offs, r, "topic");
        char pb[16];
        snprintf(pb, sizeof(pb), "%lld", (long long)gr_admin_result_int(offs, r, "partition", -1));
        if (!topic || gr_admin_result_int(offs, r, "offset", -1) < 0 || assigned(t, held, topic, pb)) continue;
        static const char *const none[3] = {"-", "-", "-"};
        offset_row(v, c, offs, g->id, topic, (int32_t)atoi(pb), none, t);
    }
    /* The unassigned rows are sorted by topic and partition (Kafka sorts each member's too). */
    cli_table_t tail = {t->cols, t->n_cols, t->cells + first_unassigned * 10, t->rows - first_unassigned, 0};
    cli_table_sort(&tail, (const size_t[]){1, 2}, 2);
    gr_admin_result_destroy(offs);
    return CLI_OK;
}

static void print_offsets(const cli_table_t *t, size_t first, bool verbose) {
    int wg = 15, wt = 15, wc = 15, wh = 15;
    for (size_t r = first; r < t->rows; r++) {
        char *const *c = &t->cells[r * 10];
        wg = max_i(wg, slen(c[0])), wt = max_i(wt, slen(c[1])), wc = max_i(wc, slen(c[7])), wh = max_i(wh, slen(c[8]));
    }
    for (size_t r = first; r <= t->rows; r++) {
        const char *const *c = r == first ? NULL : (const char *const *)&t->cells[(r - 1) * 10];
        const char *h[10] = {"GROUP",          "TOPIC", "PARTITION",   "LEADER-EPOCH", "CURRENT-OFFSET",
                             "LOG-END-OFFSET", "LAG",   "CONSUMER-ID", "HOST",         "CLIENT-ID"};
        const char *const *x = c ? c : h;
        printf("\n%-*s %-*s %-10s ", wg, dash(x[0]), wt, dash(x[1]), dash(x[2]));
        if (verbose) printf("%-15s ", dash(x[3]));
        printf("%-15s %-15s %-15s %-*s %-*s %s", dash(x[4]), dash(x[5]), dash(x[6]), wc, dash(x[7]), wh, dash(x[8]),
               dash(x[9]));
    }
    putchar('\n');
}

static int describe_offsets(const cli_vals_t *v, gr_admin_t *a, const gr_admin_result_t *d, const cgroup_t *g,
                            size_t ng, cli_table_t *all) {
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, NULL, 0);
    gr_consumer_t *c = NULL;
    char errstr[512];
    if (!conf || gr_consumer_new(conf, &c, errstr, sizeof(errstr)) != GR_ERR_NONE) {
        gr_conf_destroy(conf);
        return conf ? cli_fail("%s", errstr) : CLI_FAIL;
    }
    gr_conf_destroy(conf);
    int rc = CLI_OK;
    for (size_t i = 0; i < ng && rc == CLI_OK; i++) {
        size_t first = all->rows;
        rc = group_offsets(v, a, c, d, &g[i], all);
        if (rc == CLI_OK && !cli_json(v) && notice(&g[i]) && all->rows > first)
            print_offsets(all, first, cli_has(v, "verbose"));
    }
    gr_consumer_destroy(c);
    return rc;
}

/* ---- members ---- */

static const cli_col_t mem_cols[] = {
    {"GROUP", "group", 0, CLI_TEXT},
    {"CONSUMER-ID", "consumer_id", 0, CLI_TEXT},
    {"GROUP-INSTANCE-ID", "group_instance_id", 0, CLI_TEXT},
    {"HOST", "host", 0, CLI_TEXT},
    {"CLIENT-ID", "client_id", 0, CLI_TEXT},
    {"#PARTITIONS", "partitions", 0, CLI_INT},
    {"CURRENT-EPOCH", "current_epoch", 0, CLI_INT},
    {"CURRENT-ASSIGNMENT", "current_assignment", 0, CLI_TEXT},
    {"TARGET-EPOCH", "target_epoch", 0, CLI_INT},
    {"TARGET-ASSIGNMENT", "target_assignment", 0, CLI_TEXT},
    {"UPGRADED", "upgraded", 0, CLI_BOOL},
};

static void member_cells(const gr_admin_result_t *d, size_t r, const char *cells[11]) {
    const char *asg = gr_admin_result_str(d, r, "assignment"), *tgt = gr_admin_result_str(d, r, "target_assignment");
    int64_t mt = gr_admin_result_int(d, r, "member_type", -1);
    int64_t te = gr_admin_result_int(d, r, "assignment_epoch", -1);
    cells[0] = gr_admin_result_str(d, r, "group");
    cells[1] = gr_admin_result_str(d, r, "member_id");
    cells[2] = gr_admin_result_str(d, r, "instance_id");
    cells[3] = gr_admin_result_str(d, r, "client_host");
    cells[4] = gr_admin_result_str(d, r, "client_id");
    cells[5] = gr_admin_result_str(d, r, "partitions");
    cells[6] = gr_admin_result_str(d, r, "member_epoch");
    cells[7] = asg && *asg ? asg : NULL;
    cells[8] = te >= 0 ? gr_admin_result_str(d, r, "assignment_epoch") : NULL;
    cells[9] = tgt && *tgt ? tgt : NULL;
    cells[10] = mt < 0 ? NULL : mt == 1 ? "true" : "false";
}

static void print_members(const cli_table_t *t, size_t first, bool verbose, bool body) {
    int w[11] = {15, 15, 17, 15, 15, 15, 15, 20, 15, 20, 0};
    bool inst = false, classic = false, consumer = false;
    for (size_t r = first; body && r < t->rows; r++) {
        char *const *c = &t->cells[r * 11];
        for (int k = 0; k < 10; k++)
            if (k != 5 && k != 6 && k != 8) w[k] = max_i(w[k], k == 2 && !c[k] ? 0 : slen(c[k]));
        inst = inst || (c[2] && *c[2]);
        classic = classic || (c[10] && !strcmp(c[10], "false"));
        consumer = consumer || (c[10] && !strcmp(c[10], "true"));
    }
    bool upgrade = classic && consumer;
    static const char *const h[11] = {"GROUP",        "CONSUMER-ID",       "GROUP-INSTANCE-ID", "HOST",
                                      "CLIENT-ID",    "#PARTITIONS",       "CURRENT-EPOCH",     "CURRENT-ASSIGNMENT",
                                      "TARGET-EPOCH", "TARGET-ASSIGNMENT", "UPGRADED"};
    putchar('\n');
    for (size_t r = first; r <= t->rows; r++) {
        const char *const *x = r == first ? h : (const char *const *)&t->cells[(r - 1) * 11];
        printf("%-*s %-*s ", w[0], x[0], w[1], x[1]);
        if (inst) printf("%-*s ", w[2], r == first ? x[2] : x[2] ? x[2] : "");
        printf("%-*s %-*s %-15s ", w[3], x[3], w[4], x[4], x[5]);
        if (verbose) {
            printf("%-15s %-*s %-15s %-*s", dash(x[6]), w[7], dash(x[7]), dash(x[8]), w[9], dash(x[9]));
            if (upgrade) printf(" %s", dash(x[10]));
        }
        putchar('\n');
        if (!body) break;
    }
}

static void describe_members(const cli_vals_t *v, const gr_admin_result_t *d, const cgroup_t *g, size_t ng,
                             cli_table_t *all) {
    for (size_t i = 0; i < ng; i++) {
        size_t first = all->rows;
        for (size_t r = g[i].first; r < g[i].end; r++) {
            if (!gr_admin_result_str(d, r, "member_id")) continue;
            const char *cells[11];
            member_cells(d, r, cells);
            cli_table_add(all, cells);
        }
        if (cli_json(v)) continue;
        /* Kafka's tool prints the header even for a group it says is dead or empty. */
        bool body = notice(&g[i]) && g[i].members > 0;
        print_members(all, first, cli_has(v, "verbose"), body);
    }
}

/* ---- state ---- */

static const cli_col_t state_cols[] = {
    {"GROUP", "group", 0, CLI_TEXT},
    {"COORDINATOR (ID)", "coordinator", 0, CLI_TEXT},
    {"ASSIGNMENT-STRATEGY", "assignment_strategy", 0, CLI_TEXT},
    {"STATE", "state", 0, CLI_TEXT},
    {"GROUP-EPOCH", "group_epoch", 0, CLI_INT},
    {"TARGET-ASSIGNMENT-EPOCH", "target_assignment_epoch", 0, CLI_INT},
    {"#MEMBERS", "members", 0, CLI_INT},
    {"COORDINATOR-ID", "coordinator_id", 0, CLI_INT},
};

static void describe_state(const cli_vals_t *v, const gr_admin_result_t *d, const cgroup_t *g, size_t ng,
                           cli_table_t *all) {
    for (size_t i = 0; i < ng; i++) {
        size_t r = g[i].first;
        char coord[300], nm[24];
        const char *as = gr_admin_result_str(d, r, "assignor"), *cn = gr_admin_result_str(d, r, "coordinator");
        snprintf(coord, sizeof(coord), "%s  (%s)", cn ? cn : "-", dash(gr_admin_result_str(d, r, "coordinator_id")));
        snprintf(nm, sizeof(nm), "%zu", g[i].members);
        int64_t ge = gr_admin_result_int(d, r, "group_epoch", -1),
                te = gr_admin_result_int(d, r, "assignment_epoch", -1);
        const char *cells[8] = {g[i].id,
                                cli_json(v) ? cn : coord,
                                as && *as ? as : NULL,
                                g[i].state,
                                ge >= 0 ? gr_admin_result_str(d, r, "group_epoch") : NULL,
                                te >= 0 ? gr_admin_result_str(d, r, "assignment_epoch") : NULL,
                                nm,
                                gr_admin_result_str(d, r, "coordinator_id")};
        if (cli_json(v)) {
            cli_table_add(all, cells);
            continue;
        }
        if (!notice(&g[i])) continue;
        int wg = max_i(15, slen(g[i].id)), wc = max_i(25, slen(coord));
        const char *h[7] = {"GROUP",   "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY",
                            "STATE",   "GROUP-EPOCH",      "TARGET-ASSIGNMENT-EPOCH",
                            "#MEMBERS"};
        for (int k = 0; k < 2; k++) {
            const char *const *x = k ? cells : h;
            printf("\n%-*s %-*s %-20s %-20s ", wg, x[0], wc, x[1], dash(x[2]), dash(x[3]));
            if (cli_has(v, "verbose")) printf("%-15s %-25s ", dash(x[4]), dash(x[5]));
            printf("%s", x[6]);
        }
        putchar('\n');
    }
}

int cg_describe(const cli_vals_t *v, gr_admin_t *a) {
    const char **groups;
    gr_admin_result_t *lres, *d = NULL;
    size_t n = cg_groups(v, a, &groups, &lres);
    if (n == (size_t)-1) return CLI_FAIL;
    int rc = CLI_OK;
    if (n && gr_admin_describe_consumer_groups(a, groups, n, cg_timeout(v), &d) != GR_ERR_NONE) {
        size_t bad = 0;
        while (d && bad + 1 < gr_admin_result_rows(d) && !gr_admin_result_error(d, bad)) bad++;
        int code = d ? (int)gr_admin_result_error(d, bad) : 0;
        const char *m = d ? gr_admin_result_str(d, bad, "error_message") : NULL;
        if (code)
            cg_print_error("Executing consumer group command failed due to org.apache.kafka.common.errors.%s: %s",
                           cg_exception_name(code), m ? m : cg_exception_message(code));
        else
            cli_fail("%s", gr_admin_last_error(a));
        rc = CLI_FAIL;
    }
    cgroup_t *g = malloc((gr_admin_result_rows(d) + 1) * sizeof(*g));
    if (!g) abort();
    size_t ng = rc == CLI_OK ? split_groups(d, g, gr_admin_result_rows(d)) : 0;
    int kind = cli_has(v, "members") ? 1 : cli_has(v, "state") ? 2 : 0;
    cli_table_t all;
    cli_table_init(&all, kind == 0 ? off_cols : kind == 1 ? mem_cols : state_cols, kind == 0 ? 10 : kind == 1 ? 11 : 8);
    if (kind == 0)
        rc = ng ? describe_offsets(v, a, d, g, ng, &all) : rc;
    else if (kind == 1)
        describe_members(v, d, g, ng, &all);
    else
        describe_state(v, d, g, ng, &all);
    if (cli_json(v) && rc == CLI_OK) cli_table_print(&all, true, false);
    cli_table_free(&all);
    free(g);
    free(groups);
    gr_admin_result_destroy(d);
    gr_admin_result_destroy(lres);
    return rc;
}
