/* ShareFetch acquisition of one partition: log read + gr_sp_acquire +
 * file-backed Records. @locality loop thread. */
#ifndef GR_BROKER_SHARE_ACQUIRE_H
#define GR_BROKER_SHARE_ACQUIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/partitions.h"
#include "broker/request.h"
#include "broker/share_parts.h"
#include "share/acquire_plan.h"

typedef struct gr_share_acq {
    gr_req_t *req; /* arena for the ranges */
    gr_partition_t *p;
    gr_share_part_t *part;
    const gr_sp_conf_t *conf;
    const char *member;
    int64_t now;    /* loop time (lock deadlines) */
    int64_t budget; /* MaxRecords left */
    int32_t batch_size;
    int8_t mode;       /* GR_SP_MODE_* */
    int64_t max_bytes; /* bytes this partition may use */
    bool min_one;      /* may exceed max_bytes by one whole batch */
} gr_share_acq_t;

typedef struct gr_share_acq_out {
    gr_bytes_t *records;      /* set to a file-backed slice when something was acquired */
    gr_sp_acquired_t *ranges; /* in the request arena */
    size_t n_ranges;
    int64_t n_records, bytes;
} gr_share_acq_out_t;

/** Acquire what the partition can give within the limits. Returns the
 *  partition's wire error (KAFKA_STORAGE_ERROR, CORRUPT_MESSAGE) or NONE,
 *  possibly with nothing acquired. */
gr_err_t gr_share_acquire(gr_share_acq_t *aq, gr_share_acq_out_t *out);

/** Bytes acquirable right now from the SP's next fetch offset, up to about
 *  want (MinBytes estimate, §2.7 (a)). */
int64_t gr_share_probe_bytes(gr_share_part_t *part, gr_partition_t *p, const gr_sp_conf_t *conf, int64_t want);

#endif
