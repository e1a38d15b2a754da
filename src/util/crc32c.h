/* SPDX-License-Identifier: GPL-2.0-only */
/* crc32c.h — CRC32C (Castagnoli, the checksum of kptop-stream(5) blocks).
 *
 * Owns: nothing; pure functions. Who calls it: the stream codec
 * (stream/stream-blk.c) and its tests. Never allocates, never fails.
 *
 * kp_crc32c(0, buf, len) is the CRC32C of buf (initial value and final
 * complement included); passing the result of one call as crc to the
 * next continues it over more bytes. kp_crc32c uses the SSE4.2 crc32
 * instruction when the CPU has it; kp_crc32c_sw is the portable table
 * version (same results), exposed for the tests.
 */
#ifndef KP_UTIL_CRC32C_H
#define KP_UTIL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t kp_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t kp_crc32c_sw(uint32_t crc, const void *buf, size_t len);

#endif /* KP_UTIL_CRC32C_H */
