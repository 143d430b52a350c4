/* Internals shared by the quota sources (src/auth/quota*.c). */
#ifndef GR_AUTH_QUOTA_INT_H
#define GR_AUTH_QUOTA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "auth/quota.h"

bool gr__quota_entity_eq(const gr_quota_entity_t *a, const gr_quota_entity_t *b);
/** java.lang.String.hashCode (ASCII) with HashMap's spreading. */
uint32_t gr__quota_java_hash(const char *s);
/** Capacity of `new HashMap<>(init)` after `distinct` puts. */
size_t gr__quota_java_cap(size_t init, size_t distinct);
/** Stable sort of pairs into the iteration order of a HashMap of capacity cap. */
void gr__quota_java_order(gr_quota_pair_t *pairs, size_t n, size_t cap);

#endif
