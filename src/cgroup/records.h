/* Consumer-group store records (share/cgroup_store.h): keys and values of committed offsets and
 * group records, our own encoding (version 0). Pure; the decoder takes bytes read
 * from disk and checks every length.
 *
 *   group  key: u8 2 | group id                              value: u8 0 | i32 generation | protocol type
 *   offset key: u8 3 | group id \0 | topic \0 | i32 partition
 *          value: u8 0 | i64 offset | i32 leader epoch | i64 commit ms | i64 expire ms | metadata
 *   consumer-protocol group (KIP-848; cgroup/consumer.h):
 *   cgroup  key: u8 4 | group id
 *           value: u8 0 | i32 group epoch | i32 assignment epoch | u64 subscribed topics hash
 *   cmember key: u8 5 | group id \0 | member id
 *           value: u8 0 | i32 epoch | i32 previous epoch | i32 rebalance timeout | i8 state
 *                  | 7 strings (instance, rack, client id, client host, regex, assignor; i16 length, -1 null)
 *                  | i32 n + n strings (subscribed topics) | 3 partition sets (assigned, revoking, target):
 *                  i32 n + n x (16-byte topic id, i32 partition)
 *   pending transactional offset (TxnOffsetCommit; cgroup/cgroup.h):
 *   txnoff key: u8 6 | group id \0 | topic \0 | i32 partition | i64 producer id
 *          value: as an offset value
 * Integers big-endian. A null value deletes the key. */
#ifndef GR_CGROUP_RECORDS_H
#define GR_CGROUP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "cgroup/cgroup.h"
#include "cgroup/consumer.h"

enum {
    GR_CG_REC_GROUP = 2,
    GR_CG_REC_OFFSET = 3,
    GR_CG_REC_CGROUP = 4,
    GR_CG_REC_CMEMBER = 5,
    GR_CG_REC_TXN_OFFSET = 6
};

void gr_cg_rec_group_key(gr_wbuf_t *k, const char *group_id);
void gr_cg_rec_group_value(gr_wbuf_t *v, const char *protocol_type, int32_t generation);
void gr_cg_rec_offset_key(gr_wbuf_t *k, const char *group_id, const char *topic, int32_t partition);
void gr_cg_rec_offset_value(gr_wbuf_t *v, const gr_cg_offset_t *o);
void gr_cg_rec_txn_offset_key(gr_wbuf_t *k, const char *group_id, const char *topic, int32_t partition, int64_t pid);

void gr_cg_rec_cgroup_key(gr_wbuf_t *k, const char *group_id);
void gr_cg_rec_cgroup_value(gr_wbuf_t *v, int32_t group_epoch, int32_t assignment_epoch, uint64_t topics_hash);
void gr_cg_rec_cmember_key(gr_wbuf_t *k, const char *group_id, const char *member_id);
void gr_cg_rec_cmember_value(gr_wbuf_t *v, const gr_cgc_member_rec_t *m);

/** A decoded record; strings are NUL-terminated copies in the arena. */
typedef struct gr_cg_rec {
    int type; /* GR_CG_REC_GROUP or GR_CG_REC_OFFSET */
    char *group_id;
    char *protocol_type; /* group */
    int32_t generation;  /* group */
    char *topic;         /* offset */
    int32_t partition;   /* offset */
    gr_cg_offset_t offset;
    int64_t pid;                /* txn offset */
    int32_t assignment_epoch;   /* cgroup (generation holds the group epoch) */
    uint64_t topics_hash;       /* cgroup */
    gr_cgc_member_rec_t member; /* cmember: arrays and strings in the arena */
} gr_cg_rec_t;

/** Decode a live record (value not NULL). 0 or GR_ERR__MALFORMED with *why. */
gr_err_t gr_cg_rec_decode(const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len, gr_arena_t *arena,
                          gr_cg_rec_t *out, const char **why);

#endif
