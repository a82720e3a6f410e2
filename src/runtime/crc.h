/* SPDX-License-Identifier: BSD-3-Clause */
/* CRC32-C steps for the data plane's hashes (ECMP's flow hash, the ACL flow cache). */
#ifndef SL_CRC_H
#define SL_CRC_H

#include <stdint.h>
#include <rte_hash_crc.h>
#if defined(RTE_ARCH_X86) && defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

/* One step of 8 or 4 bytes: the instruction itself where the build targets SSE4.2 (DPDK's
 * rte_hash_crc_* test at run time which one to use, on every call). */
static inline uint64_t sl_crc8(uint64_t v, uint64_t h)
{
#if defined(RTE_ARCH_X86) && defined(__SSE4_2__)
	return _mm_crc32_u64(h, v); /* 64 bits in and out: no zero-extension between steps */
#else
	return rte_hash_crc_8byte(v, (uint32_t)h);
#endif
}

static inline uint64_t sl_crc4(uint32_t v, uint64_t h)
{
#if defined(RTE_ARCH_X86) && defined(__SSE4_2__)
	return _mm_crc32_u32((uint32_t)h, v);
#else
	return rte_hash_crc_4byte(v, (uint32_t)h);
#endif
}

#endif
