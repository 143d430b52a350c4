/* A share consumer in explicit mode with per-record error handling, the KafkaShareConsumer
 * pattern: ACCEPT what was processed, REJECT what cannot be (it is never delivered
 * again), RELEASE what failed for a transient reason (it comes back, delivery count + 1),
 * then commit_sync and look at the per-partition results. Here "processing" fails for
 * values ending in "3" (rejected) and, on the first delivery only, for values ending in
 * "7" (released, then accepted on redelivery).
 *
 *   ./share_consumer_explicit localhost:9092 my-share-group my-topic [MAX]
 */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>

static long accepted, rejected;

/* Returns the acknowledgement for one record. */
static gr_ack_type_t process(const gr_share_record_t *r) {
    size_t len;
    const char *v = gr_share_record_value(r, &len);
    char last = v && len ? v[len - 1] : 0;
    if (last == '3') return GR_ACK_REJECT;                                            /* permanent failure */
    if (last == '7' && gr_share_record_delivery_count(r) == 1) return GR_ACK_RELEASE; /* retry later */
    return GR_ACK_ACCEPT;
}

/* Runs on this thread inside poll / commit_sync / close with the broker's answers. */
static void on_commit(gr_share_consumer_t *c, const gr_share_ack_result_t *res, void *opaque) {
    (void)c, (void)opaque;
    for (size_t i = 0; i < gr_share_ack_result_count(res); i++)
        if (gr_share_ack_result_error(res, i))
            fprintf(stderr, "acknowledgement of %s-%d failed: %s\n", gr_share_ack_result_topic(res, i),
                    (int)gr_share_ack_result_partition(res, i), gr_share_ack_result_errstr(res, i));
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s BOOTSTRAP GROUP TOPIC [MAX]\n", argv[0]);
        return 2;
    }
    long max = argc > 4 ? atol(argv[4]) : -1;
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof(errstr));
    gr_conf_set(conf, "group.id", argv[2], errstr, sizeof(errstr));
    gr_conf_set(conf, "share.acknowledgement.mode", "explicit", errstr, sizeof(errstr));
    gr_share_consumer_t *c;
    gr_err_t err = gr_share_consumer_new(conf, &c, errstr, sizeof(errstr));
    gr_conf_destroy(conf);
    if (err) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    gr_share_consumer_set_commit_cb(c, on_commit, NULL);
    const char *topics[] = {argv[3]};
    gr_share_consumer_subscribe(c, topics, 1);
    for (int idle = 0; idle < 100 && (max < 0 || accepted + rejected < max);) {
        gr_share_batch_t *batch;
        if ((err = gr_share_consumer_poll(c, 100, &batch))) {
            fprintf(stderr, "poll: %s: %s\n", gr_err_name(err), gr_share_consumer_last_error(c));
            break;
        }
        idle = gr_share_batch_count(batch) ? 0 : idle + 1;
        for (size_t i = 0; i < gr_share_batch_count(batch); i++) {
            const gr_share_record_t *r = gr_share_batch_record(batch, i);
            gr_ack_type_t t = process(r);
            if ((err = gr_share_consumer_acknowledge(c, r, t)))
                fprintf(stderr, "acknowledge: %s\n", gr_share_consumer_last_error(c));
            accepted += t == GR_ACK_ACCEPT;
            rejected += t == GR_ACK_REJECT;
        }
        if (gr_share_batch_count(batch)) {
            gr_share_ack_result_t *res = NULL;
            if ((err = gr_share_consumer_commit_sync(c, -1, &res)))
                fprintf(stderr, "commit: %s: %s\n", gr_err_name(err), gr_share_consumer_last_error(c));
            gr_share_ack_result_destroy(res);
        }
    }
    gr_share_consumer_close(c, -1);
    gr_share_consumer_destroy(c);
    printf("accepted %ld, rejected %ld\n", accepted, rejected);
    return 0;
}
