/* Reading offset ranges to their end (redrive_read.h). The plain consumer has no
 * end-of-partition signal, so each range ends at an end offset asked for beforehand: the
 * read is over when every range has given the record just below its end, or when nothing
 * arrived for RD_IDLE_MS (RD_FIRST_IDLE_MS before the first record) (the last offsets below the end hold no record: control records of
 * transactions, compacted or removed records). */
#include "redrive_read.h"

#include <stdlib.h>
#include <string.h>

#define RD_IDLE_MS       3000
#define RD_FIRST_IDLE_MS 15000 /* before the first record: connecting, metadata, leaders */

gr_consumer_t *rd_consumer(const cli_vals_t *v) {
    const char *props[] = {"fetch.max.wait.ms=100"};
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, props, 1);
    if (!conf) return NULL;
    gr_consumer_t *c = NULL;
    char err[512];
    if (gr_consumer_new(conf, &c, err, sizeof(err)) != GR_ERR_NONE) cli_fail("%s", err);
    gr_conf_destroy(conf);
    return c;
}

/* The headers of m as rd_hdr_t (*out malloc'd, *n their number). */
static void msg_headers(const gr_consumer_msg_t *m, rd_hdr_t **out, size_t *n) {
    *n = gr_consumer_msg_header_count(m);
    *out = calloc(*n ? *n : 1, sizeof(**out));
    if (!*out) abort();
    for (size_t i = 0; i < *n; i++) {
        rd_hdr_t *h = &(*out)[i];
        if (gr_consumer_msg_header(m, i, &h->key, &h->key_len, &h->val, &h->val_len) != GR_ERR_NONE)
            memset(h, 0, sizeof(*h));
    }
}

/* Index of the range m belongs to, or -1. */
static long range_of(const rd_range_t *r, size_t n, const gr_consumer_msg_t *m) {
    const char *t = gr_consumer_msg_topic(m);
    int32_t p = gr_consumer_msg_partition(m);
    for (size_t i = 0; i < n; i++)
        if (r[i].partition == p && !strcmp(r[i].topic, t)) return (long)i;
    return -1;
}

int rd_read(const cli_vals_t *v, const rd_range_t *r, size_t n, rd_rec_cb *cb, void *opaque) {
    size_t open = 0;
    for (size_t i = 0; i < n; i++) open += r[i].start < r[i].end;
    if (!open) return CLI_OK;
    gr_consumer_t *c = rd_consumer(v);
    if (!c) return CLI_FAIL;
    bool *done = calloc(n, sizeof(*done));
    if (!done) abort();
    int rc = CLI_OK;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        done[i] = r[i].start >= r[i].end;
        if (!done[i] && gr_consumer_assign(c, r[i].topic, r[i].partition, r[i].start) != GR_ERR_NONE)
            rc = cli_fail("%s", gr_consumer_last_error(c));
    }
    int idle = 0;
    bool any = false;
    while (rc == CLI_OK && open && idle < (any ? RD_IDLE_MS : RD_FIRST_IDLE_MS)) {
        const gr_consumer_msg_t *m = NULL;
        if (gr_consumer_poll(c, 200, &m) != GR_ERR_NONE) {
            rc = cli_fail("%s", gr_consumer_last_error(c));
            break;
        }
        if (!m) {
            idle += 200;
            continue;
        }
        idle = 0, any = true;
        long i = range_of(r, n, m);
        if (i < 0 || done[i]) continue;
        int64_t off = gr_consumer_msg_offset(m);
        if (off >= r[i].end) {
            done[i] = true, open--;
            continue;
        }
        if (off >= r[i].start) {
            rd_hdr_t *h;
            size_t nh;
            msg_headers(m, &h, &nh);
            bool more = cb(opaque, m, h, nh);
            free(h);
            if (!more) break;
        }
        if (off >= r[i].end - 1) done[i] = true, open--;
    }
    free(done);
    gr_consumer_destroy(c);
    return rc;
}
