/* SPDX-License-Identifier: BSD-3-Clause */
/* The Internet checksum's sum (RFC 1071) eight bytes at a time: DPDK 22.11's rte_raw_cksum
 * adds two bytes a step, which made a 100-byte datagram's checksum most of ip6-udp-local's
 * and vxlan6-encap's instructions. */
#ifndef SL_CKSUM_H
#define SL_CKSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <rte_mbuf.h>
#include <rte_ip.h>

/* x + y with the carry out of bit 63 added back (one's-complement addition) */
static inline uint64_t sl_cksum_add(uint64_t x, uint64_t y)
{
	x += y;
	return x + (x < y);
}

/* The one's-complement sum of len bytes at buf, folded to 16 bits and not complemented:
 * what rte_raw_cksum(buf, len) gives. Eight bytes a step, the carries added back (a
 * one's-complement sum is the same over 64-bit words as over 16-bit ones, RFC 1071 2(B):
 * 2^64 and 1 are one modulo 0xffff; the 16-bit words are where rte_raw_cksum takes them, from
 * buf on, and an odd last byte counts as it does). The carry chain keeps gcc from
 * vectorizing the loop, whose set-up costs more than it saves on a short datagram.
 * tests/unit/test_cksum.c compares the two. */
static inline uint16_t sl_raw_cksum(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint64_t s = 0;
	for (; len >= 16; b += 16, len -= 16) {
		uint64_t w0, w1;
		memcpy(&w0, b, 8);
		memcpy(&w1, b + 8, 8);
		s = sl_cksum_add(sl_cksum_add(s, w0), w1);
	}
	if (len >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		s = sl_cksum_add(s, w);
		b += 8;
		len -= 8;
	}
	uint64_t t = 0; /* the last 0-7 bytes, each 16-bit word where it was */
	if (len >= 4) {
		uint32_t w;
		memcpy(&w, b, 4);
		t = w;
		b += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t h;
		memcpy(&h, b, 2);
		t += h;
		b += 2;
		len -= 2;
	}
	if (len) {
		uint16_t left = 0;
		memcpy(&left, b, 1);
		t += left;
	}
	s = sl_cksum_add(s, t);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Whether a 20-byte IPv4 header whose first byte is not zero (version 4 says so) has a right
 * checksum: its one's-complement sum is 0xffff, that is the plain sum of its five 32-bit
 * words is a multiple of 0xffff (2^16 is 1 modulo 0xffff, RFC 1071) and not zero. gcc turns
 * the modulo into a multiplication and a comparison: the four folds it replaces took 16
 * instructions (tests/unit/test_cksum.c checks it against rte_ipv4_cksum). The header's five
 * 32-bit words as they lie in memory. */
static inline bool sl_ip4_hdr20_sum_ok(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4)
{
	return ((uint64_t)w0 + w1 + w2 + w3 + w4) % 0xffff == 0;
}

/* The same from the header read as two 8-byte words and a 4-byte one: their sum with the
 * carries out of bit 63 added back (2^64 is 1 modulo 0xffff) */
static inline bool sl_ip4_hdr20_sum_ok64(uint64_t q0, uint64_t q1, uint32_t w4)
{
	return sl_cksum_add(sl_cksum_add(q0, q1), w4) % 0xffff == 0;
}

/* The same from the header */
static inline bool sl_ip4_hdr20_cksum_ok(const void *hdr)
{
	const uint8_t *b = hdr;
	uint32_t w0, w1, w2, w3, w4; /* the header is only 2-byte aligned */
	memcpy(&w0, b, 4);
	memcpy(&w1, b + 4, 4);
	memcpy(&w2, b + 8, 4);
	memcpy(&w3, b + 12, 4);
	memcpy(&w4, b + 16, 4);
	return sl_ip4_hdr20_sum_ok(w0, w1, w2, w3, w4);
}

/* The same over len bytes of m from off: sl_raw_cksum when they are in its first segment,
 * else rte_raw_cksum_mbuf's (0 when those bytes are not all there). */
static inline uint16_t sl_raw_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint16_t raw = 0;
	if (likely(off + len <= m->data_len))
		return sl_raw_cksum(rte_pktmbuf_mtod_offset(m, const uint8_t *, off), len);
	rte_raw_cksum_mbuf(m, off, len, &raw);
	return raw;
}

#endif
