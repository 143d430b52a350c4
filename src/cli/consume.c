/* gregor consume: kafka-console-consumer.sh over the plain consumer
 * (gregor/consumer.h): no group, every partition of --topic (or --partition), from
 * the end by default, the beginning with --from-beginning, or --offset
 * earliest|latest|N (with --partition, as in Kafka). Records are printed as Kafka's
 * DefaultMessageFormatter prints them (print.timestamp, print.partition,
 * print.offset, print.key, separators). Stops after --max-messages, after
 * --timeout-ms without a record, or on SIGINT/SIGTERM, and prints
 * "Processed a total of N messages" on stderr. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gregor/consumer.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"topic", "String: topic", "REQUIRED: The topic to consume."},
    {"partition", "Integer: partition", "The partition to consume (default: all partitions)."},
    {"offset", "String: consume offset", "earliest, latest or a non-negative offset (needs --partition). Default latest."},
    {"from-beginning", NULL, "Start with the earliest message instead of the latest."},
    {"from-timestamp", "Long: ms since the epoch", "Start at the first record at or after this timestamp."},
    {"max-messages", "Integer: num_messages", "Exit after this many messages."},
    {"timeout-ms", "Integer: timeout_ms", "Exit if no message is available for this long."},
    {"property", "String: prop", "Formatter properties: print.timestamp, print.key, print.offset, print.partition, print.headers, print.value, key.separator, line.separator."},
    {"formatter-property", "String: prop", "Same as --property."},
    {"consumer-property", "String: consumer_prop", "A consumer property k=v (repeatable)."},
    {"consumer.config", "String: config file", "Consumer properties file (like --command-config)."},
    {"command-config", "String: config file", "Consumer properties file."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

typedef struct fmt {
    bool ts, key, offset, partition, headers, value;
    char key_sep[16], line_sep[16];
} fmt_t;

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig, stop = 1; }

static int parse_fmt(const cli_vals_t *v, fmt_t *f) {
    *f = (fmt_t){false, false, false, false, false, true, "\t", "\n"};
    const char *names[] = {"property", "formatter-property"};
    for (int k = 0; k < 2; k++) {
        size_t n;
        const char **props = cli_all(v, names[k], &n);
        for (size_t i = 0; i < n; i++) {
            const char *p = props[i], *eq = strchr(p, '=');
            if (!eq) return cli_usage_error(v, "Invalid formatter property '%s': expected key=value", p);
            bool on = !strcmp(eq + 1, "true");
            size_t l = (size_t)(eq - p);
#define IS(s) (l == strlen(s) && !strncmp(p, s, l))
            if (IS("print.timestamp")) f->ts = on;
            else if (IS("print.key")) f->key = on;
            else if (IS("print.offset")) f->offset = on;
            else if (IS("print.partition")) f->partition = on;
            else if (IS("print.headers")) f->headers = on;
            else if (IS("print.value")) f->value = on;
            else if (IS("key.separator")) snprintf(f->key_sep, sizeof(f->key_sep), "%s", eq + 1);
            else if (IS("line.separator")) snprintf(f->line_sep, sizeof(f->line_sep), "%s", eq + 1);
            else if (!IS("print.delivery.count") && !IS("headers.separator") && !IS("null.literal"))
                return cli_usage_error(v, "Unknown formatter property '%.*s'", (int)l, p);
#undef IS
        }
    }
    return 0;
}

static void put_bytes(const void *p, size_t len) {
    if (p) fwrite(p, 1, len, stdout);
    else fputs("null", stdout);
}

static void print_msg(const fmt_t *f, const gr_consumer_msg_t *m) {
    size_t len;
    int type;
    if (f->ts) {
        int64_t ts = gr_consumer_msg_timestamp(m, &type);
        printf("%s:%" PRId64 "%s", type ? "LogAppendTime" : "CreateTime", ts, f->key_sep);
    }
    if (f->partition) printf("Partition:%" PRId32 "%s", gr_consumer_msg_partition(m), f->key_sep);
    if (f->offset) printf("Offset:%" PRId64 "%s", gr_consumer_msg_offset(m), f->key_sep);
    if (f->headers) {
        size_t n = gr_consumer_msg_header_count(m);
        for (size_t i = 0; i < n; i++) {
            const char *k;
            const void *hv;
            size_t kl, vl;
            if (gr_consumer_msg_header(m, i, &k, &kl, &hv, &vl)) break;
            printf("%s%.*s:", i ? "," : "", (int)kl, k);
            put_bytes(hv, vl);
        }
        printf("%s%s", n ? "" : "NO_HEADERS", f->key_sep);
    }
    if (f->key) {
        const void *k = gr_consumer_msg_key(m, &len);
        put_bytes(k, len);
        fputs(f->key_sep, stdout);
    }
    if (f->value) {
        const void *val = gr_consumer_msg_value(m, &len);
        put_bytes(val, len);
    }
    fputs(f->line_sep, stdout);
}

/* Assign the partitions from --partition / --offset / --from-beginning / --from-timestamp. */
static int assign(const cli_vals_t *v, gr_consumer_t *c, const char *topic) {
    int32_t part = (int32_t)cli_int(v, "partition", GR_PARTITION_ALL);
    const char *off = cli_str(v, "offset");
    int64_t start = cli_has(v, "from-beginning") ? GR_OFFSET_BEGINNING : GR_OFFSET_END;
    if (off && part < 0) return cli_usage_error(v, "The partition is required when offset is specified.");
    if (off && cli_has(v, "from-beginning"))
        return cli_usage_error(v, "Options from-beginning and offset cannot be specified together.");
    if (off && !strcmp(off, "earliest")) start = GR_OFFSET_BEGINNING;
    else if (off && !strcmp(off, "latest")) start = GR_OFFSET_END;
    else if (off) {
        char *end;
        start = strtoll(off, &end, 10);
        if (!*off || *end || start < 0)
            return cli_usage_error(v, "The provided offset value '%s' is incorrect. Valid values are 'earliest', "
                                      "'latest', or a non-negative long.", off);
    }
    if (cli_has(v, "from-timestamp"))
        return gr_consumer_assign_timestamp(c, topic, part, cli_int(v, "from-timestamp", 0)) ? CLI_USAGE : 0;
    return gr_consumer_assign(c, topic, part, start) ? CLI_USAGE : 0;
}

static gr_consumer_t *make_consumer(const cli_vals_t *v) {
    size_t n;
    const char **props = cli_all(v, "consumer-property", &n);
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, props, n);
    const char *file = cli_str(v, "consumer.config");
    char err[512];
    gr_consumer_t *c = NULL;
    if (conf && file && gr_conf_load_file(conf, file, err, sizeof(err)) != GR_ERR_NONE) cli_fail("%s", err);
    else if (conf && gr_consumer_new(conf, &c, err, sizeof(err)) != GR_ERR_NONE) cli_fail("%s", err);
    gr_conf_destroy(conf);
    return c;
}

static int consume_loop(const cli_vals_t *v, gr_consumer_t *c, const fmt_t *f, uint64_t *count) {
    int64_t max = cli_int(v, "max-messages", -1), timeout = cli_int(v, "timeout-ms", -1), idle = 0;
    while (!stop && (max < 0 || *count < (uint64_t)max)) {
        const gr_consumer_msg_t *m = NULL;
        gr_err_t err = gr_consumer_poll(c, timeout >= 0 && timeout < 200 ? (int)timeout : 200, &m);
        if (err) return cli_fail("%s", gr_consumer_last_error(c));
        if (!m) {
            if (timeout >= 0) {
                /* Count the idle time in whole polls of at most 200 ms. */
                idle += timeout < 200 ? timeout : 200;
                if (idle >= timeout) break;
            }
            continue;
        }
        idle = 0;
        print_msg(f, m);
        (*count)++;
        cli_progress("consumed", *count, false);
    }
    return CLI_OK;
}

static int run(const cli_vals_t *v) {
    const char *topic = cli_str(v, "topic");
    fmt_t f;
    if (!topic) return cli_usage_error(v, "Missing required argument \"[topic]\"");
    if (parse_fmt(v, &f)) return CLI_USAGE;
    gr_consumer_t *c = make_consumer(v);
    if (!c) return CLI_FAIL;
    int rc = assign(v, c, topic);
    uint64_t count = 0;
    if (!rc) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        rc = consume_loop(v, c, &f, &count);
        fflush(stdout);
        if (cli_tty()) cli_progress("consumed", count, true);
        fprintf(stderr, "Processed a total of %" PRIu64 " messages\n", count);
    }
    gr_consumer_destroy(c);
    return rc;
}

int cli_consume(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor consume", "Print the records of a topic on standard output.", opts, argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
