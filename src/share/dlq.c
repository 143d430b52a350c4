/* Share-group dead-letter queue, pure parts: see dlq.h.
 *
 * @locality any thread. */
#include "share/dlq.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kafka 4.4.0's header names (ShareGroupDLQStateManager), in the order it writes them. */
#define H_TOPIC     "__dlq.errors.topic"
#define H_PARTITION "__dlq.errors.partition"
#define H_OFFSET    "__dlq.errors.offset"
#define H_GROUP     "__dlq.errors.group"
#define H_COUNT     "__dlq.errors.delivery.count"
#define H_MESSAGE   "__dlq.errors.message"

const char *gr_dlq_reason_text(gr_dlq_reason_t reason) {
    return reason == GR_DLQ_REJECT ? "Offset rejected by client." : "Offset delivery count exceeded the threshold.";
}

bool gr_dlq_wanted(size_t n_dead, int share_version, const char *dlq_topic) {
    return n_dead > 0 && share_version >= 2 && dlq_topic && dlq_topic[0];
}

gr_dlq_action_t gr_dlq_check(const gr_dlq_target_t *t, char *why, size_t n) {
    if (!t->topic[0]) {
        snprintf(why, n, "Configured DLQ topic name in share group: %s is empty.", t->group);
        return GR_DLQ_REFUSE;
    }
    if (!strncmp(t->topic, "__", 2)) {
        snprintf(why, n, "Configured DLQ topic name in share group: %s cannot start with __, topic: %s.", t->group,
                 t->topic);
        return GR_DLQ_REFUSE;
    }
    if (t->exists && !t->flag) {
        snprintf(why, n, "DLQ is not enabled on configured DLQ topic for share group: %s, topic: %s.", t->group,
                 t->topic);
        return GR_DLQ_REFUSE;
    }
    if (!t->exists && !t->auto_create) {
        snprintf(why, n,
                 "DLQ topic does not exist and auto create is disabled on cluster for share group: %s, topic: %s.",
                 t->group, t->topic);
        return GR_DLQ_REFUSE;
    }
    /* Kafka checks the prefix only now, after existence and the flag (docs/dlq.md §2). */
    if (t->prefix[0] && strncmp(t->topic, t->prefix, strlen(t->prefix))) {
        snprintf(why, n,
                 "Configured DLQ topic name does not comply with the DLQ topic prefix in share group: %s, topic: %s, "
                 "prefix: %s.",
                 t->group, t->topic, t->prefix);
        return GR_DLQ_REFUSE;
    }
    return t->exists ? GR_DLQ_WRITE : GR_DLQ_CREATE;
}

static gr_header_t hdr(const char *k, const char *v) {
    return (gr_header_t){(const uint8_t *)k, (int32_t)strlen(k), (const uint8_t *)v, (int32_t)strlen(v)};
}

void gr_dlq_add(gr_batch_builder_t *bb, int64_t now_ms, const gr_dlq_rec_t *r) {
    char part[16], off[32], count[16];
    snprintf(part, sizeof(part), "%" PRId32, r->partition);
    snprintf(off, sizeof(off), "%" PRId64, r->offset);
    snprintf(count, sizeof(count), "%d", r->delivery_count);
    gr_header_t h[6] = {hdr(H_TOPIC, r->topic), hdr(H_PARTITION, part), hdr(H_OFFSET, off),
                        hdr(H_GROUP, r->group), hdr(H_COUNT, count),    hdr(H_MESSAGE, gr_dlq_reason_text(r->reason))};
    gr_batch_builder_add(bb, now_ms, r->key, r->key ? r->key_len : -1, r->value, r->value ? r->value_len : -1, h, 6);
}

/* A decimal header value in [lo, hi]. */
static bool dec(const gr_header_t *h, int64_t lo, int64_t hi, int64_t *out) {
    char buf[24];
    if (!h->value || h->value_len <= 0 || h->value_len >= (int32_t)sizeof(buf)) return false;
    memcpy(buf, h->value, (size_t)h->value_len);
    buf[h->value_len] = 0;
    char *end;
    long long v = strtoll(buf, &end, 10);
    if (*end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool is(const gr_header_t *h, const char *name) {
    return (size_t)h->key_len == strlen(name) && !memcmp(h->key, name, (size_t)h->key_len);
}

bool gr_dlq_parse(const gr_record_t *rec, gr_dlq_src_t *out) {
    gr_header_iter_t hi;
    gr_header_t h;
    int64_t v;
    unsigned seen = 0;
    memset(out, 0, sizeof(*out));
    gr_header_iter_init(&hi, rec);
    while (gr_header_iter_next(&hi, &h)) {
        if (is(&h, H_TOPIC) && h.value && h.value_len > 0) {
            out->topic = (const char *)h.value, out->topic_len = h.value_len, seen |= 1;
        } else if (is(&h, H_GROUP) && h.value && h.value_len > 0) {
            out->group = (const char *)h.value, out->group_len = h.value_len, seen |= 2;
        } else if (is(&h, H_PARTITION) && dec(&h, 0, INT32_MAX, &v)) {
            out->partition = (int32_t)v, seen |= 4;
        } else if (is(&h, H_OFFSET) && dec(&h, 0, INT64_MAX, &v)) {
            out->offset = v, seen |= 8;
        } else if (is(&h, H_COUNT) && dec(&h, 0, INT16_MAX, &v)) {
            out->delivery_count = (int16_t)v, seen |= 16;
        }
    }
    return seen == 31;
}

bool gr_dlq_committed(int64_t start_offset, const gr_sstore_batch_t *b, size_t n, int64_t offset) {
    if (start_offset >= 0 && offset < start_offset) return true;
    for (size_t i = 0; i < n; i++)
        if (offset >= b[i].first_offset && offset <= b[i].last_offset) return b[i].state == GR_SSTORE_ARCHIVED;
    return false;
}

static bool sstore_terminal(int8_t state) { return state == GR_SSTORE_ACKNOWLEDGED || state == GR_SSTORE_ARCHIVED; }

void gr_dlq_rollforward(const gr_sstore_state_t *st, int64_t offset, int16_t delivery_count, gr_sstore_batch_t *bt,
                        gr_sstore_update_t *up) {
    *bt = (gr_sstore_batch_t){offset, offset, GR_SSTORE_ARCHIVED, delivery_count, 0};
    bool was_terminal = false;
    for (size_t i = 0; i < st->n_batches; i++)
        if (offset >= st->batches[i].first_offset && offset <= st->batches[i].last_offset)
            was_terminal = sstore_terminal(st->batches[i].state);
    int64_t dcc = st->delivery_complete_count;
    if (dcc >= 0 && !was_terminal) dcc++;
    int64_t start = -1;
    if (offset == st->start_offset) {
        start = offset + 1;
        for (size_t i = 0; i < st->n_batches; i++) {
            const gr_sstore_batch_t *b = &st->batches[i];
            if (b->last_offset < start) continue;
            if (b->first_offset > start || !sstore_terminal(b->state)) break;
            start = b->last_offset + 1;
        }
        if (dcc >= 0) dcc = dcc > start - offset ? dcc - (start - offset) : 0;
    }
    *up = (gr_sstore_update_t){.state_epoch = st->state_epoch,
                               .leader_epoch = -1,
                               .start_offset = start,
                               .delivery_complete_count = dcc > INT32_MAX ? INT32_MAX : (int32_t)dcc,
                               .batches = bt,
                               .n_batches = 1};
}
