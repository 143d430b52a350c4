/* A consumer-group member: subscribes to TOPIC in GROUP, prints every record, commits
 * synchronously after each record (so a restart resumes right after the last one printed)
 * and reports rebalances. Stops after MAX records or 10 s without records, then closes
 * (which leaves the group). PROTOCOL: classic (default) or consumer (KIP-848).
 *
 *   cc group_consumer.c $(pkg-config --cflags --libs gregor) -o group_consumer
 *   ./group_consumer localhost:9092 my-group my-topic [MAX [PROTOCOL]]
 */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>

static void on_rebalance(gr_consumer_t *c, gr_rebalance_event_t event, const gr_topic_partition_t *parts, size_t n,
                         void *opaque) {
    (void)c, (void)opaque;
    const char *what = event == GR_REBALANCE_ASSIGNED ? "assigned" : event == GR_REBALANCE_REVOKED ? "revoked" : "lost";
    fprintf(stderr, "%s:", what);
    for (size_t i = 0; i < n; i++) fprintf(stderr, " %s-%d", parts[i].topic, (int)parts[i].partition);
    fprintf(stderr, "\n");
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s BOOTSTRAP GROUP TOPIC [MAX [PROTOCOL]]\n", argv[0]);
        return 2;
    }
    long max = argc > 4 ? atol(argv[4]) : -1, count = 0;
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    if (gr_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof(errstr)) ||
        gr_conf_set(conf, "group.id", argv[2], errstr, sizeof(errstr)) ||
        gr_conf_set(conf, "auto.offset.reset", "earliest", errstr, sizeof(errstr)) ||
        gr_conf_set(conf, "enable.auto.commit", "false", errstr, sizeof(errstr)) ||
        (argc > 5 && gr_conf_set(conf, "group.protocol", argv[5], errstr, sizeof(errstr)))) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    gr_consumer_t *c;
    gr_err_t err = gr_consumer_new(conf, &c, errstr, sizeof(errstr));
    gr_conf_destroy(conf); /* the consumer keeps its own copy */
    if (err) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    gr_consumer_set_rebalance_cb(c, on_rebalance, NULL);
    const char *topics[] = {argv[3]};
    if (gr_consumer_subscribe(c, topics, 1)) {
        fprintf(stderr, "%s\n", gr_consumer_last_error(c));
        return 1;
    }
    int idle = 0;
    while ((max < 0 || count < max) && idle < 10000) {
        const gr_consumer_msg_t *m;
        if ((err = gr_consumer_poll(c, 100, &m))) {
            fprintf(stderr, "poll: %s\n", gr_consumer_last_error(c));
            break;
        }
        if (!m) {
            idle += count ? 100 : 0; /* wait for the first record as long as it takes */
            continue;
        }
        idle = 0;
        size_t len;
        const char *v = gr_consumer_msg_value(m, &len);
        printf("%s-%d@%lld: %.*s\n", gr_consumer_msg_topic(m), (int)gr_consumer_msg_partition(m),
               (long long)gr_consumer_msg_offset(m), (int)len, v ? v : "");
        count++;
        if (gr_consumer_commit(c, NULL, 0, -1)) fprintf(stderr, "commit: %s\n", gr_consumer_last_error(c));
    }
    err = gr_consumer_close(c, -1);
    gr_consumer_destroy(c);
    return err ? 1 : 0;
}
