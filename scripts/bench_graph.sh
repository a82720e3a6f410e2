#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make bench-graph: the routing path in memory (ring ports, no NIC, no second process):
# clocks/packet per node, then instructions/packet under callgrind (N packets minus 0).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${SLUICE_BUILD:-build}/tests/unit/bench_graph
N=${PACKETS:-5000000}
CG=${CG_PACKETS:-100000}
for routes in 1 ${ROUTES:-1048576}; do
	echo "== $routes route(s), $N packets"
	"$B" "$N" "$routes" 2>&1 | grep -v '^EAL\|^TELEMETRY'
done
if command -v valgrind >/dev/null; then
	tmp=$(mktemp -d)
	for n in 0 "$CG"; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$B" "$n" 1 >"$tmp/log.$n" 2>&1
	done
	a=$(grep -o 'Collected : [0-9]*' "$tmp/log.0" | grep -o '[0-9]*$')
	b=$(grep -o 'Collected : [0-9]*' "$tmp/log.$CG" | grep -o '[0-9]*$')
	echo "== callgrind, 1 route: $(( (b - a) / CG )) instructions/packet (whole loop, packet building included)"
	callgrind_annotate "$tmp/cg.$CG" 2>/dev/null | grep -E '_process ' | sed 's/^/   /' || true
	rm -rf "$tmp"
fi
