/* SPDX-License-Identifier: BSD-3-Clause */
/* The noisy VNF's two memory-load models (src/l2/noisy_load.h) on a plain buffer: where each
 * writes, that the lines model's reads load, and that the testpmd model draws rte_rand() as
 * dpdk-testpmd 22.11 does (one per read, two per write, three per read-write). No EAL. */
#include "../common/check.h"
#include "../../src/l2/noisy_load.h"

#include <stdlib.h>
#include <string.h>

#define MB (1u << 20)

static unsigned nonzero(const uint8_t *m, size_t from, size_t to, size_t *off_line)
{
	unsigned n = 0;
	for (size_t i = from; i < to; i++)
		if (m[i]) {
			n++;
			if (off_line && i % RTE_CACHE_LINE_SIZE)
				(*off_line)++;
		}
	return n;
}

/* lines: writes land on line starts all over the memory */
static void test_lines_writes(uint8_t *mem)
{
	memset(mem, 0, MB);
	struct sl_noisy_load c = {.lines = MB / 64, .writes = 100, .model = SL_NOISY_LINES};
	uint64_t rng = 12345;
	for (int p = 0; p < 1000; p++)
		sl_noisy_packet(&c, mem, &rng);
	size_t off = 0;
	unsigned low = nonzero(mem, 0, MB / 64, &off), all = nonzero(mem, 0, MB, &off);
	CHECK(off == 0);                 /* one byte at the start of a line */
	CHECK(all > MB / 64 * 8 / 10);   /* 100,000 writes over 16,384 lines: most hit */
	CHECK(all - low > all * 9 / 10); /* and 63/64 of them beyond the first 1/64 */
}

/* lines: each read loads (its byte comes back in the sum), a read-write loads once */
static void test_lines_reads(uint8_t *mem)
{
	memset(mem, 1, MB);
	uint64_t rng = 99;
	struct sl_noisy_load c = {.lines = MB / 64, .reads = 37, .model = SL_NOISY_LINES};
	CHECK(sl_noisy_packet(&c, mem, &rng) == 37);
	c = (struct sl_noisy_load){.lines = MB / 64, .rws = 5, .model = SL_NOISY_LINES};
	uint64_t acc = sl_noisy_packet(&c, mem, &rng);
	CHECK(acc >= 5 && acc < 5 * 256); /* five loads; the stores write running sums */
}

/* testpmd: a byte anywhere among the first MB*2^20/64 bytes, nothing beyond */
static void test_testpmd_writes(uint8_t *mem)
{
	memset(mem, 0, MB);
	struct sl_noisy_load c = {.lines = MB / 64, .writes = 100, .rws = 20,
				  .model = SL_NOISY_TESTPMD};
	uint64_t rng = 1;
	for (int p = 0; p < 1000; p++)
		CHECK(sl_noisy_packet(&c, mem, &rng) == 0);
	size_t off = 0;
	unsigned low = nonzero(mem, 0, MB / 64, &off);
	CHECK(nonzero(mem, MB / 64, MB, NULL) == 0);
	CHECK(low > MB / 64 * 9 / 10); /* 120,000 byte stores over 16,384 bytes */
	CHECK(off > low / 2);          /* bytes, not line starts */
	CHECK(rng == 1);               /* testpmd's draws come from rte_rand() */
}

/* testpmd: reads load nothing and draw one number each; writes two; read-writes three */
static void test_testpmd_draws(uint8_t *mem)
{
	const struct {
		uint32_t r, w, rw, draws;
	} cases[] = {{7, 0, 0, 7}, {0, 3, 0, 6}, {0, 0, 4, 12}, {2, 1, 1, 7}};
	for (unsigned k = 0; k < RTE_DIM(cases); k++) {
		struct sl_noisy_load c = {.lines = MB / 64, .reads = cases[k].r,
					  .writes = cases[k].w, .rws = cases[k].rw,
					  .model = SL_NOISY_TESTPMD};
		uint64_t expect = 0, rng = 0;
		rte_srand(42 + k);
		for (uint32_t i = 0; i <= cases[k].draws; i++)
			expect = rte_rand();
		rte_srand(42 + k);
		sl_noisy_packet(&c, mem, &rng);
		CHECK(rte_rand() == expect);
	}
	memset(mem, 0, MB);
	struct sl_noisy_load c = {.lines = MB / 64, .reads = 1000, .model = SL_NOISY_TESTPMD};
	uint64_t rng = 0;
	sl_noisy_packet(&c, mem, &rng);
	CHECK(nonzero(mem, 0, MB, NULL) == 0); /* reads write nothing */
}

int main(void)
{
	uint8_t *mem = aligned_alloc(RTE_CACHE_LINE_SIZE, MB);
	CHECK(mem != NULL);
	if (!mem)
		return CHECK_REPORT();
	test_lines_writes(mem);
	test_lines_reads(mem);
	test_testpmd_writes(mem);
	test_testpmd_draws(mem);
	free(mem);
	return CHECK_REPORT();
}
