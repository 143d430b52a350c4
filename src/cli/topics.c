/* gregor topics: kafka-topics.sh.
 *   --create --topic t [--partitions n] [--replication-factor r] [--config k=v]... [--if-not-exists]
 *   --list [--topic regex] [--exclude-internal]
 *   --describe [--topic regex | --topic-id id] [--exclude-internal] [--if-exists]
 *       [--topics-with-overrides | --under-replicated-partitions | --unavailable-partitions |
 *        --under-min-isr-partitions | --at-min-isr-partitions]
 *   --alter --topic regex --partitions n [--if-exists]
 *   --delete --topic regex [--if-exists]
 * As in Kafka, --topic is a regular expression (POSIX extended here, matching the whole
 * name; ',' separates alternatives) everywhere but --create. Messages are Kafka's:
 * "Created topic t.", "Topic 't' does not exist as expected". */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"command-config", "String: command config property file",
     "Property file containing configs to be passed to the admin client."},
    {"create", NULL, "Create a new topic."},
    {"list", NULL, "List all available topics."},
    {"describe", NULL, "List details for the given topics."},
    {"alter", NULL, "Alter the number of partitions of a topic."},
    {"delete", NULL, "Delete a topic."},
    {"topic", "String: topic",
     "The topic to create, alter, describe or delete; a regular expression except with --create."},
    {"topic-id", "String: topic-id", "The topic id to describe."},
    {"partitions", "Integer: # of partitions", "The number of partitions for the topic being created or altered."},
    {"replication-factor", "Integer: replication factor",
     "The replication factor for each partition of the topic being created."},
    {"config", "String: name=value", "A topic configuration override for the topic being created (repeatable)."},
    {"if-not-exists", NULL, "When creating, only create the topic if it does not exist."},
    {"if-exists", NULL, "When altering, describing or deleting, only act if the topic exists."},
    {"exclude-internal", NULL, "Exclude internal topics when listing or describing."},
    {"topics-with-overrides", NULL, "With --describe: only topics that have config overrides."},
    {"under-replicated-partitions", NULL,
     "With --describe: only partitions whose ISR is smaller than their replica set."},
    {"unavailable-partitions", NULL, "With --describe: only partitions without a leader."},
    {"under-min-isr-partitions", NULL,
     "With --describe: only partitions whose ISR is smaller than min.insync.replicas."},
    {"at-min-isr-partitions", NULL, "With --describe: only partitions whose ISR size equals min.insync.replicas."},
    {"output", "String: text|json", "Output format of --list and --describe (default text)."},
    {"timeout", "Long: timeout (ms)", "Timeout of each admin call (default 30000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

static int create(const cli_vals_t *v, gr_admin_t *a, const char *topic) {
    size_t n_cfg;
    const char **cfg = cli_all(v, "config", &n_cfg);
    const char **kv = calloc(2 * n_cfg + 1, sizeof(*kv));
    char **owned = calloc(n_cfg + 1, sizeof(*owned));
    if (!kv || !owned) abort();
    int rc = CLI_OK;
    for (size_t i = 0; i < n_cfg && rc == CLI_OK; i++) {
        char *eq = strchr(cfg[i], '=');
        if (!eq || eq == cfg[i]) {
            rc = cli_usage_error(v, "Invalid topic config: all configs must be in the format \"key=val\".");
            break;
        }
        owned[i] = strndup(cfg[i], (size_t)(eq - cfg[i]));
        kv[2 * i] = owned[i], kv[2 * i + 1] = eq + 1;
    }
    gr_admin_result_t *res = NULL;
    if (rc == CLI_OK) {
        gr_err_t err =
            gr_admin_create_topics(a, &topic, 1, (int32_t)cli_int(v, "partitions", -1),
                                   (int16_t)cli_int(v, "replication-factor", -1), kv, n_cfg, 0, cli_timeout(v), &res);
        if (err == GR_ERR_TOPIC_ALREADY_EXISTS && cli_has(v, "if-not-exists"))
            rc = CLI_OK;
        else if (err && res && gr_admin_result_str(res, 0, "error_message"))
            rc = cli_fail("%s", gr_admin_result_str(res, 0, "error_message"));
        else if (err)
            rc = cli_fail("%s", gr_admin_last_error(a));
        else
            printf("Created topic %s.\n", topic);
    }
    gr_admin_result_destroy(res);
    for (size_t i = 0; i < n_cfg; i++) free(owned[i]);
    free(owned);
    free(kv);
    return rc;
}

/* Which topics --topic / --topic-id / --exclude-internal select. */
typedef struct sel {
    const char *topic, *topic_id;
    bool has_re, exclude_internal;
    regex_t re;
} sel_t;

/* Compile --topic as Kafka's include list: ',' separates alternatives, blanks and
 * surrounding quotes are dropped, and the whole name must match. */
static int sel_init(const cli_vals_t *v, sel_t *s) {
    memset(s, 0, sizeof(*s));
    s->topic = cli_str(v, "topic");
    s->topic_id = cli_str(v, "topic-id");
    s->exclude_internal = cli_has(v, "exclude-internal");
    if (!s->topic || s->topic_id) return 0;
    size_t len = strlen(s->topic);
    char *pat = malloc(len + 5), *o = pat;
    if (!pat) abort();
    const char *p = s->topic, *e = s->topic + len;
    while (p < e && (*p == '"' || *p == '\'')) p++;
    while (e > p && (e[-1] == '"' || e[-1] == '\'')) e--;
    *o++ = '^', *o++ = '(';
    for (; p < e; p++)
        if (*p != ' ') *o++ = *p == ',' ? '|' : *p;
    *o++ = ')', *o++ = '$', *o = 0;
    int rc = regcomp(&s->re, pat, REG_EXTENDED | REG_NOSUB);
    free(pat);
    if (rc) {
        char why[256];
        regerror(rc, &s->re, why, sizeof(why));
        return cli_usage_error(v, "Invalid topic pattern '%s': %s", s->topic, why);
    }
    s->has_re = true;
    return 0;
}

static void sel_free(sel_t *s) {
    if (s->has_re) regfree(&s->re);
}

static bool selected(const sel_t *s, const gr_admin_result_t *res, size_t r) {
    if (s->exclude_internal && gr_admin_result_int(res, r, "internal", 0)) return false;
    if (s->topic_id) {
        const char *id = gr_admin_result_str(res, r, "topic_id");
        return id && !strcmp(id, s->topic_id);
    }
    return !s->has_re || regexec(&s->re, gr_admin_result_str(res, r, "topic"), 0, NULL, 0) == 0;
}

/* Every topic of the cluster, one row per partition; NULL after printing why. */
static gr_admin_result_t *describe_all(const cli_vals_t *v, gr_admin_t *a) {
    gr_admin_result_t *res = NULL;
    if (gr_admin_describe_topics(a, NULL, 0, cli_timeout(v), &res) != GR_ERR_NONE) {
        cli_fail("%s", gr_admin_last_error(a));
        gr_admin_result_destroy(res);
        return NULL;
    }
    return res;
}

/* The end of the rows of the topic whose first row is first. */
static size_t topic_end(const gr_admin_result_t *res, size_t first) {
    size_t rows = gr_admin_result_rows(res), end = first + 1;
    const char *name = gr_admin_result_str(res, first, "topic");
    while (end < rows && !strcmp(name, gr_admin_result_str(res, end, "topic"))) end++;
    return end;
}

/* Kafka's "does not exist" for a selection that matched nothing (none with --if-exists). */
static int none_selected(const cli_vals_t *v, const sel_t *s) {
    if (cli_has(v, "if-exists")) return CLI_OK;
    if (s->topic_id) return cli_fail("TopicId '%s' does not exist as expected", s->topic_id);
    return cli_fail("Topic '%s' does not exist as expected", s->topic);
}

static int list(const cli_vals_t *v, gr_admin_t *a, const sel_t *s) {
    gr_admin_result_t *res = describe_all(v, a);
    if (!res) return CLI_FAIL;
    static const cli_col_t cols[] = {{"TOPIC", "topic", 0, CLI_TEXT}};
    cli_table_t t;
    cli_table_init(&t, cols, 1);
    for (size_t r = 0; r < gr_admin_result_rows(res); r = topic_end(res, r)) {
        const char *name = gr_admin_result_str(res, r, "topic");
        if (selected(s, res, r)) cli_table_add(&t, &name);
    }
    cli_table_sort(&t, (const size_t[]){0}, 1);
    if (cli_json(v)) {
        cli_table_print(&t, true, false);
    } else {
        for (size_t r = 0; r < t.rows; r++) puts(t.cells[r]);
    }
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return CLI_OK;
}

/* "k=v,k2=v2" of the dynamic (topic-level) configs of topic, malloc'd; *min_isr gets
 * the effective min.insync.replicas (-1 if unknown). */
static char *dynamic_configs(gr_admin_t *a, const char *topic, int timeout, int64_t *min_isr) {
    gr_admin_result_t *res = NULL;
    size_t len = 0, cap = 64;
    char *s = calloc(1, cap);
    if (!s) abort();
    *min_isr = -1;
    if (gr_admin_describe_configs(a, GR_RESOURCE_TOPIC, topic, NULL, 0, timeout, &res) == GR_ERR_NONE) {
        for (size_t r = 0; r < gr_admin_result_rows(res); r++) {
            const char *k = gr_admin_result_str(res, r, "name"), *val = gr_admin_result_str(res, r, "value");
            if (!strcmp(k, "min.insync.replicas")) *min_isr = gr_admin_result_int(res, r, "value", -1);
            if (gr_admin_result_int(res, r, "source", 0) != 1) continue;
            size_t need = len + strlen(k) + (val ? strlen(val) : 4) + 3;
            if (need > cap) {
                cap = need * 2;
                s = realloc(s, cap);
                if (!s) abort();
            }
            len += (size_t)snprintf(s + len, cap - len, "%s%s=%s", len ? "," : "", k, val ? val : "null");
        }
    }
    gr_admin_result_destroy(res);
    return s;
}

static size_t count_ids(const char *list) {
    size_t n = list && *list ? 1 : 0;
    for (const char *p = list; p && *p; p++) n += *p == ',';
    return n;
}

/* The partition filters of --describe (Kafka's DescribeOptions). */
typedef struct filt {
    bool configs;    /* print the topic line (no partition filter given) */
    bool partitions; /* print partition lines (not --topics-with-overrides) */
    bool overrides, under_rep, unavailable, under_min, at_min;
} filt_t;

static filt_t filt_init(const cli_vals_t *v) {
    filt_t f = {.overrides = cli_has(v, "topics-with-overrides"),
                .under_rep = cli_has(v, "under-replicated-partitions"),
                .unavailable = cli_has(v, "unavailable-partitions"),
                .under_min = cli_has(v, "under-min-isr-partitions"),
                .at_min = cli_has(v, "at-min-isr-partitions")};
    f.configs = !f.under_rep && !f.unavailable && !f.under_min && !f.at_min;
    f.partitions = !f.overrides;
    return f;
}

static bool print_partition(const filt_t *f, const gr_admin_result_t *res, size_t r, int64_t min_isr) {
    if (f->configs) return true;
    size_t isr = count_ids(gr_admin_result_str(res, r, "isr"));
    size_t reps = count_ids(gr_admin_result_str(res, r, "replicas"));
    bool leader = gr_admin_result_int(res, r, "leader", -1) >= 0;
    if (f->under_rep && isr < reps) return true;
    if (f->unavailable && !leader) return true;
    if (f->under_min && (!leader || (min_isr >= 0 && isr < (size_t)min_isr))) return true;
    return f->at_min && min_isr >= 0 && isr == (size_t)min_isr;
}

static void describe_line(const gr_admin_result_t *res, size_t r) {
    const char *isr = gr_admin_result_str(res, r, "isr"), *rep = gr_admin_result_str(res, r, "replicas");
    printf("\tTopic: %s\tPartition: %s\tLeader: %s\tReplicas: %s\tIsr: %s\tElr: \tLastKnownElr: \n",
           gr_admin_result_str(res, r, "topic"), gr_admin_result_str(res, r, "partition"),
           gr_admin_result_int(res, r, "leader", -1) < 0 ? "none" : gr_admin_result_str(res, r, "leader"),
           rep ? rep : "", isr ? isr : "");
}

static const cli_col_t describe_cols[] = {
    {"TOPIC", "topic", 0, CLI_TEXT},           {"TOPIC-ID", "topic_id", 0, CLI_TEXT},
    {"PARTITION", "partition", 0, CLI_INT},    {"LEADER", "leader", 0, CLI_INT},
    {"REPLICAS", "replicas", 0, CLI_INT_LIST}, {"ISR", "isr", 0, CLI_INT_LIST},
    {"CONFIGS", "configs", 0, CLI_TEXT},
};

static int describe(const cli_vals_t *v, gr_admin_t *a, const sel_t *s) {
    gr_admin_result_t *res = describe_all(v, a);
    if (!res) return CLI_FAIL;
    bool json = cli_json(v), any = false;
    filt_t f = filt_init(v);
    cli_table_t t;
    cli_table_init(&t, describe_cols, 7);
    size_t rows = gr_admin_result_rows(res);
    /* Topics in name order, as Kafka prints them. */
    size_t *firsts = malloc((rows ? rows : 1) * sizeof(*firsts)), nt = 0;
    if (!firsts) abort();
    for (size_t r = 0; r < rows; r = topic_end(res, r))
        if (selected(s, res, r)) firsts[nt++] = r;
    for (size_t i = 1; i < nt; i++)
        for (size_t j = i; j > 0 && strcmp(gr_admin_result_str(res, firsts[j - 1], "topic"),
                                           gr_admin_result_str(res, firsts[j], "topic")) > 0;
             j--) {
            size_t x = firsts[j];
            firsts[j] = firsts[j - 1], firsts[j - 1] = x;
        }
    for (size_t i = 0; i < nt; i++) {
        size_t first = firsts[i], end = topic_end(res, first);
        const char *name = gr_admin_result_str(res, first, "topic"), *id = gr_admin_result_str(res, first, "topic_id");
        any = true;
        int64_t min_isr;
        char *cfg = dynamic_configs(a, name, cli_timeout(v), &min_isr);
        bool show_topic = f.configs && (!f.overrides || *cfg);
        if (!json && show_topic)
            printf("Topic: %s\tTopicId: %s\tPartitionCount: %zu\tReplicationFactor: %zu\tConfigs: %s\n", name,
                   id ? id : "", end - first, count_ids(gr_admin_result_str(res, first, "replicas")), cfg);
        for (size_t r = first; f.partitions && r < end; r++) {
            if (!print_partition(&f, res, r, min_isr)) continue;
            if (!json) {
                describe_line(res, r);
                continue;
            }
            const char *cells[7] = {name,
                                    id,
                                    gr_admin_result_str(res, r, "partition"),
                                    gr_admin_result_str(res, r, "leader"),
                                    gr_admin_result_str(res, r, "replicas"),
                                    gr_admin_result_str(res, r, "isr"),
                                    cfg};
            cli_table_add(&t, cells);
        }
        if (json && !f.partitions && show_topic) {
            const char *cells[7] = {name, id, NULL, NULL, NULL, NULL, cfg};
            cli_table_add(&t, cells);
        }
        free(cfg);
    }
    free(firsts);
    if (json) cli_table_print(&t, true, false);
    cli_table_free(&t);
    gr_admin_result_destroy(res);
    return any || (!s->topic && !s->topic_id) ? CLI_OK : none_selected(v, s);
}

static int alter_or_delete(const cli_vals_t *v, gr_admin_t *a, const sel_t *s, bool del) {
    if (!del && !cli_has(v, "partitions")) return cli_usage_error(v, "--alter needs --partitions");
    gr_admin_result_t *all = describe_all(v, a);
    if (!all) return CLI_FAIL;
    size_t rows = gr_admin_result_rows(all), n = 0;
    const char **names = malloc((rows ? rows : 1) * sizeof(*names));
    if (!names) abort();
    for (size_t r = 0; r < rows; r = topic_end(all, r))
        if (selected(s, all, r)) names[n++] = gr_admin_result_str(all, r, "topic");
    int rc = CLI_OK;
    if (!n) {
        rc = none_selected(v, s);
    } else {
        gr_admin_result_t *res = NULL;
        gr_err_t err = del ? gr_admin_delete_topics(a, names, n, cli_timeout(v), &res)
                           : gr_admin_create_partitions(a, names, n, (int32_t)cli_int(v, "partitions", 0), 0,
                                                        cli_timeout(v), &res);
        for (size_t r = 0; err && res && r < gr_admin_result_rows(res); r++) {
            if (!gr_admin_result_error(res, r)) continue;
            const char *m = gr_admin_result_str(res, r, "error_message");
            rc = cli_fail("%s", m ? m : gr_err_str(gr_admin_result_error(res, r)));
        }
        if (err && !res) rc = cli_fail("%s", gr_admin_last_error(a));
        gr_admin_result_destroy(res);
    }
    free(names);
    gr_admin_result_destroy(all);
    return rc;
}

int cli_topics(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor topics", "Create, delete, describe, or change a topic.", opts, argc, argv);
    if (rc) goto out;
    static const char *const actions[] = {"create", "list", "describe", "alter", "delete", NULL};
    int act = cli_one_of(&v, actions, true);
    const char *topic = cli_str(&v, "topic");
    if (act < 0) {
        rc = CLI_USAGE;
        goto out;
    }
    if (!topic && (act == 0 || act == 3 || act == 4)) {
        rc = cli_usage_error(&v, "--%s needs --topic", actions[act]);
        goto out;
    }
    if ((act == 0 || act == 3) && cli_has(&v, "partitions") && cli_int(&v, "partitions", 1) < 1) {
        rc = cli_usage_error(&v, "The partitions must be greater than 0");
        goto out;
    }
    if (act == 0 && cli_has(&v, "replication-factor") &&
        (cli_int(&v, "replication-factor", 1) < 1 || cli_int(&v, "replication-factor", 1) > 32767)) {
        rc = cli_usage_error(&v, "The replication factor must be between 1 and 32767 inclusive");
        goto out;
    }
    if (cli_has(&v, "topic-id") && act != 2) {
        rc = cli_usage_error(&v, "--topic-id is only valid with --describe");
        goto out;
    }
    static const char *const describe_only[] = {"topics-with-overrides",  "under-replicated-partitions",
                                                "unavailable-partitions", "under-min-isr-partitions",
                                                "at-min-isr-partitions",  NULL};
    for (int i = 0; describe_only[i]; i++)
        if (act != 2 && cli_has(&v, describe_only[i])) {
            rc = cli_usage_error(&v, "--%s is only valid with --describe", describe_only[i]);
            goto out;
        }
    sel_t sel;
    (void)cli_json(&v);
    if (act != 0 && (rc = sel_init(&v, &sel))) goto out;
    gr_admin_t *a = cli_admin(&v);
    if (!a) {
        rc = CLI_FAIL;
    } else {
        switch (act) {
        case 0: rc = create(&v, a, topic); break;
        case 1: rc = list(&v, a, &sel); break;
        case 2: rc = describe(&v, a, &sel); break;
        default: rc = alter_or_delete(&v, a, &sel, act == 4); break;
        }
        gr_admin_destroy(a);
    }
    if (act != 0) sel_free(&sel);
out:
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
