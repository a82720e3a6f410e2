#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The memif comparisons of make bench (sluiced routing vs dpdk-testpmd io vs l3fwd, then the
# L2 modes and noisy VNF vs testpmd) on a many-core machine without DPDK, from what
# scripts/pack_for_device.sh put in devpkg/: generator on core 2, main lcores on core 3,
# forwarders on core 4, each on a core of its own (BENCH_PARTS, BENCH_MODES pick parts;
# BENCH_PARTS=features the policer, ACL and QoS runs).
# Results in results/bench-parts.json (and $OUT when set).
set -eu
. "$(dirname "$0")/device_env.sh"
BENCH_PARTS=${BENCH_PARTS:-memif,modes} python3 scripts/bench.py
