#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sluice-bench on a many-core machine without DPDK, from what scripts/pack_for_device.sh put
# in devpkg/: the generator on core 2, the DUTs' main lcores on core 3, their forwarders on
# core 4, each on a core of its own. Arguments are sluice-bench's, e.g.
#   bash scripts/device_sluice_bench.sh bench/topologies/memif-sluiced-vs-testpmd-io.yaml --repeat 3
# Results in results/NAME (and copied to $OUT when set).
set -eu
. "$(dirname "$0")/device_env.sh"
rc=0
python3 -m sluice_bench "$@" || rc=$?
if [ -n "${OUT:-}" ]; then
	for d in results/*/; do
		[ -d "$d" ] && for f in "$d"*.json "$d"*.md; do [ -f "$f" ] && cp "$f" "$OUT/$(basename "$d")-$(basename "$f")"; done
	done
fi
exit $rc
