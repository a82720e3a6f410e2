/* SPDX-License-Identifier: BSD-3-Clause */
/* Is the host taking this core's throughput away? Two fixed loops, timed with the TSC, REPS
 * times 0.2 s apart: one bound by latency (a dependent multiply-add chain, 4 core cycles an
 * iteration, leaves the core's ports idle) and one bound by throughput (eight independent
 * chains, like a node at 4 instructions per clock). Frequency changes move both; a
 * competitor on the same physical core (the host's other hyperthread) moves only the second.
 *   cc -O2 scripts/host_calib.c -o /tmp/host_calib && taskset -c 1 /tmp/host_calib 30 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define ITERS 100000000L

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20;
	printf("TSC ticks per iteration: latency-bound / throughput-bound\n");
	for (int r = 0; r < reps; r++) {
		uint64_t x = 1, t0 = __rdtsc();
		for (long i = 0; i < ITERS; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t t1 = __rdtsc();
		uint64_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		for (long i = 0; i < ITERS; i++)
			for (int k = 0; k < 8; k++)
				a[k] = (a[k] + (a[k] << 3)) ^ (uint64_t)i;
		uint64_t t2 = __rdtsc();
		volatile uint64_t sink = x ^ a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7];
		(void)sink;
		printf("%.2f / %.2f\n", (double)(t1 - t0) / ITERS, (double)(t2 - t1) / ITERS);
		fflush(stdout);
		nanosleep(&(struct timespec){0, 200000000}, NULL);
	}
	return 0;
}
