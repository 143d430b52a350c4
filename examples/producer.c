/* A minimal libgregor producer: every line of stdin becomes one record of TOPIC
 * ("key<TAB>value" lines get a key), delivery reports are counted, extra Kafka
 * properties come as name=value arguments.
 *
 *   cc producer.c $(pkg-config --cflags --libs gregor) -o producer
 *   printf 'k1\thello\nworld\n' | ./producer localhost:9092 my-topic acks=all compression.type=lz4
 */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t delivered, failed;

/* Runs inside gr_producer_poll / gr_producer_flush, on this thread. */
static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    (void)p;
    (void)opaque;
    if (gr_delivery_error(d)) {
        if (failed++ == 0) fprintf(stderr, "delivery failed: %s\n", gr_delivery_errstr(d));
        return;
    }
    delivered++;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s BOOTSTRAP TOPIC [name=value]...\n", argv[0]);
        return 2;
    }
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_PRODUCER);
    if (gr_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof(errstr))) goto conf_error;
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "expected name=value: %s\n", argv[i]);
            gr_conf_destroy(conf);
            return 2;
        }
        *eq = 0;
        if (gr_conf_set(conf, argv[i], eq + 1, errstr, sizeof(errstr))) goto conf_error;
    }
    gr_producer_t *p;
    if (gr_producer_new(conf, &p, errstr, sizeof(errstr))) goto conf_error;
    gr_conf_destroy(conf); /* the producer keeps its own copy */

    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') line[--n] = 0;
        char *tab = memchr(line, '\t', (size_t)n);
        const char *key = tab ? line : NULL, *value = tab ? tab + 1 : line;
        size_t key_len = tab ? (size_t)(tab - line) : 0, value_len = (size_t)n - (tab ? key_len + 1 : 0);
        gr_err_t err;
        while ((err = gr_producer_send(p, argv[2], GR_PARTITION_ANY, key, key_len, value, value_len, NULL,
                                       GR_TIMESTAMP_NOW, on_delivery, NULL)) == GR_ERR__QUEUE_FULL)
            gr_producer_poll(p, 100); /* buffer.memory is full: let deliveries complete */
        if (err) {
            fprintf(stderr, "send failed: %s: %s\n", gr_err_name(err), gr_producer_last_error(p));
            break;
        }
        gr_producer_poll(p, 0); /* serve delivery reports as we go */
    }
    free(line);
    if (gr_producer_flush(p, 30000)) fprintf(stderr, "flush: %s\n", gr_producer_last_error(p));
    gr_producer_destroy(p);
    printf("%zu delivered, %zu failed\n", delivered, failed);
    return failed ? 1 : 0;

conf_error:
    fprintf(stderr, "configuration error: %s\n", errstr);
    gr_conf_destroy(conf);
    return 1;
}
