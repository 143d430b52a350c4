/* The RENEW pattern for long processing (KIP-1222), as in the KafkaShareConsumer docs:
 * while a record takes longer than the acquisition lock (acquisition_lock_timeout_ms),
 * acknowledge it with RENEW and commit_sync to restart the lock, keep working, then
 * ACCEPT it. Here each record "takes" WORK_MS; the lock is renewed every half lock.
 * (A real application runs the work on another thread and renews from the poll loop;
 * the consumer itself is single-threaded.)
 *
 *   ./share_consumer_renew localhost:9092 my-share-group my-topic [MAX] [WORK_MS]
 */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Process one record for work_ms, renewing its lock; returns 0 or the renew error. */
static gr_err_t long_processing(gr_share_consumer_t *c, const gr_share_record_t *r, long work_ms) {
    long long start = now_ms();
    while (now_ms() - start < work_ms) {
        int32_t lock = gr_share_consumer_acquisition_lock_timeout_ms(c);
        usleep((useconds_t)(lock > 0 ? lock / 2 : 500) * 1000); /* ... a slice of the work ... */
        if (now_ms() - start >= work_ms) break;
        gr_err_t err = gr_share_consumer_acknowledge(c, r, GR_ACK_RENEW);
        if (!err) err = gr_share_consumer_commit_sync(c, -1, NULL);
        if (err) return err; /* the lock is lost: another member may get the record */
    }
    return GR_ERR_NONE;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s BOOTSTRAP GROUP TOPIC [MAX] [WORK_MS]\n", argv[0]);
        return 2;
    }
    long max = argc > 4 ? atol(argv[4]) : -1, work_ms = argc > 5 ? atol(argv[5]) : 3000, done = 0, failures = 0;
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_CONSUMER);
    gr_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof(errstr));
    gr_conf_set(conf, "group.id", argv[2], errstr, sizeof(errstr));
    gr_conf_set(conf, "share.acknowledgement.mode", "explicit", errstr, sizeof(errstr)); /* RENEW needs it */
    gr_conf_set(conf, "max.poll.records", "1", errstr, sizeof(errstr));
    gr_conf_set(conf, "share.acquire.mode", "record_limit", errstr, sizeof(errstr));
    gr_share_consumer_t *c;
    gr_err_t err = gr_share_consumer_new(conf, &c, errstr, sizeof(errstr));
    gr_conf_destroy(conf);
    if (err) {
        fprintf(stderr, "%s\n", errstr);
        return 1;
    }
    const char *topics[] = {argv[3]};
    gr_share_consumer_subscribe(c, topics, 1);
    for (int idle = 0; idle < 100 && (max < 0 || done < max);) {
        gr_share_batch_t *batch;
        if ((err = gr_share_consumer_poll(c, 100, &batch))) {
            fprintf(stderr, "poll: %s: %s\n", gr_err_name(err), gr_share_consumer_last_error(c));
            break;
        }
        idle = gr_share_batch_count(batch) ? 0 : idle + 1;
        for (size_t i = 0; i < gr_share_batch_count(batch); i++) {
            const gr_share_record_t *r = gr_share_batch_record(batch, i);
            if ((err = long_processing(c, r, work_ms))) {
                fprintf(stderr, "renew failed: %s: %s\n", gr_err_name(err), gr_share_consumer_last_error(c));
                failures++;
                gr_share_consumer_acknowledge(c, r, GR_ACK_RELEASE);
                continue;
            }
            gr_share_consumer_acknowledge(c, r, GR_ACK_ACCEPT);
            done++;
        }
        if (gr_share_batch_count(batch)) gr_share_consumer_commit_sync(c, -1, NULL);
    }
    gr_share_consumer_close(c, -1);
    gr_share_consumer_destroy(c);
    printf("processed %ld records, %ld renew failures\n", done, failures);
    return 0;
}
