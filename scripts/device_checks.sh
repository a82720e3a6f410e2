#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The device checks of issues 13 and 16 in one call, for a lent many-core machine without
# DPDK, from what scripts/pack_for_device.sh put in devpkg/ (generator core 2, main lcores 3,
# forwarders 4, as scripts/device_sluice_bench.sh). About 8 minutes; CHECKS picks some of:
#   probe     sluiced's worker across overloads: page faults, context switches, the node of
#             its longest call (scripts/lab/fault_probe.py, 4 reps; 20 s)
#   ndr       NDR/PDR/latency against testpmd io trial by trial, --repeat 3 (about 5 min)
#   fixed     fixed-rate trials in turn at 3 and 2 Mpps (about 70 s)
#   features  make bench's policer, ACL and QoS part, 5 rounds (about 70 s)
# Each check's output in $OUT/CHECK.log and its results' files beside it (results/device/
# without OUT). HUGEPAGES, SLUICE_BUILD: scripts/device_env.sh.
set -u
. "$(dirname "$0")/device_env.sh"
nproc; uname -r
out=${OUT:-results/device}
mkdir -p "$out"
T=bench/topologies/memif-sluiced-vs-testpmd-io.yaml
R="results/memif-sluiced-vs-testpmd-io/*.json results/memif-sluiced-vs-testpmd-io/*.md
   results/bench-parts.json results/bench-features.md"
keep() { # the results' files a check wrote into $out, named after it
	for f in $R; do
		[ -f "$f" ] && mv "$f" "$out/$1-$(basename "$f")"
	done
}
check() {
	case $1 in
	probe) python3 scripts/lab/fault_probe.py 4 ;;
	ndr) python3 -m sluice_bench $T --repeat 3 | grep -v '^  ' ;;
	fixed) python3 -m sluice_bench $T --at 3 --trials 8 | tail -6
	       keep fixed3
	       python3 -m sluice_bench $T --at 2 --trials 14 | tail -6 ;;
	features) BENCH_PARTS=features BENCH_TRIALS=5 BENCH_SECONDS=2 python3 scripts/bench.py | tail -8 ;;
	*) echo "unknown check '$1'" ;;
	esac
}
for c in ${CHECKS:-probe ndr fixed features}; do
	echo "== $(date +%T) $c"
	rm -f $R
	check "$c" 2>&1 | tee "$out/$c.log"
	keep "$c"
done
echo "== $(date +%T) done"
