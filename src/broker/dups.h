/* Duplicate detection over wire-sized arrays in O(n log n), shared by the
 * admin handlers (duplicate topics, resources and config keys in one request).
 * @locality any thread; pure. */
#ifndef GR_BROKER_DUPS_H
#define GR_BROKER_DUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/request.h"
#include "proto/codec.h"

typedef struct gr_keyed {
    int kind;
    gr_str_t s;
    int32_t i; /* the entry's index in the request */
} gr_keyed_t;

/** Sorts keys; then entry i of the request gets dup[i] when another entry has the
 *  same kind and string, and later[i] when an earlier entry does. Either output
 *  may be NULL. */
void gr_find_dups(gr_keyed_t *keys, int32_t n, bool *dup, bool *later);

/** A copy of s in the request arena (the response may outlive meta's strings).
 *  NULL stays null. */
gr_str_t gr_req_str_copy(gr_req_t *req, const char *s);

#endif
