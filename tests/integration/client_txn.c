/* Test program for libgregor's transactional producer (public API only), driven by
 * tests/integration/test_libgregor_txn.sh.
 *
 *   client_txn BOOTSTRAP TOPIC TXN_ID STEP... [-X name=value]...
 * Steps run in order on one producer (after init_transactions):
 *   commit:N      begin, send N records ("<txn id>-c<i>"), commit
 *   abort:N       begin, send N records ("<txn id>-a<i>"), flush, abort
 *   abort-unsent:N  begin, send N records, abort at once (records not sent fail)
 *   offsets:GROUP:OFF  begin, send one record, send offset OFF of TOPIC partition 0 for
 *                 GROUP, commit
 *   hold:N        begin, send N records, flush, then wait on stdin (a line) before
 *                 committing: a second instance started meanwhile fences this one
 *   send-outside  send without begin (must be refused)
 * Prints one line per step: "<step> ok" or "<step> error <code> <message>", and for each
 * failed delivery "delivery error <code> <message>" once per step.
 * Exit status: 0 if every step did what it names, 1 otherwise, 2 on usage errors. */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed_deliveries;
static char first_delivery_err[512];

static void on_delivery(gr_producer_t *p, const gr_delivery_t *d, void *opaque) {
    (void)p, (void)opaque;
    if (gr_delivery_error(d) && failed_deliveries++ == 0)
        snprintf(first_delivery_err, sizeof(first_delivery_err), "%d %s", (int)gr_delivery_error(d),
                 gr_delivery_errstr(d));
}

static int report(const char *step, gr_producer_t *p, gr_err_t err) {
    if (err)
        printf("%s error %d %s\n", step, (int)err, gr_producer_last_error(p));
    else
        printf("%s ok\n", step);
    if (failed_deliveries) printf("delivery error %s (%d records)\n", first_delivery_err, failed_deliveries);
    failed_deliveries = 0;
    fflush(stdout);
    return err ? 1 : 0;
}

static gr_err_t send_n(gr_producer_t *p, const char *topic, const char *id, char tag, int n) {
    for (int i = 0; i < n; i++) {
        char v[300];
        int len = snprintf(v, sizeof(v), "%s-%c%d", id, tag, i);
        gr_err_t err = gr_producer_send(p, topic, GR_PARTITION_ANY, NULL, 0, v, (size_t)len, NULL, GR_TIMESTAMP_NOW,
                                        on_delivery, NULL);
        if (err) return err;
    }
    return GR_ERR_NONE;
}

static int run_step(gr_producer_t *p, const char *topic, const char *id, const char *step) {
    gr_err_t err;
    int n = strchr(step, ':') ? atoi(strchr(step, ':') + 1) : 0;
    if (!strncmp(step, "commit:", 7)) {
        err = gr_producer_begin_transaction(p);
        if (!err) err = send_n(p, topic, id, 'c', n);
        if (!err) err = gr_producer_commit_transaction(p, 30000);
        return report(step, p, err);
    }
    if (!strncmp(step, "abort:", 6) || !strncmp(step, "abort-unsent:", 13)) {
        bool flush = step[5] == ':';
        err = gr_producer_begin_transaction(p);
        if (!err) err = send_n(p, topic, id, 'a', n);
        if (!err && flush) err = gr_producer_flush(p, 30000);
        if (!err) err = gr_producer_abort_transaction(p, 30000);
        gr_producer_poll(p, 0);
        return report(step, p, err);
    }
    if (!strncmp(step, "offsets:", 8)) {
        char group[200];
        snprintf(group, sizeof(group), "%s", step + 8);
        char *c = strchr(group, ':');
        if (!c) return 2;
        *c = 0;
        int64_t off = atoll(c + 1);
        int32_t part = 0;
        const char *topics[1] = {topic};
        err = gr_producer_begin_transaction(p);
        if (!err) err = send_n(p, topic, id, 'o', 1);
        if (!err) err = gr_producer_send_offsets_to_transaction(p, group, topics, &part, &off, 1, 30000);
        if (!err) err = gr_producer_commit_transaction(p, 30000);
        return report(step, p, err);
    }
    if (!strncmp(step, "hold:", 5)) {
        err = gr_producer_begin_transaction(p);
        if (!err) err = send_n(p, topic, id, 'h', n);
        if (!err) err = gr_producer_flush(p, 30000);
        printf("holding\n");
        fflush(stdout);
        char line[16];
        if (!fgets(line, sizeof(line), stdin)) return 1;
        if (!err) err = gr_producer_commit_transaction(p, 30000);
        return report(step, p, err);
    }
    if (!strcmp(step, "send-outside")) {
        err = send_n(p, topic, id, 'x', 1);
        return report(step, p, err) ? 0 : 1; /* it must fail */
    }
    fprintf(stderr, "unknown step %s\n", step);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: client_txn BOOTSTRAP TOPIC TXN_ID STEP... [-X name=value]...\n");
        return 2;
    }
    char errstr[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_PRODUCER);
    gr_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof(errstr));
    gr_conf_set(conf, "transactional.id", argv[3], errstr, sizeof(errstr));
    int first_step = 4, last_step = argc;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "-X")) continue;
        if (last_step == argc) last_step = i;
        char *kv = i + 1 < argc ? argv[++i] : NULL, *eq = kv ? strchr(kv, '=') : NULL;
        if (eq) *eq = 0;
        if (!eq || gr_conf_set(conf, kv, eq + 1, errstr, sizeof(errstr))) {
            fprintf(stderr, "%s\n", eq ? errstr : "expected -X name=value");
            gr_conf_destroy(conf);
            return 2;
        }
    }
    gr_producer_t *p;
    gr_err_t err = gr_producer_new(conf, &p, errstr, sizeof(errstr));
    gr_conf_destroy(conf);
    if (err) {
        printf("new error %s\n", errstr);
        return 1;
    }
    int rc = report("init", p, gr_producer_init_transactions(p, 30000));
    for (int i = first_step; i < last_step && !rc; i++) rc = run_step(p, argv[2], argv[3], argv[i]);
    gr_producer_destroy(p);
    return rc;
}
