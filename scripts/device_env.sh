# SPDX-License-Identifier: BSD-3-Clause
# Sourced by scripts/device_*.sh: the set-up of a lent many-core machine without DPDK, from
# what scripts/pack_for_device.sh put in devpkg/ (SLUICE_BUILD=build instead: a machine with
# DPDK installed). Hugepages (HUGEPAGES 2 MB pages, default 2048; 0 leaves them as they are),
# then the benchmarks' environment: the generator on core 2, the DUTs' main lcores on core 3,
# their forwarders on core 4 (BENCH_CORES), devpkg's testpmd and l3fwd.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "${HUGEPAGES:-2048}" = 0 ] || echo "${HUGEPAGES:-2048}" > /proc/sys/vm/nr_hugepages
mkdir -p /dev/hugepages
mount | grep -q hugetlbfs || mount -t hugetlbfs nodev /dev/hugepages
grep -m1 "model name" /proc/cpuinfo
export PYTHONPATH=$PWD/bench PYTHONUNBUFFERED=1 SLUICE_BUILD=${SLUICE_BUILD:-devpkg} \
	BENCH_CORES=${BENCH_CORES:-2,3,4} TESTPMD=${TESTPMD:-$PWD/devpkg/dpdk-testpmd} \
	L3FWD_DIR=${L3FWD_DIR:-$PWD/devpkg/l3fwd}
if [ "$SLUICE_BUILD" = devpkg ]; then
	export LD_LIBRARY_PATH=$PWD/devpkg/lib BENCH_EAL="-d $PWD/devpkg/pmds"
fi
