/* gregor share-consume: kafka-console-share-consumer.sh over the libgregor share
 * consumer (gregor/share_consumer.h) in explicit acknowledgement mode. Each record
 * printed is acknowledged as it is consumed: ACCEPT by default, RELEASE with
 * --release, REJECT with --reject. A record that cannot be printed is released and
 * stops the consumer (exit 1), or with --reject-message-on-error is rejected. With
 * --max-messages N exactly N records are acknowledged; the rest of the last batch is left unacknowledged and released when
 * the consumer closes. Stops after --max-messages, --timeout-ms without a record, or
 * SIGINT/SIGTERM; prints "Processed a total of N messages" on stderr. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The server(s) to connect to."},
    {"topic", "String: topic", "REQUIRED: The topic to consume from."},
    {"group", "String: share group id", "The share group id of the consumer (default: console-share-consumer)."},
    {"max-messages", "Integer: num_messages", "Exit after this many messages."},
    {"timeout-ms", "Integer: timeout_ms", "Exit if no message is available for this long."},
    {"release", NULL, "Release each record instead of accepting it (it is delivered again)."},
    {"reject", NULL, "Reject each record instead of accepting it (it is not delivered again)."},
    {"reject-message-on-error", NULL,
     "Reject a record that cannot be printed and go on (else it is released and the consumer stops)."},
    {"property", "String: prop",
     "Formatter properties: print.timestamp, print.partition, print.offset, print.delivery (alias "
     "print.delivery.count), print.headers, print.key, print.value, key.separator, line.separator, headers.separator, "
     "null.literal."},
    {"formatter-property", "String: prop", "Same as --property."},
    {"formatter-config", "String: config file", "Formatter properties file."},
    {"consumer-property", "String: consumer_prop", "A consumer property k=v (repeatable)."},
    {"command-property", "String: consumer_prop", "Same as --consumer-property."},
    {"consumer-config", "String: config file", "Consumer properties file (like --command-config)."},
    {"command-config", "String: config file", "Consumer properties file."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

static volatile sig_atomic_t stop;
static gr_share_consumer_t *the_consumer; /* for the signal handler's wakeup only */
static void on_signal(int sig) {
    (void)sig, stop = 1;
    if (the_consumer) gr_share_consumer_wakeup(the_consumer);
}

static bool rec_header(const void *rec, size_t i, const char **k, size_t *kl, const void **v, size_t *vl) {
    if (gr_share_record_header(rec, i, k, v, vl) != GR_ERR_NONE) return false;
    *kl = strlen(*k);
    return true;
}

/* Print one record; false if it could not be written. Share records carry a
 * CreateTime timestamp and their delivery count. */
static bool print_rec(const cli_fmt_t *f, const gr_share_record_t *r) {
    cli_rec_t c = {.ts = gr_share_record_timestamp(r),
                   .ts_type = 0,
                   .partition = gr_share_record_partition(r),
                   .offset = gr_share_record_offset(r),
                   .delivery = (int)gr_share_record_delivery_count(r),
                   .n_headers = gr_share_record_header_count(r),
                   .rec = r,
                   .header = rec_header};
    c.key = gr_share_record_key(r, &c.key_len);
    c.value = gr_share_record_value(r, &c.value_len);
    return cli_fmt_write(f, &c);
}

static gr_share_consumer_t *make_consumer(const cli_vals_t *v) {
    size_t n1, n2;
    const char **p1 = cli_all(v, "consumer-property", &n1), **p2 = cli_all(v, "command-property", &n2);
    const char **props = calloc(n1 + n2 + 1, sizeof(*props));
    if (!props) abort();
    if (n1) memcpy(props, p1, n1 * sizeof(*props));
    if (n2) memcpy(props + n1, p2, n2 * sizeof(*props));
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, props, n1 + n2);
    free(props);
    char err[512], grp[512];
    gr_share_consumer_t *c = NULL;
    const char *file = cli_str(v, "consumer-config");
    if (!conf) return NULL;
    if (file && gr_conf_load_file(conf, file, err, sizeof(err)) != GR_ERR_NONE) {
        cli_fail("%s", err);
        gr_conf_destroy(conf);
        return NULL;
    }
    /* The group: --group, else group.id of the properties, else Kafka's default; the
     * two places must agree when both are given (as in Kafka's tool). */
    const char *given = cli_str(v, "group"), *in_props = gr_conf_get(conf, "group.id");
    if (in_props && !*in_props) in_props = NULL;
    if (given && in_props && strcmp(given, in_props)) {
        cli_usage_error(v, "The group ids given with --group ('%s') and in the consumer properties ('%s') differ",
                        given, in_props);
        gr_conf_destroy(conf);
        exit(CLI_USAGE);
    }
    snprintf(grp, sizeof(grp), "%s", given ? given : in_props ? in_props : "console-share-consumer");
    if (gr_conf_set(conf, "group.id", grp, err, sizeof(err)) ||
        gr_conf_set(conf, "share.acknowledgement.mode", "explicit", err, sizeof(err)) ||
        gr_share_consumer_new(conf, &c, err, sizeof(err)))
        cli_fail("%s", err);
    gr_conf_destroy(conf);
    return c;
}

/* Print and acknowledge the records of one batch; stops at max. */
static int handle_batch(const cli_vals_t *v, gr_share_consumer_t *c, const cli_fmt_t *f, gr_share_batch_t *b,
                        int64_t max, uint64_t *count) {
    gr_ack_type_t type = cli_has(v, "reject") ? GR_ACK_REJECT : cli_has(v, "release") ? GR_ACK_RELEASE : GR_ACK_ACCEPT;
    for (size_t i = 0; i < gr_share_batch_count(b) && !stop; i++) {
        if (max >= 0 && *count >= (uint64_t)max) break;
        const gr_share_record_t *r = gr_share_batch_record(b, i);
        gr_ack_type_t t = type;
        bool printed = print_rec(f, r);
        /* As Kafka's tool: a record that cannot be written stops the consumer (it is
         * released), or with --reject-message-on-error is rejected and consumption goes on. */
        if (!printed) t = cli_has(v, "reject-message-on-error") ? GR_ACK_REJECT : GR_ACK_RELEASE;
        if (gr_share_consumer_acknowledge(c, r, t) != GR_ERR_NONE)
            return cli_fail("%s", gr_share_consumer_last_error(c));
        if (!printed && t == GR_ACK_RELEASE) return cli_fail("Cannot write record to standard output");
        (*count)++;
        cli_progress("consumed", *count, false);
    }
    return CLI_OK;
}

static int consume_loop(const cli_vals_t *v, gr_share_consumer_t *c, const cli_fmt_t *f, uint64_t *count) {
    int64_t max = cli_int(v, "max-messages", -1), timeout = cli_int(v, "timeout-ms", -1), idle = 0;
    while (!stop && (max < 0 || *count < (uint64_t)max)) {
        gr_share_batch_t *b = NULL;
        int wait = timeout >= 0 && timeout < 500 ? (int)timeout : 500;
        gr_err_t err = gr_share_consumer_poll(c, wait, &b);
        if (err == GR_ERR__WAKEUP) break;
        if (err) return cli_fail("%s", gr_share_consumer_last_error(c));
        if (!gr_share_batch_count(b)) {
            cli_progress("consumed", *count, false);
            idle += wait;
            if (timeout >= 0 && idle >= timeout) break;
            continue;
        }
        idle = 0;
        int rc = handle_batch(v, c, f, b, max, count);
        if (rc) return rc;
    }
    return CLI_OK;
}

static int run(const cli_vals_t *v) {
    const char *topic = cli_str(v, "topic");
    cli_fmt_t f;
    char *fbuf = NULL;
    if (!topic) return cli_usage_error(v, "Missing required argument \"[topic]\"");
    if (cli_has(v, "reject") && cli_has(v, "release"))
        return cli_usage_error(v, "At most one of --reject and --release may be specified.");
    int rc = cli_fmt_parse(v, &f, true, &fbuf);
    gr_share_consumer_t *c = rc ? NULL : make_consumer(v);
    if (!c) {
        free(fbuf);
        return rc ? rc : CLI_FAIL;
    }
    uint64_t count = 0;
    if (gr_share_consumer_subscribe(c, &topic, 1) != GR_ERR_NONE) {
        rc = cli_fail("%s", gr_share_consumer_last_error(c));
    } else {
        the_consumer = c;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        rc = consume_loop(v, c, &f, &count);
    }
    fflush(stdout);
    if (gr_share_consumer_close(c, -1) != GR_ERR_NONE && rc == CLI_OK)
        rc = cli_fail("%s", gr_share_consumer_last_error(c));
    the_consumer = NULL;
    gr_share_consumer_destroy(c);
    cli_progress("consumed", count, true);
    fprintf(stderr, "Processed a total of %" PRIu64 " messages\n", count);
    free(fbuf);
    return rc;
}

int cli_share_consume(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor share-consume", "Consume records as a member of a share group.", opts, argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
