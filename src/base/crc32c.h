/* CRC-32C (Castagnoli), as used by Kafka record batches v2. */
#ifndef GR_BASE_CRC32C_H
#define GR_BASE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/** Extend crc (start with 0) over len bytes. Uses SSE4.2 when the CPU has it. */
uint32_t gr_crc32c(uint32_t crc, const void *data, size_t len);

#endif
