/* Broker health for the admin endpoint's GET /health. */
#include <stdio.h>

#include "broker/broker_int.h"
#include "broker/broker_metrics.h"

bool gr_broker_healthy(gr_broker_t *b, char *why, size_t why_size) {
    if (b->shutting_down) {
        snprintf(why, why_size, "shutting down");
        return false;
    }
    for (size_t i = 0; i < gr_parts_count(b->parts); i++) {
        gr_partition_t *part = gr_parts_at(b->parts, i);
        if (part->offline) {
            snprintf(why, why_size, "log of %s-%d is offline (a write or fsync failed; restart after fixing the disk)",
                     part->topic, part->index);
            return false;
        }
    }
    return true;
}
