#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Lab (issue 13): scripts/lab/irq_diff.sh CPU COMMAND...: runs COMMAND and prints how many
# interrupts of each kind (/proc/interrupts: local timer, rescheduling, function-call and
# TLB-shootdown IPIs, ...) CPU took meanwhile: what takes time from a forwarder pinned there.
cpu=$1; shift
snap() { awk -v c=$((cpu + 2)) 'NR > 1 && $c ~ /^[0-9]+$/ {k = $1; sub(":", "", k); printf "%s %s\n", k, $c}' /proc/interrupts | sort; }
a=$(snap); "$@"; rc=$?; b=$(snap)
join <(echo "$a") <(echo "$b") | awk '$3 - $2 > 0 {printf "  cpu'"$cpu"' %-6s %d\n", $1, $3 - $2}'
exit $rc
