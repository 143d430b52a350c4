/* Test and benchmark program for the libgregor producer (public API only).
 *
 *   client_produce -b HOST:PORT -t TOPIC [-X name=value]... [-p PARTITION]
 *                  (-f FILE | -n COUNT [-s SIZE]) [-q] [--fill] [--check-order]
 *
 *   -f FILE   produce every line "key<TAB>value" of FILE ("-" = stdin); a line without
 *             a TAB has a null key
 *   -n/-s     produce COUNT generated values of SIZE bytes (key "k<i>" unless -K)
 *   -K        generated records have no key
 *   --fill    send without polling until the first error and print it (buffer.memory test)
 *   --check-order  check that offsets grow per partition in send order
 *   --keep-going   a failed send is counted ("send errors=N", the first one printed) and
 *             the next record is tried (a dead broker must not cost max.block.ms per record)
 * Prints "delivered=N failed=M" (and the first failure), plus the rate on stderr.
 * Exit status: 0 if every record was delivered, 1 otherwise, 2 on usage errors. */
#include <gregor/gregor.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct stats {
    size_t delivered, failed;
    gr_err_t first_err;
    char first_msg[512];
    int64_t last_offset[1024];
    size_t order_errors;
} stats_t;

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    stats_t *st = opaque;
    (void)p;
    if (gr_delivery_error(d)) {
        if (!st->failed++) {
            st->first_err = gr_delivery_error(d);
            snprintf(st->first_msg, sizeof(st->first_msg), "%s", gr_delivery_errstr(d));
        }
        return;
    }
    st->delivered++;
    int32_t part = gr_delivery_partition(d);
    int64_t off = gr_delivery_offset(d);
    if (off >= 0 && part >= 0 && part < 1024) {
        if (off <= st->last_offset[part]) st->order_errors++;
        st->last_offset[part] = off;
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct opts {
    const char *topic, *file;
    long count, size;
    int32_t partition;
    int fill, no_key, check_order, keep_going;
    long send_errors;
} opts_t;

/* Send one record, polling while the buffer is full. */
static int send_one(gr_producer_t *p, opts_t *o, stats_t *st, const void *k, size_t kl, const void *v, size_t vl) {
    for (;;) {
        gr_err_t err =
            gr_producer_send(p, o->topic, o->partition, k, kl, v, vl, NULL, GR_TIMESTAMP_NOW, on_delivery, st);
        if (!err) return 0;
        if (err == GR_ERR__QUEUE_FULL && !o->fill) {
            gr_producer_poll(p, 100);
            continue;
        }
        if (o->send_errors++ == 0 || !o->keep_going)
            printf("send error: %s: %s\n", gr_err_name(err), gr_producer_last_error(p));
        return o->keep_going ? 0 : -1;
    }
}

static int produce_file(gr_producer_t *p, opts_t *o, stats_t *st) {
    FILE *f = strcmp(o->file, "-") ? fopen(o->file, "r") : stdin;
    if (!f) {
        perror(o->file);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        if (n && line[n - 1] == '\n') line[--n] = 0;
        char *tab = memchr(line, '\t', (size_t)n);
        if (tab)
            rc = send_one(p, o, st, line, (size_t)(tab - line), tab + 1, (size_t)(n - (tab - line) - 1));
        else
            rc = send_one(p, o, st, NULL, 0, line, (size_t)n);
        gr_producer_poll(p, 0);
    }
    free(line);
    if (f != stdin) fclose(f);
    return rc;
}

static int produce_generated(gr_producer_t *p, opts_t *o, stats_t *st) {
    char *val = malloc((size_t)o->size + 1);
    for (long i = 0; i < o->size; i++) val[i] = (char)('a' + (i * 7 + i / 13) % 26);
    char key[32];
    for (long i = 0; i < o->count; i++) {
        int kl = snprintf(key, sizeof(key), "k%ld", i);
        if (o->size >= 8) memcpy(val, key, (size_t)kl < 8 ? (size_t)kl : 8);
        if (send_one(p, o, st, o->no_key ? NULL : key, (size_t)kl, val, (size_t)o->size)) {
            free(val);
            return -1;
        }
        if ((i & 1023) == 0) gr_producer_poll(p, 0);
    }
    free(val);
    return 0;
}

static int parse_args(int argc, char **argv, gr_conf_t *conf, opts_t *o) {
    char err[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fill")) {
            o->fill = 1;
            continue;
        }
        if (!strcmp(a, "--check-order")) {
            o->check_order = 1;
            continue;
        }
        if (!strcmp(a, "-K")) {
            o->no_key = 1;
            continue;
        }
        if (!strcmp(a, "--keep-going")) {
            o->keep_going = 1;
            continue;
        }
        if (!v) return -1;
        i++;
        if (!strcmp(a, "-b")) {
            if (gr_conf_set(conf, "bootstrap.servers", v, err, sizeof(err))) goto bad;
        } else if (!strcmp(a, "-X")) {
            char name[256];
            const char *eq = strchr(v, '=');
            if (!eq || (size_t)(eq - v) >= sizeof(name)) return -1;
            snprintf(name, sizeof(name), "%.*s", (int)(eq - v), v);
            if (gr_conf_set(conf, name, eq + 1, err, sizeof(err))) goto bad;
        } else if (!strcmp(a, "-t"))
            o->topic = v;
        else if (!strcmp(a, "-f"))
            o->file = v;
        else if (!strcmp(a, "-n"))
            o->count = atol(v);
        else if (!strcmp(a, "-s"))
            o->size = atol(v);
        else if (!strcmp(a, "-p"))
            o->partition = atoi(v);
        else
            return -1;
    }
    return o->topic && (o->file || o->count > 0 || o->fill) ? 0 : -1;
bad:
    printf("config error: %s\n", err);
    return -1;
}

int main(int argc, char **argv) {
    gr_conf_t *conf = gr_conf_new(GR_CONF_PRODUCER);
    opts_t o = {NULL, NULL, 0, 100, GR_PARTITION_ANY, 0, 0, 0, 0, 0};
    if (parse_args(argc, argv, conf, &o)) {
        fprintf(stderr,
                "usage: client_produce -b HOST:PORT -t TOPIC [-X k=v]... (-f FILE | -n N [-s SIZE]) [--fill]\n");
        gr_conf_destroy(conf);
        return 2;
    }
    if (o.fill && o.count == 0) o.count = 1L << 40;
    gr_producer_t *p;
    char err[512];
    if (gr_producer_new(conf, &p, err, sizeof(err))) {
        printf("producer error: %s\n", err);
        gr_conf_destroy(conf);
        return 1;
    }
    gr_conf_destroy(conf);
    stats_t *st = calloc(1, sizeof(*st));
    for (int i = 0; i < 1024; i++) st->last_offset[i] = -1;
    double t0 = now_s();
    int rc = o.file ? produce_file(p, &o, st) : produce_generated(p, &o, st);
    gr_err_t ferr = gr_producer_flush(p, 120000);
    double dt = now_s() - t0;
    if (ferr) printf("flush error: %s: %s\n", gr_err_name(ferr), gr_producer_last_error(p));
    gr_producer_destroy(p);
    printf("delivered=%zu failed=%zu\n", st->delivered, st->failed);
    if (o.keep_going) printf("send errors=%ld\n", o.send_errors);
    if (st->failed) printf("first failure: %s: %s\n", gr_err_name(st->first_err), st->first_msg);
    if (o.check_order && st->order_errors) printf("order errors: %zu\n", st->order_errors);
    fprintf(stderr, "%zu records in %.3f s: %.0f msg/s, %.1f MB/s\n", st->delivered, dt, st->delivered / dt,
            st->delivered * (double)(o.size > 0 ? o.size : 0) / dt / 1e6);
    int ok = rc == 0 && !o.send_errors && !ferr && st->failed == 0 && (!o.check_order || st->order_errors == 0);
    free(st);
    return ok ? 0 : 1;
}
