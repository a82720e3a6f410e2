/* SPDX-License-Identifier: BSD-3-Clause */
/* Lab (issue 13): cc -O2 -o /tmp/probe scripts/lab/probe.c; /tmp/probe CPU SECONDS: spins on
 * one core and counts the gaps between two TSC reads of 50 us, 400 us and 1 ms and more:
 * what the machine alone takes from a core (no DPDK, no sluiced). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>
int main(int argc, char **argv)
{
	int cpu = atoi(argv[1]);
	double secs = atof(argv[2]);
	cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof(s), &s);
	struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t t0 = __rdtsc();
	struct timespec sl = {0, 100000000}; nanosleep(&sl, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double hz = (__rdtsc() - t0) / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	uint64_t end = __rdtsc() + (uint64_t)(secs * hz), last = __rdtsc(), n50 = 0, n400 = 0, n1000 = 0, mx = 0;
	while (last < end) {
		uint64_t now = __rdtsc(), d = now - last;
		if (d > mx) mx = d;
		double us = d / hz * 1e6;
		n50 += us >= 50; n400 += us >= 400; n1000 += us >= 1000;
		last = now;
	}
	printf("cpu%d %.0fs: gaps >=50us %lu, >=400us %lu, >=1ms %lu, longest %.0f us\n", cpu, secs, n50, n400, n1000, mx / hz * 1e6);
	return 0;
}
