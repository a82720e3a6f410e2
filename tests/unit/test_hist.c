/* SPDX-License-Identifier: BSD-3-Clause */
/* sluice-gen's latency histogram (gen/hist.h): percentiles within about 9% of the values,
 * and never beyond the least and the greatest value counted. */
#include "../common/check.h"
#include "../../gen/hist.h"

int main(void)
{
	static uint64_t hist[HIST_BUCKETS];
	/* 1,000 values: 1,000 to 1,999 cycles */
	for (uint64_t v = 1000; v < 2000; v++)
		hist[hist_bucket(v)]++;
	double p50 = hist_pct(hist, 1000, 50), p99 = hist_pct(hist, 1000, 99);
	CHECK(p50 > 1500 * 0.91 && p50 < 1500 * 1.09);
	CHECK(p99 > 1990 * 0.91 && p99 < 1990 * 1.09);
	/* the greatest, 1,999, lies low in its bucket (1,792 to 2,047): the bucket's middle,
	 * 1,920, is below it; a maximum of 1,800 in the same bucket is below that middle */
	static uint64_t h2[HIST_BUCKETS];
	for (uint64_t v = 1000; v <= 1800; v++)
		h2[hist_bucket(v)]++;
	CHECK(hist_pct(h2, 801, 99.9) > 1800);              /* the bucket's middle */
	CHECK(hist_pct_within(h2, 801, 99.9, 1000, 1800) == 1800);
	CHECK(hist_pct_within(h2, 801, 50, 1000, 1800) == hist_pct(h2, 801, 50));
	/* one value: every percentile is it */
	static uint64_t h3[HIST_BUCKETS];
	h3[hist_bucket(1234)]++;
	CHECK(hist_pct_within(h3, 1, 50, 1234, 1234) == 1234);
	CHECK(hist_pct_within(h3, 0, 50, 0, 0) == 0);
	return CHECK_REPORT();
}
