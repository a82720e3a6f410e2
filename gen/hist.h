/* SPDX-License-Identifier: BSD-3-Clause */
/* Latency histograms of sluice-gen (its receiving lanes, the subscriber emulator): 8 buckets
 * per power of two of TSC cycles, each about 9% wide, so percentiles come within 9% from a
 * fixed 4 KiB array, whatever the count. */
#ifndef SL_GEN_HIST_H
#define SL_GEN_HIST_H

#include <stdint.h>

#define HIST_BUCKETS (64 * 8)

static inline unsigned hist_bucket(uint64_t x)
{
	if (x < 8)
		return (unsigned)x;
	unsigned l = 63u - (unsigned)__builtin_clzll(x);
	return l * 8 + (unsigned)((x >> (l - 3)) & 7);
}

static inline double hist_value(unsigned b) /* the middle of bucket b, in cycles */
{
	if (b < 8)
		return b;
	unsigned l = b / 8, f = b % 8;
	double lo = (double)((8ull + f) << (l - 3)), w = (double)(1ull << (l - 3));
	return lo + w / 2;
}

/* The pct percentile of the n values counted in hist, in cycles (0 when n is 0). */
static inline double hist_pct(const uint64_t *hist, uint64_t n, double pct)
{
	uint64_t want = (uint64_t)((double)n * pct / 100.0), acc = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		acc += hist[b];
		if (acc > want)
			return hist_value(b);
	}
	return 0;
}

/* hist_pct of values that were all within lo and hi (the least and the greatest counted):
 * a bucket's middle may lie beyond them, a percentile of the values may not (a clean clone's
 * sluice-gen reported p99.9 7.51 us over a maximum of 6.80). */
static inline double hist_pct_within(const uint64_t *hist, uint64_t n, double pct, double lo,
				     double hi)
{
	double v = hist_pct(hist, n, pct);
	return n ? (v < lo ? lo : v > hi ? hi : v) : 0;
}

#endif
