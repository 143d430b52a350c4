/* gregor consume: kafka-console-consumer.sh over libgregor's consumer (gregor/consumer.h).
 * Without a group: every partition of --topic (or --partition), or of every topic
 * matching --include, from the end by default, the beginning with --from-beginning, or
 * --offset earliest|latest|N (with --partition, as in Kafka); nothing is committed.
 * With --group G (or group.id in the consumer properties): a consumer-group member
 * subscribed to --topic or to the --include regex, starting from the group's committed
 * offsets, else by auto.offset.reset (--from-beginning: earliest, else latest, as
 * Kafka's tool sets it), committing automatically and when it stops; it leaves the
 * group on exit (--max-messages, --timeout-ms, SIGINT/SIGTERM). --group-protocol
 * classic|consumer sets group.protocol.
 * Records are printed by cli_fmt.c as Kafka's DefaultMessageFormatter prints them.
 * Stops after --max-messages, after --timeout-ms without a record, or on
 * SIGINT/SIGTERM, and prints "Processed a total of N messages" on stderr. */
#include <inttypes.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gregor/consumer.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"topic", "String: topic", "The topic to consume (or --include)."},
    {"include", "String: regex",
     "Consume every topic whose whole name matches this POSIX extended regex (',' separates alternatives; internal "
     "topics excluded)."},
    {"partition", "Integer: partition", "The partition to consume (default: all partitions)."},
    {"offset", "String: consume offset",
     "earliest, latest or a non-negative offset (needs --partition). Default latest."},
    {"from-beginning", NULL, "Start with the earliest message instead of the latest."},
    {"from-timestamp", "Long: ms since the epoch", "Start at the first record at or after this timestamp."},
    {"max-messages", "Integer: num_messages", "Exit after this many messages."},
    {"timeout-ms", "Long: timeout_ms", "Exit if no message is available for this long."},
    {"property", "String: prop",
     "Formatter properties: print.timestamp, print.partition, print.offset, print.headers, print.key, print.value, "
     "key.separator, line.separator, headers.separator, null.literal."},
    {"formatter-property", "String: prop", "Same as --property."},
    {"formatter-config", "String: config file", "Formatter properties file."},
    {"command-property", "String: consumer_prop", "A consumer property k=v (repeatable)."},
    {"consumer-property", "String: consumer_prop", "Same as --command-property."},
    {"command-config", "String: config file", "Consumer properties file."},
    {"consumer.config", "String: config file", "Same as --command-config."},
    {"isolation-level", "String", "read_committed or read_uncommitted (default)."},
    {"skip-message-on-error", NULL,
     "Accepted for compatibility: printing a record cannot fail on a format error here."},
    {"group", "String: consumer group id", "The consumer group id of the consumer."},
    {"group-protocol", "String: classic|consumer",
     "The group protocol (group.protocol): classic (default, as Kafka's clients) or consumer (KIP-848)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig, stop = 1; }

static bool msg_header(const void *rec, size_t i, const char **k, size_t *kl, const void **v, size_t *vl) {
    return gr_consumer_msg_header(rec, i, k, kl, v, vl) == GR_ERR_NONE;
}

static bool print_msg(const cli_fmt_t *f, const gr_consumer_msg_t *m) {
    cli_rec_t r = {.partition = gr_consumer_msg_partition(m),
                   .offset = gr_consumer_msg_offset(m),
                   .delivery = -1,
                   .n_headers = gr_consumer_msg_header_count(m),
                   .rec = m,
                   .header = msg_header};
    r.ts = gr_consumer_msg_timestamp(m, &r.ts_type);
    r.key = gr_consumer_msg_key(m, &r.key_len);
    r.value = gr_consumer_msg_value(m, &r.value_len);
    return cli_fmt_write(f, &r);
}

/* The topics matching --include (Kafka's include-list syntax), sorted; NULL after printing why. */
static gr_admin_result_t *include_topics(const cli_vals_t *v, const char *pat, const char ***names, size_t *n) {
    char *re_s = malloc(strlen(pat) + 5), *o = re_s;
    if (!re_s) abort();
    *o++ = '^', *o++ = '(';
    for (const char *p = pat; *p; p++)
        if (*p != ' ') *o++ = *p == ',' ? '|' : *p;
    *o++ = ')', *o++ = '$', *o = 0;
    regex_t re;
    int bad = regcomp(&re, re_s, REG_EXTENDED | REG_NOSUB);
    free(re_s);
    if (bad) {
        cli_usage_error(v, "Invalid --include pattern '%s'", pat);
        exit(CLI_USAGE);
    }
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    char err[512];
    gr_admin_t *a = NULL;
    gr_admin_result_t *res = NULL;
    if (gr_conf_set(conf, "bootstrap.servers", cli_str(v, "bootstrap-server"), err, sizeof(err)) ||
        gr_admin_new(conf, &a, err, sizeof(err))) {
        cli_fail("%s", err);
    } else if (gr_admin_describe_topics(a, NULL, 0, -1, &res) != GR_ERR_NONE) {
        cli_fail("%s", gr_admin_last_error(a));
        gr_admin_result_destroy(res);
        res = NULL;
    }
    gr_conf_destroy(conf);
    gr_admin_destroy(a);
    *n = 0;
    size_t rows = res ? gr_admin_result_rows(res) : 0;
    *names = malloc((rows ? rows : 1) * sizeof(**names));
    if (!*names) abort();
    for (size_t r = 0; r < rows; r++) {
        const char *t = gr_admin_result_str(res, r, "topic");
        if ((r && !strcmp(t, gr_admin_result_str(res, r - 1, "topic"))) || gr_admin_result_int(res, r, "internal", 0) ||
            regexec(&re, t, 0, NULL, 0))
            continue;
        (*names)[(*n)++] = t;
    }
    regfree(&re);
    return res;
}

/* The start of --partition / --offset / --from-beginning; -3 after a usage error. */
static int64_t start_offset(const cli_vals_t *v) {
    int32_t part = (int32_t)cli_int(v, "partition", GR_PARTITION_ALL);
    const char *off = cli_str(v, "offset");
    int64_t start = cli_has(v, "from-beginning") ? GR_OFFSET_BEGINNING : GR_OFFSET_END;
    if (off && part < 0) return cli_usage_error(v, "The partition is required when offset is specified."), -3;
    if (off && cli_has(v, "from-beginning"))
        return cli_usage_error(v, "Options from-beginning and offset cannot be specified together."), -3;
    if (off && !strcmp(off, "earliest"))
        start = GR_OFFSET_BEGINNING;
    else if (off && !strcmp(off, "latest"))
        start = GR_OFFSET_END;
    else if (off) {
        char *end;
        start = strtoll(off, &end, 10);
        if (!*off || *end || start < 0)
            return cli_usage_error(v,
                                   "The provided offset value '%s' is incorrect. Valid values are 'earliest', "
                                   "'latest', or a non-negative long.",
                                   off),
                   -3;
    }
    return start;
}

/* Assign one topic from the start options. */
static int assign(const cli_vals_t *v, gr_consumer_t *c, const char *topic, int64_t start) {
    int32_t part = (int32_t)cli_int(v, "partition", GR_PARTITION_ALL);
    gr_err_t err = cli_has(v, "from-timestamp")
                       ? gr_consumer_assign_timestamp(c, topic, part, cli_int(v, "from-timestamp", 0))
                       : gr_consumer_assign(c, topic, part, start);
    return err ? cli_fail("%s", gr_consumer_last_error(c)) : 0;
}

/* The group settings, as kafka-console-consumer makes them: one group id wherever it
 * is given, auto.offset.reset from --from-beginning unless set, no --partition. */
static int group_conf(const cli_vals_t *v, gr_conf_t *conf, bool *group) {
    const char *g = cli_str(v, "group"), *set = gr_conf_get(conf, "group.id");
    char err[512];
    if (g && *set && strcmp(g, set))
        return cli_usage_error(v,
                               "The group ids provided in different places (directly using '--group', via "
                               "'--consumer-property', or via '--consumer.config') do not match. Detected group "
                               "ids: '%s', '%s'",
                               g, set);
    if (g && gr_conf_set(conf, "group.id", g, err, sizeof(err))) return cli_fail("%s", err);
    *group = *gr_conf_get(conf, "group.id") != 0;
    if (!*group) return cli_has(v, "group-protocol") ? cli_usage_error(v, "--group-protocol needs --group") : CLI_OK;
    if (cli_has(v, "partition")) return cli_usage_error(v, "Options group and partition cannot be specified together.");
    if (cli_has(v, "from-timestamp")) return cli_usage_error(v, "--from-timestamp cannot be used with a group.");
    const char *reset = gr_conf_get(conf, "auto.offset.reset");
    bool explicit = false;
    size_t n1, n2;
    const char **p1 = cli_all(v, "consumer-property", &n1), **p2 = cli_all(v, "command-property", &n2);
    for (size_t i = 0; i < n1 + n2; i++)
        if (!strncmp(i < n1 ? p1[i] : p2[i - n1], "auto.offset.reset=", 18)) explicit = true;
    if (explicit && cli_has(v, "from-beginning") && strcmp(reset, "earliest")) {
        fprintf(stderr,
                "Can't simultaneously specify --from-beginning and 'auto.offset.reset=%s', please remove one "
                "option\n",
                reset);
        return CLI_FAIL;
    }
    if (!explicit)
        gr_conf_set(conf, "auto.offset.reset", cli_has(v, "from-beginning") ? "earliest" : "latest", NULL, 0);
    return CLI_OK;
}

static gr_consumer_t *make_consumer(const cli_vals_t *v, bool *group, int *rc) {
    size_t n1, n2;
    const char **p1 = cli_all(v, "consumer-property", &n1), **p2 = cli_all(v, "command-property", &n2);
    const char **props = calloc(n1 + n2 + 3, sizeof(*props));
    char iso[64];
    size_t k = 0;
    if (!props) abort();
    if (cli_str(v, "isolation-level")) {
        snprintf(iso, sizeof(iso), "isolation.level=%s", cli_str(v, "isolation-level"));
        props[k++] = iso;
    }
    for (size_t i = 0; i < n1; i++) props[k++] = p1[i];
    for (size_t i = 0; i < n2; i++) props[k++] = p2[i];
    char gp[64];
    if (cli_str(v, "group-protocol")) {
        snprintf(gp, sizeof(gp), "group.protocol=%s", cli_str(v, "group-protocol"));
        props = realloc(props, (k + 2) * sizeof(*props));
        if (!props) abort();
        props[k++] = gp;
    }
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, props, k);
    free(props);
    const char *file = cli_str(v, "consumer.config");
    char err[512];
    gr_consumer_t *c = NULL;
    if (conf && file && gr_conf_load_file(conf, file, err, sizeof(err)) != GR_ERR_NONE)
        cli_fail("%s", err);
    else if (conf && (*rc = group_conf(v, conf, group)) != CLI_OK)
        ;
    else if (conf && gr_consumer_new(conf, &c, err, sizeof(err)) != GR_ERR_NONE)
        cli_fail("%s", err);
    gr_conf_destroy(conf);
    return c;
}

static int consume_loop(const cli_vals_t *v, gr_consumer_t *c, const cli_fmt_t *f, uint64_t *count) {
    int64_t max = cli_int(v, "max-messages", -1), timeout = cli_int(v, "timeout-ms", -1), idle = 0;
    while (!stop && (max < 0 || *count < (uint64_t)max)) {
        const gr_consumer_msg_t *m = NULL;
        gr_err_t err = gr_consumer_poll(c, timeout >= 0 && timeout < 200 ? (int)timeout : 200, &m);
        if (err) return cli_fail("%s", gr_consumer_last_error(c));
        if (!m) {
            cli_progress("consumed", *count, false);
            if (timeout >= 0) {
                /* Count the idle time in whole polls of at most 200 ms. */
                idle += timeout < 200 ? timeout : 200;
                if (idle >= timeout) break;
            }
            continue;
        }
        idle = 0;
        if (!print_msg(f, m)) return cli_fail("Cannot write to standard output");
        (*count)++;
        cli_progress("consumed", *count, false);
    }
    return CLI_OK;
}

/* Join the group: --topic, or the --include list as one regex. */
static int subscribe(const cli_vals_t *v, gr_consumer_t *c, const char *topic) {
    gr_err_t err;
    if (topic) {
        int32_t parts; /* reach the cluster first (an unknown topic is just not assigned) */
        err = gr_consumer_partition_count(c, topic, -1, &parts);
        if (err && err != GR_ERR_UNKNOWN_TOPIC_OR_PARTITION) return cli_fail("%s", gr_consumer_last_error(c));
        err = gr_consumer_subscribe(c, &topic, 1);
    } else {
        const char *pat = cli_str(v, "include");
        char *re = malloc(strlen(pat) + 1), *o = re;
        if (!re) abort();
        for (const char *p = pat; *p; p++)
            if (*p != ' ') *o++ = *p == ',' ? '|' : *p;
        *o = 0;
        err = gr_consumer_subscribe_regex(c, re);
        free(re);
    }
    return err ? cli_fail("%s", gr_consumer_last_error(c)) : CLI_OK;
}

static int check_args(const cli_vals_t *v) {
    if (cli_has(v, "topic") == cli_has(v, "include"))
        return cli_usage_error(v, "Exactly one of --include/--topic is required.");
    if (cli_has(v, "include") && (cli_has(v, "partition") || cli_has(v, "offset")))
        return cli_usage_error(v, "--partition and --offset can only be used with --topic.");
    if (cli_has(v, "from-timestamp") && (cli_has(v, "from-beginning") || cli_has(v, "offset")))
        return cli_usage_error(v, "--from-timestamp cannot be used with --from-beginning or --offset.");
    return 0;
}

static int run(const cli_vals_t *v) {
    const char *topic = cli_str(v, "topic");
    cli_fmt_t f;
    char *fbuf = NULL;
    int rc = check_args(v);
    if (rc) return rc;
    int64_t start = start_offset(v);
    if (start == -3) return CLI_USAGE;
    if ((rc = cli_fmt_parse(v, &f, false, &fbuf))) {
        free(fbuf);
        return rc;
    }
    bool group = false;
    int mrc = CLI_FAIL;
    gr_consumer_t *c = make_consumer(v, &group, &mrc);
    if (!c) {
        free(fbuf);
        return mrc != CLI_OK ? mrc : CLI_FAIL;
    }
    gr_admin_result_t *tres = NULL;
    if (group) {
        rc = subscribe(v, c, topic);
    } else if (topic) {
        /* Reach the cluster first: poll would wait for it forever (an unknown topic is
         * left to poll, which reports it). */
        int32_t parts;
        gr_err_t err = gr_consumer_partition_count(c, topic, -1, &parts);
        if (err && err != GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)
            rc = cli_fail("%s", gr_consumer_last_error(c));
        else
            rc = assign(v, c, topic, start);
    } else {
        const char **names;
        size_t n;
        tres = include_topics(v, cli_str(v, "include"), &names, &n);
        rc = tres ? CLI_OK : CLI_FAIL;
        for (size_t i = 0; i < n && rc == CLI_OK; i++) rc = assign(v, c, names[i], start);
        if (tres && !n) rc = cli_fail("No topic matches '%s'", cli_str(v, "include"));
        free(names);
    }
    uint64_t count = 0;
    if (!rc) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        rc = consume_loop(v, c, &f, &count);
        if (group && gr_consumer_close(c, -1) != GR_ERR_NONE && !rc) rc = cli_fail("%s", gr_consumer_last_error(c));
        fflush(stdout);
        cli_progress("consumed", count, true);
        fprintf(stderr, "Processed a total of %" PRIu64 " messages\n", count);
    }
    gr_admin_result_destroy(tres);
    gr_consumer_destroy(c);
    free(fbuf);
    return rc;
}

int cli_consume(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor consume", "Print the records of a topic on standard output.", opts, argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
