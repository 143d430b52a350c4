/* libFuzzer target: the input bytes are a sequence of share-partition
 * operations (acquire, acknowledge with arbitrary batches and types, expiry,
 * member release, log-start movement, restart from the export), with the
 * delayed redelivery off or on (a random backoff). After every
 * step gr_sp_check() must pass, SPSO must not move back and an
 * acknowledgement that fails must leave the state untouched. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "share/sp.h"

typedef struct in {
    const uint8_t *p;
    size_t n;
} in_t;

static uint32_t take(in_t *in, uint32_t mod) {
    uint32_t v = 0;
    for (int i = 0; i < 2 && in->n; i++, in->p++, in->n--) v = (v << 8) | *in->p;
    return mod ? v % mod : v;
}

static const char *MEM[4] = {"a", "b", "c", "d"};

static void check(const gr_sp_t *sp, const gr_sp_conf_t *conf, int64_t *spso) {
    char why[256];
    if (gr_sp_check(sp, conf, why, sizeof(why))) {
        fprintf(stderr, "invariant: %s\n", why);
        abort();
    }
    assert(gr_sp_start_offset(sp) >= *spso);
    *spso = gr_sp_start_offset(sp);
}

static void op_acquire(gr_sp_t *sp, in_t *in, const gr_sp_conf_t *conf, int64_t now, gr_sp_acquire_res_t *res,
                       gr_sp_delta_t *d) {
    gr_sp_log_batch_t b[8];
    int64_t o = gr_sp_next_fetch_offset(sp) - (int64_t)take(in, 4);
    size_t n = take(in, 9);
    for (size_t i = 0; i < n; i++) {
        o += take(in, 3); /* compaction gaps */
        int64_t len = 1 + take(in, 16);
        b[i] = (gr_sp_log_batch_t){o, o + len - 1};
        o += len;
    }
    gr_sp_acquire_req_t req = {
        MEM[take(in, 4)], (int32_t)take(in, 40), (int32_t)take(in, 20), (int8_t)take(in, 3), b, n};
    int64_t before = gr_sp_acquired_count(sp);
    gr_err_t err = gr_sp_acquire(sp, &req, conf, now, res, d);
    if (err) return;
    /* read_committed: some of the batches read are aborted transactions' data. */
    gr_sp_offsets_t ab[8];
    size_t nab = 0;
    for (size_t i = 0; i < n; i++)
        if (take(in, 3) == 0) ab[nab++] = (gr_sp_offsets_t){b[i].base_offset, b[i].last_offset};
    if (nab) gr_sp_drop_aborted(sp, ab, nab, res, d);
    for (size_t i = 0; i < res->n; i++)
        for (size_t j = 0; j < nab; j++)
            assert(res->ranges[i].last_offset < ab[j].first || res->ranges[i].first_offset > ab[j].last);
    assert(gr_sp_acquired_count(sp) == before + res->n_records);
    for (size_t i = 1; i < res->n; i++) assert(res->ranges[i].first_offset > res->ranges[i - 1].last_offset);
    if (req.mode == GR_SP_MODE_RECORD_LIMIT) assert(res->n_records <= (req.max_records > 0 ? req.max_records : 0));
}

static void op_ack(gr_sp_t *sp, in_t *in, const gr_sp_conf_t *conf, int64_t now, gr_sp_delta_t *d) {
    gr_sp_ack_batch_t b[4];
    int8_t types[4][16];
    size_t nb = 1 + take(in, 4);
    int64_t o = gr_sp_start_offset(sp) - 4 + (int64_t)take(in, 64);
    for (size_t i = 0; i < nb; i++) {
        int64_t len = (int64_t)take(in, 17) - 1; /* 0 length = inverted batch */
        b[i].first_offset = o;
        b[i].last_offset = o + len - 1;
        b[i].n_types = take(in, 2) ? 1 : (size_t)take(in, 17);
        for (size_t t = 0; t < b[i].n_types; t++) types[i][t] = (int8_t)(take(in, 7) - 1);
        b[i].types = types[i];
        o = b[i].last_offset + (int64_t)take(in, 4) - 1;
    }
    gr_sp_ack_req_t req = {MEM[take(in, 4)], b, nb, take(in, 2), take(in, 4) != 0};
    int64_t acq = gr_sp_acquired_count(sp), spso = gr_sp_start_offset(sp);
    size_t nr = gr_sp_range_count(sp);
    gr_err_t err = gr_sp_acknowledge(sp, &req, conf, now, d, NULL, 0);
    assert(err == GR_ERR_NONE || err == GR_ERR_INVALID_REQUEST || err == GR_ERR_INVALID_RECORD_STATE);
    if (err) { /* all or nothing */
        assert(gr_sp_acquired_count(sp) == acq);
        assert(gr_sp_start_offset(sp) == spso);
        assert(gr_sp_range_count(sp) == nr);
    }
}

static int64_t g_backoff, g_backoff_max; /* delayed redelivery of this input */

static gr_sp_t *restart(gr_sp_t *sp) {
    gr_sp_snapshot_t s;
    gr_sp_delta_init(&s);
    gr_sp_export(sp, &s);
    gr_sp_t *nsp = gr_sp_new();
    gr_sp_set_redelivery_backoff(nsp, g_backoff, g_backoff_max);
    gr_err_t err = gr_sp_init_persisted(nsp, s.start_offset, s.state_epoch, s.batches, s.n, NULL, 0);
    assert(err == GR_ERR_NONE);
    assert(gr_sp_start_offset(nsp) == gr_sp_start_offset(sp));
    assert(gr_sp_acquired_count(nsp) == 0);
    gr_sp_delta_free(&s);
    gr_sp_destroy(sp);
    return nsp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    in_t in = {data, size};
    gr_sp_conf_t conf = {2 + (int32_t)take(&in, 8), 1 + (int32_t)take(&in, 200), 1 + take(&in, 1000)};
    gr_sp_t *sp = gr_sp_new();
    g_backoff = take(&in, 2) ? 1 + take(&in, 500) : 0;
    g_backoff_max = 1 + take(&in, 3000);
    gr_sp_set_redelivery_backoff(sp, g_backoff, g_backoff_max);
    gr_sp_init_offset(sp, take(&in, 100), 0);
    gr_sp_acquire_res_t res;
    gr_sp_acquire_res_init(&res);
    gr_sp_delta_t d;
    gr_sp_delta_init(&d);
    int64_t now = 0, spso = gr_sp_start_offset(sp);
    while (in.n) {
        switch (take(&in, 7)) {
        case 0:
        case 1: op_acquire(sp, &in, &conf, now, &res, &d); break;
        case 2:
        case 3: op_ack(sp, &in, &conf, now, &d); break;
        case 4:
            now += take(&in, 2000);
            gr_sp_expire(sp, &conf, now, &d);
            break;
        case 5: gr_sp_release_member(sp, &conf, MEM[take(&in, 4)], &d); break;
        default:
            if (take(&in, 2))
                gr_sp_update_log_start(sp, gr_sp_start_offset(sp) + take(&in, 40), &d);
            else
                sp = restart(sp);
            break;
        }
        check(sp, &conf, &spso);
        for (size_t i = 0; i < d.n; i++) {
            assert(d.batches[i].state != GR_SP_ACQUIRED);
            assert(d.batches[i].first_offset >= d.start_offset);
        }
        gr_sp_delta_reset(&d);
    }
    gr_sp_acquire_res_free(&res);
    gr_sp_delta_free(&d);
    gr_sp_destroy(sp);
    return 0;
}

#ifdef GR_FUZZ_STANDALONE
/* Without libFuzzer: run random inputs (smoke test). */
int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    uint64_t x = 88172645463325252ull;
    uint8_t buf[4096];
    for (int i = 0; i < iters; i++) {
        size_t n = (size_t)(x % sizeof(buf));
        for (size_t k = 0; k < n; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[k] = (uint8_t)x;
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    fprintf(stderr, "%d inputs OK\n", iters);
    return 0;
}
#endif
