/* Test program for byte-exact data interop of libgregor (public API only), driven by
 * tests/interop/test_libgregor_codecs.sh.
 *
 *   client_codec_dump produce -b HOST:PORT [-X name=value]... -f FILE
 *   client_codec_dump dump -b HOST:PORT [-X name=value]... [-w SECONDS] TOPIC...
 *
 * Both modes use one line format, the "canonical form" of a record:
 *
 *   TOPIC PARTITION [OFFSET] KEY VALUE HEADERS
 *
 * KEY and VALUE are "null" or "x" followed by the bytes in lowercase hex ("x" alone is
 * an empty byte string); HEADERS is "[" + comma-separated "xNAMEHEX=VALUE" + "]", VALUE as
 * above. produce reads such lines without the OFFSET column and sends each record to the
 * partition given (prints "delivered=N failed=M", exit 0 only if every record was
 * delivered). dump reads every partition of every TOPIC from the beginning up to the
 * high watermark taken at start and prints one line per record with its OFFSET (records
 * of a partition in offset order; exit 1 if not all arrived within -w seconds, default 60).
 * The tests/interop/java CodecDump program prints the same form. */
#include <gregor/gregor.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- canonical form ---- */

static void put_bytes(FILE *out, const void *p, size_t n, int is_null) {
    static const char hex[] = "0123456789abcdef";
    if (is_null) {
        fputs("null", out);
        return;
    }
    const unsigned char *b = p;
    fputc('x', out);
    for (size_t i = 0; i < n; i++) {
        fputc(hex[b[i] >> 4], out);
        fputc(hex[b[i] & 15], out);
    }
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Parse "null" or "x<hex>" at s (ends at the first byte of stop or NUL). On success
 * *out is malloc'ed (NULL for null), *len its length, *end just past the field. */
static int parse_bytes(const char *s, const char *stop, unsigned char **out, size_t *len, const char **end) {
    if (!strncmp(s, "null", 4)) {
        *out = NULL;
        *len = 0;
        *end = s + 4;
        return 0;
    }
    if (*s != 'x') return -1;
    s++;
    size_t n = strcspn(s, stop);
    if (n % 2) return -1;
    unsigned char *b = malloc(n / 2 + 1);
    if (!b) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return -1;
        }
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    *out = b;
    *len = n / 2;
    *end = s + n;
    return 0;
}

/* ---- produce ---- */

typedef struct pstats {
    size_t delivered, failed;
    char first_msg[512];
} pstats_t;

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    pstats_t *st = opaque;
    (void)p;
    if (gr_delivery_error(d)) {
        if (!st->failed++)
            snprintf(st->first_msg, sizeof(st->first_msg), "%s: %s", gr_err_name(gr_delivery_error(d)),
                     gr_delivery_errstr(d));
        return;
    }
    st->delivered++;
}

/* Parse one input line "TOPIC PARTITION KEY VALUE HEADERS" and send it. */
static int produce_line(gr_producer_t *p, char *line, pstats_t *st, long lineno) {
    char *topic = line, *sp = strchr(line, ' ');
    unsigned char *key = NULL, *val = NULL;
    size_t klen, vlen;
    const char *s, *end;
    gr_headers_t *h = gr_headers_new();
    int rc = -1;
    if (!sp) goto bad;
    *sp = 0;
    char *pend;
    long part = strtol(sp + 1, &pend, 10);
    if (*pend != ' ') goto bad;
    if (parse_bytes(pend + 1, " ", &key, &klen, &end) || *end != ' ') goto bad;
    if (parse_bytes(end + 1, " ", &val, &vlen, &end) || *end != ' ') goto bad;
    s = end + 1;
    if (*s++ != '[') goto bad;
    while (*s != ']') {
        unsigned char *hn = NULL, *hv = NULL;
        size_t hnl, hvl;
        if (parse_bytes(s, "=", &hn, &hnl, &end) || !hn || *end != '=') goto bad;
        if (parse_bytes(end + 1, ",]", &hv, &hvl, &end) || (*end != ',' && *end != ']')) {
            free(hn);
            goto bad;
        }
        char *name = malloc(hnl + 1);
        memcpy(name, hn, hnl);
        name[hnl] = 0;
        gr_headers_add(h, name, hv ? (const void *)hv : NULL, hvl);
        free(name);
        free(hn);
        free(hv);
        s = *end == ',' ? end + 1 : end;
    }
    for (;;) {
        /* parse_bytes gives NULL only for "null": an empty key or value stays non-NULL */
        gr_err_t err =
            gr_producer_send(p, topic, (int32_t)part, key, klen, val, vlen, h, GR_TIMESTAMP_NOW, on_delivery, st);
        if (!err) break;
        if (err == GR_ERR__QUEUE_FULL) {
            gr_producer_poll(p, 100);
            continue;
        }
        printf("send error at line %ld: %s: %s\n", lineno, gr_err_name(err), gr_producer_last_error(p));
        goto out;
    }
    rc = 0;
    goto out;
bad:
    printf("bad input line %ld\n", lineno);
out:
    free(key);
    free(val);
    gr_headers_destroy(h);
    return rc;
}

static int produce_file(gr_producer_t *p, const char *file, pstats_t *st) {
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (n && line[n - 1] == '\n') line[--n] = 0;
        if (!n) continue;
        rc = produce_line(p, line, st, lineno);
        gr_producer_poll(p, 0);
    }
    free(line);
    fclose(f);
    return rc;
}

/* ---- dump ---- */

typedef struct dpart {
    const char *topic;
    int32_t partition;
    int64_t end, next;
} dpart_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_record(const gr_consumer_msg_t *m) {
    size_t klen, vlen, n = gr_consumer_msg_header_count(m);
    const void *k = gr_consumer_msg_key(m, &klen), *v = gr_consumer_msg_value(m, &vlen);
    printf("%s %" PRId32 " %" PRId64 " ", gr_consumer_msg_topic(m), gr_consumer_msg_partition(m),
           gr_consumer_msg_offset(m));
    put_bytes(stdout, k, klen, k == NULL);
    putchar(' ');
    put_bytes(stdout, v, vlen, v == NULL);
    fputs(" [", stdout);
    for (size_t i = 0; i < n; i++) {
        const char *hk;
        const void *hv;
        size_t hkl, hvl;
        if (gr_consumer_msg_header(m, i, &hk, &hkl, &hv, &hvl)) break;
        if (i) putchar(',');
        put_bytes(stdout, hk, hkl, 0);
        putchar('=');
        put_bytes(stdout, hv, hvl, hv == NULL);
    }
    fputs("]\n", stdout);
}

static int dump(gr_consumer_t *c, char **topics, int n_topics, double wait_s) {
    dpart_t *parts = NULL;
    size_t n_parts = 0, remaining = 0;
    int rc = 1;
    for (int t = 0; t < n_topics; t++) {
        int32_t count;
        gr_err_t err = gr_consumer_partition_count(c, topics[t], -1, &count);
        if (err) {
            fprintf(stderr, "partition count of %s: %s: %s\n", topics[t], gr_err_name(err), gr_consumer_last_error(c));
            goto out;
        }
        parts = realloc(parts, (n_parts + (size_t)count) * sizeof(*parts));
        for (int32_t i = 0; i < count; i++) {
            dpart_t *dp = &parts[n_parts++];
            dp->topic = topics[t];
            dp->partition = i;
            int64_t start;
            if ((err = gr_consumer_query_offset(c, topics[t], i, GR_OFFSET_END, -1, &dp->end)) ||
                (err = gr_consumer_query_offset(c, topics[t], i, GR_OFFSET_BEGINNING, -1, &start))) {
                fprintf(stderr, "offsets of %s [%d]: %s: %s\n", topics[t], (int)i, gr_err_name(err),
                        gr_consumer_last_error(c));
                goto out;
            }
            dp->next = start;
            if (dp->end > start) {
                remaining++;
                if ((err = gr_consumer_assign(c, topics[t], i, GR_OFFSET_BEGINNING))) {
                    fprintf(stderr, "assign %s [%d]: %s\n", topics[t], (int)i, gr_err_name(err));
                    goto out;
                }
            }
        }
    }
    double deadline = now_s() + wait_s;
    while (remaining > 0) {
        double left = deadline - now_s();
        if (left <= 0) {
            fprintf(stderr, "timed out with %zu partitions not read to their end\n", remaining);
            goto out;
        }
        const gr_consumer_msg_t *m = NULL;
        gr_err_t err = gr_consumer_poll(c, left > 1 ? 1000 : (int)(left * 1000) + 1, &m);
        if (err) {
            fprintf(stderr, "poll: %s: %s\n", gr_err_name(err), gr_consumer_last_error(c));
            goto out;
        }
        if (!m) continue;
        dpart_t *dp = NULL;
        for (size_t i = 0; i < n_parts; i++)
            if (parts[i].partition == gr_consumer_msg_partition(m) && !strcmp(parts[i].topic, gr_consumer_msg_topic(m)))
                dp = &parts[i];
        if (!dp) {
            fprintf(stderr, "record of an unassigned partition %s [%d]\n", gr_consumer_msg_topic(m),
                    (int)gr_consumer_msg_partition(m));
            goto out;
        }
        if (dp->next >= dp->end) continue; /* past the end taken at start */
        if (gr_consumer_msg_offset(m) < dp->next) {
            fprintf(stderr, "%s [%d]: offset %" PRId64 " after %" PRId64 "\n", dp->topic, (int)dp->partition,
                    gr_consumer_msg_offset(m), dp->next);
            goto out;
        }
        print_record(m);
        dp->next = gr_consumer_msg_offset(m) + 1;
        if (dp->next >= dp->end) remaining--;
    }
    rc = 0;
out:
    free(parts);
    fflush(stdout);
    return rc;
}

/* ---- main ---- */

static int set_conf(gr_conf_t *conf, const char *name, const char *value) {
    char err[512];
    if (gr_conf_set(conf, name, value, err, sizeof(err))) {
        fprintf(stderr, "config error: %s\n", err);
        return -1;
    }
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: client_codec_dump produce -b HOST:PORT [-X k=v]... -f FILE\n"
                    "       client_codec_dump dump -b HOST:PORT [-X k=v]... [-w SECONDS] TOPIC...\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    int producing = !strcmp(argv[1], "produce");
    if (!producing && strcmp(argv[1], "dump")) return usage();
    gr_conf_t *conf = gr_conf_new(producing ? GR_CONF_PRODUCER : GR_CONF_CONSUMER);
    const char *file = NULL;
    double wait_s = 60;
    char **topics = calloc((size_t)argc, sizeof(char *));
    int n_topics = 0, rc = 2;
    char errstr[512];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') {
            topics[n_topics++] = argv[i];
            continue;
        }
        if (!v) goto usage;
        i++;
        if (!strcmp(a, "-b")) {
            if (set_conf(conf, "bootstrap.servers", v)) goto out;
        } else if (!strcmp(a, "-X")) {
            char name[256];
            const char *eq = strchr(v, '=');
            if (!eq || (size_t)(eq - v) >= sizeof(name)) goto usage;
            snprintf(name, sizeof(name), "%.*s", (int)(eq - v), v);
            if (set_conf(conf, name, eq + 1)) goto out;
        } else if (!strcmp(a, "-f"))
            file = v;
        else if (!strcmp(a, "-w"))
            wait_s = atof(v);
        else
            goto usage;
    }
    if (producing) {
        if (!file || n_topics) goto usage;
        gr_producer_t *p;
        if (gr_producer_new(conf, &p, errstr, sizeof(errstr))) {
            fprintf(stderr, "producer: %s\n", errstr);
            goto out;
        }
        pstats_t st = {0, 0, ""};
        int prc = produce_file(p, file, &st);
        gr_err_t ferr = gr_producer_flush(p, 60000);
        if (ferr) printf("flush: %s: %s\n", gr_err_name(ferr), gr_producer_last_error(p));
        gr_producer_destroy(p);
        printf("delivered=%zu failed=%zu%s%s\n", st.delivered, st.failed, st.failed ? " first: " : "", st.first_msg);
        rc = prc || ferr || st.failed ? 1 : 0;
    } else {
        if (!n_topics) goto usage;
        gr_consumer_t *c;
        if (gr_consumer_new(conf, &c, errstr, sizeof(errstr))) {
            fprintf(stderr, "consumer: %s\n", errstr);
            goto out;
        }
        rc = dump(c, topics, n_topics, wait_s);
        gr_consumer_destroy(c);
    }
    goto out;
usage:
    rc = usage();
out:
    free(topics);
    gr_conf_destroy(conf);
    return rc;
}
