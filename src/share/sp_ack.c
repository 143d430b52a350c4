/* Share-partition acknowledgement (§3.3–3.5), lock expiry (§1.4), member
 * release (§1.3 rule 3) and log-start movement (§1.8).
 *
 * Acknowledgement is validated completely before anything changes, so a
 * partition's batches apply all-or-nothing without an undo log.
 *
 * @locality the thread that owns the SP. */

#include "share/sp_int.h"

#define FAIL(err, ...) return gr_err_fmt(err, errstr, errstr_size, __VA_ARGS__)

/* 121 for an offset that is not (or no longer) acquired: Kafka 4.4.0's text. */
#define MSG_NOT_ACQUIRED       "The offset cannot be acknowledged. The offset is not acquired."
#define MSG_BATCH_NOT_ACQUIRED "The batch cannot be acknowledged. The batch is not in the acquired state."

static int ack_type(const gr_sp_ack_batch_t *b, int64_t off) {
    return b->n_types == 1 ? b->types[0] : b->types[off - b->first_offset];
}

/* §3.3: malformed batches fail the partition with INVALID_REQUEST. */
static gr_err_t ack_validate(const gr_sp_ack_req_t *req, int *has_renew, char *errstr, size_t errstr_size) {
    *has_renew = 0;
    for (size_t i = 0; i < req->n_batches; i++) {
        const gr_sp_ack_batch_t *b = &req->batches[i];
        if (b->first_offset > b->last_offset) FAIL(GR_ERR_INVALID_REQUEST, "first offset > last offset");
        if (i && b->first_offset < req->batches[i - 1].last_offset)
            FAIL(GR_ERR_INVALID_REQUEST, "batches not in ascending order");
        if (b->n_types == 0) FAIL(GR_ERR_INVALID_REQUEST, "empty AcknowledgeTypes");
        if (b->n_types > 1 && (uint64_t)b->last_offset - (uint64_t)b->first_offset + 1 != (uint64_t)b->n_types)
            FAIL(GR_ERR_INVALID_REQUEST, "AcknowledgeTypes size does not match the batch");
        for (size_t t = 0; t < b->n_types; t++) {
            int ty = b->types[t];
            if (ty < GR_SP_ACK_GAP || ty > (req->is_renew_ack ? GR_SP_ACK_RENEW : GR_SP_ACK_REJECT))
                FAIL(GR_ERR_INVALID_REQUEST, "invalid acknowledge type %d", ty);
            if (ty == GR_SP_ACK_RENEW) *has_renew = 1;
        }
    }
    return GR_ERR_NONE;
}

/* §3.4: every covered offset ≥ SPSO must be ACQUIRED by this member. */
static gr_err_t ack_check(gr_sp_t *sp, const gr_sp_ack_req_t *req, uint32_t m, char *errstr, size_t errstr_size) {
    for (size_t i = 0; i < req->n_batches; i++) {
        const gr_sp_ack_batch_t *b = &req->batches[i];
        if (b->last_offset < sp->spso) continue; /* entirely below SPSO: ignored */
        if (sp->end == sp->spso) FAIL(GR_ERR_INVALID_RECORD_STATE, "%s", MSG_NOT_ACQUIRED);
        /* Kafka 4.4.0's texts (SharePartition), compared by the share differential test. */
        if (b->first_offset >= sp->end)
            FAIL(GR_ERR_INVALID_REQUEST,
                 "Batch record not found. The first offset in request is past acquired records.");
        if (b->last_offset >= sp->end)
            FAIL(GR_ERR_INVALID_REQUEST,
                 "Batch record not found. The last offset in request is past acquired records.");
        if (i && b->first_offset == req->batches[i - 1].last_offset && b->first_offset >= sp->spso &&
            ack_type(&req->batches[i - 1], b->first_offset) != GR_SP_ACK_RENEW)
            FAIL(GR_ERR_INVALID_RECORD_STATE, "%s", MSG_NOT_ACQUIRED); /* Kafka: the first batch applied it */
        int64_t p = b->first_offset > sp->spso ? b->first_offset : sp->spso;
        for (size_t k = gr__sp_lower_bound(sp, p); p <= b->last_offset; k++) {
            const gr__sp_rng_t *e = k < sp->n ? GR__SP_AT(sp, k) : NULL;
            /* Kafka 4.4.0's texts: an untracked range is one of its in-flight batches without
             * per-offset state (batch-level checks), a tracked one has per-offset state. */
            bool batch = e && e->first <= p && !e->tracked;
            if (!e || e->first > p || e->state != GR_SP_ACQUIRED)
                FAIL(GR_ERR_INVALID_RECORD_STATE, "%s", batch ? MSG_BATCH_NOT_ACQUIRED : MSG_NOT_ACQUIRED);
            if (e->member != m || !m)
                FAIL(GR_ERR_INVALID_RECORD_STATE, "%s",
                     batch ? "Member is not the owner of batch record" : "Member is not the owner of offset");
            p = e->last + 1;
        }
    }
    return GR_ERR_NONE;
}

/* Merge what the last changes made mergeable in [i0, i1) and its borders. */
static void coalesce_span(gr_sp_t *sp, size_t i0, size_t i1) {
    size_t lo = i0 ? i0 - 1 : 0;
    for (size_t j = i1 < sp->n ? i1 + 1 : sp->n; j > lo;) {
        j--;
        if (j < sp->n) j = gr__sp_coalesce_at(sp, j);
    }
}

/* Metrics of one acknowledged range (ACQUIRED by the member, before the
 * change): by type, W, and what gets archived. A GAP archives an offset that
 * holds no record: counted as a gap acknowledgement only. */
static inline void stat_run(gr_sp_t *sp, const gr__sp_rng_t *e, int type, const gr_sp_conf_t *conf) {
    int64_t len = e->last - e->first + 1;
    gr__sp_stat_ack(sp, type, len, e->acq_at);
    if (type == GR_SP_ACK_REJECT) gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_REJECT, len);
    if (type == GR_SP_ACK_RELEASE && e->count >= conf->delivery_count_limit)
        gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_DELIVERY_LIMIT, len);
}

/* When a record released (or whose lock expired) with `count` deliveries may
 * be acquired again: 0 (at once) unless the redelivery backoff is on. */
static int64_t redeliver_at(const gr_sp_t *sp, int16_t count, int64_t now_ms) {
    int64_t d = gr_sp_backoff_ms(sp, count);
    return d > 0 ? now_ms + d : 0;
}

static void apply_run(gr_sp_t *sp, int64_t a, int64_t b, int type, int explode, const gr_sp_conf_t *conf,
                      int64_t now_ms, gr_sp_delta_t *delta) {
    size_t i0, i1;
    gr__sp_isolate(sp, a, b, &i0, &i1);
    for (size_t i = i0; i < i1; i++) {
        gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (explode) e->tracked = 1; /* §1.6: per-offset AcknowledgeTypes explode the batch */
        GR_METRIC(stat_run(sp, e, type, conf));
        switch (type) {
        case GR_SP_ACK_RENEW: /* §3.5: fresh full-length lock, state and count unchanged, not persisted */
            e->dl = (uint32_t)(now_ms + conf->lock_duration_ms);
            break;
        case GR_SP_ACK_ACCEPT: /* §1.2: ACCEPT → ACKNOWLEDGED */
            gr__sp_set(sp, i, GR_SP_ACKNOWLEDGED, e->count, 0, 0, delta);
            break;
        case GR_SP_ACK_RELEASE: /* §1.3 rule 2: RELEASE → AVAILABLE, ARCHIVED at the limit */
            if (e->count >= conf->delivery_count_limit) {
                gr__sp_dead_put(delta, e->first, e->last, e->count, GR_SP_DEAD_LIMIT);
                gr__sp_set(sp, i, GR_SP_ARCHIVED, e->count, 0, 0, delta);
            } else /* held back by the redelivery backoff when it is on */
                gr__sp_set(sp, i, GR_SP_AVAILABLE, e->count, 0, redeliver_at(sp, e->count, now_ms), delta);
            break;
        default: /* §1.2/§1.8: REJECT and GAP → ARCHIVED; only a REJECT is dead-lettered */
            if (type == GR_SP_ACK_REJECT) gr__sp_dead_put(delta, e->first, e->last, e->count, GR_SP_DEAD_REJECT);
            gr__sp_set(sp, i, GR_SP_ARCHIVED, e->count, 0, 0, delta);
            break;
        }
    }
    if (type == GR_SP_ACK_RENEW) gr__sp_timer_push(sp, now_ms + conf->lock_duration_ms, a, b);
    coalesce_span(sp, i0, i1);
}

/* Metrics of an acknowledged range below SPSO: counted by its types (one
 * per offset when the batch has several), archived because of the log start. */
static inline void stat_below(gr_sp_t *sp, const gr_sp_ack_batch_t *b, const gr__sp_rng_t *e) {
    int64_t len = e->last - e->first + 1;
    if (b->n_types == 1)
        gr__sp_stat_ack(sp, b->types[0], len, e->acq_at);
    else
        for (int64_t o = e->first; o <= e->last; o++) gr__sp_stat_ack(sp, ack_type(b, o), 1, e->acq_at);
    gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_LOG_START, len);
}

/* §1.8: records left ACQUIRED below SPSO by a log-start move are archived
 * when their owner acknowledges them; drop them then. */
static void archive_below(gr_sp_t *sp, const gr_sp_ack_batch_t *b, int64_t last, uint32_t m) {
    size_t i0, i1;
    gr__sp_isolate(sp, b->first_offset, last, &i0, &i1);
    for (size_t i = i0; i < i1; i++) {
        gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (e->state != GR_SP_ACQUIRED || e->member != m || !m) continue;
        GR_METRIC(stat_below(sp, b, e));
        gr__sp_set(sp, i, GR_SP_ARCHIVED, e->count, 0, 0, NULL);
    }
    coalesce_span(sp, i0, i1); /* other members' pieces merge back */
}

static void prune_below(gr_sp_t *sp) {
    size_t i = 0;
    while (i < sp->n && GR__SP_AT(sp, i)->last < sp->spso) {
        if (GR__SP_AT(sp, i)->state != GR_SP_ACQUIRED)
            gr__sp_remove(sp, i, 1);
        else
            i++;
    }
}

static void ack_apply(gr_sp_t *sp, const gr_sp_ack_batch_t *b, uint32_t m, const gr_sp_conf_t *conf, int64_t now_ms,
                      gr_sp_delta_t *delta) {
    if (b->first_offset < sp->spso) archive_below(sp, b, sp->spso - 1, m);
    int64_t a = b->first_offset > sp->spso ? b->first_offset : sp->spso;
    if (b->n_types == 1) {
        apply_run(sp, a, b->last_offset, b->types[0], 0, conf, now_ms, delta);
        return;
    }
    while (a <= b->last_offset) { /* runs of equal per-offset types */
        int t = ack_type(b, a);
        int64_t z = a;
        while (z < b->last_offset && ack_type(b, z + 1) == t) z++;
        apply_run(sp, a, z, t, 1, conf, now_ms, delta);
        a = z + 1;
    }
}

gr_err_t gr_sp_acknowledge(gr_sp_t *sp, const gr_sp_ack_req_t *req, const gr_sp_conf_t *conf, int64_t now_ms,
                           gr_sp_delta_t *delta, char *errstr, size_t errstr_size) {
    int has_renew;
    int64_t spso_before = sp->spso;
    sp->clock = now_ms;
    gr_err_t err = ack_validate(req, &has_renew, errstr, errstr_size);
    if (err) return err;
    if (has_renew && !req->renew_enabled) /* §3.5: share.renew.acknowledge.enable=false */
        FAIL(GR_ERR_INVALID_RECORD_STATE, "renew acknowledgement is disabled for the group");
    uint32_t m = gr__sp_member_find(sp, req->member_id);
    err = ack_check(sp, req, m, errstr, errstr_size);
    if (err) return err;
    for (size_t i = 0; i < req->n_batches; i++) {
        const gr_sp_ack_batch_t *b = &req->batches[i];
        if (b->last_offset >= sp->spso) ack_apply(sp, b, m, conf, now_ms, delta);
    }
    prune_below(sp);
    gr__sp_advance(sp); /* §1.7 */
    if (delta) gr__sp_delta_finish(sp, delta, spso_before);
    return GR_ERR_NONE;
}

/* ---- lock expiry -------------------------------------------------------- */

/* Metrics of a lock that ended without an acknowledgement (expiry, or the
 * member's session closed): archived below SPSO or at the delivery limit. */
static inline void stat_unlocked(gr_sp_t *sp, const gr__sp_rng_t *e, const gr_sp_conf_t *conf, int timeout) {
    int64_t len = e->last - e->first + 1;
    if (timeout) gr__sp_stat_timeout(sp, len);
    if (e->last < sp->spso)
        gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_LOG_START, len);
    else if (e->count >= conf->delivery_count_limit)
        gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_DELIVERY_LIMIT, len);
}

/* A timer is live if some range it covers is still locked with its
 * deadline. The scan is bounded: past 64 ranges it is assumed live. */
static int timer_live(const gr_sp_t *sp, const gr__sp_timer_t *t) {
    size_t i = gr__sp_lower_bound(sp, t->first);
    for (int k = 0; i < sp->n && k < 64; i++, k++) {
        const gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (e->first > t->last) return 0;
        if ((e->state == GR_SP_ACQUIRED || gr__sp_delayed(e)) && e->dl == (uint32_t)t->deadline) return 1;
    }
    return i < sp->n;
}

int64_t gr_sp_next_deadline(gr_sp_t *sp) {
    while (sp->heap_n && !timer_live(sp, &sp->heap[0])) gr__sp_timer_pop(sp);
    return sp->heap_n ? sp->heap[0].deadline : INT64_MAX;
}

int64_t gr_sp_expire(gr_sp_t *sp, const gr_sp_conf_t *conf, int64_t now_ms, gr_sp_delta_t *delta) {
    int64_t spso_before = sp->spso;
    int any = 0;
    sp->clock = now_ms;
    while (sp->heap_n && sp->heap[0].deadline <= now_ms) {
        gr__sp_timer_t t = sp->heap[0];
        gr__sp_timer_pop(sp);
        for (size_t i = gr__sp_lower_bound(sp, t.first); i < sp->n; i++) {
            gr__sp_rng_t *e = GR__SP_AT(sp, i);
            if (e->first > t.last) break;
            if (gr__sp_delayed(e) && gr__sp_deadline(sp, e) <= now_ms) { /* due: acquirable again */
                e->dl = 0;
                if (e->first < sp->avail_hint) sp->avail_hint = e->first < sp->spso ? sp->spso : e->first;
                i = gr__sp_coalesce_at(sp, i);
                continue;
            }
            if (e->state != GR_SP_ACQUIRED || gr__sp_deadline(sp, e) > now_ms) continue;
            /* §1.4: lock timeout → AVAILABLE (after the redelivery backoff when it is
             * on), or ARCHIVED at the delivery limit (§1.3 rule 2) or below SPSO (§1.8). */
            int st = (e->last < sp->spso || e->count >= conf->delivery_count_limit) ? GR_SP_ARCHIVED : GR_SP_AVAILABLE;
            GR_METRIC(stat_unlocked(sp, e, conf, 1));
            if (st == GR_SP_ARCHIVED && e->last >= sp->spso) /* at the limit, not below SPSO */
                gr__sp_dead_put(delta, e->first, e->last, e->count, GR_SP_DEAD_LIMIT);
            gr__sp_set(sp, i, st, e->count, 0, st == GR_SP_AVAILABLE ? redeliver_at(sp, e->count, now_ms) : 0, delta);
            i = gr__sp_coalesce_at(sp, i);
            any = 1;
        }
    }
    if (any) {
        prune_below(sp);
        gr__sp_advance(sp); /* §1.7 */
    }
    if (delta) gr__sp_delta_finish(sp, delta, spso_before);
    return gr_sp_next_deadline(sp);
}

/* ---- member release, log start ------------------------------------------ */

int64_t gr_sp_release_member(gr_sp_t *sp, const gr_sp_conf_t *conf, const char *member_id, gr_sp_delta_t *delta) {
    uint32_t m = gr__sp_member_find(sp, member_id);
    int64_t spso_before = sp->spso, released = 0;
    if (!m) return 0;
    for (size_t i = 0; i < sp->n; i++) {
        gr__sp_rng_t *e = GR__SP_AT(sp, i);
        if (e->state != GR_SP_ACQUIRED || e->member != m) continue;
        released += e->last - e->first + 1;
        GR_METRIC(stat_unlocked(sp, e, conf, 0));
        if (e->last < sp->spso) { /* §1.3 rule 3: below SPSO → archived */
            gr__sp_set(sp, i, GR_SP_ARCHIVED, e->count, 0, 0, delta);
        } else { /* as Kafka 4.4.0: count kept, archived at the limit (like a lock expiry) */
            int8_t to = e->count >= conf->delivery_count_limit ? GR_SP_ARCHIVED : GR_SP_AVAILABLE;
            if (to == GR_SP_ARCHIVED) gr__sp_dead_put(delta, e->first, e->last, e->count, GR_SP_DEAD_LIMIT);
            gr__sp_set(sp, i, to, e->count, 0, 0, delta);
            i = gr__sp_coalesce_at(sp, i);
        }
    }
    gr__sp_member_drop(sp, m);
    prune_below(sp);
    gr__sp_advance(sp);
    if (delta) gr__sp_delta_finish(sp, delta, spso_before);
    return released;
}

/* §1.8: SPSO := log start; AVAILABLE and terminal records below leave the
 * cache (archived, not persisted individually: the store drops everything
 * below the new SPSO); ACQUIRED ones stay until their lock expires or they
 * are acknowledged, then they are archived. */
void gr_sp_update_log_start(gr_sp_t *sp, int64_t log_start, gr_sp_delta_t *delta) {
    int64_t spso_before = sp->spso;
    if (log_start <= sp->spso) return;
    if (log_start < sp->end) {
        size_t a, b;
        gr__sp_isolate(sp, log_start, sp->end - 1, &a, &b); /* SPSO lands inside: split */
    }
    size_t i0 = gr__sp_lower_bound(sp, sp->spso), i1 = gr__sp_lower_bound(sp, log_start), k = i0;
    for (size_t j = i0; j < i1; j++) {
        gr__sp_rng_t *e = GR__SP_AT(sp, j);
        if (e->state == GR_SP_ACQUIRED)
            *GR__SP_AT(sp, k++) = *e;
        else if (gr__sp_terminal(e->state))
            sp->dcc -= e->last - e->first + 1;
        else /* AVAILABLE: archived by the move */
            GR_METRIC(gr__sp_stat_archived(sp, GR_SHARE_ARCHIVE_LOG_START, e->last - e->first + 1));
    }
    gr__sp_remove(sp, k, i1 - k);
    sp->spso = log_start;
    coalesce_span(sp, i0, k); /* kept locks may now be equal neighbours */
    if (sp->end < log_start) sp->end = log_start;
    if (sp->avail_hint < log_start) sp->avail_hint = log_start;
    gr__sp_advance(sp);
    if (delta) gr__sp_delta_finish(sp, delta, spso_before);
}
