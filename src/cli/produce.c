/* gregor produce: kafka-console-producer.sh. Each line of standard input (without
 * its "\n") becomes one record of --topic. With --property parse.key=true the line
 * is split at the first key.separator (default TAB) into key and value. Records go
 * through the libgregor producer (batching, idempotence, compression); --sync
 * waits for each record's acknowledgement before reading the next line. A failed
 * delivery is reported as Kafka reports it and makes the exit status 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"topic", "String: topic", "REQUIRED: The topic to produce messages to."},
    {"property", "String: prop", "Line reader properties: parse.key=true|false, key.separator=<sep> (default TAB), ignore.error=true|false."},
    {"reader-property", "String: prop", "Same as --property."},
    {"compression-codec", "[String: compression-codec]", "none, gzip, snappy, lz4 or zstd (gzip if given without a value)."},
    {"producer-property", "String: producer_prop", "A producer property k=v (repeatable), e.g. acks=all."},
    {"producer.config", "String: config file", "Producer properties file (like --command-config)."},
    {"command-config", "String: config file", "Producer properties file."},
    {"request-required-acks", "String: acks", "The acks the producer requires (default all)."},
    {"sync", NULL, "Send each message synchronously: wait for its acknowledgement."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

typedef struct prod_state {
    uint64_t sent, acked, failed;
    bool ignore_error;
} prod_state_t;

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    (void)p;
    prod_state_t *st = opaque;
    if (gr_delivery_error(d) == GR_ERR_NONE) {
        st->acked++;
        return;
    }
    if (st->failed++ < 5)
        fprintf(stderr, "Error when sending message to topic %s with error: %s\n", gr_delivery_topic(d),
                gr_delivery_errstr(d)[0] ? gr_delivery_errstr(d) : gr_err_str(gr_delivery_error(d)));
}

/* The line reader settings of --property / --reader-property. */
typedef struct reader {
    bool parse_key, ignore_error;
    char sep[16];
} reader_t;

static int parse_reader(const cli_vals_t *v, reader_t *r) {
    *r = (reader_t){false, false, "\t"};
    const char *names[] = {"property", "reader-property"};
    for (int k = 0; k < 2; k++) {
        size_t n;
        const char **props = cli_all(v, names[k], &n);
        for (size_t i = 0; i < n; i++) {
            const char *p = props[i];
            if (!strncmp(p, "parse.key=", 10)) r->parse_key = !strcmp(p + 10, "true");
            else if (!strncmp(p, "ignore.error=", 13)) r->ignore_error = !strcmp(p + 13, "true");
            else if (!strncmp(p, "key.separator=", 14)) snprintf(r->sep, sizeof(r->sep), "%s", p + 14);
            else if (strncmp(p, "parse.headers=", 14) && strncmp(p, "null.marker=", 12))
                return cli_usage_error(v, "Unknown reader property '%s'", p);
        }
    }
    if (!r->sep[0]) return cli_usage_error(v, "key.separator must not be empty");
    return 0;
}

static gr_producer_t *make_producer(const cli_vals_t *v) {
    size_t n;
    const char **pp = cli_all(v, "producer-property", &n);
    const char **props = calloc(n + 3, sizeof(*props));
    char acks[64], codec[64];
    if (!props) abort();
    size_t k = 0;
    if (cli_has(v, "compression-codec")) {
        snprintf(codec, sizeof(codec), "compression.type=%s", cli_str(v, "compression-codec") ? cli_str(v, "compression-codec") : "gzip");
        props[k++] = codec;
    }
    if (cli_str(v, "request-required-acks")) {
        snprintf(acks, sizeof(acks), "acks=%s", cli_str(v, "request-required-acks"));
        props[k++] = acks;
    }
    for (size_t i = 0; i < n; i++) props[k++] = pp[i];
    gr_conf_t *conf = cli_conf(v, GR_CONF_PRODUCER, props, k);
    free(props);
    const char *file = cli_str(v, "producer.config");
    char err[512];
    if (conf && file && gr_conf_load_file(conf, file, err, sizeof(err)) != GR_ERR_NONE) {
        cli_fail("%s", err);
        gr_conf_destroy(conf);
        return NULL;
    }
    gr_producer_t *p = NULL;
    if (conf && gr_producer_new(conf, &p, err, sizeof(err)) != GR_ERR_NONE) cli_fail("%s", err);
    gr_conf_destroy(conf);
    return p;
}

/* Queue one line; retry while buffer.memory is full. */
static gr_err_t send_line(gr_producer_t *p, const char *topic, const reader_t *r, char *line, size_t len,
                          uint64_t lineno, prod_state_t *st) {
    const char *key = NULL, *val = line;
    size_t klen = 0, vlen = len;
    if (r->parse_key) {
        char *s = memmem(line, len, r->sep, strlen(r->sep));
        if (!s) {
            cli_fail("No key separator found on line number %" PRIu64 ": '%.*s'", lineno, (int)len, line);
            return GR_ERR__INVALID_ARG;
        }
        key = line, klen = (size_t)(s - line);
        val = s + strlen(r->sep), vlen = len - klen - strlen(r->sep);
    }
    for (;;) {
        gr_err_t err = gr_producer_send(p, topic, GR_PARTITION_ANY, key, klen, val, vlen, NULL, GR_TIMESTAMP_NOW,
                                        on_delivery, st);
        if (err != GR_ERR__QUEUE_FULL) {
            if (err) cli_fail("%s", gr_producer_last_error(p));
            else st->sent++;
            return err;
        }
        gr_producer_poll(p, 100);
    }
}

static int run(const cli_vals_t *v) {
    const char *topic = cli_str(v, "topic");
    reader_t r;
    if (!topic) return cli_usage_error(v, "Missing required argument \"[topic]\"");
    if (parse_reader(v, &r)) return CLI_USAGE;
    gr_producer_t *p = make_producer(v);
    if (!p) return CLI_FAIL;
    prod_state_t st = {0, 0, 0, r.ignore_error};
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    uint64_t lineno = 0;
    int rc = CLI_OK;
    while ((got = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)got;
        if (len && line[len - 1] == '\n') len--;
        if (send_line(p, topic, &r, line, len, ++lineno, &st) != GR_ERR_NONE && !r.ignore_error) {
            rc = CLI_FAIL;
            break;
        }
        if (cli_has(v, "sync")) gr_producer_flush(p, -1);
        else gr_producer_poll(p, 0);
        cli_progress("produced", st.sent, false);
    }
    free(line);
    if (gr_producer_flush(p, -1) != GR_ERR_NONE) rc = cli_fail("%s", gr_producer_last_error(p));
    gr_producer_destroy(p);
    cli_progress("produced", st.acked, true);
    if (st.failed) {
        if (st.failed > 5) fprintf(stderr, "... %" PRIu64 " records failed in all\n", st.failed);
        rc = CLI_FAIL;
    }
    return rc;
}

int cli_produce(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor produce", "Read lines from standard input and write them to a topic.", opts,
                       argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
