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
#include <strings.h>
#include <unistd.h>

#include "cli.h"

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

/* The line reader settings of --reader-config, --property / --reader-property. */
typedef struct reader {
    bool parse_key, parse_headers, ignore_error;
    const char *key_sep, *h_delim, *h_sep, *h_key_sep, *null_marker;
} reader_t;

static bool is_true(const char *s) { return !strcasecmp(s, "true"); }

static int reader_prop(const cli_vals_t *v, reader_t *r, const char *p) {
    const char *eq = strchr(p, '=');
    if (!eq) return cli_usage_error(v, "Invalid reader property '%s': expected key=value", p);
    const char *val = eq + 1;
    size_t l = (size_t)(eq - p);
#define IS(s) (l == strlen(s) && !strncmp(p, s, l))
    if (IS("parse.key"))
        r->parse_key = is_true(val);
    else if (IS("parse.headers"))
        r->parse_headers = is_true(val);
    else if (IS("ignore.error"))
        r->ignore_error = is_true(val);
    else if (IS("key.separator"))
        r->key_sep = val;
    else if (IS("headers.delimiter"))
        r->h_delim = val;
    else if (IS("headers.separator"))
        r->h_sep = val;
    else if (IS("headers.key.separator"))
        r->h_key_sep = val;
    else if (IS("null.marker"))
        r->null_marker = val;
    else
        return cli_usage_error(v, "Unknown reader property '%.*s'", (int)l, p);
#undef IS
    return 0;
}

static int parse_reader(const cli_vals_t *v, reader_t *r, char **fbuf) {
    *r = (reader_t){false, false, false, "\t", "\t", ",", ":", NULL};
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
    const struct {
        const char *a, *b, *an, *bn;
    } differ[] = {
        {r->h_delim, r->h_sep, "headers.delimiter", "headers.separator"},
        {r->h_delim, r->h_key_sep, "headers.delimiter", "headers.key.separator"},
        {r->h_sep, r->h_key_sep, "headers.separator", "headers.key.separator"},
        {r->null_marker, r->key_sep, "null.marker", "key.separator"},
        {r->null_marker, r->h_sep, "null.marker", "headers.separator"},
        {r->null_marker, r->h_delim, "null.marker", "headers.delimiter"},
        {r->null_marker, r->h_key_sep, "null.marker", "headers.key.separator"},
    };
    for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++)
        if (differ[i].a && differ[i].b && !strcmp(differ[i].a, differ[i].b))
            return cli_usage_error(v, "%s and %s may not be equal", differ[i].an, differ[i].bn);
    if (!*r->key_sep || !*r->h_delim || !*r->h_sep || !*r->h_key_sep)
        return cli_usage_error(v, "Reader separators must not be empty");
    return 0;
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

/* A piece of the line: [ptr, ptr + len). */
typedef struct span {
    const char *p;
    size_t len;
} span_t;

static bool is_null(const reader_t *r, span_t s) {
    return r->null_marker && strlen(r->null_marker) == s.len && !memcmp(s.p, r->null_marker, s.len);
}

/* Split [s, s+len) at the first sep: *head before it; false if absent. */
static bool cut(const char *s, size_t len, const char *sep, span_t *head) {
    const char *x = memmem(s, len, sep, strlen(sep));
    if (!x) return false;
    *head = (span_t){s, (size_t)(x - s)};
    return true;
}

/* Headers "k:v,k2:v2" into h; false after printing why. */
static bool parse_headers(const reader_t *r, span_t hs, uint64_t lineno, gr_headers_t *h) {
    size_t ls = strlen(r->h_sep), lk = strlen(r->h_key_sep);
    const char *p = hs.p, *end = hs.p + hs.len;
    while (p <= end) {
        span_t pair;
        if (!cut(p, (size_t)(end - p), r->h_sep, &pair)) pair = (span_t){p, (size_t)(end - p)};
        span_t key;
        char kbuf[1024];
        if (!cut(pair.p, pair.len, r->h_key_sep, &key)) {
            if (!r->ignore_error) {
                cli_fail("No header key separator found in pair '%.*s' on line number %" PRIu64, (int)pair.len, pair.p,
                         lineno);
                return false;
            }
            snprintf(kbuf, sizeof(kbuf), "%.*s", (int)pair.len, pair.p);
            gr_headers_add(h, kbuf, NULL, 0);
        } else {
            if (is_null(r, key)) {
                cli_fail("Header keys should not be equal to the null marker '%s' as they can't be null",
                         r->null_marker);
                return false;
            }
            span_t val = {key.p + key.len + lk, pair.len - key.len - lk};
            snprintf(kbuf, sizeof(kbuf), "%.*s", (int)key.len, key.p);
            gr_headers_add(h, kbuf, is_null(r, val) ? NULL : val.p, val.len);
        }
        p = pair.p + pair.len + ls;
    }
    return true;
}

/* Queue one line; retry while buffer.memory is full. */
static gr_err_t send_line(gr_producer_t *p, const char *topic, const reader_t *r, char *line, size_t len,
                          uint64_t lineno, prod_state_t *st) {
    const char *s = line;
    size_t rest = len;
    gr_headers_t *h = NULL;
    span_t hs = {NULL, 0}, key = {NULL, 0};
    bool has_h = false, has_k = false;
    if (r->parse_headers) {
        has_h = cut(s, rest, r->h_delim, &hs);
        if (!has_h && !r->ignore_error) {
            cli_fail("No headers delimiter found on line number %" PRIu64 ": '%.*s'", lineno, (int)len, line);
            return GR_ERR__INVALID_ARG;
        }
        if (has_h) s += hs.len + strlen(r->h_delim), rest -= hs.len + strlen(r->h_delim);
    }
    if (r->parse_key) {
        has_k = cut(s, rest, r->key_sep, &key);
        if (!has_k && !r->ignore_error) {
            cli_fail("No key separator found on line number %" PRIu64 ": '%.*s'", lineno, (int)len, line);
            return GR_ERR__INVALID_ARG;
        }
        if (has_k) s += key.len + strlen(r->key_sep), rest -= key.len + strlen(r->key_sep);
    }
    span_t val = {s, rest};
    if (has_h && !is_null(r, hs)) {
        h = gr_headers_new();
        if (!parse_headers(r, hs, lineno, h)) {
            gr_headers_destroy(h);
            return GR_ERR__INVALID_ARG;
        }
    }
    if (!has_k || is_null(r, key)) key = (span_t){NULL, 0};
    if (is_null(r, val)) val = (span_t){NULL, 0};
    gr_err_t err;
    for (;;) {
        err = gr_producer_send(p, topic, GR_PARTITION_ANY, key.p, key.len, val.p, val.len, h, GR_TIMESTAMP_NOW,
                               on_delivery, st);
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
    reader_t r;
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
