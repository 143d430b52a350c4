/* gregor consumer-groups --reset-offsets, as kafka-consumer-groups 4.4.0:
 *   (--group g... | --all-groups) (--topic t[:p,..]... | --all-topics | --from-file F)
 *   (--to-earliest | --to-latest | --to-current | --to-offset N | --shift-by N |
 *    --to-datetime D | --by-duration P | --from-file F) [--dry-run (default) | --execute] [--export]
 * Only an inactive group (Empty, Dead or unknown) is reset; otherwise Kafka's "Assignments
 * can only be reset if the group ... is inactive" error. Offsets outside the log are
 * clamped to it (--to-offset, --shift-by, --from-file). Prints GROUP TOPIC PARTITION
 * NEW-OFFSET (or the CSV of --export) in the order of Kafka's tool (its HashMap order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "../base/duration.h" /* java.time.Duration.parse; pure, compiled into the CLI */
#include "cg_plan.h"
#include "consumer_groups.h"
#include "gregor/consumer.h"

typedef struct reset_ctx {
    const cli_vals_t *v;
    gr_admin_t *a;
    gr_consumer_t *c;
    cg_entry_t *plan; /* --from-file */
    size_t n_plan;
} reset_ctx_t;

/* The partitions to reset (topic strings owned by the entries), before offsets. */
typedef struct tplist {
    cg_entry_t *v;
    size_t n, cap;
} tplist_t;

static void tp_add(tplist_t *l, const char *group, const char *topic, int32_t p, int64_t off) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        if (!l->v) abort();
    }
    l->v[l->n++] = (cg_entry_t){group ? strdup(group) : NULL, strdup(topic), p, off};
}

static int scope(reset_ctx_t *x, const char *group, tplist_t *l) {
    const cli_vals_t *v = x->v;
    if (cli_has(v, "all-topics")) {
        gr_admin_result_t *o = NULL;
        if (gr_admin_list_consumer_group_offsets(x->a, group, NULL, 0, cg_timeout(v), &o) != GR_ERR_NONE && !o)
            return cli_fail("%s", gr_admin_last_error(x->a));
        for (size_t r = 0; r < gr_admin_result_rows(o); r++)
            if (gr_admin_result_str(o, r, "topic") && gr_admin_result_int(o, r, "offset", -1) >= 0)
                tp_add(l, NULL, gr_admin_result_str(o, r, "topic"), (int32_t)gr_admin_result_int(o, r, "partition", 0),
                       0);
        gr_admin_result_destroy(o);
        return CLI_OK;
    }
    size_t nt;
    const char **topics = cli_all(v, "topic", &nt);
    char topic[512], err[512];
    int32_t parts[1024];
    for (int pass = 0; pass < 2; pass++) /* Kafka lists topic:partitions first, then whole topics */
        for (size_t i = 0; i < nt; i++) {
            size_t n;
            bool whole;
            if (!cg_parse_topic_arg(topics[i], topic, sizeof(topic), parts, 1024, &n, &whole, err, sizeof(err)))
                return cli_usage_error(v, "%s", err);
            if (whole != (pass == 1)) continue;
            int32_t count = 0;
            if (whole && gr_consumer_partition_count(x->c, topic, cg_timeout(v), &count) != GR_ERR_NONE)
                return cli_fail("%s", gr_consumer_last_error(x->c));
            for (int32_t k = 0; k < (whole ? count : (int32_t)n); k++) tp_add(l, NULL, topic, whole ? k : parts[k], 0);
        }
    return CLI_OK;
}

static gr_err_t query(reset_ctx_t *x, const cg_entry_t *e, int64_t spec, int64_t *off) {
    return gr_consumer_query_offset(x->c, e->topic, e->partition, spec, cg_timeout(x->v), off);
}

/* Clamp a requested offset to [log start, log end] as Kafka's checkOffsetsRange. */
static gr_err_t clamp(reset_ctx_t *x, const cg_entry_t *e, int64_t *off) {
    int64_t lo, hi;
    gr_err_t err = query(x, e, GR_OFFSET_END, &hi);
    if (!err) err = query(x, e, GR_OFFSET_BEGINNING, &lo);
    if (!err) *off = *off > hi ? hi : *off < lo ? lo : *off;
    return err;
}

static int64_t committed(const gr_admin_result_t *o, const cg_entry_t *e) {
    for (size_t r = 0; r < gr_admin_result_rows(o); r++) {
        const char *t = gr_admin_result_str(o, r, "topic");
        if (t && !strcmp(t, e->topic) && gr_admin_result_int(o, r, "partition", -1) == e->partition)
            return gr_admin_result_int(o, r, "offset", -1);
    }
    return -1;
}

static int64_t now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The timestamp of --to-datetime or --by-duration (usage already checked). */
static int64_t target_time(const cli_vals_t *v) {
    int64_t ms = 0;
    char err[256];
    if (cli_has(v, "to-datetime")) {
        cg_parse_datetime(cli_str(v, "to-datetime"), &ms, err, sizeof(err));
        return ms;
    }
    gr_duration_t d;
    gr_duration_parse(cli_str(v, "by-duration"), &d);
    return now_ms() - gr_duration_to_ms(d);
}

/* The new offset of one partition; false after printing why. */
static bool new_offset(reset_ctx_t *x, const gr_admin_result_t *o, cg_entry_t *e) {
    const cli_vals_t *v = x->v;
    gr_err_t err = GR_ERR_NONE;
    int64_t cur = committed(o, e);
    if (cli_has(v, "to-earliest") || cli_has(v, "to-latest")) {
        err = query(x, e, cli_has(v, "to-earliest") ? GR_OFFSET_BEGINNING : GR_OFFSET_END, &e->offset);
    } else if (cli_has(v, "to-offset") || cli_has(v, "shift-by") || cli_has(v, "from-file")) {
        if (cli_has(v, "shift-by") && cur < 0) {
            cli_usage_error(v, "Cannot shift offset for partition %s-%d since there is no current committed offset",
                            e->topic, e->partition);
            return false;
        }
        if (cli_has(v, "to-offset")) e->offset = cli_int(v, "to-offset", 0);
        if (cli_has(v, "shift-by")) e->offset = cur + cli_int(v, "shift-by", 0);
        err = clamp(x, e, &e->offset);
    } else if (cli_has(v, "to-datetime") || cli_has(v, "by-duration")) {
        err = query(x, e, target_time(v), &e->offset);
        if (!err && e->offset < 0) {
            printf("\nWarn: Partition %d from topic %s is empty. Falling back to latest known offset.\n", e->partition,
                   e->topic);
            err = query(x, e, GR_OFFSET_END, &e->offset);
        }
    } else { /* --to-current */
        e->offset = cur;
        if (cur < 0) err = query(x, e, GR_OFFSET_END, &e->offset);
    }
    if (err) cli_fail("%s", gr_consumer_last_error(x->c));
    return !err;
}

static int apply(reset_ctx_t *x, const char *group, const tplist_t *l) {
    const char **topics = malloc((l->n + 1) * sizeof(char *));
    int32_t *parts = malloc((l->n + 1) * sizeof(int32_t));
    int64_t *offs = malloc((l->n + 1) * sizeof(int64_t));
    if (!topics || !parts || !offs) abort();
    for (size_t i = 0; i < l->n; i++) topics[i] = l->v[i].topic, parts[i] = l->v[i].partition, offs[i] = l->v[i].offset;
    gr_admin_result_t *res = NULL;
    int rc = CLI_OK;
    if (l->n && gr_admin_alter_consumer_group_offsets(x->a, group, topics, parts, offs, l->n, cg_timeout(x->v), &res)) {
        int code = res ? (int)gr_admin_result_error(res, 0) : 0;
        rc = code ? (cg_print_error("Executing consumer group command failed due to %s", cg_exception_message(code)),
                     CLI_FAIL)
                  : cli_fail("%s", gr_admin_last_error(x->a));
    }
    gr_admin_result_destroy(res);
    free(topics), free(parts), free(offs);
    return rc;
}

/* Plan (and with --execute apply) the reset of one inactive group into out. */
static int reset_group(reset_ctx_t *x, const char *group, tplist_t *out) {
    tplist_t l = {0};
    int rc = CLI_OK;
    if (cli_has(x->v, "from-file")) {
        bool found = false;
        for (size_t i = 0; i < x->n_plan; i++) {
            const char *g = x->plan[i].group ? x->plan[i].group : cli_str(x->v, "group");
            if (g && !strcmp(g, group))
                found = true, tp_add(&l, NULL, x->plan[i].topic, x->plan[i].partition, x->plan[i].offset);
        }
        if (!found) cg_print_error("No reset plan for group %s found.", group);
    } else {
        rc = scope(x, group, &l);
    }
    gr_admin_result_t *o = NULL;
    if (rc == CLI_OK &&
        gr_admin_list_consumer_group_offsets(x->a, group, NULL, 0, cg_timeout(x->v), &o) != GR_ERR_NONE && !o)
        rc = cli_fail("%s", gr_admin_last_error(x->a));
    for (size_t i = 0; rc == CLI_OK && i < l.n; i++)
        if (!new_offset(x, o, &l.v[i])) rc = CLI_FAIL;
    if (rc == CLI_OK && cli_has(x->v, "execute")) rc = apply(x, group, &l);
    for (size_t i = 0; i < l.n; i++) tp_add(out, group, l.v[i].topic, l.v[i].partition, l.v[i].offset);
    gr_admin_result_destroy(o);
    cg_entries_free(l.v, l.n);
    return rc;
}

/* Kafka's order: groups by String hash, partitions by TopicPartition hash (HashMaps). */
static void print_plan(const cli_vals_t *v, const char *const *groups, size_t ng, const tplist_t *all) {
    int32_t *gh = malloc((ng + 1) * sizeof(int32_t)), *th = malloc((all->n + 1) * sizeof(int32_t));
    size_t *gi = malloc((ng + 1) * sizeof(size_t)), *ti = malloc((all->n + 1) * sizeof(size_t));
    if (!gh || !th || !gi || !ti) abort();
    for (size_t i = 0; i < ng; i++) gh[i] = cg_java_string_hash(groups[i]);
    cg_java_hash_order(gh, ng, gi);
    int wg = 15, wt = 15;
    for (size_t i = 0; i < ng; i++) wg = wg > (int)strlen(groups[i]) ? wg : (int)strlen(groups[i]);
    for (size_t i = 0; i < all->n; i++) wt = wt > (int)strlen(all->v[i].topic) ? wt : (int)strlen(all->v[i].topic);
    bool exp = cli_has(v, "export"), json = cli_json(v),
         single = cli_all(v, "group", &(size_t){0}) && !cli_has(v, "all-groups");
    size_t ngroups_opt;
    cli_all(v, "group", &ngroups_opt);
    single = ngroups_opt == 1;
    static const cli_col_t cols[] = {{"GROUP", "group", 0, CLI_TEXT},
                                     {"TOPIC", "topic", 0, CLI_TEXT},
                                     {"PARTITION", "partition", 0, CLI_INT},
                                     {"NEW-OFFSET", "new_offset", 0, CLI_INT}};
    cli_table_t t;
    cli_table_init(&t, cols, 4);
    if (!exp && !json && ng) printf("\n%-*s %-*s %-10s %s", wg, "GROUP", wt, "TOPIC", "PARTITION", "NEW-OFFSET");
    for (size_t k = 0; k < ng; k++) {
        const char *g = groups[gi[k]];
        size_t n = 0;
        for (size_t i = 0; i < all->n; i++)
            if (!strcmp(all->v[i].group, g))
                ti[n] = i, th[n] = cg_java_tp_hash(all->v[i].topic, all->v[i].partition), n++;
        size_t *ord = malloc((n + 1) * sizeof(size_t));
        if (!ord) abort();
        cg_java_hash_order(th, n, ord);
        for (size_t j = 0; j < n; j++) {
            const cg_entry_t *e = &all->v[ti[ord[j]]];
            char pb[16], ob[24], line[2048];
            snprintf(pb, sizeof(pb), "%d", e->partition);
            snprintf(ob, sizeof(ob), "%lld", (long long)e->offset);
            if (json) {
                const char *c[4] = {g, e->topic, pb, ob};
                cli_table_add(&t, c);
            } else if (exp) {
                size_t len = 0;
                line[0] = 0;
                if (!single)
                    cg_csv_field(line, sizeof(line), &len, g), snprintf(line + len, sizeof(line) - len, ","), len++;
                cg_csv_field(line, sizeof(line), &len, e->topic);
                printf("%s,%s,%s\n", line, pb, ob);
            } else {
                printf("\n%-*s %-*s %-10s %s", wg, g, wt, e->topic, pb, ob);
            }
        }
        free(ord);
    }
    if (json)
        cli_table_print(&t, true, false);
    else
        putchar('\n');
    cli_table_free(&t);
    free(gh), free(th), free(gi), free(ti);
}

static int check_reset(const cli_vals_t *v) {
    static const char *const scen[] = {"to-offset",   "to-earliest", "to-latest", "to-current", "to-datetime",
                                       "by-duration", "shift-by",    "from-file", NULL};
    int n = 0;
    for (int i = 0; scen[i]; i++) n += cli_has(v, scen[i]);
    if (n != 1)
        return cli_usage_error(v, "Option '[reset-offsets]' requires one of the following scenarios: [to-offset, "
                                  "to-earliest, to-latest, to-current, to-datetime, by-duration, shift-by, from-file]");
    if (!cli_has(v, "from-file") && cli_has(v, "all-topics") == cli_has(v, "topic"))
        return cli_usage_error(v, "One of the reset scopes should be defined: --all-topics, --topic.");
    char err[256];
    int64_t ms;
    gr_duration_t d;
    if (cli_has(v, "to-datetime") && !cg_parse_datetime(cli_str(v, "to-datetime"), &ms, err, sizeof(err)))
        return cli_usage_error(v, "%s", err);
    if (cli_has(v, "by-duration") && !gr_duration_parse(cli_str(v, "by-duration"), &d))
        return cli_usage_error(v, "Text cannot be parsed to a Duration: %s", cli_str(v, "by-duration"));
    if (cli_has(v, "to-offset")) (void)cli_int(v, "to-offset", 0);
    if (cli_has(v, "shift-by")) (void)cli_int(v, "shift-by", 0);
    return 0;
}

static int read_plan(reset_ctx_t *x) {
    const char *path = cli_str(x->v, "from-file");
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail("%s (No such file or directory)", path);
    char *buf = malloc(1 << 24);
    if (!buf) abort();
    size_t len = fread(buf, 1, (1 << 24) - 1, f);
    bool big = !feof(f);
    fclose(f);
    size_t ng;
    cli_all(x->v, "group", &ng);
    char err[512];
    int rc = CLI_OK;
    if (big)
        rc = cli_fail("%s: larger than 16 MiB", path);
    else if (!cg_parse_plan(buf, len, ng == 1, 1000000, &x->plan, &x->n_plan, err, sizeof(err)))
        rc = cli_fail("%s: %s", path, err);
    free(buf);
    return rc;
}

/* Whether a group may be reset; prints Kafka's refusal otherwise. */
static bool inactive(const gr_admin_result_t *d, const char *group) {
    for (size_t r = 0; r < gr_admin_result_rows(d); r++) {
        if (strcmp(gr_admin_result_str(d, r, "group"), group)) continue;
        if (gr_admin_result_error(d, r) == GR_ERR_GROUP_ID_NOT_FOUND) return true;
        const char *s = gr_admin_result_str(d, r, "state");
        if (s && (!strcmp(s, "Empty") || !strcmp(s, "Dead"))) return true;
        cg_print_error("Assignments can only be reset if the group '%s' is inactive, but the current state is %s.",
                       group, s ? s : "Unknown");
        return false;
    }
    return true;
}

int cg_reset_offsets(const cli_vals_t *v, gr_admin_t *a) {
    int rc = check_reset(v);
    if (rc) return rc;
    if (!cli_has(v, "dry-run") && !cli_has(v, "execute"))
        fputs("WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
              "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
              "explicitly if you are scripting this command and want to keep the current default behavior without "
              "prompting.\n",
              stderr);
    reset_ctx_t x = {v, a, NULL, NULL, 0};
    if (cli_has(v, "from-file") && (rc = read_plan(&x))) return rc;
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, NULL, 0);
    char errstr[512];
    if (!conf || gr_consumer_new(conf, &x.c, errstr, sizeof(errstr)) != GR_ERR_NONE) {
        gr_conf_destroy(conf);
        cg_entries_free(x.plan, x.n_plan);
        return conf ? cli_fail("%s", errstr) : CLI_FAIL;
    }
    gr_conf_destroy(conf);
    const char **groups;
    gr_admin_result_t *lres, *d = NULL;
    size_t n = cg_groups(v, a, &groups, &lres);
    rc = n == (size_t)-1 ? CLI_FAIL : CLI_OK;
    if (rc == CLI_OK && n && gr_admin_describe_consumer_groups(a, groups, n, cg_timeout(v), &d) != GR_ERR_NONE && !d)
        rc = cli_fail("%s", gr_admin_last_error(a));
    tplist_t all = {0};
    bool refused = false;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        if (inactive(d, groups[i]))
            rc = reset_group(&x, groups[i], &all);
        else
            refused = true;
    }
    if (rc == CLI_OK) print_plan(v, groups, n, &all);
    cg_entries_free(all.v, all.n);
    cg_entries_free(x.plan, x.n_plan);
    gr_admin_result_destroy(d);
    gr_admin_result_destroy(lres);
    free(groups);
    gr_consumer_destroy(x.c);
    return rc == CLI_OK && refused ? CLI_FAIL : rc;
}
