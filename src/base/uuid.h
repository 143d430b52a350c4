/* Kafka UUIDs (topic ids, cluster id): random v4, and Kafka's 22-character
 * URL-safe base64 text form (no padding). */
#ifndef GR_BASE_UUID_H
#define GR_BASE_UUID_H

#include <stdbool.h>
#include <stdint.h>

/** A Kafka UUID, 16 bytes in wire (big-endian) order. */
typedef struct gr_uuid {
    uint8_t b[16];
} gr_uuid_t;

/** A random, non-zero UUID from getrandom(2). Kafka reserves ids whose
 *  base64 starts with '-' and the all-zero/one ids; this never returns those. */
gr_uuid_t gr_uuid_random(void);
bool gr_uuid_is_zero(const gr_uuid_t *u);
bool gr_uuid_eq(const gr_uuid_t *a, const gr_uuid_t *b);
/** Write the 22-char base64url form plus NUL into out[23]. */
void gr_uuid_to_base64(const gr_uuid_t *u, char out[23]);
/** Parse the 22-char base64url form. Returns false on bad input. */
bool gr_uuid_from_base64(const char *s, gr_uuid_t *u);

#endif
