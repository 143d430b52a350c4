/* gregor produce: kafka-console-producer.sh. Each line of standard input (without
 * its "\n") becomes one record of --topic, read as Kafka's LineMessageReader reads it:
 * with parse.headers=true the line starts with headers ("k:v,k2:v2", then
 * headers.delimiter), with parse.key=true a key follows (up to key.separator), and the
 * rest is the value; null.marker makes a key, value or header value null. Records go
 * through the libgregor producer (batching, idempotence, compression); --sync waits
 * for each record's acknowledgement before reading the next line. A failed delivery
 * is reported as Kafka reports it and makes the exit status 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "line_parse.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"topic", "String: topic", "REQUIRED: The topic to produce messages to."},
    {"reader-property", "String: prop",
     "Line reader properties: parse.key, key.separator (default TAB), parse.headers, headers.delimiter (TAB), "
     "headers.separator (,), headers.key.separator (:), null.marker, ignore.error."},
    {"property", "String: prop", "Same as --reader-property."},
    {"reader-config", "String: config file", "Line reader properties file."},
    {"command-property", "String: producer_prop", "A producer property k=v (repeatable), e.g. acks=all."},
    {"producer-property", "String: producer_prop", "Same as --command-property."},
    {"command-config", "String: config file", "Producer properties file."},
    {"producer.config", "String: config file", "Same as --command-config."},
    {"compression-codec", "[String: compression-codec]",
     "none, gzip, snappy, lz4 or zstd (gzip if given without a value)."},
    {"request-required-acks", "String: acks", "The acks the producer requires (acks)."},
    {"batch-size", "Integer: size", "batch.size of the producer."},
    {"timeout", "Long: timeout_ms", "linger.ms of the producer."},
    {"max-block-ms", "Long: ms", "max.block.ms of the producer."},
    {"max-memory-bytes", "Long: bytes", "buffer.memory of the producer."},
    {"message-send-max-retries", "Integer", "retries of the producer."},
    {"metadata-expiry-ms", "Long: ms", "metadata.max.age.ms of the producer."},
    {"request-timeout-ms", "Integer: ms", "request.timeout.ms of the producer."},
    {"retry-backoff-ms", "Long: ms", "retry.backoff.ms of the producer."},
    {"socket-buffer-size", "Integer: size", "send.buffer.bytes of the producer."},
    {"sync", NULL, "Send each message synchronously: wait for its acknowledgement."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

typedef struct prod_state {
    uint64_t sent, acked, failed;
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

/* One --reader-config line or --property / --reader-property value. */
static int reader_prop(const cli_vals_t *v, line_reader_t *r, const char *p) {
    const char *eq = strchr(p, '=');
    if (!eq) return cli_usage_error(v, "Invalid reader property '%s': expected key=value", p);
    if (!line_reader_set(r, p)) return cli_usage_error(v, "Unknown reader property '%.*s'", (int)(eq - p), p);
    return 0;
}

static int parse_reader(const cli_vals_t *v, line_reader_t *r, char **fbuf) {
    line_reader_init(r);
    *fbuf = NULL;
    if (cli_str(v, "reader-config")) {
        const char *items[256];
        size_t n;
        if (!(*fbuf = cli_read_props(cli_str(v, "reader-config"), items, 256, &n))) return CLI_FAIL;
        for (size_t i = 0; i < n; i++)
            if (reader_prop(v, r, items[i])) return CLI_USAGE;
    }
    const char *names[] = {"property", "reader-property"};
    for (int k = 0; k < 2; k++) {
        size_t n;
        const char **props = cli_all(v, names[k], &n);
        for (size_t i = 0; i < n; i++)
            if (reader_prop(v, r, props[i])) return CLI_USAGE;
    }
    char why[128];
    const char *bad = line_reader_check(r, why, sizeof(why));
    return bad ? cli_usage_error(v, "%s", bad) : 0;
}

static gr_producer_t *make_producer(const cli_vals_t *v) {
    static const struct {
        const char *opt, *prop;
    } map[] = {
        {"request-required-acks", "acks"},
        {"batch-size", "batch.size"},
        {"timeout", "linger.ms"},
        {"max-block-ms", "max.block.ms"},
        {"max-memory-bytes", "buffer.memory"},
        {"message-send-max-retries", "retries"},
        {"metadata-expiry-ms", "metadata.max.age.ms"},
        {"request-timeout-ms", "request.timeout.ms"},
        {"retry-backoff-ms", "retry.backoff.ms"},
        {"socket-buffer-size", "send.buffer.bytes"},
    };
    enum { NMAP = sizeof(map) / sizeof(map[0]) };
    size_t n1, n2;
    const char **p1 = cli_all(v, "producer-property", &n1), **p2 = cli_all(v, "command-property", &n2);
    const char **props = calloc(n1 + n2 + NMAP + 2, sizeof(*props));
    char kv[NMAP + 1][300];
    if (!props) abort();
    size_t k = 0;
    if (cli_has(v, "compression-codec")) {
        snprintf(kv[NMAP], sizeof(kv[NMAP]), "compression.type=%s",
                 cli_str(v, "compression-codec") ? cli_str(v, "compression-codec") : "gzip");
        props[k++] = kv[NMAP];
    }
    for (size_t i = 0; i < NMAP; i++)
        if (cli_str(v, map[i].opt)) {
            snprintf(kv[i], sizeof(kv[i]), "%s=%s", map[i].prop, cli_str(v, map[i].opt));
            props[k++] = kv[i];
        }
    for (size_t i = 0; i < n1; i++) props[k++] = p1[i];
    for (size_t i = 0; i < n2; i++) props[k++] = p2[i];
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

/* Add one parsed header (keys are C strings in the public API: they end at a NUL byte). */
static void add_header(void *opaque, line_span_t pair, line_span_t key, line_span_t val) {
    (void)pair;
    char *k = strndup(key.p, key.len);
    if (!k) abort();
    gr_headers_add(opaque, k, val.p, val.len);
    free(k);
}

/* Print why a line was refused, as Kafka's LineMessageReader words it. */
static void line_error(const line_reader_t *r, line_err_t e, const line_record_t *rec, const char *line, size_t len,
                       uint64_t lineno) {
    switch (e) {
    case LINE_NO_HEADERS_DELIM:
        cli_fail("No headers delimiter found on line number %" PRIu64 ": '%.*s'", lineno, (int)len, line);
        break;
    case LINE_NO_KEY_SEP:
        cli_fail("No key separator found on line number %" PRIu64 ": '%.*s'", lineno, (int)len, line);
        break;
    case LINE_NO_HEADER_KEY_SEP:
        cli_fail("No header key separator found in pair '%.*s' on line number %" PRIu64, (int)rec->bad.len, rec->bad.p,
                 lineno);
        break;
    default:
        cli_fail("Header keys should not be equal to the null marker '%s' as they can't be null", r->null_marker);
        break;
    }
}

/* Queue one line; retry while buffer.memory is full. */
static gr_err_t send_line(gr_producer_t *p, const char *topic, const line_reader_t *r, const char *line, size_t len,
                          uint64_t lineno, prod_state_t *st) {
    line_record_t rec;
    gr_headers_t *h = gr_headers_new();
    line_err_t e = line_parse(r, line, len, &rec, add_header, h);
    if (e != LINE_OK) {
        line_error(r, e, &rec, line, len, lineno);
        gr_headers_destroy(h);
        return GR_ERR__INVALID_ARG;
    }
    if (!rec.has_headers) {
        gr_headers_destroy(h);
        h = NULL;
    }
    gr_err_t err;
    for (;;) {
        err = gr_producer_send(p, topic, GR_PARTITION_ANY, rec.key.p, rec.key.len, rec.value.p, rec.value.len, h,
                               GR_TIMESTAMP_NOW, on_delivery, st);
        if (err != GR_ERR__QUEUE_FULL) break;
        gr_producer_poll(p, 100);
    }
    if (err)
        cli_fail("%s", gr_producer_last_error(p));
    else
        st->sent++;
    gr_headers_destroy(h);
    return err;
}

static int run(const cli_vals_t *v) {
    const char *topic = cli_str(v, "topic");
    line_reader_t r;
    char *fbuf;
    if (!topic) return cli_usage_error(v, "Missing required argument \"[topic]\"");
    int rc = parse_reader(v, &r, &fbuf);
    gr_producer_t *p = rc ? NULL : make_producer(v);
    if (!p) {
        free(fbuf);
        return rc ? rc : CLI_FAIL;
    }
    prod_state_t st = {0, 0, 0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    uint64_t lineno = 0;
    bool interactive = isatty(STDIN_FILENO) == 1; /* someone typing: no progress line */
    while ((got = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)got;
        if (len && line[len - 1] == '\n') len--;
        if (send_line(p, topic, &r, line, len, ++lineno, &st) != GR_ERR_NONE) {
            rc = CLI_FAIL;
            break;
        }
        if (cli_has(v, "sync"))
            gr_producer_flush(p, -1);
        else
            gr_producer_poll(p, 0);
        if (!interactive) cli_progress("produced", st.sent, false);
    }
    free(line);
    if (gr_producer_flush(p, -1) != GR_ERR_NONE) rc = cli_fail("%s", gr_producer_last_error(p));
    gr_producer_destroy(p);
    cli_progress("produced", st.acked, true);
    if (st.failed) {
        if (st.failed > 5) fprintf(stderr, "... %" PRIu64 " records failed in all\n", st.failed);
        rc = CLI_FAIL;
    }
    free(fbuf);
    return rc;
}

int cli_produce(int argc, char **argv) {
    cli_vals_t v;
    int rc =
        cli_parse(&v, "gregor produce", "Read lines from standard input and write them to a topic.", opts, argc, argv);
    if (!rc) rc = run(&v);
    cli_vals_free(&v);
    return rc < 0 ? CLI_OK : rc;
}
