/* SPDX-License-Identifier: BSD-3-Clause */
/* sl_raw_cksum (src/runtime/cksum.h) against DPDK's rte_raw_cksum: every length from 0 to
 * 1,600 bytes at every start offset 0-7 of random buffers, and buffers of all 0x00 and all
 * 0xff bytes (where a one's-complement sum's two zeros could part). sl_ip4_hdr20_cksum_ok
 * and sl_ip4_hdr20_sum_ok64 against rte_ipv4_cksum on random headers, right and wrong. No EAL. */
#include "../common/check.h"
#include "../../src/runtime/cksum.h"

#include <stdlib.h>

/* ip4-input's form: two 8-byte words and a 4-byte one */
static bool hdr20_ok64(const void *h)
{
	uint64_t q0, q1;
	uint32_t w4;
	memcpy(&q0, h, 8);
	memcpy(&q1, (const uint8_t *)h + 8, 8);
	memcpy(&w4, (const uint8_t *)h + 16, 4);
	return sl_ip4_hdr20_sum_ok64(q0, q1, w4);
}

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
	/* 20-byte headers: random ones with their right checksum, then with another (0xffff for
	 * 0x0000 and back is the one change a one's-complement sum cannot see: both are zero) */
	unsigned right = 0, wrong = 0, missed = 0;
	for (int k = 0; k < 20000; k++) {
		struct rte_ipv4_hdr h;
		uint8_t *hb = (uint8_t *)&h;
		for (size_t i = 0; i < sizeof(h); i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			hb[i] = (uint8_t)(seed >> 56);
		}
		h.version_ihl = 0x45;
		if (k % 4 == 1) /* sums of many 0xffff words: carries through every fold */
			memset(hb + 2, 0xff, 18);
		h.hdr_checksum = 0;
		h.hdr_checksum = rte_ipv4_cksum(&h);
		right += sl_ip4_hdr20_cksum_ok(&h) && hdr20_ok64(&h);
		uint16_t ok = h.hdr_checksum;
		h.hdr_checksum = (uint16_t)(ok + 1 + (seed >> 20) % 0xffff);
		if ((uint16_t)(ok ^ h.hdr_checksum) == 0xffff && (ok == 0 || ok == 0xffff))
			continue; /* 0x0000 for 0xffff: the same sum */
		wrong++;
		missed += sl_ip4_hdr20_cksum_ok(&h) || hdr20_ok64(&h);
	}
	CHECK(right == 20000);
	CHECK(wrong > 19000 && missed == 0);
	return CHECK_REPORT();
}
