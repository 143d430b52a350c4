/* Consumer-group store records (share/cgroup_store.h): keys and values of committed offsets and
 * group records, our own encoding (version 0). Pure; the decoder takes bytes read
 * from disk and checks every length.
 *
 *   group  key: u8 2 | group id                              value: u8 0 | i32 generation | protocol type
 *   offset key: u8 3 | group id \0 | topic \0 | i32 partition
 *          value: u8 0 | i64 offset | i32 leader epoch | i64 commit ms | i64 expire ms | metadata
 * Integers big-endian. A null value deletes the key. */
#ifndef GR_CGROUP_RECORDS_H
#define GR_CGROUP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "cgroup/cgroup.h"

enum { GR_CG_REC_GROUP = 2, GR_CG_REC_OFFSET = 3 };

void gr_cg_rec_group_key(gr_wbuf_t *k, const char *group_id);
void gr_cg_rec_group_value(gr_wbuf_t *v, const char *protocol_type, int32_t generation);
void gr_cg_rec_offset_key(gr_wbuf_t *k, const char *group_id, const char *topic, int32_t partition);
void gr_cg_rec_offset_value(gr_wbuf_t *v, const gr_cg_offset_t *o);

/** A decoded record; strings are NUL-terminated copies in the arena. */
typedef struct gr_cg_rec {
    int type; /* GR_CG_REC_GROUP or GR_CG_REC_OFFSET */
    char *group_id;
    char *protocol_type; /* group */
    int32_t generation;  /* group */
    char *topic;         /* offset */
    int32_t partition;   /* offset */
    gr_cg_offset_t offset;
} gr_cg_rec_t;

/** Decode a live record (value not NULL). 0 or GR_ERR__MALFORMED with *why. */
gr_err_t gr_cg_rec_decode(const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len, gr_arena_t *arena,
                          gr_cg_rec_t *out, const char **why);

#endif
