/* Helpers of the share-partition unit tests (test_sp.c, test_sp_ack.c): a
 * default configuration, acquisition from log batches, acknowledgements, and
 * checks that run gr_sp_check after every step. */
#ifndef GR_TESTS_SP_TEST_UTIL_H
#define GR_TESTS_SP_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "share/sp.h"
#include "testutil.h"

static const gr_sp_conf_t CONF = {5, 2000, 30000};

static gr_sp_acquire_res_t g_res; /* gr_sp_acquire_res_init'ed by main */

static inline void chk(const gr_sp_t *sp, const gr_sp_conf_t *conf) {
    char why[256];
    gr_err_t err = gr_sp_check(sp, conf, why, sizeof(why));
    if (err) GR__FAIL("invariant: %s", why);
}

/* Acquire from the log batches (pairs of base,last) given as a flat list. */
static inline gr_sp_acquire_res_t *acq(gr_sp_t *sp, const char *member, int32_t max, int32_t bs, int mode,
                                       const gr_sp_conf_t *conf, int64_t now, const int64_t *lb, size_t nlb) {
    gr_sp_acquire_res_t *res = &g_res;
    gr_sp_log_batch_t b[64];
    for (size_t i = 0; i < nlb; i++) b[i] = (gr_sp_log_batch_t){lb[2 * i], lb[2 * i + 1]};
    gr_sp_acquire_req_t req = {member, max, bs, (int8_t)mode, b, nlb};
    ASSERT_EQ(gr_sp_acquire(sp, &req, conf, now, res, NULL), GR_ERR_NONE);
    chk(sp, conf);
    return res;
}

#define LB(...) (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / 16

static inline gr_err_t ackv(gr_sp_t *sp, const char *member, int64_t first, int64_t last, const int8_t *types,
                            size_t nt, int64_t now, gr_sp_delta_t *d) {
    gr_sp_ack_batch_t b = {first, last, types, nt};
    gr_sp_ack_req_t req = {member, &b, 1, true, true};
    gr_err_t err = gr_sp_acknowledge(sp, &req, &CONF, now, d, NULL, 0);
    chk(sp, &CONF);
    return err;
}

static inline gr_err_t ack1(gr_sp_t *sp, const char *member, int64_t first, int64_t last, int type, int64_t now) {
    int8_t t = (int8_t)type;
    return ackv(sp, member, first, last, &t, 1, now, NULL);
}

static inline int st(const gr_sp_t *sp, int64_t off) {
    int s = -1;
    return gr_sp_record(sp, off, &s, NULL, NULL, NULL) ? s : -1;
}

static inline int cnt(const gr_sp_t *sp, int64_t off) {
    int16_t c = -1;
    return gr_sp_record(sp, off, NULL, &c, NULL, NULL) ? c : -1;
}

static inline void expect_range(const gr_sp_acquire_res_t *r, size_t i, int64_t f, int64_t l, int c) {
    if (i >= r->n || r->ranges[i].first_offset != f || r->ranges[i].last_offset != l) {
        for (size_t k = 0; k < r->n; k++)
            fprintf(stderr, "  got [%lld,%lld,%d]\n", (long long)r->ranges[k].first_offset,
                    (long long)r->ranges[k].last_offset, r->ranges[k].delivery_count);
    }
    ASSERT(i < r->n);
    ASSERT_EQ(r->ranges[i].first_offset, f);
    ASSERT_EQ(r->ranges[i].last_offset, l);
    ASSERT_EQ(r->ranges[i].delivery_count, c);
}

static inline gr_sp_t *mk(int64_t spso) {
    gr_sp_t *sp = gr_sp_new();
    gr_sp_init_offset(sp, spso, 0);
    return sp;
}

#endif
