/* Reading offset ranges of partitions to their end with the plain consumer, for
 * `gregor share-groups --redrive` (the DLQ topic, the target partitions' provenance scan,
 * the source records of payload-less dead letters). */
#ifndef GR_CLI_REDRIVE_READ_H
#define GR_CLI_REDRIVE_READ_H

#include "cli.h"
#include "gregor/consumer.h"
#include "redrive_plan.h"

/** One partition to read: records with start <= offset < end. */
typedef struct rd_range {
    const char *topic;
    int32_t partition;
    int64_t start, end;
} rd_range_t;

/** Called for each record read with its headers (h[0..nh), valid during the call only);
 *  false stops the read of every range. */
typedef bool rd_rec_cb(void *opaque, const gr_consumer_msg_t *m, const rd_hdr_t *h, size_t nh);

/** A plain consumer from the common options (NULL after printing why). */
gr_consumer_t *rd_consumer(const cli_vals_t *v);

/** Read the n ranges (each from a new assignment on a new consumer) until each has given
 *  its record at end - 1, or the log has no more records below end (compaction, control
 *  records: nothing arrives for a while). CLI_OK or CLI_FAIL (after printing why). */
int rd_read(const cli_vals_t *v, const rd_range_t *r, size_t n, rd_rec_cb *cb, void *opaque);

#endif
