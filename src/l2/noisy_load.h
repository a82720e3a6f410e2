/* SPDX-License-Identifier: BSD-3-Clause */
/* The noisy VNF's memory load per packet, in two models (set interface noisy ... model):
 *
 * - lines (the default): each read loads, each write stores, one byte of a random cache line
 *   anywhere in the lookup memory; the loads are kept (their sum goes to a sink).
 * - testpmd: what dpdk-testpmd 22.11's noisy_vnf code does with the same numbers. Its index is
 *   rte_rand() % (MB * 2^20 / 64), a byte among the first 1/64 of the memory; a write draws
 *   the index and the value; a read draws an index and loads into a dead variable, which the
 *   compiler removes (testpmd built with -O3: only the call to rte_rand() is left); a
 *   read-write does both. So its cost is mostly rte_rand() and a 64-bit division per access.
 *
 * Kept apart from the node so that the unit tests can check where each model writes. */
#ifndef SL_NOISY_LOAD_H
#define SL_NOISY_LOAD_H

#include <stdint.h>
#include <rte_common.h>
#include <rte_random.h>

enum sl_noisy_model { SL_NOISY_LINES, SL_NOISY_TESTPMD };

struct sl_noisy_load {
	uint64_t lines; /* lookup memory in cache lines; 0: none */
	uint32_t reads, writes, rws;
	uint8_t model;
};

static inline uint64_t sl_xorshift64s(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* one random cache line of the memory (multiply-shift: no division) */
static inline uint8_t *sl_noisy_line(uint8_t *mem, uint64_t lines, uint64_t *rng)
{
	uint64_t r = sl_xorshift64s(rng);
	return mem + (uint64_t)(((unsigned __int128)r * lines) >> 64) * RTE_CACHE_LINE_SIZE;
}

/* One packet's load; returns what the loads read (lines model) for the caller's sink. */
static inline uint64_t sl_noisy_packet(const struct sl_noisy_load *c, uint8_t *mem,
				       uint64_t *rng)
{
	uint64_t acc = 0;
	if (c->model == SL_NOISY_TESTPMD) {
		for (uint32_t j = 0; j < c->writes; j++) {
			uint64_t i = rte_rand(), v = rte_rand();
			mem[i % c->lines] = (uint8_t)v;
		}
		for (uint32_t j = 0; j < c->reads; j++)
			(void)rte_rand();
		for (uint32_t j = 0; j < c->rws; j++) {
			(void)rte_rand();
			uint64_t i = rte_rand(), v = rte_rand();
			mem[i % c->lines] = (uint8_t)v;
		}
		return 0;
	}
	for (uint32_t j = 0; j < c->writes; j++)
		*sl_noisy_line(mem, c->lines, rng) = (uint8_t)*rng;
	for (uint32_t j = 0; j < c->reads; j++)
		acc += *(volatile uint8_t *)sl_noisy_line(mem, c->lines, rng);
	for (uint32_t j = 0; j < c->rws; j++) {
		uint8_t *p = sl_noisy_line(mem, c->lines, rng);
		acc += *(volatile uint8_t *)p;
		*sl_noisy_line(mem, c->lines, rng) = (uint8_t)acc;
	}
	return acc;
}

#endif
