/* libFuzzer target: consumer-group store records as read back from disk
 * (cgroup/records.h: classic groups, offsets, pending transactional offsets,
 * consumer-protocol groups and members). The input is split at its first byte into key and value; a
 * record that decodes must encode back to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t kl = data[0] < size - 1 ? data[0] : size - 1;
    const uint8_t *key = data + 1, *val = data + 1 + kl;
    size_t vl = size - 1 - kl;
    gr_arena_t a;
    gr_arena_init(&a);
    gr_cg_rec_t r;
    const char *why = NULL;
    if (gr_cg_rec_decode(key, kl, val, vl, &a, &r, &why) == 0) {
        gr_wbuf_t k, v;
        gr_wbuf_init(&k);
        gr_wbuf_init(&v);
        if (r.type == GR_CG_REC_OFFSET) {
            gr_cg_rec_offset_key(&k, r.group_id, r.topic, r.partition);
            gr_cg_rec_offset_value(&v, &r.offset);
        } else if (r.type == GR_CG_REC_TXN_OFFSET) {
            gr_cg_rec_txn_offset_key(&k, r.group_id, r.topic, r.partition, r.pid);
            gr_cg_rec_offset_value(&v, &r.offset);
        } else if (r.type == GR_CG_REC_CGROUP) {
            gr_cg_rec_cgroup_key(&k, r.group_id);
            gr_cg_rec_cgroup_value(&v, r.generation, r.assignment_epoch, r.topics_hash);
        } else if (r.type == GR_CG_REC_CMEMBER) {
            gr_cg_rec_cmember_key(&k, r.group_id, r.member.member_id);
            gr_cg_rec_cmember_value(&v, &r.member);
        } else {
            gr_cg_rec_group_key(&k, r.group_id);
            gr_cg_rec_group_value(&v, r.protocol_type, r.generation);
        }
        if (k.len != kl || memcmp(k.mem, key, kl) || v.len != vl || memcmp(v.mem, val, vl)) abort();
        gr_wbuf_free(&k);
        gr_wbuf_free(&v);
    } else if (!why) {
        abort(); /* every refusal says why */
    }
    gr_arena_free(&a);
    return 0;
}
