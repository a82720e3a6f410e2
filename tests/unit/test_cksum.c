/* SPDX-License-Identifier: BSD-3-Clause */
/* sl_raw_cksum (src/runtime/cksum.h) against DPDK's rte_raw_cksum: every length from 0 to
 * 1,600 bytes at every start offset 0-7 of random buffers, and buffers of all 0x00 and all
 * 0xff bytes (where a one's-complement sum's two zeros could part). No EAL. */
#include "../common/check.h"
#include "../../src/runtime/cksum.h"

#include <stdlib.h>

int main(void)
{
	static uint8_t buf[1608 + 8];
	unsigned long seed = 12345;
	unsigned bad = 0, n = 0;
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			buf[i] = round == 2 ? 0 : round == 3 ? 0xff : (uint8_t)(seed >> 56);
		}
		for (size_t off = 0; off < 8; off++)
			for (size_t len = 0; len <= 1600; len++, n++)
				if (sl_raw_cksum(buf + off, len) != rte_raw_cksum(buf + off, len))
					bad++;
	}
	CHECK(n == 4 * 8 * 1601);
	CHECK(bad == 0);
	/* a sum that folds more than once: 0xffff words and a carry out of the 32-bit steps */
	memset(buf, 0xff, sizeof(buf));
	buf[0] = 0x01;
	CHECK(sl_raw_cksum(buf, 1600) == rte_raw_cksum(buf, 1600));
	CHECK(sl_raw_cksum(buf, 0) == 0);
	return CHECK_REPORT();
}
