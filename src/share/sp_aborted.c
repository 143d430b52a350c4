/* Share-partition read_committed (share.isolation.level): the records an
 * acquisition took of the data batches of aborted transactions are ARCHIVED
 * at once, with the delivery count the acquisition gave them, and left out of
 * its AcquiredRecords, as Apache Kafka 4.4.0's SharePartition does after it
 * acquired them (filterAbortedTransactionalAcquiredRecords). An AcquiredRecords
 * entry that covers an aborted batch is split around it; the SPSO then moves
 * past archived records at the start of the window (§1.7).
 *
 * @locality the thread that owns the SP. */
#include "share/sp_int.h"

/* Archive the ACQUIRED records of [a, b]. */
static void archive_span(gr_sp_t *sp, int64_t a, int64_t b, gr_sp_delta_t *delta) {
    size_t i0, i1;
    gr__sp_isolate(sp, a, b, &i0, &i1);
    for (size_t i = i0; i < i1; i++) {
        gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (e->state == GR_SP_ACQUIRED) gr__sp_set(sp, i, GR_SP_ARCHIVED, e->count, 0, 0, delta);
    }
    for (size_t i = i1; i-- > i0;)
        if (i < sp->n) gr__sp_coalesce_at(sp, i);
}

static void push(gr_sp_acquire_res_t *out, int64_t first, int64_t last, int16_t count) {
    if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 16;
        out->ranges = gr__sp_xrealloc(out->ranges, out->cap, sizeof(*out->ranges));
    }
    out->ranges[out->n++] = (gr_sp_acquired_t){first, last, count};
    if (out->read_first < 0) out->read_first = first;
    out->read_last = last;
    out->n_records += last - first + 1;
}

void gr_sp_drop_aborted(gr_sp_t *sp, const gr_sp_offsets_t *aborted, size_t n_aborted, gr_sp_acquire_res_t *res,
                        gr_sp_delta_t *delta) {
    if (!res->n || !n_aborted) return;
    int64_t spso_before = sp->spso;
    gr_sp_acquire_res_t kept = {.read_first = -1, .read_last = -1};
    size_t k = 0; /* first aborted batch that may still overlap */
    for (size_t i = 0; i < res->n; i++) {
        gr_sp_acquired_t r = res->ranges[i];
        int64_t p = r.first_offset;
        while (k < n_aborted && aborted[k].last < p) k++;
        for (size_t j = k; j < n_aborted && aborted[j].first <= r.last_offset; j++) {
            const gr_sp_offsets_t *ab = &aborted[j];
            int64_t a = ab->first > p ? ab->first : p, b = ab->last < r.last_offset ? ab->last : r.last_offset;
            if (a > p) push(&kept, p, a - 1, r.delivery_count);
            archive_span(sp, a, b, delta);
            p = b + 1;
        }
        if (p <= r.last_offset) push(&kept, p, r.last_offset, r.delivery_count);
    }
    free(res->ranges);
    res->ranges = kept.ranges;
    res->n = kept.n;
    res->cap = kept.cap;
    res->n_records = kept.n_records;
    res->read_first = kept.read_first;
    res->read_last = kept.read_last;
    gr__sp_advance(sp);
    if (delta) gr__sp_delta_finish(sp, delta, spso_before);
}
