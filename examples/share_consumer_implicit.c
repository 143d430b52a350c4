/* A share consumer in implicit mode (the default): every poll accepts the records of
 * the previous poll, so the loop only processes. Stops after MAX records or after 10 s
 * without records, then closes (which leaves the group).
 *
 *   cc share_consumer_implicit.c $(pkg-config --cflags --libs gregor) -o share_consumer_implicit
 *   ./share_consumer_implicit localhost:9092 my-share-group my-topic [MAX]
 */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s BOOTSTRAP GROUP TOPIC [MAX]\n", argv[0]);
        return 2;
    }
    long max = argc > 4 ? atol(argv[4]) : -1, count = 0;
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    if (gr_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof(errstr)) ||
        gr_conf_set(conf, "group.id", argv[2], errstr, sizeof(errstr))) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    gr_share_consumer_t *c;
    gr_err_t err = gr_share_consumer_new(conf, &c, errstr, sizeof(errstr));
    gr_conf_destroy(conf); /* the consumer keeps its own copy */
    if (err) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    const char *topics[] = {argv[3]};
    gr_share_consumer_subscribe(c, topics, 1);
    for (int idle = 0; idle < 100 && (max < 0 || count < max);) {
        gr_share_batch_t *batch;
        err = gr_share_consumer_poll(c, 100, &batch); /* accepts the previous batch */
        if (err) {
            fprintf(stderr, "poll: %s: %s\n", gr_err_name(err), gr_share_consumer_last_error(c));
            break;
        }
        idle = gr_share_batch_count(batch) ? 0 : idle + 1;
        for (size_t i = 0; i < gr_share_batch_count(batch); i++) {
            const gr_share_record_t *r = gr_share_batch_record(batch, i);
            size_t len;
            const char *value = gr_share_record_value(r, &len);
            printf("%s-%d@%lld: %.*s\n", gr_share_record_topic(r), (int)gr_share_record_partition(r),
                   (long long)gr_share_record_offset(r), (int)len, value ? value : "");
            count++;
        }
    }
    gr_share_consumer_commit_sync(c, -1, NULL); /* accept the last batch before leaving */
    gr_share_consumer_close(c, -1);
    gr_share_consumer_destroy(c);
    printf("consumed %ld records\n", count);
    return 0;
}
