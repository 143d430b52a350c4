/* The capacity view's window of each in-memory share-partition
 * (share_capacity.c; docs/capacity.md): two snapshots of its
 * counters, rotated every GR_CAP_WINDOW_MS by a timer of its own.
 * @locality loop thread. */
#ifndef GR_BROKER_SHARE_CAPACITY_H
#define GR_BROKER_SHARE_CAPACITY_H

#include "broker/partitions.h"
#include "broker/share_parts.h"
#include "share/describe_json.h"

/** A share-partition was created for partition p: first snapshot, timer started. */
void gr_share_capacity_init(gr_share_part_t *part, const gr_partition_t *p);
/** The share-partition is being freed: timer stopped. */
void gr_share_capacity_stop(gr_share_part_t *part);

/** The share group of an admin-endpoint view: NONE with *g set, or the error (GROUP_ID_NOT_FOUND,
 *  COORDINATOR_NOT_AVAILABLE, ...) with {"error":"..."} appended to out. */
gr_err_t gr_share_json_group(gr_broker_t *b, const char *group, gr_wbuf_t *out, const gr_sg_group_t **g);

#endif
