#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sluice-bench on a many-core machine without DPDK, from what scripts/pack_for_device.sh put
# in devpkg/: the generator on core 2, the DUTs' main lcores on core 3, their forwarders on
# core 4, each on a core of its own. Arguments are sluice-bench's, e.g.
#   bash scripts/device_sluice_bench.sh bench/topologies/memif-sluiced-vs-testpmd-io.yaml --repeat 3
# Results in results/NAME (and copied to $OUT when set).
set -eu
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/devpkg/lib PYTHONPATH=$PWD/bench PYTHONUNBUFFERED=1
echo 2048 > /proc/sys/vm/nr_hugepages
mkdir -p /dev/hugepages
mount | grep -q hugetlbfs || mount -t hugetlbfs nodev /dev/hugepages
grep -m1 "model name" /proc/cpuinfo
export SLUICE_BUILD=devpkg BENCH_EAL="-d $PWD/devpkg/pmds" BENCH_CORES=${BENCH_CORES:-2,3,4} \
	TESTPMD=$PWD/devpkg/dpdk-testpmd L3FWD_DIR=$PWD/devpkg/l3fwd
rc=0
python3 -m sluice_bench "$@" || rc=$?
if [ -n "${OUT:-}" ]; then
	for d in results/*/; do
		[ -d "$d" ] && for f in "$d"*.json "$d"*.md; do [ -f "$f" ] && cp "$f" "$OUT/$(basename "$d")-$(basename "$f")"; done
	done
fi
exit $rc
