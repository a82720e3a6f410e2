/* SPDX-License-Identifier: BSD-3-Clause */
/* The Internet checksum's sum (RFC 1071) eight bytes at a time: DPDK 22.11's rte_raw_cksum
 * adds two bytes a step, which made a 100-byte datagram's checksum most of ip6-udp-local's
 * and vxlan6-encap's instructions. */
#ifndef SL_CKSUM_H
#define SL_CKSUM_H

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
